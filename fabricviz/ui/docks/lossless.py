"""The Lossless dock: what makes one switch of a RoCE design lossless, and whether it fits.

For the switch selected on the canvas (or picked in the box; the first one otherwise): the
buffer budget bar (PFC headroom, reserved minimums and shared pool against the part's buffer,
"estimate" when the catalog says so, red when it does not fit), and a table of its lossless
ports — speed, cable, the headroom by IEEE 802.1Qbb and by the NVIDIA rule side by side (the
design's method in bold, every term in the tooltip and under the table), XOFF/XON and the ECN
(RED) thresholds. All numbers are :func:`fabricviz.ethernet.lossless.lossless_plan`'s, the
ones the fluid model runs with and the switch-config export writes. While the Traffic dock
shows a fluid run of this design, the bar carries the switch's queued bytes at the shown frame
and the table each port's egress queue, PFC state, the bytes its ingress holds at that frame and
its peak over the run, both against XOFF
(:mod:`.lossless_model`). InfiniBand designs have no PFC: the dock says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric
from fabricviz.model.tech import TECH_ETH_CODE
from fabricviz.ui.docks.lossless_budget import COLOURS, BudgetBar, budget_state
from fabricviz.ui.docks.lossless_model import (
    BACKGROUND_PORTS,
    CACHE_KEY,
    LiveUse,
    Plans,
    PortRow,
    design_plans,
    fluid_run,
    live_use,
    mib,
    port_rows,
    switch_ports,
    terms_text,
)
from fabricviz.ui.document.routing import RoutingRefused
from fabricviz.ui.widgets.table_model import ColumnsModel

NOT_ROCE = "Not a RoCE design: PFC headroom and buffer budgets are for Ethernet switch ports (none is cabled here)."
DISPLAY = QtCore.Qt.ItemDataRole.DisplayRole
COLUMNS = ("Port", "Gb/s", "Cable m", "Cable", "IEEE B", "NVIDIA B", "XOFF B", "XON B", "ECN Kmin B",
           "ECN Kmax B", "ECN Pmax", "Queue B", "PFC", "Ingress B", "Peak ingress B")
LIVE_COLUMNS = (11, 12, 13, 14)
METHOD_COLUMN = {"ieee": 4, "nvidia": 5}
STATE_TEXT = {"fits": "fits", "near": "fits, near the limit", "over": "DOES NOT FIT", "unknown": "buffer unknown"}


class PortsModel(ColumnsModel):
    """The lossless ports of one switch (:class:`PortRow`), with the live columns of a run."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(COLUMNS, parent)
        self.rows: list[PortRow] = []
        self.method = "ieee"
        self.live: LiveUse | None = None

    def items(self) -> Sequence[PortRow]:
        return self.rows

    def set_rows(self, rows: list[PortRow], method: str) -> None:
        self.beginResetModel()
        self.rows, self.method = rows, method
        self.endResetModel()

    def set_live(self, live: LiveUse | None) -> None:
        self.live = live
        if self.rows:
            self.dataChanged.emit(self.index(0, LIVE_COLUMNS[0]), self.index(len(self.rows) - 1, LIVE_COLUMNS[-1]))

    def text(self, r: PortRow, col: int) -> str:
        if col < 11:
            return (r.name, f"{r.gbps:g}", f"{r.cable_m:g}", r.cable, f"{r.ieee:,}", f"{r.nvidia:,}",
                    f"{r.xoff:,.0f}", f"{r.xon:,.0f}", f"{r.kmin:,.0f}", f"{r.kmax:,.0f}", f"{r.pmax:g}")[col]
        lv = self.live
        if lv is None:
            return ""
        if col == 11:
            q = lv.port_queue.get(r.port)
            return "" if q is None else f"{q:,.0f}"
        if col == 12:
            return "pausing upstream" if lv.port_pausing.get(r.port) else ""
        held = lv.port_ingress.get(r.port)
        if col == 13:                    # held in this port's ingress at the frame, against XOFF
            if held is None:
                return ""
            return f"{held:,.0f}" + (f" ({100 * held / r.xoff:.0f} %)" if r.xoff > 0 else "")
        peak = lv.port_peak_ingress.get(r.port)
        if peak is None:
            return ""
        return f"{peak:,.0f}" + (f" ({100 * peak / r.xoff:.0f} %)" if r.xoff > 0 else "")

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex, role: int = DISPLAY) -> Any:
        if not index.isValid():
            return None
        r, col = self.rows[index.row()], index.column()
        if role == DISPLAY:
            return self.text(r, col)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            if col == 13:
                return "bytes this ingress holds at the shown frame — PFC's counter (% of its XOFF)"
            if col == 14:
                return "the most bytes held downstream of this ingress during the run (% of its XOFF)"
            return terms_text(r, self.method)
        if role == QtCore.Qt.ItemDataRole.FontRole and col == METHOD_COLUMN.get(self.method):
            f = QtGui.QFont()
            f.setBold(True)
            return f
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and col not in (0, 3, 12):
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and col == 12 and self.live is not None \
                and self.live.port_pausing.get(r.port):
            return QtGui.QColor(COLOURS["over"])
        return None


