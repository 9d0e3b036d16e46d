"""Traffic heatmap on the canvas: cables coloured by a frame's utilisation, queue or latency.

One canvas item (:class:`HeatItem`) draws, over the scene's cables, one path
per colour bucket (2-px cosmetic pens) plus the marks, so a frame costs a
bucketing in numpy and ~18 paths, never a QGraphicsItem per link. A cable's
value is the hotter of its two directed links (``2c`` and ``2c + 1``). Links
whose transmitter is paused (PFC XOFF or no credits) get red dashes on a dark casing
(:func:`paused_pens`, distinct from every heat colour),
ECN-marking links a dotted overlay. PCIe hops inside servers have no canvas
geometry and are not drawn.

Level of detail (100k links at ≥ 10 fps on the CPU raster engine): only cables
in a window around the view are drawn; zoomed out, cables whose straight ends (cut
to the window) share the same two screen cells become one line coloured by the
hottest of them (see :class:`TrafficOverlay`). Every line is drawn along a cable's own
gutter route, the cable layer's (:mod:`fabricviz.ui.canvas.overlays.routed`), so the heat
crosses no device its cable does not end at: a merged line along its first member's route,
and a cable whose route but not its straight line meets the window is drawn too. While a
frame is shown the scene's own cable strokes, hidden under the heat anyway, are not painted.

Semantic zoom (far/middle, :mod:`fabricviz.ui.canvas.overlays.bundled`): each frame's cable
values go to the scene's semantic layer with this scale's colours, so a bundle is drawn in the
colour of its hottest (or mean) member, the legend's colour; a bundle with a paused member gets
the paused dashes over it, one with a marking member the ECN dots; the heat item draws only
the cables drawn as themselves (inside open groups), as at near.

:class:`ColorScale` is the single mapping from a value to a bucket and colour;
the legend and the overlay share it, so what the legend says is what is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric
from fabricviz.ui.canvas.items.cables import cable_anchors
from fabricviz.ui.canvas.items.devices import ROLE_KIND
from fabricviz.ui.canvas.items.segments import (  # noqa: F401  (re-exported)
    AA_ZOOM,
    LOD_CELL_PX,
    LOD_MIN_CABLES,
    LOD_ZOOM,
    Lod,
    SegmentLods,
    _pairs,
    bounds,
    clip_segments,
    group_segments,
)
from fabricviz.ui.canvas.overlays.bundled import (
    BundleMarks,
    alone,
    bundle_of,
    bundled,
    by_cable,
    colours_of,
    follow_levels,
    semantic_of,
)
from fabricviz.ui.canvas.overlays.routed import meets, route_boxes, route_pairs, route_segments, straight
from fabricviz.ui.canvas.overlays.trims import TRIM_LABEL, trim_pens

#: Colour buckets of the heatmap.
BUCKETS = 16
#: Metric key → (frame attribute, legend title, unit).
METRICS = {"utilisation": ("link_util", "Utilisation", "%"),
           "queue": ("link_queue", "Queue", "B"),
           "latency": ("link_latency_ns", "Latency", "ns")}
#: Heat ramp stops (cool → hot); buckets sample it evenly.
RAMP = ("#3b4cc0", "#2c7bb6", "#00a6ca", "#00ccbc", "#90eb9d", "#ffff8c", "#f9d057", "#f29e2e",
        "#e76818", "#d7191c")
PAUSED_COLOR = "#ff2020"
#: The dark casing under a paused link's red dashes: they stay distinct from the ramp's red end.
PAUSED_CASING = "#000000"
ECN_COLOR = "#ff00ff"
Z_HEAT = -0.8          # above the scene's cables (-1), under the selection highlight (-0.5)
#: Paused / ECN marks on bundle lines: over the lines (0.2), under group boxes (0.5).
Z_BUNDLE_MARKS = 0.3


def _ramp_colors(n: int) -> list[QtGui.QColor]:
    stops = [QtGui.QColor(c) for c in RAMP]
    out = []
    for i in range(n):
        t = i / max(n - 1, 1) * (len(stops) - 1)
        j = min(int(t), len(stops) - 2)
        u = t - j
        a, b = stops[j], stops[j + 1]
        out.append(QtGui.QColor(round(a.red() + u * (b.red() - a.red())),
                                round(a.green() + u * (b.green() - a.green())),
                                round(a.blue() + u * (b.blue() - a.blue()))))
    return out


COLORS = _ramp_colors(BUCKETS)
COLORS_RGBA = np.array([c.rgba() for c in COLORS], np.int64)


@dataclass(frozen=True)
class ColorScale:
    """``[vmin, vmax]`` cut in :data:`BUCKETS` equal bins; below/above clamp to the ends."""

    metric: str
    vmin: float
    vmax: float

    def buckets(self, values: np.ndarray) -> np.ndarray:
        """Bucket index 0..BUCKETS-1 of each value (NaN and inf count as the bottom/top)."""
        v = np.asarray(values, np.float64)
        span = self.vmax - self.vmin
        t = (v - self.vmin) / span if span > 0 else np.zeros_like(v)
        t = np.nan_to_num(t, nan=0.0, posinf=1.0, neginf=0.0)
        return np.clip((t * BUCKETS).astype(np.int64), 0, BUCKETS - 1)

    def bucket(self, value: float) -> int:
        return int(self.buckets(np.array([value]))[0])

    def color(self, value: float) -> QtGui.QColor:
        return QtGui.QColor(COLORS[self.bucket(value)])

    def colors(self, values: np.ndarray) -> np.ndarray:
        """The bucket colours of ``values`` as QRgb ints (the semantic layer's bundle colours: the
        legend's), an array lookup per frame rather than a QColor per bundle."""
        return COLORS_RGBA[self.buckets(values)]

    def edges(self) -> np.ndarray:
        """Bucket boundaries (``BUCKETS + 1`` values)."""
        return np.linspace(self.vmin, self.vmax, BUCKETS + 1)

    def label(self, value: float) -> str:
        unit = METRICS[self.metric][2]
        if unit == "%":
            return f"{value * 100:.0f} %"
        if unit == "B":
            for div, u in ((1e6, "MB"), (1e3, "KB")):
                if abs(value) >= div:
                    return f"{value / div:.3g} {u}"
            return f"{value:.0f} B"
        if abs(value) >= 1e3:
            return f"{value / 1e3:.3g} µs"
        return f"{value:.0f} ns"


def scale_for(metric: str, frames) -> ColorScale:
    """The fixed scale of a run: utilisation 0..1; queue 0..peak; latency min..max of live cables
    over all frames (fixed per run so colours compare across frames)."""
    if metric not in METRICS:
        raise ValueError(f"metric {metric!r}: use {', '.join(METRICS)}")
    if metric == "utilisation":
        return ColorScale(metric, 0.0, 1.0)
    attr = METRICS[metric][0]
    hi = max((float(np.nanmax(getattr(f, attr))) if len(getattr(f, attr)) else 0.0) for f in frames)
    lo = 0.0
    if metric == "latency":
        lo = min((float(np.nanmin(getattr(f, attr))) if len(getattr(f, attr)) else 0.0) for f in frames)
    if not np.isfinite(hi):
        hi = lo + 1.0
    return ColorScale(metric, lo, hi if hi > lo else lo + 1.0)


def _pen(color: QtGui.QColor | str, width: float, style=QtCore.Qt.PenStyle.SolidLine) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setCosmetic(True)
    pen.setWidthF(width)
    pen.setStyle(style)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    return pen


def paused_pens(width: float = 3.0) -> tuple[QtGui.QPen, QtGui.QPen]:
    """The paused (PFC XOFF / no credits) mark drawn over a link's heat colour: red dashes
    ``width`` px wide on a dark casing 2 px wider with the same dashes (so the mark stays
    distinct from every heat colour, the ramp's red end included)."""
    red = _pen(PAUSED_COLOR, width, QtCore.Qt.PenStyle.DashLine)
    casing = _pen(PAUSED_CASING, width + 2.0, QtCore.Qt.PenStyle.CustomDashLine)
    scale = width / (width + 2.0)                 # dash patterns are in pen widths
    casing.setDashPattern([x * scale for x in red.dashPattern()])
    return casing, red


class HeatItem(QtWidgets.QGraphicsItem):
    """The overlay's one canvas item: paints the bucket paths and the marks. Each paint
    hands the painter's transform to the overlay, which regroups when the zoom bucket
    changed or the view left the culling window (so zoom and pan need no hook)."""

    def __init__(self, overlay: TrafficOverlay) -> None:
        super().__init__()
        self.overlay = overlay
        self.rect = QtCore.QRectF()

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        return self.rect

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        ov = self.overlay
        if ov._b is None:
            return
        dev = painter.device()
        ov.use_view(painter.worldTransform(), dev.width(), dev.height())
        aa = QtGui.QPainter.RenderHint.Antialiasing
        had_aa = painter.testRenderHint(aa)
        if ov.lod.merged and painter.worldTransform().m11() < AA_ZOOM:
            painter.setRenderHint(aa, False)      # many cables per pixel: smoothing only blurs
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)   # open segments: a brush would only cost
        for pen, path in ov.drawn_paths():
            painter.setPen(pen)
            painter.drawPath(path)
        painter.setRenderHint(aa, had_aa)         # the view does not save painter state


