"""``fabricviz info``: what a design holds and how it performs on paper.

Counts per kind and tier, cables by type and length bin, bisection bandwidth,
oversubscription per switch tier and the diameter in switch hops. Tiers come
from the generator (hosts 0, leaves 1, spines 2, cores 3); for hand-made or
imported designs they are inferred: a switch's tier is 1 + its hop distance
from the nearest switch that has hosts.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from scipy.sparse.csgraph import shortest_path

from ..ib.sharp import sharp_mask
from ..ib.tiers import TIER_NAMES, cable_devices, device_tiers, host_mask, switch_graph, switch_mask
from ..model import CABLE_TYPES, KINDS, Fabric, FabricError
from ..model.breakout import cage_keys
from ..model.planes import cable_planes, device_planes
from ..model.tech import format_gbps, rates_gbps

#: Name SHARP aggregation nodes are counted under in a tier (they are NICs in the model).
SHARP_KEY = "sharp aggregation node"
LENGTH_BINS = (1.0, 3.0, 5.0, 10.0, 30.0, 100.0, 500.0)


def ratio_text(down: float, up: float) -> str:
    """``3:1``, ``1:1``, ``1.91:1``; ``-`` when nothing goes up."""
    if up <= 0:
        return "-"
    r = Fraction(down / up).limit_denominator(16)
    if abs(float(r) - down / up) < 1e-9:
        return f"{r.numerator}:{r.denominator}"
    return f"{down / up:.2f}:1"


def fabric_info(fabric: Fabric) -> dict[str, Any]:
    """Everything ``fabricviz info`` prints, as JSON-ready data."""
    t, ct, pt = fabric.devices_t, fabric.cables_t, fabric.ports_t
    tiers = device_tiers(fabric)
    counts = fabric.counts()
    per_tier: dict[str, dict[str, int]] = {}
    an = sharp_mask(fabric)
    for tier in sorted(set(tiers[t.alive].tolist())):
        sel = t.alive & (tiers == tier)
        kinds = np.bincount(t.kind[sel & ~an], minlength=len(KINDS))
        row = {KINDS[k]: int(v) for k, v in enumerate(kinds) if v}
        if (sel & an).any():
            row[SHARP_KEY] = int((sel & an).sum())
        per_tier[TIER_NAMES.get(tier, f"tier {tier}") if tier >= 0 else "unplaced"] = row
    live = np.flatnonzero(ct.alive)
    lengths = ct.length[live].astype(float)
    by_type: dict[str, dict[str, int]] = {}
    for ctype_code in sorted(set(ct.ctype[live].tolist())):
        sel = ct.ctype[live] == ctype_code
        by_type[CABLE_TYPES[ctype_code]] = _length_bins(lengths[sel])
    by_rate: dict[str, int] = {}
    if len(live):
        keys = np.stack([ct.tech[live], ct.speed[live], ct.width[live]], axis=1).astype(np.int64)
        uniq, first, cnt = np.unique(keys, axis=0, return_index=True, return_counts=True)
        for f_idx, n in sorted(zip(first.tolist(), cnt.tolist(), strict=True), key=lambda x: -x[1]):
            by_rate[str(fabric.cable_rate(int(live[f_idx])))] = n
    gbps = _cable_gbps(fabric, live)
    a, b = cable_devices(fabric)
    ta, tb = tiers[a], tiers[b]
    by_tier = cables_by_tier(ta, tb)
    keys = cage_keys(fabric, live, tiers)          # a leaf–spine link rides its leaf cage's cable
    shared, first = np.unique(keys, return_index=True)
    ordered = cables_by_tier(ta[first], tb[first]) if len(shared) < len(live) else None
    cut_caps = {}
    for tier in range(0, int(tiers.max(initial=0))):
        sel = ((ta == tier) & (tb == tier + 1)) | ((tb == tier) & (ta == tier + 1))
        if sel.any():
            cut_caps[tier] = float(gbps[sel].sum())
    bisection = min(cut_caps.values()) / 2 if cut_caps else 0.0
    over: dict[str, str] = {}
    n = t.n
    for tier in range(1, int(tiers.max(initial=0)) + 1):
        # worst switch of the tier: the largest down:up capacity ratio
        dn = (ta == tier) & (tb == tier - 1), (tb == tier) & (ta == tier - 1)
        upm = (ta == tier) & (tb == tier + 1), (tb == tier) & (ta == tier + 1)
        down = np.bincount(a[dn[0]], gbps[dn[0]], n) + np.bincount(b[dn[1]], gbps[dn[1]], n)
        up = np.bincount(a[upm[0]], gbps[upm[0]], n) + np.bincount(b[upm[1]], gbps[upm[1]], n)
        has = up > 0
        if has.any():
            ratio = np.where(has, down / np.where(has, up, 1), -1)
            w = int(np.argmax(ratio))
            over[TIER_NAMES.get(tier, f"tier {tier}")] = ratio_text(float(down[w]), float(up[w]))
    host_ports = int(np.count_nonzero(ct.alive[pt.cable[pt.cable >= 0]] &
                                      host_mask(fabric)[pt.device[pt.cable >= 0]]))
    gen = fabric.settings.generator
    out: dict[str, Any] = {
        "name": fabric.name,
        "generator": gen.name,
        "fabric": gen.fabric,
        "counts": counts,
        "host_ports": host_ports,
        "sharp_nodes": int(an.sum()),        # aggregation nodes: CAs inside switches, not hosts
        "switches": int(switch_mask(fabric).sum()),
        "tiers": per_tier,
        "cables_by_type": by_type,
        "cables_by_rate": by_rate,
        "cables_by_tier": by_tier,
        **({"breakout_cables_by_tier": ordered} if ordered is not None else {}),
        "bisection_gbps": bisection,
        "oversubscription": over,  # worst switch per tier
        "requested_oversubscription": dict(gen.oversubscription),
        "diameter_switch_hops": diameter(fabric, tiers),
    }
    planes = _planes(fabric)
    if planes:                               # a multi-plane design: each plane's switches and cables
        out["planes"] = planes
    return out


def _planes(fabric: Fabric) -> list[dict[str, Any]]:
    """Per plane of ``meta.planes``: its name, switches and cables (empty: no planes, or refused)."""
    try:
        ps = fabric.settings.planes
    except FabricError:
        return []
    if not ps:
        return []
    dp, cp = device_planes(fabric), cable_planes(fabric)
    return [{"name": p.name, "switches": int(np.count_nonzero(dp == p.index)),
             "cables": int(np.count_nonzero(cp == p.index))} for p in ps.planes]


def cables_by_tier(ta: np.ndarray, tb: np.ndarray) -> dict[str, int]:
    """Cables between two tiers, lower tier first (``"hosts-leaf"``, ``"leaf-spine"``,
    ``"spine-core"``), from the tiers of each live cable's two devices (a NIC at its server's)."""
    lo, hi = np.minimum(ta, tb), np.maximum(ta, tb)
    out: dict[str, int] = {}
    for x, y in sorted(set(zip(lo.tolist(), hi.tolist(), strict=True))):
        name = "-".join(TIER_NAMES.get(t, f"tier {t}") if t >= 0 else "unplaced" for t in (x, y))
        out[name] = int(np.count_nonzero((lo == x) & (hi == y)))
    return out


def _length_bins(lengths: np.ndarray) -> dict[str, int]:
    edges = (0.0,) + LENGTH_BINS
    out = {}
    for lo, hi in zip(edges, edges[1:], strict=False):
        n = int(np.count_nonzero((lengths > lo) & (lengths <= hi)))
        if n:
            out[f"{lo:g}-{hi:g} m"] = n
    n = int(np.count_nonzero(lengths > LENGTH_BINS[-1]))
    if n:
        out[f">{LENGTH_BINS[-1]:g} m"] = n
    return out


def _cable_gbps(fabric: Fabric, live: np.ndarray) -> np.ndarray:
    ct = fabric.cables_t
    return rates_gbps(ct.tech[live], ct.speed[live], ct.width[live])


def diameter(fabric: Fabric, tiers: np.ndarray | None = None) -> int:
    """Most switches on a shortest path between two hosts (1 = same leaf)."""
    sw = switch_mask(fabric)
    a, b = cable_devices(fabric)
    host = host_mask(fabric)
    leaves = np.unique(np.concatenate([a[host[b] & sw[a]], b[host[a] & sw[b]]]))
    if len(leaves) == 0:
        return 0
    if len(leaves) == 1:
        return 1
    g = switch_graph(fabric, a, b, sw)
    worst = 0
    for chunk in np.array_split(leaves, max(1, len(leaves) // 256)):
        d = shortest_path(g, unweighted=True, directed=False, indices=chunk)[:, leaves]
        finite = d[np.isfinite(d)]
        if finite.size:
            worst = max(worst, int(finite.max()))
    return worst + 1


def format_info(info: dict[str, Any]) -> str:
    """The human-readable report."""
    lines = [f"{info['name']}" + (f"  ({info['generator']}, {info['fabric']})" if info.get("generator") else "")]
    c = info["counts"]
    lines.append("devices: " + ", ".join(f"{v:,} {k}" for k, v in c.items() if v and k != "cables"))
    lines.append(f"host ports: {info['host_ports']:,}   switches: {info['switches']:,}   cables: {c['cables']:,}"
                 + (f"   SHARP aggregation nodes: {info['sharp_nodes']:,}" if info.get("sharp_nodes") else ""))
    lines.append("tiers:")
    for tier, kinds in info["tiers"].items():
        lines.append(f"  {tier:<9} " + ", ".join(f"{v:,} {k}" for k, v in kinds.items()))
    lines.append("cables by type and length:")
    for ctype, bins in info["cables_by_type"].items():
        lines.append(f"  {ctype:<12} " + ", ".join(f"{v:,} × {k}" for k, v in bins.items()))
    lines.append("cables by tier: " + ", ".join(f"{k} {v:,}" for k, v in info["cables_by_tier"].items()))
    if "breakout_cables_by_tier" in info:        # the links of one broken-out cage share one cable
        lines.append("cables to order by tier (one per broken-out cage): "
                     + ", ".join(f"{k} {v:,}" for k, v in info["breakout_cables_by_tier"].items()))
    lines.append("cables by rate: " + ", ".join(f"{v:,} × {k}" for k, v in info["cables_by_rate"].items()))
    lines.append(f"bisection bandwidth: {format_gbps(info['bisection_gbps'])}")
    if info["oversubscription"]:
        lines.append("oversubscription: " + ", ".join(f"{k} {v}" for k, v in info["oversubscription"].items()))
    lines.append(f"diameter: {info['diameter_switch_hops']} switch hops")
    if info.get("planes"):
        lines.append("planes: " + ", ".join(f"{p['name']} ({p['switches']:,} switches, {p['cables']:,} cables)"
                                            for p in info["planes"]))
    return "\n".join(lines)
