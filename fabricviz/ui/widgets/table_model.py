"""The base of the docks' table models: fixed named columns over a list of rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6 import QtCore

#: the invalid index: the top level, every row's parent (one instance for the parent defaults)
_ROOT = QtCore.QModelIndex()


class ColumnsModel(QtCore.QAbstractTableModel):
    """A table whose columns are ``columns`` (header texts) and whose rows are ``self.items()``."""

    def __init__(self, columns: Sequence[str], parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = tuple(columns)

    def items(self) -> Sequence[Any]:
        """The rows shown (subclasses keep them under their own name)."""
        raise NotImplementedError

    def rowCount(self,  # noqa: N802
                 parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.items())

    def columnCount(self,  # noqa: N802
                    parent: QtCore.QModelIndex | QtCore.QPersistentModelIndex = _ROOT) -> int:
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation,  # noqa: N802
                   role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == QtCore.Qt.Orientation.Horizontal and role == QtCore.Qt.ItemDataRole.DisplayRole:
            return self.columns[section]
        return None


__all__ = ["ColumnsModel"]
