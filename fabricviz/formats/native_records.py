"""The record reader of the native design file (a leaf the writer and the column reader share).

:class:`RecordLoader` checks each field of each record in turn and names the first problem;
:mod:`.native_bulk` overrides its two big passes to read by columns; :mod:`.native` picks one.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..model import CABLE_TYPES, KINDS, Catalog, Fabric, FabricError, Part
from ..model.fabric import CHILD_PREFIX, GPU, KIND_CODE, NIC, SERVER
from ..model.guid import format_guid, parse_guid
from ..model.names import escape_name, name_problem
from .limits import (
    F32_MAX,
    LOCAL_MAX,
    LOCAL_MIN,
    MAX_LENGTH_M,
    TIER_MAX,
    TIER_MIN,
    FileFormatError,
    check_number,
    one_line,
)
from .limits import short as _short

FORMAT = "fabricviz"
VERSION = 1


def all_names(fabric: Fabric) -> list[str]:
    """Name of every device id (dead ids get ""), derived child names included."""
    t = fabric.devices_t
    out = [n if n is not None else "" for n in fabric.names.own]
    kinds, parents, locs = t.kind.tolist(), t.parent.tolist(), t.local.tolist()
    for d, n in enumerate(fabric.names.own):
        if n is None and parents[d] >= 0:
            out[d] = f"{out[parents[d]] or fabric.name_of(parents[d])}/{CHILD_PREFIX[KINDS[kinds[d]]]}{locs[d]}"
    return out



DEVICE_KEYS = ("name", "parent", "local", "kind", "part", "mode", "tier", "x", "y", "guid", "nic")


class RecordLoader:
    """Reads a native design record by record, checking each field and naming the first problem
    (``file: path.to.field: message``); :mod:`.native_bulk` reads good files faster by columns."""


    def __init__(self, where: str, catalog: Catalog | None) -> None:
        self.where = where
        self.base = catalog if catalog is not None else Catalog.default()
        self.ids: dict[int, int] = {}     # devices[i] -> device id

    def fail(self, field: str, msg: str) -> FileFormatError:
        return FileFormatError(one_line(f"{self.where}: {field}: {msg}"))

    def need(self, rec: dict, key: str, path: str, types: type | tuple, optional: bool = False) -> Any:
        if key not in rec:
            if optional:
                return None
            raise self.fail(f"{path}.{key}", "missing")
        v = rec[key]
        if isinstance(v, bool) and bool not in (types if isinstance(types, tuple) else (types,)):
            raise self.fail(f"{path}.{key}", f"expected {_tname(types)}, got {json.dumps(v)}")
        if not isinstance(v, types):
            raise self.fail(f"{path}.{key}", f"expected {_tname(types)}, got {_short(v)}")
        return v

    def number(self, rec: dict, key: str, path: str, what: str = "positions", lo: float = -F32_MAX,
               hi: float = F32_MAX) -> float:
        v = self.need(rec, key, path, (int, float))
        try:
            return check_number(v, key, lo=lo, hi=hi, what=what)
        except ValueError as e:
            raise self.fail(path, str(e)) from None

    def integer(self, rec: dict, key: str, path: str, lo: int, hi: int, why: str) -> int:
        v = self.need(rec, key, path, int)
        if not lo <= v <= hi:
            raise self.fail(f"{path}.{key}", f"{_short(v)}: must be {why}")
        return v

    def load(self, data: Any) -> Fabric:
        if not isinstance(data, dict):
            raise self.fail("(top)", "expected a JSON object")
        if data.get("format") != FORMAT:
            raise self.fail("format", f"expected \"{FORMAT}\", got {_short(data.get('format'))}")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise self.fail("version", "missing or not an integer")
        if version > VERSION:
            raise self.fail("version", f"file version {_short(version)} is newer than this fabricviz "
                                       f"understands ({VERSION}); upgrade fabricviz")
        if version < 1:
            raise self.fail("version", f"unknown version {_short(version)}")
        known = {"format", "version", "name", "meta", "parts", "devices", "ports", "cables"}
        for k in data:
            if k not in known:
                raise self.fail(k, "unknown field")
        name = self.need(data, "name", "(top)", str) if "name" in data else "untitled"
        why = name_problem(name)
        if why is not None:
            raise self.fail("name", f"'{escape_name(name)}': {why}")
        meta = self.need(data, "meta", "(top)", dict, optional=True) or {}
        parts = self._parts(self.need(data, "parts", "(top)", list, optional=True) or [])
        try:
            catalog = self.base.with_parts(parts) if parts else self.base
        except FabricError as e:
            raise self.fail("parts", str(e)) from None
        f = Fabric(catalog, name=name)
        f.meta = meta
        self._devices(f, self.need(data, "devices", "(top)", list, optional=True) or [])
        self._ports(f, self.need(data, "ports", "(top)", list, optional=True) or [])
        self._cables(f, self.need(data, "cables", "(top)", list, optional=True) or [])
        return f

    def _parts(self, recs: list) -> list[Part]:
        out = []
        for i, rec in enumerate(recs):
            try:
                part = Part.from_dict(rec, f"parts[{i}]")      # checks the model's limits too
            except FabricError as e:
                raise FileFormatError(one_line(f"{self.where}: {e}")) from None
            out.append(part)
        return out

    def _devices(self, f: Fabric, recs: list) -> None:
        runs: list[tuple[tuple, list[tuple[int, dict]]]] = []
        for i, rec in enumerate(recs):
            path = f"devices[{i}]"
            if not isinstance(rec, dict):
                raise self.fail(path, "expected an object")
            for k in rec:
                if k not in DEVICE_KEYS:
                    raise self.fail(f"{path}.{k}", "unknown field")
            kind = self.need(rec, "kind", path, str)
            if kind not in KIND_CODE:
                raise self.fail(f"{path}.kind", f"unknown kind {kind!r} (use {', '.join(KINDS)})")
            part = self.need(rec, "part", path, str, optional=True)
            if part is not None and part not in f.catalog:
                raise self.fail(f"{path}.part", f"unknown part {part!r}")
            if part is not None and f.catalog.get(part).kind != kind:
                raise self.fail(f"{path}.part", f"{part} is a {f.catalog.get(part).kind}, not a {kind}")
            if part is None and kind != GPU:
                raise self.fail(f"{path}.part", f"missing (a {kind} needs a catalog part)")
            mode = self.need(rec, "mode", path, str, optional=True)
            parent = self.need(rec, "parent", path, str, optional=True)
            if parent is None:
                self.need(rec, "name", path, str)
            elif kind not in (GPU, NIC):
                raise self.fail(f"{path}.parent", f"a {kind} cannot sit inside a server")
            else:
                self.need(rec, "name", path, str, optional=True)
            self.need(rec, "nic", path, str, optional=True)
            key = (kind, part, mode, parent is None)
            if runs and runs[-1][0] == key:
                runs[-1][1].append((i, rec))
            else:
                runs.append((key, [(i, rec)]))
        for (kind, part, mode, top), items in runs:
            self._add_run(f, kind, part, mode, top, items)
        # GPU → NIC bindings, once every NIC exists
        for i, rec in enumerate(recs):
            if "nic" in rec:
                nic = rec["nic"]
                n = f.find(nic)
                if n is None:          # names are stored stripped (check_name)
                    n = f.find(nic.strip())
                if n is None:
                    raise self.fail(f"devices[{i}].nic", f"no device named {nic!r}")
                try:
                    f.bind(self.ids[i], n)
                except FabricError as e:
                    raise self.fail(f"devices[{i}].nic", str(e)) from None

    def _add_run(self, f: Fabric, kind: str, part: str | None, mode: str | None, top: bool,
                 items: list[tuple[int, dict]]) -> None:
        n = len(items)
        xs = np.empty(n)
        ys = np.empty(n)
        tiers = np.empty(n, np.int64)
        guids = np.zeros(n, np.uint64)
        names: list[str] = []
        seen_names: set[str] = set()
        parents = np.full(n, -1, np.int64)
        locs = np.zeros(n, np.int64)
        custom: list[tuple[int, str]] = []
        for k, (i, rec) in enumerate(items):
            path = f"devices[{i}]"
            xs[k] = self.number(rec, "x", path)
            ys[k] = self.number(rec, "y", path)
            tiers[k] = (self.integer(rec, "tier", path, TIER_MIN, TIER_MAX,
                                     f"{TIER_MIN} (unknown) or 0..{TIER_MAX}") if "tier" in rec else -1)
            if "guid" in rec:
                text = self.need(rec, "guid", path, str)
                try:
                    guids[k] = parse_guid(text)
                except ValueError as e:
                    raise self.fail(f"{path}.guid", str(e)) from None
            if top:
                try:
                    nm = f.check_name(rec["name"])
                except FabricError as e:
                    raise self.fail(f"{path}.name", str(e)) from None
                if nm in seen_names:
                    raise self.fail(f"{path}.name", f"name {nm!r} is used twice")
                seen_names.add(nm)
                names.append(nm)
            else:
                pname = rec["parent"]
                p = f.find(pname)
                if p is None or KINDS[f.devices_t.kind[p]] != SERVER:
                    raise self.fail(f"{path}.parent", f"no server named {pname!r} before this record")
                parents[k] = p
                locs[k] = self.integer(rec, "local", path, LOCAL_MIN, LOCAL_MAX, f"{LOCAL_MIN}..{LOCAL_MAX}")
                if "name" in rec:
                    custom.append((k, rec["name"]))
        try:
            if kind == SERVER:
                assert part is not None         # only a GPU may come without a part (checked above)
                ids = f.add_servers(part, names, xs, ys, emit=False, children=False)
            else:
                ids = f.add_devices(kind, n, part, names if top else None, xs, ys, mode=mode,
                                    parents=None if top else parents, locals_=None if top else locs,
                                    guids=guids if guids.any() else None, emit=False)
        except FabricError as e:
            raise self.fail(f"devices[{items[0][0]}]", str(e)) from None
        f.devices_t.set("tier", ids, tiers)
        for k, (i, _rec) in enumerate(items):
            self.ids[i] = int(ids[k])
        if kind == SERVER:
            return
        # names derived from (parent, local) must be unique too
        if not top:
            seen: set[tuple[int, int]] = set()
            for k, (i, rec) in enumerate(items):
                key = (int(parents[k]), int(locs[k]))
                if key in seen or f.find(_display_name(rec)) not in (None, int(ids[k])):
                    raise self.fail(f"devices[{i}].local", f"{_display_name(rec)!r} is used twice")
                seen.add(key)
        for k, nm in custom:
            try:
                f.rename(int(ids[k]), nm)
            except FabricError as e:
                raise self.fail(f"devices[{items[k][0]}].name", str(e)) from None

    def _ports(self, f: Fabric, recs: list) -> None:
        pids: list[int] = []
        guids: list[int] = []
        at: list[int] = []
        for i, rec in enumerate(recs):
            path = f"ports[{i}]"
            if not isinstance(rec, dict):
                raise self.fail(path, "expected an object")
            for k in rec:
                if k not in ("port", "rate", "state", "guid"):
                    raise self.fail(f"{path}.{k}", "unknown field")
            try:
                p = f.port_id(self.need(rec, "port", path, str))
                if "rate" in rec:
                    f.set_port_rate(p, self.need(rec, "rate", path, str))
                if "state" in rec:
                    f.set_port_state(p, self.need(rec, "state", path, str))
                if "guid" in rec:   # written with the others below: two ports may swap GUIDs
                    pids.append(p)
                    guids.append(parse_guid(self.need(rec, "guid", path, str)))
                    at.append(i)
            except (FabricError, ValueError) as e:
                if isinstance(e, FileFormatError):
                    raise
                raise self.fail(path, str(e)) from None
        if pids:
            f.ports_t.set("guid", np.asarray(pids, np.int64), np.asarray(guids, np.uint64))
        self._check_guids(f, pids, guids, at)

    def _check_guids(self, f: Fabric, pids: list[int], guids: list[int], at: list[int]) -> None:
        """Once every node and port GUID is set (checking each as it came would refuse two
        devices whose port GUIDs cross): no GUID may belong to two devices. The refusal names
        the port record that set it, else the second device record that has it."""
        clash = f.guids.clash()
        if clash is None:
            return
        g, owners = clash
        for k in range(len(pids) - 1, -1, -1):
            if guids[k] == g and int(f.ports_t.guid[pids[k]]) == g:
                others = [d for d in owners if d != int(f.ports_t.device[pids[k]])]
                raise self.fail(f"ports[{at[k]}].guid", f"GUID {format_guid(g)} is already used by "
                                                        f"{f.name_of(others[0])}")
        rec = {d: i for i, d in self.ids.items()}
        users = sorted(rec[d] for d in owners if d in rec)
        where = f"devices[{users[min(1, len(users) - 1)]}].guid" if users else "devices"
        raise self.fail(where, f"GUID {format_guid(g)} is used twice")

    def _cables(self, f: Fabric, recs: list) -> None:
        pa = np.empty(len(recs), np.int64)
        pb = np.empty(len(recs), np.int64)
        lengths = np.empty(len(recs))
        keys = []
        for i, rec in enumerate(recs):
            path = f"cables[{i}]"
            if not isinstance(rec, dict):
                raise self.fail(path, "expected an object")
            for k in rec:
                if k not in ("a", "b", "type", "length_m", "part"):
                    raise self.fail(f"{path}.{k}", "unknown field")
            for side, arr in (("a", pa), ("b", pb)):
                try:
                    arr[i] = f.port_id(self.need(rec, side, path, str))
                except FabricError as e:
                    if isinstance(e, FileFormatError):
                        raise
                    raise self.fail(f"{path}.{side}", str(e)) from None
            ctype = self.need(rec, "type", path, str)
            if ctype not in CABLE_TYPES:
                raise self.fail(f"{path}.type", f"unknown cable type {ctype!r} (use {', '.join(CABLE_TYPES)})")
            lengths[i] = self.number(rec, "length_m", path, what="lengths", lo=0.0, hi=MAX_LENGTH_M)
            part = self.need(rec, "part", path, str)
            if part not in f.catalog:
                raise self.fail(f"{path}.part", f"unknown part {part!r}")
            keys.append((ctype, part))
        start = 0
        while start < len(recs):
            end = start
            while end < len(recs) and keys[end] == keys[start]:
                end += 1
            ctype, part = keys[start]
            try:
                f.add_cables(pa[start:end], pb[start:end], lengths[start:end], ctype=ctype, part=part,
                             emit=False)
            except FabricError:
                for i in range(start, end):   # find which record; the fabric is discarded anyway
                    try:
                        f.add_cables(pa[i:i + 1], pb[i:i + 1], lengths[i:i + 1], ctype=ctype, part=part,
                                     emit=False)
                    except FabricError as e:
                        raise self.fail(f"cables[{i}]", str(e)) from None
                raise
            start = end


def _display_name(rec: dict) -> str:
    if "name" in rec:
        return rec["name"]
    return f"{rec['parent']}/{CHILD_PREFIX[rec['kind']]}{rec['local']}"


def _tname(types: type | tuple) -> str:
    names = {str: "a string", int: "an integer", float: "a number", dict: "an object", list: "a list"}
    ts = types if isinstance(types, tuple) else (types,)
    if set(ts) == {int, float}:
        return "a number"
    return " or ".join(names.get(t, t.__name__) for t in ts)
