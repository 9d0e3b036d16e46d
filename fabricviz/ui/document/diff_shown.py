"""The comparison on show (File ▸ Compare with Discovered…): the report of
:func:`fabricviz.check.diff.diff_fabrics` for the design as it was at ``revision``, the file it was
compared with and the difference picked in the Differences dock. The dock lists it, the canvas
overlay draws it; both follow this object's signals, never each other.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore

from fabricviz.check.diff import DiffReport


class DiffShown(QtCore.QObject):
    """A :class:`DiffReport` on show (None: none), what it was compared with, the row picked."""

    changed = QtCore.Signal()              # a report is shown, or none any more
    picked = QtCore.Signal(object)         # the index of the difference picked (None: none)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.report: DiffReport | None = None
        self.source = ""                   # the discovered file's name
        self.revision = -1                 # the design's revision the report describes
        self.pick: int | None = None

    def show(self, report: DiffReport, source: str, revision: int) -> None:
        self.report, self.source, self.revision, self.pick = report, source, int(revision), None
        self.changed.emit()

    def clear(self, *_: Any) -> None:
        if self.report is None and self.pick is None:
            return
        self.report, self.source, self.revision, self.pick = None, "", -1, None
        self.changed.emit()

    def choose(self, index: int | None) -> None:
        """The difference ``index`` of the report is picked (None: none)."""
        self.pick = None if index is None else int(index)
        self.picked.emit(self.pick)


__all__ = ["DiffShown"]
