"""Cables on the canvas: not items but a few paths, one per colour bucket (technology ×
cable type), rebuilt from the model's numpy columns, hit-tested in numpy; where a cable's
ends sit on its devices. Each cable is drawn along its route through the gutters
(:mod:`~fabricviz.ui.canvas.items.gutters`), never straight across a device."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate.geometry import device_rects
from fabricviz.generate.groups import Grouping
from fabricviz.model import Fabric
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.devices import K_ETHSW, K_IBSW, ROLE_KIND
from fabricviz.ui.canvas.items.gutters import SEGS, NearRoutes, route_cables
from fabricviz.ui.canvas.items.rack_routes import find_racks, route_with_racks

if TYPE_CHECKING:
    from fabricviz.ui.canvas.items.segments import SegmentPathItem
    from fabricviz.ui.canvas.scene import FabricScene


def cable_anchors(f: Fabric, cids: np.ndarray) -> tuple[np.ndarray, ...]:
    """End points (ax, ay, bx, by) of cables: a switch port sits along its top or
    bottom edge by port number, facing the peer; a NIC port on its NIC's edge."""
    ct, pt, dt = f.cables_t, f.ports_t, f.devices_t
    pa, pb = ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)
    ya, yb = dt.y[pt.device[pa]].astype(np.float64), dt.y[pt.device[pb]].astype(np.float64)
    return (*port_anchors(f, pa, yb), *port_anchors(f, pb, ya))


