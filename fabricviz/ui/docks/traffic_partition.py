"""The Traffic dock's partition choice: which InfiniBand partition a run goes in.

Shown only for an InfiniBand design that carries a partitions.conf (``fabricviz partitions
--store`` or a Partitions import); the first entry is the Default partition (0x7fff), then the
design's partitions in file order. A run in a partition leaves the hosts outside it out and
refuses flows between two limited members (:mod:`fabricviz.sim.partitioned`).
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtWidgets

from fabricviz.ib.partitions import DEFAULT_PKEY
from fabricviz.model import Fabric, FabricError
from fabricviz.sim.partitioned import pkey_text
from fabricviz.sim.reach import fabric_tech

DEFAULT_LABEL = "Default (0x7fff)"


def design_partition_names(fabric: Fabric) -> list[tuple[str, str]]:
    """(label, value passed to the run) per partition of ``fabric``; [] when none applies."""
    from fabricviz.ib.partitions import design_partitions
    try:
        conf = design_partitions(fabric)
    except FabricError:
        return []
    if conf is None or not conf.applies_default or fabric_tech(fabric) != "ib":
        return []
    out = [(DEFAULT_LABEL, "")]
    for p in conf.merged():
        if p.pkey & 0x7FFF != DEFAULT_PKEY:
            out.append((f"{p.name} ({pkey_text(p.pkey)})", p.name))
    return out


class PartitionPicker(QtWidgets.QComboBox):
    """A combo box of the design's partitions (hidden with its form label when there are none)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic_partition")
        self.setToolTip("the InfiniBand partition the run goes in: hosts outside it are left out, "
                        "flows between two limited members are refused (P_Key rules)")
        self.label: QtWidgets.QWidget | None = None
        self._key: Any = None

    def refresh(self, fabric: Fabric) -> None:
        """Fill from ``fabric``'s partitions (keeps the choice when it still exists)."""
        rows = design_partition_names(fabric)
        key = tuple(rows)
        if key != self._key:
            self._key = key
            keep = self.currentData()
            self.blockSignals(True)
            self.clear()
            for label, value in rows:
                self.addItem(label, value)
            k = self.findData(keep)
            self.setCurrentIndex(k if k >= 0 else 0)
            self.blockSignals(False)
        self.setVisible(bool(rows))
        if self.label is not None:
            self.label.setVisible(bool(rows))

    def value(self) -> str:
        """The partition name for the run ('' = Default, or no partitions)."""
        return str(self.currentData() or "") if self.count() else ""

    def _find(self, name: str) -> int:
        """The entry of a partition by name or by its label (``storage (0x8001)``, as runs say it)."""
        k = self.findData(name or "")
        return k if k >= 0 else self.findText(name or "")

    def has(self, name: str) -> bool:
        """True when ``name`` can be chosen ("" — the Default — also when the design has none)."""
        return self._find(name) >= 0 or (not name and not self.count())

    def set_value(self, name: str) -> None:
        """Choose a partition by name or label."""
        if not name and not self.count():
            return                        # no partitions: every run is in the Default one
        k = self._find(name)
        if k < 0:
            raise FabricError(f"traffic partition {name!r}: use "
                              + ", ".join(self.itemText(i) for i in range(self.count())))
        self.setCurrentIndex(k)


__all__ = ["PartitionPicker", "design_partition_names"]
