"""What the window shows of one design beyond the design itself: which overlay owns the canvas
(SM sweep, traffic heatmap, lesson marks, port loads) and the reset when another design opens.

Owners claim the canvas with :meth:`Session.claim`; everyone else hides theirs on
``overlay_changed`` (so a sweep's traced path never stays drawn over a traffic heatmap).
:meth:`reset` (called by the document when another design is opened or created) emits
``cleared``: each dock drops its run, lesson, overlay and selection.
"""

from __future__ import annotations

from PySide6 import QtCore

#: The canvas overlays, by owner.
OVERLAYS = ("sweep", "traffic", "lesson", "loads")


class Session(QtCore.QObject):
    """The shown state of one document."""

    overlay_changed = QtCore.Signal(str)    # the owner now drawing ("" for none)
    cleared = QtCore.Signal()

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.overlay = ""
        self.resets = 0

    def claim(self, owner: str) -> None:
        """``owner`` draws on the canvas now; the others hide theirs."""
        if owner not in OVERLAYS:
            raise ValueError(f"unknown overlay owner {owner!r}")
        if owner != self.overlay:
            self.overlay = owner
            self.overlay_changed.emit(owner)

    def release(self, owner: str) -> None:
        if self.overlay == owner:
            self.overlay = ""
            self.overlay_changed.emit("")

    def owns(self, owner: str) -> bool:
        return self.overlay == owner

    def reset(self) -> None:
        """Forget everything shown (another design was opened)."""
        self.resets += 1
        self.overlay = ""
        self.cleared.emit()
        self.overlay_changed.emit("")


__all__ = ["OVERLAYS", "Session"]
