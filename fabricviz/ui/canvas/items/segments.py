"""Many line segments drawn fast: culling, cutting to the view and merging by screen cells.

Shared by the canvas's own cable layer (:mod:`fabricviz.ui.canvas.scene`) and the traffic heatmap
(:mod:`fabricviz.ui.canvas.overlays.traffic`). Below :data:`LOD_ZOOM`, segments whose two ends fall in
the same :data:`LOD_CELL_PX`-pixel screen cells are drawn once; only segments within the view
(plus a margin, so small pans reuse the work) are drawn, cut to it. :class:`SegmentLods`
caches one grouping per zoom bucket and window.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

#: View scale below which segments whose two ends share screen cells merge into one drawn segment
#: (2-px cells: merged lines lie within 2 px of each other all along, so at 1:1 too it only
#: spares drawing the same pixels many times — 14k core cables cross a 1:1 view of a k=48 tree).
LOD_ZOOM = 4.0
#: Below this scale merged segments are drawn without antialiasing (many per pixel: it only blurs).
AA_ZOOM = 1.0
#: Side of a merge cell in device pixels.
LOD_CELL_PX = 2.0
#: A window holding fewer cables than this draws each one (merging would not pay).
LOD_MIN_CABLES = 1000
#: Scale buckets per doubling of the zoom: a zoom inside one bucket reuses its grouping.
SCALE_STEPS = 4
#: The culling window is the visible rect grown by this fraction of its size on every side
#: (pans inside it reuse the grouping).
WINDOW_MARGIN = 0.25
#: Cull again once the window holds this many times the design area the view shows (zoomed in).
RECULL = 4.0
_ALL = (-np.inf, -np.inf, np.inf, np.inf)


@dataclass(frozen=True, eq=False)
class Lod:
    """How the cables of one culling window map to drawn segments at one scale bucket.

    Segment ``g`` draws columns ``cols[starts[g]:starts[g + 1]]`` (columns index the
    overlay's ``cables``); its ends are ``x[2g:2g + 2]``, ``y[2g:2g + 2]``;
    ``group[col]`` is the segment drawing a column, -1 when culled.
    """

    merged: bool
    scale: float                                  # bucket scale (0 when drawn one by one)
    window: tuple[float, float, float, float]     # left, top, right, bottom (scene)
    cols: np.ndarray
    starts: np.ndarray
    group: np.ndarray
    x: np.ndarray
    y: np.ndarray

    @property
    def segments(self) -> int:
        return len(self.starts)

    def covers(self, rect: tuple[float, float, float, float], content: tuple[float, ...]) -> bool:
        """True when this grouping still serves a view of ``rect``: the rect lies in the window,
        and the window's share of the ``content`` box is not much larger than the rect's
        (else the view zoomed in since and culling again pays)."""
        l, t, r, b = self.window
        if not (l <= rect[0] and t <= rect[1] and rect[2] <= r and rect[3] <= b):
            return False
        return _seen(self.window, content) <= RECULL * _seen(rect, content)


def _seen(rect: tuple[float, ...], content: tuple[float, ...]) -> float:
    """Area of ``rect`` ∩ ``content`` (left, top, right, bottom boxes)."""
    w = min(rect[2], content[2]) - max(rect[0], content[0])
    h = min(rect[3], content[3]) - max(rect[1], content[1])
    return max(w, 0.0) * max(h, 0.0)


def clip_segments(ends: np.ndarray, window: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Segments ([4, n]) cut to ``window`` (Liang–Barsky): a mask of those that meet it and
    their clipped ends (segments that miss keep their ends)."""
    ax, ay, bx, by = ends
    l, t, r, b = window
    dx, dy = bx - ax, by - ay
    t0, t1 = np.zeros(len(ax)), np.ones(len(ax))
    ok = np.ones(len(ax), bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        for p, q in ((-dx, ax - l), (dx, r - ax), (-dy, ay - t), (dy, b - ay)):
            u = q / p
            t0 = np.where(p < 0, np.maximum(t0, u), t0)
            t1 = np.where(p > 0, np.minimum(t1, u), t1)
            ok &= (p != 0) | (q >= 0)
    ok &= t0 <= t1
    out = np.array(ends, np.float64, copy=True)
    out[:, ok] = np.vstack([ax + t0 * dx, ay + t0 * dy, ax + t1 * dx, ay + t1 * dy])[:, ok]
    return ok, out


def group_segments(ends: np.ndarray, window: tuple[float, float, float, float] = _ALL,
                   cell: float | None = None) -> Lod:
    """Cut ``ends`` ([4, n]: ax, ay, bx, by) to ``window``, dropping segments that miss it; with a
    ``cell`` size (scene units), merge segments whose two (cut) ends fall in the same two cells,
    either way round: cables crossing the view merge by where they enter and leave it. A merged
    segment is drawn along its first member."""
    n = ends.shape[1]
    e, vis = ends, np.arange(n)
    if window != _ALL:          # cut to the window: what lies outside is never seen
        ax, ay, bx, by = ends
        l, t, r, b = window
        vis = np.flatnonzero((np.minimum(ax, bx) <= r) & (np.maximum(ax, bx) >= l)
                             & (np.minimum(ay, by) <= b) & (np.maximum(ay, by) >= t))
        e = np.zeros_like(ends)
        inside, e[:, vis] = clip_segments(ends[:, vis], window)
        vis = vis[inside]
    group = np.full(n, -1, np.int64)
    if cell is None or not len(vis):
        cols, starts = vis, np.arange(len(vis))
        group[vis] = starts
    else:
        q = np.floor(e[:, vis] / cell).astype(np.int64)
        qx0, qy0 = min(q[0].min(), q[2].min()), min(q[1].min(), q[3].min())
        ry = max(q[1].max(), q[3].max()) - qy0 + 1
        ka = (q[0] - qx0) * ry + (q[1] - qy0)
        kb = (q[2] - qx0) * ry + (q[3] - qy0)
        cells, inv = np.unique(np.concatenate([np.minimum(ka, kb), np.maximum(ka, kb)]),
                               return_inverse=True)
        m = len(vis)
        _, gid = np.unique(inv[:m] * len(cells) + inv[m:], return_inverse=True)
        order = np.argsort(gid, kind="stable")
        cols, gs = vis[order], gid[order]
        starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
        group[cols] = gs
    first = cols[starts]
    x = np.empty(2 * len(first))
    y = np.empty(2 * len(first))
    x[0::2], x[1::2], y[0::2], y[1::2] = e[0, first], e[2, first], e[1, first], e[3, first]
    return Lod(cell is not None, 0.0, window, cols, starts, group, x, y)


def _pairs(x: np.ndarray, y: np.ndarray) -> QtGui.QPainterPath:
    """One path of disjoint segments (point pairs), built without a Python loop."""
    from pyqtgraph.functions import arrayToQPath
    return arrayToQPath(x, y, connect="pairs") if len(x) else QtGui.QPainterPath()


def view_state(transform: QtGui.QTransform, width: float, height: float) -> tuple[float, tuple]:
    """Scale and visible scene rect (left, top, right, bottom) of a device of ``width`` ×
    ``height`` pixels drawn through ``transform`` (scene → device)."""
    scale = float(np.sqrt(abs(transform.m11() * transform.m22() - transform.m12() * transform.m21())))
    inv, ok = transform.inverted()
    if not ok:
        return scale, _ALL
    r = inv.mapRect(QtCore.QRectF(0, 0, width, height))
    return scale, (r.left(), r.top(), r.right(), r.bottom())


class SegmentLods:
    """Groupings of one segment set (``ends`` [4, n]) for the views drawing it, cached by
    zoom bucket; ``rect`` is the set's bounding box (left, top, right, bottom)."""

    def __init__(self, ends: np.ndarray, rect: tuple[float, float, float, float]) -> None:
        self.ends = ends
        self.rect = rect
        self._lods: dict[float, Lod] = {}
        self.lod = group_segments(ends)

    def for_view(self, transform: QtGui.QTransform, width: float, height: float,
                 lod_min: int = LOD_MIN_CABLES) -> Lod:
        """The grouping for a device of ``width`` × ``height`` drawn through ``transform``."""
        scale, rect = view_state(transform, width, height)
        merged = scale < LOD_ZOOM * (1 - 1e-9) and self.ends.shape[1] >= lod_min
        sb = 2.0 ** (np.floor(np.log2(max(scale, 1e-12)) * SCALE_STEPS) / SCALE_STEPS) if merged else 0.0
        lod = self._lods.get(sb)
        if lod is None or not lod.covers(rect, self.rect):
            lod = self._group(sb, rect, lod_min)
        self.lod = lod
        return lod

    def _group(self, sb: float, rect: tuple, lod_min: int) -> Lod:
        l, t, r, b = rect
        mw, mh = (r - l) * WINDOW_MARGIN, (b - t) * WINDOW_MARGIN
        window = (l - mw, t - mh, r + mw, b + mh)
        br = self.rect
        if window[0] <= br[0] and window[1] <= br[1] and window[2] >= br[2] and window[3] >= br[3]:
            window = _ALL
        lod = group_segments(self.ends, window)
        if sb and len(lod.cols) >= lod_min:
            lod = group_segments(self.ends, window, LOD_CELL_PX / sb)
        lod = replace(lod, scale=sb if lod.merged else 0.0)
        if len(self._lods) >= 8:
            self._lods.pop(next(iter(self._lods)))
        self._lods[sb] = lod
        return lod


class SegmentPathItem(QtWidgets.QGraphicsPathItem):
    """A path item of disjoint segments that, once it holds :data:`LOD_MIN_CABLES` or more,
    paints only what the device shows: cut to the view, merged by screen cells when zoomed
    out (the same pen for all, so merging never hides anything)."""

    def __init__(self) -> None:
        super().__init__()
        self.lods: SegmentLods | None = None
        self.lod_min = LOD_MIN_CABLES
        self._drawn: tuple[Lod, QtGui.QPainterPath] | None = None

    def set_segments(self, ends: np.ndarray) -> None:
        """The segments ([4, n]: ax, ay, bx, by) the path holds, for level of detail."""
        self.lods = SegmentLods(ends, bounds(ends)) if ends.shape[1] >= self.lod_min else None
        self._drawn = None

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        lods = self.lods
        dev = painter.device()
        if lods is None or dev is None:
            return super().paint(painter, option, widget)
        lod = lods.for_view(painter.worldTransform(), dev.width(), dev.height(), self.lod_min)
        if not lod.merged and lod.window == _ALL:
            return super().paint(painter, option, widget)
        if self._drawn is None or self._drawn[0] is not lod:
            self._drawn = (lod, _pairs(lod.x, lod.y))
        aa = QtGui.QPainter.RenderHint.Antialiasing
        had_aa = painter.testRenderHint(aa)
        if lod.merged and painter.worldTransform().m11() < AA_ZOOM:
            painter.setRenderHint(aa, False)
        painter.setPen(self.pen())
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        painter.drawPath(self._drawn[1])
        painter.setRenderHint(aa, had_aa)


def bounds(ends: np.ndarray, pad: float = 4.0) -> tuple[float, float, float, float]:
    """Bounding box (left, top, right, bottom) of segments, grown by ``pad``."""
    if not ends.shape[1]:
        return (0.0, 0.0, 0.0, 0.0)
    l, t = float(min(ends[0].min(), ends[2].min())), float(min(ends[1].min(), ends[3].min()))
    r, b = float(max(ends[0].max(), ends[2].max())), float(max(ends[1].max(), ends[3].max()))
    return (l - pad, t - pad, r + pad, b + pad)


__all__ = ["LOD_CELL_PX", "LOD_MIN_CABLES", "LOD_ZOOM", "Lod", "SegmentLods", "SegmentPathItem", "bounds",
           "clip_segments",
           "group_segments", "view_state"]
