"""The inspector's LFT table: a switch's forwarding entries (LID → port → destination) as a
model over numpy arrays, so tables of tens of thousands of LIDs fill at once."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6 import QtCore

#: the invalid index: the top level, every row's parent (one instance for the parent defaults)
_ROOT = QtCore.QModelIndex()

#: Columns of the LFT table.
LFT_COLS = ("LID", "→ port", "destination")


class LftModel(QtCore.QAbstractTableModel):
    """One switch's LFT (LID, egress port, destination) read from arrays as the view asks.

    A big leaf holds tens of thousands of LIDs: the view asks only for the rows it
    paints, so filling costs an array slice instead of one item object per cell.
    """

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.lids = np.zeros(0, np.int64)
        self.ports = np.zeros(0, np.int64)
        self._name: Callable[[int], str] = str
        self.source: tuple = (None, None)

    def set_rows(self, lids: np.ndarray, ports: np.ndarray, name: Callable[[int], str],
                 routing: object = None, switch: int | None = None) -> None:
        """Show new rows; ``name(k)`` names row k's destination.

        The same routing and switch again (a rename, a move): names refresh, the scroll stays.
        """
        if routing is not None and routing is self.source[0] and switch == self.source[1]:
            self._name = name
            if len(lids):
                self.dataChanged.emit(self.index(0, 2), self.index(len(lids) - 1, 2))
            return
        self.beginResetModel()
        self.lids, self.ports, self._name, self.source = lids, ports, name, (routing, switch)
        self.endResetModel()

    def clear(self) -> None:
        self.set_rows(np.zeros(0, np.int64), np.zeros(0, np.int64), str)

    def row(self, k: int) -> tuple[int, int, str]:
        return int(self.lids[k]), int(self.ports[k]), self._name(k)

    def rowCount(self,  # noqa: N802
                 parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.lids)

    def columnCount(self,  # noqa: N802
                    parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(LFT_COLS)

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
             role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role != QtCore.Qt.ItemDataRole.DisplayRole:
            return None
        k, c = index.row(), index.column()
        return str(int(self.lids[k])) if c == 0 else str(int(self.ports[k])) if c == 1 else self._name(k)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation,  # noqa: N802
                   role: int = QtCore.Qt.ItemDataRole.DisplayRole):
        if role == QtCore.Qt.ItemDataRole.DisplayRole and orientation == QtCore.Qt.Orientation.Horizontal:
            return LFT_COLS[section]
        return None


__all__ = ["LFT_COLS", "LftModel"]
