"""The Traffic dock's transport and congestion-control choices (``simulate --transport`` / ``--cc``).

The transport is how the NICs take reordered packets (:mod:`fabricviz.sim.transport`), or on RoCE
designs one of the transports of :mod:`fabricviz.sim.transports` (EQDS, NDP, HPCC): InfiniBand
HCAs and RoCE NICs with out-of-order placement take them in any order; a go-back-N RoCE NIC resends
the window in flight, so adaptive and spray routing cost it goodput. "Default" is what the design's
NIC parts give (:func:`~fabricviz.sim.transport.default_transport`); only the transports of the
design's technology can be picked. Congestion control (DCQCN, or none: PFC alone holds the
senders back) is asked only of RoCE designs and means something only to fluid runs.

Like the dock's other run options these are widget state of the one document's dock: another
window (document) has its own, and they are not design edits (no undo step).
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.model import events as ev
from fabricviz.sim.reach import fabric_tech
from fabricviz.sim.transport import TRANSPORTS, default_transport

TRANSPORT_NAMES = {"ib": "InfiniBand", "roce-gbn": "RoCE go-back-N", "roce-ooo": "RoCE out-of-order placement",
                   "eqds": "EQDS: spraying + trimming", "ndp": "NDP: spraying + trimming, windowed",
                   "hpcc": "HPCC over lossless ECMP"}
#: The default entry's words for it (short enough for the dock's width).
SHORT_NAMES = {**TRANSPORT_NAMES, "roce-ooo": "RoCE out-of-order"}
TRANSPORT_TIPS = {
    "ib": "InfiniBand HCAs take packets in any order: adaptive routing costs nothing",
    "roce-gbn": "go-back-N (ConnectX-6 class): a packet overtaken by a later one is NAKed and the whole "
                "window in flight resent, so adaptive and spray routing pay resends; static and ECMP keep "
                "each flow in order and pay nothing",
    "roce-ooo": "out-of-order placement (ConnectX-7 / BlueField-3 class): reordered packets are placed "
                "where they belong; adaptive and spray routing cost nothing",
    "eqds": "receiver-driven (EQDS, the Ultra Ethernet lineage): a first window unsolicited, then the receiver "
            "pulls at its line rate; every packet sprayed over all equal-cost paths; full switch queues trim "
            "payloads to headers and the trimmed packets are pulled again (runs spray routing)",
    "ndp": "NDP: as EQDS with htsim's NDP window (15 packets of 9000 B per round trip) and 15-packet queues "
           "(runs spray routing)",
    "hpcc": "HPCC: lossless (PFC), one ECMP path per flow, each window from in-band telemetry so the "
            "bottleneck runs at 95 % (runs ECMP routing)",
}
CC_CHOICES = (("DCQCN", "dcqcn"), ("none — PFC only", "none"))
#: Characters a picker asks room for: long entries elide instead of widening the dock.
PICKER_CHARS = 14


def _narrow(box: QtWidgets.QComboBox) -> None:
    """Size ``box`` by :data:`PICKER_CHARS`, not by its longest entry (the popup shows them whole)."""
    box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(PICKER_CHARS)
    fm = box.view().fontMetrics()
    box.view().setMinimumWidth(max(fm.horizontalAdvance(box.itemText(k)) for k in range(box.count())) + 24)


#: Device changes that leave the technology and the NIC parts as they were (moves, renames).
COSMETIC = ("pos", "name", "guid", "tier")


def needs_refresh(event: Any) -> bool:
    """A change that can move the design's technology or NIC parts (not a device moved on the canvas)."""
    return event is None or not (event.what == ev.DEVICE and event.kind == ev.CHANGED and event.attr in COSMETIC)


