"""Change events: how observers (the canvas, engines, tests) follow the model.

Subscribing needs no Qt: ``unsubscribe = fabric.subscribe(callback)``; every
change calls ``callback(event)`` after the model is consistent again. Bulk
operations (generators, imports) send one ``bulk_added`` event carrying arrays
of ids instead of thousands of single events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np


class EventKind(StrEnum):
    """What happened (a StrEnum: ``EventKind.ADDED == "added"``)."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    BULK_ADDED = "bulk_added"
    RESET = "reset"


class Subject(StrEnum):
    """What it happened to (a StrEnum: ``Subject.DEVICE == "device"``)."""

    DEVICE = "device"
    PORT = "port"
    CABLE = "cable"
    FABRIC = "fabric"


ADDED = EventKind.ADDED
REMOVED = EventKind.REMOVED
CHANGED = EventKind.CHANGED
BULK_ADDED = EventKind.BULK_ADDED
RESET = EventKind.RESET
DEVICE, PORT, CABLE, FABRIC = Subject.DEVICE, Subject.PORT, Subject.CABLE, Subject.FABRIC


@dataclass(frozen=True)
class ChangeEvent:
    """One change: ``kind`` happened to a ``what`` (its ``id``); ``ids`` for bulk events.

    Plain strings given for ``kind``/``what`` are turned into their enums (a bad one raises).
    """

    kind: EventKind
    what: Subject
    id: int | None = None
    attr: str | None = None
    old: Any = None
    new: Any = None
    ids: dict[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if type(self.kind) is not EventKind:
            object.__setattr__(self, "kind", EventKind(self.kind))
        if type(self.what) is not Subject:
            object.__setattr__(self, "what", Subject(self.what))

    def __repr__(self) -> str:
        if self.kind == BULK_ADDED:
            counts = ", ".join(f"{k}={len(v)}" for k, v in self.ids.items())
            return f"ChangeEvent(bulk_added {counts})"
        extra = f" {self.attr}: {self.old!r} -> {self.new!r}" if self.attr else ""
        return f"ChangeEvent({self.kind.value} {self.what.value} {self.id}{extra})"


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
