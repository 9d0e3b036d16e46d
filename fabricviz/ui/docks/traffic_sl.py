"""The Traffic dock's service-level choice: which SL an InfiniBand run's flows carry.

"SL from the SM" (the default) is what an application gets from the SA's PathRecord: SL 0,
or with dfsssp/lash each path's own SL (the layer that keeps it free of credit loops). "SL n"
puts every flow on SL n; the SL→VL tables of the design's QoS settings then pick the VL on
each hop and VL arbitration shares every link among the VLs (:mod:`fabricviz.sim.vlarb`).
Shown only for InfiniBand designs: Ethernet has no SLs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6 import QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.model.numbers import is_digits
from fabricviz.sim.reach import fabric_tech

FROM_SM = "SL from the SM"


class SlPicker(QtWidgets.QComboBox):
    """A combo box: the SM's path SL, then SL 0 … SL 15 (hidden with its label off InfiniBand)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic_sl")
        self.setToolTip("the service level of every flow: the SM's (SL 0, or each path's SL with dfsssp/lash) "
                        "or one SL for all; the design's SL→VL tables and VL arbitration (Design › QoS "
                        "Settings) decide how links are shared")
        self.addItem(FROM_SM, None)
        for sl in range(16):
            self.addItem(f"SL {sl}", sl)
        self.label: QtWidgets.QWidget | None = None

    def refresh(self, fabric: Fabric) -> None:
        show = fabric_tech(fabric) == "ib"
        self.setVisible(show)
        if self.label is not None:
            self.label.setVisible(show)

    def value(self) -> int | None:
        """The SL for the run (None: the SM's); always None when hidden (not InfiniBand)."""
        return None if self.isHidden() else self.currentData()

    def choice(self) -> int | str:
        """The choice as the dock's ``configure`` takes it: ``"sm"`` (the SM's SLs) or an SL."""
        sl = self.currentData()
        return "sm" if sl is None else int(sl)

    @staticmethod
    def sl_of(value: int | str) -> int | None:
        """``"sm"`` (or the entry's text) → None, ``3`` or ``"SL 3"`` → 3; else FabricError."""
        if value in ("sm", FROM_SM):
            return None
        text = str(value).strip()
        text = text[2:].strip() if text.upper().startswith("SL") else text
        if not is_digits(text) or not 0 <= int(text) < 16:
            raise FabricError(f"traffic SL {value!r}: an SL is 0..15 (or \"sm\": the SM's)")
        return int(text)

    def set_value(self, sl: int | None) -> None:
        k = self.findData(sl)
        if k < 0:
            raise FabricError(f"traffic SL {sl!r}: an SL is 0..15 (or None: the SM's)")
        self.setCurrentIndex(k)


def vl_note(res: Any) -> str:
    """`` · SLs 0, 1 on VL0, VL1 (path SL) · VL2 starved on 3 links`` for a run whose flows used
    several SLs or VLs ('' for one class: nothing to say)."""
    fv = getattr(res, "flow_vl", None)
    load = getattr(res, "link_vl_gbps", None)
    if fv is None or load is None:
        return ""
    sls = sorted(int(x) for x in np.unique(np.asarray(fv.sl)).tolist())
    vls = [v for v in range(load.shape[1]) if load[:, v].sum() > 0]
    if len(sls) <= 1 and len(vls) <= 1:
        return ""
    where = {"path": "the SM's path SLs", "flows": "as given", "default": "SL 0"}.get(fv.source, fv.source)
    text = (f" · SL{'s' if len(sls) > 1 else ''} {', '.join(map(str, sls))} on "
            f"{', '.join(f'VL{v}' for v in vls)} ({where})")
    if fv.starved:
        starved = sorted({s.vl for s in fv.starved})
        links = len({s.link for s in fv.starved})
        text += f" · {', '.join(f'VL{v}' for v in starved)} starved on {links} link{'s' if links != 1 else ''}"
    return text


__all__ = ["FROM_SM", "SlPicker", "vl_note"]
