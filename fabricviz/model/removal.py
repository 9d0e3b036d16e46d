"""Removing devices and cables, and putting them back with the same ids (undo).

Mixed into :class:`~fabricviz.model.fabric.Fabric`; rows are never deleted, only
marked dead, so :meth:`RemovalMixin.restore` can write them back unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from .cabling import PORT_STATES
from .errors import FabricError
from .events import ADDED, REMOVED, ChangeEvent


@dataclass(frozen=True)
class Removed:
    """What :meth:`Fabric.remove_devices` / :meth:`Fabric.remove_cables` took away.

    Give it back to :meth:`Fabric.restore` to undo: the same ids return.
    """

    device_ids: np.ndarray
    devices: dict[str, np.ndarray]
    names: tuple[str | None, ...]
    cable_ids: np.ndarray
    cables: dict[str, np.ndarray]


class RemovalMixin:
    """Removal and restore of the Fabric (uses its tables, names and events)."""

    def remove_devices(self, ids: Iterable[int]) -> Removed:
        """Remove devices (a server takes its GPUs and NICs) and all their cables."""
        ids = np.unique(np.asarray([self.device_id(int(i)) for i in ids], dtype=np.int64))
        t = self.devices_t
        kids = np.flatnonzero(t.alive & np.isin(t.parent, ids))
        ids = np.union1d(ids, kids)
        pt = self.ports_t
        port_mask = np.isin(pt.device, ids)
        cids = np.unique(pt.cable[port_mask & (pt.cable >= 0)])
        cables = self._take_cables(cids)
        rows = t.rows(ids)
        names = tuple(self._names[int(i)] for i in ids)
        for i, nm in zip(ids.tolist(), names):
            if nm is not None:
                self._by_name.pop(nm, None)
        t.set("alive", ids, False)
        self._child_keys = None
        unbind = np.flatnonzero(t.alive & np.isin(t.bound, ids))
        t.set("bound", unbind, -1)  # only children are bound, so nothing outside changes
        for i in ids.tolist():
            self.events.emit(ChangeEvent(REMOVED, "device", int(i)))
        return Removed(ids, rows, names, cids, cables)

    def remove_cables(self, ids: Iterable[int]) -> Removed:
        cids = np.unique(np.asarray([self.cable(int(i)).id for i in ids], dtype=np.int64))
        rows = self._take_cables(cids)
        return Removed(np.zeros(0, np.int64), {}, (), cids, rows)

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

    def restore(self, removed: Removed) -> None:
        """Undo a removal: the same devices, ports and cables come back with the same ids."""
        t, ct, pt = self.devices_t, self.cables_t, self.ports_t
        for nm in removed.names:
            if nm is not None and nm in self._by_name:
                raise FabricError(f"cannot restore: name {nm!r} is now used by another device")
        if len(removed.device_ids):
            self._child_keys = None
            t.put_rows(removed.device_ids, removed.devices)
            for i, nm in zip(removed.device_ids.tolist(), removed.names):
                self._names[i] = nm
                if nm is not None:
                    self._by_name[nm] = i
            for i in removed.device_ids.tolist():
                self.events.emit(ChangeEvent(ADDED, "device", int(i)))
        if len(removed.cable_ids):
            ends = np.concatenate([removed.cables["port_a"], removed.cables["port_b"]])
            if (pt.cable[ends] >= 0).any():
                raise FabricError("cannot restore: a port of the removed cable is now in use")
            ct.put_rows(removed.cable_ids, removed.cables)
            pt.set("cable", removed.cables["port_a"], removed.cable_ids)
            pt.set("cable", removed.cables["port_b"], removed.cable_ids)
            self._cabled_state(ends)
            for c in removed.cable_ids.tolist():
                self.events.emit(ChangeEvent(ADDED, "cable", int(c)))
