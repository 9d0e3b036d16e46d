"""Design ▸ QoS Settings: OpenSM's QoS options for the design (what opensm.conf's ``qos*`` keys say).

The dialog edits the plain ``qos_*`` set (the per-port-type ``qos_ca_*``/``qos_swe_*``/… sets an
imported opensm.conf carried are kept as they were) and ``max_op_vls``; fields are checked with the
opensm.conf reader's own rules, and OK stores them as one undo step (``meta.qos``). The sweep, the
route command's tables and the port tooltips then program exactly these.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6 import QtWidgets

from fabricviz.ib.qos import DATA_VLS, DEFAULT_SL2VL, DEFAULT_VLARB_HIGH, DEFAULT_VLARB_LOW, QosOptions
from fabricviz.ib.qos_meta import META_KEY, design_qos, to_meta
from fabricviz.model import FabricError

#: Data VLs a port can run, by the PortInfo code max_op_vls takes (1..5).
VL_CHOICES = [(code, DATA_VLS[code]) for code in sorted(DATA_VLS)]


def _pairs(entries) -> str:
    return ",".join(f"{vl}:{w}" for vl, w in entries)


class QosDialog(QtWidgets.QDialog):
    """Edit the design's QoS options; ``apply()`` (OK) stores them through ``editor.set_meta``."""

    def __init__(self, editor, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("qos_dialog")
        self.setWindowTitle("QoS settings (OpenSM)")
        self.setMinimumWidth(760)          # a 15-VL arbitration list reads whole
        self.editor = editor
        try:
            self.base = design_qos(editor.fabric) or QosOptions()
        except FabricError:
            self.base = QosOptions()
        lay = QtWidgets.QVBoxLayout(self)
        form = QtWidgets.QFormLayout()
        self.enabled = QtWidgets.QCheckBox("OpenSM programs SL2VL and VL arbitration (qos TRUE)", self)
        self.enabled.setObjectName("qos_enabled")
        form.addRow(self.enabled)
        self.max_vls = QtWidgets.QComboBox(self)
        self.max_vls.setObjectName("qos_max_op_vls")
        for code, n in VL_CHOICES:
            self.max_vls.addItem(f"{n} data VL{'s' if n > 1 else ''} (VL0-{n - 1})", code)
        self.max_vls.setToolTip("max_op_vls: the most data VLs a port runs (also limited by both ends' VLCap)")
        form.addRow("Operational VLs", self.max_vls)
        self.sl2vl = QtWidgets.QLineEdit(self)
        self.sl2vl.setObjectName("qos_sl2vl")
        self.sl2vl.setToolTip("qos_sl2vl: 16 VLs, one per SL (SL0 … SL15)")
        form.addRow("SL → VL", self.sl2vl)
        self.high = QtWidgets.QLineEdit(self)
        self.high.setObjectName("qos_vlarb_high")
        self.high.setToolTip("qos_vlarb_high: VL:weight,… (weights 0-255, up to 64 pairs)")
        form.addRow("VL arbitration high", self.high)
        self.low = QtWidgets.QLineEdit(self)
        self.low.setObjectName("qos_vlarb_low")
        self.low.setToolTip("qos_vlarb_low: VL:weight,…")
        form.addRow("VL arbitration low", self.low)
        self.limit = QtWidgets.QSpinBox(self)
        self.limit.setObjectName("qos_high_limit")
        self.limit.setRange(0, 255)
        self.limit.setToolTip("qos_high_limit: high-priority bytes (×4 KB) before a low-priority packet may go")
        form.addRow("VL high limit", self.limit)
        lay.addLayout(form)
        self.problem = QtWidgets.QLabel("", self)
        self.problem.setObjectName("qos_problem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b3261e;")
        lay.addWidget(self.problem)
        row = QtWidgets.QHBoxLayout()
        self.import_button = QtWidgets.QPushButton("Import opensm.conf…", self)
        self.import_button.setObjectName("qos_import")
        self.import_button.clicked.connect(lambda: self.import_conf())
        row.addWidget(self.import_button)
        row.addStretch(1)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        row.addWidget(buttons)
        lay.addLayout(row)
        self.show_options(self.base)

    def show_options(self, opts: QosOptions) -> None:
        d = opts.default
        self.enabled.setChecked(opts.qos)
        self.max_vls.setCurrentIndex(max(0, self.max_vls.findData(opts.max_op_vls)))
        self.sl2vl.setText(",".join(str(v) for v in (d.sl2vl or DEFAULT_SL2VL)))
        self.high.setText(_pairs(d.vlarb_high or DEFAULT_VLARB_HIGH))
        self.low.setText(_pairs(d.vlarb_low or DEFAULT_VLARB_LOW))
        self.limit.setValue(d.high_limit or 0)
        for edit in (self.sl2vl, self.high, self.low):
            edit.setCursorPosition(0)      # long lists show their start, not their end

    def options(self) -> QosOptions:
        """The fields as QosOptions; FabricError naming the field when one does not parse."""
        from fabricviz.formats.opensm_conf import parse_sl2vl, parse_vlarb
        try:
            sl2vl = parse_sl2vl(self.sl2vl.text(), "SL → VL")
            high = parse_vlarb(self.high.text(), "VL arbitration high")
            low = parse_vlarb(self.low.text(), "VL arbitration low")
        except ValueError as e:
            raise FabricError(str(e)) from None
        d = replace(self.base.default, sl2vl=sl2vl, vlarb_high=high, vlarb_low=low, high_limit=self.limit.value())
        return replace(self.base, qos=self.enabled.isChecked(), default=d, max_op_vls=int(self.max_vls.currentData()))

    def import_conf(self, path: str | None = None) -> bool:
        """Fill the fields from an opensm.conf (its per-port-type sets are kept too)."""
        from fabricviz.formats.opensm_conf import load
        if path is None:
            path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Import opensm.conf", "",
                                                            "OpenSM options (*.conf);;all files (*)")
            if not path:
                return False
        try:
            opts = load(path)
        except (FabricError, OSError) as e:
            self.problem.setText(str(e))
            return False
        self.base = opts
        self.show_options(opts)
        self.problem.setText("")
        return True

    def apply(self) -> bool:
        """Store the fields as the design's QoS options (one undo step); False (and the reason
        shown) when a field does not parse — nothing changes then."""
        try:
            opts = self.options()
        except FabricError as e:
            self.problem.setText(str(e))
            return False
        self.problem.setText("")
        vls = DATA_VLS[opts.max_op_vls]
        text = f"QoS settings: {'on' if opts.qos else 'off'}, {vls} data VL{'s' if vls > 1 else ''}"
        self.editor.set_meta(text, META_KEY, to_meta(opts))
        return True

    def accept(self) -> None:
        if self.apply():
            super().accept()


__all__ = ["QosDialog"]
