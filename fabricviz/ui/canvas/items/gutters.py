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
leaf's cables read as one comb and two leaves' cables never lie on one line. The lanes of a
horizontal gutter lie as low in it as they go: the names under the row above keep its upper part
at every zoom where the gutter has room for both (at fit a name is ~40 units high, not 20).

Pure numpy (no Qt), computed once per layout (``cables.routes_for`` caches by the fabric's
positions), never per paint: the cable layer, the selection and the overlays draw the same
segments (:class:`NearRoutes`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from fabricviz.ui.canvas.items.routes import LANE_GAP_PX, Routes, crosses

#: Devices are kept this far from lanes (scene units).
PAD = 3.0
#: Room used above the first band and below the last one (scene units).
OUTER = 24.0
#: Lanes in one gutter are at most this far apart (scene units).
LANE_STEP = 4.0
#: Under each row its devices' names: lanes keep below this much of a gutter (scene units; an
#: 11 px name with its halo is 17 px tall, at 100 %), or below its upper half where it is narrower.
NAME_ROOM = 20.0
#: The same room at the middle level, on screen (pixels).
NAME_PX = 18.0
#: Middle routes are checked against every node while lines × nodes stays under this (the check is
#: a product; routes through gutters avoid nodes by construction).
NODE_CHECK = 20_000_000
#: Keys whose runs along a gutter come this close share its lanes (scene units; see ``_lanes``).
SHARE_GAP = 16.0
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


def _lanes(gutter: np.ndarray, key: np.ndarray, order_by: np.ndarray, half: np.ndarray,
           lane: float = LANE_STEP, low: bool = False, span: tuple[np.ndarray, np.ndarray] | None = None
           ) -> np.ndarray:
    """Offset of each cable's lane from its gutter's middle: one lane per (gutter, key), ordered by
    ``order_by`` (the key's position), at most ``lane`` apart and within ``half``; centred, or
    (``low``) as far down as they go, one lane step above the gutter's lower edge (the names under
    the row above keep the gutter's upper part). With ``span`` (each cable's run along its gutter,
    from, to) only keys whose runs come within :data:`SHARE_GAP` of each other's share a gutter's
    lanes: the leaves of a row, each above its own servers, each get the lowest lane."""
    if not len(gutter):
        return np.zeros(0)
    _, first_idx, lane_of = np.unique(np.vstack([gutter, key]), axis=1, return_index=True, return_inverse=True)
    lane_of = np.asarray(lane_of).ravel()
    lg, lpos = gutter[first_idx].astype(np.float64), order_by[first_idx]
    if span is not None:
        a, b = np.minimum(span[0], span[1]), np.maximum(span[0], span[1])
        ok = np.isfinite(a) & np.isfinite(b)
        m = len(first_idx)
        lo = np.full(m, np.inf)
        hi = np.full(m, -np.inf)
        np.minimum.at(lo, lane_of[ok], a[ok])
        np.maximum.at(hi, lane_of[ok], b[ok])
        none = ~np.isfinite(lo)
        lo[none], hi[none] = 0.0, 0.0
        o1 = np.lexsort((lo, lg))
        # runs of keys whose spans overlap (within SHARE_GAP), per gutter: a gutter's keys are
        # lifted by a width larger than all spans so that one running maximum serves all gutters
        width = float(np.max(hi) - np.min(lo)) + 4 * SHARE_GAP + 1.0
        lift = (np.unique(lg, return_inverse=True)[1].ravel() * width)[o1]
        reach = np.maximum.accumulate(hi[o1] - np.min(lo) + lift)
        new = np.r_[True, lo[o1][1:] - np.min(lo) + lift[1:] > reach[:-1] + SHARE_GAP]
        comp = np.empty(m)
        comp[o1] = np.cumsum(new) - 1
        lg = comp
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
    step = np.minimum(lane, 2 * np.maximum(half - PAD / 2, 0.0) / np.maximum(c + 1, 1))
    shift = np.maximum(half - PAD / 2 - (c + 1) / 2 * step, 0.0) if low else 0.0
    return (r - (c - 1) / 2) * step + shift


def route_cables(rects: np.ndarray, dev_a: np.ndarray, dev_b: np.ndarray, ends: np.ndarray,
                 lane: float = LANE_STEP, room: float = NAME_ROOM) -> np.ndarray:
    """[4, SEGS*n] orthogonal routes of cables between the rectangles ``rects[:, dev_a]`` and
    ``rects[:, dev_b]`` (columns of the top-level devices they end at) from their port ends
    ``ends`` ([4, n]: ax, ay, bx, by), through the gutters (see the module doc); lanes at most
    ``lane`` scene units apart, below the first ``room`` of each gutter (the names)."""
    return _segments(route_points(rects, dev_a, dev_b, ends, lane, room))


def _segments(pts: np.ndarray) -> np.ndarray:
    n = pts.shape[0]
    out = np.zeros((4, SEGS * n))
    s = out.reshape(4, n, SEGS)
    s[0], s[1] = pts[:, :-1, 0], pts[:, :-1, 1]
    s[2], s[3] = pts[:, 1:, 0], pts[:, 1:, 1]
    return out


def edge_ends(rects: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[4, n] ends of lines between rectangles ``rects[:, a]`` and ``rects[:, b]`` like ports: on
    the bottom edge of the upper one and the top edge of the lower one (both bottom edges when
    side by side), spread evenly along each edge in the order of their other ends' x."""
    n = len(a)
    if not n:
        return np.zeros((4, 0))
    cy = (rects[1] + rects[3]) / 2
    cx = (rects[0] + rects[2]) / 2
    node = np.r_[a, b]
    other = np.r_[b, a]
    side = cy[other] >= cy[node] - 1e-9                        # True: the bottom edge
    key_other = cx[other]
    o = np.lexsort((key_other, side, node))
    nd, sd = node[o], side[o]
    first = np.r_[True, (nd[1:] != nd[:-1]) | (sd[1:] != sd[:-1])]
    gid = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    size = np.diff(np.r_[starts, len(o)])[gid]
    rank = np.arange(len(o)) - starts[gid]
    x = np.empty(2 * n)
    x[o] = rects[0, nd] + (rank + 0.5) / size * (rects[2, nd] - rects[0, nd])
    y = np.where(side, rects[3, node], rects[1, node])
    return np.vstack([x[:n], y[:n], x[n:], y[n:]])


def route_points(rects: np.ndarray, dev_a: np.ndarray, dev_b: np.ndarray, ends: np.ndarray,
                 lane: float = LANE_STEP, room: float = NAME_ROOM) -> np.ndarray:
    """[n, SEGS + 1, 2] the points of :func:`route_cables`'s routes, from each cable's upper end."""
    n = ends.shape[1]
    if not n:
        return np.zeros((0, SEGS + 1, 2))
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
    g_top[1:] += np.minimum(room, (g_bot[1:] - g_top[1:]) / 2)      # the names under each row
    g_bot[-1] = max(g_bot[-1], g_top[-1] + OUTER)
    same = ra == rb
    up_a = ay < (rects[1, da] + rects[3, da]) / 2             # a's port on its top edge
    g1 = np.where(same & up_a, ra, ra + 1)                    # the gutter a's cable goes to
    g2 = np.where(same, g1, rb)                               # the gutter above b's band
    gx, ghalf = _gap_x(rects, band, ra, rb, bx)
    mid = (g_top + g_bot) / 2
    hh = (g_bot - g_top) / 2
    two = g2 != g1
    gut = np.r_[g1, g2[two]]
    multi = rb - ra >= 2
    vx = gx.copy()
    if multi.any():
        vx[multi] += _lanes(ra[multi] * (nb + 1) + rb[multi], da[multi], rects[0, da[multi]],
                            np.maximum(ghalf[multi], PAD), lane)
    vx = np.where(rb - ra >= 2, vx, bx)
    off = _lanes(gut, np.r_[da, da[two]], np.r_[rects[0, da], rects[0, da[two]]], hh[gut], lane, low=True,
                 span=(np.r_[ax, vx[two]], np.r_[vx, bx[two]]))
    y1 = mid[g1] + off[:n]
    y2 = y1.copy()
    y2[two] = mid[g2[two]] + off[n:]
    xs = np.vstack([ax, ax, vx, vx, bx, bx])
    ys = np.vstack([ay, y1, y1, y2, y2, by])
    return np.stack([xs.T, ys.T], axis=2)


def _clear(pts: np.ndarray, flip: np.ndarray, boxes: np.ndarray, rects: np.ndarray, ga: np.ndarray,
           gb: np.ndarray, na: np.ndarray, nb: np.ndarray, n_lines: int) -> np.ndarray:
    """Per route of ``pts`` ([n, SEGS + 1, 2], from the upper end; ``flip``: node a is the lower):
    every point finite and no segment meeting a group box other than ``ga`` / ``gb`` or a node
    rectangle other than ``na`` / ``nb`` (nodes only while :data:`NODE_CHECK` allows)."""
    pts = np.where(flip[:, None, None], pts[:, ::-1], pts)
    good = np.isfinite(pts).all(axis=(1, 2))
    if not len(pts):
        return good
    seg = np.nan_to_num(_segments(pts))
    if boxes.shape[1]:
        good &= ~crosses(seg, boxes, np.repeat(ga, SEGS), np.repeat(gb, SEGS)).reshape(-1, SEGS).any(axis=1)
    if n_lines * rects.shape[1] <= NODE_CHECK:
        good &= ~crosses(seg, rects, np.repeat(na, SEGS), np.repeat(nb, SEGS)).reshape(-1, SEGS).any(axis=1)
    return good


def orthogonal(r: Routes, rects: np.ndarray, na: np.ndarray, nb: np.ndarray, ga: np.ndarray, gb: np.ndarray,
               boxes: np.ndarray, scale: float) -> Routes:
    """``r`` with the lines it draws straight (``~r.routed``) between two different nodes (columns
    ``na`` / ``nb`` of ``rects``: the switches, host blocks and devices of the middle level) drawn
    at right angles too, so the level has one style: a line inside one group (``ga == gb``, columns
    of the group ``boxes``) through the gutters between the nodes like a near cable; a line between
    two groups one above the other down to the gap between their boxes, along it and down into its
    lower node. Lanes are a line's on-screen width plus
    :data:`~fabricviz.ui.canvas.items.routes.LANE_GAP_PX` apart. A route that would meet another
    group's box (or node) is dropped: that line stays straight."""
    k = np.flatnonzero(~r.routed & (na != nb) & (na >= 0) & (nb >= 0))
    if not len(k):
        return r
    s_ = max(scale, 1e-12)
    lane = (float(r.width[k].max()) + LANE_GAP_PX) / s_
    a_, b_ = na[k], nb[k]
    ends = edge_ends(rects, a_, b_)
    lower_a = (rects[1, a_] + rects[3, a_]) / 2 > (rects[1, b_] + rects[3, b_]) / 2
    pts = route_points(rects, a_, b_, ends, lane, NAME_PX / s_)          # from the upper end
    # between groups: a Z through the gap between the two boxes
    m = boxes.shape[1]
    gka, gkb = ga[k], gb[k]
    between = np.flatnonzero(gka != gkb)
    if len(between) and m:
        A, B = boxes[:, np.clip(gka[between], 0, m - 1)], boxes[:, np.clip(gkb[between], 0, m - 1)]
        a_up, b_up = A[3] <= B[1], B[3] <= A[1]
        top = np.where(a_up, A[3], B[3])
        bot = np.where(a_up, B[1], A[1])
        ok = (a_up | b_up) & (gka[between] >= 0) & (gkb[between] >= 0)
        up_node = np.where(lower_a[between], b_[between], a_[between])
        e = ends[:, between]
        ux, uy = np.where(lower_a[between], e[2], e[0]), np.where(lower_a[between], e[3], e[1])
        lx, ly = np.where(lower_a[between], e[0], e[2]), np.where(lower_a[between], e[1], e[3])
        pair = np.minimum(gka[between], gkb[between]) * (m + 1) + np.maximum(gka[between], gkb[between])
        y = (top + bot) / 2 + _lanes(pair, up_node, rects[0, up_node], np.maximum((bot - top) / 2, 0.0), lane)
        z = np.stack([np.stack([ux, ux, ux, lx, lx, lx], 1), np.stack([uy, y, y, y, y, ly], 1)], 2)
        z[~ok] = np.nan
        gutter = pts[between].copy()
        pts[between] = z
        # a Z that meets another box (units in a grid: the lower box is not straight below) runs
        # through the gutters between the rows and columns of nodes instead, as a near cable does
        again = between[~_clear(pts[between], lower_a[between], boxes, rects, gka[between], gkb[between],
                                a_[between], b_[between], len(k))]
        pts[again] = gutter[np.isin(between, again)]
        # still meeting one (a vertical between node columns inside a unit's box): through the
        # gutters between the rows and columns of the group boxes themselves
        last = again[~_clear(pts[again], lower_a[again], boxes, rects, gka[again], gkb[again], a_[again],
                             b_[again], len(k))]
        fin = np.flatnonzero(np.isfinite(boxes).all(axis=0))
        if len(last) and len(fin):
            both = np.hstack([boxes[:, fin], rects])
            pts[last] = route_points(both, a_[last] + len(fin), b_[last] + len(fin), ends[:, last], lane,
                                     NAME_PX / s_)
    # a node drawn inside the other (a SHARP aggregation node in its switch): nothing to draw between
    ra, rb = rects[:, a_], rects[:, b_]
    nested = (ra[0] < rb[2]) & (rb[0] < ra[2]) & (ra[1] < rb[3]) & (rb[1] < ra[3])
    pts[nested] = np.stack([(ra[0, nested] + ra[2, nested]) / 2, (ra[1, nested] + ra[3, nested]) / 2], 1)[:, None]
    good = _clear(pts, lower_a, boxes, rects, gka, gkb, a_, b_, len(k))
    pts = np.where(lower_a[:, None, None], pts[:, ::-1], pts)           # node a's end first
    k, pts, lower_a = k[good], pts[good], lower_a[good]
    seg = _segments(pts)
    # the "×n" label sits beside the last segment into the lower node
    i = np.arange(len(k))
    lo = np.where(lower_a, 0, SEGS)                         # the lower end among the points
    nxt = np.where(lower_a, 1, SEGS - 1)
    ly_, py = pts[i, lo, 1], pts[i, nxt, 1]
    stub = r.stub.copy()
    stub[:, k] = np.vstack([pts[i, lo, 0], ly_, np.zeros(len(k)), -np.ones(len(k)), np.abs(ly_ - py),
                            np.ones(len(k))])
    routed = r.routed.copy()
    routed[k] = True
    out_ends = r.ends.copy()
    out_ends[:, k] = np.vstack([pts[:, 0, 0], pts[:, 0, 1], pts[:, -1, 0], pts[:, -1, 1]])
    owner = np.repeat(k, SEGS)
    keep = (seg[0] != seg[2]) | (seg[1] != seg[3])
    mine = np.isin(r.owner, k)
    return Routes(np.hstack([r.seg[:, ~mine], seg[:, keep]]), np.r_[r.owner[~mine], owner[keep]], out_ends,
                  r.width, stub, routed)


__all__ = ["NearRoutes", "SEGS", "bands", "edge_ends", "orthogonal", "route_cables", "route_points"]
