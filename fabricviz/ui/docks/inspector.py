"""The inspector dock: what is selected, its ports and cables; edits become undo commands.

A selected InfiniBand switch also shows its LFT, routed off the UI thread (see
:class:`Inspector`) and shown through :class:`~fabricviz.ui.docks.lft_table.LftModel` so big tables fill at once.

While the Subnet Manager dock shows a sweep, the inspector follows its step
(:meth:`Inspector.show_sweep_step`, following the session's sweep step): LIDs
assigned so far, port states as the SM set them, and only the LFT blocks pushed so far.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6 import QtCore, QtWidgets

from fabricviz.anim.sweep_timeline import SweepStep
from fabricviz.ib.lft_diff import lid_destinations
from fabricviz.ib.lid_table import UNKNOWN, LidTable, has_ib
from fabricviz.ib.subnet import NO_PATH
from fabricviz.model import CABLE_TYPES
from fabricviz.model.guid import format_guid, parse_guid
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.describe import KIND_NAMES, noun, part_text, plural, port_rows, rate_choices
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.docks.lft_table import LFT_COLS, LftModel
from fabricviz.ui.document.document import Document
from fabricviz.ui.document.routing import RoutingRefused, lft_engine, lids_engine

#: Columns of the ports table.
COLS = ("Port", "LID", "Port GUID", "Rate", "State", "Connected to", "Cable")
C_PORT, C_LID, C_GUID, C_RATE, C_STATE, C_PEER, C_CABLE = range(len(COLS))
#: A result made stale by an edit is routed again once edits pause this long (ms).
IDLE_MS = 150
#: Subnets with more switches than this get their LIDs from a job, not on the UI thread.
SYNC_SWITCHES = 2000


#: A LID the sweep shown has not assigned yet (it will, later in the sweep).
NOT_ASSIGNED_YET = "— (not assigned yet)"


class Inspector(QtWidgets.QDockWidget):
    """Dock ``inspector``: the selected device (ports and peers) or cable (type, length, rate).

    A switch's LFT comes from the Subnet Manager dock's routing when it has one for
    this design, else from minhop run here in a worker thread (``lft_ready`` fires
    when a result for the current design arrives; a stale one is thrown away).
    """

    lft_ready = QtCore.Signal()

    def __init__(self, document: Document, scene: FabricScene, parent: QtWidgets.QWidget | None = None):
        super().__init__("Inspector", parent)
        self.setObjectName("inspector")
        self.document, self.editor, self.scene = document, document.editor, scene
        self.device: int | None = None
        self.cable: int | None = None
        self.sweep: SweepStep | None = None     # the Subnet Manager dock's step, while it shows one
        self._sweep_states: tuple | None = None  # (state at that step, state at the sweep's end)
        self._lft_source: tuple = ()
        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(6, 6, 6, 6)
        self.title = QtWidgets.QLabel("Nothing selected", body)
        self.title.setObjectName("inspector_title")
        self.title.setWordWrap(True)
        self.title.setTextFormat(QtCore.Qt.TextFormat.RichText)
        lay.addWidget(self.title)
        form_box = QtWidgets.QWidget(body)
        self.form = QtWidgets.QFormLayout(form_box)
        self.form.setContentsMargins(0, 0, 0, 0)
        self.name = QtWidgets.QLineEdit(form_box)
        self.name.setObjectName("inspector_name")
        self.part = QtWidgets.QLabel(form_box)
        self.part.setWordWrap(True)
        self.tier = QtWidgets.QLabel(form_box)
        self.guid = QtWidgets.QLineEdit(form_box)
        self.guid.setObjectName("inspector_guid")
        self.lid = QtWidgets.QLabel(form_box)
        self.lid.setObjectName("inspector_lid")
        self.lid.setWordWrap(True)
        self.lid.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.ctype = QtWidgets.QComboBox(form_box)
        self.ctype.setObjectName("inspector_cable_type")
        self.ctype.addItems(list(CABLE_TYPES))
        self.length = QtWidgets.QDoubleSpinBox(form_box)
        self.length.setObjectName("inspector_cable_length")
        self.length.setRange(0.1, 10000.0)
        self.length.setDecimals(1)
        self.length.setSuffix(" m")
        self.cpart = QtWidgets.QComboBox(form_box)
        self.cpart.setObjectName("inspector_cable_part")
        self.rate = QtWidgets.QLabel(form_box)
        for label, w in (("Name", self.name), ("Part", self.part), ("Tier", self.tier),
                         ("GUID", self.guid), ("LID", self.lid), ("Type", self.ctype), ("Length", self.length),
                         ("Cable part", self.cpart), ("Rate", self.rate)):
            self.form.addRow(label, w)
        lay.addWidget(form_box)
        self.ports = QtWidgets.QTableWidget(0, len(COLS), body)
        self.ports.setObjectName("inspector_ports")
        self.ports.setHorizontalHeaderLabels(list(COLS))
        self.ports.setToolTip("tick State to enable a port, untick to disable it; pick or type a rate")
        self.ports.verticalHeader().setVisible(False)
        self.ports.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.ports.horizontalHeader().setStretchLastSection(True)
        self.ports.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        lay.addWidget(self.ports, 1)
        self.lft_title = QtWidgets.QLabel("", body)
        self.lft_title.setObjectName("inspector_lft_title")
        self.lft_title.setWordWrap(True)
        lay.addWidget(self.lft_title)
        self.lft_busy = QtWidgets.QProgressBar(body)
        self.lft_busy.setObjectName("inspector_lft_busy")
        self.lft_busy.setRange(0, 0)           # indeterminate until the engine reports progress
        self.lft_busy.setMaximumHeight(14)
        self.lft_busy.setTextVisible(False)
        lay.addWidget(self.lft_busy)
        self.lft_model = LftModel(self)
        self.lft = QtWidgets.QTableView(body)
        self.lft.setObjectName("inspector_lft")
        self.lft.setModel(self.lft_model)
        self.lft.setToolTip("this switch's linear forwarding table: destination LID → egress port "
                            "(0 = the switch itself)")
        vh = self.lft.verticalHeader()
        vh.setVisible(False)
        vh.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)   # no per-row size queries
        vh.setDefaultSectionSize(18)
        self.lft.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.lft.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.lft.setWordWrap(False)
        self.lft.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(self.lft, 1)
        self._idle = QtCore.QTimer(self)        # runs out once route-changing edits pause
        self._idle.setSingleShot(True)
        self._idle.setInterval(IDLE_MS)
        self._idle.timeout.connect(self._on_idle)
        self._dest: tuple | None = None         # (Routing, lid_destinations of it)
        self.cache = document.routing           # LIDs and LFTs of this design state, shared
        self.cache.ready.connect(self._routing_ready)
        self.cache.progress.connect(self._on_progress)
        self.cache.invalidated.connect(self._idle.start)
        lay.addStretch(0)           # keeps the summary at the top while the table is hidden
        self.setWidget(body)
        self.name.editingFinished.connect(self._rename)
        self.guid.editingFinished.connect(self._set_guid)
        self.ctype.activated.connect(self._set_ctype)
        self.length.editingFinished.connect(self._set_length)
        self.cpart.activated.connect(self._set_cpart)
        self.ports.itemChanged.connect(self._port_item_changed)
        self.rate_boxes: dict[int, QtWidgets.QComboBox] = {}
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        scene.selectionChanged.connect(self.schedule)
        document.changed.connect(lambda _e: self.schedule())
        document.session.cleared.connect(self.schedule)
        document.session.sweep.step_changed.connect(self.show_sweep_step)
        self.refresh()

    def schedule(self) -> None:
        self._timer.start()

    def show_sweep_step(self, step: SweepStep | None) -> None:
        """Follow the sweep's step shown by the Subnet Manager dock (None: the design's final state).

        Connected to the session's ``sweep.step_changed`` (the Subnet Manager dock's step).
        """
        if step is None and self.sweep is None:
            return
        self.sweep, self._sweep_states = step, None
        if step is not None:
            tl = step.timeline
            final = tl.state(len(tl) - 1)
            self._sweep_states = (tl.state(step.index), final)     # the step last: the timeline's cache
        self.schedule()

    def lid_text(self, port: int) -> str:
        """The port's LID, ``—`` while a worker computes it, or ``no LID (why)``; while a sweep
        shows, the LID at its step (:data:`NOT_ASSIGNED_YET` before the SM assigns it)."""
        if self._sweep_states is not None:
            now, final = self._sweep_states
            if 0 <= port < len(now.lid):
                if now.lid[port]:
                    return str(int(now.lid[port]))
                if final.lid[port]:
                    return NOT_ASSIGNED_YET
        table = self.lid_table()
        return UNKNOWN if table is None else table.text(self.editor.fabric, port)

    def lid_table(self) -> LidTable | None:
        """The SM's LIDs for this design: now for small subnets, else None until a job delivers."""
        f = self.editor.fabric
        if not has_ib(f):
            return None
        try:
            if len(f.device_ids("ib_switch")) <= SYNC_SWITCHES:
                return self.cache.compute("lids", lids_engine)
            self.cache.request("lids", lids_engine)
            return self.cache.get("lids")
        except RoutingRefused:
            return None

    def _show_rows(self, *labels: str) -> None:
        for i in range(self.form.rowCount()):
            lab_item = self.form.itemAt(i, QtWidgets.QFormLayout.ItemRole.LabelRole)
            field_item = self.form.itemAt(i, QtWidgets.QFormLayout.ItemRole.FieldRole)
            assert lab_item is not None and field_item is not None    # every row: a label and a field
            lab, field = lab_item.widget(), field_item.widget()
            assert isinstance(lab, QtWidgets.QLabel) and field is not None
            show = lab.text() in labels
            lab.setVisible(show)
            field.setVisible(show)

    def refresh(self) -> None:
        """Show the current selection (one device, one cable, or a summary)."""
        f = self.editor.fabric
        devs = self.scene.selected_device_ids() if f is not None else []
        cabs = sorted(c for c in self.scene.selected_cables if f is not None and f.cables_t.exists(c))
        self.device = devs[0] if len(devs) == 1 and not cabs else None
        self.cable = cabs[0] if len(cabs) == 1 and not devs else None
        for w in (self.name, self.guid, self.length, self.ctype, self.cpart, self.ports):
            w.blockSignals(True)
        self.lft_title.hide()
        self.lft_busy.hide()
        self.lft.hide()
        try:
            if self.device is not None and f.devices_t.exists(self.device):
                self._show_device(self.device)
            elif self.cable is not None:
                self._show_cable(self.cable)
            else:
                self._show_rows()
                self._clear_ports()
                self.ports.hide()
                if devs or cabs:       # zoomed out, one bundle's cables: what that bundle is
                    sem = getattr(self.scene, "semantic", None)
                    bundle = sem.queries.selection_text(cabs) if sem is not None and not devs else ""
                    self.title.setText(bundle or f"<b>{len(devs)}</b> {noun(len(devs), 'device')} and "
                                                 f"<b>{len(cabs)}</b> {noun(len(cabs), 'cable')} selected")
                elif f is not None:
                    c = f.counts()
                    self.title.setText(f"<b>{f.name}</b><br>" + ", ".join(
                        plural(n, w) for n, w in ((c["server"], "server"), (c["gpu"], "GPU"), (c["nic"], "NIC"),
                                                  (c["ib_switch"] + c["eth_switch"], "switch"),
                                                  (c["cables"], "cable"))))
        finally:
            for w in (self.name, self.guid, self.length, self.ctype, self.cpart, self.ports):
                w.blockSignals(False)

    def _show_device(self, d: int) -> None:
        f = self.editor.fabric
        dev = f.device(d)
        self.title.setText(f"<b>{dev.name}</b> — {KIND_NAMES.get(dev.kind, dev.kind)}")
        rows = ["Name", "Part", "Tier"]
        self.name.setText(dev.name)
        self.name.setReadOnly(dev.parent is not None)
        part = dev.part
        extra = ""
        if dev.kind == "server":
            extra = "<br>" + ", ".join(f"{g.name.split('/')[-1]}→{g.nic.name.split('/')[-1] if g.nic else '—'}"
                                        for g in dev.gpus)
        self.part.setText((part_text(part) if part else "—") + extra)
        self.tier.setText(str(dev.tier) if dev.tier >= 0 else "—")
        ib = dev.is_ib or (dev.kind == "server" and any(n.is_ib for n in dev.nics))
        data = port_rows(f, d)
        if dev.is_ib:
            rows.append("GUID")
            self.guid.setText(format_guid(dev.guid) if dev.guid else "")
        if ib and has_ib(f) and dev.kind in ("ib_switch", "nic"):
            rows.append("LID")
            if dev.kind == "ib_switch" or len(data) == 1:
                self.lid.setText(self.lid_text(data[0][0]) if data else "—")
            else:
                self.lid.setText(", ".join(f"port {f.ports_t.num[r[0]]}: {self.lid_text(r[0])}" for r in data))
        self._show_rows(*rows)
        self._fill_ports(data, lids=ib and has_ib(f), guids=ib and dev.kind != "ib_switch")
        if dev.kind == "ib_switch" and has_ib(f):
            self._show_lft(d)

    # ------------------------------------------------------------------ LFT
    def routing(self):
        """(Routing or None, where it came from, or why there is none, or that it is on its way).

        The Subnet Manager dock's routing when it has one for this design (its
        engine), else minhop computed here in a worker thread, one at a time, started
        once edits that change routes pause for ``IDLE_MS``: until it delivers,
        ``lft_pending`` is true and the text says what is running.
        """
        f = self.editor.fabric
        if self.sweep is not None:
            r = self.sweep.timeline.sweep.routing
            what = f", what-if: {self.sweep.whatif} pulled" if self.sweep.whatif else ""
            return r, f"from the Subnet Manager sweep ({r.routed_by}{what})"
        try:
            r = self.cache.routing("lft:sweep")
        except RoutingRefused:
            r = None
        if r is not None:
            return r, f"from the Subnet Manager sweep ({r.routed_by})"
        try:
            got = self.cache.routing("lft")
        except RoutingRefused as e:
            return None, str(e)
        if got is None:
            if not self._idle.isActive():
                self.cache.request("lft", lft_engine)   # once route-changing edits pause
            return None, f"routing {plural(len(f.device_ids('ib_switch')), 'switch')} with minhop…"
        return got, f"computed here ({got.routed_by})"

    @property
    def routings(self) -> int:
        """LFT results delivered to this design's cache (current or stale)."""
        return self.cache.computations["lft"]

    @property
    def discarded(self) -> int:
        """Of which stale: the design changed while routing."""
        return self.cache.discarded["lft"]

    @property
    def lft_pending(self) -> bool:
        """True while the LFTs of the current design are being computed here."""
        if self.sweep is not None:
            return False
        return not self.cache.has("lft:sweep") and not self.cache.has("lft")

    def _on_progress(self, key: str, done: int, total: int) -> None:
        if key == "lft":
            self.lft_busy.setRange(0, total)
            self.lft_busy.setValue(done)

    def _routing_ready(self, key: str) -> None:
        if key in ("lft", "lft:sweep"):
            if self.cache.has(key):
                self.lft_ready.emit()
            self._refresh_lft()             # fills the table, or starts over (once idle) if a switch waits
        elif key == "lids":
            self.schedule()

    def _on_idle(self) -> None:
        if not self.cache.running("lft") and self.lft_pending:
            self._refresh_lft()

    def _refresh_lft(self) -> None:
        """Show the selected switch's LFT section again (routing it if need be)."""
        f, d = self.editor.fabric, self.device
        if (d is not None and f is not None and f.devices_t.exists(d) and f.device(d).kind == "ib_switch"
                and self.lft_title.isVisibleTo(self) and has_ib(f)):
            self._show_lft(d)

    def _destinations(self, r):
        if self._dest is None or self._dest[0] is not r:
            self._dest = (r, lid_destinations(r))
        return self._dest[1]

    def lft_arrays(self, r, d: int) -> tuple[np.ndarray, np.ndarray, Callable[[int], str]]:
        """Switch ``d``'s routed LIDs (sorted), their egress ports, and ``name(k)`` of row k's destination."""
        sn, f = r.subnet, self.editor.fabric
        lids, is_sw, idx = self._destinations(r)
        row = r.lft[sn.sw_index[d]]
        keep = np.flatnonzero(lids < len(row))
        keep = keep[row[lids[keep]] != NO_PATH]
        ports = row[lids[keep]].astype(np.int64)
        sw_k, idx_k = is_sw[keep], idx[keep]

        def name(k: int) -> str:
            i = int(idx_k[k])
            return sn.switch_name(i) if sw_k[k] else f.port_name(int(sn.ca_ports[i]))
        return lids[keep], ports, name

    def _show_lft(self, d: int) -> None:
        r, why = self.routing()
        self.lft_title.show()
        pending = r is None and self.lft_pending
        self.lft_busy.setVisible(pending)
        if r is None or d not in r.subnet.sw_index:
            if r is not None:
                why = "not reachable from the SM"
            self.lft_title.setText(f"<b>LFT</b> — {why}" if pending else f"<b>LFT</b> — none: {why}")
            self.lft_model.clear()
            self.lft.hide()
            return
        lids, ports, name = self.lft_arrays(r, d)
        title = f"<b>LFT</b> — {len(lids):,} routed LIDs, {why}"
        source: tuple = (id(r),)
        if self.sweep is not None:
            lids, ports, name, title, source = self._lft_at_step(d, lids, ports, name, why)
        if source != self._lft_source:          # the same object while nothing changed: the scroll stays
            self._lft_source, self._lft_refs = source, (r, self.sweep)
        self.lft_title.setText(title)
        self.lft_model.set_rows(lids, ports, name, routing=self._lft_source, switch=d)
        self._size_lft_columns(lids, ports)
        self.lft.setVisible(len(lids) > 0)

    def _lft_at_step(self, d: int, lids: np.ndarray, ports: np.ndarray, name: Callable[[int], str], why: str):
        """The rows switch ``d`` holds at the sweep's step: the LFT blocks sent so far (a fresh
        sweep), or all but the changed blocks still to be sent (a re-sweep keeps the others)."""
        assert self.sweep is not None                 # asked while a sweep step shows
        tl, i = self.sweep.timeline, self.sweep.index
        held, sent, due = tl.lft_held(d, i, lids)
        keep = np.flatnonzero(held)

        def name_k(k: int, _keep=keep) -> str:
            return name(int(_keep[k]))
        n = len(keep)
        if not due:
            title = f"<b>LFT</b> — {n:,} routed LIDs, {why}"
        elif tl.resweep:
            title = (f"<b>LFT</b> — {n:,} routed LIDs; {due} changed block(s) not sent yet "
                     f"(the switch still forwards those LIDs the old way), {why}")
        elif not sent:
            title = f"<b>LFT</b> — not yet pushed (the SM sends LFT blocks after routing), {why}"
        else:
            title = f"<b>LFT</b> — {n:,} routed LIDs in {sent} of {sent + due} block(s) pushed so far, {why}"
        return lids[keep], ports[keep], name_k, title, (id(tl), i if due else -1, sent, due)

    def _state_text(self, pid: int, state: str) -> str:
        """The port state shown: the model's, or while a sweep shows, the SM's at its step."""
        if self._sweep_states is None or self.sweep is None:   # states are set with the step
            return state
        return self.sweep.timeline.port_state_text(self._sweep_states[0], pid, state)

    def _size_lft_columns(self, lids: np.ndarray, ports: np.ndarray) -> None:
        """Fit LID and port columns to their widest number (no per-row size queries); names stretch."""
        fm = self.lft.fontMetrics()
        pad = 4 * self.lft.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_HeaderMargin) + 8
        for c, texts in enumerate(((LFT_COLS[0], str(int(lids.max())) if len(lids) else ""),
                                   (LFT_COLS[1], str(int(ports.max())) if len(ports) else ""))):
            self.lft.setColumnWidth(c, max(fm.horizontalAdvance(t) for t in texts) + pad)

    def _clear_ports(self) -> None:
        self.ports.setRowCount(0)
        self.rate_boxes.clear()

    def _fill_ports(self, data: list[tuple], lids: bool, guids: bool) -> None:
        """One row per port: LID and port GUID (InfiniBand), rate box, enable tick, peer, cable."""
        f = self.editor.fabric
        self._clear_ports()
        self.ports.show()
        self.ports.setRowCount(len(data))
        self.ports.setColumnHidden(C_LID, not lids)
        self.ports.setColumnHidden(C_GUID, not guids)
        flags = QtCore.Qt.ItemFlag
        for r, (pid, name, rate, state, peer, cable) in enumerate(data):
            guid = int(f.ports_t.guid[pid])
            texts = {C_PORT: name, C_LID: self.lid_text(pid) if lids else "",
                     C_GUID: format_guid(guid) if guid else "—", C_RATE: rate,
                     C_STATE: self._state_text(pid, state),
                     C_PEER: peer, C_CABLE: cable}
            for c, text in texts.items():
                item = QtWidgets.QTableWidgetItem(text)
                item.setData(QtCore.Qt.ItemDataRole.UserRole, pid)
                if c == C_STATE:
                    item.setFlags(flags.ItemIsEnabled | flags.ItemIsSelectable | flags.ItemIsUserCheckable)
                    item.setCheckState(QtCore.Qt.CheckState.Unchecked if state == "disabled"
                                       else QtCore.Qt.CheckState.Checked)
                self.ports.setItem(r, c, item)
            box = QtWidgets.QComboBox(self.ports)
            box.setObjectName(f"inspector_rate_{pid}")
            box.setEditable(True)
            box.setInsertPolicy(QtWidgets.QComboBox.InsertPolicy.NoInsert)
            box.addItems(rate_choices(f, pid))
            box.setCurrentText(rate)
            box.setToolTip("rates this part supports; type another to try it")
            box.activated.connect(lambda _i, p=pid, b=box: self._set_rate(p, b.currentText()))
            edit = box.lineEdit()
            assert edit is not None                   # an editable combo box
            edit.returnPressed.connect(lambda p=pid, b=box: self._set_rate(p, b.currentText()))
            self.ports.setCellWidget(r, C_RATE, box)
            self.rate_boxes[pid] = box
        self.ports.resizeColumnsToContents()

    def _show_cable(self, c: int) -> None:
        f = self.editor.fabric
        cab = f.cable(c)
        self.title.setText(f"<b>Cable</b> {cab.port_a.name} ↔ {cab.port_b.name}")
        self.ctype.setCurrentText(cab.type)
        self.length.setValue(cab.length_m)
        tech = cab.rate.tech
        self.cpart.clear()
        for p in f.catalog.by_kind("cable"):
            if p.tech == tech:
                self.cpart.addItem(th.icon(f"cable_{p.cable_type}"), p.id)
        self.cpart.setCurrentText(cab.part_id)
        self.rate.setText(f"{cab.rate} ({cab.rate.gbps:g} Gb/s)")
        self._show_rows("Type", "Length", "Cable part", "Rate")
        ends = [(p.id, p.name, str(p.rate), p.state, p.peer.name if p.peer else "—", cab.part_id)
                for p in (cab.port_a, cab.port_b)]
        self._fill_ports(ends, lids=tech == "ib" and has_ib(f), guids=tech == "ib")

    # ------------------------------------------------------------------ edits
    def _port_item_changed(self, item: QtWidgets.QTableWidgetItem) -> None:
        if item.column() != C_STATE:
            return
        pid = int(item.data(QtCore.Qt.ItemDataRole.UserRole))
        self.set_port_enabled(pid, item.checkState() == QtCore.Qt.CheckState.Checked)

    def set_port_enabled(self, pid: int, enabled: bool) -> bool:
        """Disable a port, or enable it again (cabled: InfiniBand comes up INIT until the SM
        sweeps, Ethernet ACTIVE; uncabled: DOWN), as one undo step."""
        f = self.editor.fabric
        if not enabled:
            state = "disabled"
        elif int(f.ports_t.cable[pid]) < 0:
            state = "down"
        else:
            state = "init" if int(f.ports_t.tech[pid]) == 1 else "active"
        if (f.port(pid).state == "disabled") != enabled:
            return False
        ok = self.editor.set_port_state(pid, state)
        self.schedule()
        return ok

    def _set_rate(self, pid: int, text: str) -> None:
        self.editor.set_port_rate(pid, text.strip())
        self.schedule()         # a refusal puts the box back on the port's rate

    def _rename(self) -> None:
        if self.device is not None and not self.name.isReadOnly():
            if not self.editor.rename(self.device, self.name.text()):
                self.schedule()

    def _set_guid(self) -> None:
        if self.device is None:
            return
        try:
            guid = parse_guid(self.guid.text(), typed=True)
        except ValueError:
            self.editor.message.emit(f"GUID {self.guid.text()!r}: not a hexadecimal number", True)
            self.schedule()
            return
        if not self.editor.set_guid(self.device, guid):
            self.schedule()

    def _set_length(self) -> None:
        if self.cable is not None and abs(self.length.value() - self.editor.fabric.cable(self.cable).length_m) > 1e-6:
            if not self.editor.set_cable(self.cable, length_m=self.length.value()):
                self.schedule()

    def _set_ctype(self) -> None:
        if self.cable is not None and self.ctype.currentText() != self.editor.fabric.cable(self.cable).type:
            if not self.editor.set_cable(self.cable, length_m=self.length.value(), ctype=self.ctype.currentText()):
                self.schedule()

    def _set_cpart(self) -> None:
        if self.cable is not None and self.cpart.currentText() != self.editor.fabric.cable(self.cable).part_id:
            if not self.editor.set_cable(self.cable, length_m=self.length.value(), part=self.cpart.currentText()):
                self.schedule()
