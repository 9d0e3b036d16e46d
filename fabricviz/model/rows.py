"""Exact rows of an edit, for its undo: :class:`Rows` and :class:`RowEdits` (``fabric.rows``).

:meth:`RowEdits.snapshot` takes the raw rows of some devices, ports and cables;
:meth:`RowEdits.put_back` writes them back without any check but :meth:`RowEdits.rows_problem`,
so an undo of a property edit cannot be refused and gives back the very same values.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .errors import FabricError
from .events import CABLE, CHANGED, DEVICE, PORT, ChangeEvent
from .guid import format_guid

if TYPE_CHECKING:
    from .fabric import Fabric


@dataclass(frozen=True, eq=False)
class Rows:
    """Exact raw rows of some devices (with their own names), ports and cables.

    :meth:`RowEdits.snapshot` takes them, :meth:`RowEdits.put_back` writes them
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


class RowEdits:
    """Snapshots of raw rows of a Fabric and their exact write-back (the undo of property edits)."""

    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric

    def snapshot(self, devices: Iterable[int] = (), ports: Iterable[int] = (),
                 cables: Iterable[int] = ()) -> Rows:
        """Raw rows of live devices, ports and cables, for :meth:`put_back`."""
        f = self.fabric
        d = np.unique(np.asarray([f.device_id(i) for i in devices], dtype=np.int64))
        p = np.unique(np.asarray([f.port_id(int(i)) for i in ports], dtype=np.int64))
        c = np.unique(np.asarray([f.cable(int(i)).id for i in cables], dtype=np.int64))
        rows = f.devices_t.rows(d)
        names = tuple(f.names.own[i] for i in d.tolist())
        return Rows(d, rows, names, p, f.ports_t.rows(p), c, f.cables_t.rows(c))

    def rows_problem(self, rows: Rows) -> str | None:
        """Why :meth:`put_back` of ``rows`` would not be sound now (a row is gone), or None."""
        f = self.fabric
        for ids, table, what in ((rows.device_ids, f.devices_t, "device"),
                                 (rows.cable_ids, f.cables_t, "cable")):
            if len(ids) and not table.alive[ids].all():
                return f"a {what} it changed is gone"
        if len(rows.port_ids) and not f.devices_t.alive[f.ports_t.device[rows.port_ids]].all():
            return "a port it changed is gone"
        t, pt, ct = f.devices_t, f.ports_t, f.cables_t
        for table, ids, data, cols in ((t, rows.device_ids, rows.devices, _DEVICE_FIXED),
                                       (pt, rows.port_ids, rows.ports, _PORT_FIXED),
                                       (ct, rows.cable_ids, rows.cables, _CABLE_FIXED)):
            for col in cols:        # what joins rows together is never written back
                if len(ids) and not np.array_equal(table.column(col)[ids], data[col]):
                    return "the devices, ports or cables it changed are joined differently now"
        for d, nm in zip(rows.device_ids.tolist(), rows.names, strict=True):
            other = f.find(nm) if nm is not None else None
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
        f = self.fabric
        why = self.rows_problem(rows)
        if why is not None:
            raise FabricError(f"cannot put back: {why}")
        t, pt, ct = f.devices_t, f.ports_t, f.cables_t
        events: list[ChangeEvent] = []
        old_names = {d: f.name_of(d) for d in rows.device_ids.tolist()}
        f.names.put_back(rows.device_ids.tolist(), rows.names)
        for table, ids, data, what, attrs in ((t, rows.device_ids, rows.devices, DEVICE, _DEVICE_ATTRS),
                                              (pt, rows.port_ids, rows.ports, PORT, _PORT_ATTRS),
                                              (ct, rows.cable_ids, rows.cables, CABLE, None)):
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
            new = f.name_of(d)
            if new != old_names[d]:
                events.append(ChangeEvent(CHANGED, DEVICE, d, "name", old_names[d], new))
        for e in events:
            if e.attr == "pos":
                e = ChangeEvent(CHANGED, DEVICE, e.id, "pos", None, (float(t.x[e.id]), float(t.y[e.id])))
            f.events.emit(e)

