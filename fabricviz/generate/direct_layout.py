"""Layouts of tori, meshes and rings that read as what they are, for a canvas of straight lines.

The canvas draws a cable as a straight line between its port anchors: a switch port sits on the
switch's top or bottom edge (the side facing the peer) at a place given by its port number, so
the torus ports (numbered first) sit at the switch's left end and the host ports after them.

* **Ring** (and a 1-D line): the switches on a circle, each one's hosts outside it; every cable
  is a chord between neighbours, inside the circle, with nothing on it.
* **2-D**: switches on the grid (dimension 0 across, 1 down), each switch's hosts in a block
  above it, right of its torus ports (so no cable from above runs into them). Wrap-around
  cables would run straight along a row or column through every switch on it, so the first
  and last switch of each row sit :data:`ROW_END_DROP` lower (the row's wrap cable runs just
  below the row's switches) and the first and last row sit a little left (the column's wrap cable
  runs just left of the column's switches, clear of the torus ports): nothing lies on a wrap cable.
* **3-D**: one such grid per z-plane, the planes side by side round a loop (two rows, the second
  right to left), so plane k and k+1 — and the last and the first, joined by the z wrap-around
  cables — are always neighbours: no z cable crosses a third plane. Neighbouring planes are
  staggered by half a row (column) pitch, so a z cable is not drawn on top of a row or column.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..model import Fabric, Part
from .autolayout import with_children
from .geometry import SWITCH_H, device_rects, switch_widths

if TYPE_CHECKING:
    from .direct import TorusPlan

HOST_GAP = 8.0            # between the servers of one switch
HOST_LIFT = 28.0          # from a switch's top edge to its hosts
ANCHOR_CLEAR = 12.0       # from the last torus-port anchor to the hosts / the wrap cable
ROW_END_DROP = 40.0       # the ends of a wrapped row sit this much lower
COL_GAP, ROW_GAP = 60.0, 56.0
PLANE_GAP = 220.0
RING_GAP = 60.0           # between two neighbours' tiles on a ring


def layout_torus(f: Fabric, plan: TorusPlan, ids: np.ndarray, servers: np.ndarray, part: Part) -> None:
    """Place the switches ``ids`` (grid order) and their ``servers`` (host order) of a torus."""
    w = float(switch_widths(part.ports))
    # where the torus ports end along the switch (anchors at (num - 0.5) · w / ports)
    a_max = (plan.torus_ports - 0.5) * w / part.ports
    r = device_rects(f, servers[:1])
    t = f.devices_t
    hw, hh = float(r[2, 0] - r[0, 0]), float(r[3, 0] - r[1, 0])
    ocx = (r[0, 0] + r[2, 0]) / 2 - float(t.x[servers[0]])
    ocy = (r[1, 0] + r[3, 0]) / 2 - float(t.y[servers[0]])
    # the hosts of one switch: a block of cols × rows servers, nearest row first
    n_srv = len(servers) // len(ids)              # servers per switch (a DGX has 8 host ports)
    rows = max(1, math.ceil(math.sqrt(n_srv / 3)))
    cols = math.ceil(n_srv / rows)
    bw, bh = cols * (hw + HOST_GAP) - HOST_GAP, rows * (hh + HOST_GAP) - HOST_GAP
    k = np.arange(n_srv)
    # block-relative host centres: (0, 0) is the block's bottom-left corner
    bx = (k % cols) * (hw + HOST_GAP) + hw / 2
    by = -(k // cols) * (hh + HOST_GAP) - hh / 2
    if len(plan.dims) == 1:
        sx, sy, left, bottom = _ring(plan, w, bw, bh)
    else:
        sx, sy = _grid_3d(plan, w, a_max, bw, bh)
        left = np.full(len(sx), -w / 2 + a_max + ANCHOR_CLEAR)
        bottom = np.full(len(sx), -SWITCH_H / 2 - HOST_LIFT)
    sw_of = np.repeat(np.arange(len(ids)), n_srv)
    hx = sx[sw_of] + left[sw_of] + np.tile(bx, len(ids)) - ocx
    hy = sy[sw_of] + bottom[sw_of] + np.tile(by, len(ids)) - ocy
    tops = np.concatenate([ids, servers]).astype(np.int64)
    all_ids, xs, ys = with_children(f, tops, np.concatenate([sx, hx]), np.concatenate([sy, hy]))
    f.set_positions(all_ids, np.round(xs, 1), np.round(ys, 1))


def _ring(plan: TorusPlan, w: float, bw: float, bh: float
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Switch centres on a circle (switch 0 at the top, clockwise) and each host block's
    bottom-left corner relative to its switch, pushed outwards."""
    n = plan.dims[0]
    tile = max(w, bw) + RING_GAP
    radius = max(tile / (2 * math.sin(math.pi / n)), 2 * tile / math.pi, 160.0) if n > 2 else tile
    ang = -math.pi / 2 + 2 * math.pi * np.arange(n) / n
    ux, uy = np.cos(ang), np.sin(ang)
    sx, sy = radius * ux, radius * uy
    # block centre outside the switch along (ux, uy): clear of the switch's half size and its own
    reach = np.abs(ux) * (w + bw) / 2 + np.abs(uy) * (SWITCH_H + bh) / 2 + HOST_LIFT
    return sx, sy, ux * reach - bw / 2, uy * reach + bh / 2


