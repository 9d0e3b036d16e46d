"""Reading a native design file by columns (issue 13: a radix-48 fat tree opens in well under a second).

The record reader (:class:`fabricviz.formats.native_records.RecordLoader`) checks each field of each record in
turn and names the first problem, at a few microseconds a field and a name lookup per reference:
two seconds for the 169k records of a radix-48 fat tree. This reader takes one field of all
records at once into a list or numpy column, checks whole columns, resolves every reference
through one table of names (devices) or ``device:port`` spellings (cable ends), and adds each run
of alike devices or cables with the same model call the record reader makes, so the design it
builds is the record reader's, id for id.

It only vouches for a file it can show is good. On anything it would have to explain (every
refusal) or leaves to the record reader (a GPU or NIC with a name of its own, a reference spelled
other than the way fabricviz writes it), it gives way: the record reader then reads the file from
the start, so each refusal is that reader's, word for word, and nothing is half-loaded.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..model import CABLE_TYPES, Catalog, Fabric, FabricError
from ..model.fabric import GPU, KIND_CODE, NIC, SERVER
from ..model.guid import parse_guid
from .limits import F32_MAX, LOCAL_MAX, LOCAL_MIN, MAX_DEPTH, MAX_LENGTH_M, TIER_MAX, TIER_MIN
from .native_records import DEVICE_KEYS, RecordLoader, all_names

_CABLE_KEYS = ("a", "b", "type", "length_m", "part")
#: The top-level lists of records: checked field by field here (or by the record reader's port
#: pass), so their nesting needs no walk of its own.
_RECORD_LISTS = ("devices", "ports", "cables")


class GiveWay(Exception):
    """The file is one for the record reader (see the module doc)."""


class _Absent:
    """The value of a field a record does not have (None would be a JSON null)."""


_ABSENT = _Absent()
_INT64 = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def load_columns(data: Any, where: str, catalog: Catalog | None) -> Fabric | None:
    """The design in parsed native ``data``, or None: the record reader must read it (it may
    refuse it, or accept what this reader leaves to it)."""
    if not isinstance(data, dict) or not _shallow(data):
        return None
    try:
        return _ColumnLoader(where, catalog).load(data)
    except (GiveWay, FabricError):       # FileFormatError is a FabricError
        return None


def _shallow(data: dict) -> bool:
    """Whether ``data`` outside its record lists nests at most MAX_DEPTH lists and objects deep
    (the record reader's text check refuses deeper files before it reads a field)."""
    return all(_within(v, MAX_DEPTH - 1) for k, v in data.items()
               if not (k in _RECORD_LISTS and isinstance(v, list)))


def _within(v: Any, budget: int) -> bool:
    if isinstance(v, (dict, list)):
        if budget <= 0:
            return False
        return all(_within(x, budget - 1) for x in (v.values() if isinstance(v, dict) else v))
    return True


# ---------------------------------------------------------------------------- columns
def _records(recs: list, keys: tuple[str, ...]) -> None:
    """GiveWay unless every record is an object whose fields are all among ``keys``."""
    if set(map(type, recs)) != {dict} or not set().union(*recs) <= set(keys):
        raise GiveWay("records")


def _column(recs: list[dict], key: str, types: tuple[type, ...], required: bool) -> list[Any]:
    """Field ``key`` of every record (:data:`_ABSENT` where it is missing); GiveWay when one
    has another type (``bool`` is no number: types are compared exactly)."""
    vals = [r.get(key, _ABSENT) for r in recs]
    if not set(map(type, vals)) <= set(types) | (set() if required else {_Absent}):
        raise GiveWay(key)
    return vals


def _numbers(vals: list[Any], lo: float, hi: float) -> np.ndarray:
    """Numbers (ints or floats) as float64, each finite and in [lo, hi]."""
    try:
        a = np.fromiter(map(float, vals), np.float64, len(vals))
    except OverflowError:                # an integer beyond any float
        raise GiveWay("number") from None
    if not (np.isfinite(a) & (a >= lo) & (a <= hi)).all():
        raise GiveWay("number")
    return a


def _integers(vals: list[Any], lo: int, hi: int, absent: int) -> np.ndarray:
    """Whole numbers as int64 (``absent`` where missing), each in [lo, hi]."""
    try:
        a = np.fromiter((absent if v is _ABSENT else v for v in vals), np.int64, len(vals))
    except OverflowError:
        raise GiveWay("integer") from None
    if not ((a >= lo) & (a <= hi)).all():
        raise GiveWay("integer")
    return a


def _codes(vals: list[Any]) -> np.ndarray:
    """Each value's index among the distinct values (first seen first), to find runs of alike records."""
    index: dict[Any, int] = {}
    return np.fromiter((index.setdefault(v, len(index)) for v in vals), np.int64, len(vals))


def _runs(*codes: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) of each run of consecutive records equal in every one of ``codes``."""
    n = len(codes[0])
    change = np.zeros(n, bool)
    for c in codes:
        change[1:] |= c[1:] != c[:-1]
    starts = np.flatnonzero(change).tolist()
    return list(zip([0] + starts, starts + [n], strict=True))


def _absent(v: Any) -> Any:
    return None if v is _ABSENT else v


class _ColumnLoader(RecordLoader):
    """The record reader with its two big passes (devices, cables) done by columns; the header,
    parts and port overrides are read by the record reader's own code."""

    _names: list[str] | None = None      # every device's name, once the devices are in

    def _devices(self, f: Fabric, recs: list) -> None:
        n = len(recs)
        if not n:
            return
        _records(recs, DEVICE_KEYS)
        kinds = _column(recs, "kind", (str,), True)
        parts = _column(recs, "part", (str,), False)
        modes = _column(recs, "mode", (str,), False)
        parents = _column(recs, "parent", (str,), False)
        names = _column(recs, "name", (str,), False)
        nics = _column(recs, "nic", (str,), False)
        guid_text = _column(recs, "guid", (str,), False)
        if not set(kinds) <= set(KIND_CODE):
            raise GiveWay("kind")
        kind = np.fromiter(map(KIND_CODE.__getitem__, kinds), np.int64, n)
        for k, p in set(zip(kinds, parts, strict=True)):
            if p is _ABSENT and k != GPU or p is not _ABSENT and (p not in f.catalog or f.catalog.get(p).kind != k):
                raise GiveWay("part")
        top = np.fromiter((p is _ABSENT for p in parents), bool, n)
        named = np.fromiter((nm is not _ABSENT for nm in names), bool, n)
        if (named != top).any():         # a top device without a name; a GPU or NIC with its own
            raise GiveWay("name")
        if (~top & (kind != KIND_CODE[GPU]) & (kind != KIND_CODE[NIC])).any():
            raise GiveWay("parent")
        xs = _numbers(_column(recs, "x", (int, float), True), -F32_MAX, F32_MAX)
        ys = _numbers(_column(recs, "y", (int, float), True), -F32_MAX, F32_MAX)
        tiers = _integers(_column(recs, "tier", (int,), False), TIER_MIN, TIER_MAX, -1)
        locs = _integers(_column(recs, "local", (int,), False), *_INT64, LOCAL_MIN - 1)  # read on children only
        kid = np.flatnonzero(~top)
        if ((locs[kid] < LOCAL_MIN) | (locs[kid] > LOCAL_MAX)).any():
            raise GiveWay("local")
        try:
            guids = np.array([0 if g is _ABSENT else parse_guid(g) for g in guid_text], np.uint64)
        except ValueError:
            raise GiveWay("guid") from None
        # names of top devices (stored stripped, as check_name does) and the servers children sit in
        tops = np.flatnonzero(top).tolist()
        top_names = [names[i].strip() for i in tops]
        joined = "".join(top_names)
        if not joined.isprintable() or '"' in joined or not all(top_names):
            raise GiveWay("name")        # the record reader names it (model.names.name_problem)
        at = dict(zip(top_names, tops, strict=True))
        if len(at) != len(tops):
            raise GiveWay("name twice")
        par = np.fromiter((at.get(parents[i], n) for i in kid.tolist()), np.int64, len(kid))
        if (par >= kid).any() or (kind[par] != KIND_CODE[SERVER]).any():
            raise GiveWay("parent")
        parent = np.full(n, -1, np.int64)
        parent[kid] = par
        if len(np.unique((par << 20) + (kind[kid] << 12) + locs[kid])) != len(kid):
            raise GiveWay("local twice")
        stripped = np.empty(n, object)
        stripped[tops] = top_names
        for start, end in _runs(kind, _codes(parts), _codes(modes), top):
            self._add_columns(f, start, end, kinds[start], _absent(parts[start]), _absent(modes[start]),
                              bool(top[start]), stripped, xs, ys, guids, parent, locs)
        f.devices_t.set("tier", np.arange(n), tiers)
        self.ids = dict(zip(range(n), range(n), strict=True))
        self._names = all_names(f)
        if len(set(self._names)) != n:   # a child's derived name is also a device's own name
            raise GiveWay("name twice")
        self._bind(f, kind, nics)

    def _add_columns(self, f: Fabric, start: int, end: int, kind: str, part: str | None, mode: str | None,
                     top: bool, names: np.ndarray, xs: np.ndarray, ys: np.ndarray, guids: np.ndarray,
                     parent: np.ndarray, locs: np.ndarray) -> None:
        """One run of alike records, added with the model call the record reader makes for it."""
        s = slice(start, end)
        if kind == SERVER:
            assert part is not None          # only a GPU may come without a part (checked above)
            ids = f.add_servers(part, names[s].tolist(), xs[s], ys[s], emit=False, children=False)
        else:
            g = guids[s]
            ids = f.add_devices(kind, end - start, part, names[s].tolist() if top else None, xs[s], ys[s],
                                mode=mode, parents=None if top else parent[s], locals_=None if top else locs[s],
                                guids=g if g.any() else None, emit=False)
        if ids[0] != start:                  # a fresh fabric numbers devices in file order
            raise GiveWay("ids")

    def _bind(self, f: Fabric, kind: np.ndarray, nics: list[Any]) -> None:
        """GPU → NIC bindings (the record reader binds one GPU at a time through Fabric.bind)."""
        gpus = [i for i, v in enumerate(nics) if v is not _ABSENT]
        if not gpus:
            return
        assert self._names is not None
        by_name = dict(zip(self._names, range(len(self._names)), strict=True))
        to = np.fromiter((by_name.get(nics[i], by_name.get(nics[i].strip(), -1)) for i in gpus),
                         np.int64, len(gpus))
        gpu = np.asarray(gpus, np.int64)
        if (to < 0).any() or (kind[gpu] != KIND_CODE[GPU]).any() or (kind[to] != KIND_CODE[NIC]).any():
            raise GiveWay("nic")
        f.devices_t.set("bound", gpu, to)

    def _cables(self, f: Fabric, recs: list) -> None:
        n = len(recs)
        if not n:
            return
        _records(recs, _CABLE_KEYS)
        ends = [_column(recs, side, (str,), True) for side in ("a", "b")]
        types = _column(recs, "type", (str,), True)
        parts = _column(recs, "part", (str,), True)
        lengths = _numbers(_column(recs, "length_m", (int, float), True), 0.0, MAX_LENGTH_M)
        if not set(types) <= set(CABLE_TYPES) or not all(p in f.catalog for p in set(parts)):
            raise GiveWay("cable type or part")
        ports = self._port_table(f)
        pa, pb = (np.fromiter(map(ports.get, side, [-1] * n), np.int64, n) for side in ends)
        if (pa < 0).any() or (pb < 0).any():
            raise GiveWay("cable end")
        for start, end in _runs(_codes(types), _codes(parts)):
            f.add_cables(pa[start:end], pb[start:end], lengths[start:end], ctype=types[start],
                         part=parts[start], emit=False)

    def _port_table(self, f: Fabric) -> dict[str, int]:
        """Port id of each ``device:number`` spelling fabricviz writes (one table, not a name
        lookup per cable end)."""
        names = self._names if self._names is not None else all_names(f)
        pt = f.ports_t
        return dict(zip([f"{names[d]}:{k}" for d, k in zip(pt.device.tolist(), pt.num.tolist(), strict=True)],
                        range(pt.n), strict=True))


__all__ = ["GiveWay", "load_columns"]
