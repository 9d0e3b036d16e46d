"""The inspector dock: what is selected, its ports and cables; edits become undo commands."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from fabricviz.model import CABLE_TYPES
from fabricviz.model.guid import format_guid
from fabricviz.ui import theme as th
from fabricviz.ui.describe import KIND_NAMES, noun, plural, port_rows, rate_choices
from fabricviz.ui.editor import Editor
from fabricviz.ui.lid_cache import UNKNOWN, LidCache, has_ib
from fabricviz.ui.scene import FabricScene


def parse_guid(text: str) -> int:
    """``0x248a070300abcd01`` or ``248a:0703:00ab:cd01`` → int (ValueError if not hex)."""
    clean = text.strip().lower().replace(":", "")
    return int(clean, 16)


#: Columns of the ports table.
COLS = ("Port", "LID", "Port GUID", "Rate", "State", "Connected to", "Cable")
C_PORT, C_LID, C_GUID, C_RATE, C_STATE, C_PEER, C_CABLE = range(len(COLS))
#: Without the Subnet Manager dock's routing, switch LFTs are computed here up to this many switches.
LFT_SWITCHES = 500
NO_PATH = 255


class Inspector(QtWidgets.QDockWidget):
    """Dock ``inspector``: the selected device (ports and peers) or cable (type, length, rate)."""

    def __init__(self, editor: Editor, scene: FabricScene, parent: QtWidgets.QWidget | None = None):
        super().__init__("Inspector", parent)
        self.setObjectName("inspector")
        self.editor, self.scene = editor, scene
        self.device: int | None = None
        self.cable: int | None = None
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
        self.lft = QtWidgets.QTableWidget(0, 3, body)
        self.lft.setObjectName("inspector_lft")
        self.lft.setHorizontalHeaderLabels(["LID", "→ port", "destination"])
        self.lft.setToolTip("this switch's linear forwarding table: destination LID → egress port "
                            "(0 = the switch itself)")
        self.lft.verticalHeader().setVisible(False)
        self.lft.verticalHeader().setDefaultSectionSize(18)
        self.lft.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.lft.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(self.lft, 1)
        self._routing: tuple | None = None     # (fabric, Routing | error text) computed here
        lay.addStretch(0)           # keeps the summary at the top while the table is hidden
        self.setWidget(body)
        self.name.editingFinished.connect(self._rename)
        self.guid.editingFinished.connect(self._set_guid)
        self.ctype.activated.connect(self._set_ctype)
        self.length.editingFinished.connect(self._set_length)
        self.cpart.activated.connect(self._set_cpart)
        self.ports.itemChanged.connect(self._port_item_changed)
        self.lids = LidCache(self)
        self.lids.ready.connect(self.schedule)
        self.rate_boxes: dict[int, QtWidgets.QComboBox] = {}
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        scene.selectionChanged.connect(self.schedule)
        scene.fabric_event.connect(self._on_fabric_event)
        self.refresh()

    def schedule(self) -> None:
        self._timer.start()

    def _on_fabric_event(self, e) -> None:
        if e is None or not (e.what == "device" and e.attr in ("pos", "name")):
            self._routing = None
        if e is None:
            self.lids.set_fabric(self.editor.fabric)
        else:
            self.lids.on_event(e)
        self.schedule()

    def lid_text(self, port: int) -> str:
        """The port's LID, ``—`` while a worker computes it, or ``no LID (why)``."""
        table = self.lids.get()
        return UNKNOWN if table is None else table.text(self.editor.fabric, port)

    def _show_rows(self, *labels: str) -> None:
        for i in range(self.form.rowCount()):
            lab = self.form.itemAt(i, QtWidgets.QFormLayout.ItemRole.LabelRole).widget()
            field = self.form.itemAt(i, QtWidgets.QFormLayout.ItemRole.FieldRole).widget()
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
                if devs or cabs:
                    self.title.setText(f"<b>{len(devs)}</b> {noun(len(devs), 'device')} and "
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
        self.part.setText((f"{part.id}: {part.name}" if part else "—") + extra)
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
        """(Routing or None, where it came from or why there is none) for the current design.

        The Subnet Manager dock's routing when it has one for this design (its
        engine), else minhop computed here for up to ``LFT_SWITCHES`` switches.
        """
        f = self.editor.fabric
        dock = getattr(self.parent(), "sweep_dock", None)
        r = getattr(dock, "routing", None)
        if r is not None and getattr(dock, "timeline", None) is not None and r.subnet.fabric is f:
            return r, f"from the Subnet Manager sweep ({r.routed_by})"
        if self._routing is None or self._routing[0] is not f:
            from fabricviz.ib.routing import route
            from fabricviz.model import FabricError
            n_sw = len(f.device_ids("ib_switch"))
            if n_sw > LFT_SWITCHES:
                got = f"{n_sw:,} switches: open the Subnet Manager sweep to route them"
            else:
                try:
                    got = route(f)
                except FabricError as exc:
                    got = str(exc)
            self._routing = (f, got)
        got = self._routing[1]
        return (None, got) if isinstance(got, str) else (got, f"computed here ({got.routed_by})")

    def lft_rows(self, d: int) -> list[tuple[int, int, str]]:
        """(LID, egress port, destination name) for every routed LID of switch ``d``."""
        r, _why = self.routing()
        if r is None or d not in r.subnet.sw_index:
            return []
        sn, f = r.subnet, self.editor.fabric
        owner = r.lid_owner()
        row = r.switch_lft(d)
        out = []
        for lid in sorted(owner):
            if lid >= len(row) or int(row[lid]) == NO_PATH:
                continue
            kind, i = owner[lid]
            name = sn.switch_name(i) if kind == "sw" else f.port_name(int(sn.ca_ports[i]))
            out.append((lid, int(row[lid]), name))
        return out

    def _show_lft(self, d: int) -> None:
        r, why = self.routing()
        rows = self.lft_rows(d) if r is not None else []
        if r is not None and d not in r.subnet.sw_index:
            why = "not reachable from the SM"
        self.lft_title.setText(f"<b>LFT</b> — {len(rows):,} routed LIDs, {why}" if r is not None
                               and d in r.subnet.sw_index else f"<b>LFT</b> — none: {why}")
        self.lft_title.show()
        self.lft.setRowCount(len(rows))
        for k, (lid, port, name) in enumerate(rows):
            for c, text in enumerate((str(lid), str(port), name)):
                self.lft.setItem(k, c, QtWidgets.QTableWidgetItem(text))
        self.lft.resizeColumnsToContents()
        self.lft.setVisible(bool(rows))

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
                     C_GUID: format_guid(guid) if guid else "—", C_RATE: rate, C_STATE: state,
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
            box.lineEdit().returnPressed.connect(lambda p=pid, b=box: self._set_rate(p, b.currentText()))
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
            guid = parse_guid(self.guid.text())
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
