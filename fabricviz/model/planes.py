"""Planes: a multi-plane fabric, typed.

A multi-plane NIC (ConnectX-8 SuperNIC) splits its one 800G port into 2 or 4 *planes* of 400G or
200G; each plane is cabled to its own switch fabric, and each plane's fabric is its own InfiniBand
subnet (its own SM, LIDs and LFTs) or its own RoCE fabric. What fabricviz stores, and where:

* **A switch belongs to one plane** (or none). The design says which in ``meta["planes"]``:
  ``[{"name": "plane1", "switches": [NAMES]}, ...]`` in plane order, read typed as
  :class:`PlaneSet` (``fabric.settings.planes``). A design without the key has no planes (one
  fabric, as every design before planes), so old files load unchanged.
* **A split NIC has one port per plane**: a NIC added in the split mode ``"2xXDR*2"`` (rate of one
  plane, ``*``, number of planes; see :func:`parse_split_mode`) has ``ports × planes`` ports, port
  ``j·planes + k + 1`` being plane k of its port j. The catalog says which NICs can split, and
  into how many planes (a NIC part's ``planes``). The native file keeps the mode on the device.
* **A cable and a port take the plane of their switch end** (:func:`cable_planes`,
  :func:`port_planes`): never stored, so they can never disagree with the switches.

:func:`plane_fabric` gives one plane alone as a Fabric of its own: its switches, every server and
the NIC ports cabled into the plane. An engine run on it is that plane's subnet exactly (what an
ibnetdiscover run on that plane would see), so routing, sweeps and exports per plane are the
engines' own, unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import FabricError
from .kinds import ETH_SWITCH, IB_SWITCH, KIND_CODE
from .tech import LinkRate

if TYPE_CHECKING:
    from .fabric import Fabric

PLANES_KEY = "planes"
#: Most planes a NIC port splits into (ConnectX-8: 2 or 4).
MAX_PLANES = 8
_SPLIT_RE = re.compile(r"^([^*\s]+)\*([1-9][0-9]?)$")


def parse_split_mode(text: str) -> tuple[LinkRate, int] | None:
    """``"2xXDR*2"`` → (2xXDR, 2); None when ``text`` is no split mode (a plain rate)."""
    m = _SPLIT_RE.match(text)
    if m is None:
        return None
    n = int(m.group(2))
    if not 2 <= n <= MAX_PLANES:
        raise FabricError(f"a port splits into 2 to {MAX_PLANES} planes")
    return LinkRate.parse(m.group(1)), n


def split_mode(rate: LinkRate | str, planes: int) -> str:
    """The mode text of a NIC port split into ``planes`` planes of ``rate`` each."""
    return f"{rate}*{planes}"


def plane_rate(native: LinkRate, planes: int) -> LinkRate:
    """One plane's rate when a port of rate ``native`` splits into ``planes``: InfiniBand keeps the
    lane speed on fewer lanes (4xXDR → 2 × 2xXDR, 4 × 1xXDR); Ethernet divides the speed."""
    if native.tech == "ib":
        if native.width % planes:
            raise FabricError(f"{native}: {native.width} lanes do not split into {planes} planes")
        return LinkRate("ib", native.speed, native.width // planes)
    return LinkRate.parse(f"{int(native.gbps) // planes}GbE")


@dataclass(frozen=True)
class Plane:
    """One plane: its index (0-based, the order of ``meta["planes"]``), name and switches."""

    index: int
    name: str
    switches: tuple[str, ...]


@dataclass(frozen=True)
class PlaneSet:
    """The planes of a design (empty: a single-plane design)."""

    planes: tuple[Plane, ...] = ()

    def __len__(self) -> int:
        return len(self.planes)

    def __bool__(self) -> bool:
        return bool(self.planes)

    def to_meta(self) -> list[dict[str, Any]]:
        return [{"name": p.name, "switches": list(p.switches)} for p in self.planes]

    def index(self, ref: int | str) -> int:
        """The plane ``ref`` (an index or a name); FabricError naming the planes otherwise."""
        for p in self.planes:
            if ref == p.index or ref == p.name or (isinstance(ref, str) and ref.isdigit() and int(ref) == p.index):
                return p.index
        have = ", ".join(f"{p.index} ({p.name})" for p in self.planes) or "none: the design has one plane"
        raise FabricError(f"plane {ref!r}: no such plane (planes: {have})")


def parse_planes(raw: Any) -> PlaneSet:
    """``meta["planes"]``; None or empty: no planes. A choice of the design, so a malformed entry
    is refused with the path of the bad field."""
    if not raw:
        return PlaneSet()
    if not isinstance(raw, list):
        raise FabricError('meta.planes: expected a list of {"name": NAME, "switches": [NAMES]}')
    out: list[Plane] = []
    seen: set[str] = set()
    owner: dict[str, str] = {}
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
            raise FabricError(f'meta.planes[{i}]: expected {{"name": NAME, "switches": [NAMES]}}')
        sw = item.get("switches")
        if not isinstance(sw, list) or not all(isinstance(s, str) for s in sw):
            raise FabricError(f"meta.planes[{i}].switches: expected a list of switch names")
        if item["name"] in seen:
            raise FabricError(f"meta.planes[{i}].name: plane {item['name']!r} is named twice")
        seen.add(item["name"])
        for s in sw:
            if s in owner:
                raise FabricError(f"meta.planes[{i}].switches: {s!r} is also in plane {owner[s]!r}")
            owner[s] = item["name"]
        out.append(Plane(i, item["name"], tuple(sw)))
    return PlaneSet(tuple(out))


def device_planes(f: Fabric) -> np.ndarray:
    """Plane index per device id (-1: in no plane; every non-switch device is -1)."""
    out = np.full(f.devices_t.n, -1, np.int16)
    for p in f.settings.planes.planes:
        ids = [f.find(s) for s in p.switches]
        out[[i for i in ids if i is not None]] = p.index
    return out


def port_planes(f: Fabric) -> np.ndarray:
    """Plane index per port id: a switch's ports are its plane's; a NIC port takes the plane of the
    switch its cable ends at (-1: no plane, or not cabled to a plane's switch)."""
    dp = device_planes(f)
    pt, ct = f.ports_t, f.cables_t
    out = dp[pt.device].astype(np.int16) if pt.n else np.zeros(0, np.int16)
    cids = ct.live_ids()
    a, b = ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)
    pa, pb = out[a].copy(), out[b].copy()
    out[a] = np.where(pa >= 0, pa, pb)
    out[b] = np.where(pb >= 0, pb, pa)
    return out


