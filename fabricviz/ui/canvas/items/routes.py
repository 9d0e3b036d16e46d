"""Where bundle lines run at far and middle zoom: their ends on the boxes they join and, when the
straight line would cross another group's box, an orthogonal route through the gutters.

A pod's bundle up to the top tier drawn straight through the pods above it reads as a cable to
them (pod 1 ↔ pod 5, and pods have no cables between them). So a bundle whose straight line
meets the inside of a box other than its own two groups' runs instead from its upper box down
the vertical gutter beside its lower box's column, along the horizontal gutter above that box
and into its top edge (first along the gap under the upper box when the gutter is not under
it); boxes side by side get the same route turned 90°. Bundles sharing a gutter get lanes side
by side, their on-screen widths plus :data:`LANE_GAP_PX` apart (narrowed together, to
:data:`MIN_LANE_PX` at least, where the gutter is too narrow at this zoom), ordered so that a
bundle turning off never crosses one going on. A route that would still meet a box is dropped:
that bundle stays straight.

Pure numpy, recomputed when the level, the open groups, the positions or the zoom change, never
per frame: overlays recolour the segments through :attr:`Routes.owner`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from scipy.optimize import linear_sum_assignment

#: Between two lanes (and a lane and a box edge), on screen.
LANE_GAP_PX = 3.0
#: Lanes narrow to this at the least where a gutter is too narrow for them.
MIN_LANE_PX = 1.0
#: Room for lanes beside the outermost boxes (a fitted view leaves ~3 % of its width around them).
OUTER_ROOM_PX = 24.0
#: Routes leave and enter a box this far from its corners (scene units; the boxes' radius is 18).
CORNER = 28.0
#: Segments are tested against boxes shrunk by this (scene units): touching an edge is not crossing.
EDGE_EPS = 0.5
_CHUNK = 4096


def segment_distance(ends: np.ndarray, pos) -> np.ndarray:
    """Distance from ``pos`` (anything with ``x()`` and ``y()``) to each segment of ``ends`` ([4, n])."""
    ax, ay, bx, by = ends
    dx, dy = bx - ax, by - ay
    ll = dx * dx + dy * dy
    t = np.clip(((pos.x() - ax) * dx + (pos.y() - ay) * dy) / np.where(ll > 0, ll, 1.0), 0.0, 1.0)
    return np.hypot(ax + t * dx - pos.x(), ay + t * dy - pos.y())


def clamp_points(x: np.ndarray, y: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The points of rectangles ``r`` ([4, n]) nearest to (x, y)."""
    return np.clip(x, r[0], r[2]), np.clip(y, r[1], r[3])