def _grid_2d(plan: TorusPlan, w: float, a_max: float, bw: float, bh: float
             ) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Centres of one plane's switches (dimension 0 across, 1 down), in grid order of the
    plane, and the plane's pitch (dx, dy)."""
    n0, n1 = plan.dims[0], plan.dims[1]
    row_wrap = plan.wrap and n0 >= 3
    col_wrap = plan.wrap and n1 >= 3
    shift = a_max + ANCHOR_CLEAR + 4.0 if col_wrap else 0.0
    drop = ROW_END_DROP if row_wrap else 0.0
    tile_w = max(w, a_max + ANCHOR_CLEAR + bw)
    dx = tile_w + shift + COL_GAP
    dy = SWITCH_H + HOST_LIFT + bh + drop + ROW_GAP
    gi, gj = np.meshgrid(np.arange(n0), np.arange(n1), indexing="ij")
    i, j = gi.ravel(), gj.ravel()
    x = i * dx - np.where(col_wrap & ((j == 0) | (j == n1 - 1)), shift, 0.0)
    y = j * dy + np.where(row_wrap & ((i == 0) | (i == n0 - 1)), drop, 0.0)
    return x, y, dx, dy


def _grid_3d(plan: TorusPlan, w: float, a_max: float, bw: float, bh: float
             ) -> tuple[np.ndarray, np.ndarray]:
    """Centres of every switch in grid order (C order over dims): planes round a loop."""
    x, y, dx, dy = _grid_2d(plan, w, a_max, bw, bh)
    if len(plan.dims) == 2:
        return x, y
    nz = plan.dims[2]
    width = (plan.dims[0] - 1) * dx + max(w, a_max + ANCHOR_CLEAR + bw)
    height = (plan.dims[1] - 1) * dy + SWITCH_H + HOST_LIFT + bh
    px, py = _plane_loop(nz)
    # a half-pitch stagger: a z cable is never drawn on top of a row or column of its planes
    ox = px * (width + PLANE_GAP) + py * dx / 2
    oy = py * (height + PLANE_GAP) + px * dy / 2
    # grid order is (i, j, k) with k fastest
    return (np.repeat(x, nz) + np.tile(ox, len(x)), np.repeat(y, nz) + np.tile(oy, len(y)))


def _plane_loop(nz: int) -> tuple[np.ndarray, np.ndarray]:
    """Plane positions (in plane widths / heights) round a loop: the first ceil(nz/2) left to
    right, the rest right to left below them (centred when fewer), so neighbours stay adjacent."""
    top = (nz + 1) // 2
    bot = nz - top
    k = np.arange(nz)
    px = np.where(k < top, k, (top - 1) - (k - top) - (top - bot) / 2).astype(np.float64)
    py = (k >= top).astype(np.float64)
    return px, py


__all__ = ["layout_torus"]
