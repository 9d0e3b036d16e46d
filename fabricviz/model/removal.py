"""Removing devices and cables, and putting them back with the same ids (undo).

:class:`Removal` is the part of a :class:`~fabricviz.model.fabric.Fabric` (``fabric.removal``)
that does it. Rows are never deleted, only marked dead, so :meth:`Removal.restore` can write
them back unchanged (with the cable ends' port states and the bindings of GPUs whose NIC went).
Also here, for atomic refusals: :meth:`Removal.adding` (several additions as one: a refusal
takes back every row added).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .cabling import PORT_STATES
from .errors import FabricError
from .events import ADDED, CABLE, CHANGED, DEVICE, REMOVED, ChangeEvent
from .guid import format_guid
from .names import derived_local_of

if TYPE_CHECKING:
    from .fabric import Fabric


_NONE = np.zeros(0, np.int64)


@dataclass(frozen=True, eq=False)
class Removed:
    """What :meth:`Fabric.remove_devices` / :meth:`Fabric.remove_cables` took away.

    Give it back to :meth:`Fabric.restore` to undo: the same ids return, with the states
    of the cables' end ports and the GPU bindings to removed NICs exactly as they were.
    """

    device_ids: np.ndarray
    devices: dict[str, np.ndarray]
    names: tuple[str | None, ...]
    cable_ids: np.ndarray
    cables: dict[str, np.ndarray]
    end_ports: np.ndarray = field(default_factory=lambda: _NONE)     # ports the cables left
    end_states: np.ndarray = field(default_factory=lambda: _NONE)    # their states before
    unbound: np.ndarray = field(default_factory=lambda: _NONE)       # GPUs left by removed NICs
    bound_to: np.ndarray = field(default_factory=lambda: _NONE)      # the NICs they were bound to


class Removal:
    """Removal and restore of devices and cables of a Fabric, and all-or-nothing additions.

    Holds no state of its own: what was removed is in the :class:`Removed` it returns.
    """

    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric

    def remove_devices(self, ids: Iterable[int]) -> Removed:
        """Remove devices (a server takes its GPUs and NICs) and all their cables."""
        f = self.fabric
        ids = np.unique(np.asarray([f.device_id(i) for i in ids], dtype=np.int64))
        t = f.devices_t
        kids = np.flatnonzero(t.alive & np.isin(t.parent, ids))
        ids = np.union1d(ids, kids)
        pt = f.ports_t
        port_mask = np.isin(pt.device, ids)
        cids = np.unique(pt.cable[port_mask & (pt.cable >= 0)])
        ends, states = self._end_states(cids)
        unbind = np.flatnonzero(t.alive & np.isin(t.bound, ids) & ~np.isin(np.arange(t.n), ids))
        bound_to = t.bound[unbind].astype(np.int64)
        cables = self.take_cables(cids)
        rows = t.rows(ids)
        names = f.names.drop(ids)
        t.set("alive", ids, False)
        t.set("bound", unbind, -1)      # a GPU whose NIC went (kept in Removed for the undo)
        for i in ids.tolist():
            f.events.emit(ChangeEvent(REMOVED, DEVICE, int(i)))
        for g, n in zip(unbind.tolist(), bound_to.tolist(), strict=True):
            f.events.emit(ChangeEvent(CHANGED, DEVICE, int(g), "nic", int(n), -1))
        return Removed(ids, rows, names, cids, cables, ends, states, unbind, bound_to)

    def remove_cables(self, ids: Iterable[int]) -> Removed:
        f = self.fabric
        cids = np.unique(np.asarray([f.cable(int(i)).id for i in ids], dtype=np.int64))
        ends, states = self._end_states(cids)
        rows = self.take_cables(cids)
        return Removed(np.zeros(0, np.int64), {}, (), cids, rows, ends, states)

    def _end_states(self, cids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        f = self.fabric
        ct = f.cables_t
        ends = np.concatenate([ct.port_a[cids], ct.port_b[cids]]).astype(np.int64)
        return ends, f.ports_t.state[ends].copy()

    def take_cables(self, cids: np.ndarray) -> dict[str, np.ndarray]:
        f = self.fabric
        ct, pt = f.cables_t, f.ports_t
        rows = ct.rows(cids)
        ends = np.concatenate([ct.port_a[cids], ct.port_b[cids]])
        pt.set("cable", ends, -1)
        st = pt.state[ends]
        pt.set("state", ends, np.where(st == PORT_STATES.index("disabled"), st, 0))
        ct.set("alive", cids, False)
        for c in cids.tolist():
            f.events.emit(ChangeEvent(REMOVED, CABLE, int(c)))
        return rows

    def restore_problem(self, removed: Removed) -> str | None:
        """Why :meth:`restore` would refuse ``removed`` now, or None if it can be restored."""
        f = self.fabric
        t, ct, pt = f.devices_t, f.cables_t, f.ports_t
        if len(removed.device_ids) and t.alive[removed.device_ids].any():
            return "the removed devices are back already"
        if len(removed.cable_ids) and ct.alive[removed.cable_ids].any():
            return "the removed cables are back already"
        own = dict(zip(removed.device_ids.tolist(), removed.names, strict=True))
        for k, (_d, nm) in enumerate(own.items()):
            if nm is None:              # a GPU/NIC named after its server: that name must be free too
                parent = int(removed.devices["parent"][k])
                top = own.get(parent) or (f.name_of(parent) if parent not in own else None)
                nm = f"{top}/{derived_local_of(removed.devices, k)}" if top else None
            if nm is not None and f.find(nm) is not None:
                return f"name {nm!r} is now used by another device"
        if len(removed.device_ids):
            rows = removed.devices
            for col, what in (("parent", "server"), ("bound", "NIC")):
                other = rows[col].astype(np.int64)
                gone = (other >= 0) & ~np.isin(other, removed.device_ids)
                gone[gone] = ~t.alive[other[gone]]
                if gone.any():
                    return f"the {what} of {self._restored_name(removed, int(np.argmax(gone)))} is gone"
            n = rows["nports"].astype(np.int64)
            ports = np.repeat(rows["first_port"].astype(np.int64), n) + np.arange(int(n.sum())) \
                - np.repeat(np.cumsum(n) - n, n)
            guids = np.concatenate([rows["guid"], pt.guid[ports]])
            clash = guids[(guids != 0) & np.isin(guids, f.guids.used())]
            if len(clash):
                return f"GUID {format_guid(int(clash[0]))} is now used by another device"
        if len(removed.cable_ids):
            ends = np.concatenate([removed.cables["port_a"], removed.cables["port_b"]])
            busy = ends[pt.cable[ends] >= 0]
            if len(busy):
                return f"port {f.port_name(int(busy[0]))} of a removed cable is now in use"
            dead = ~t.alive[pt.device[ends]] & ~np.isin(pt.device[ends], removed.device_ids)
            if dead.any():
                return f"a device of a removed cable is gone ({f.port_name(int(ends[dead][0]))})"
        return None

    def _restored_name(self, removed: Removed, k: int) -> str:
        f = self.fabric
        nm = removed.names[k]
        if nm is None:
            nm = f"{f.name_of(int(removed.devices['parent'][k]))}/{derived_local_of(removed.devices, k)}"
        return nm

    def restore(self, removed: Removed) -> None:
        """Undo a removal: the same devices, ports and cables come back with the same ids."""
        f = self.fabric
        why = self.restore_problem(removed)
        if why is not None:
            raise FabricError(f"cannot restore: {why}")
        t, ct, pt = f.devices_t, f.cables_t, f.ports_t
        if len(removed.device_ids):
            t.put_rows(removed.device_ids, removed.devices)
            f.names.restore(removed.device_ids.tolist(), removed.names)
            t.set("bound", removed.unbound, removed.bound_to)
            for i in removed.device_ids.tolist():
                f.events.emit(ChangeEvent(ADDED, DEVICE, int(i)))
            for g, n in zip(removed.unbound.tolist(), removed.bound_to.tolist(), strict=True):
                f.events.emit(ChangeEvent(CHANGED, DEVICE, int(g), "nic", -1, int(n)))
        if len(removed.cable_ids):
            ends = np.concatenate([removed.cables["port_a"], removed.cables["port_b"]])
            ct.put_rows(removed.cable_ids, removed.cables)
            pt.set("cable", removed.cables["port_a"], removed.cable_ids)
            pt.set("cable", removed.cables["port_b"], removed.cable_ids)
            if len(removed.end_ports) == len(ends):
                pt.set("state", removed.end_ports, removed.end_states)
            else:
                f.cabling.cabled_state(ends)
            for c in removed.cable_ids.tolist():
                f.events.emit(ChangeEvent(ADDED, CABLE, int(c)))

    # ------------------------------------------------------------------ all or nothing
    @contextmanager
    def adding(self) -> Iterator[None]:
        """Run several additions as one: if anything inside raises, every row added inside
        goes again (names, parts, GUID and name counters too) and the error goes on."""
        f = self.fabric
        t, pt, ct = f.devices_t, f.ports_t, f.cables_t
        mark = (t.n, pt.n, ct.n, len(f.parts), f.names.mark(), f.guids.next)
        try:
            yield
        except BaseException:
            self._drop_added(mark)
            raise

    def _drop_added(self, mark: tuple) -> None:
        f = self.fabric
        t, pt, ct = f.devices_t, f.ports_t, f.cables_t
        nd, np_, nc, nparts, names, next_guid = mark
        new_cables = [c for c in range(nc, ct.n) if ct.alive[c]]
        new_devices = [d for d in range(nd, t.n) if t.alive[d]]
        if new_cables:                  # frees the old ports they took too
            self.take_cables(np.asarray(new_cables, dtype=np.int64))
        if new_devices:
            t.set("alive", np.asarray(new_devices), False)
        for d in new_devices:
            f.events.emit(ChangeEvent(REMOVED, DEVICE, d))
        f.names.rollback(names)
        f.parts.rollback(nparts)
        f.guids.next = next_guid
        t.truncate(nd)
        pt.truncate(np_)
        ct.truncate(nc)