def facing_ends(ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
    """[4, n] ends of lines joining rectangles ``ra`` and ``rb`` where they face each other: where
    their x (y) ranges overlap, a vertical (horizontal) line through the middle of the overlap (a
    pod under a wide top tier gets a straight line up from its centre); else from the corner or
    edge point of each nearest the other's centre; centre to centre where they overlap."""
    cxa, cya = (ra[0] + ra[2]) / 2, (ra[1] + ra[3]) / 2
    cxb, cyb = (rb[0] + rb[2]) / 2, (rb[1] + rb[3]) / 2
    x0, x1 = np.maximum(ra[0], rb[0]), np.minimum(ra[2], rb[2])
    y0, y1 = np.maximum(ra[1], rb[1]), np.minimum(ra[3], rb[3])
    xo, yo = x0 <= x1, y0 <= y1
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    ax, ay = clamp_points(np.where(xo, xm, cxb), np.where(yo, ym, cyb), ra)
    bx, by = clamp_points(np.where(xo, xm, cxa), np.where(yo, ym, cya), rb)
    same = xo & yo
    return np.vstack([np.where(same, cxa, ax), np.where(same, cya, ay),
                      np.where(same, cxb, bx), np.where(same, cyb, by)])


def spread_ends(ends: np.ndarray, na: np.ndarray, nb: np.ndarray, ra: np.ndarray, rb: np.ndarray,
                even_a: np.ndarray | None = None, even_b: np.ndarray | None = None) -> np.ndarray:
    """Line ends (from :func:`facing_ends`) spread along a rectangle's side where several meet it.

    On an ``even`` node (a switch, a host block) the ends of one side are spread evenly over it,
    ordered by where their other ends are, like ports. On the other nodes (group boxes) only ends
    that coincide are spread, around their common point, a fraction of the other ends' width
    apart, so opening one group does not move every other group's bundle: the pods of one column
    under a wide top tier get parallel lines up. A line alone on its side (or in its cluster)
    then ends at the point of its rectangle nearest the other (spread) end."""
    k = ends.shape[1]
    if not k:
        return ends
    node = np.concatenate([na, nb])
    px, py = np.concatenate([ends[0], ends[2]]), np.concatenate([ends[1], ends[3]])
    ox, oy = np.concatenate([ends[2], ends[0]]), np.concatenate([ends[3], ends[1]])
    r = np.hstack([ra, rb])
    ro = np.hstack([rb, ra])                                    # the other end's rectangle
    even = np.concatenate([np.ones(k, bool) if even_a is None else even_a,
                           np.ones(k, bool) if even_b is None else even_b])
    eps = 1e-6 * np.maximum(r[2] - r[0], r[3] - r[1]) + 1e-9
    side = np.select([np.abs(py - r[1]) <= eps, np.abs(py - r[3]) <= eps,
                      np.abs(px - r[0]) <= eps, np.abs(px - r[2]) <= eps], [0, 1, 2, 3], -1)
    side = np.where((np.abs(px - ox) < 1e-9) & (np.abs(py - oy) < 1e-9), -1, side)
    horiz = side <= 1
    own = np.where(horiz, px, py)                              # position along the side
    along = np.where(horiz, ox, oy)                            # the other end's position
    lo, hi = np.where(horiz, r[0], r[1]), np.where(horiz, r[2], r[3])
    width = np.where(horiz, ro[2] - ro[0], ro[3] - ro[1])
    # one run per (node, side); in group boxes one run per point the ends share
    key_pos = np.where(even, 0.0, np.round(own / np.maximum(eps, 1e-6)))
    order = np.lexsort((along, key_pos, side, node))
    n_, s_, kp = node[order], side[order], key_pos[order]
    first = np.r_[True, (n_[1:] != n_[:-1]) | (s_[1:] != s_[:-1]) | (kp[1:] != kp[:-1])]
    gid = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    size = np.diff(np.r_[starts, len(order)])[gid]
    rank = np.arange(len(order)) - starts[gid]
    ev, sd = even[order], s_ >= 0
    many = (size >= 2) & sd
    pos = own[order].copy()
    t = (rank + 0.5) / np.maximum(size, 1)
    e_ = many & ev
    pos[e_] = lo[order][e_] + t[e_] * (hi[order][e_] - lo[order][e_])
    c_ = many & ~ev
    if c_.any():
        step = 0.6 * np.minimum.reduceat(width[order], starts)[gid] / np.maximum(size, 1)
        span = (size - 1) * step
        start = own[order] - span / 2
        start = np.clip(start, lo[order], np.maximum(lo[order], hi[order] - span))
        pos[c_] = (start + rank * step)[c_]
    fx, fy = px.copy(), py.copy()
    idx = order[many]
    fx[idx] = np.where(horiz[idx], pos[many], px[idx])
    fy[idx] = np.where(horiz[idx], py[idx], pos[many])
    spread = np.zeros(2 * k, bool)
    spread[idx] = True
    # a lone end: nearest point of its rectangle to the other end's final place
    other = np.r_[np.arange(k, 2 * k), np.arange(k)]
    lone = ~spread & (side >= 0)
    cx, cy = clamp_points(fx[other[lone]], fy[other[lone]], r[:, lone])
    fx[lone], fy[lone] = cx, cy
    return np.vstack([fx[:k], fy[:k], fx[k:], fy[k:]])


def meets_inside(ends: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Per pair: segment ``ends[:, i]`` meets the inside of box ``boxes[:, i]`` (shrunk by
    :data:`EDGE_EPS`); Liang–Barsky: the parameter range inside both slabs is not empty."""
    ax, ay, bx, by = ends
    t0, t1 = np.zeros(ends.shape[1]), np.ones(ends.shape[1])
    for p, lo, hi, a in ((bx - ax, boxes[0] + EDGE_EPS, boxes[2] - EDGE_EPS, ax),
                         (by - ay, boxes[1] + EDGE_EPS, boxes[3] - EDGE_EPS, ay)):
        q0, q1 = lo - a, hi - a
        flat = p == 0
        inside = (q0 < 0) & (q1 > 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            u0, u1 = q0 / p, q1 / p
        t0 = np.maximum(t0, np.where(flat, np.where(inside, -np.inf, np.inf), np.minimum(u0, u1)))
        t1 = np.minimum(t1, np.where(flat, np.where(inside, np.inf, -np.inf), np.maximum(u0, u1)))
    return t0 < t1


def crosses(ends: np.ndarray, boxes: np.ndarray, skip_a: np.ndarray, skip_b: np.ndarray) -> np.ndarray:
    """Per segment of ``ends`` ([4, n]): it meets the inside of a box ([4, m]) other than its
    ``skip_a`` / ``skip_b`` columns (its own two groups; NaN boxes never). Only boxes its bounding
    box meets are tested, and for a horizontal or vertical segment that test is the answer."""
    n = ends.shape[1]
    out = np.zeros(n, bool)
    ok = np.flatnonzero(np.isfinite(boxes).all(axis=0))
    if not n or not len(ok):
        return out
    b = boxes[:, ok]
    for s in range(0, n, _CHUNK):
        e = ends[:, s:s + _CHUNK]
        lx, hx = np.minimum(e[0], e[2])[:, None], np.maximum(e[0], e[2])[:, None]
        ly, hy = np.minimum(e[1], e[3])[:, None], np.maximum(e[1], e[3])[:, None]
        near = (b[0] + EDGE_EPS < hx) & (b[2] - EDGE_EPS > lx) & (b[1] + EDGE_EPS < hy) & (b[3] - EDGE_EPS > ly)
        near &= (ok[None, :] != skip_a[s:s + _CHUNK, None]) & (ok[None, :] != skip_b[s:s + _CHUNK, None])
        i, j = np.nonzero(near)
        if not len(i):
            continue
        hit = (e[0, i] == e[2, i]) | (e[1, i] == e[3, i])
        slant = ~hit
        hit[slant] = meets_inside(e[:, i[slant]], b[:, j[slant]])
        out[s + i[hit]] = True
    return out


class Routes(NamedTuple):
    """The drawn bundle lines: segments (several per routed bundle) and the bundle each draws;
    per bundle its two drawn ends, its drawn width and, routed, its last segment (its label's)."""

    seg: np.ndarray        # [4, S] ax, ay, bx, by
    owner: np.ndarray      # [S] the bundle each segment draws (bundle order)
    ends: np.ndarray       # [4, n] node a's end, node b's end
    width: np.ndarray      # [n] drawn width, px (lanes in a narrow gutter are narrower)
    stub: np.ndarray       # [6, n] x, y of the lower end, (ux, uy) along its last segment, length, side; NaN
    routed: np.ndarray     # [n] bool

    def segments_of(self, ks: np.ndarray) -> np.ndarray:
        """Segment indices drawing bundles ``ks``."""
        return np.flatnonzero(np.isin(self.owner, np.asarray(ks, np.int64)))


def straight(ends: np.ndarray, width: np.ndarray) -> Routes:
    """Every bundle as its straight line."""
    n = ends.shape[1]
    return Routes(ends.copy(), np.arange(n), ends.copy(), np.asarray(width, float).copy(),
                  np.full((6, n), np.nan), np.zeros(n, bool))


def route(ends: np.ndarray, ra: np.ndarray, rb: np.ndarray, ga: np.ndarray, gb: np.ndarray,
          box_a: np.ndarray, box_b: np.ndarray, boxes: np.ndarray, scale: float, width: np.ndarray,
          share: bool = False, spread: Callable[[np.ndarray], np.ndarray] | None = None) -> Routes:
    """Routes for bundles with straight ``ends`` ([4, n]) between node rectangles ``ra`` / ``rb``
    of groups ``ga`` / ``gb`` (columns of ``boxes`` [4, m]; -1 none); ``box_a`` / ``box_b``: that
    end is a group's own box (routes leave it spread along its edge; else from its centre).
    ``scale``: view pixels per scene unit; ``width``: line widths, px. ``share``: the bundles of
    one pair of groups share one lane (middle: many single cables). ``spread(ks)``: the ends of
    the bundles ``ks`` that stay straight, spread among themselves (default: ``ends``)."""
    n = ends.shape[1]
    width = np.asarray(width, float)
    if not n or not boxes.shape[1]:
        return straight(ends, width)
    m = boxes.shape[1]
    ia, ib = np.clip(ga, 0, m - 1), np.clip(gb, 0, m - 1)
    gA, gB = boxes[:, ia], boxes[:, ib]
    ok = (ga >= 0) & (gb >= 0) & (ga != gb) & np.isfinite(ends).all(axis=0) & np.isfinite(ra).all(axis=0)
    ok &= np.isfinite(rb).all(axis=0) & np.isfinite(gA).all(axis=0) & np.isfinite(gB).all(axis=0)
    sel = np.flatnonzero(ok)
    ok[sel] = crosses(ends[:, sel], boxes, ga[sel], gb[sel])
    a_up, b_up = gA[3] <= gB[1], gB[3] <= gA[1]
    a_left, b_left = gA[2] <= gB[0], gB[2] <= gA[0]
    vertical = a_up | b_up
    pts = np.full((n, 6, 2), np.nan)
    wout = width.copy()
    stub = np.full((6, n), np.nan)
    for turned, frame in ((False, vertical), (True, ~vertical & (a_left | b_left))):
        idx = np.flatnonzero(ok & frame)
        if not len(idx):
            continue
        up_a = (a_left if turned else a_up)[idx]
        sw = [1, 0, 3, 2] if turned else [0, 1, 2, 3]

        def pick(x: np.ndarray, y: np.ndarray, up_a: np.ndarray = up_a, idx: np.ndarray = idx,
                 sw: list[int] = sw) -> np.ndarray:
            return np.where(up_a, x[:, idx], y[:, idx])[sw]
        gu, gl = np.where(up_a, ga[idx], gb[idx]), np.where(up_a, gb[idx], ga[idx])
        bu, bl = np.where(up_a, box_a[idx], box_b[idx]), np.where(up_a, box_b[idx], box_a[idx])
        p, w, st, good = _route_down(pick(ra, rb), pick(rb, ra), gu, gl, bu, bl, width[idx], boxes[sw],
                                     max(scale, 1e-12), share)
        if turned:
            p = p[:, :, ::-1]
            st = np.vstack([st[1], st[0], st[3], st[2], st[4], -st[5]])
        p = np.where(up_a[:, None, None], p, p[:, ::-1])
        keep = idx[good]
        pts[keep], wout[keep], stub[:, keep] = p[good], w[good], st[:, good]
    routed = np.isfinite(pts).all(axis=(1, 2))
    # a route that still meets a box (an odd layout) is dropped: that bundle stays straight
    r = np.flatnonzero(routed)
    if len(r):
        s = np.stack([pts[r, :-1, 0], pts[r, :-1, 1], pts[r, 1:, 0], pts[r, 1:, 1]])     # [4, k, 5]
        bad = crosses(s.reshape(4, -1), boxes, np.repeat(ga[r], 5), np.repeat(gb[r], 5)).reshape(-1, 5)
        routed[r[bad.any(axis=1)]] = False
    if spread is not None:
        ends = ends.copy()
        ends[:, ~routed] = spread(np.flatnonzero(~routed))
    return _assemble(ends, pts, routed, wout, width, stub)


def _assemble(ends: np.ndarray, pts: np.ndarray, routed: np.ndarray, wout: np.ndarray, width: np.ndarray,
              stub: np.ndarray) -> Routes:
    n = ends.shape[1]
    seg = np.full((n, 5, 4), np.nan)
    seg[:, 0] = ends.T
    r = routed
    seg[r] = np.concatenate([pts[r, :-1], pts[r, 1:]], axis=2)
    keep = np.isfinite(seg).all(axis=2)
    keep[r] &= np.hypot(seg[r, :, 2] - seg[r, :, 0], seg[r, :, 3] - seg[r, :, 1]) > 1e-9
    owner = np.repeat(np.arange(n), 5).reshape(n, 5)[keep]
    out_ends = ends.copy()
    out_ends[:, r] = np.vstack([pts[r, 0, 0], pts[r, 0, 1], pts[r, -1, 0], pts[r, -1, 1]])
    stub = np.where(r[None, :], stub, np.nan)
    return Routes(seg[keep].T.copy(), owner, out_ends, np.where(r, wout, width), stub, r)


def free_gaps(lo: np.ndarray, hi: np.ndarray) -> list[tuple[float, float]]:
    """The free intervals between intervals ``[lo, hi]`` (the two outer ones unbounded)."""
    if not len(lo):
        return [(-np.inf, np.inf)]
    o = np.argsort(lo)
    lo, hi = lo[o], np.maximum.accumulate(hi[o])
    inner = np.flatnonzero(lo[1:] > hi[:-1])
    return [(-np.inf, float(lo[0]))] + [(float(hi[i]), float(lo[i + 1])) for i in inner] + [(float(hi[-1]), np.inf)]


def free_window(boxes: np.ndarray, x0: float, x1: float, start: float, down: bool, limit: float) -> tuple[float, float]:
    """The free y-interval next to ``start`` (below it when ``down``, else above) over x in
    [x0, x1], given ``boxes`` ([4, m]); bounded by ``limit`` on the far side."""
    over = (boxes[0] < x1 - EDGE_EPS) & (boxes[2] > x0 + EDGE_EPS)
    top, bot = boxes[1, over], boxes[3, over]
    y = start
    moved = True
    while moved:                         # step out of any box the start lies in
        inside = (top < y - EDGE_EPS) & (bot > y + EDGE_EPS) if len(top) else np.zeros(0, bool)
        moved = bool(inside.any())
        if moved:
            y = float(bot[inside].max()) if down else float(top[inside].min())
    if down:
        ahead = top[top >= y - EDGE_EPS]
        return y, float(min(limit, ahead.min())) if len(ahead) else limit
    ahead = bot[bot <= y + EDGE_EPS]
    return float(max(limit, ahead.max())) if len(ahead) else limit, y


def _room(lo: float, hi: float, s: float) -> float:
    """Room for lanes (px) in the gutter [lo, hi]: its width, :data:`OUTER_ROOM_PX` beside the
    outermost boxes, unbounded where no box is."""
    finite = int(np.isfinite(lo)) + int(np.isfinite(hi))
    return (hi - lo) * s if finite == 2 else OUTER_ROOM_PX if finite == 1 else np.inf


def _pack(w: np.ndarray, room_px: float, squeeze: bool = False) -> tuple[np.ndarray, float]:
    """Lane widths and gap (px) for lanes ``w`` side by side in ``room_px``: as they are, or all
    narrowed by one factor (widths to :data:`MIN_LANE_PX` at least) until they fit; when even
    that does not fit, ``squeeze``: closer than their widths (a gutter between boxes at a zoom
    too far out for its lanes), else as close as they go without overlapping (beyond the room)."""
    need = w.sum() + (len(w) + 1) * LANE_GAP_PX
    if need <= room_px:
        return w.copy(), LANE_GAP_PX
    if squeeze and len(w) * MIN_LANE_PX >= room_px:
        return np.full(len(w), MIN_LANE_PX), (room_px - len(w) * MIN_LANE_PX) / (len(w) + 1)
    lo, hi = 0.0, 1.0
    for _ in range(40):
        f = (lo + hi) / 2
        if np.maximum(MIN_LANE_PX, w * f).sum() + (len(w) + 1) * LANE_GAP_PX * f <= room_px:
            lo = f
        else:
            hi = f
    return np.maximum(MIN_LANE_PX, w * lo), LANE_GAP_PX * lo


def _centres(w: np.ndarray, gap: float, s: float) -> tuple[np.ndarray, float]:
    """Offsets (scene) of lanes ``w`` (px) packed from 0 with ``gap`` before each, and the total."""
    off = np.cumsum(w + gap) - w / 2
    return off / s, float((w.sum() + (len(w) + 1) * gap) / s)


def _route_down(U: np.ndarray, L: np.ndarray, gu: np.ndarray, gl: np.ndarray, bu: np.ndarray, bl: np.ndarray,
                w: np.ndarray, boxes: np.ndarray, s: float, share: bool
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Routes from upper nodes ``U`` down to lower nodes ``L`` ([4, k] rects; groups ``gu`` above
    ``gl``): points [k, 6, 2], widths, stubs [6, k], and which got a route."""
    k = len(gu)
    m = boxes.shape[1]
    key = gu * m + gl if share else np.arange(k)
    _, first, tid = np.unique(key, return_index=True, return_inverse=True)
    tid = np.asarray(tid).reshape(-1)
    nt = len(first)
    tw = np.zeros(nt)
    np.maximum.at(tw, tid, w)
    tu, tl = gu[first], gl[first]
    GU, GL = boxes[:, tu], boxes[:, tl]
    ucx, lcx = (U[0] + U[2]) / 2, (L[0] + L[2]) / 2
    # where a trunk may leave its upper node and enter its lower one (x ranges)
    def span(r: np.ndarray, cx: np.ndarray, is_box: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        inset = np.minimum(max(CORNER, 8.0 / s), (r[2] - r[0]) / 2)
        lo = np.where(is_box, r[0] + inset, cx)
        hi = np.where(is_box, r[2] - inset, cx)
        a, b = np.full(nt, np.inf), np.full(nt, -np.inf)
        np.minimum.at(a, tid, lo)
        np.maximum.at(b, tid, hi)
        return a, b
    ex0, ex1 = span(U, ucx, bu)
    en0, en1 = span(L, lcx, bl)
    others = np.isfinite(boxes).all(axis=0)
    # 1. a vertical gutter per trunk: the cheapest choice for all of them together (short runs,
    #    no needless jogs, lanes spread over the gutters, none beyond a gutter's room while
    #    another has room), as an assignment of trunks to lane slots
    seen: list[list[tuple[float, float]]] = []
    keys: dict[tuple[float, float], int] = {}
    for t in range(nt):
        mask = others.copy()
        mask[[tu[t], tl[t]]] = False
        inspan = mask & (boxes[1] < GL[1, t] - EDGE_EPS) & (boxes[3] > GU[3, t] + EDGE_EPS)
        seen.append(free_gaps(boxes[0, inspan], boxes[2, inspan]))
        for gap in seen[-1]:
            keys.setdefault(gap, len(keys))
    gaps = list(keys)
    rooms = np.array([_room(lo, hi, s) for lo, hi in gaps])
    base = np.full((nt, len(gaps)), 1e9)
    for t, mine in enumerate(seen):
        for lo, hi in mine:
            d_low = max(lo - en1[t], en0[t] - hi, 0.0)
            d_up = max(lo - ex1[t], ex0[t] - hi, 0.0)
            base[t, keys[(lo, hi)]] = (d_low + d_up) * s
    # lane slots per gutter: each costs a lane pitch more than the one before; past its room a
    # gutter between boxes squeezes its lanes together, an outer one spreads them outwards
    cap = np.floor((np.minimum(rooms, 1e9) - 1.0) / (MIN_LANE_PX + 1.0))
    n_slots = np.minimum(nt, np.maximum(cap, 0) + -(-nt // len(gaps)) + 1).astype(np.int64)
    col_gap = np.repeat(np.arange(len(gaps)), n_slots)
    j = np.arange(len(col_gap)) - np.repeat(np.cumsum(n_slots) - n_slots, n_slots)
    over = np.array([2e6 if np.isfinite(lo) and np.isfinite(hi) else 1e6 for lo, hi in gaps])
    cost = base[:, col_gap] + j * (float(tw.mean()) + LANE_GAP_PX) + np.where(j >= cap[col_gap], over[col_gap], 0.0)
    rows, cols = linear_sum_assignment(cost)
    load: dict[tuple[float, float], list[int]] = {}
    for t, c in zip(rows.tolist(), col_gap[cols].tolist(), strict=True):
        load.setdefault(gaps[c], []).append(t)
    lane, lane_w = np.full(nt, np.nan), tw.copy()
    for (lo, hi), users in load.items():
        us = np.array(users)
        mid_en = (en0[us] + en1[us]) / 2
        c = (lo + hi) / 2 if np.isfinite(lo) and np.isfinite(hi) else hi if np.isfinite(hi) else lo \
            if np.isfinite(lo) else float(mid_en.mean())
        side = np.where(en1[us] < lo, -1, np.where(en0[us] > hi, 1, 0))      # into a box on its left / right
        run = np.abs(np.clip(c, en0[us], en1[us]) - c)
        top = GL[1, us]
        # left-goers: the first to turn off leftmost; right-goers: the first to turn off rightmost
        rank = np.lexsort((np.where(side > 0, run, -run), np.where(side > 0, -top, top), side))
        us = us[rank]
        finite = int(np.isfinite(lo)) + int(np.isfinite(hi))
        lw, g = _pack(tw[us], _room(lo, hi, s), squeeze=finite == 2)
        off, total = _centres(lw, g, s)
        if finite == 2 or finite == 0:
            start = c - total / 2
        elif np.isfinite(hi):            # left of every box: packed against them
            start = hi - total
        else:
            start = lo
        lane[us] = start + off
        lane_w[us] = lw
    # 2. where each line leaves / enters: box ends spread near the corner facing their lane
    exit_x = np.clip(lane, ex0, ex1)
    entry_x = np.clip(lane, en0, en1)
    jog = np.abs(exit_x - lane) > 1e-9
    pitch = (lane_w + LANE_GAP_PX) / s
    for ends_lo, ends_hi, at, grouped in ((ex0, ex1, exit_x, tu), (en0, en1, entry_x, tl)):
        for sense in (-1, 1):
            off_side = (lane < ends_lo) if sense < 0 else (lane > ends_hi)
            for grp in np.unique(grouped[off_side]).tolist():
                us = np.flatnonzero(off_side & (grouped == grp))
                # the lane farthest out leaves / enters nearest the corner
                us = us[np.argsort(lane[us] * -sense, kind="stable")]
                base = ends_lo[us] if sense < 0 else ends_hi[us]
                at[us] = np.clip(base - sense * np.cumsum(np.r_[0.0, pitch[us][:-1]]), ends_lo[us], ends_hi[us])
    # 3. tracks: the jog under the upper box, the run above the lower box
    y1, y2 = np.full(nt, np.nan), np.full(nt, np.nan)
    track_w = lane_w.copy()
    runs: dict[tuple[float, float], list[tuple[int, float, float]]] = {}
    jogs: dict[tuple[float, float], list[tuple[int, float, float]]] = {}
    for t in range(nt):
        mask = others.copy()
        mask[[tu[t], tl[t]]] = False
        b = boxes[:, mask]
        mine = tid == t
        small_u, small_l = not bool(bu[mine].all()), not bool(bl[mine].all())
        x0, x1 = min(lane[t], entry_x[t]), max(lane[t], entry_x[t])
        if small_l:                      # every member's own entry
            x0, x1 = min(x0, en0[t]), max(x1, en1[t])
        runs.setdefault(free_window(b, x0, x1, GL[1, t], False, GU[3, t]), []).append((t, x0, x1))
        if jog[t] or small_u:
            j0, j1 = min(lane[t], exit_x[t]), max(lane[t], exit_x[t])
            if small_u:
                j0, j1 = min(j0, ex0[t]), max(j1, ex1[t])
            jogs.setdefault(free_window(b, j0, j1, GU[3, t], True, GL[1, t]), []).append((t, j0, j1))
            jog[t] = True
    for windows, out, down in ((jogs, y1, True), (runs, y2, False)):
        for (lo, hi), items in windows.items():
            if hi - lo <= 0:
                continue
            ts = np.array([i[0] for i in items])
            x0 = np.array([i[1] for i in items])
            x1 = np.array([i[2] for i in items])
            track = _jog_tracks(lane[ts], exit_x[ts], x0, x1) if down else _tracks(x0, x1)
            nrows = int(track.max()) + 1
            rw = np.zeros(nrows)
            np.maximum.at(rw, track, tw[ts])
            lw, g = _pack(rw, (hi - lo) * s)
            off, _ = _centres(lw, g, s)
            out[ts] = lo + off[track]
            track_w[ts] = np.minimum(track_w[ts], lw[track])
    good_t = np.isfinite(lane) & np.isfinite(y2) & (~jog | np.isfinite(y1))
    # 4. the points of each line
    ex = np.where(bu, exit_x[tid], ucx)
    en = np.where(bl, entry_x[tid], lcx)
    ln, yy1, yy2 = lane[tid], np.where(jog[tid], y1[tid], U[3]), y2[tid]
    pts = np.stack([np.stack([ex, U[3]], 1), np.stack([ex, yy1], 1), np.stack([ln, yy1], 1),
                    np.stack([ln, yy2], 1), np.stack([en, yy2], 1), np.stack([en, L[1]], 1)], 1)
    sides = np.where(ln <= en, 1.0, -1.0)
    stub = np.vstack([en, L[1], np.zeros(k), -np.ones(k), L[1] - yy2, sides])
    good = good_t[tid] & np.isfinite(pts).all(axis=(1, 2)) & (yy2 < L[1])
    return pts, np.minimum(w, track_w[tid]), stub, good


def _jog_tracks(lane: np.ndarray, exit_x: np.ndarray, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """Tracks (0 = nearest the upper box) of jogs from their exits to their lanes: nested on each
    side (the lane farthest out turns first), the two sides sharing tracks when apart."""
    left = lane < exit_x
    track = np.zeros(len(lane), np.int64)
    for sel, key in ((left, lane), (~left, -lane)):
        idx = np.flatnonzero(sel)
        track[idx[np.argsort(key[idx], kind="stable")]] = np.arange(len(idx))
    if left.any() and (~left).any() and x1[left].max() >= x0[~left].min():
        track[~left] += int(left.sum())
    return track


def _tracks(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """Track (0 = nearest the window's far side) of each run [x0, x1]: the longest first, each on
    the first track where it overlaps no other run (runs from neighbouring lanes that turn apart
    share one: their ends are a lane pitch apart)."""
    order = np.argsort(-(x1 - x0), kind="stable")
    track = np.zeros(len(x0), np.int64)
    taken: list[list[tuple[float, float]]] = []
    for i in order.tolist():
        for t, spans in enumerate(taken):
            if all(x1[i] < a - 1e-9 or x0[i] > b + 1e-9 for a, b in spans):
                spans.append((x0[i], x1[i]))
                track[i] = t
                break
        else:
            taken.append([(x0[i], x1[i])])
            track[i] = len(taken) - 1
    return track


__all__ = ["CORNER", "LANE_GAP_PX", "MIN_LANE_PX", "OUTER_ROOM_PX", "Routes", "clamp_points", "crosses", "facing_ends",
           "free_gaps", "free_window", "meets_inside", "route", "segment_distance", "spread_ends", "straight"]
