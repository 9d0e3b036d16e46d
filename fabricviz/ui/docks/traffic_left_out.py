"""The Traffic dock's list of hosts a run left out ("srv98 — no route from the SM's subnet").

One row per host (capped at :data:`~.traffic_choice.LEFT_OUT_ROWS`, then a row saying how many
more), hidden when the run reached everyone; selecting rows emits ``picked(ids)`` so the window
can select those hosts on the canvas.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from PySide6 import QtCore, QtWidgets

from fabricviz.ui.document.traffic_choice import LEFT_OUT_ROWS


class LeftOutList(QtWidgets.QListWidget):
    """See the module doc."""

    picked = QtCore.Signal(list)          # device ids of the selected rows, sorted

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic_left_out")
        self.setToolTip("hosts the run could not reach, and why: click to select them on the canvas")
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setMaximumHeight(6 * self.fontMetrics().height() + 8)
        self.itemSelectionChanged.connect(self._picked)
        self.hide()

    def show_hosts(self, left_out: Iterable[Any]) -> None:
        """One row per host left out of the run (hidden when none)."""
        self.blockSignals(True)
        self.clear()
        items = list(left_out)
        for u in items[:LEFT_OUT_ROWS]:
            row = QtWidgets.QListWidgetItem(f"{u.name} — {u.reason}")
            row.setData(QtCore.Qt.ItemDataRole.UserRole, int(u.device))
            self.addItem(row)
        if len(items) > LEFT_OUT_ROWS:
            more = QtWidgets.QListWidgetItem(f"… and {len(items) - LEFT_OUT_ROWS:,} more")
            more.setFlags(QtCore.Qt.ItemFlag.NoItemFlags)
            self.addItem(more)
        self.blockSignals(False)
        self.setVisible(bool(items))

    def rows(self) -> list[str]:
        """The rows as shown."""
        return [self.item(k).text() for k in range(self.count())]

    def _picked(self) -> None:
        ids = [int(it.data(QtCore.Qt.ItemDataRole.UserRole)) for it in self.selectedItems()
               if it.data(QtCore.Qt.ItemDataRole.UserRole) is not None]
        if ids:
            self.picked.emit(sorted(ids))


__all__ = ["LeftOutList"]
