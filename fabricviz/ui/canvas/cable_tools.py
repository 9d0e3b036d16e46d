"""The toolbar's "New cable:" type and length, and the cable part picked in the palette: what a
cable drawn on the canvas is made of."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from fabricviz.model import CABLE_TYPES
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.document.document import Document


class CableTools(QtCore.QObject):
    """The new-cable type box and length box of a toolbar, kept in the canvas's cable settings."""

    status = QtCore.Signal(str, int)      # a status-bar message and its timeout (ms)

    def __init__(self, document: Document, view: CanvasView, toolbar: QtWidgets.QToolBar) -> None:
        super().__init__(toolbar)
        self.document = document
        self.view = view
        toolbar.addWidget(QtWidgets.QLabel(" New cable: "))
        self.type_box = QtWidgets.QComboBox(toolbar)
        self.type_box.setObjectName("cable_type_box")
        self.type_box.addItems(["auto"] + list(CABLE_TYPES))
        self.type_box.setToolTip("cable type for new cables (auto: cheapest that reaches)")
        toolbar.addWidget(self.type_box)
        self.length_box = QtWidgets.QDoubleSpinBox(toolbar)
        self.length_box.setObjectName("cable_length_box")
        self.length_box.setRange(0.1, 2000.0)
        self.length_box.setDecimals(1)
        self.length_box.setValue(view.cable_length)
        self.length_box.setSuffix(" m")
        toolbar.addWidget(self.length_box)
        self.type_box.currentTextChanged.connect(self._settings)
        self.length_box.valueChanged.connect(self._settings)

    def choose_part(self, part: str) -> None:
        """The palette's cable part: new cables use it (and the type box shows its type)."""
        self.view.cable_part = part
        p = self.document.fabric.catalog.get(part)
        self.status.emit(f"new cables use {part} ({p.cable_type}, reach {p.reach_m:g} m); "
                         "pick 'auto' to let the catalog choose", 8000)
        if p.cable_type is not None:
            self.type_box.blockSignals(True)
            self.type_box.setCurrentText(p.cable_type)
            self.type_box.blockSignals(False)

    def _settings(self) -> None:
        t = self.type_box.currentText()
        self.view.cable_type = None if t == "auto" else t
        self.view.cable_part = None
        self.view.cable_length = self.length_box.value()


__all__ = ["CableTools"]
