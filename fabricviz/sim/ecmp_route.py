"""ECMP on an Ethernet (RoCE) design, or one plane of a twin-plane one: what ``route`` and ``trace`` say
where no subnet manager routes.

A RoCE switch forwards by its routing table: towards a destination leaf every next hop on a shortest
path is an ECMP member (parallel cables each one), and a flow's 5-tuple hash picks one member per hop
(:mod:`fabricviz.ethernet.ecmp`, the same walk ``simulate`` runs). :func:`ecmp_summary` gives, per
switch tier, the fewest and most members a switch has towards a leaf it does not own;
:func:`ecmp_trace` the path the hash picks for one flow. Run on :func:`~fabricviz.model.planes.
plane_fabric` they are one plane's ECMP (``route --plane K`` / ``trace --plane K``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ib.tiers import TIER_NAMES, device_tiers
from ..model import Fabric, FabricError
from .links import link_table
from .paths import route, switch_graph
from .workloads import Flows


@dataclass(frozen=True)
class EcmpSummary:
    """A design's ECMP: switches, host ports cabled to them, and per tier (min, max) members a switch
    has towards another leaf."""

    switches: int
    host_ports: int
    members: dict[str, tuple[int, int]]

    def lines(self) -> list[str]:
        out = [f"{self.switches} switches, {self.host_ports} host ports, routed by ECMP (equal-cost next hops)"]
        out += [f"ECMP members towards a leaf, {tier}: {lo}" if lo == hi else
                f"ECMP members towards a leaf, {tier}: {lo}..{hi}" for tier, (lo, hi) in self.members.items()]
        return out

    def to_dict(self) -> dict:
        return {"routed_by": "ecmp", "switches": self.switches, "host_ports": self.host_ports,
                "ecmp_members": {k: list(v) for k, v in self.members.items()}}


def ecmp_summary(fabric: Fabric) -> EcmpSummary:
    """ECMP members per switch towards every leaf (a switch with host cables) it is not."""
    links = link_table(fabric)
    g = switch_graph(fabric, links)
    nc = links.n_cable_links
    is_sw = g.index >= 0
    host = links.alive[:nc] & ~is_sw[links.src_dev[:nc]] & is_sw[links.dst_dev[:nc]]
    leaves = np.unique(g.index[links.dst_dev[:nc][host]])
    if not len(leaves):
        raise FabricError(f"{fabric.name}: no host is cabled to a switch: nothing to route")
    dist = g.hops_to(leaves)                                   # (leaves, S)
    has = g.nbr_sw >= 0
    nbr = np.maximum(g.nbr_sw, 0)
    tiers = device_tiers(fabric)[g.devices]
    per_tier: dict[str, list[int]] = {}
    for k in range(len(leaves)):
        d = dist[k]
        ok = (d[nbr] == d[:, None] - 1) & has & (d[:, None] > 0)     # next hops on a shortest path
        n = ok.sum(axis=1)
        away = d > 0
        for tier in np.unique(tiers[away]).tolist():
            sel = away & (tiers == tier)
            name = TIER_NAMES.get(int(tier), f"tier {tier}")
            per_tier.setdefault(name, []).extend([int(n[sel].min()), int(n[sel].max())])
    members = {t: (min(v), max(v)) for t, v in sorted(per_tier.items(), key=lambda kv: _tier_rank(kv[0]))}
    return EcmpSummary(len(g.devices), int(host.sum()), members)


def _tier_rank(name: str) -> int:
    return next((k for k, v in TIER_NAMES.items() if v == name), 99)


def ecmp_trace(fabric: Fabric, src: str, dst: str, seed: int = 0) -> list[str]:
    """The hops the 5-tuple hash picks from ``src`` to ``dst`` (NIC, GPU or server names), one line a hop."""
    ends = []
    for name in (src, dst):
        d = fabric.find(name)
        if d is None:
            raise FabricError(f"no device named {name!r}")
        ends.append(d)
    links = link_table(fabric)
    r = route(fabric, links, Flows(np.array([ends[0]]), np.array([ends[1]])), "ecmp", seed=seed)
    if not r.n_paths:
        raise FabricError(f"no ECMP path from {src} to {dst}")
    out = []
    for k, link in enumerate(r.path(0).tolist()):
        a, b = links.name(fabric, int(link))
        out.append(f"{k + 1:>3}  {a} -> {b}")
    return out


__all__ = ["EcmpSummary", "ecmp_summary", "ecmp_trace"]
