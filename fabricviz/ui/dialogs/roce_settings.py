"""Design ▸ RoCE Settings: the design's ``meta["roce"]`` — MTU, lossless priorities, headroom
method, DCQCN preset, an ECN (RED) threshold override and fixed PFC thresholds.

Fields are checked by :mod:`fabricviz.ethernet.roce_meta`'s own rules (the ones the CLI, the
fluid model and the export read the design with); a refused field is named and nothing
changes. OK stores the settings as one undo step (``editor.set_meta``), so undo gives the
design's meta back exactly; OK with the settings unchanged adds no step.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtWidgets

from fabricviz.ethernet import roce_meta as rm

METHOD_TEXT = {"ieee": "IEEE 802.1Qbb / 802.3 worst case", "nvidia": "NVIDIA rule of thumb"}
DCQCN_TEXT = {"nvidia": "nvidia (ConnectX firmware defaults)", "paper": "paper (Zhu et al., SIGCOMM 2015)"}


def _number(text: str, name: str, what: str = "ecn") -> float | int | None:
    t = text.strip().replace(",", "").replace("_", "")
    if not t:
        return None
    try:
        v = float(t)
    except ValueError:
        raise ValueError(f"{what} {name} {text.strip()!r}: a number") from None
    return int(v) if v.is_integer() and name != "pmax" else v


class RoceSettingsDialog(QtWidgets.QDialog):
    """Edit the design's RoCE settings; ``apply()`` (OK) stores them through ``editor.set_meta``."""

    def __init__(self, editor: Any, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("roce_settings_dialog")
        self.setWindowTitle("RoCE settings")
        self.setMinimumWidth(520)
        self.editor = editor
        lay = QtWidgets.QVBoxLayout(self)
        self.problem = QtWidgets.QLabel("", self)
        self.problem.setObjectName("roce_problem")
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #b3261e;")
        try:
            base = editor.fabric.settings.roce
        except ValueError as e:
            base = rm.RoceSettings()
            self.problem.setText(f"the design's settings are refused ({e}); OK stores these instead")
        form = QtWidgets.QFormLayout()
        self.mtu = QtWidgets.QSpinBox(self)
        self.mtu.setObjectName("roce_mtu")
        self.mtu.setRange(rm.MTU_MIN, rm.MTU_MAX)
        self.mtu.setSuffix(" B")
        self.mtu.setToolTip("the largest frame on a lossless port (the switch port MTU)")
        form.addRow("MTU", self.mtu)
        self.priorities = QtWidgets.QLineEdit(self)
        self.priorities.setObjectName("roce_priorities")
        self.priorities.setToolTip("802.1p priorities with PFC on, e.g. 3 or 3,4 (each needs its own headroom)")
        self.priorities.setPlaceholderText("802.1p priority list: 3 or 3,4")
        form.addRow("Lossless priorities (PFC)", self.priorities)      # a list, not a count
        self.method = QtWidgets.QComboBox(self)
        self.method.setObjectName("roce_method")
        for m in rm.METHODS:
            self.method.addItem(METHOD_TEXT[m], m)
        form.addRow("Headroom method", self.method)
        self.dcqcn = QtWidgets.QComboBox(self)
        self.dcqcn.setObjectName("roce_dcqcn")
        for p in rm.DCQCN_PRESETS:
            self.dcqcn.addItem(DCQCN_TEXT[p], p)
        form.addRow("DCQCN preset", self.dcqcn)
        self.ecn = self._fields(form, "ecn", "per-speed default", " (empty: the per-speed default)", (
            ("kmin", "ECN Kmin (bytes)", "RED minimum threshold: marking starts"),
            ("kmax", "ECN Kmax (bytes)", "RED maximum threshold: marking at Pmax"),
            ("pmax", "ECN Pmax", "marking probability at Kmax, 0 … 1")))
        self.pfc = self._fields(form, "pfc", "from the switch buffer",
                                "; both empty: derived from the switch part's buffer and ECN", (
            ("xoff", "PFC XOFF (bytes)", "pause when the ingress holds this much"),
            ("xon", "PFC XON (bytes)", "resume when it is down to this (empty: XOFF − 2 MTU)")))
        lay.addLayout(form)
        lay.addWidget(self.problem)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.show_settings(base)

    def _fields(self, form: QtWidgets.QFormLayout, group: str, placeholder: str, tip_tail: str,
                specs: tuple[tuple[str, str, str], ...]) -> dict[str, QtWidgets.QLineEdit]:
        """One line edit per (key, label, tip), named ``roce_<group>_<key>``."""
        out: dict[str, QtWidgets.QLineEdit] = {}
        for key, label, tip in specs:
            e = QtWidgets.QLineEdit(self)
            e.setObjectName(f"roce_{group}_{key}")
            e.setPlaceholderText(placeholder)
            e.setToolTip(tip + tip_tail)
            out[key] = e
            form.addRow(label, e)
        return out

    def show_settings(self, s: rm.RoceSettings) -> None:
        self.mtu.setValue(s.mtu)
        self.priorities.setText(",".join(map(str, s.priorities)))
        self.method.setCurrentIndex(max(0, self.method.findData(s.method)))
        self.dcqcn.setCurrentIndex(max(0, self.dcqcn.findData(s.dcqcn)))
        for key, e in self.ecn.items():
            v = s.ecn.get(key)
            e.setText("" if v is None else f"{v:g}" if key == "pmax" else f"{v:.0f}")
        for key, e in self.pfc.items():
            v = s.pfc.get(key)
            e.setText("" if v is None else f"{v:.0f}")

    def value(self) -> dict[str, Any]:
        """The fields as a checked ``meta["roce"]`` value; ValueError naming the bad field."""
        text = self.priorities.text().replace(" ", "")
        try:
            prios: Any = [int(t) for t in text.split(",")] if text else []
        except ValueError:
            raise ValueError(f"priorities {self.priorities.text().strip()!r}: 802.1p priorities 0 … 7, "
                             "comma-separated") from None
        ecn = {k: v for k, v in ((k, _number(e.text(), k)) for k, e in self.ecn.items()) if v is not None}
        raw: dict[str, Any] = {"mtu": self.mtu.value(), "priorities": prios, "method": self.method.currentData(),
                               "dcqcn": self.dcqcn.currentData()}
        if ecn:
            raw["ecn"] = ecn
        pfc = {k: v for k, v in ((k, _number(e.text(), k, "pfc")) for k, e in self.pfc.items()) if v is not None}
        if pfc:
            raw["pfc"] = pfc
        return rm.to_meta(rm.check_roce(raw))

    def apply(self) -> bool:
        """Store the fields (one undo step); False with the reason shown when a field is refused."""
        try:
            value = self.value()
        except ValueError as e:
            self.problem.setText(str(e))
            return False
        self.problem.setText("")
        old = self.editor.fabric.meta.get("roce")
        try:
            same = rm.check_roce(old) == rm.check_roce(value)
        except ValueError:
            same = False
        if same:
            return True                      # what the design runs with already: no undo step
        prios = ",".join(map(str, value["priorities"]))
        self.editor.set_meta(f"RoCE settings: MTU {value['mtu']}, priorities {prios}, {value['method']}, "
                             f"DCQCN {value['dcqcn']}", "roce", value)
        return True

    def accept(self) -> None:
        if self.apply():
            super().accept()


def open_roce_settings(window: Any) -> RoceSettingsDialog:
    """Design ▸ RoCE Settings… (non-modal open; returned for scripts and tests)."""
    dlg = RoceSettingsDialog(window.editor, window)
    dlg.open()
    return dlg


__all__ = ["RoceSettingsDialog", "open_roce_settings"]
