"""The inspector dock: what is selected, its ports and cables; edits become undo commands."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from fabricviz.model import CABLE_TYPES
from fabricviz.model.guid import format_guid
from fabricviz.ui import theme as th
from fabricviz.ui.describe import KIND_NAMES, port_rows
from fabricviz.ui.editor import Editor
from fabricviz.ui.scene import FabricScene


def parse_guid(text: str) -> int:
    """``0x248a070300abcd01`` or ``248a:0703:00ab:cd01`` → int (ValueError if not hex)."""
    clean = text.strip().lower().replace(":", "")
    return int(clean, 16)


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
                         ("GUID", self.guid), ("Type", self.ctype), ("Length", self.length),
                         ("Cable part", self.cpart), ("Rate", self.rate)):
            self.form.addRow(label, w)
        lay.addWidget(form_box)
        self.ports = QtWidgets.QTableWidget(0, 5, body)
        self.ports.setObjectName("inspector_ports")
        self.ports.setHorizontalHeaderLabels(["Port", "Rate", "State", "Connected to", "Cable"])
        self.ports.verticalHeader().setVisible(False)
        self.ports.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.ports.horizontalHeader().setStretchLastSection(True)
        self.ports.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        lay.addWidget(self.ports, 1)
        self.setWidget(body)
        self.name.editingFinished.connect(self._rename)
        self.guid.editingFinished.connect(self._set_guid)
        self.ctype.activated.connect(self._set_ctype)
        self.length.editingFinished.connect(self._set_length)
        self.cpart.activated.connect(self._set_cpart)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh)
        scene.selectionChanged.connect(self.schedule)
        scene.fabric_event.connect(lambda _e: self.schedule())
        self.refresh()

    def schedule(self) -> None:
        self._timer.start()

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
        for w in (self.name, self.guid, self.length, self.ctype, self.cpart):
            w.blockSignals(True)
        try:
            if self.device is not None and f.devices_t.exists(self.device):
                self._show_device(self.device)
            elif self.cable is not None:
                self._show_cable(self.cable)
            else:
                self._show_rows()
                self.ports.setRowCount(0)
                if devs or cabs:
                    self.title.setText(f"<b>{len(devs)}</b> devices and <b>{len(cabs)}</b> cables selected")
                elif f is not None:
                    c = f.counts()
                    self.title.setText(
                        f"<b>{f.name}</b><br>{c['server']} servers, {c['gpu']} GPUs, {c['nic']} NICs, "
                        f"{c['ib_switch'] + c['eth_switch']} switches, {c['cables']} cables")
        finally:
            for w in (self.name, self.guid, self.length, self.ctype, self.cpart):
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
        if dev.is_ib:
            rows.append("GUID")
            self.guid.setText(format_guid(dev.guid) if dev.guid else "")
        self._show_rows(*rows)
        data = port_rows(f, d)
        self.ports.setRowCount(len(data))
        for r, row in enumerate(data):
            for c, text in enumerate(row[1:]):
                item = QtWidgets.QTableWidgetItem(text)
                if c == 0:
                    item.setData(QtCore.Qt.ItemDataRole.UserRole, row[0])
                self.ports.setItem(r, c, item)
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
        self.ports.setRowCount(2)
        for r, port in enumerate((cab.port_a, cab.port_b)):
            peer = port.peer
            for col, text in enumerate((port.name, str(port.rate), port.state,
                                        peer.name if peer else "—", cab.part_id)):
                self.ports.setItem(r, col, QtWidgets.QTableWidgetItem(text))
        self.ports.resizeColumnsToContents()

    # ------------------------------------------------------------------ edits
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
