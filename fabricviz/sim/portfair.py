"""Max-min over lossless switches that serve their input ports in turn (PFC's port fairness).

A switch whose egress is oversubscribed in a lossless fabric does not share that egress per
flow: each input port with traffic for it is served in turn (htsim's ``LosslessInputQueue``
pauses an input that holds more than its threshold, and every paused input is resumed as the
egress drains, so each busy input gets an equal turn), and the flows behind one input port share
that port's turn. This is the known *port fairness* of PFC (the "parking lot" unfairness: a flow
alone on its input gets as much as all the flows behind another input together). On an incast the
receiver's last switch splits the receiver's link among its busy uplinks, each aggregation switch
splits its turn among its own busy inputs, and so on up the tree; flows alone on a lightly
loaded branch finish early and free their share, where per-flow max-min gives every sender the
same 1/N and finishes them all together.

Exact progressive filling: every round each link is shared over its input ports and each
port's share over its flows (everyone unfrozen asking for the whole link, frozen flows their
rate); a share only grows as others freeze (a frozen flow asks no more than its share), so the
least share any unfrozen flow gets is its final rate, and so are the shares on a link that is the
least-granting link of every unfrozen flow crossing it: those flows freeze each round. When every link's flows come
from distinct input ports this is per-flow max-min.

The max-min model on Ethernet (PFC) serves input ports in turn only on the links from a switch
into a host (``by_port``; :func:`~.engine.simulate`), every other link per flow. Measured against
htsim_roce (k=8 tree, ECMP, go-back-N, no CC; bench/portfair_compare.py, means over seeds): the 16:1
incast's mean rate −23.7 % per flow → −8.0 % (13 seeds; −15.7 % on htsim's seeds 13, 1, 2 alone,
which run high: 8.68 Gb/s against 8.17 over 13), median FCT +17.3 → +7.2 %; permutations and the
shuffle unchanged (+7.4 / −7.8 / −3.6 % and +32.6 / −18.4 / −18.5 %). Port turns on every link get
the incast to −7.5 % too but take the shuffle to +42 % and the permutations' median FCT to −23 %:
inside the fabric htsim's flows are held back by pauses spreading upstream (head-of-line blocking),
which no flow-level model here has, and per-flow shares happen to sit closer to that.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .maxmin import TOL, MaxMinResult


def levels(seg: np.ndarray, cap: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """Per segment: the max-min level of ``cap[s]`` over the items of ``seg == s`` wanting ``demand``
    (every item gets ``min(demand, level)``; ``inf`` when the segment is not full)."""
    out = np.full(len(cap), np.inf)
    if not len(seg):
        return out
    d = np.minimum(demand, cap[seg])                 # no item wants more than the whole segment
    order = np.lexsort((d, seg))
    s, ds = seg[order], d[order]
    start = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    run = np.diff(np.r_[start, len(s)])
    pos = np.arange(len(s)) - np.repeat(start, run)              # rank within the segment
    n_left = np.repeat(run, run) - pos                           # items from here to the segment's end
    csum = np.cumsum(ds)
    before = csum - ds - np.repeat(csum[start] - ds[start], run)  # Σ demands ranked below
    c = cap[s]
    short = ds * n_left >= (c - before) * (1 - 1e-12)           # from here on the level binds
    # the level is set by the first binding item of the segment
    idx = np.where(short, np.arange(len(s)), len(s))
    first = np.minimum.reduceat(idx, start)
    bind = first < len(s)
    at = first[bind]
    out[s[start[bind]]] = (c[at] - before[at]) / n_left[at]
    return out


def waterfill(seg: np.ndarray, cap: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """Max-min share of ``cap[seg[i]]`` for item ``i`` wanting ``demand[i]``."""
    return np.minimum(demand, levels(seg, cap, demand)[seg]) if len(seg) else np.zeros(0)


@dataclass(frozen=True)
class _Entries:
    """Route entries of the running flows: flow, link, input-port key, and (flow, link) groups."""

    flow: np.ndarray
    link: np.ndarray
    port_seg: np.ndarray       # per entry: its (link, input port) group
    port_link: np.ndarray      # per group: its link
    n_flows: int


def _entries(indptr: np.ndarray, links: np.ndarray, rows: np.ndarray | None,
             by_port: np.ndarray | None = None) -> _Entries:
    F = len(indptr) - 1
    lens = np.diff(indptr)
    flow = np.repeat(np.arange(F), lens)
    link = np.asarray(links, np.int64)
    first = np.zeros(len(link), bool)
    first[indptr[:-1][lens > 0]] = True
    prev = np.r_[-1, link[:-1]]
    # the input port: the link before on the path; a first hop is its own flow's input
    inport = np.where(first, -1 - flow, prev)
    if by_port is not None:                      # links not served port by port: every flow its own
        inport = np.where(np.asarray(by_port, bool)[link], inport, -1 - flow)
    if rows is not None:
        keep = np.repeat(np.asarray(rows, bool), lens)
        flow, link, inport = flow[keep], link[keep], inport[keep]
    key = np.stack([link, inport])
    uniq, seg = np.unique(key, axis=1, return_inverse=True)
    return _Entries(flow, link, seg.ravel(), uniq[0], F)


def _shares(e: _Entries, cap: np.ndarray, want: np.ndarray, n_groups: int) -> np.ndarray:
    """Per entry: its flow's share of the link, the link max-min over its input ports and each
    port's share max-min over its flows, everyone asking ``want`` (at most the link)."""
    w = np.minimum(want, cap[e.link])
    port_want = np.zeros(n_groups)
    np.add.at(port_want, e.port_seg, w)
    return waterfill(e.port_seg, waterfill(e.port_link, cap, port_want), w)


