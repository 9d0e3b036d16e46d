"""One cache of routing results per design state, shared by the inspector, the SM sweep dock,
traffic, lint and lessons.

Keys name a result: ``"lids"`` (:func:`fabricviz.ib.lid_table.lid_table`), ``"lft"`` (the
LFTs the SM pushes: the sweep dock's routing when a sweep ran, else
:func:`fabricviz.ib.routing.route`). The cache forgets everything after a model change that can
move a route or a LID (anything but moving or renaming a device). Big results are computed by
the document's job runner; :meth:`RoutingCache.request` starts one job per key and state and
``ready(key)`` fires when its value is in. A value is the engine's result or, when the engine
refused, the one-line reason (a ``str``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Callable

from PySide6 import QtCore

from fabricviz.model import Fabric
from fabricviz.model import events as ev

if TYPE_CHECKING:
    from fabricviz.ui.document.document import Document

#: Device attributes whose change moves no route and no LID.
ROUTE_NEUTRAL = ("pos", "name")
Engine = Callable[[Fabric, Callable[[int, int], None] | None], Any]


class RoutingCache(QtCore.QObject):
    """Routing results of the document's current state, by key."""

    ready = QtCore.Signal(str)
    progress = QtCore.Signal(str, int, int)     # key, done, total
    invalidated = QtCore.Signal()

    def __init__(self, document: Document) -> None:
        super().__init__(document)
        self.document = document
        self.revision = 0
        self._values: dict[str, Any] = {}
        self._running: dict[str, int] = {}
        self.computations: Counter[str] = Counter()   # results delivered, current or stale
        self.discarded: Counter[str] = Counter()      # of which stale: the design changed meanwhile
        document.changed.connect(self._changed)

    def _changed(self, e: ev.ChangeEvent | None) -> None:
        if e is not None and e.what == ev.DEVICE and e.attr in ROUTE_NEUTRAL:
            return
        self.revision += 1
        self._values.clear()
        self.invalidated.emit()

    # ------------------------------------------------------------------ reading
    def get(self, key: str) -> Any:
        """The value for the current state, or None (not computed yet)."""
        return self._values.get(key)

    def running(self, key: str) -> bool:
        return self._running.get(key) == self.revision

    def put(self, key: str, value: Any) -> None:
        """Store a value computed elsewhere for the current state (the sweep dock's routing)."""
        self._values[key] = value
        self.ready.emit(key)

    # ------------------------------------------------------------------ computing
    def compute(self, key: str, engine: Engine) -> Any:
        """Compute ``key`` now on the UI thread (small designs) and keep it."""
        if key not in self._values:
            self.computations[key] += 1
            self._values[key] = self._call(engine, self.document.fabric, None)
        return self._values[key]

    def request(self, key: str, engine: Engine) -> None:
        """Start computing ``key`` for the current state unless it is known or under way."""
        if key in self._values or self.running(key):
            return
        rev, f = self.revision, self.document.fabric
        self._running[key] = rev

        def progress_of(report: Callable[[float], None]) -> Callable[[int, int], None]:
            def progress(done: int, total: int) -> None:
                try:
                    self.progress.emit(key, int(done), int(total))
                except RuntimeError:      # the window is gone
                    pass
                report(done / total if total else 1.0)
            return progress

        def delivered(value: Any) -> None:
            if self._running.get(key) == rev:
                del self._running[key]
            self.computations[key] += 1
            if rev == self.revision and f is self.document.fabric:
                self.put(key, value)
            else:
                self.discarded[key] += 1
                self.ready.emit(key)          # the asker looks again (and asks for the new state)

        self.document.jobs.submit(f"routing:{key}", lambda report: self._call(engine, f, progress_of(report)),
                                  on_done=delivered, on_error=delivered, keep_stale=True)

    @staticmethod
    def _call(engine: Engine, f: Fabric, progress: Callable[[int, int], None] | None) -> Any:
        from fabricviz.model import FabricError
        try:
            return engine(f, progress)
        except FabricError as exc:
            return str(exc)

    def wait(self, timeout: float = 30.0) -> bool:
        """Tests and shutdown: let the running routing jobs finish and deliver."""
        ok = True
        for key in list(self._running):
            ok = self.document.jobs.wait(f"routing:{key}", timeout) and ok
        return ok


def lids_engine(f: Fabric, progress: Callable[[int, int], None] | None = None) -> Any:
    from fabricviz.ib.lid_table import lid_table
    return lid_table(f)


def lft_engine(f: Fabric, progress: Callable[[int, int], None] | None = None) -> Any:
    from fabricviz.ib.routing import route
    return route(f, progress=progress)


__all__ = ["ROUTE_NEUTRAL", "RoutingCache", "lft_engine", "lids_engine"]