def cable_planes(f: Fabric) -> np.ndarray:
    """Plane index per cable id (-1: dead, or joins no plane's switch)."""
    ct = f.cables_t
    out = np.full(ct.n, -1, np.int16)
    cids = ct.live_ids()
    pp = port_planes(f)
    out[cids] = np.maximum(pp[ct.port_a[cids]], pp[ct.port_b[cids]])
    return out


def plane_fabric(f: Fabric, plane: int | str) -> Fabric:
    """Plane ``plane`` alone: a copy of ``f`` without the other planes' switches (and their cables)
    and without ``meta["planes"]``; its NICs keep every port, those of other planes uncabled."""
    ps = f.settings.planes
    k = ps.index(plane)
    dp = device_planes(f)
    t = f.devices_t
    sw = t.alive & np.isin(t.kind, [KIND_CODE[IB_SWITCH], KIND_CODE[ETH_SWITCH]])
    drop = np.flatnonzero(sw & (dp != k))
    out = f.copy()
    out.name = f"{f.name}-{ps.planes[k].name}"
    if len(drop):
        out.removal.remove_devices(drop)
    out.meta.pop(PLANES_KEY, None)
    out.settings.forget(PLANES_KEY)
    return out


__all__ = ["MAX_PLANES", "PLANES_KEY", "Plane", "PlaneSet", "cable_planes", "device_planes", "parse_planes",
           "parse_split_mode", "plane_fabric", "plane_rate", "port_planes", "split_mode"]
