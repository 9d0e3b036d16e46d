"""Near routes of an NVLink rack's scale-out cables: the rack (its compute trays) is one device to
the gutter router, and each tray's cable leaves the rack cleanly.

An NVL72 rack (:mod:`fabricviz.model.nvlink`, an explicit rack domain) is drawn as one block, or
opened as a frame round its trays with the NVLink switch trays and three labels under it
(:mod:`fabricviz.ui.canvas.items.nvlink`). Routed tray by tray, the trays' rows would be bands of
their own: cables to a lower row would run along the name rows between the upper trays and down
the rack's edges, across the opened rack's trays, names and labels. Instead the rack's trays count
as one rectangle (the frame, with room for the switch trays and the labels under it), so cables
keep to the gutters outside racks; a tray's cable reaches it from the gutter between the rack and
the other end's row, down the gap at the tray's left (one lane per NIC of the tray, clear of the
NVLink links' line there) to its NIC's height, and across into the NIC (under the tray's fill).
Collapsed, the block covers the part inside the rack: the cables end on its edge.

A host block (:func:`fabricviz.generate.groups.find_groups`: a leaf's servers) laid out in two rows
or more, with no other device among them (a 3-level fat tree's 2 × 4 servers, a DGX SuperPOD SU's
grid), is routed the same way: its servers' cables come down the gaps at their left instead of
along the name rows between its servers, and lanes passing by keep out of it.

Numpy arrays only, the open rack's measures from :mod:`.nvlink` (the routes are computed once per
layout, see ``cables.routes_for``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np

from fabricviz.generate.groups import Grouping, find_groups, rack_domains
from fabricviz.ui.canvas.items.gutters import LANE_STEP, NAME_ROOM, SEGS, bands, route_points
from fabricviz.ui.canvas.items.nvlink import LABEL_STEP, LABEL_TOP, PAD, ROW_GAP, TRAY_H

#: The frame's margin round the trays (the open rack's, :mod:`.nvlink`).
FRAME_PAD = PAD
#: Kept free under the frame: the switch trays' row and the three labels under it (:mod:`.nvlink`:
#: ROW_GAP + TRAY_H, then the labels at +14, +34 and +54, each 14 high).
BELOW = ROW_GAP + TRAY_H + LABEL_TOP + 2 * LABEL_STEP + 14.0
#: Lanes keep below this much of a gutter where an NVLink rack is drawn (scene units): the leaves'
#: names above the racks are 40 units high at fit (~47 %), where ``gutters.NAME_ROOM`` (20) put the
#: leftmost leaves' lanes through them (issue 29); ``autolayout.RACK_DROP`` leaves the room.
RACK_NAME_ROOM = 44.0
#: A host block's margin to the router (in two rows or more its servers' cables come down the gaps too).
BLOCK_PAD = 8.0
#: A tray's cables come down the gap at its left this far from its edge, one lane per NIC (the
#: NVLink links run 4 units left of the tray).
GAP_LANES = (1.5, 2.75, 5.25, 6.5)


class Racks(NamedTuple):
    """The explicit rack domains of a design as columns of ``tops``."""
    unit: np.ndarray        # [len(tops)] rack index of each top-level device, -1: none
    rects: np.ndarray       # [4, racks] the rack's rectangle to the router (frame and what is under it)
    room: float = NAME_ROOM     # lanes keep below this much of each gutter (the names)


def find_racks(f: Any, tops: np.ndarray, rects: np.ndarray, groups: Grouping | None = None) -> Racks | None:
    """The racks of ``f`` among the top-level devices ``tops`` (rectangles ``rects``), then its host
    blocks (of ``groups``, by default found) laid out in two rows or more with no other device
    among them; None if none."""
    col = np.full(int(f.devices_t.n), -1, np.int64)
    col[tops] = np.arange(len(tops))
    unit = np.full(len(tops), -1, np.int64)
    out: list[list[float]] = []
    by_x = np.argsort(rects[0], kind="stable")
    x_sorted = rects[0, by_x]
    with np.errstate(invalid="ignore"):          # a device at a non-finite position (refused on save)
        width = rects[2] - rects[0]
    width = width[np.isfinite(width)]
    widest = float(width.max()) if len(width) else 0.0
    nvl = False
    for members, pad, below in _candidates(f, groups):
        c = col[members]
        c = c[(c >= 0) & (unit[np.maximum(c, 0)] < 0)]
        if not len(c):
            continue
        r = rects[:, c]
        box = [r[0].min() - pad, r[1].min() - pad, r[2].max() + pad, r[3].max() + pad + below]
        if below == 0.0:
            near = by_x[np.searchsorted(x_sorted, box[0] - widest):np.searchsorted(x_sorted, box[2])]
            q = rects[:, near]
            meet = (q[0] < box[2]) & (q[2] > box[0]) & (q[1] < box[3]) & (q[3] > box[1])
            if len(bands(r)[0]) < 2 or int(meet.sum()) > len(c):     # one row, or others among them
                continue
        unit[c] = len(out)
        out.append(box)
        nvl |= below > 0.0
    if not out:
        return None
    return Racks(unit, np.asarray(out, np.float64).T, RACK_NAME_ROOM if nvl else NAME_ROOM)


def _candidates(f: Any, groups: Grouping | None) -> Iterator[tuple[np.ndarray, float, float]]:
    """(servers, margin, room under) of each NVLink rack, then of each host block."""
    if "nvlink_domains" in f.meta:
        for d in rack_domains(f):            # none when refused: lint says why; route tray by tray
            yield d.servers, FRAME_PAD, BELOW
    g = find_groups(f) if groups is None else groups
    t = f.devices_t
    top = np.flatnonzero(t.alive[:t.n] & (t.parent[:t.n] < 0) & (g.block[:t.n] >= 0))
    order = np.argsort(g.block[top], kind="stable")
    top = top[order]
    cuts = np.flatnonzero(np.diff(g.block[top])) + 1
    for members in np.split(top, cuts):
        if len(members) > 1:
            yield members, BLOCK_PAD, 0.0


def route_with_racks(rects: np.ndarray, dev_a: np.ndarray, dev_b: np.ndarray, ends: np.ndarray,
                     racks: Racks) -> np.ndarray:
    """[4, SEGS*n] like ``gutters.route_cables`` with each rack one rectangle, its trays' cables
    taken through the gap at the tray's left (module doc)."""
    n = ends.shape[1]
    m = rects.shape[1]
    keep = np.flatnonzero(racks.unit < 0)
    new = np.empty(m, np.int64)
    new[keep] = np.arange(len(keep))
    inr = racks.unit >= 0
    new[inr] = len(keep) + racks.unit[inr]
    merged = np.hstack([rects[:, keep], racks.rects])
    ua, ub = racks.unit[dev_a], racks.unit[dev_b]
    ends = np.asarray(ends, np.float64).copy()
    nic = ends.copy()
    side_a = (ua >= 0) & (ua != ub)          # a at a tray, b outside its rack
    side_b = (ub >= 0) & (ua != ub) & ~side_a
    gx = np.zeros(n)
    for side, dev, xi, yi, other_y in ((side_a, dev_a, 0, 1, 3), (side_b, dev_b, 2, 3, 1)):
        k = np.flatnonzero(side)
        if not len(k):
            continue
        tray = dev[k]
        gx[k] = rects[0, tray] - np.asarray(GAP_LANES)[_nic_rank(tray, ends[xi, k])]
        r = racks.rects[:, racks.unit[tray]]
        ends[xi, k] = gx[k]
        ends[yi, k] = np.where(ends[other_y, k] < ends[yi, k], r[1], r[3])
    pts = route_points(merged, new[dev_a], new[dev_b], ends, LANE_STEP, racks.room)
    # the points run from the upper end: a rack's end is the last point (rack below) or the first
    for side, xi, yi in ((side_a, 0, 1), (side_b, 2, 3)):
        k = np.flatnonzero(side)
        if not len(k):
            continue
        last = np.isclose(pts[k, -1, 0], ends[xi, k]) & np.isclose(pts[k, -1, 1], ends[yi, k])
        nx, ny = nic[xi, k], nic[yi, k]
        _enter(pts, k[last], nx[last], ny[last], gx[k[last]], False)
        _enter(pts, k[~last], nx[~last], ny[~last], gx[k[~last]], True)
    out = np.zeros((4, SEGS * n))
    s = out.reshape(4, n, SEGS)
    s[0], s[1] = pts[:, :-1, 0], pts[:, :-1, 1]
    s[2], s[3] = pts[:, 1:, 0], pts[:, 1:, 1]
    return out


