"""Copy and paste of devices as plain data (the clipboard format ``fabricviz-clip``).

:func:`copy_devices` turns selected devices (a server with its GPUs and NICs) and the
cables among them into JSON-able data; :func:`paste_devices` adds such data to a fabric
under free names, shifted, all or nothing; :func:`check_clip` refuses data another
program put on the clipboard that is not this format. No Qt: the GUI's editor puts the
data on the system clipboard.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import FabricError
from .fabric import KINDS, Fabric


def top_level(f: Fabric, ids: list[int]) -> list[int]:
    t = f.devices_t
    out = {int(t.parent[d]) if t.parent[d] >= 0 else int(d) for d in ids if f.devices_t.exists(int(d))}
    return sorted(out)


def copy_devices(f: Fabric, device_ids: list[int]) -> dict[str, Any] | None:
    """Plain data for the devices and the cables among them (children included with servers)."""
    tops = top_level(f, device_ids)
    if not tops:
        return None
    t, pt, ct = f.devices_t, f.ports_t, f.cables_t
    index = {d: i for i, d in enumerate(tops)}
    devices = []
    for d in tops:
        kind = KINDS[int(t.kind[d])]
        rec = {"kind": kind, "part": f.part_id_of(d), "name": f.name_of(d), "x": float(t.x[d]),
               "y": float(t.y[d]), "tier": int(t.tier[d]), "mode": None}
        first_port_dev = d
        if kind == "server":
            nics = [int(k) for k in f.children_ids(d) if KINDS[int(t.kind[k])] == "nic"]
            first_port_dev = nics[0] if nics else -1
        if first_port_dev >= 0 and int(t.nports[first_port_dev]):
            part = f.part_of(first_port_dev)
            rate = f.port_rate(int(t.first_port[first_port_dev]))
            if part is not None and part.modes and rate != part.modes[0]:
                rec["mode"] = str(rate)
        devices.append(rec)

    def ref(p: int) -> list[int] | None:
        d = int(pt.device[p])
        top = int(t.parent[d]) if t.parent[d] >= 0 else d
        if top not in index:
            return None
        return [index[top], int(t.local[d]) if d != top else -1, int(pt.num[p])]

    owned = np.flatnonzero(t.alive & (np.isin(np.arange(t.n), tops) | np.isin(t.parent, tops)))
    ports = np.flatnonzero(np.isin(pt.device, owned) & (pt.cable >= 0))
    cables = []
    for c in np.unique(pt.cable[ports]).tolist():
        a, b = ref(int(ct.port_a[c])), ref(int(ct.port_b[c]))
        if a is not None and b is not None:
            cab = f.cable(c)
            cables.append({"a": a, "b": b, "length": cab.length_m, "part": cab.part_id})
    return {"format": "fabricviz-clip", "devices": devices, "cables": cables}


def free_name(f: Fabric, base: str, taken: set[str]) -> str:
    n = 2
    stem = base
    head, sep, tail = base.rpartition("-")
    if sep and tail.isdigit():
        stem, n = head, int(tail) + 1
    while True:
        name = f"{stem}-{n}"
        if f.find(name) is None and name not in taken:
            taken.add(name)
            return name
        n += 1


def check_clip(data: dict[str, Any]) -> None:
    """Refuse clipboard data (possibly from another program) that is not what copy_devices writes."""
    devices, cables = data.get("devices"), data.get("cables", [])
    if not isinstance(devices, list) or not isinstance(cables, list):
        raise FabricError("paste: the clipboard holds no device list")
    num = (int, float)
    for i, rec in enumerate(devices):
        where = f"paste: device {i + 1}"
        if not isinstance(rec, dict):
            raise FabricError(f"{where}: not a record")
        for key, types, need in (("kind", str, True), ("name", str, True), ("part", (str, type(None)), False),
                                 ("x", num, True), ("y", num, True), ("tier", int, False),
                                 ("mode", (str, type(None)), False)):
            if (need and key not in rec) or (key in rec and (not isinstance(rec[key], types)
                                                               or isinstance(rec[key], bool))):
                raise FabricError(f"{where}: {key!r} is missing or of the wrong type")
    for i, rec in enumerate(cables):
        where = f"paste: cable {i + 1}"
        ok = isinstance(rec, dict) and isinstance(rec.get("length"), num) and isinstance(rec.get("part"), str)
        for end in ("a", "b"):
            ref = rec.get(end) if isinstance(rec, dict) else None
            ok = ok and isinstance(ref, list) and len(ref) == 3 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in ref) and 0 <= ref[0] < len(devices)
        if not ok:
            raise FabricError(f"{where}: not a cable between copied devices")


def clip_center(data: dict[str, Any]) -> tuple[float, float]:
    """The centre of the copied devices' positions (where a paste at a point puts it)."""
    xs = [float(r["x"]) for r in data["devices"]]
    ys = [float(r["y"]) for r in data["devices"]]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def paste_devices(f: Fabric, data: dict[str, Any], offset: float | tuple[float, float]) -> tuple[list[int], list[int]]:
    """Add the clipboard's devices and cables to ``f`` shifted by ``offset`` (dx, dy or one
    number for both); on a refusal nothing stays added."""
    dx, dy = (offset, offset) if isinstance(offset, (int, float)) else offset
    check_clip(data)
    made: list[int] = []
    taken: set[str] = set()
    t = f.devices_t

    def port(ref: list[int]) -> int:
        top, local, num = made[ref[0]], ref[1], ref[2]
        if local < 0:
            return f.port_id(top, num)
        kids = [int(k) for k in f.children_ids(top)
                if KINDS[int(t.kind[k])] == "nic" and int(t.local[k]) == local]
        if not kids:
            raise FabricError(f"{f.name_of(top)} has no NIC {local}")
        return f.port_id(kids[0], num)

    try:
        with f.removal.adding():
            for rec in data["devices"]:
                name = free_name(f, rec["name"], taken)
                x, y = rec["x"] + dx, rec["y"] + dy
                if rec["kind"] == "server":
                    made.append(int(f.add_servers(rec.get("part") or "", [name], [x], [y],
                                                  mode=rec.get("mode"), tier=rec.get("tier", 0))[0]))
                else:
                    made.append(f.add_device(rec["kind"], rec.get("part"), name=name, x=x, y=y,
                                             tier=rec.get("tier", -1), mode=rec.get("mode")))
            cables = [f.add_cable(port(rec["a"]), port(rec["b"]), rec["length"], part=rec["part"])
                      for rec in data.get("cables", [])]
    except FabricError as exc:
        raise FabricError(f"paste: {exc}") from None
    return made, cables


__all__ = ["check_clip", "clip_center", "copy_devices", "free_name", "paste_devices", "top_level"]