class TrafficOverlay:
    """The heatmap on ``scene``: ``set_links`` once per run, ``show_frame`` per frame.

    Level of detail: below :data:`LOD_ZOOM`, with at least :data:`LOD_MIN_CABLES` cables
    in the culling window, cables whose two ends share :data:`LOD_CELL_PX`-pixel screen
    cells are drawn as one segment in the colour of its hottest member (an overloaded
    link is never hidden by cooler neighbours), and a paused or marking member marks
    the segment. Groupings are cached per scale bucket, so a frame costs a bucketing,
    one ``maximum.reduceat`` and 18 paths.
    """

    def __init__(self, scene: QtWidgets.QGraphicsScene) -> None:
        self.scene = scene
        self.pens = [_pen(c, 2.0) for c in COLORS]
        self.paused_casing, self.paused_pen = paused_pens()
        self.ecn_pen = _pen(ECN_COLOR, 1.5, QtCore.Qt.PenStyle.DotLine)
        self.item = HeatItem(self)
        self.item.setZValue(Z_HEAT)
        self.item.setData(ROLE_KIND, "traffic")
        self.item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        scene.addItem(self.item)
        self.marks = self._mark_item()
        self.lod_min = LOD_MIN_CABLES
        self.scale: ColorScale | None = None
        self.ecn_threshold = 0.0                # a link marks when its marking probability exceeds this
        self.fabric: Fabric | None = None
        self.run_cables = np.zeros(0, np.int64)     # every cable of the run (its two links exist)
        self._sub: np.ndarray | None = None     # run_cables index of each drawn column (None: all)
        self._run_bundle = np.zeros(0, np.int64)    # per run cable: the bundle drawing it now, -1
        self._frame: tuple[Any, ColorScale] | None = None   # (frame, scale) on show, redrawn when the level changes
        self._set_geometry(np.zeros(0, np.int64), np.zeros((4, 0)))
        follow_levels(scene, self._level_changed)

    def _mark_item(self) -> BundleMarks:
        """Paused (casing + red dashes) and ECN (dots) marks over the bundle lines."""
        item = BundleMarks({"paused": (self.paused_casing, self.paused_pen), "ecn": (self.ecn_pen,)})
        item.setZValue(Z_BUNDLE_MARKS)
        item.setData(ROLE_KIND, "traffic")
        item.setVisible(False)
        self.scene.addItem(item)
        return item

    # ------------------------------------------------------------------ geometry
    def _set_geometry(self, cables: np.ndarray, ends: np.ndarray, routes: np.ndarray | None = None) -> None:
        """Columns ``cables`` with their straight ``ends`` ([4, n]: the level of detail groups and
        culls by them) and the ``routes`` ([4, n, k]) they are drawn along (default: straight)."""
        self.cables = cables                    # cable ids drawn, in ``ends`` column order
        self.ends = ends
        self.routes = straight(ends) if routes is None else routes
        self._rbox = route_boxes(self.routes)
        self._col = np.full(int(cables.max()) + 1 if len(cables) else 0, -1, np.int64)
        self._col[cables] = np.arange(len(cables))
        box = bounds(np.hstack([ends, self.routes.reshape(4, -1)]))
        self._lods = SegmentLods(ends, box)
        self.lod = self._lods.lod
        self.item.prepareGeometryChange()
        self.item.rect = QtCore.QRectF(box[0], box[1], box[2] - box[0], box[3] - box[1]) if len(cables) \
            else QtCore.QRectF()
        self.clear()

    def set_links(self, fabric: Fabric, n_links: int, alive: np.ndarray | None = None) -> None:
        """Geometry of every live cable whose two directed links exist (``2c + 1 < n_links``) and, with
        ``alive`` (per link of the run), are in the run (one plane's run: not the other planes' cables)."""
        cids = fabric.cable_ids()
        self.fabric = fabric
        cids = cids[2 * cids + 1 < n_links]
        if alive is not None:
            cids = cids[alive[2 * cids] | alive[2 * cids + 1]]
        self.run_cables = np.asarray(cids, np.int64)
        self._place()

    def _place(self) -> None:
        """Geometry for what the scene draws now: every run cable at near; zoomed out, the ones
        drawn as themselves (the rest are the semantic layer's bundles)."""
        cids, f = self.run_cables, self.fabric
        sem = semantic_of(self.scene)
        self._sub = None
        self._run_bundle = np.full(len(cids), -1, np.int64)
        if f is not None and len(cids) and bundled(self.scene) and sem is not None and sem.scene.fabric is f:
            self._sub = np.flatnonzero(alone(sem, cids))
            self._run_bundle = bundle_of(sem, cids)
            cids = cids[self._sub]
        if self._sub is not None and sem is not None:          # every segment of each bundle's drawn line
            self.marks.set_lines(sem.bundle_segments, sem.segment_bundle)
        else:
            self.marks.set_lines(np.zeros((4, 0)))
        if f is None or not len(cids):
            self._set_geometry(cids, np.zeros((4, 0)))
        else:                                   # drawn along the cable layer's own routes
            self._set_geometry(cids, np.vstack(cable_anchors(f, cids)), route_segments(f, cids))

    def _level_changed(self) -> None:
        """The semantic layer changed level, opened a group or moved: the frame on show again."""
        if self.fabric is None:
            return
        shown = self._frame
        self._place()
        if shown is not None:
            self.show_frame(*shown)

    def clear(self) -> None:
        """Draw nothing (no run, or the design changed since)."""
        self._frame = None
        self._b: np.ndarray | None = None       # bucket of each column (None: no frame shown)
        self._pcols = self._ecols = np.zeros(0, np.int64)
        self.paused = self.ecn = np.zeros(0, np.int64)
        self._paths: list[tuple[QtGui.QPen, QtGui.QPainterPath]] = []
        self._gb = np.zeros(0, np.uint8)
        self._pg = self._eg = np.zeros(0, np.int64)
        self._extra = np.zeros(0, np.int64)
        self._built_for: Lod | None = None
        self._covered_ids = None
        self._cover_scene_cables(False)
        self._bundle_marks(np.zeros(0, np.int64), np.zeros(0, np.int64))
        colours = colours_of(self.scene)
        if colours is not None:
            colours.set("traffic", None)
        self.item.update()

    def forget(self) -> None:
        self.scale = None
        self.fabric = None
        self.run_cables = np.zeros(0, np.int64)
        self._sub = None
        self._set_geometry(np.zeros(0, np.int64), np.zeros((4, 0)))

    # ------------------------------------------------------------------ level of detail
    def use_view(self, transform: QtGui.QTransform, width: float, height: float) -> None:
        """Pick (or build) the grouping for a device drawn through ``transform``."""
        self.lod = self._lods.for_view(transform, width, height, self.lod_min)

    def _view_of_scene(self) -> None:
        views = [v for v in self.scene.views() if v.isVisible()]
        if views:
            vp = views[0].viewport()
            self.use_view(views[0].viewportTransform(), vp.width(), vp.height())

    def drawn_paths(self) -> list[tuple[QtGui.QPen, QtGui.QPainterPath]]:
        """(pen, path) pairs to paint, coolest first, for the current grouping and frame."""
        if self._built_for is not self.lod and self._b is not None:
            self._build()
        return self._paths

    def _build(self) -> None:
        lod, b = self.lod, self._b
        assert b is not None
        cb = b[lod.cols]
        gb = np.maximum.reduceat(cb, lod.starts) if lod.merged and len(cb) else cb
        # each segment of the grouping is drawn along its first member's route, and so is every
        # cable only its route brings into the window (culling went by the straight ends)
        rep = lod.cols[lod.starts]
        extra = np.zeros(0, np.int64)
        if np.isfinite(lod.window).all():             # culled to a window
            extra = np.flatnonzero((lod.group < 0) & meets(self._rbox, lod.window))
        units = np.r_[rep, extra]
        ub = np.r_[gb, b[extra]]
        order = np.argsort(ub, kind="stable")
        cuts = np.searchsorted(ub[order], np.arange(BUCKETS + 1))
        paths = []
        for k in range(BUCKETS):
            if cuts[k + 1] > cuts[k]:
                paths.append((self.pens[k], _pairs(*route_pairs(self.routes, units[order[cuts[k]:cuts[k + 1]]]))))
        self._pg = self._marked(self._pcols)
        self._eg = self._marked(self._ecols)
        for pens, g, cols in (((self.paused_casing, self.paused_pen), self._pg, self._pcols),
                              ((self.ecn_pen,), self._eg, self._ecols)):
            on = np.r_[rep[g], extra[np.isin(extra, cols)]]
            if len(on):
                path = _pairs(*route_pairs(self.routes, on))
                paths += [(pen, path) for pen in pens]
        self._gb, self._extra, self._paths, self._built_for = gb, extra, paths, lod

    def _marked(self, cols: np.ndarray) -> np.ndarray:
        """Segments drawing any of ``cols`` (sorted, culled ones dropped)."""
        g = self.lod.group[cols]
        hit = np.zeros(self.lod.segments, bool)
        hit[g[g >= 0]] = True
        return np.flatnonzero(hit)

    def _cover_scene_cables(self, on: bool) -> None:
        """Hide the scene's own cable strokes while the heat layer draws every one of them
        on top (they cannot be seen, yet stroking them again costs as much as the heat)."""
        layer = getattr(self.scene, "cables", None)
        items = getattr(layer, "items", None)
        if not isinstance(items, dict) or layer is None or bundled(self.scene):
            return                                  # zoomed out the semantic layer hides them itself
        if on:
            ids = layer.ids
            if ids is not self._covered_ids:         # the layer rebuilt: are all its cables ours?
                self._covered_ids = ids
                col = self._col
                self._covers = bool(len(ids) and len(col) and ids.max() < len(col) and np.all(col[ids] >= 0))
            on = self._covers
        for item in items.values():
            if item.isVisible() == on:
                item.setVisible(not on)

    # ------------------------------------------------------------------ frames
    def cable_values(self, link_values: np.ndarray, cables: np.ndarray | None = None) -> np.ndarray:
        """A cable's value: the larger of its two directions (of the drawn cables by default)."""
        c = self.cables if cables is None else cables
        v = np.asarray(link_values)
        return np.maximum(v[2 * c], v[2 * c + 1])

    def show_frame(self, frame, scale: ColorScale) -> None:
        """Colour every cable from ``frame`` with ``scale``; mark paused and ECN-marking links.
        Zoomed out the bundles take the frame's values (see the module doc)."""
        self.scale = scale
        run = self.run_cables
        if not len(run):
            return
        attr = METRICS[scale.metric][0]
        values = self.cable_values(getattr(frame, attr), run)
        paused = np.asarray(frame.link_paused, bool)
        paused = paused[2 * run] | paused[2 * run + 1]
        ecn = np.asarray(frame.link_ecn)
        ecn = np.maximum(ecn[2 * run], ecn[2 * run + 1]) > self.ecn_threshold
        self.paused, self.ecn = run[paused], run[ecn]
        sub = self._sub
        cols = slice(None) if sub is None else sub
        self._b = scale.buckets(values[cols]).astype(np.uint8)
        self._pcols, self._ecols = np.flatnonzero(paused[cols]), np.flatnonzero(ecn[cols])
        self._frame = (frame, scale)
        self._view_of_scene()
        self._build()
        self._cover_scene_cables(True)
        if sub is not None:
            self._show_bundles(values, paused, ecn, scale)
        self.item.update()

    def _show_bundles(self, values: np.ndarray, paused: np.ndarray, ecn: np.ndarray, scale: ColorScale) -> None:
        """Zoomed out: the run cables' ``values`` to the semantic layer (coloured by ``scale``),
        the paused / ECN marks on the bundles with a ``paused`` / ``ecn`` member."""
        colours = colours_of(self.scene)
        if colours is None:
            return
        assert self.fabric is not None                 # bundles are shown for a run on a fabric
        colours.set("traffic", by_cable(int(self.fabric.cables_t.n), self.run_cables, values), scale.colors)
        rb = self._run_bundle
        self._bundle_marks(np.unique(rb[paused & (rb >= 0)]), np.unique(rb[ecn & (rb >= 0)]))

    def _bundle_marks(self, paused: np.ndarray, ecn: np.ndarray) -> None:
        """Draw the paused / ECN marks over bundles ``paused`` / ``ecn`` (bundle indices)."""
        self.paused_bundles, self.ecn_bundles = paused, ecn
        self.marks.set_marked(paused=paused, ecn=ecn)

    # ------------------------------------------------------------------ queries (tests, tooltips)
    def _column(self, cable: int) -> int | None:
        if self._b is None or not 0 <= cable < len(self._col) or self._col[cable] < 0:
            return None
        return int(self._col[cable])

    @property
    def members(self) -> list[np.ndarray]:
        """Cable ids per bucket of their own value (empty lists when no frame is shown)."""
        if self._b is None:
            return [np.zeros(0, np.int64)] * BUCKETS
        return [self.cables[self._b == k] for k in range(BUCKETS)]

    def bucket_of(self, cable: int) -> int | None:
        """The bucket of the cable's own value (None when not in the run or no frame)."""
        col = self._column(cable)
        return None if col is None or self._b is None else int(self._b[col])

    def color_of(self, cable: int) -> QtGui.QColor | None:
        """The colour of the cable's own value: what it is drawn with when drawn on its own."""
        k = self.bucket_of(cable)
        return None if k is None else self.pens[k].color()

    def is_paused(self, cable: int) -> bool:
        return bool(np.any(self.paused == cable))

    def is_marking(self, cable: int) -> bool:
        return bool(np.any(self.ecn == cable))

    def _segment(self, cable: int) -> int | None:
        col = self._column(cable)
        if col is None:
            return None
        self.drawn_paths()
        g = int(self.lod.group[col])
        return None if g < 0 else g

    def group_of(self, cable: int) -> np.ndarray:
        """Cable ids drawn by the same segment as ``cable`` (empty when culled)."""
        g = self._segment(cable)
        if g is None:
            return np.zeros(0, np.int64)
        lod = self.lod
        stop = lod.starts[g + 1] if g + 1 < len(lod.starts) else len(lod.cols)
        return self.cables[lod.cols[lod.starts[g]:stop]]

    def drawn_color_of(self, cable: int) -> QtGui.QColor | None:
        """The pen colour of the segment drawing ``cable`` now (its group's hottest), None if culled."""
        g = self._segment(cable)
        return None if g is None else self.pens[int(self._gb[g])].color()

    def shows_paused(self, cable: int) -> bool:
        """The segment drawing ``cable`` carries the paused mark."""
        g = self._segment(cable)
        return g is not None and bool(np.any(self._pg == g))

    def shows_marking(self, cable: int) -> bool:
        """The segment drawing ``cable`` carries the ECN mark."""
        g = self._segment(cable)
        return g is not None and bool(np.any(self._eg == g))

    def drawn_count(self) -> int:
        """Heat lines drawn now, each along a cable's route (each cable once when no cables merge)."""
        self.drawn_paths()
        return len(self._gb) + len(self._extra) if self._b is not None else 0


