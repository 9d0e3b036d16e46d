"""The Differences dock: the design against a discovered fabric (File ▸ Compare with Discovered…).

Lists the report in ``session.diff`` (what ``fabricviz diff`` prints: one row per difference, the
kind and the line naming both ends) with the summary above it. Clicking a row picks it
(``session.diff.choose``: the overlay draws it wider) and emits ``select_objects(devices, cables)``
— the design devices and cables of that difference — for the window to select on the canvas.
"Compare…" asks the window for a file (``compare_requested``).
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.check.diff import Difference, DiffKind
from fabricviz.ui.document.document import Document
from fabricviz.ui.widgets.table_model import ColumnsModel

COLUMNS = ("what", "difference")
#: Kinds about a cable that is not where the design has it (red), else amber (rate, names, devices).
RED = {DiffKind.MISSING_CABLE, DiffKind.EXTRA_CABLE, DiffKind.WRONG_PORT, DiffKind.WRONG_PEER, DiffKind.SWAPPED,
       DiffKind.DEVICE_MISSING, DiffKind.DEVICE_UNEXPECTED}
COLORS = {True: "#d33a2c", False: "#c98a00"}


class DiffModel(ColumnsModel):
    """The differences of one report, in its order."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(COLUMNS, parent)
        self.rows: list[Difference] = []
        self._colors = {k: QtGui.QColor(v) for k, v in COLORS.items()}

    def set_rows(self, rows: list[Difference]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def items(self) -> list[Difference]:
        return self.rows

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
             role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        d = self.rows[index.row()]
        R = QtCore.Qt.ItemDataRole
        if role == R.DisplayRole:
            if index.column() == 0:
                return d.kind.value
            return d.line.split(": ", 1)[1] if ": " in d.line else d.line
        if role == R.ForegroundRole and index.column() == 0:
            return self._colors[d.kind in RED]
        if role == R.ToolTipRole:
            return d.line
        return None


class DiffDock(QtWidgets.QDockWidget):
    """The differences of the comparison on show; a click selects them on the canvas."""

    select_objects = QtCore.Signal(list, list)   # device ids, cable ids
    compare_requested = QtCore.Signal()

    def __init__(self, document: Document, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Differences", parent)
        self.setObjectName("diff_dock")
        self.document = document
        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        bar = QtWidgets.QHBoxLayout()
        self.compare_button = QtWidgets.QPushButton("Compare…", body)
        self.compare_button.setObjectName("diff_compare")
        self.compare_button.setToolTip("compare the design with a discovered fabric (ibnetdiscover output, "
                                       "an ibsim net file or another design)")
        self.compare_button.clicked.connect(self.compare_requested)
        self.status = QtWidgets.QLabel("no comparison yet: File ▸ Compare with Discovered…", body)
        self.status.setObjectName("diff_status")
        self.status.setWordWrap(True)
        bar.addWidget(self.compare_button)
        bar.addWidget(self.status, 1)
        lay.addLayout(bar)
        self.model = DiffModel(self)
        self.table = QtWidgets.QTableView(body)
        self.table.setObjectName("diff_table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(False)
        self.table.clicked.connect(lambda index: self.pick(index.row()))
        lay.addWidget(self.table, 1)
        self.setWidget(body)
        shown = document.session.diff
        shown.changed.connect(self._show)

    def _show(self) -> None:
        shown = self.document.session.diff
        report = shown.report
        if report is None:
            self.model.set_rows([])
            was = self.status.text()
            self.status.setText("the design changed since the comparison: compare again"
                                if was.startswith("compared with") else
                                "no comparison yet: File ▸ Compare with Discovered…")
            return
        self.model.set_rows(report.differences)
        note = " (its Ethernet part not compared)" if report.ethernet_left_out else ""
        self.status.setText(f"compared with {shown.source}{note}: {report.summary()}")
        self.table.resizeColumnToContents(0)

    def pick(self, row: int) -> None:
        """Row ``row`` clicked: picked in the session, its devices and cables selected."""
        if not 0 <= row < len(self.model.rows):
            return
        d = self.model.rows[row]
        self.document.session.diff.choose(row)
        self.select_objects.emit(list(d.devices), list(d.cables))


__all__ = ["COLUMNS", "DiffDock", "DiffModel"]
