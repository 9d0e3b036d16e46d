"""OpenSM's generic LFT builder (stage 2 of minhop, also used by updn and dnup).

For every switch, destinations are taken in OpenSM's *port order* — first the
CA ports grouped by the switch they hang off, switches with the most end-port
links first (a stable qsort of the GUID-ordered switch list), then every other
port (switch port 0s included) in port-GUID order — and each destination LID
goes out of the least-hop port that has carried the fewest CA routes so far,
the lowest port number winning ties (``osm_switch_recommend_path``: strict <).
Routes to switch LIDs are chosen the same way but not counted.

The work is vectorised across switches: one step per destination LID updates
all switches' tables at once.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .lids import Lids
from .subnet import NO_PATH, Subnet

#: cand(t) -> bool [S, P+1]: least-hop ports toward target switch t on every switch
CandidateFn = Callable[[int], np.ndarray]


def port_order(sn: Subnet) -> list[tuple[str, int]]:
    """Destinations in OpenSM's order: ("ca", j) for CA port j, ("sw", s) for switch port 0."""
    S = sn.num_switches
    endport_links = np.zeros(S, np.int64)
    ca_at: dict[tuple[int, int], int] = {}
    for j, (s, q) in enumerate(zip(sn.ca_sw.tolist(), sn.ca_sw_port.tolist())):
        if s >= 0:
            ca_at[(s, q)] = j
    not_sw = (sn.nbr_dev >= 0) & (sn.nbr_sw < 0)
    not_sw[:, 0] = False
    endport_links = not_sw.sum(axis=1)
    by_load = sorted(range(S), key=lambda s: -int(endport_links[s]))   # stable, like glibc's msort
    order: list[tuple[str, int]] = []
    flagged: set[int] = set()
    for s in by_load:
        for p in range(1, int(sn.sw_nports[s]) + 1):
            j = ca_at.get((s, p))
            if j is not None and j not in flagged:
                flagged.add(j)
                order.append(("ca", j))
    from .subnet import osm_order
    guids = np.concatenate([sn.sw_guid, sn.ca_guid]).astype(np.uint64)
    for k in osm_order(guids).tolist():
        if k < S:
            order.append(("sw", k))
        elif (k - S) not in flagged:
            order.append(("ca", k - S))
    return order


def build_lfts(sn: Subnet, lids: Lids, least: Callable[[int], np.ndarray], cand: CandidateFn,
               progress: Callable[[int, int], None] | None = None,
               old_lft: np.ndarray | None = None) -> np.ndarray:
    """LFTs [S, max_lid+1] (uint8, NO_PATH = 255) from per-target least hops and candidates.

    ``least(t)`` gives each switch's least hop count to switch t (255 = none).
    ``old_lft`` (same shape or narrower, 255 where unknown): the tables the switches
    already hold; an old entry is kept while its port is still a least-hop port
    with a live link, as OpenSM does on a re-sweep, so only what changed moves.
    """
    S = sn.num_switches
    P1 = sn.nbr_dev.shape[1]
    lft = np.full((S, lids.max_lid + 1), NO_PATH, np.uint8)
    counts = np.zeros((S, P1), np.int64)
    rows = np.arange(S)
    big = np.iinfo(np.int64).max
    order = port_order(sn)
    offsets = range(1 << lids.lmc)
    cache_t, cache = -1, None
    total = len(order) * len(offsets)
    done = 0
    for off in offsets:
        for kind, idx in order:
            done += 1
            if progress is not None and done % 512 == 0:
                progress(done, total)
            if kind == "sw":
                if off:
                    continue                    # base switch port 0 has one LID
                t = idx
                lid = int(lids.sw_lid[t])
                counted = False
            else:
                base = int(lids.ca_lid[idx])
                if base == 0:
                    continue
                lid = base + off
                t = int(sn.ca_sw[idx])
                counted = True
                if t < 0:
                    continue                     # CA not on a switch: NO_PATH, not counted
            if lid == 0:
                continue
            if t != cache_t:
                cache_t = t
                c = cand(t)
                ls = least(t)
                cache = (c, ls)
            c, ls = cache
            if off == 0:
                score = np.where(c, counts, big)
            else:   # scan starts after the port used for the previous LID of this port
                start = (lft[:, lid - 1].astype(np.int64) + 1) % (sn.sw_nports + 1)
                score = _rotate_rows(np.where(c, counts, big), start)
            best = score.argmin(axis=1)
            ok = score[rows, best] < big
            if off:
                best = (best + start) % P1
            if old_lft is not None and lid < old_lft.shape[1]:
                prev = old_lft[:, lid].astype(np.int64)
                keep = (prev != NO_PATH) & (prev < P1)
                keep &= c[rows, np.where(keep, prev, 0)]
                best = np.where(keep, prev, best)
                ok = ok | keep
            out = np.where(ok & (ls != NO_PATH), best, NO_PATH)
            if kind == "sw":
                out[t] = 0
            else:
                out[t] = int(sn.ca_sw_port[idx])
            lft[:, lid] = out
            if counted:
                hit = out != NO_PATH
                counts[rows[hit], out[hit]] += 1
    return lft


def _rotate_rows(a: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Row i rotated left by start[i] (scan order start, start+1, … mod width)."""
    n = a.shape[1]
    idx = (np.arange(n)[None, :] + start[:, None]) % n
    return np.take_along_axis(a, idx, axis=1)


def minhop_candidates(sn: Subnet, dist: np.ndarray) -> tuple[Callable, CandidateFn]:
    """least(t) and cand(t) for plain min-hop over switch distances ``dist`` [S, S]."""
    nbr = sn.nbr_sw
    has = nbr >= 0
    has[:, 0] = False
    has &= nbr != np.arange(sn.num_switches)[:, None]       # loopback cables do not count
    safe = np.where(has, nbr, 0)

    def least(t: int) -> np.ndarray:
        return dist[:, t]

    def cand(t: int) -> np.ndarray:
        via = dist[safe, t].astype(np.int64) + 1
        d = dist[:, t].astype(np.int64)
        return has & (via == d[:, None]) & (d[:, None] != NO_PATH)
    return least, cand