def port_anchors(f: Fabric, ports: np.ndarray, toward_y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where ports are drawn (x, y) when their cables go toward ``toward_y``: along the top or the
    bottom edge of their device by port number (a line that is no cable of the design, such as a
    discovered fabric's, starts where a cable would)."""
    pt, dt = f.ports_t, f.devices_t
    p = np.asarray(ports, np.int64)
    d = pt.device[p]
    y_self = dt.y[d].astype(np.float64)
    kind = dt.kind[d]
    n = np.maximum(dt.nports[d].astype(np.float64), 1.0)
    sw = (kind == K_IBSW) | (kind == K_ETHSW)
    w = np.where(sw, np.clip(n * 1.5, 48.0, 120.0), th.CHILD_W)
    h = np.where(sw, th.SWITCH_H, th.CHILD_H)
    x = dt.x[d].astype(np.float64) - w / 2 + (pt.num[p] - 0.5) * w / n
    y = y_self + np.where(np.asarray(toward_y, np.float64) < y_self, -h / 2, h / 2)
    return x, y


def path_pairs(ax: np.ndarray, ay: np.ndarray, bx: np.ndarray, by: np.ndarray) -> QtGui.QPainterPath:
    """One path of disjoint segments, built from arrays without a Python loop."""
    from pyqtgraph.functions import arrayToQPath
    if not len(ax):
        return QtGui.QPainterPath()
    x = np.empty(2 * len(ax))
    y = np.empty(2 * len(ax))
    x[0::2], x[1::2], y[0::2], y[1::2] = ax, bx, ay, by
    return arrayToQPath(x, y, connect="pairs")


def top_devices(f: Fabric, devices: np.ndarray) -> np.ndarray:
    """The top-level device (a server for its GPUs and NICs) of each of ``devices``."""
    par = f.devices_t.parent[devices]
    return np.where(par >= 0, par, devices).astype(np.int64)


_cache: dict[int, tuple[tuple, NearRoutes]] = {}


def routes_for(f: Fabric, groups: Grouping | None = None) -> NearRoutes:
    """Every cable of ``f`` routed (cached until a device or cable of ``f`` changed); ``groups``:
    its host blocks when known (else found)."""
    t, ct = f.devices_t, f.cables_t
    ids = f.cable_ids()
    key = (t.n, hash(t.x[:t.n].tobytes()), hash(t.y[:t.n].tobytes()), hash(t.alive[:t.n].tobytes()),
           hash(ids.tobytes()), hash(ct.port_a[ids].tobytes()), hash(ct.port_b[ids].tobytes()),
           repr(f.meta.get("nvlink_domains")))
    hit = _cache.get(id(f))
    if hit is not None and hit[0] == key:
        return hit[1]
    seg = _port_routes(f, ct.port_a[ids], ct.port_b[ids], np.vstack(cable_anchors(f, ids)) if len(ids) else None,
                       groups)
    out = NearRoutes(np.asarray(ids, np.int64), seg)
    _cache.pop(id(f), None)
    while len(_cache) >= 2:               # the shown design and one more (a lesson's "before")
        _cache.pop(next(iter(_cache)))
    _cache[id(f)] = (key, out)
    return out


def _port_routes(f: Fabric, pa: np.ndarray, pb: np.ndarray, ends: np.ndarray | None,
                 groups: Grouping | None = None) -> np.ndarray:
    """[4, SEGS * n] routes between ports ``pa`` and ``pb`` from their drawn ``ends`` ([4, n])
    through the gutters between the top-level devices."""
    t, pt = f.devices_t, f.ports_t
    tops = f.device_ids()
    tops = tops[t.parent[tops] < 0]
    col = np.full(t.n, -1, np.int64)
    col[tops] = np.arange(len(tops))
    da = col[top_devices(f, pt.device[np.asarray(pa, np.int64)])]
    db = col[top_devices(f, pt.device[np.asarray(pb, np.int64)])]
    rects = device_rects(f, tops)
    ends = ends if ends is not None else np.zeros((4, 0))
    racks = find_racks(f, tops, rects, groups)    # an NVLink rack's trays route as one device
    return route_cables(rects, da, db, ends) if racks is None else route_with_racks(rects, da, db, ends, racks)


def routed_links(f: Fabric, pa: np.ndarray, pb: np.ndarray) -> QtGui.QPainterPath:
    """Links between ports ``pa`` and ``pb`` that are no cable of ``f`` (what a discovered fabric
    has instead) drawn as a cable between them would be: from where its ports sit, through the
    gutters, never across a device."""
    pa, pb = np.asarray(pa, np.int64), np.asarray(pb, np.int64)
    if not len(pa):
        return QtGui.QPainterPath()
    ya, yb = f.devices_t.y[f.ports_t.device[pa]], f.devices_t.y[f.ports_t.device[pb]]
    e = drawn_segments(_port_routes(f, pa, pb, np.vstack([*port_anchors(f, pa, yb), *port_anchors(f, pb, ya)])))
    return path_pairs(e[0], e[1], e[2], e[3])


def drawn_segments(seg: np.ndarray) -> np.ndarray:
    """``seg`` ([4, n]) without its empty segments."""
    return seg[:, (seg[0] != seg[2]) | (seg[1] != seg[3])]


def routed_path(f: Fabric, cids: np.ndarray) -> QtGui.QPainterPath:
    """Cables ``cids`` drawn along their routes (what :class:`CableLayer` draws), for overlays."""
    e = drawn_segments(routes_for(f).of(np.asarray(cids, np.int64)))
    return path_pairs(e[0], e[1], e[2], e[3])


#: A traced path's consecutive cables are joined (through the device between them) when their ends
#: are at most this far apart (scene units: across the widest switch); farther, a cable between
#: them is gone and the path starts again.
JOIN_REACH = 160.0


def walked_path(f: Fabric, cids: np.ndarray | list[int] | tuple[int, ...]) -> QtGui.QPainterPath:
    """A path through cables ``cids`` in order along their drawn routes, each walked from the
    end nearer the previous one and joined where they meet (a traced path, a lesson's route)."""
    path = QtGui.QPainterPath()
    ids = np.asarray([int(c) for c in cids if f.cables_t.exists(int(c))], np.int64)
    if not len(ids):
        return path
    seg = routes_for(f).of(ids).reshape(4, len(ids), SEGS)
    last: tuple[float, float] | None = None
    for i in range(len(ids)):
        xs = np.r_[seg[0, i], seg[2, i, -1]]
        ys = np.r_[seg[1, i], seg[3, i, -1]]
        if last is not None and np.hypot(xs[-1] - last[0], ys[-1] - last[1]) < np.hypot(xs[0] - last[0],
                                                                                          ys[0] - last[1]):
            xs, ys = xs[::-1], ys[::-1]
        x0, y0 = float(xs[0]), float(ys[0])
        if last is None or np.hypot(x0 - last[0], y0 - last[1]) > JOIN_REACH:
            path.moveTo(x0, y0)          # the first cable, or one after a cable that is gone
        elif abs(x0 - last[0]) + abs(y0 - last[1]) > 1e-6:
            path.lineTo(x0, last[1])     # through the switch between them, at right angles
            path.lineTo(x0, y0)
        for x, y in zip(xs[1:].tolist(), ys[1:].tolist(), strict=True):
            path.lineTo(x, y)
        last = (float(xs[-1]), float(ys[-1]))
    return path


class CableLayer:
    """All cables as a few bucketed path items plus numpy arrays for hit tests."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.items: dict[tuple[int, str], SegmentPathItem] = {}
        self.ids = np.zeros(0, np.int64)
        self.ends = np.zeros((4, 0))                   # port ends of cable ids[i]
        self.segs = np.zeros((4, 0))                   # drawn segments (routes), SEGS per cable
        self._count: dict[tuple[int, str], int] = {}
        self.highlight = QtWidgets.QGraphicsPathItem()
        self.highlight.setZValue(-0.5)
        scene.addItem(self.highlight)
        self.live = QtWidgets.QGraphicsPathItem()      # cables of devices being dragged
        self.live.setZValue(-0.5)
        scene.addItem(self.live)
        self.hidden: np.ndarray | None = None          # cable ids drawn by ``live`` instead

    def rebuild(self, f: Fabric | None) -> None:
        theme = self.scene.theme
        ids = f.cable_ids() if f is not None else np.zeros(0, np.int64)
        self.ids = ids
        self.ends = np.vstack(cable_anchors(f, ids)) if f is not None and len(ids) else np.zeros((4, 0))
        self.segs = routes_for(f).of(ids) if f is not None and len(ids) else np.zeros((4, 0))
        seg3 = self.segs.reshape(4, len(ids), SEGS)
        keep = np.ones(len(ids), bool)
        if self.hidden is not None and len(ids):
            keep = ~np.isin(ids, self.hidden)
        tech = f.cables_t.tech[ids] if f is not None and len(ids) else np.zeros(0, np.int8)
        ctype = f.cables_t.ctype[ids] if f is not None and len(ids) else np.zeros(0, np.int8)
        seen = set()
        for (tc, tname), pen in theme.cable_pens.items():
            sel = np.flatnonzero(keep & (tech == tc) & (ctype == ("dac", "aoc", "transceiver").index(tname)))
            key = (tc, tname)
            if not len(sel):
                continue
            seen.add(key)
            item = self.items.get(key)
            if item is None:
                from fabricviz.ui.canvas.items.segments import SegmentPathItem
                item = SegmentPathItem()     # paints only what the view shows on big designs
                item.setZValue(-1.0)
                item.setCacheMode(self.scene.path_cache)
                item.setData(ROLE_KIND, "cables")
                self.scene.addItem(item)
                self.items[key] = item
            item.setPen(pen)
            e = drawn_segments(seg3[:, sel].reshape(4, -1))
            item.setPath(path_pairs(e[0], e[1], e[2], e[3]))
            item.set_segments(e)
            self._count[key] = len(sel)
        for key in [k for k in self.items if k not in seen]:
            self.scene.removeItem(self.items.pop(key))
            self._count.pop(key, None)
        self.update_highlight()

    def counts(self) -> dict[tuple[int, str], int]:
        return {k: self._count.get(k, 0) for k in self.items}

    def update_highlight(self) -> None:
        sel = np.asarray(sorted(self.scene.selected_cables), dtype=np.int64)
        idx = np.flatnonzero(np.isin(self.ids, sel)) if len(sel) else np.zeros(0, np.int64)
        e = drawn_segments(self.segs.reshape(4, len(self.ids), SEGS)[:, idx].reshape(4, -1))
        self.highlight.setPen(self.scene.theme.select_pen)
        self.highlight.setPath(path_pairs(e[0], e[1], e[2], e[3]))

    def cable_at(self, pos: QtCore.QPointF, tol: float) -> int | None:
        """The cable nearest ``pos`` within ``tol`` scene units, or None."""
        if not len(self.ids):
            return None
        ax, ay, bx, by = self.segs
        px, py = pos.x(), pos.y()
        dx, dy = bx - ax, by - ay
        ll = dx * dx + dy * dy
        t = np.clip(((px - ax) * dx + (py - ay) * dy) / np.where(ll > 0, ll, 1.0), 0.0, 1.0)
        d2 = (ax + t * dx - px) ** 2 + (ay + t * dy - py) ** 2
        i = int(np.argmin(d2))
        return int(self.ids[i // SEGS]) if d2[i] <= tol * tol else None

    def point_on(self, cid: int) -> QtCore.QPointF:
        """A point on cable ``cid``'s drawn route that no other cable's route shares: the middle of
        the longer of its first and last segments (the ones from and into its own ports)."""
        i = int(np.flatnonzero(self.ids == cid)[0])
        e = drawn_segments(self.segs[:, SEGS * i:SEGS * (i + 1)])
        if not e.shape[1]:
            return QtCore.QPointF(float(self.ends[0, i]), float(self.ends[1, i]))
        ends = e[:, [0, -1]]
        k = int(np.argmax(np.hypot(ends[2] - ends[0], ends[3] - ends[1])))
        return QtCore.QPointF(float(ends[0, k] + ends[2, k]) / 2, float(ends[1, k] + ends[3, k]) / 2)

    def show_live(self, f: Fabric, dev_ids: np.ndarray, offsets: dict[int, QtCore.QPointF]) -> None:
        """While devices are dragged: draw their cables from the items' current places."""
        pt, ct, dt = f.ports_t, f.cables_t, f.devices_t
        if self.hidden is None:
            mask = np.isin(pt.device[ct.port_a[self.ids]], dev_ids) | \
                np.isin(pt.device[ct.port_b[self.ids]], dev_ids)
            self.hidden = self.ids[mask]
            self.rebuild(f)
        idx = np.flatnonzero(np.isin(self.ids, self.hidden))
        e = self.ends[:, idx].copy()
        for col, port_col in ((0, ct.port_a), (2, ct.port_b)):
            dev = pt.device[port_col[self.ids[idx]]]
            top = np.where(dt.parent[dev] >= 0, dt.parent[dev], dev)
            for d, off in offsets.items():
                m = top == d
                e[col, m] += off.x()
                e[col + 1, m] += off.y()
        self.live.setPen(self.scene.theme.cable_pens[(1, "aoc")])
        self.live.setPath(path_pairs(e[0], e[1], e[2], e[3]))

    def end_live(self) -> None:
        self.hidden = None
        self.live.setPath(QtGui.QPainterPath())


__all__ = ["CableLayer", "cable_anchors", "drawn_segments", "path_pairs", "routed_path", "routes_for",
           "top_devices", "walked_path"]
