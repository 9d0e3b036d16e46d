"""The native fabricviz design file (JSON, versioned; see docs/file-format.md).

Output is deterministic: records in id order, one device or cable per line,
keys in a fixed order, so designs diff well in git. Loading checks everything
and reports the first problem as ``file: path.to.field: message``; nothing is
half-loaded. Saving is atomic: a temporary file in the same folder, flushed
and fsynced, then renamed over the target, so a failed save leaves the
previous file intact.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from ..model import CABLE_TYPES, KINDS, PORT_STATES, Catalog, Fabric, FabricError, LinkRate
from ..model.fabric import KIND_CODE, NIC
from ..model.guid import format_guid
from ..model.inputs import MAX_INPUT_BYTES, read_input
from ..model.planes import split_mode

# FileFormatError and one_line are also imported from here by other readers and loaders.py
from .limits import FileFormatError, one_line, parse_json, strip_bom
from .native_bulk import load_columns
from .native_records import FORMAT, VERSION, RecordLoader, all_names

SUFFIX = ".fabric.json"


# ---------------------------------------------------------------------------- saving
def fabric_to_dict(fabric: Fabric) -> dict[str, Any]:
    """The whole design as plain JSON data (records in id order)."""
    t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
    ids = fabric.device_ids()
    names = all_names(fabric)
    part_ids = fabric.parts.ids
    xs = np.round(t.x.astype(np.float64), 3).tolist()
    ys = np.round(t.y.astype(np.float64), 3).tolist()
    kinds, parts, parents = t.kind.tolist(), t.part.tolist(), t.parent.tolist()
    tiers, bound, locs = t.tier.tolist(), t.bound.tolist(), t.local.tolist()
    guids, nports, first = t.guid.tolist(), t.nports.tolist(), t.first_port.tolist()
    own = fabric.names.own
    devices: list[dict[str, Any]] = []
    for d in ids.tolist():
        rec: dict[str, Any] = {}
        if parents[d] >= 0:
            rec["parent"] = names[parents[d]]
            rec["local"] = locs[d]
            if own[d] is not None:
                rec["name"] = own[d]
        else:
            rec["name"] = own[d]
        rec["kind"] = KINDS[kinds[d]]
        if parts[d] >= 0:
            rec["part"] = part_ids[parts[d]]
        if nports[d]:
            r0 = fabric.port_rate(first[d])
            part = fabric.catalog.get(part_ids[parts[d]])
            if nports[d] != part.ports:         # a NIC split into planes (model.planes)
                assert r0 is not None                 # a NIC's ports have a rate
                rec["mode"] = split_mode(r0, nports[d] // part.ports)
            elif r0 != part.modes[0]:
                rec["mode"] = str(r0)
        rec["tier"] = tiers[d]
        rec["x"] = _num(xs[d])
        rec["y"] = _num(ys[d])
        if guids[d]:
            rec["guid"] = format_guid(guids[d])
        if bound[d] >= 0:
            rec["nic"] = names[bound[d]]
        devices.append(rec)
    ports = [_port_overrides(fabric, int(p)) for p in _ports_with_overrides(fabric)]
    live = fabric.cable_ids()
    pa, pb = ct.port_a[live].tolist(), ct.port_b[live].tolist()
    pdev, pnum = pt.device.tolist(), pt.num.tolist()
    ctypes, lens = ct.ctype[live].tolist(), np.round(ct.length[live].astype(np.float64), 3).tolist()
    cparts = ct.part[live].tolist()
    cables = [{"a": f"{names[pdev[a]]}:{pnum[a]}", "b": f"{names[pdev[b]]}:{pnum[b]}",
               "type": CABLE_TYPES[ty], "length_m": _num(ln), "part": part_ids[cp]}
              for a, b, ty, ln, cp in zip(pa, pb, ctypes, lens, cparts, strict=True)]
    return {
        "format": FORMAT, "version": VERSION, "name": fabric.name, "meta": fabric.meta,
        "parts": [p.to_dict() for p in sorted(fabric.catalog.user_parts(), key=lambda p: p.id)],
        "devices": devices, "ports": ports, "cables": cables,
    }


def _ports_with_overrides(fabric: Fabric) -> np.ndarray:
    """Ports whose rate differs from their device's first port, disabled ones, odd GUIDs."""
    t, pt = fabric.devices_t, fabric.ports_t
    if pt.n == 0:
        return np.zeros(0, np.int64)
    dev = pt.device.astype(np.int64)
    first = t.first_port[dev]
    alive = t.alive[dev]
    rate_diff = ((pt.tech != pt.tech[first]) | (pt.speed != pt.speed[first])
                 | (pt.width != pt.width[first]))
    disabled = pt.state == PORT_STATES.index("disabled")
    is_nic = t.kind[dev] == KIND_CODE[NIC]
    node = t.guid[dev]
    derived = np.where(is_nic & (node != 0), node + (pt.num.astype(np.uint64)), np.uint64(0))
    return np.flatnonzero(alive & (rate_diff | disabled | (pt.guid != derived)))


