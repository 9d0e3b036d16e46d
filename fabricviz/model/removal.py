"""Removing devices and cables, and putting them back with the same ids (undo).

Mixed into :class:`~fabricviz.model.fabric.Fabric`; rows are never deleted, only
marked dead, so :meth:`RemovalMixin.restore` can write them back unchanged (with the
cable ends' port states and the bindings of GPUs whose NIC went). Also here, for exact
undo and atomic refusals: :meth:`RemovalMixin.snapshot` / :meth:`RemovalMixin.put_back`
(raw rows of an edit, written back without checks) and :meth:`RemovalMixin.adding`
(several additions as one: a refusal takes back every row added).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator

import numpy as np

from .cabling import PORT_STATES
from .errors import FabricError
from .guid import format_guid
from .events import ADDED, CHANGED, REMOVED, ChangeEvent

if TYPE_CHECKING:
    from .events import EventHub
    from .store import Table
    from .views import Cable


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


@dataclass(frozen=True, eq=False)
class Rows:
    """Exact raw rows of some devices (with their own names), ports and cables.

    :meth:`RemovalMixin.snapshot` takes them, :meth:`RemovalMixin.put_back` writes them
    back without any check, so an undo of a property edit cannot be refused and gives
    back the very same values (a derived child name stays derived, a GUID of 0 comes back).
    """

    device_ids: np.ndarray
    devices: dict[str, np.ndarray]
    names: tuple[str | None, ...]
    port_ids: np.ndarray
    ports: dict[str, np.ndarray]
    cable_ids: np.ndarray
    cables: dict[str, np.ndarray]


#: Device columns whose change is announced under another attribute name.
_DEVICE_ATTRS = {"x": "pos", "y": "pos", "bound": "nic", "guid": "guid", "tier": "tier"}
_DEVICE_FIXED = ("kind", "parent", "local", "first_port", "nports")
_PORT_FIXED = ("device", "num", "cable")
_CABLE_FIXED = ("port_a", "port_b")
_PORT_ATTRS = {"tech": "rate", "speed": "rate", "width": "rate", "state": "state", "guid": "guid",
               "cable": "cable"}


class RemovalMixin:
    """Removal and restore of the Fabric (uses its tables, names and events)."""

    if TYPE_CHECKING:       # what this mixin uses of the Fabric (mypy checks Fabric against it)
        devices_t: Table
        ports_t: Table
        cables_t: Table
        events: EventHub
        _names: list[str | None]
        _by_name: dict[str, int]
        _part_ids: list[str]
        _part_index: dict[str, int]
        _auto: dict[str, int]
        _next_guid: int
        _child_keys: tuple[np.ndarray, np.ndarray] | None

        def cable(self, cid: int) -> Cable: ...
        def device_id(self, ref: int | str) -> int: ...
        def find(self, name: str) -> int | None: ...
        def name_of(self, d: int) -> str: ...
        def port_id(self, ref: int | str, num: int | None = None) -> int: ...
        def port_name(self, p: int) -> str: ...
        @staticmethod
        def _derived_local_of(rows: dict[str, np.ndarray], k: int) -> str: ...
        def _cabled_state(self, pids: np.ndarray) -> None: ...
        def _used_guids(self) -> np.ndarray: ...

    def remove_devices(self, ids: Iterable[int]) -> Removed:
        """Remove devices (a server takes its GPUs and NICs) and all their cables."""
        ids = np.unique(np.asarray([self.device_id(i) for i in ids], dtype=np.int64))
        t = self.devices_t
        kids = np.flatnonzero(t.alive & np.isin(t.parent, ids))
        ids = np.union1d(ids, kids)
        pt = self.ports_t
        port_mask = np.isin(pt.device, ids)
        cids = np.unique(pt.cable[port_mask & (pt.cable >= 0)])
        ends, states = self._end_states(cids)
        unbind = np.flatnonzero(t.alive & np.isin(t.bound, ids) & ~np.isin(np.arange(t.n), ids))
        bound_to = t.bound[unbind].astype(np.int64)
        cables = self._take_cables(cids)
        rows = t.rows(ids)
        names = tuple(self._names[int(i)] for i in ids)
        for i, nm in zip(ids.tolist(), names):
            if nm is not None:
                self._by_name.pop(nm, None)
        t.set("alive", ids, False)
        self._child_keys = None
        t.set("bound", unbind, -1)      # a GPU whose NIC went (kept in Removed for the undo)
        for i in ids.tolist():
            self.events.emit(ChangeEvent(REMOVED, "device", int(i)))
        for g, n in zip(unbind.tolist(), bound_to.tolist()):
            self.events.emit(ChangeEvent(CHANGED, "device", int(g), "nic", int(n), -1))
        return Removed(ids, rows, names, cids, cables, ends, states, unbind, bound_to)

    def remove_cables(self, ids: Iterable[int]) -> Removed:
        cids = np.unique(np.asarray([self.cable(int(i)).id for i in ids], dtype=np.int64))
        ends, states = self._end_states(cids)
        rows = self._take_cables(cids)
        return Removed(np.zeros(0, np.int64), {}, (), cids, rows, ends, states)

    def _end_states(self, cids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ct = self.cables_t
        ends = np.concatenate([ct.port_a[cids], ct.port_b[cids]]).astype(np.int64)
        return ends, self.ports_t.state[ends].copy()

    def _take_cables(self, cids: np.ndarray) -> dict[str, np.ndarray]:
        ct, pt = self.cables_t, self.ports_t
        rows = ct.rows(cids)
        ends = np.concatenate([ct.port_a[cids], ct.port_b[cids]])
        pt.set("cable", ends, -1)
        st = pt.state[ends]
        pt.set("state", ends, np.where(st == PORT_STATES.index("disabled"), st, 0))
        ct.set("alive", cids, False)
        for c in cids.tolist():
            self.events.emit(ChangeEvent(REMOVED, "cable", int(c)))
        return rows

    def restore_problem(self, removed: Removed) -> str | None:
        """Why :meth:`restore` would refuse ``removed`` now, or None if it can be restored."""
        t, ct, pt = self.devices_t, self.cables_t, self.ports_t
        if len(removed.device_ids) and t.alive[removed.device_ids].any():
            return "the removed devices are back already"
        if len(removed.cable_ids) and ct.alive[removed.cable_ids].any():
            return "the removed cables are back already"
        own = dict(zip(removed.device_ids.tolist(), removed.names))
        for k, (d, nm) in enumerate(own.items()):
            if nm is None:              # a GPU/NIC named after its server: that name must be free too
                parent = int(removed.devices["parent"][k])
                top = own.get(parent) or (self.name_of(parent) if parent not in own else None)
                nm = f"{top}/{self._derived_local_of(removed.devices, k)}" if top else None
            if nm is not None and self.find(nm) is not None:
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
            clash = guids[(guids != 0) & np.isin(guids, self._used_guids())]
            if len(clash):
                return f"GUID {format_guid(int(clash[0]))} is now used by another device"
        if len(removed.cable_ids):
            ends = np.concatenate([removed.cables["port_a"], removed.cables["port_b"]])
            busy = ends[pt.cable[ends] >= 0]
            if len(busy):
                return f"port {self.port_name(int(busy[0]))} of a removed cable is now in use"
            dead = ~t.alive[pt.device[ends]] & ~np.isin(pt.device[ends], removed.device_ids)
            if dead.any():
                return f"a device of a removed cable is gone ({self.port_name(int(ends[dead][0]))})"
        return None

    def _restored_name(self, removed: Removed, k: int) -> str:
        nm = removed.names[k]
        if nm is None:
            nm = f"{self.name_of(int(removed.devices['parent'][k]))}/{self._derived_local_of(removed.devices, k)}"
        return nm

    def restore(self, removed: Removed) -> None:
        """Undo a removal: the same devices, ports and cables come back with the same ids."""
        why = self.restore_problem(removed)
        if why is not None:
            raise FabricError(f"cannot restore: {why}")
        t, ct, pt = self.devices_t, self.cables_t, self.ports_t
        if len(removed.device_ids):
            self._child_keys = None
            t.put_rows(removed.device_ids, removed.devices)
            for i, nm in zip(removed.device_ids.tolist(), removed.names):
                self._names[i] = nm
                if nm is not None:
                    self._by_name[nm] = i
            t.set("bound", removed.unbound, removed.bound_to)
            for i in removed.device_ids.tolist():
                self.events.emit(ChangeEvent(ADDED, "device", int(i)))
            for g, n in zip(removed.unbound.tolist(), removed.bound_to.tolist()):
                self.events.emit(ChangeEvent(CHANGED, "device", int(g), "nic", -1, int(n)))
        if len(removed.cable_ids):
            ends = np.concatenate([removed.cables["port_a"], removed.cables["port_b"]])
            ct.put_rows(removed.cable_ids, removed.cables)
            pt.set("cable", removed.cables["port_a"], removed.cable_ids)
            pt.set("cable", removed.cables["port_b"], removed.cable_ids)
            if len(removed.end_ports) == len(ends):
                pt.set("state", removed.end_ports, removed.end_states)
            else:
                self._cabled_state(ends)
            for c in removed.cable_ids.tolist():
                self.events.emit(ChangeEvent(ADDED, "cable", int(c)))

    # ------------------------------------------------------------------ exact rows (undo of edits)
    def snapshot(self, devices: Iterable[int] = (), ports: Iterable[int] = (),
                 cables: Iterable[int] = ()) -> Rows:
        """Raw rows of live devices, ports and cables, for :meth:`put_back`."""
        d = np.unique(np.asarray([self.device_id(i) for i in devices], dtype=np.int64))
        p = np.unique(np.asarray([self.port_id(int(i)) for i in ports], dtype=np.int64))
        c = np.unique(np.asarray([self.cable(int(i)).id for i in cables], dtype=np.int64))
        rows = self.devices_t.rows(d)
        names = tuple(self._names[i] for i in d.tolist())
        return Rows(d, rows, names, p, self.ports_t.rows(p), c, self.cables_t.rows(c))

    def rows_problem(self, rows: Rows) -> str | None:
        """Why :meth:`put_back` of ``rows`` would not be sound now (a row is gone), or None."""
        for ids, table, what in ((rows.device_ids, self.devices_t, "device"),
                                 (rows.cable_ids, self.cables_t, "cable")):
            if len(ids) and not table.alive[ids].all():
                return f"a {what} it changed is gone"
        if len(rows.port_ids) and not self.devices_t.alive[self.ports_t.device[rows.port_ids]].all():
            return "a port it changed is gone"
        t, pt, ct = self.devices_t, self.ports_t, self.cables_t
        for table, ids, data, cols in ((t, rows.device_ids, rows.devices, _DEVICE_FIXED),
                                       (pt, rows.port_ids, rows.ports, _PORT_FIXED),
                                       (ct, rows.cable_ids, rows.cables, _CABLE_FIXED)):
            for col in cols:        # what joins rows together is never written back
                if len(ids) and not np.array_equal(table.column(col)[ids], data[col]):
                    return "the devices, ports or cables it changed are joined differently now"
        for d, nm in zip(rows.device_ids.tolist(), rows.names):
            other = self.find(nm) if nm is not None else None
            if other is not None and other != d and other not in rows.device_ids:
                return f"name {nm!r} is now used by another device"
        if len(rows.device_ids):
            nic = rows.devices["bound"].astype(np.int64)
            nic = nic[nic >= 0]
            if len(nic) and not t.alive[nic].all():
                return "the NIC a GPU was bound to is gone"
        own = np.union1d(rows.device_ids, pt.device[rows.port_ids])
        guids = np.concatenate([rows.devices.get("guid", np.zeros(0, np.uint64)),
                                rows.ports.get("guid", np.zeros(0, np.uint64))])
        guids = guids[guids != 0]
        if len(guids):
            others = t.alive.copy()
            others[own] = False
            used = np.concatenate([t.guid[others & (t.guid != 0)],
                                   pt.guid[others[pt.device] & (pt.guid != 0)]])
            clash = guids[np.isin(guids, used)]
            if len(clash):
                return f"GUID {format_guid(int(clash[0]))} is now used by another device"
        return None

    def same_rows(self, rows: Rows) -> bool:
        """True if the model holds exactly ``rows`` now."""
        now = self.snapshot(rows.device_ids, rows.port_ids, rows.cable_ids)
        return now.names == rows.names and all(
            np.array_equal(a[k], b[k]) for a, b in ((now.devices, rows.devices), (now.ports, rows.ports),
                                                     (now.cables, rows.cables)) for k in a)

    def put_back(self, rows: Rows) -> None:
        """Write ``rows`` back exactly (no checks but :meth:`rows_problem`); announce what changed."""
        why = self.rows_problem(rows)
        if why is not None:
            raise FabricError(f"cannot put back: {why}")
        t, pt, ct = self.devices_t, self.ports_t, self.cables_t
        events: list[ChangeEvent] = []
        old_names = {d: self.name_of(d) for d in rows.device_ids.tolist()}
        for d, nm in zip(rows.device_ids.tolist(), rows.names):
            cur = self._names[d]
            if cur is not None and self._by_name.get(cur) == d:
                del self._by_name[cur]
        for d, nm in zip(rows.device_ids.tolist(), rows.names):
            self._names[d] = nm
            if nm is not None:
                self._by_name[nm] = d
        self._child_keys = None
        for table, ids, data, what, attrs in ((t, rows.device_ids, rows.devices, "device", _DEVICE_ATTRS),
                                              (pt, rows.port_ids, rows.ports, "port", _PORT_ATTRS),
                                              (ct, rows.cable_ids, rows.cables, "cable", None)):
            if not len(ids):
                continue
            changed: dict[str, np.ndarray] = {}
            for col, values in data.items():
                if col == "alive":
                    continue
                diff = table.column(col)[ids] != values
                if diff.any():
                    attr = "cable" if attrs is None else attrs.get(col, col)
                    changed[attr] = changed.get(attr, np.zeros(len(ids), bool)) | diff
                table.set(col, ids, values)
            for attr, diff in changed.items():
                events += [ChangeEvent(CHANGED, what, int(i), attr) for i in ids[diff].tolist()]
        for d in rows.device_ids.tolist():
            new = self.name_of(d)
            if new != old_names[d]:
                events.append(ChangeEvent(CHANGED, "device", d, "name", old_names[d], new))
        for e in events:
            if e.attr == "pos":
                e = ChangeEvent(CHANGED, "device", e.id, "pos", None, (float(t.x[e.id]), float(t.y[e.id])))
            self.events.emit(e)

    # ------------------------------------------------------------------ all or nothing
    @contextmanager
    def adding(self) -> Iterator[None]:
        """Run several additions as one: if anything inside raises, every row added inside
        goes again (names, parts, GUID and name counters too) and the error goes on."""
        t, pt, ct = self.devices_t, self.ports_t, self.cables_t
        mark = (t.n, pt.n, ct.n, len(self._part_ids), dict(self._auto), self._next_guid)
        try:
            yield
        except BaseException:
            self._drop_added(mark)
            raise

    def _drop_added(self, mark: tuple) -> None:
        t, pt, ct = self.devices_t, self.ports_t, self.cables_t
        nd, np_, nc, nparts, auto, next_guid = mark
        new_cables = [c for c in range(nc, ct.n) if ct.alive[c]]
        new_devices = [d for d in range(nd, t.n) if t.alive[d]]
        if new_cables:                  # frees the old ports they took too
            self._take_cables(np.asarray(new_cables, dtype=np.int64))
        if new_devices:
            t.set("alive", np.asarray(new_devices), False)
        for d in new_devices:
            self.events.emit(ChangeEvent(REMOVED, "device", d))
        for nm in [nm for nm, i in self._by_name.items() if i >= nd]:
            del self._by_name[nm]
        del self._names[nd:]
        for pid in self._part_ids[nparts:]:
            self._part_index.pop(pid, None)
        del self._part_ids[nparts:]
        self._auto, self._next_guid = auto, next_guid
        self._child_keys = None
        t.truncate(nd)
        pt.truncate(np_)
        ct.truncate(nc)
