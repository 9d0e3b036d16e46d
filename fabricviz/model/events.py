"""Change events: how observers (the canvas, engines, tests) follow the model.

Subscribing needs no Qt: ``unsubscribe = fabric.subscribe(callback)``; every
change calls ``callback(event)`` after the model is consistent again. Bulk
operations (generators, imports) send one ``bulk_added`` event carrying arrays
of ids instead of thousands of single events.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

ADDED = "added"
REMOVED = "removed"
CHANGED = "changed"
BULK_ADDED = "bulk_added"
RESET = "reset"


@dataclass(frozen=True)
class ChangeEvent:
    """One change. ``what`` is device|port|cable|fabric; ``ids`` for bulk events."""

    kind: str
    what: str
    id: int | None = None
    attr: str | None = None
    old: Any = None
    new: Any = None
    ids: dict[str, np.ndarray] = field(default_factory=dict)

    def __repr__(self) -> str:
        if self.kind == BULK_ADDED:
            counts = ", ".join(f"{k}={len(v)}" for k, v in self.ids.items())
            return f"ChangeEvent(bulk_added {counts})"
        extra = f" {self.attr}: {self.old!r} -> {self.new!r}" if self.attr else ""
        return f"ChangeEvent({self.kind} {self.what} {self.id}{extra})"


Listener = Callable[[ChangeEvent], None]


class EventHub:
    """A list of listeners; ``emit`` calls each in subscription order."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._muted = 0

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)
        return unsubscribe

    def emit(self, event: ChangeEvent) -> None:
        if self._muted:
            return
        for listener in list(self._listeners):
            listener(event)
