"""One cache of routing results per design state, shared by the inspector, the SM sweep dock,
traffic, lint and lessons.

Keys name a result: ``"lids"`` (:func:`fabricviz.ib.lid_table.lid_table`), ``"lft"`` (the
LFTs the SM pushes: the sweep dock's routing when a sweep ran, else
:func:`fabricviz.ib.routing.route`). The cache forgets everything after a model change that can
move a route or a LID (anything but moving or renaming a device). Big results are computed by
the document's job runner; :meth:`RoutingCache.request` starts one job per key and state and
``ready(key)`` fires when its value is in. When the engine refused the design (a FabricError),
reading the key raises :class:`RoutingRefused` with the engine's one-line reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6 import QtCore

from fabricviz.ib import lid_table as ib_lid_table
from fabricviz.ib import routing as ib_routing
from fabricviz.ib.lid_table import LidTable
from fabricviz.ib.routing import Routing
from fabricviz.model import Fabric, FabricError
from fabricviz.model import events as ev

if TYPE_CHECKING:
    from fabricviz.ui.document.document import Document

#: Device attributes whose change moves no route and no LID.
ROUTE_NEUTRAL = ("pos", "name")
#: The keys of SM routings (:class:`~fabricviz.ib.routing.Routing`): the sweep dock's, then the default.
ROUTING_KEYS = ("lft:sweep", "lft")
T = TypeVar("T")
Engine = Callable[[Fabric, Callable[[int, int], None] | None], T]


class RoutingRefused(FabricError):
    """The engine refused the design's current state; the message is its one-line reason."""


class _Refusal:
    """What the cache keeps for a key whose engine refused (the reason), apart from any value."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


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
        """The value for the current state, or None (not computed yet); RoutingRefused when the
        engine refused this state."""
        return self._unwrap(self._values.get(key))

    def has(self, key: str) -> bool:
        """Whether ``key`` is settled for the current state (a value, or the engine's refusal)."""
        return key in self._values

    def routing(self, key: str = "lft") -> Routing | None:
        """The SM routing under ``key`` (one of :data:`ROUTING_KEYS`), or None (not computed yet);
        RoutingRefused when routing refused the design."""
        value = self.get(key)
        assert value is None or isinstance(value, Routing), key
        return value

    def routings(self) -> tuple[Routing, ...]:
        """The SM routings of the current state the cache has (the sweep's first), refusals left out."""
        out = []
        for key in ROUTING_KEYS:
            try:
                r = self.routing(key)
            except RoutingRefused:
                continue
            if r is not None:
                out.append(r)
        return tuple(out)

    @staticmethod
    def _unwrap(value: Any) -> Any:
        if isinstance(value, _Refusal):
            raise RoutingRefused(value.reason)
        return value

    def running(self, key: str) -> bool:
        return self._running.get(key) == self.revision

    def put(self, key: str, value: Any) -> None:
        """Store a value computed elsewhere for the current state (the sweep dock's routing)."""
        self._values[key] = value
        self.ready.emit(key)

    # ------------------------------------------------------------------ computing
    def compute(self, key: str, engine: Engine[T]) -> T:
        """Compute ``key`` now on the UI thread (small designs) and keep it; RoutingRefused when
        the engine refuses this state."""
        if key not in self._values:
            self.computations[key] += 1
            self._values[key] = self._call(engine, self.document.fabric, None)
        return self._unwrap(self._values[key])

    def request(self, key: str, engine: Engine[Any]) -> None:
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
                                  on_done=delivered, on_error=lambda reason: delivered(_Refusal(reason)),
                                  keep_stale=True)

    @staticmethod
    def _call(engine: Engine[Any], f: Fabric, progress: Callable[[int, int], None] | None) -> Any:
        try:
            return engine(f, progress)
        except FabricError as exc:
            return _Refusal(str(exc))

    def wait(self, timeout: float = 30.0) -> bool:
        """Tests and shutdown: let the running routing jobs finish and deliver."""
        ok = True
        for key in list(self._running):
            ok = self.document.jobs.wait(f"routing:{key}", timeout) and ok
        return ok


def lids_engine(f: Fabric, progress: Callable[[int, int], None] | None = None) -> LidTable:
    return ib_lid_table.lid_table(f)   # looked up when called (tests stand in for it)


def lft_engine(f: Fabric, progress: Callable[[int, int], None] | None = None) -> Routing:
    return ib_routing.route(f, progress=progress)   # looked up when called (tests stand in for it)


__all__ = ["ROUTE_NEUTRAL", "ROUTING_KEYS", "RoutingCache", "RoutingRefused", "lft_engine", "lids_engine"]
