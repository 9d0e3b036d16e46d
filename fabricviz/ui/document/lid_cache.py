"""LIDs for the inspector: what the subnet manager would assign, computed lazily.

:func:`lid_table` runs the SM's own steps up to LID assignment (election from
``meta["sms"]``, the discovery sweep, OpenSM's LID manager keeping file LIDs),
which is exactly what :func:`fabricviz.ib.routing.route` assigns before it
routes; routing itself is not needed to show a LID and costs seconds at scale.
:class:`LidCache` keeps one table until a model change that can move LIDs
(anything but a move or a rename) and computes big subnets in a worker thread
so the window keeps painting; until then the inspector shows "—".
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from PySide6 import QtCore

from fabricviz.model import Fabric, FabricError
from fabricviz.model import events as ev
from fabricviz.ui.jobs import start_thread

#: Subnets with more switches than this get their LIDs in a worker thread.
SYNC_SWITCHES = 2000
UNKNOWN = "—"


@dataclass
class LidTable:
    """Port id → base LID (switch ports share port 0's LID), or why there are none."""

    lids: dict[int, int] = field(default_factory=dict)
    error: str | None = None
    unreached: frozenset[str] = frozenset()

    def text(self, f: Fabric, port: int) -> str:
        """``"7"`` or ``"no LID (reason)"`` for one port."""
        if self.error is not None:
            return f"no LID ({self.error})"
        lid = self.lids.get(int(port))
        if lid:
            return str(lid)
        d = int(f.ports_t.device[port])
        if int(f.ports_t.tech[port]) != 1:
            return "no LID (Ethernet port)"
        if f.name_of(d) in self.unreached or int(f.ports_t.cable[port]) < 0:
            return "no LID (not reachable from the SM)"
        return "no LID (LID space exhausted)"


def lid_table(f: Fabric) -> LidTable:
    """The SM's LID assignment for ``f`` (LMC 0); a routing refusal becomes ``error``."""
    from fabricviz.ib.lids import lid_of_ports
    from fabricviz.ib.routing import subnet_and_lids
    try:
        sn, lids = subnet_and_lids(f)
    except FabricError as exc:
        return LidTable(error=str(exc))
    return LidTable(lid_of_ports(sn, lids), None, frozenset(sn.undiscovered))


def has_ib(f: Fabric | None) -> bool:
    return f is not None and len(f.device_ids("ib_switch")) > 0


class LidCache(QtCore.QObject):
    """One :class:`LidTable` per model state; ``ready`` fires when a worker delivers one."""

    ready = QtCore.Signal()
    _delivered = QtCore.Signal(int, object)

    def __init__(self, parent: QtCore.QObject | None = None, sync_switches: int = SYNC_SWITCHES) -> None:
        super().__init__(parent)
        self.sync_switches = sync_switches
        self.fabric: Fabric | None = None
        self.generation = 0
        self.table: LidTable | None = None
        self.computations = 0
        self._running: int | None = None        # generation a worker is computing
        self._worker: threading.Thread | None = None
        self._delivered.connect(self._on_delivered, QtCore.Qt.ConnectionType.QueuedConnection)

    def on_event(self, e: ev.ChangeEvent | None) -> None:
        """Forget the table after a change that can move LIDs (``None``: a new fabric)."""
        if e is not None and e.what == "device" and e.attr in ("pos", "name", "tier"):
            return
        self.generation += 1
        self.table = None

    def set_fabric(self, f: Fabric | None) -> None:
        self.fabric = f
        self.on_event(None)

    def get(self) -> LidTable | None:
        """The table now (small subnets), or None while a worker computes it (``ready`` follows)."""
        f = self.fabric
        if self.table is not None or not has_ib(f):
            return self.table
        if len(f.device_ids("ib_switch")) <= self.sync_switches:
            self.table = lid_table(f)
            self.computations += 1
            return self.table
        if self._running != self.generation:
            self._start(f, self.generation)
        return None

    def _start(self, f: Fabric, gen: int) -> None:
        self._running = gen

        def deliver(table: Any) -> None:
            if isinstance(table, Exception):  # the model changed under the worker: the result is stale anyway
                table = LidTable(error=f"could not compute: {table}")
            self._delivered.emit(gen, table)

        self._worker = start_thread(lambda: lid_table(f), deliver, "fabricviz-lids")

    def _on_delivered(self, gen: int, table: LidTable) -> None:
        if self._running == gen:
            self._running = None
        self.computations += 1
        if gen == self.generation:
            self.table = table
            self.ready.emit()
        elif self.fabric is not None and self._running is None:
            self.get()                      # stale: start over on the current model

    def wait(self, timeout: float = 30.0) -> None:
        """Tests and shutdown: let a running worker finish."""
        if self._worker is not None:
            self._worker.join(timeout)
