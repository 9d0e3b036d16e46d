"""One open design: the editor (fabric + undo stack), the Qt bridge of model events with a
revision counter, the job runner keyed to that revision, one routing cache, and the session.

Docks get the document and listen to it — never to the canvas, never to each other:

- ``changed(event)`` after every model change (``None`` after the Fabric object was replaced),
  the revision already incremented; the canvas is connected first, so its items are current;
- ``replaced()`` when the Fabric object changed (open, new, generate, undo of a generate);
- ``opened()`` when another design was opened or created: :attr:`session` was reset, so the
  lesson, sweep, traffic run, overlays and selections of the previous design are gone;
- ``message(text, refusal)`` for the status bar.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore

from fabricviz.model import Fabric
from fabricviz.model import events as ev
from fabricviz.ui.document.editor import Editor
from fabricviz.ui.document.session import Session
from fabricviz.ui.jobs import JobRunner


class Document(QtCore.QObject):
    """A design being edited in one window."""

    changed = QtCore.Signal(object)
    replaced = QtCore.Signal()
    opened = QtCore.Signal()
    message = QtCore.Signal(str, bool)

    def __init__(self, fabric: Fabric | None = None, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.editor = Editor(fabric if fabric is not None else Fabric(name="untitled"), self)
        self.stack = self.editor.stack
        self.revision = 0
        self.path: Path | None = None
        self.display_name = "untitled"
        self.jobs = JobRunner(lambda: self.revision, self)
        self.session = Session(self)
        self._unsubscribe: Callable[[], None] | None = None
        self._follow(self.editor.fabric)
        self.editor.fabric_replaced.connect(self._replaced)
        self.editor.message.connect(self.message)
        from fabricviz.ui.document.routing import RoutingCache
        self.routing = RoutingCache(self)

    @property
    def fabric(self) -> Fabric:
        return self.editor.fabric

    # ------------------------------------------------------------------ the model bridge
    def _follow(self, f: Fabric) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._unsubscribe = f.subscribe(self._event)

    def _event(self, e: ev.ChangeEvent) -> None:
        self.revision += 1
        self.changed.emit(e)

    def _replaced(self) -> None:
        self._follow(self.editor.fabric)
        self.revision += 1
        self.replaced.emit()
        self.changed.emit(None)

    def close(self) -> None:
        """Stop following the model and cancel every job (the window is closing)."""
        self.jobs.cancel_all()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    # ------------------------------------------------------------------ opening
    def open(self, fabric: Fabric, path: Path | None, display_name: str) -> None:
        """Show ``fabric`` as a freshly opened design: empty history, clean, a new session."""
        self.jobs.cancel_all(keep=("autosave",))    # the recovery file follows its own generations
        self.session.reset()
        self.path = path
        self.display_name = display_name
        self.stack.clear()
        self.editor.set_fabric(fabric)
        self.stack.setClean()
        self.opened.emit()

    def snapshot(self) -> Any:
        """A copy of the design for a worker (edits on the UI thread never race it)."""
        return self.fabric.copy()


__all__ = ["Document"]