def _port_overrides(fabric: Fabric, p: int) -> dict[str, Any]:
    pt = fabric.ports_t
    d = int(pt.device[p])
    first = int(fabric.devices_t.first_port[d])
    rec: dict[str, Any] = {"port": fabric.port_name(p)}
    if fabric.port_rate(p) != fabric.port_rate(first):
        rec["rate"] = str(fabric.port_rate(p))
    if PORT_STATES[pt.state[p]] == "disabled":
        rec["state"] = "disabled"
    dev = fabric.device(d)
    derived = dev.guid + int(pt.num[p]) if (dev.kind == NIC and dev.guid) else 0
    if int(pt.guid[p]) != derived:
        rec["guid"] = format_guid(int(pt.guid[p]))
    return rec


def _num(v: Any) -> float | int:
    """Round float32 storage to what the user typed (3 decimals); ints stay ints."""
    x = round(float(v), 3)
    return int(x) if x == int(x) else x


def dumps(fabric: Fabric) -> str:
    """Deterministic text: the header pretty-printed, one record per line."""
    data = fabric_to_dict(fabric)
    enc = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))
    out = ["{"]
    head = ["format", "version", "name"]
    for k in head:
        out.append(f'  "{k}": {enc.encode(data[k])},')
    out.append(f'  "meta": {json.dumps(data["meta"], sort_keys=True, ensure_ascii=False)},')
    for key in ("parts", "devices", "ports", "cables"):
        rows = data[key]
        last = key == "cables"
        if not rows:
            out.append(f'  "{key}": []' + ("" if last else ","))
            continue
        out.append(f'  "{key}": [')
        for i, r in enumerate(rows):
            text = json.dumps(r, sort_keys=(key == "parts"), ensure_ascii=False, separators=(", ", ": "))
            out.append("    " + text + ("," if i < len(rows) - 1 else ""))
        out.append("  ]" + ("" if last else ","))
    out.append("}")
    return "\n".join(out) + "\n"


def save_fabric(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    """Write atomically (see :mod:`fabricviz.model.atomic`): the old or the new whole file.

    A design that cannot be written (a position or length that is not a finite number)
    is refused with a FabricError naming the device or cable; nothing is written then."""
    check_writable(fabric, path)
    save_text_atomic(dumps(fabric), path)


def check_writable(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    """FabricError ``PATH: cannot save: DEVICE: x is inf`` for the first device position or
    cable length that is not a finite number (no file format can hold one)."""
    t, ct = fabric.devices_t, fabric.cables_t
    ids = fabric.device_ids()
    for axis in ("x", "y"):
        vals = getattr(t, axis)[ids]
        bad = np.flatnonzero(~np.isfinite(vals))
        if bad.size:
            d = int(ids[bad[0]])
            raise FabricError(f"{path}: cannot save: {fabric.name_of(d)}: {axis} is "
                              f"{float(vals[bad[0]])} (positions must be finite numbers)")
    live = fabric.cable_ids()
    lens = ct.length[live]
    bad = np.flatnonzero(~np.isfinite(lens))
    if bad.size:
        c = int(live[bad[0]])
        a, b = int(ct.port_a[c]), int(ct.port_b[c])
        raise FabricError(f"{path}: cannot save: cable {fabric.port_name(a)} - {fabric.port_name(b)}: "
                          f"length_m is {float(lens[bad[0]])} (lengths must be finite numbers)")


def save_text_atomic(text: str, path: str | os.PathLike[str]) -> None:
    """Replace ``path`` with ``text`` atomically; see :func:`fabricviz.model.atomic.write_atomic`."""
    from ..model.atomic import write_atomic
    write_atomic(path, text)


# ---------------------------------------------------------------------------- loading
def load_fabric(path: str | os.PathLike[str], catalog: Catalog | None = None) -> Fabric:
    """Read a native design file; FileFormatError ``file: field: why`` on the first problem."""
    path = Path(path)
    try:
        text = read_input(path, MAX_INPUT_BYTES, "a design file", FileFormatError).decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileFormatError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    return loads(text, str(path), catalog)


def loads(text: str, where: str = "<string>", catalog: Catalog | None = None) -> Fabric:
    """Read a design from its text: by columns when the reader of :mod:`.native_bulk` vouches
    for it, else record by record (which names the first problem)."""
    try:
        data = json.loads(strip_bom(text))
    except Exception:        # not JSON (or too deep for json): parse_json below says how, with the line
        pass
    else:
        f = load_columns(data, where, catalog)
        if f is not None:
            return f
    return RecordLoader(where, catalog).load(parse_json(text, where))


def fabric_from_dict(data: Any, where: str = "<data>", catalog: Catalog | None = None) -> Fabric:
    """A design from parsed native data (by columns when it can, see :func:`loads`)."""
    f = load_columns(data, where, catalog)
    return f if f is not None else RecordLoader(where, catalog).load(data)


__all__ = ["load_fabric", "save_fabric", "loads", "dumps", "fabric_to_dict", "fabric_from_dict",
           "FileFormatError", "FORMAT", "VERSION", "LinkRate", "all_names", "one_line"]