def portfair_paths(indptr: np.ndarray, links: np.ndarray, cap: np.ndarray, demand: np.ndarray | None = None,
                   rows: np.ndarray | None = None, by_port: np.ndarray | None = None) -> MaxMinResult:
    """Rates of the flows whose row ``f`` is ``links[indptr[f]:indptr[f+1]]`` (links in hop order)
    over switches serving input ports in turn (module doc). ``rows``: only those flows run (the
    others get 0); ``by_port`` (bool per link, None: all): the links shared over their input ports,
    the others per flow. ``bottleneck``: the link granting each flow least (-1: its own demand);
    ``rounds``: filling rounds."""
    cap = np.asarray(cap, float)
    F = len(indptr) - 1
    own = np.full(F, np.inf) if demand is None else np.asarray(demand, float)
    e = _entries(indptr, links, rows, by_port)
    n_groups = len(e.port_link)
    run = np.zeros(F, bool)
    run[e.flow] = True
    if rows is not None:
        run &= np.asarray(rows, bool)
    if np.any(run & (np.bincount(e.flow, minlength=F) == 0) & ~np.isfinite(own)):
        bad = int(np.flatnonzero(run & (np.bincount(e.flow, minlength=F) == 0) & ~np.isfinite(own))[0])
        raise ValueError(f"flow {bad} has no link and no demand cap: its rate is unbounded")
    rate = np.where(run, np.inf, 0.0)
    bott = np.full(F, -1, np.int64)
    big = np.iinfo(np.int64).max
    frozen = ~run
    rounds = 0
    while not frozen.all():
        rounds += 1
        share = _shares(e, cap, np.where(frozen, rate, own)[e.flow], n_groups)
        got = own.copy()
        np.minimum.at(got, e.flow, share)
        # the least share anyone unfrozen gets is final: freezing others at or above it only frees
        # capacity, so no later round gives them less (progressive filling, one level per round)
        low = float(got[~frozen].min())
        now = ~frozen & (got <= low * (1 + TOL))
        # and every flow of a link that is the least-granting link of each unfrozen flow on it (a
        # local bottleneck: none of its flows can release capacity there, so none of them can gain)
        live = ~frozen[e.flow]
        at_min = share <= got[e.flow] * (1 + TOL)
        bott_link = np.ones(len(cap), bool)
        bott_link[e.link[live & ~at_min]] = False
        hit = np.zeros(F, bool)
        hit[e.flow[live & bott_link[e.link]]] = True
        now |= hit & ~frozen
        rate[now] = got[now]
        frozen |= now
        at = now[e.flow] & (share <= got[e.flow] * (1 + TOL)) & (got[e.flow] < own[e.flow])
        first = np.full(F, big)
        np.minimum.at(first, e.flow[at], e.link[at])
        bott[first < big] = first[first < big]
    load = np.zeros(len(cap))
    np.add.at(load, e.link, rate[e.flow])
    return MaxMinResult(rate, load, bott, rounds)