def _nic_rank(tray: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Each cable's lane in its tray's gap: its NIC's rank by x within the tray (cycling the lanes)."""
    o = np.lexsort((x, tray))
    t, xs = tray[o], x[o]
    first = np.r_[True, (t[1:] != t[:-1]) | (xs[1:] != xs[:-1])]   # a new NIC position
    new_tray = np.r_[True, t[1:] != t[:-1]]
    rank_sorted = np.cumsum(first) - 1
    base = np.maximum.accumulate(np.where(new_tray, rank_sorted, 0))
    out = np.empty(len(o), np.int64)
    out[o] = (rank_sorted - base) % len(GAP_LANES)
    return out


def _enter(pts: np.ndarray, k: np.ndarray, nx: np.ndarray, ny: np.ndarray, gx: np.ndarray, first: bool) -> None:
    """Routes ``k`` end in the rack at the gap ``gx``: take them down the gap to the NIC's height
    and across into it. A route with empty segments to spare (between neighbouring rows: down,
    across, down) gets both; a longer one ends beside the tray at the NIC's height."""
    if not len(k):
        return
    p = pts[k] if not first else pts[k, ::-1]         # from the far end to the rack's
    same = np.isclose(p[:, 1:4], p[:, 2:5]).all(axis=2)      # point i + 1 == point i + 2
    mid = same[:, 1] & same[:, 2]                      # points 2, 3, 4 one (down, across, down)
    early = same[:, 0] & same[:, 1] & ~mid             # points 1, 2, 3 one (down, down, across)
    p[:, -1, 1] = ny                                   # down the gap to the NIC's height …
    s = np.flatnonzero(mid | early)
    e = np.flatnonzero(early)
    p[e, 2] = p[e, 1]
    p[s, 3] = p[s, 4]                                  # (gx, y1) …
    p[s, 4, 0], p[s, 4, 1] = gx[s], ny[s]              # … down the gap …
    p[s, 5, 0], p[s, 5, 1] = nx[s], ny[s]              # … and across into the NIC
    pts[k] = p if not first else p[:, ::-1]


__all__ = ["BELOW", "FRAME_PAD", "GAP_LANES", "RACK_NAME_ROOM", "Racks", "find_racks", "route_with_racks"]
