"""The fabric: devices, ports and cables with stable integer ids.

The :class:`Fabric` is the single source of truth. Rows live in numpy tables
(:mod:`fabricviz.model.store`), so engines read columns directly, and every
edit goes through a method here that checks the invariants first and changes
nothing when it refuses:

* a port takes at most one cable; a cable joins two different devices;
* InfiniBand never cables to Ethernet;
* a cable comes up at the lower speed and narrower width of its ends and of
  the cable part;
* a DAC longer than its reach is refused (use an AOC or optics);
* node and port GUIDs of InfiniBand devices are unique (realistic ones are
  generated when none are given);
* device names are unique.

Observers follow changes through :meth:`Fabric.subscribe` (no Qt needed).

The Fabric holds its parts, each an object with its own job: the three tables (``devices_t``,
``ports_t``, ``cables_t``), the device names (``names``) and part ids (``parts``), the GUIDs
(``guids``), the cabling (``cabling``), removal and restore (``removal``), the exact rows
of an edit for its undo (``rows``) and the typed design settings (``settings``). The methods
the rest of the code calls most stay here as short delegations.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from .cabling import CABLE_TYPES, PORT_STATES, Cabling  # noqa: F401  (re-exported)
from .catalog import Catalog, Part
from .errors import FabricError
from .events import ADDED, BULK_ADDED, CHANGED, DEVICE, FABRIC, PORT, ChangeEvent, EventHub
from .guid import Guids
from .kinds import AUTO_PREFIX, CHILD_PREFIX, ETH_SWITCH, GPU, IB_SWITCH, KIND_CODE, KINDS, NIC, SERVER, SWITCH_KINDS  # noqa: F401
from .limits import LOCAL_MAX, LOCAL_MIN, check_int_range, check_tier
from .names import DeviceNames, PartIds
from .numbers import is_digits
from .planes import parse_split_mode
from .removal import Removal, Removed  # noqa: F401  (re-exported)
from .rows import RowEdits, Rows  # noqa: F401  (re-exported)
from .settings import DesignSettings
from .store import Table, check_fits, coords
from .tech import IB, LinkRate
from .views import Cable, Device, Port

#: A catalog part id of each kind, named in the message when a part is missing.
_EXAMPLE_PART = {NIC: "CX7-1P", IB_SWITCH: "QM9700", ETH_SWITCH: "SN5600"}

DEVICE_COLUMNS = {"kind": "i1", "part": "i4", "parent": "i4", "local": "i2", "bound": "i4",
                  "tier": "i1", "x": "f4", "y": "f4", "guid": "u8", "first_port": "i4",
                  "nports": "i2"}
PORT_COLUMNS = {"device": "i4", "num": "i2", "tech": "i1", "speed": "i1", "width": "i1",
                "state": "i1", "cable": "i4", "guid": "u8"}
CABLE_COLUMNS = {"port_a": "i4", "port_b": "i4", "ctype": "i1", "length": "f4", "part": "i4",
                 "tech": "i1", "speed": "i1", "width": "i1"}


class Fabric:
    """A design: devices (with their ports) and cables, plus ``meta`` (its settings as plain JSON,
    read typed through ``settings``, :mod:`fabricviz.model.settings`)."""

    def __init__(self, catalog: Catalog | None = None, name: str = "untitled") -> None:
        self.catalog = catalog if catalog is not None else Catalog.default()
        self.name = name
        self.meta: dict[str, Any] = {}
        self.devices_t = Table(DEVICE_COLUMNS)
        self.ports_t = Table(PORT_COLUMNS)
        self.cables_t = Table(CABLE_COLUMNS)
        self.names = DeviceNames(self.devices_t)
        self.parts = PartIds()
        self.events = EventHub()
        self.guids = Guids(self)
        self.cabling = Cabling(self)
        self.removal = Removal(self)
        self.rows = RowEdits(self)
        self.settings = DesignSettings(self)

    # ------------------------------------------------------------------ events
    def subscribe(self, listener: Callable[[ChangeEvent], None]) -> Callable[[], None]:
        """Call ``listener(event)`` after every change; returns an unsubscribe function."""
        return self.events.subscribe(listener)

    def copy(self) -> Fabric:
        """An independent copy with the same ids, names and GUIDs (shared catalog, no listeners).

        Lessons keep one per step so stepping back shows the fabric as it was
        before a cable was pulled or moved.
        """
        return copy.deepcopy(self, memo={id(self.catalog): self.catalog, id(self.events): EventHub()})

    # ------------------------------------------------------------------ lookups
    def device(self, ref: int | str) -> Device:
        """The device with id or name ``ref`` (FabricError if none)."""
        return Device(self, self.device_id(ref))

    def device_id(self, ref: int | str) -> int:
        if isinstance(ref, (int, np.integer)):
            if not self.devices_t.exists(int(ref)):
                raise FabricError(f"no device with id {ref}")
            return int(ref)
        i = self.find(ref) if isinstance(ref, str) else None
        if i is None:
            raise FabricError(f"no device named {ref!r}")
        return i

    def find(self, name: str) -> int | None:
        """Id of the device called ``name``, or None."""
        return self.names.find(name)

    def _live_ids(self, ids: Any) -> np.ndarray:
        """``ids`` as an int64 array, FabricError naming the first that is not a live device."""
        a = np.asarray(ids).ravel()
        if a.size and a.dtype.kind not in "iu":
            raise FabricError(f"no device with id {a[0]!r}")
        a = a.astype(np.int64)
        bad = np.flatnonzero((a < 0) | (a >= self.devices_t.n))
        if not len(bad):
            bad = np.flatnonzero(~self.devices_t.alive[a])
        if len(bad):
            raise FabricError(f"no device with id {int(a[bad[0]])}")
        return a

    def devices(self, kind: str | None = None) -> Iterator[Device]:
        for i in self.device_ids(kind):
            yield Device(self, int(i))

    def device_ids(self, kind: str | Sequence[str] | None = None) -> np.ndarray:
        t = self.devices_t
        mask = t.alive.copy()
        if kind is not None:
            kinds = [kind] if isinstance(kind, str) else list(kind)
            bad = [k for k in kinds if k not in KIND_CODE]
            if bad:
                raise FabricError(f"unknown device kind {bad[0]!r} (use {', '.join(KINDS)})")
            mask &= np.isin(t.kind, [KIND_CODE[k] for k in kinds])
        return np.flatnonzero(mask)

    def port(self, ref: int | str) -> Port:
        """A port by id or ``device:number`` (e.g. ``leaf1:3``)."""
        return Port(self, self.port_id(ref))

    def port_id(self, ref: int | str, num: int | None = None) -> int:
        if num is not None:
            d = self.device_id(ref)
            return self._port_of(d, num)
        if isinstance(ref, (int, np.integer)):
            i = int(ref)
            if not (0 <= i < self.ports_t.n and self.devices_t.exists(int(self.ports_t.device[i]))):
                raise FabricError(f"no port with id {ref}")
            return i
        dev, sep, n = str(ref).rpartition(":")
        if not sep or not is_digits(n):
            raise FabricError(f"bad port reference {ref!r} (use DEVICE:PORT, e.g. leaf1:3)")
        return self._port_of(self.device_id(dev), int(n))

    def _port_of(self, d: int, num: int) -> int:
        t = self.devices_t
        n = int(t.nports[d])
        if not 1 <= num <= n:
            what = f"ports 1-{n}" if n else "no ports"
            raise FabricError(f"{self.name_of(d)}:{num}: no such port ({self.name_of(d)} has {what})")
        return int(t.first_port[d]) + num - 1

    def cable(self, cid: int) -> Cable:
        if not self.cables_t.exists(int(cid)):
            raise FabricError(f"no cable with id {cid}")
        return Cable(self, int(cid))

    def cables(self) -> Iterator[Cable]:
        for i in self.cables_t.live_ids():
            yield Cable(self, int(i))

    def cable_ids(self) -> np.ndarray:
        return self.cables_t.live_ids()

    def children_ids(self, d: int) -> np.ndarray:
        t = self.devices_t
        return np.flatnonzero(t.alive & (t.parent == d))

    def name_of(self, d: int) -> str:
        return self.names.name_of(d)

    def port_name(self, p: int) -> str:
        return f"{self.name_of(int(self.ports_t.device[p]))}:{int(self.ports_t.num[p])}"

    def part_of(self, d: int) -> Part | None:
        part_id = self.part_id_of(d)
        return self.catalog.get(part_id) if part_id is not None else None

    def part_id_of(self, d: int) -> str | None:
        return self.parts.id_of(int(self.devices_t.part[d]))

    # ------------------------------------------------------------------ counts
    def __len__(self) -> int:
        return self.devices_t.count()

    def counts(self) -> dict[str, int]:
        """Live devices per kind, plus ``cables``."""
        t = self.devices_t
        kinds = np.bincount(t.kind[t.alive], minlength=len(KINDS))
        out = {k: int(kinds[i]) for i, k in enumerate(KINDS)}
        out["cables"] = self.cables_t.count()
        return out

    def nbytes(self) -> int:
        """Bytes used by the numpy tables (names and parts not included)."""
        return self.devices_t.nbytes() + self.ports_t.nbytes() + self.cables_t.nbytes()

    def check_name(self, name: str, exclude: int | None = None) -> str:
        """Return ``name`` stripped, or raise if it is empty or already used."""
        return self.names.check_name(name, exclude)

    # ------------------------------------------------------------------ adding devices
    def add_device(self, kind: str, part: str | None = None, name: str | None = None,
                   x: float = 0.0, y: float = 0.0, guid: int | None = None,
                   tier: int = -1, mode: str | None = None) -> int:
        """Add one device (a server brings its GPUs and NICs); return its id."""
        if kind == SERVER:
            ids = self.add_servers(part or "", [name] if name is not None else None,
                                   np.array([x]), np.array([y]), mode=mode)
            return int(ids[0])
        names = [self.check_name(name)] if name is not None else None
        if guid is not None:
            check_fits("u8", guid, names[0] if names else f"new {kind}", "GUID")
            if not guid:
                raise FabricError(f"{names[0] if names else 'new ' + kind}: GUID must be non-zero")
            self.guids.check(guid)
        guids = np.array([guid], dtype=np.uint64) if guid is not None else None
        ids = self.add_devices(kind, 1, part, names, [x], [y], tier=tier, guids=guids, mode=mode)
        return int(ids[0])

    def add_devices(self, kind: str, count: int, part: str | None = None,
                    names: Sequence[str] | None = None, xs: Any = 0.0, ys: Any = 0.0,
                    tier: int = -1, guids: np.ndarray | None = None, mode: str | None = None,
                    parents: np.ndarray | None = None, locals_: np.ndarray | None = None,
                    emit: bool = True) -> np.ndarray:
        """Add ``count`` devices of one kind and part at once (generators, imports).

        ``mode`` picks the port technology of a VPI NIC (``4xNDR`` or ``400GbE``).
        Children of a server pass ``parents`` and ``locals_`` and get derived
        names (``node1/gpu0``). Returns the new device ids. Everything is checked first (or
        the rows added are taken back): a refusal adds nothing. Given ``guids`` must fit 64 bits;
        their uniqueness is the caller's to check (loaders do it once for the whole file).
        """
        if not isinstance(kind, str) or kind not in KIND_CODE or kind == SERVER:
            raise FabricError(f"unknown device kind {kind!r} (use {', '.join(KINDS[1:])})")
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise FabricError(f"add {kind}: count must be a whole number >= 0, not {count!r}")
        with self.removal.adding():
            return self._add_devices(kind, int(count), part, names, xs, ys, tier, guids, mode,
                                     parents, locals_, emit)

    def _add_devices(self, kind, count, part, names, xs, ys, tier, guids, mode, parents, locals_, emit):
        p = self.catalog.get(part) if part else None
        if p is not None and p.kind not in (kind,) and not (kind == NIC and p.kind == NIC):
            raise FabricError(f"part {p.id} is a {p.kind}, not a {kind}")
        rate, nports = self._port_rate(kind, p, mode)
        if names is not None and len(names) != count:
            raise FabricError("names and count differ")
        where = f"new {kind}" if not names else str(names[0])
        xs, ys = coords(xs, ys, count, where)
        check_tier(tier, where)
        for values, what in ((locals_, "local"), (guids, "GUID")):
            if values is not None:      # bulk GUIDs: the caller checks they are unique
                if np.size(values) not in (1, count):
                    raise FabricError(f"{where}: {np.size(values)} {what} values for {count} devices")
        if locals_ is not None:
            check_int_range(locals_, LOCAL_MIN, LOCAL_MAX, where, "local")
        if guids is not None:
            check_fits("u8", guids, where, "GUID")
        if parents is not None:
            par, t = np.asarray(parents, dtype=np.int64).ravel(), self.devices_t
            if len(par) != count or ((par < 0) | (par >= t.n)).any() or not t.alive[par].all():
                raise FabricError(f"add {kind}: a parent server does not exist")
        if names is not None:
            for nm in names:
                if self.check_name(nm) != nm:
                    raise FabricError(f"bad device name {nm!r}: no spaces before or after a name")
            seen = set()
            for nm in names:
                if nm in seen or self.find(nm) is not None:
                    raise FabricError(f"name {nm!r} is already used by another device")
                seen.add(nm)
        with_guid = kind == IB_SWITCH or (kind == NIC and rate is not None and rate.tech == IB)
        if guids is None and with_guid:
            guids = self.guids.take(count)
        if names is None and parents is None:
            names = [self.names.auto_name(kind) for _ in range(count)]
        t = self.devices_t
        key0 = self.guids.key()
        ids = t.allocate(count, {"kind": KIND_CODE[kind], "part": self.parts.intern(p.id if p else None),
                                 "parent": -1, "bound": -1, "tier": tier, "x": xs, "y": ys,
                                 "nports": nports})
        if parents is not None:
            t.set("parent", ids, parents)
            t.set("local", ids, locals_ if locals_ is not None else 0)
            self.names.append(ids, None)
        else:
            self.names.append(ids, names)
        if guids is not None and with_guid:
            t.set("guid", ids, guids)
        if nports:
            pids = self.ports_t.allocate(count * nports)
            code = rate.encode()
            pt = self.ports_t
            pt.set("device", pids, np.repeat(ids, nports))
            pt.set("num", pids, np.tile(np.arange(1, nports + 1), count))
            pt.set("tech", pids, code[0])
            pt.set("speed", pids, code[1])
            pt.set("width", pids, code[2])
            pt.set("cable", pids, -1)
            t.set("first_port", ids, pids[0] + nports * np.arange(count))
            if kind == NIC and guids is not None and with_guid:
                pt.set("guid", pids, np.repeat(guids, nports) + np.tile(
                    np.arange(1, nports + 1, dtype=np.uint64), count))
        if guids is not None and with_guid:
            self.guids.note(key0, [t.guid[ids], self.ports_t.guid[pids] if nports else ids[:0]])
        if emit:
            self.events.emit(ChangeEvent(BULK_ADDED, DEVICE, ids={"devices": ids})
                             if count != 1 else ChangeEvent(ADDED, DEVICE, int(ids[0])))
        return ids

    def _port_rate(self, kind: str, p: Part | None, mode: str | None) -> tuple[LinkRate | None, int]:
        if kind == GPU:
            return None, 0
        if p is None:
            example = _EXAMPLE_PART.get(kind, "QM9700")
            raise FabricError(f"a {kind} needs a part from the catalog (its part id, e.g. {example})")
        modes = p.modes
        if mode is None:
            return modes[0], p.ports
        try:
            split = parse_split_mode(mode)
            want = split[0] if split else LinkRate.parse(mode)
        except FabricError as exc:
            raise FabricError(f"{p.id}: mode {mode!r}: {exc}") from None
        if split and split[1] not in p.planes:
            can = f"into {' or '.join(map(str, p.planes))} planes" if p.planes else "into no planes"
            raise FabricError(f"{p.id}: mode {mode!r}: its port splits {can}")
        if split and want.tech == IB:         # InfiniBand: the planes share the port's lanes
            lanes = max((m.width for m in modes if m.tech == IB and want.speed_rank <= m.speed_rank), default=0)
            if want.width * split[1] > lanes:
                raise FabricError(f"{p.id}: mode {mode!r}: {split[1]} planes of {want} take "
                                  f"{want.width * split[1]} lanes, its port has {lanes}")
        for m in modes:
            if m == want or (m.tech == want.tech and want.speed_rank <= m.speed_rank
                             and want.width <= m.width):
                return want, p.ports * (split[1] if split else 1)
        raise FabricError(f"{p.id} ports cannot run at {want} (supported: {', '.join(map(str, modes))})")

    def add_servers(self, part: str, names: Sequence[str] | None, xs: Any, ys: Any,
                    mode: str | None = None, tier: int = 0, emit: bool = True,
                    children: bool = True) -> np.ndarray:
        """Add servers of catalog ``part``, each with its GPUs and NICs, GPU i bound to NIC i.

        ``children=False`` adds bare servers (the file loader adds the children itself).
        """
        p = self.catalog.get(part)
        if p.kind != SERVER:
            raise FabricError(f"part {p.id} is a {p.kind}, not a server")
        where = f"new {p.id}" if not names else str(names[0])
        count = len(names) if names is not None else int(np.size(xs))
        xs, ys = coords(xs, ys, count, where)
        check_tier(tier, where)
        if children and p.nics:
            assert p.nic_part is not None, f"server part {p.id} has no nic_part"     # required by the catalog
            self._port_rate(NIC, self.catalog.get(p.nic_part), mode)   # refuse a bad mode first
        with self.removal.adding():
            return self._add_servers(p, names, xs, ys, count, mode, tier, emit, children)

    def _add_servers(self, p, names, xs, ys, count, mode, tier, emit, children):
        if names is None:
            names = [self.names.auto_name(SERVER) for _ in range(count)]
        names = [self.check_name(n) for n in names]
        if len(set(names)) != len(names):
            raise FabricError("duplicate server names")
        t = self.devices_t
        sids = t.allocate(count, {"kind": KIND_CODE[SERVER], "part": self.parts.intern(p.id),
                                  "parent": -1, "bound": -1, "tier": tier, "x": xs, "y": ys})
        self.names.append(sids, names)
        if not children:
            return sids
        g, n = p.gpus, p.nics
        step = 24.0
        gids = self.add_devices(GPU, count * g, p.gpu_part, None,
                                np.repeat(xs, g) + np.tile(np.arange(g) * step - (g - 1) * step / 2, count),
                                np.repeat(ys, g) + 20.0, tier=tier, parents=np.repeat(sids, g),
                                locals_=np.tile(np.arange(g), count), emit=False)
        nids = self.add_devices(NIC, count * n, p.nic_part, None,
                                np.repeat(xs, n) + np.tile(np.arange(n) * step - (n - 1) * step / 2, count),
                                np.repeat(ys, n) - 20.0, tier=tier, parents=np.repeat(sids, n),
                                locals_=np.tile(np.arange(n), count), mode=mode, emit=False)
        pairs = min(g, n)
        if pairs:
            gsel = gids.reshape(count, g)[:, :pairs].ravel()
            nsel = nids.reshape(count, n)[:, :pairs].ravel()
            t.set("bound", gsel, nsel)
        if emit:
            self.events.emit(ChangeEvent(BULK_ADDED, DEVICE,
                                         ids={"devices": np.concatenate([sids, gids, nids])}))
        return sids

    def _peer(self, p: int) -> int:
        c = int(self.ports_t.cable[p])
        if c < 0:
            return -1
        a, b = int(self.cables_t.port_a[c]), int(self.cables_t.port_b[c])
        return b if a == p else a

    def port_rate(self, p: int) -> LinkRate | None:
        pt = self.ports_t
        return LinkRate.decode(int(pt.tech[p]), int(pt.speed[p]), int(pt.width[p]))

    def cable_rate(self, c: int) -> LinkRate:
        ct = self.cables_t
        rate = LinkRate.decode(int(ct.tech[c]), int(ct.speed[c]), int(ct.width[c]))
        assert rate is not None, "a cable always has a link technology (its ends share one)"
        return rate

    # ------------------------------------------------------------------ delegations to the parts
    def add_cable(self, a: int | str, b: int | str, length_m: float = 1.0,
                  ctype: str | None = None, part: str | None = None) -> int:
        """Cable port ``a`` to port ``b`` (ids or ``dev:port``); return the cable id (see :class:`Cabling`)."""
        return self.cabling.add_cable(a, b, length_m, ctype, part)

    def add_cables(self, ports_a: np.ndarray, ports_b: np.ndarray, length_m: Any = 1.0,
                   ctype: str | None = None, part: str | None = None, emit: bool = True) -> np.ndarray:
        """Add many cables at once after checking every invariant; return their ids."""
        return self.cabling.add_cables(ports_a, ports_b, length_m, ctype, part, emit)

    def set_port_rate(self, p: int, rate: str | LinkRate) -> None:
        """Set a port's rate (within what its part supports); its cable renegotiates."""
        self.cabling.set_port_rate(p, rate)

    def set_cable(self, c: int, length_m: float | None = None, ctype: str | None = None,
                  part: str | None = None) -> None:
        """Change a cable's length, type or part; refused if the new cable cannot reach."""
        self.cabling.set_cable(c, length_m, ctype, part)

    def remove_devices(self, ids: Iterable[int]) -> Removed:
        """Remove devices (a server takes its GPUs and NICs) and all their cables (see :class:`Removal`)."""
        return self.removal.remove_devices(ids)

    def remove_cables(self, ids: Iterable[int]) -> Removed:
        return self.removal.remove_cables(ids)

    def restore(self, removed: Removed) -> None:
        """Undo a removal: the same devices, ports and cables come back with the same ids."""
        self.removal.restore(removed)

    def set_guid(self, d: int, guid: int) -> None:
        """Set an InfiniBand device's node GUID (see :class:`Guids`)."""
        self.guids.set_guid(d, guid)

    # ------------------------------------------------------------------ attribute edits
    def set_meta(self, key: str, value: Any) -> None:
        """Set (``value`` not None) or drop (None) one ``meta`` entry — partitions, QoS —, as a
        change event (plain JSON values: what a design file keeps)."""
        if not isinstance(key, str) or not key:
            raise FabricError(f"meta key {key!r}: a non-empty string")
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            raise FabricError(f"meta {key}: not plain JSON") from None
        old = self.meta.get(key)
        if value is None:
            self.meta.pop(key, None)
        else:
            self.meta[key] = value
        self.settings.forget(key)       # read again, even if the same object was edited in place
        self.events.emit(ChangeEvent(CHANGED, FABRIC, None, f"meta.{key}", old, value))

    def rename(self, d: int, name: str) -> None:
        d = self.device_id(d)
        old = self.name_of(d)
        new = self.check_name(name, exclude=d)
        self.names.rename(d, new)
        self.events.emit(ChangeEvent(CHANGED, DEVICE, d, "name", old, new))

    def move(self, ids: Sequence[int], dx: float, dy: float) -> None:
        """Move devices (and the GPUs/NICs of moved servers) by (dx, dy)."""
        dids = np.asarray([self.device_id(i) for i in ids], dtype=np.int64)
        t = self.devices_t
        kids = np.flatnonzero(t.alive & np.isin(t.parent, dids))
        allids = np.union1d(dids, kids)
        for d, axis in ((dx, "x"), (dy, "y")):
            check_fits("f4", d, f"move of {self.name_of(int(dids[0]))}" if len(dids) else "move", f"d{axis}")
            new = t.column(axis)[allids].astype(np.float64) + float(d)
            check_fits("f4", new, lambda i: self.name_of(int(allids[i])), axis)
        t.set("x", allids, t.x[allids] + np.float64(dx))
        t.set("y", allids, t.y[allids] + np.float64(dy))
        for i in allids.tolist():
            self.events.emit(ChangeEvent(CHANGED, DEVICE, int(i), "pos", None,
                                         (float(t.x[i]), float(t.y[i]))))

    def set_positions(self, ids: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> None:
        """Place many devices at once (layouts); one bulk ``changed`` event."""
        t = self.devices_t
        ids = self._live_ids(ids)
        xs, ys = coords(xs, ys, len(ids), "layout")
        for v, axis in ((xs, "x"), (ys, "y")):
            check_fits("f4", v, lambda i: self.name_of(int(ids[i])), axis)
        t.set("x", ids, xs)
        t.set("y", ids, ys)
        self.events.emit(ChangeEvent(CHANGED, DEVICE, None, "pos", ids={"devices": np.asarray(ids)}))

    def bind(self, gpu: int, nic: int | None) -> None:
        """Bind a GPU to the NIC it reaches the fabric through (PCIe), or unbind it."""
        g = self.device(gpu)
        if g.kind != GPU:
            raise FabricError(f"{g.name}: only a GPU is bound to a NIC")
        old = int(self.devices_t.bound[g.id])
        new = -1
        if nic is not None:
            n = self.device(nic)
            if n.kind != NIC:
                raise FabricError(f"{g.name}: {n.name} is a {n.kind}, not a NIC")
            new = n.id
        self.devices_t.set("bound", g.id, new)
        self.events.emit(ChangeEvent(CHANGED, DEVICE, g.id, "nic", old, new))

    def set_tier(self, ids: np.ndarray, tier: int) -> None:
        ids = self._live_ids(ids)
        check_tier(tier, self.name_of(int(ids[0])) if len(ids) else "tier")
        self.devices_t.set("tier", ids, tier)
        self.events.emit(ChangeEvent(CHANGED, DEVICE, None, "tier", None, tier,
                                     ids={"devices": np.asarray(ids)}))

    def set_port_state(self, p: int, state: str) -> None:
        p = self.port_id(p)
        if state not in PORT_STATES:
            raise FabricError(f"{self.port_name(p)}: unknown port state {state!r} "
                              f"(use {', '.join(PORT_STATES)})")
        old = PORT_STATES[int(self.ports_t.state[p])]
        self.ports_t.set("state", p, PORT_STATES.index(state))
        self.events.emit(ChangeEvent(CHANGED, PORT, p, "state", old, state))

    # ------------------------------------------------------------------ comparison
    def signature(self) -> tuple:
        """Everything a design holds, independent of ids (for equality and tests)."""
        t = self.devices_t
        devs = []
        for d in self.device_ids().tolist():
            devs.append((self.name_of(d), KINDS[t.kind[d]], self.part_id_of(d), int(t.tier[d]),
                         round(float(t.x[d]), 3), round(float(t.y[d]), 3), int(t.guid[d]),
                         self.name_of(int(t.parent[d])) if t.parent[d] >= 0 else None,
                         self.name_of(int(t.bound[d])) if t.bound[d] >= 0 else None,
                         tuple((str(self.port_rate(p)), int(self.ports_t.state[p]), int(self.ports_t.guid[p]))
                               for p in Device(self, d).port_ids.tolist())))
        cabs = sorted(c.signature() for c in self.cables())
        users = tuple(sorted(repr(p.to_dict()) for p in self.catalog.user_parts()))
        return (self.name, json.dumps(self.meta, sort_keys=True, default=str), tuple(devs), tuple(cabs), users)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fabric):
            return NotImplemented
        return self.signature() == other.signature()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        c = self.counts()
        return (f"Fabric({self.name!r}: " + ", ".join(f"{v} {k}" for k, v in c.items() if v) + ")")
