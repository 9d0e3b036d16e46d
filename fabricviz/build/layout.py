"""Layouts: auto (pods in a grid filling a screen, :mod:`.autolayout`), tiered (one row per
tier, for small teaching designs), force-directed for irregular designs.

All return ``(ids, xs, ys)`` for every live device (GPUs and NICs keep their
offset from their server), ready for ``Fabric.set_positions`` (the GUI wraps it
in one undo command). Only top-level devices are placed; a server stands for
its NICs' cables.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from ..model import Fabric
from ..model.fabric import KIND_CODE, SERVER
from .autolayout import auto_layout
from .autolayout import with_children as _with_children
from .common import HOST_PITCH, TIER_GAP


def _top_graph(f: Fabric) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-level device ids and the (u, v) top-level ends of every cable."""
    t, pt, ct = f.devices_t, f.ports_t, f.cables_t
    alive = t.alive
    top_of = np.where(t.parent >= 0, t.parent, np.arange(t.n))
    tops = np.flatnonzero(alive & (t.parent < 0))
    cids = f.cable_ids()
    u = top_of[pt.device[ct.port_a[cids]]]
    v = top_of[pt.device[ct.port_b[cids]]]
    return tops, u, v


def tiers(f: Fabric) -> dict[int, int]:
    """Tier of every top-level device: servers 0; a switch's tier is its hop distance
    from the nearest server (leaf 1, spine 2, core 3); unconnected switches go on tier 1."""
    tops, u, v = _top_graph(f)
    g = nx.Graph()
    g.add_nodes_from(tops.tolist())
    g.add_edges_from(zip(u.tolist(), v.tolist()))
    servers = [int(d) for d in tops if f.devices_t.kind[d] == KIND_CODE[SERVER]]
    out = {int(d): 1 for d in tops}
    if servers:
        dist = nx.multi_source_dijkstra_path_length(g, servers)
        out.update({int(d): int(k) for d, k in dist.items()})
    for d in servers:
        out[d] = 0
    return out


def tiered_layout(f: Fabric, pitch: float = HOST_PITCH, gap: float = TIER_GAP
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Servers in a row at y=0, each tier above the one below, ordered so a switch sits
    over the mean position of what it connects to below (one barycentre sweep up)."""
    tops, u, v = _top_graph(f)
    tier = tiers(f)
    t = f.devices_t
    xs = np.zeros(len(tops))
    ys = np.zeros(len(tops))
    index = {int(d): i for i, d in enumerate(tops)}
    by_tier: dict[int, list[int]] = {}
    for d in tops.tolist():
        by_tier.setdefault(tier[d], []).append(d)
    neighbours: dict[int, list[int]] = {}
    for a, b in zip(u.tolist(), v.tolist()):
        neighbours.setdefault(a, []).append(b)
        neighbours.setdefault(b, []).append(a)
    width = 0.0
    for level in sorted(by_tier):
        members = by_tier[level]
        if level == min(by_tier):
            members.sort(key=lambda d: (float(t.x[d]), d))
            step = [max(pitch, _width(f, d) + 8.0) for d in members]
            pos = np.concatenate([[0.0], np.cumsum(step)[:-1]]) + np.array(step) / 2
        else:
            bary = []
            for d in members:
                below = [xs[index[n]] for n in neighbours.get(d, []) if tier.get(n, 99) < level]
                bary.append(float(np.mean(below)) if below else float("inf"))
            order = np.argsort(np.array(bary), kind="stable")
            members = [members[i] for i in order]
            n = len(members)
            span = max(width, n * 140.0)
            pos = np.linspace(0, span, n) if n > 1 else np.array([width / 2])
            pos = pos + (width - span) / 2 if span > width else pos
        for d, x in zip(members, pos):
            xs[index[d]] = x
            ys[index[d]] = -gap * level
        if level == min(by_tier) and len(pos):
            width = float(pos[-1])
    return _with_children(f, tops, xs, ys)


def _width(f: Fabric, d: int) -> float:
    t = f.devices_t
    if t.kind[d] == KIND_CODE[SERVER]:
        kids = f.children_ids(d)
        return float(np.ptp(t.x[kids]) + 26.0) if len(kids) else 30.0
    return float(min(max(int(t.nports[d]) * 1.5, 48.0), 120.0))


def force_layout(f: Fabric, seed: int = 0, scale: float | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A spring layout (networkx) of the top-level devices, sized to their number."""
    tops, u, v = _top_graph(f)
    g = nx.Graph()
    g.add_nodes_from(tops.tolist())
    g.add_edges_from(zip(u.tolist(), v.tolist()))
    if scale is None:
        scale = 120.0 * max(np.sqrt(len(tops)), 1.0)
    if len(tops) == 0:
        return _with_children(f, tops, np.zeros(0), np.zeros(0))
    pos = nx.spring_layout(g, seed=seed, scale=scale, iterations=60 if len(tops) < 3000 else 25)
    xs = np.array([pos[int(d)][0] for d in tops])
    ys = np.array([pos[int(d)][1] for d in tops])
    return _with_children(f, tops, np.round(xs / 10) * 10, np.round(ys / 10) * 10)


__all__ = ["auto_layout", "force_layout", "tiered_layout", "tiers"]
