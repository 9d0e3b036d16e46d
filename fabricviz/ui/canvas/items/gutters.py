"""Where cables run at near zoom: orthogonal routes through the gutters between rows of devices,
so that no cable is drawn across a device it does not end at (ARCHITECTURE.md, "Canvas at scale").

The devices' rectangles fall into *bands*: runs of rectangles whose vertical extents overlap
(a row of leaves, a row of servers). Between two bands, and above the first and below the last,
lies a horizontal gutter that no device reaches. A cable leaves its upper port straight down to
the gutter under its band, runs along it to a vertical gap free of devices in every band it has to
pass (the gap nearest its lower end), down that gap to the gutter above its lower band, along it
and straight down into its lower port: five segments, some of them empty (between neighbouring
bands the route is down–across–down). Cables of one band leave to the gutter on their ports' side
and come back into it.

Cables sharing a gutter (a gap) are drawn in lanes side by side, one lane per upper device, so a
leaf's cables read as one comb and two leaves' cables never lie on one line.

Pure numpy (no Qt), computed once per layout (``cables.routes_for`` caches by the fabric's
positions), never per paint: the cable layer, the selection and the overlays draw the same
segments (:class:`NearRoutes`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

#: Devices are kept this far from lanes (scene units).
PAD = 3.0
#: Room used above the first band and below the last one (scene units).
OUTER = 24.0
#: Lanes in one gutter are at most this far apart (scene units).
LANE_STEP = 4.0
#: Segments per cable.
SEGS = 5


class NearRoutes(NamedTuple):
    """Cable ``ids[i]`` is drawn as segments ``seg[:, SEGS*i : SEGS*(i+1)]`` (empty ones included)."""
    ids: np.ndarray      # [n] cable ids
    seg: np.ndarray      # [4, SEGS*n] ax, ay, bx, by

    def of(self, cids: np.ndarray) -> np.ndarray:
        """[4, SEGS*len(cids)] the segments of cables ``cids`` (those not routed: none)."""
        pos = np.searchsorted(self.ids, cids)
        pos = np.clip(pos, 0, max(len(self.ids) - 1, 0))
        ok = (self.ids[pos] == cids) if len(self.ids) else np.zeros(len(cids), bool)
        idx = (SEGS * pos[ok])[:, None] + np.arange(SEGS)[None, :]
        return self.seg[:, idx.ravel()]

    def owner(self) -> np.ndarray:
        """[SEGS*n] the cable each segment draws."""
        return np.repeat(self.ids, SEGS)


def bands(rects: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(top, bottom, band of each rectangle): the rectangles ([4, m]) grouped into runs whose
    vertical extents overlap, top to bottom."""
    m = rects.shape[1]
    if not m:
        return np.zeros(0), np.zeros(0), np.zeros(0, np.int64)
    order = np.argsort(rects[1], kind="stable")
    top, bot = rects[1, order], rects[3, order]
    reach = np.maximum.accumulate(bot)
    new = np.r_[True, top[1:] >= reach[:-1]]
    bid = np.cumsum(new) - 1
    n = int(bid[-1]) + 1
    btop = np.full(n, np.inf)
    bbot = np.full(n, -np.inf)
    np.minimum.at(btop, bid, top)
    np.maximum.at(bbot, bid, bot)
    out = np.empty(m, np.int64)
    out[order] = bid
    return btop, bbot, out