class LegendBar(QtWidgets.QWidget):
    """The colour scale: :data:`BUCKETS` swatches between the min and max labels, plus the marks."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic_legend")
        self.scale: ColorScale | None = None
        self.setMinimumHeight(46)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)

    def set_scale(self, scale: ColorScale | None) -> None:
        self.scale = scale
        self.setToolTip("" if scale is None else "\n".join(
            f"{scale.label(lo)} – {scale.label(hi)}"
            for lo, hi in zip(scale.edges()[:-1], scale.edges()[1:], strict=True)))
        self.update()

    def color_for(self, value: float) -> QtGui.QColor:
        """The colour this legend shows for ``value``."""
        if self.scale is None:
            raise ValueError("no scale yet: run a workload")
        return self.scale.color(value)

    def texts(self) -> tuple[str, str]:
        s = self.scale
        return ("", "") if s is None else (s.label(s.vmin), s.label(s.vmax))

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:  # noqa: N802
        p = QtGui.QPainter(self)
        fm = p.fontMetrics()
        w, h = self.width(), fm.height()
        bar = QtCore.QRectF(4, 2, w - 8, 12)
        step = bar.width() / BUCKETS
        for k, c in enumerate(COLORS):
            p.fillRect(QtCore.QRectF(bar.left() + k * step, bar.top(), step + 0.5, bar.height()), c)
        lo, hi = self.texts()
        title = METRICS[self.scale.metric][1] if self.scale is not None else "no run"
        y = int(bar.bottom()) + h
        p.drawText(4, y, lo)
        p.drawText(int(w / 2 - fm.horizontalAdvance(title) / 2), y, title)
        p.drawText(int(w - 4 - fm.horizontalAdvance(hi)), y, hi)
        y2 = y + 4
        for pen in paused_pens(2.0):
            p.setPen(pen)
            p.drawLine(4, y2 + h // 2, 34, y2 + h // 2)
        p.setPen(self.palette().color(QtGui.QPalette.ColorRole.WindowText))
        p.drawText(40, y2 + h - 3, "paused (PFC/credits)")
        x = 44 + fm.horizontalAdvance("paused (PFC/credits)") + 12
        p.setPen(_pen(ECN_COLOR, 2, QtCore.Qt.PenStyle.DotLine))
        p.drawLine(x, y2 + h // 2, x + 30, y2 + h // 2)
        p.setPen(self.palette().color(QtGui.QPalette.ColorRole.WindowText))
        p.drawText(x + 36, y2 + h - 3, "ECN marking")
        y3 = y2 + h + 2                                  # the trimming transports' mark (overlays/trims.py)
        for pen in trim_pens(2.0):
            p.setPen(pen)
            p.drawLine(4, y3 + h // 2, 34, y3 + h // 2)
        p.setPen(self.palette().color(QtGui.QPalette.ColorRole.WindowText))
        p.drawText(40, y3 + h - 3, TRIM_LABEL)
        p.end()

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(260, 3 * self.fontMetrics().height() + 26)


__all__ = ["BUCKETS", "COLORS", "ColorScale", "HeatItem", "LOD_CELL_PX", "LOD_MIN_CABLES", "LOD_ZOOM", "LegendBar",
           "Lod", "METRICS", "PAUSED_CASING", "PAUSED_COLOR", "TrafficOverlay", "clip_segments", "group_segments",
           "paused_pens", "scale_for"]
