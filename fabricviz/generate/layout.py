"""Layouts: auto (pods in a grid filling a screen, :mod:`.autolayout`), tiered (one row per
tier, for small teaching designs), force-directed for irregular designs.

All return ``(ids, xs, ys)`` for every live device (GPUs and NICs keep their
offset from their server), ready for ``Fabric.set_positions`` (the GUI wraps it
in one undo command). Only top-level devices are placed; a server stands for
its NICs' cables.
"""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx
import numpy as np

from ..model import Fabric
from ..model.fabric import KIND_CODE, SERVER
from .autolayout import auto_layout
from .autolayout import with_children as _with_children
from .common import HOST_PITCH, TIER_GAP
from .geometry import device_rects
from .groups import cable_tops


def _top_graph(f: Fabric) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top-level device ids and the (u, v) top-level ends of every cable (:func:`cable_tops`)."""
    t = f.devices_t
    _, u, v = cable_tops(f)
    return np.flatnonzero(t.alive & (t.parent < 0)), u, v


def tiers(f: Fabric) -> dict[int, int]:
    """Tier of every top-level device: servers 0; a switch's tier is its hop distance
    from the nearest server (leaf 1, spine 2, core 3); unconnected switches go on tier 1."""
    tops, u, v = _top_graph(f)
    g: nx.Graph = nx.Graph()
    g.add_nodes_from(tops.tolist())
    g.add_edges_from(zip(u.tolist(), v.tolist(), strict=True))
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
    for a, b in zip(u.tolist(), v.tolist(), strict=True):
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
        for d, x in zip(members, pos, strict=True):
            xs[index[d]] = x
            ys[index[d]] = -gap * level
        if level == min(by_tier) and len(pos):
            width = float(pos[-1])
    return _with_children(f, tops, xs, ys)


def _width(f: Fabric, d: int) -> float:
    """Drawn width of top-level device ``d`` (:func:`device_rects`)."""
    r = device_rects(f, np.array([d], np.int64))
    return float(r[2, 0] - r[0, 0])


#: Spring-layout iterations run between two progress reports on a big design (networkx has no
#: callback: the layout runs in chunks, each continuing from the last one's positions).
FORCE_CHUNK = 10
#: Below this many devices networkx runs the exact (fast) method in one go.
FORCE_CHUNKED_FROM = 500


def force_layout(f: Fabric, seed: int = 0, scale: float | None = None,
                 progress: Callable[[float], None] | None = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A spring layout (networkx) of the top-level devices, sized to their number.

    ``progress(fraction)`` is called between chunks of iterations; a job cancels the layout by
    raising from it."""
    tops, u, v = _top_graph(f)
    g: nx.Graph = nx.Graph()
    g.add_nodes_from(tops.tolist())
    g.add_edges_from(zip(u.tolist(), v.tolist(), strict=True))
    if scale is None:
        scale = 120.0 * max(np.sqrt(len(tops)), 1.0)
    if len(tops) == 0:
        return _with_children(f, tops, np.zeros(0), np.zeros(0))
    iterations = 60 if len(tops) < 3000 else 25
    chunk = iterations if len(tops) < FORCE_CHUNKED_FROM else FORCE_CHUNK
    pos: dict | None = None
    done = 0
    while done < iterations:
        if progress is not None:
            progress(done / iterations)
        step = min(chunk, iterations - done)
        pos = nx.spring_layout(g, pos=pos, seed=seed, scale=None, iterations=step)
        done += step
    if progress is not None:
        progress(1.0)
    assert pos is not None
    xy = nx.rescale_layout(np.array([pos[int(d)] for d in tops], np.float64), scale=scale)
    return _with_children(f, tops, np.round(xy[:, 0] / 10) * 10, np.round(xy[:, 1] / 10) * 10)


__all__ = ["auto_layout", "force_layout", "tiered_layout", "tiers"]