def _swatch(name: str, text: str) -> str:
    return f"<span style='color:{COLOURS[name]}'>■</span> {text}"


class LosslessDock(QtWidgets.QDockWidget):
    """View ▸ Lossless (RoCE): PFC headroom, XOFF/XON, ECN and the buffer budget of one switch."""

    settings_requested = QtCore.Signal()       # "RoCE Settings…": the window opens Design ▸ RoCE Settings

    def __init__(self, document: Any, parent: QtWidgets.QWidget | None = None,
                 selection: Callable[[], list[int]] | None = None) -> None:
        super().__init__("Lossless (RoCE)", parent)
        self.setObjectName("lossless")
        self.document = document
        self.selection = selection or (lambda: [])
        self.traffic = document.session.traffic       # the Traffic dock's run on show
        self.plans: Plans | None = None
        self.switch: int | None = None
        self.live: LiveUse | None = None
        self._dirty = True
        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        self.note = QtWidgets.QLabel(body)
        self.note.setObjectName("lossless_note")
        self.note.setWordWrap(True)
        lay.addWidget(self.note)
        self.content = QtWidgets.QWidget(body)
        c = QtWidgets.QVBoxLayout(self.content)
        c.setContentsMargins(0, 0, 0, 0)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("Switch", self.content))
        self.switch_box = QtWidgets.QComboBox(self.content)
        self.switch_box.setObjectName("lossless_switch")
        self.switch_box.setMinimumContentsLength(12)
        self.switch_box.setToolTip("the switch shown (selecting a switch on the canvas picks it)")
        self.switch_box.activated.connect(lambda i: self.show_switch(self.switch_box.itemData(i)))
        top.addWidget(self.switch_box)
        self.bar = BudgetBar(self.content)           # beside the switch: the rows below get the height
        top.addWidget(self.bar, 1)
        self.settings_button = QtWidgets.QPushButton("RoCE Settings…", self.content)
        self.settings_button.setObjectName("lossless_settings_button")
        self.settings_button.setToolTip("MTU, lossless priorities, headroom method, DCQCN preset, ECN thresholds")
        self.settings_button.clicked.connect(self.settings_requested)
        top.addWidget(self.settings_button)
        c.addLayout(top)
        self.budget_label = QtWidgets.QLabel(self.content)
        self.budget_label.setObjectName("lossless_budget")
        self.budget_label.setWordWrap(True)
        self.budget_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        c.addWidget(self.budget_label)
        self.live_label = QtWidgets.QLabel(self.content)
        self.live_label.setObjectName("lossless_live")
        self.live_label.setWordWrap(True)
        c.addWidget(self.live_label)
        self.model = PortsModel(self)
        self.table = QtWidgets.QTableView(self.content)
        self.table.setObjectName("lossless_ports")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._show_terms())
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal, self.content)
        split.addWidget(self.table)                  # the rows get the dock's height, the terms its side
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height()
                                    + 4 * self.table.verticalHeader().defaultSectionSize() + 4)
        side = QtWidgets.QWidget(split)
        side_lay = QtWidgets.QVBoxLayout(side)
        side_lay.setContentsMargins(4, 0, 0, 0)
        self.settings_label = QtWidgets.QLabel(side)
        self.settings_label.setObjectName("lossless_settings")
        self.settings_label.setWordWrap(True)
        side_lay.addWidget(self.settings_label)
        self.terms_label = QtWidgets.QLabel(side)
        self.terms_label.setObjectName("lossless_terms")
        self.terms_label.setWordWrap(True)
        self.terms_label.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        self.terms_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.terms_label.setMinimumWidth(220)
        scroll = QtWidgets.QScrollArea(side)         # all terms of both methods, however narrow the side
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setWidget(self.terms_label)
        side_lay.addWidget(scroll, 1)
        split.addWidget(side)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        c.addWidget(split, 1)
        lay.addWidget(self.content, 1)
        self.setWidget(body)
        document.changed.connect(self._changed)
        document.routing.ready.connect(lambda key: self.refresh() if key == CACHE_KEY else None)
        self.visibilityChanged.connect(lambda on: self.refresh() if on and self._dirty else None)
        # shown on an InfiniBand design (a layout restored from a RoCE session, say): it leaves again
        self.visibilityChanged.connect(lambda on: QtCore.QTimer.singleShot(0, self, self.follow_tech) if on else None)
        self.traffic.run_changed.connect(self._traffic_moved)
        self.traffic.frame_changed.connect(self._traffic_moved)
        self._auto_hidden = False               # hidden because the design is not RoCE (comes back on one)
        self.follow_tech()
        self.refresh()

    # ------------------------------------------------------------------ following the document
    @property
    def fabric(self) -> Fabric:
        return self.document.fabric

    def _changed(self, e: Any) -> None:
        if e is not None and e.what == "device" and e.attr == "pos":
            return                                  # a drag moves nothing the dock shows
        self.follow_tech()
        self.refresh()

    def applies(self) -> bool:
        """A RoCE design: some Ethernet cable (PFC, headroom and buffers are Ethernet switch ports')."""
        ct = self.fabric.cables_t
        return bool(np.any(ct.alive & (ct.tech == TECH_ETH_CODE)))

    def follow_tech(self) -> None:
        """The dock is for RoCE designs: on another design it closes (and View ▸ Lossless (RoCE) is
        greyed out) instead of standing open as a "Not a RoCE design" panel; it opens again on the
        next RoCE design if it was open before."""
        on = self.applies()
        act = self.toggleViewAction()
        act.setEnabled(on)
        act.setToolTip("PFC headroom, XOFF/XON, ECN and the buffer budget per switch" if on else
                       "RoCE designs only: this design has no Ethernet switch port")
        if not on and not self.isHidden() and self.window().isVisible():     # open in a shown window
            self._auto_hidden = True
            self.hide()
        elif on and self._auto_hidden:
            self._auto_hidden = False
            self.show()

    def _plans(self) -> Plans | None:
        """The plans of the current state, None while they are computed; RoutingRefused: why none."""
        routing = self.document.routing
        if self.fabric.ports_t.n <= BACKGROUND_PORTS:
            return routing.compute(CACHE_KEY, design_plans)
        value = routing.get(CACHE_KEY)
        if value is None:
            routing.request(CACHE_KEY, design_plans)
        return value

    def refresh(self) -> None:
        """Compute (or fetch) the plans and show the current switch; deferred while hidden."""
        if not self.isVisible():
            self._dirty = True
            return
        self._dirty = False
        try:
            self.plans = self._plans()
        except RoutingRefused as e:
            self.plans = None
            return self._empty(str(e))
        if self.plans is None:
            return self._empty("Computing the lossless plan…")
        if not self.plans.plan.switches:
            return self._empty(NOT_ROCE)
        self.note.setVisible(False)
        self.content.setVisible(True)
        plan = self.plans.plan
        switches = sorted(plan.switches)
        self.switch_box.blockSignals(True)
        self.switch_box.clear()
        for d in switches:
            self.switch_box.addItem(self.fabric.name_of(d), d)
        self.switch_box.blockSignals(False)
        try:
            dcqcn = self.fabric.settings.roce.dcqcn
        except ValueError:
            dcqcn = "?"
        method = "IEEE 802.1Qbb" if plan.method == "ieee" else "NVIDIA rule of thumb"
        prios = ",".join(map(str, plan.priorities))      # a list of 802.1p priorities, not a count
        self.settings_label.setText(f"MTU {plan.mtu} B · PFC on priorit{'y' if len(plan.priorities) == 1 else 'ies'} "
                                    f"{prios} · headroom: {method} · DCQCN {dcqcn}")
        pick = self._selected_switch()
        cur = self.switch
        self.show_switch(pick if pick is not None else cur if cur is not None and cur in plan.switches else switches[0])

    def _empty(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(True)
        self.content.setVisible(False)
        self.switch = None
        self.model.set_rows([], "ieee")
        self.bar.set_budget(None)

    def _selected_switch(self) -> int | None:
        if self.plans is None:
            return None
        t = self.fabric.devices_t
        try:
            picked = self.selection()
        except RuntimeError:               # the canvas is being deleted (the window closing)
            return None
        for d in picked:
            top = int(t.parent[d]) if t.parent[d] >= 0 else int(d)
            if top in self.plans.plan.switches:
                return top
        return None

    def selection_changed(self) -> None:
        """The canvas selection moved: a selected switch is shown."""
        if not self.isVisible():
            return                         # shown later, it picks the selection up in refresh()
        d = self._selected_switch()
        if d is not None and d != self.switch:
            self.show_switch(d)

    # ------------------------------------------------------------------ one switch
    def show_switch(self, d: int) -> None:
        """Show switch ``d``'s budget and ports."""
        if self.plans is None or d not in self.plans.plan.switches:
            return
        self.switch = int(d)
        self.switch_box.setCurrentIndex(max(0, self.switch_box.findData(self.switch)))
        keep = self.table.currentIndex().row()
        self.model.set_rows(port_rows(self.fabric, self.plans, self.switch), self.plans.plan.method)
        self.table.resizeColumnsToContents()
        if 0 <= keep < len(self.model.rows):
            self.table.selectRow(keep)
        self._show_budget()
        self._show_terms()
        self.update_live()

    def budget(self) -> Any:
        return None if self.plans is None or self.switch is None else self.plans.plan.switches[self.switch]

    def _show_budget(self) -> None:
        b = self.budget()
        if b is None:
            return
        assert self.plans is not None                 # a budget is of a plan
        state = budget_state(b)
        head = (f"{_swatch('headroom', 'headroom ' + mib(b.headroom_total))} ({b.ports} ports × "
                f"{len(self.plans.plan.priorities)} priorit{'y' if len(self.plans.plan.priorities) == 1 else 'ies'})"
                f" · {_swatch('reserved', 'reserved ' + mib(b.reserved))}")
        if b.known:
            est = " <b>estimate</b>" if b.estimated else " published"
            shared = _swatch("shared", f"shared pool {mib(b.shared_pool)}") if b.fits else \
                f"<span style='color:{COLOURS['over']}'>over by {mib(-b.shared_pool)}</span>"
            colour = COLOURS["over"] if state == "over" else "#b26a00" if state == "near" else "inherit"
            text = (f"<b>{b.part or '?'}</b> buffer {mib(b.buffer_bytes)} ({est.strip()}) · {head} · {shared} "
                    f"(α {b.alpha:g}, dynamic_th {b.dynamic_th}) · "
                    f"<span style='color:{colour}'><b>{100 * b.use:.1f} % used: {STATE_TEXT[state]}</b></span>")
        else:
            text = f"<b>{b.part or '?'}</b>: the catalog has no buffer size · {head}"
        self.budget_label.setText(text)
        self.budget_label.setToolTip(b.source or "")
        self.bar.setToolTip(b.source or "")

    def _show_terms(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or self.plans is None:
            self.terms_label.setText("Select a port for every term of its headroom (or hover over it).")
            return
        self.terms_label.setText(terms_text(self.model.rows[rows[0].row()], self.plans.plan.method))

    # ------------------------------------------------------------------ live buffer use
    def _traffic_moved(self, _what: Any) -> None:
        """Another run or frame on show."""
        self.update_live()

    def update_live(self) -> None:
        """Follow the Traffic dock: a fluid run of this design at its shown frame, or nothing."""
        tr = self.traffic
        b = self.budget()
        res = tr.result
        on = b is not None and fluid_run(res, tr.fabric, self.fabric)
        plans, d = self.plans, self.switch          # not None when there is a budget
        self.live = live_use(self.fabric, res, tr.frame, d, switch_ports(plans.plan, self.fabric, d)) \
            if on and plans is not None and d is not None else None
        for col in LIVE_COLUMNS:
            self.table.setColumnHidden(col, self.live is None)
        self.model.set_live(self.live)
        self.bar.set_budget(b, None if self.live is None else self.live.queue_bytes)
        if self.live is None:
            self.live_label.setVisible(False)
            return
        lv = self.live
        assert d is not None                          # a live use is of a switch
        share = f" = {100 * lv.queue_bytes / b.buffer_bytes:.2f} % of the buffer" if b.known else ""
        pausing = sum(lv.port_pausing.values())
        self.live_label.setText(f"Traffic run at {lv.time_s * 1e3:.3f} ms: {lv.queue_bytes:,.0f} B queued in "
                                f"{self.fabric.name_of(d)}{share} · {pausing} port(s) pausing upstream")
        self.live_label.setVisible(True)


__all__ = ["LosslessDock", "NOT_ROCE", "PortsModel"]
