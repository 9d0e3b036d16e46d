"""What an admin reads after routing: port loads, summary numbers, warnings."""

from __future__ import annotations

from typing import Any

import numpy as np

from .routing import Routing
from .tiers import TIER_NAMES, device_tiers


def port_loads(routing: Routing) -> np.ndarray:
    """[S, P+1] number of CA destination LIDs each switch routes out of each port: one compiled
    pass over every (switch, CA LID) entry of the LFTs (:func:`.kernels.count_port_loads`), no
    copy of them (a dense [S, LIDs] int64 one would take gigabytes at the IB maximum: 3,920
    switches × 47,825 LIDs)."""
    from .kernels import count_port_loads  # numba on use
    sn, lids, lft = routing.subnet, routing.lids, routing.lft
    S, P1 = sn.num_switches, sn.nbr_dev.shape[1]
    dl = []
    for off in range(lids.lids_per_ca_port):
        dl.append(lids.ca_lid[lids.ca_lid > 0] + off)
    d = np.concatenate(dl).astype(np.int64) if dl else np.zeros(0, np.int64)
    d = d[d < lft.shape[1]]                          # a LID past the LFT has no entry: routed nowhere
    if not len(d) or not S:
        return np.zeros((S, P1), np.int64)
    # one column past the ports: NO_PATH (255) and any entry past them, not counted
    return count_port_loads(lft, d, P1 + 1)[:, :P1].copy()


def uplink_balance(routing: Routing) -> dict[str, Any]:
    """Routes per up-port (toward a higher tier), as min/max per tier, and the worst switch.

    Tiers come from the design (leaf 1, spine 2, …) or, when unknown, from the
    distance to the nearest switch with CAs. A switch is unbalanced when its
    up-ports' loads differ by more than one route.
    """
    sn = routing.subnet
    loads = port_loads(routing)
    t = sn.fabric.devices_t
    tier = t.tier[sn.switches].astype(np.int64)
    if (tier < 1).any():
        tier = device_tiers(sn.fabric)[sn.switches]
    per_tier: dict[str, list[int]] = {}
    worst = None
    for s in range(sn.num_switches):
        nbr = sn.nbr_sw[s]
        up = [p for p in range(1, int(sn.sw_nports[s]) + 1) if nbr[p] >= 0 and tier[nbr[p]] > tier[s]]
        if not up:
            continue
        vals = loads[s, up]
        lo, hi = int(vals.min()), int(vals.max())
        name = TIER_NAMES.get(int(tier[s]), f"tier {int(tier[s])}")
        rng = per_tier.setdefault(name, [lo, hi])
        rng[0], rng[1] = min(rng[0], lo), max(rng[1], hi)
        if worst is None or hi - lo > worst[1] - worst[0]:
            worst = (lo, hi, sn.switch_name(s))
    if worst is None:
        return {"per_tier": {}, "worst_switch": None, "balanced": True}
    return {"per_tier": per_tier, "worst_switch": worst[2], "worst_min": worst[0], "worst_max": worst[1],
            "balanced": worst[1] - worst[0] <= 1}


def summary(routing: Routing) -> dict[str, Any]:
    """The JSON object of ``fabricviz route --json``."""
    sn, lids = routing.subnet, routing.lids
    bal = uplink_balance(routing)
    warnings = list(routing.warnings)
    if not bal["balanced"]:
        warnings.append(f"unbalanced up-port loads: {bal['worst_switch']} routes between "
                        f"{bal['worst_min']} and {bal['worst_max']} LIDs per up-port")
    return {
        "engine": routing.engine,
        "routed_by": routing.routed_by,
        "fallback_reason": routing.fallback_reason,
        "switches": int(sn.num_switches),
        "ca_ports": int(len(sn.ca_ports)),
        "lids": lids.count(),
        "max_lid": int(lids.max_lid),
        "lmc": lids.lmc,
        "sm": (f"{sn.fabric.name_of(sn.sm_node)}:0" if sn.sm_node in sn.sw_index
               else sn.fabric.port_name(sn.sm_port)),
        "route_seconds": round(routing.route_seconds, 6),
        "uplink_routes": bal["per_tier"],
        "warnings": warnings,
        **({"roots": routing.info.roots} if routing.info.roots is not None else {}),
        **_layering(routing),
    }


def _layering(routing: Routing) -> dict[str, Any]:
    """dfsssp/lash: the VLs (layers) the engine used and the routed paths per SL."""
    info = routing.info
    psl = info.path_sl
    if psl is None:
        return {}
    out: dict[str, Any] = {"vls_used": int(info.vls_used if info.vls_used is not None else psl.vls_needed),
                           "path_sl": {str(sl): n for sl, n in sorted(psl.counts().items())}}
    if info.vls_avail is not None:
        out["vls_avail"] = int(info.vls_avail)
    if info.paths_per_vl is not None:
        out["paths_per_vl"] = [int(x) for x in info.paths_per_vl]
    if info.vl_split is not None:
        out["vl_split"] = [int(x) for x in info.vl_split]
    return out


def cable_loads(routing: Routing) -> tuple[np.ndarray, np.ndarray]:
    """(cable ids, routes) for every cable on a switch port: how many CA destination LIDs
    the LFTs send out through it (the busier direction when both ends are switches)."""
    sn = routing.subnet
    f = sn.fabric
    loads = port_loads(routing)
    dev = np.asarray(sn.switches, np.int64)
    first = f.devices_t.first_port[dev].astype(np.int64)
    P1 = loads.shape[1]
    nums = np.arange(1, P1)
    valid = nums[None, :] <= sn.sw_nports.astype(np.int64)[:, None]
    pids = first[:, None] + nums[None, :] - 1
    cab = np.where(valid, f.ports_t.cable[np.where(valid, pids, 0)], -1).astype(np.int64)
    ok = cab >= 0
    cables = np.unique(cab[ok])
    vals = np.zeros(len(cables), np.int64)
    np.maximum.at(vals, np.searchsorted(cables, cab[ok]), loads[:, 1:][ok])
    return cables, vals
