"""Multi-plane fabrics: one switch fabric per plane, every NIC port split across the planes.

:func:`planarize` takes a single-plane design built at one plane's rate (a generator's output) and
builds its multi-plane twin: the same servers with each NIC port split into ``planes`` ports (the
NIC's split mode, :mod:`fabricviz.model.planes`), and ``planes`` copies of the switch fabric,
plane k's switches named ``<name>-p<k+1>``. Plane k of every NIC port goes to plane k's copy of the
switch port it was cabled to, so each plane is the single-plane design exactly (same ports, same
cable lengths) and is its own subnet: one SM, LIDs and LFTs per plane. The planes are recorded in
``meta["planes"]``; the generator's record gains ``params.planes``. A switch group of the generator's
(a scalable unit) holds its switches of every plane, plane 1's first: the planes are layers of one
design (the canvas's plane layers colour or veil each), so an SU stays one box with its servers
under all its leaves — a group per plane put every server in plane 1's box, across plane 2's. The
twin is laid out again (:mod:`.autolayout`): plane k's switches after plane k-1's in each row.
"""

from __future__ import annotations

import numpy as np

from ..model import Fabric, FabricError
from ..model.fabric import ETH_SWITCH, IB_SWITCH, KIND_CODE, NIC, SERVER
from ..model.planes import PLANES_KEY, Plane, PlaneSet, split_mode
from .autolayout import apply_auto_layout
from .common import finish


def plane_name(k: int) -> str:
    return f"plane{k + 1}"


def plane_switch_name(name: str, k: int) -> str:
    return f"{name}-p{k + 1}"


def planarize(one: Fabric, planes: int) -> Fabric:
    """The ``planes``-plane twin of the single-plane design ``one`` (module doc)."""
    if planes == 1:
        return one
    t = one.devices_t
    f = Fabric(one.catalog, name=one.name)
    nic_code, srv_code = KIND_CODE[NIC], KIND_CODE[SERVER]
    sw_mask = t.alive & np.isin(t.kind, [KIND_CODE[IB_SWITCH], KIND_CODE[ETH_SWITCH]])
    port_map = np.full((planes, one.ports_t.n), -1, np.int64)
    servers = np.flatnonzero(t.alive & (t.kind == srv_code))
    # servers, in runs of one part and NIC rate (one bulk call each)
    runs: dict[tuple[int, str], list[int]] = {}
    for s in servers.tolist():
        kids = one.children_ids(s)
        nics = kids[t.kind[kids] == nic_code]
        if not len(nics):
            raise FabricError(f"{one.name_of(s)}: a server without a NIC cannot be split into planes")
        runs.setdefault((int(t.part[s]), str(one.port_rate(int(t.first_port[nics[0]])))), []).append(s)
    for (part_code, nic_rate), ids in runs.items():
        sids = np.asarray(ids, np.int64)
        new = f.add_servers(one.parts.id_of(part_code) or "", [one.name_of(i) for i in ids], t.x[sids],
                            t.y[sids],
                            mode=split_mode(nic_rate, planes), tier=int(t.tier[sids[0]]), emit=False)
        for old_s, new_s in zip(sids.tolist(), new.tolist(), strict=True):
            old_k, new_k = one.children_ids(old_s), f.children_ids(new_s)
            for o, n in zip(old_k.tolist(), new_k.tolist(), strict=True):
                if t.kind[o] != nic_code:
                    continue
                for j in range(int(t.nports[o])):
                    for k in range(planes):
                        port_map[k, int(t.first_port[o]) + j] = int(f.devices_t.first_port[n]) + j * planes + k
    sws = np.flatnonzero(sw_mask)
    plane_list = []
    for k in range(planes):
        names = [plane_switch_name(one.name_of(s), k) for s in sws.tolist()]
        for sw, nm in zip(sws.tolist(), names, strict=True):
            sw_part = one.part_of(sw)
            assert sw_part is not None
            rate = one.port_rate(int(t.first_port[sw])) if t.nports[sw] else None
            mode = str(rate) if rate is not None and rate != sw_part.modes[0] else None
            d = int(f.add_devices(sw_part.kind, 1, sw_part.id, [nm], float(t.x[sw]),
                                  float(t.y[sw]), tier=int(t.tier[sw]), mode=mode, emit=False)[0])
            n, p0 = int(t.nports[sw]), int(t.first_port[sw])
            port_map[k, p0:p0 + n] = int(f.devices_t.first_port[d]) + np.arange(n)
        plane_list.append(Plane(k, plane_name(k), tuple(names)))
    ct = one.cables_t
    cids = ct.live_ids()
    a, b = ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)
    for k in range(planes):
        pa, pb = port_map[k, a], port_map[k, b]
        if (pa < 0).any() or (pb < 0).any():
            raise FabricError(f"{one.name}: a cable ends at a device that is neither a server's NIC nor a switch")
        f.add_cables(pa, pb, ct.length[cids].astype(np.float64), emit=False)
    meta = dict(one.meta)
    meta["params"] = {**one.settings.generator.params, "planes": planes}
    groups = one.settings.groups
    if groups:
        meta["groups"] = [{"name": g.name, "switches": [plane_switch_name(s, k) for k in range(planes)
                                                        for s in g.switches]} for g in groups]
    meta[PLANES_KEY] = PlaneSet(tuple(plane_list)).to_meta()
    f.meta = meta
    return finish(apply_auto_layout(f))


__all__ = ["planarize", "plane_name", "plane_switch_name"]