def _merged(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Union of intervals [lo, hi] as sorted disjoint intervals."""
    o = np.argsort(lo, kind="stable")
    lo, hi = lo[o], hi[o]
    reach = np.maximum.accumulate(hi)
    new = np.r_[True, lo[1:] > reach[:-1]]
    starts = np.flatnonzero(new)
    ends = np.r_[starts[1:], len(lo)] - 1
    return lo[starts], reach[ends]


def _gap_x(rects: np.ndarray, band: np.ndarray, ra: np.ndarray, rb: np.ndarray,
           want: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, half width) of the vertical gap nearest ``want`` free of every rectangle of the bands
    strictly between ``ra`` and ``rb`` (per cable; cables between neighbouring bands: ``want``, 0)."""
    x, half = want.astype(np.float64).copy(), np.zeros(len(want))
    far = np.flatnonzero(rb - ra >= 2)
    if not len(far):
        return x, half
    by_band = np.argsort(band, kind="stable")
    first = np.searchsorted(band[by_band], np.arange(int(band.max()) + 2))
    pairs, inv = np.unique(np.vstack([ra[far], rb[far]]), axis=1, return_inverse=True)
    inv = np.asarray(inv).ravel()
    for p in range(pairs.shape[1]):
        a, b = int(pairs[0, p]), int(pairs[1, p])
        sel = by_band[first[a + 1]:first[b]]
        lo, hi = _merged(rects[0, sel] - PAD, rects[2, sel] + PAD)
        cx = np.r_[lo[0] - OUTER, (hi[:-1] + lo[1:]) / 2, hi[-1] + OUTER]
        hw = np.r_[OUTER, (lo[1:] - hi[:-1]) / 2, OUTER]
        mine = far[inv == p]
        k = np.clip(np.searchsorted(cx, want[mine]), 1, len(cx) - 1)
        left = np.abs(want[mine] - cx[k - 1]) <= np.abs(cx[k] - want[mine])
        k = np.where(left, k - 1, k)
        x[mine], half[mine] = cx[k], hw[k]
    return x, half


def _lanes(gutter: np.ndarray, key: np.ndarray, order_by: np.ndarray, half: np.ndarray) -> np.ndarray:
    """Offset of each cable's lane from its gutter's middle: one lane per (gutter, key), ordered by
    ``order_by`` (the key's position), at most :data:`LANE_STEP` apart and within ``half``."""
    if not len(gutter):
        return np.zeros(0)
    _, first_idx, lane_of = np.unique(np.vstack([gutter, key]), axis=1, return_index=True, return_inverse=True)
    lane_of = np.asarray(lane_of).ravel()
    lg, lpos = gutter[first_idx], order_by[first_idx]
    o = np.lexsort((lpos, lg))
    g_sorted = lg[o]
    start = np.r_[True, g_sorted[1:] != g_sorted[:-1]]
    grp = np.cumsum(start) - 1
    begins = np.flatnonzero(start)
    rank_sorted = np.arange(len(o)) - begins[grp]
    count_sorted = np.diff(np.r_[begins, len(o)])[grp]
    rank, count = np.empty(len(o)), np.empty(len(o))
    rank[o], count[o] = rank_sorted, count_sorted
    r, c = rank[lane_of], count[lane_of]
    step = np.minimum(LANE_STEP, 2 * np.maximum(half - PAD / 2, 0.0) / np.maximum(c + 1, 1))
    return (r - (c - 1) / 2) * step


def route_cables(rects: np.ndarray, dev_a: np.ndarray, dev_b: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """[4, SEGS*n] orthogonal routes of cables between the rectangles ``rects[:, dev_a]`` and
    ``rects[:, dev_b]`` (columns of the top-level devices they end at) from their port ends
    ``ends`` ([4, n]: ax, ay, bx, by), through the gutters (see the module doc)."""
    n = ends.shape[1]
    out = np.zeros((4, SEGS * n))
    if not n:
        return out
    btop, bbot, band = bands(rects)
    nb = len(btop)
    ba, bb = band[dev_a], band[dev_b]
    swap = (ba > bb) | ((ba == bb) & (ends[1] > ends[3]))
    ax, ay = np.where(swap, ends[2], ends[0]), np.where(swap, ends[3], ends[1])
    bx, by = np.where(swap, ends[0], ends[2]), np.where(swap, ends[1], ends[3])
    da = np.where(swap, dev_b, dev_a)
    ra, rb = np.minimum(ba, bb), np.maximum(ba, bb)
    # gutter g lies above band g (g = nb: below the last band)
    g_top = np.r_[btop[0] - OUTER, bbot]
    g_bot = np.r_[btop, bbot[-1] + OUTER]
    same = ra == rb
    up_a = ay < (rects[1, da] + rects[3, da]) / 2             # a's port on its top edge
    g1 = np.where(same & up_a, ra, ra + 1)                    # the gutter a's cable goes to
    g2 = np.where(same, g1, rb)                               # the gutter above b's band
    gx, ghalf = _gap_x(rects, band, ra, rb, bx)
    mid = (g_top + g_bot) / 2
    hh = (g_bot - g_top) / 2
    two = g2 != g1
    gut = np.r_[g1, g2[two]]
    off = _lanes(gut, np.r_[da, da[two]], np.r_[rects[0, da], rects[0, da[two]]], hh[gut])
    y1 = mid[g1] + off[:n]
    y2 = y1.copy()
    y2[two] = mid[g2[two]] + off[n:]
    multi = rb - ra >= 2
    vx = gx.copy()
    if multi.any():
        vx[multi] += _lanes(ra[multi] * (nb + 1) + rb[multi], da[multi], rects[0, da[multi]],
                            np.maximum(ghalf[multi], PAD))
    vx = np.where(rb - ra >= 2, vx, bx)
    xs = np.vstack([ax, ax, vx, vx, bx, bx])
    ys = np.vstack([ay, y1, y1, y2, y2, by])
    s = out.reshape(4, n, SEGS)
    s[0], s[1] = xs[:-1].T, ys[:-1].T
    s[2], s[3] = xs[1:].T, ys[1:].T
    return out


__all__ = ["NearRoutes", "SEGS", "bands", "route_cables"]
