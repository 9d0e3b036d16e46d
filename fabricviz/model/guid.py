"""Realistic InfiniBand GUIDs.

NVIDIA/Mellanox node GUIDs are EUI-64s built from an OUI: ``OUI(24) 03:00
serial(24)``, e.g. ``0xb83fd20300a1b2c0``. A CA's port GUIDs are the node GUID
plus the port number, as ConnectX adapters report them; switch external ports
have no GUID of their own (port 0 carries the node GUID).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .errors import FabricError
from .events import CHANGED, DEVICE, PORT, ChangeEvent
from .kinds import NIC
from .store import check_fits

if TYPE_CHECKING:
    from .fabric import Fabric

#: Mellanox Technologies OUI used by ConnectX and Quantum devices.
MELLANOX_OUI = 0xB83FD2
#: Room left between consecutive generated node GUIDs for port GUIDs.
GUID_STEP = 16


def guid_base(oui: int = MELLANOX_OUI) -> int:
    return (oui << 40) | (0x0300 << 24)


def format_guid(guid: int) -> str:
    """``0xb83fd20300000010`` (16 hex digits, as ibnetdiscover prints them)."""
    return f"0x{guid:016x}"


def parse_guid(text: str | int, *, typed: bool = False) -> int:
    """Parse ``0x…``, ``…`` hex, or ``S-…``/``H-…`` ibnetdiscover ids into an int.

    The one GUID parser of the package. A file's GUID must be a non-zero 64-bit value
    (ValueError otherwise). ``typed=True`` reads a GUID as a person types it: colons between
    groups are allowed (``248a:0703:00ab:cd01``, as ``ibstat`` prints it) and the value is not
    range-checked (the model's setter says what is wrong with it); ValueError if it is not hex.
    """
    if isinstance(text, int):
        value = text
    else:
        s = str(text).strip()
        if typed:
            s = s.lower().replace(":", "")
        if len(s) > 2 and s[1] == "-" and s[0] in "SHRshr":
            s = s[2:]
        value = int(s, 16)
    if not typed and not 0 < value < 1 << 64:
        raise ValueError(f"GUID {text!r} is not a non-zero 64-bit value")
    return value


#: Recent additions kept in a set before they are merged into the sorted array.
_MERGE_AT = 4096


class GuidIndex:
    """The GUIDs in use: a sorted array plus a small set of recent additions, so a file whose
    devices alternate kinds costs O(n log n), not O(n²). ``key`` is the table state it is exact for."""

    def __init__(self, used: np.ndarray, key: tuple[int, ...]) -> None:
        self.base = np.unique(used.astype(np.uint64))
        self.recent: set[int] = set()
        self.key = key

    def has(self, cand: np.ndarray) -> np.ndarray:
        """For each of ``cand``, True if it is in use."""
        base = self.base
        i = np.searchsorted(base, cand)
        hit = (i < len(base)) & (base[np.minimum(i, max(len(base) - 1, 0))] == cand) if len(base) \
            else np.zeros(len(cand), bool)
        if self.recent:
            hit |= np.fromiter((int(c) in self.recent for c in cand), bool, len(cand))
        return hit

    def add(self, values: np.ndarray) -> None:
        self.recent.update(values.tolist())
        if len(self.recent) > _MERGE_AT:
            self.base = np.union1d(self.base, np.fromiter(self.recent, np.uint64, len(self.recent)))
            self.recent = set()


class Guids:
    """The node and port GUIDs of a Fabric: fresh ones, the index of those in use, checks, edits.

    Holds the next GUID to hand out and the :class:`GuidIndex` cache; reads the fabric's tables.
    """

    def __init__(self, fabric: Fabric) -> None:
        self.fabric = fabric
        self.next = guid_base()
        self._cache: GuidIndex | None = None

    def take(self, count: int) -> np.ndarray:
        """``count`` fresh node GUIDs, spaced to leave room for port GUIDs."""
        used = self.index()
        out = np.empty(count, dtype=np.uint64)
        g = self.next
        got = 0
        while got < count:
            cand = g + GUID_STEP * np.arange(count - got, dtype=np.uint64) + np.uint64(GUID_STEP)
            cand = cand.astype(np.uint64)
            good = cand[~used.has(cand)]
            out[got: got + len(good)] = good
            got += len(good)
            g = int(cand[-1])
        self.next = int(out[-1]) if count else self.next
        return out

    def used(self) -> np.ndarray:
        """Every non-zero node and port GUID of the live devices (a GUID used twice comes twice)."""
        d, p = self.fabric.devices_t, self.fabric.ports_t
        node = d.guid[d.alive & (d.guid != 0)]
        port_alive = d.alive[p.device] if p.n else np.zeros(0, bool)
        ports = p.guid[port_alive & (p.guid != 0)]
        return np.concatenate([node, ports])

    def key(self) -> tuple[int, ...]:
        """Changes whenever a column that decides the used GUIDs is written (see Table.writes)."""
        return self.fabric.devices_t.writes("guid", "alive") + self.fabric.ports_t.writes("guid", "device")

    def index(self) -> GuidIndex:
        """The used GUIDs, rebuilt only when the tables changed since (additions are noted)."""
        idx = self._cache
        key = self.key()
        if idx is None or idx.key != key:
            idx = self._cache = GuidIndex(self.used(), key)
        return idx

    def forget_index(self) -> None:
        """Drop the index (the next use counts the GUIDs afresh)."""
        self._cache = None

    def note(self, key_before: tuple[int, ...], added: list[np.ndarray]) -> None:
        """After rows were added (and nothing else written since ``key_before``), add their
        GUIDs to the index instead of rebuilding it on the next use."""
        idx = self._cache
        if idx is not None and idx.key == key_before:
            for a in added:
                idx.add(a[a != 0])
            idx.key = self.key()

    def clash(self) -> tuple[int, list[int]] | None:
        """The first GUID (in value order) that two live devices use, with the devices using it
        (node or port GUID; a device may repeat its own), or None."""
        d, p = self.fabric.devices_t, self.fabric.ports_t
        node_ids = np.flatnonzero(d.alive & (d.guid != 0))
        port_ids = np.flatnonzero(d.alive[p.device] & (p.guid != 0)) if p.n else np.zeros(0, np.int64)
        guids = np.concatenate([d.guid[node_ids], p.guid[port_ids]])
        owners = np.concatenate([node_ids, p.device[port_ids].astype(np.int64)])
        if not len(guids):
            return None
        pairs = np.unique(np.stack([guids, owners.astype(np.uint64)], axis=1), axis=0)
        vals, counts = np.unique(pairs[:, 0], return_counts=True)
        dup = vals[counts > 1]
        if not len(dup):
            return None
        g = int(dup[0])
        return g, [int(x) for x in pairs[pairs[:, 0] == np.uint64(g), 1]]

    def check(self, guid: int, exclude: int | None = None) -> None:
        """Raise if ``guid`` is already a node or port GUID of another device."""
        d, p = self.fabric.devices_t, self.fabric.ports_t
        hit = [int(h) for h in np.flatnonzero(d.alive & (d.guid == np.uint64(guid))) if h != exclude]
        if not hit and p.n:
            ph = np.flatnonzero((p.guid == np.uint64(guid)) & d.alive[p.device])
            hit = [int(p.device[h]) for h in ph if int(p.device[h]) != exclude]
        if hit:
            raise FabricError(f"GUID {format_guid(guid)} is already used by {self.fabric.name_of(hit[0])}")

    def set_guid(self, d: int, guid: int) -> None:
        """Set an InfiniBand device's node GUID (a NIC's port GUIDs follow: node GUID + port number)."""
        f = self.fabric
        d = f.device_id(d)
        dev = f.device(d)
        if not dev.is_ib:
            raise FabricError(f"{dev.name}: only InfiniBand devices have GUIDs")
        if isinstance(guid, bool) or not isinstance(guid, (int, np.integer)) \
                or not 0 < int(guid) < (1 << 64) - (len(dev.port_ids) if dev.kind == NIC else 0):
            raise FabricError(f"{dev.name}: GUID {guid!r} must be a non-zero 64-bit value")
        guid = int(guid)
        try:
            for k in range(len(dev.port_ids) + 1 if dev.kind == NIC else 1):
                self.check(guid + k, exclude=d)     # the node GUID and a NIC's port GUIDs
        except FabricError as exc:
            raise FabricError(f"{dev.name}: {exc}") from None
        old = int(f.devices_t.guid[d])
        f.devices_t.set("guid", d, guid)
        if dev.kind == NIC:
            pids = dev.port_ids
            f.ports_t.set("guid", pids, np.uint64(guid) + np.arange(1, len(pids) + 1, dtype=np.uint64))
        f.events.emit(ChangeEvent(CHANGED, DEVICE, d, "guid", old, guid))

    def set_port_guid(self, p: int, guid: int) -> None:
        """Set one port's GUID (checked against every other device's)."""
        f = self.fabric
        p = f.port_id(p)
        check_fits("u8", guid, f.port_name(p), "GUID")
        dev = int(f.ports_t.device[p])
        self.check(guid, exclude=dev)
        old = int(f.ports_t.guid[p])
        f.ports_t.set("guid", p, guid)
        f.events.emit(ChangeEvent(CHANGED, PORT, p, "guid", old, guid))