class TransportPicker(QtWidgets.QComboBox):
    """Default (NICs): …, then InfiniBand, RoCE go-back-N, RoCE out-of-order placement;
    the other technology's entries are disabled."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic_transport")
        self.addItem("Default", None)
        for t in TRANSPORTS:
            self.addItem(TRANSPORT_NAMES[t], t)
            self.setItemData(self.count() - 1, TRANSPORT_TIPS[t], QtCore.Qt.ItemDataRole.ToolTipRole)
        self.default = "ib"
        self._tech = ""
        self.currentIndexChanged.connect(self._tip)
        _narrow(self)

    def refresh(self, fabric: Fabric) -> None:
        """The default from ``fabric``'s NIC parts; entries of its technology enabled (a choice of the
        other technology goes back to Default)."""
        self.default = default_transport(fabric)
        self._tech = fabric_tech(fabric)
        self.setItemText(0, f"Default (NICs): {SHORT_NAMES[self.default]}")
        self.setItemData(0, f"what the design's NIC parts do: {TRANSPORT_TIPS[self.default]}",
                         QtCore.Qt.ItemDataRole.ToolTipRole)
        model = self.model()
        assert isinstance(model, QtGui.QStandardItemModel)   # a combo box's own model
        for k in range(1, self.count()):
            model.item(k).setEnabled(self.fits(self.itemData(k)))
        if not self.fits(self.currentData()):
            self.setCurrentIndex(0)
        _narrow(self)
        self._tip()

    def fits(self, transport: str | None) -> bool:
        """``transport`` can run on the design shown (None or "default", the NICs', always can)."""
        return transport in (None, "default") or (transport == "ib") == (self._tech == "ib")

    def _tip(self) -> None:
        t = self.currentData()
        self.setToolTip("how the NICs take reordered packets (simulate --transport): "
                        + (TRANSPORT_TIPS[t] if t else f"the NICs' own, {TRANSPORT_NAMES[self.default]}: "
                           f"{TRANSPORT_TIPS[self.default]}"))

    def value(self) -> str | None:
        """The transport for the run (None: the design's default)."""
        return self.currentData()

    def normal(self, transport: str | None) -> str | None:
        """``transport`` checked (None or "default": the NICs'); FabricError when it does not exist
        or is the other technology's."""
        t = None if transport in (None, "default") else transport
        if t is not None and t not in TRANSPORTS:
            raise FabricError(f"traffic transport {transport!r}: use default, {', '.join(TRANSPORTS)}")
        if not self.fits(t):
            raise FabricError(f"traffic transport {transport!r}: not for this design "
                              f"({'InfiniBand' if self._tech == 'ib' else 'RoCE'})")
        return t

    def set_value(self, transport: str | None) -> None:
        """Choose ``transport`` (see :meth:`normal`)."""
        self.setCurrentIndex(self.findData(self.normal(transport)))


class CcPicker(QtWidgets.QComboBox):
    """DCQCN or none (PFC only), beside the model: shown on RoCE designs, enabled for fluid runs."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic_cc")
        for label, value in CC_CHOICES:
            self.addItem(label, value)
        self.roce = False
        self._asked = False                  # a RoCE design and a fluid run
        _narrow(self)

    def refresh(self, fabric: Fabric | None, model: str) -> None:
        """Shown on RoCE designs (``fabric`` None: the design as before), enabled for fluid runs."""
        show = self.roce if fabric is None else fabric_tech(fabric) != "ib"
        self.roce, self._asked = show, show and model == "fluid"
        self.setVisible(show)
        self.setEnabled(model == "fluid")
        self.setToolTip("RoCE congestion control (simulate --cc): DCQCN (ECN marks, CNPs, rate cuts) or none, "
                        "PFC pauses alone hold the senders back"
                        + ("" if model == "fluid" else "; fluid runs only: max-min has no congestion control"))

    def value(self) -> str | None:
        """The run's congestion control: None unless a RoCE fluid run (then dcqcn or none)."""
        return self.currentData() if self._asked else None

    def normal(self, cc: str | None) -> str | None:
        """``cc`` checked (None: not given); FabricError unless dcqcn or none."""
        if cc is not None and self.findData(cc) < 0:
            raise FabricError(f"traffic congestion control {cc!r}: use dcqcn or none")
        return cc

    def set_value(self, cc: str) -> None:
        self.setCurrentIndex(self.findData(self.normal(cc)))


def transport_line(summary: dict) -> str:
    """``transport: RoCE go-back-N — adaptive routing resends 66 % of what it delivers`` (``1.1× what it
    delivers`` past 100 %) from a run's summary: the numbers ``simulate --json`` prints (transport,
    routing, resent Gb/s per delivered Gb/s)."""
    t = summary.get("transport")
    if t is None:
        return ""
    head = f"transport: {TRANSPORT_NAMES.get(t, t)}"
    model = summary.get("transport_model")
    if model is not None:                    # eqds / ndp / hpcc (fabricviz.sim.transports)
        trims = model["trimmed_gbps"]
        return (f"{head} — {model['routing']} routing, " + (f"{trims:,.0f} Gb/s trimmed on {model['trimming_links']} "
                f"links, {100 * model['delivery_mean']:.0f} % of packets arrive whole" if trims > 0
                else "nothing trimmed"))
    resent, goodput = summary.get("reorder_retransmit_gbps", 0.0), summary["rate_gbps"]["total"]
    routing = summary["transport_efficiency"]["routing"]
    if t != "roce-gbn":
        return f"{head} — reordered packets cost nothing"
    if resent <= 0 or goodput <= 0:
        return f"{head} — {routing} routing keeps each flow in order: nothing resent"
    r = resent / goodput
    much = f"{r:.2g}×" if r >= 1 else f"{100 * r:.0f} % of" if r >= 0.1 else f"{100 * r:.2g} % of"
    return f"{head} — {routing} routing resends {much} what it delivers"


__all__ = ["CC_CHOICES", "CcPicker", "TRANSPORT_NAMES", "TRANSPORT_TIPS", "TransportPicker", "needs_refresh",
           "transport_line"]
