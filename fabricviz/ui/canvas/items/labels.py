"""Device names on the canvas at a constant on-screen size: one item lays out and draws them all.

Every top-level device's name sits centred under its rectangle (above it when its cables all
leave from its bottom edge: a spine's downlinks would run through a name under it;
:func:`~.name_room.name_above`), horizontal, at a fixed pixel size (:data:`NORMAL_PX`; larger in
presentation mode) whatever the zoom, above cables and devices on a plate in the background
colour (:mod:`~.label_paint`: no line crosses a name's glyphs). Where labels would overlap, the lower priority
one gives way instead of shrinking: group/extra labels (0) > switches (1) > servers (2) >
GPUs/NICs (3, drawn inside their rectangle once it is big enough for the name). A pinned
label (its port panel is open) always shows.

The layer reads the scale from the painter, so the view and a picture rendered with
``QGraphicsScene.render`` at another scale lay labels out the same way: labels have the same
pixel size in both. The laid-out area is the view's viewport (or the exposed rect of a render)
grown and snapped to tiles of :data:`TILE_PX`, so partial repaints and small pans reuse one
cached layout and labels do not come and go at the edge of a repainted strip.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ib.sharp import sharp_mask
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.batch import device_rects
from fabricviz.ui.canvas.items.devices import DEVICE_ROLE, K_ETHSW, K_IBSW, K_SERVER, ROLE_KIND, DeviceItem
from fabricviz.ui.canvas.items.label_paint import PAD_PX, LabelText
from fabricviz.ui.canvas.items.name_room import NAME_MIN_PX, name_above, row_room

if TYPE_CHECKING:
    from fabricviz.ui.canvas.scene import FabricScene

#: Label text size in screen pixels: normally, and in presentation mode.
NORMAL_PX, PRESENTATION_PX = 11, 18
#: Priorities (lower wins): pinned labels come before all of them.
P_PINNED, P_EXTRA, P_SWITCH, P_SERVER, P_CHILD = -1, 0, 1, 2, 3
GAP_PX = 2.0        # between a device's bottom (or top) edge and its name
SPACING_PX = 2.0    # at least this much between two labels
INSET_PX = 4.0      # a GPU/NIC's name keeps this far inside its rectangle's edges
BUCKET_PX = 64.0    # placed labels are looked up in buckets at least this wide (and a label wide)
TILE_PX = 512.0     # the laid-out area is snapped to these (stable layouts while panning)
GROW_PX = 128.0     # ... after growing the viewport by this much on every side
REACH_PX = 400.0    # candidates are devices whose anchor is this close to the area
MAX_EXACT = 5000    # more candidates than this are thinned to one per label-sized bin first
MAX_CANDIDATES = 6000   # at most this many are considered per layout (highest priority first)
MARGIN_PX = 320.0   # the item's rect extends this far past the design (labels sticking out)
Z = 8.0             # above cables, devices and overlays; under port panels (10)
#: Modes: a name under its device, inside it (GPU/NIC), centred on a point (extras), above its device.
UNDER, INSIDE, CENTRED, ABOVE = 0, 1, 2, 3


class Placed(NamedTuple):
    """One laid-out label: device id (-1 for extras), its text and its rect (x, y, w, h)."""

    device: int
    text: str
    x: float
    y: float
    w: float
    h: float


class _Columns(NamedTuple):
    """The candidates of one revision, sorted by (priority, stable order)."""

    ref: np.ndarray      # device id, or index into the extras
    mode: np.ndarray
    prio: np.ndarray
    ax: np.ndarray       # anchor in scene units: x centre; y bottom (UNDER) or centre
    ay: np.ndarray       # ... (ABOVE: top)
    room: np.ndarray     # a device's room in its row (scene units, :func:`row_room`), 0: any width
    tops: np.ndarray     # the top-level devices drawn, and their rectangles ([4, n], scene units): a
    rects: np.ndarray    # name never lies on another device's (it read as that one's; issue 29)
    above: np.ndarray    # the devices (sorted) whose names go above them (:func:`name_above`)
    alt: np.ndarray      # a name's second spot, used where the first is taken: an ABOVE name's box's bottom,
    #                      a server's box's centre line (its name on its own box), else NaN
    line: np.ndarray     # an extra's line under its anchor (0: centred on it; k: k label heights lower)
    box_w: np.ndarray    # a server's box width (scene units): its name goes on it only if it fits inside
    span: np.ndarray     # [n, 2] an extra's left and right bounds (scene units; NaN: none), set_extra


class LabelLayer(QtWidgets.QGraphicsItem):
    """Every label of one scene, laid out per paint from the fabric's numpy columns."""

    def __init__(self, scene: FabricScene) -> None:
        super().__init__()
        self.fscene = scene
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.setZValue(Z)
        self.setData(ROLE_KIND, "labels")
        self.pixel_size = NORMAL_PX
        self.revision = 0
        self.layouts_made = 0          # layouts computed (not served from the cache), for tests and benches
        self.last_grid_shape: tuple[int, int] = (0, 0)   # the last layout's bucket grid (rows, cols)
        self.last_grid_cell: tuple[float, float] = (0.0, 0.0)   # ... and one bucket's (height, width) in px
        self._mask: np.ndarray | None = None
        self._extra: tuple[np.ndarray, np.ndarray, list[str], np.ndarray] = (
            np.zeros(0), np.zeros(0), [], np.zeros(0, np.int64))
        self._extra_lines = np.zeros(0)
        self._extra_span = np.zeros((0, 2))
        self._pins: dict[int, set[int]] = {}       # pinned top-level device → who pinned it
        self._live: dict[int, tuple[float, float]] = {}
        self._cols: _Columns | None = None
        self._cols_rev = -1
        self._names: dict[int, str] = {}
        self._aliases: dict[int, str] = {}       # shorter names shown instead (set_aliases)
        self._layouts: OrderedDict[tuple, list[Placed]] = OrderedDict()
        self._tops: dict[tuple, dict[int, float]] = {}     # per layout: a name's top (scaled), by device
        self._rect = QtCore.QRectF()
        self._margin = MARGIN_PX
        self._geometry_due = False
        self._set_font()
        scene.addItem(self)

    # ------------------------------------------------------------------ public API
    def set_pixel_size(self, px: int) -> None:
        """Draw labels ``px`` screen pixels high (presentation mode uses a larger size)."""
        px = int(px)
        if px != self.pixel_size and px > 0:
            self.pixel_size = px
            self._set_font()
            self.invalidate()

    def set_device_filter(self, mask: np.ndarray | None) -> None:
        """Only devices whose entry in the boolean ``mask`` (by device id) is set get labels
        (devices beyond its end do); None: every device."""
        self._mask = None if mask is None else np.asarray(mask, dtype=bool).copy()
        self._changed()

    def set_aliases(self, aliases: dict[int, str] | None) -> None:
        """Show these names (by device id) under their devices instead of the devices' own (the
        middle level's rail and switch names); None or empty: every device's own name."""
        aliases = dict(aliases or {})
        if aliases != self._aliases:
            self._aliases = aliases
            self.invalidate()

    def set_extra(self, xs: Any, ys: Any, texts: Sequence[str], priority: Any = P_EXTRA, lines: Any = 0,
                  span: Any = np.nan) -> None:
        """Extra labels centred on scene points (group names, bundle counts), laid out with
        the device names; ``priority`` (one for all, or one each) 0 is the highest. ``lines`` (one
        for all, or one each): a label that many label heights (and spacings) under its point, so
        the lines of a caption anchored at one point stack at any zoom (a step in scene units
        overlapped zoomed out and the middle line gave way). ``span`` ((x0, x1) for all, or [n, 2];
        NaN: none): scene x bounds a label moves the least to stay within, where it fits (an open
        rack's caption, wider than the rack at fit, at the design's left edge)."""
        xs = np.asarray(xs, dtype=np.float64).ravel()
        ys = np.asarray(ys, dtype=np.float64).ravel()
        texts = [str(t) for t in texts]
        if not (len(xs) == len(ys) == len(texts)):
            raise ValueError(f"set_extra: {len(xs)} x, {len(ys)} y and {len(texts)} texts")
        prio = np.broadcast_to(np.asarray(priority, dtype=np.int64), xs.shape).copy()
        self._extra = (xs, ys, texts, prio)
        self._extra_lines = np.broadcast_to(np.asarray(lines, dtype=np.float64), xs.shape).copy()
        self._extra_span = np.broadcast_to(np.asarray(span, dtype=np.float64), (len(xs), 2)).copy()
        self._changed()

    def pin(self, device: int, on: bool) -> None:
        """Always show ``device``'s name (a GPU/NIC pins its server's), e.g. while its port panel is open."""
        f = self.fscene.fabric
        top = int(f.devices_t.parent[device]) if f is not None and f.devices_t.exists(device) else -1
        d = device if top < 0 else top
        if on:
            self._pins.setdefault(d, set()).add(device)
        else:
            for who in [k for k, v in self._pins.items() if device in v]:
                self._pins[who].discard(device)
                if not self._pins[who]:
                    del self._pins[who]
        self.update()

    @property
    def device_filter(self) -> np.ndarray | None:
        """The mask of :meth:`set_device_filter` (None: every device gets a label)."""
        return self._mask

    def pins(self) -> list[int]:
        """The devices that pinned a name (:meth:`pin`), e.g. to unpin them for a picture."""
        return sorted({who for whos in self._pins.values() for who in whos})

    def invalidate(self) -> None:
        """Names, positions, devices or the fabric changed: lay out again at the next paint."""
        self._names.clear()
        if self._live and not isinstance(self.fscene.mouseGrabberItem(), DeviceItem):
            self._live = {}
        self._changed()

    def _changed(self) -> None:
        """The candidates changed: a new layout at the next paint, the item's rect soon."""
        self.revision += 1
        if not self._geometry_due:
            self._geometry_due = True
            QtCore.QTimer.singleShot(0, self.fscene, self.refresh_geometry)
        self.update()

    def reset(self) -> None:
        """Another fabric: pins, the filter and the extras belonged to the old one."""
        self._pins.clear()
        self._live = {}
        self._mask = None
        self._extra = (np.zeros(0), np.zeros(0), [], np.zeros(0, np.int64))
        self._extra_lines = np.zeros(0)
        self._extra_span = np.zeros((0, 2))
        self.invalidate()
        self.refresh_geometry()

    def layout(self, transform: QtGui.QTransform, exposed: QtCore.QRectF) -> list[tuple[int, str, QtCore.QRectF]]:
        """(device id or -1, text, rect in device pixels) of the labels drawn when the scene
        rect ``exposed`` is painted through ``transform`` (scene → device)."""
        scaled = self._scaled_layout(transform, exposed)
        if scaled is None:
            return []
        dx, dy = transform.m31(), transform.m32()
        view = transform.mapRect(exposed)
        out = []
        for p in scaled:
            r = QtCore.QRectF(p.x + dx, p.y + dy, p.w, p.h)
            if r.intersects(view):
                out.append((p.device, p.text, r))
        return out

    def in_view(self, view: QtWidgets.QGraphicsView) -> list[tuple[int, str, QtCore.QRectF]]:
        """:meth:`layout` of what ``view`` shows now (rects in its viewport's pixels)."""
        vp = view.viewport().rect()
        return self.layout(view.viewportTransform(), view.mapToScene(vp).boundingRect())

    def label_rect(self, device: int, scale: float) -> QtCore.QRectF:
        """Where ``device``'s name sits (scene units) when drawn at view ``scale``, whether or
        not it is shown (port panels go under it); empty for a GPU/NIC inside a server."""
        f = self.fscene.fabric
        if f is None or not f.devices_t.exists(device) or int(f.devices_t.parent[device]) >= 0 or scale <= 0:
            return QtCore.QRectF()
        r = device_rects(f, np.array([device], np.int64))[:, 0]
        c = self._columns()
        k = np.flatnonzero((c.ref == device) & ((c.mode == UNDER) | (c.mode == ABOVE)))
        room = max(float(c.room[k[0]]) * scale - SPACING_PX, NAME_MIN_PX) if len(k) else np.inf
        w, h = self._width(self._fitted(self._aliases.get(device, f.name_of(device)), room)), self._height
        u = 1.0 / scale
        if len(k) and c.mode[k[0]] == ABOVE:
            top = self._drawn_top(device, scale)       # under its box where its spot above was taken
            top = r[1] - (GAP_PX + h) * u if top is None else top
            return QtCore.QRectF((r[0] + r[2]) / 2 - w * u / 2, top, w * u, h * u)
        return QtCore.QRectF((r[0] + r[2]) / 2 - w * u / 2, r[3] + GAP_PX * u, w * u, h * u)

    def _drawn_top(self, device: int, scale: float) -> float | None:
        """The top (scene units) of ``device``'s name in the latest layout made at ``scale``, if any."""
        for key in reversed(self._layouts):
            if key[0] == scale and key[3] == self.revision:
                tops = self._tops.get(key)
                if tops is None:
                    tops = self._tops[key] = {p.device: p.y for p in self._layouts[key] if p.device >= 0}
                    while len(self._tops) > 8:
                        self._tops.pop(next(iter(self._tops)))
                if device in tops:
                    return tops[device] / key[1]
        return None

    def follow_drag(self) -> None:
        """While the mouse drags device items (the model moves on release), names follow them."""
        live: dict[int, tuple[float, float]] = {}
        f = self.fscene.fabric
        if f is not None and isinstance(self.fscene.mouseGrabberItem(), DeviceItem):
            t = f.devices_t
            for item in self.fscene.selectedItems():
                if isinstance(item, DeviceItem) and item.parentItem() is None:
                    d = int(item.data(DEVICE_ROLE))
                    p = item.pos()
                    dx, dy = p.x() - float(t.x[d]), p.y() - float(t.y[d])
                    if dx or dy:
                        live[d] = (dx, dy)
        if live != self._live:
            self._live = live
            self.update()

    # ------------------------------------------------------------------ QGraphicsItem
    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        return self._rect

    def shape(self) -> QtGui.QPainterPath:
        """Empty: the layer is never under the pointer (scene.items(pos) skips it)."""
        return QtGui.QPainterPath()

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem,
              widget: QtWidgets.QWidget | None = None) -> None:
        t = painter.worldTransform()
        scale = t.m11()
        if self.fscene.fabric is None or scale <= 0 or t.m22() <= 0 or t.m12() or t.m21():
            return
        self._check_margin(scale)
        area = QtCore.QRectF(option.exposedRect)
        if widget is not None:        # the whole viewport: one layout for every partial repaint
            inv, ok = t.inverted()
            if ok:
                area = inv.mapRect(QtCore.QRectF(widget.rect()))
        elif painter.hasClipping():   # QGraphicsScene.render exposes the whole item: its source is the clip
            area = area.intersected(painter.clipBoundingRect())
        placed = self._scaled_layout(t, area)
        if not placed:
            return
        dx, dy = t.m31(), t.m32()
        clip = t.mapRect(option.exposedRect)
        theme = self.fscene.theme
        vector = painter.paintEngine() is not None and \
            painter.paintEngine().type() != QtGui.QPaintEngine.Type.Raster
        dpr = float(painter.device().devicePixelRatioF()) if painter.device() is not None else 1.0
        painter.save()
        painter.resetTransform()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        painter.setFont(self.font)
        for p in placed:
            x, y = round(p.x + dx), round(p.y + dy)
            if not clip.intersects(QtCore.QRectF(x, y, p.w, p.h)):
                continue
            if vector:        # SVG / PDF: a vector plate and halo under real (searchable) text
                self.text.draw_vector(painter, x, y, p.text, theme)
            else:
                painter.drawPixmap(QtCore.QPointF(x, y), self.text.pixmap(p.text, theme, dpr))
        painter.restore()

    # ------------------------------------------------------------------ geometry
    def refresh_geometry(self) -> None:
        """The item's rect: the design and the extras, plus room for labels sticking out."""
        self._geometry_due = False
        f = self.fscene.fabric
        rect = self.fscene.content_rect() if f is not None else QtCore.QRectF()
        xs, ys, _, _ = self._extra
        if len(xs):
            extra = QtCore.QRectF(float(xs.min()), float(ys.min()), float(np.ptp(xs)), float(np.ptp(ys)))
            rect = extra if rect.isEmpty() else rect.united(extra)
        if f is None or (rect.isEmpty() and not len(f)):
            new = QtCore.QRectF()
        else:
            m = min(self._margin, 2 * max(rect.width(), rect.height()) + MARGIN_PX)
            new = rect.adjusted(-m, -m, m, m)
        if new != self._rect:
            self.prepareGeometryChange()
            self._rect = new
        self.update()

    def _check_margin(self, scale: float) -> None:
        """Labels stick out of the design by a fixed number of pixels: grow the rect when
        zoomed out (shrink it back when zoomed in a lot)."""
        want = MARGIN_PX * max(self.pixel_size / NORMAL_PX, 1.0) / scale
        if (want > self._margin * 1.001 or want < self._margin / 4) and not self._geometry_due:
            self._margin = want
            self._geometry_due = True
            QtCore.QTimer.singleShot(0, self.fscene, self.refresh_geometry)

    # ------------------------------------------------------------------ layout
    def _columns(self) -> _Columns:
        """Candidates of the current revision: devices (tops under, children inside) and extras."""
        if self._cols is not None and self._cols_rev == self.revision:
            return self._cols
        f = self.fscene.fabric
        assert f is not None
        t = f.devices_t
        ids = np.flatnonzero(t.alive & ~sharp_mask(f))     # a SHARP aggregation node is part of its switch
        if self._mask is not None:
            m = self._mask
            inside = ids < len(m)
            keep = np.ones(len(ids), bool)
            keep[inside] = m[ids[inside]]
            ids = ids[keep]
        par = t.parent[ids]
        tops, kids = ids[par < 0], ids[par >= 0]
        r = device_rects(f, tops) if len(tops) else np.zeros((4, 0))
        kind = t.kind[tops]
        sw = (kind == K_IBSW) | (kind == K_ETHSW)
        tprio = np.where(sw, P_SWITCH, np.where(kind == K_SERVER, P_SERVER, P_CHILD))
        if self._aliases:            # a short name (a rail's leaf) comes before the line counts
            tprio = np.where(np.isin(tops, np.fromiter(self._aliases, np.int64)), P_EXTRA, tprio)
        above = name_above(f, tops)
        xs, ys, texts, eprio = self._extra
        ref = np.concatenate([np.arange(len(xs)), tops, kids]).astype(np.int64)
        mode = np.concatenate([np.full(len(xs), CENTRED), np.where(above, ABOVE, UNDER),
                               np.full(len(kids), INSIDE)]).astype(np.int8)
        prio = np.concatenate([eprio, tprio, np.full(len(kids), P_CHILD)]).astype(np.int64)
        ax = np.concatenate([xs, (r[0] + r[2]) / 2, t.x[kids].astype(np.float64)])
        ay = np.concatenate([ys, np.where(above, r[1], r[3]), t.y[kids].astype(np.float64)])
        room = np.concatenate([np.zeros(len(xs)), row_room(r), np.zeros(len(kids))])
        # a server whose name has no room under it (zoomed out, the next row of servers is closer than
        # a name is high) shows it on its own box rather than not at all (issue 27: unnamed DGX rows)
        inside = np.where(kind == K_SERVER, (r[1] + r[3]) / 2, np.nan)
        alt = np.concatenate([np.full(len(xs), np.nan), np.where(above, r[3], inside), np.full(len(kids), np.nan)])
        line = np.concatenate([self._extra_lines, np.zeros(len(tops) + len(kids))])
        box_w = np.concatenate([np.zeros(len(xs)), r[2] - r[0], np.zeros(len(kids))])
        span = np.concatenate([self._extra_span, np.full((len(tops) + len(kids), 2), np.nan)])
        order = np.lexsort((ref, mode != CENTRED, prio))
        self._cols = _Columns(ref[order], mode[order], prio[order], ax[order], ay[order], room[order], tops, r,
                              tops[above], alt[order], line[order], box_w[order], span[order])
        self._cols_rev = self.revision
        return self._cols

    def _scaled_layout(self, transform: QtGui.QTransform, exposed: QtCore.QRectF) -> list[Placed] | None:
        """The layout (in scaled scene coordinates: device pixels less the translation) of the
        tile-snapped area around ``exposed``; cached per (scale, area, revision, pins, drag)."""
        f = self.fscene.fabric
        sx, sy = transform.m11(), transform.m22()
        if f is None or sx <= 0 or sy <= 0 or exposed.isEmpty():
            return None
        area = (math.floor((exposed.left() * sx - GROW_PX) / TILE_PX) * TILE_PX,
                math.floor((exposed.top() * sy - GROW_PX) / TILE_PX) * TILE_PX,
                math.ceil((exposed.right() * sx + GROW_PX) / TILE_PX) * TILE_PX,
                math.ceil((exposed.bottom() * sy + GROW_PX) / TILE_PX) * TILE_PX)
        key = (sx, sy, area, self.revision, self.pixel_size, tuple(sorted(self._pins)),
               tuple(sorted(self._live.items())))
        hit = self._layouts.get(key)
        if hit is not None:
            self._layouts.move_to_end(key)
            return hit
        placed = self._lay_out(sx, sy, area)
        self.layouts_made += 1
        self._layouts[key] = placed
        while len(self._layouts) > 8:
            self._layouts.popitem(last=False)
        return placed

    def _lay_out(self, sx: float, sy: float, area: tuple[float, float, float, float]) -> list[Placed]:
        c = self._columns()
        x0, y0, x1, y1 = area
        h = self._height
        ax, ay = c.ax * sx, c.ay * sy
        if self._live:
            ax, ay = ax.copy(), ay.copy()
            named = (c.mode == UNDER) | (c.mode == ABOVE)
            rows = np.flatnonzero(np.isin(c.ref, np.fromiter(self._live, np.int64)) & named)
            for i in rows.tolist():
                dx, dy = self._live[int(c.ref[i])]
                ax[i] += dx * sx
                ay[i] += dy * sy
        sel = (ax >= x0 - REACH_PX) & (ax <= x1 + REACH_PX) & (ay >= y0 - 2 * h - GAP_PX) \
            & (ay <= y1 + 2 * h + GAP_PX)
        # a GPU/NIC gets its name inside it only once its rectangle holds the text
        if th.CHILD_W * sx < 3 * self.pixel_size or th.CHILD_H * sy < h + INSET_PX:
            sel &= c.mode != INSIDE
        f = self.fscene.fabric
        assert f is not None
        pinned = np.array(sorted(d for d in self._pins if f.devices_t.exists(d)), np.int64)
        idx = np.flatnonzero(sel)          # a pinned name too: the others' layout is the same with or without pins
        if len(idx) > MAX_EXACT:      # one per bin no narrower than any label: the rest lose anyway
            bw = 2 * PAD_PX + 0.3 * self.pixel_size
            bins = np.floor(ax[idx] / bw).astype(np.int64) * 1_000_003 + np.floor(ay[idx] / h).astype(np.int64)
            _, first = np.unique(bins, return_index=True)
            idx = idx[np.sort(first)]
        idx = idx[:MAX_CANDIDATES]
        cand: list[tuple[int, int, str, float, float]] = []      # (ref, mode, text, x, y)
        n_pinned = 0
        if len(pinned):              # pinned first, placed whatever they overlap; only the area's
            r = device_rects(f, pinned)
            up = np.isin(pinned, c.above).tolist()
            for k, d in enumerate(pinned.tolist()):
                dx, dy = self._live.get(d, (0.0, 0.0))
                x, y = (r[0, k] + r[2, k]) / 2 * sx + dx * sx, (r[3, k] + dy) * sy
                if up[k]:         # on the same side as unpinned (the label's top is y + GAP_PX)
                    y = (r[1, k] + dy) * sy - 2 * GAP_PX - h
                if x0 - REACH_PX <= x <= x1 + REACH_PX and y0 - 2 * h - GAP_PX <= y <= y1 + h:
                    cand.append((d, -1, f.name_of(d), x, y))
                    n_pinned += 1
        refs, modes = c.ref[idx].tolist(), c.mode[idx].tolist()
        room = np.where(c.room[idx] > 0, np.maximum(c.room[idx] * sx - SPACING_PX, NAME_MIN_PX), np.inf).tolist()
        for ref, mode, x, y, fit in zip(refs, modes, ax[idx].tolist(), ay[idx].tolist(), room, strict=True):
            cand.append((ref, mode, self._fitted(self._text(ref, mode), fit), x, y))
        if not cand:
            return []
        w = np.array([self._width(t) for _, _, t, _, _ in cand])
        cx = np.array([x for *_, x, _ in cand])
        cy = np.array([y for *_, y in cand])
        mode = np.array([m for _, m, *_ in cand])
        alt = ay[idx] - (c.ay[idx] - c.alt[idx]) * sy    # (as its anchor, moved with a drag)
        on_box = c.mode[idx] == UNDER                    # on its own box: if the box is as high as a name
        alt = np.where(on_box, np.where(2 * (ay[idx] - alt) >= h, alt - h / 2, np.nan), alt + GAP_PX)
        second = np.concatenate([np.full(n_pinned, np.nan), alt])
        box_w = np.concatenate([np.full(n_pinned, np.inf), np.where(on_box, c.box_w[idx] * sx, np.inf)])
        line = np.concatenate([np.zeros(n_pinned), c.line[idx]]) * (h + 2 * SPACING_PX)
        lx = cx - w / 2
        bound = np.concatenate([np.full((n_pinned, 2), np.nan), c.span[idx]]) * sx
        fits = w <= bound[:, 1] - bound[:, 0]                # (False where NaN)
        lx = np.where(fits, np.clip(lx, bound[:, 0], bound[:, 1] - w), lx)
        ly = np.where(mode == UNDER, cy + GAP_PX, np.where(mode == ABOVE, cy - GAP_PX - h, cy - h / 2 + line))
        ly = np.where(mode == -1, cy + GAP_PX, ly)
        ok = (lx + w > x0) & (lx < x1) & (ly + h > y0) & (ly < y1)
        ok &= (mode != INSIDE) | (w <= th.CHILD_W * sx - 2 * INSET_PX)
        ok |= (mode == -1) & (lx + w > x0) & (lx < x1) & (ly + h > y0) & (ly < y1)
        keep = np.flatnonzero(ok)
        if not len(keep):
            self.last_grid_shape = (0, 0)
            return []
        cand = [cand[i] for i in keep.tolist()]
        w, lx, ly, mode = w[keep], lx[keep], ly[keep], mode[keep]
        # a name on its own box whole inside it (a row of narrow servers keeps its names as they were)
        second = np.where(w <= box_w[keep] - 2 * INSET_PX, second[keep], np.nan).tolist()
        # placed labels are found through a coarse grid of buckets (a few per label), then tested
        # exactly: two labels at least SPACING_PX apart never block each other (a grid of small
        # occupied cells rounded outwards did, and hid a name with room for it: issue 29)
        half = SPACING_PX / 2
        gx, gy = float(np.min(lx)), float(np.min(ly))
        bw, bh = max(BUCKET_PX, float(w.max())), h + SPACING_PX
        c0 = np.floor((lx - half - gx) / bw).astype(np.int64)
        c1 = np.floor((lx + w + half - gx) / bw).astype(np.int64)
        r1 = np.floor((ly + h + half - gy) / bh).astype(np.int64)
        self.last_grid_shape = (int(r1.max()) + 1, int(c1.max()) + 1)
        self.last_grid_cell = (bh, bw)
        buckets: dict[tuple[int, int], list[int]] = {}
        L, T, R, B = (lx - half).tolist(), (ly - half).tolist(), (lx + w + half).tolist(), (ly + h + half).tolist()
        walls = self._walls(c, sx, sy, area, gx, gy, bw, bh)
        chosen: list[int] = []
        # a name above its box whose spot is taken (a group's title over its row of spines, the next
        # spine's name) goes under it, on its plate, rather than vanish: once every name had its first spot
        tries = [(i, float(ly[i])) for i in range(len(cand)) if mode[i] != -1]
        tries += [(i, second[i]) for i in range(len(cand)) if mode[i] != -1 and not math.isnan(second[i])]
        placed: set[int] = set()
        for i, top in tries:
            if i in placed:
                continue
            T[i], B[i] = top - half, top + h + half
            span = range(math.floor((T[i] - gy) / bh), math.floor((B[i] - gy) / bh) + 1)
            cells = [(r, q) for r in span for q in range(int(c0[i]), int(c1[i]) + 1)]
            if any(L[i] < R[j] and L[j] < R[i] and T[i] < B[j] and T[j] < B[i]
                   for cell in cells for j in buckets.get(cell, ())):
                continue
            if mode[i] in (UNDER, ABOVE) and any(
                    d != cand[i][0] and lx[i] + PAD_PX < x1_ and x0_ < lx[i] + w[i] - PAD_PX
                    and top + PAD_PX < y1_ and y0_ < top + h - PAD_PX
                    for cell in cells for d, x0_, y0_, x1_, y1_ in walls.get(cell, ())):
                continue
            for cell in cells:
                buckets.setdefault(cell, []).append(i)
            chosen.append(i)
            placed.add(i)
            ly[i] = top
        # a pinned name (the pointer is on its device) shows over the layout made without it: it
        # hides the names it meets and its own, and no other name comes and goes (issue 29: the
        # names of a row with no room swapped, node01/node03 ↔ node02/node04, as the pointer moved)
        pins = [i for i in range(len(cand)) if mode[i] == -1]
        if pins:
            mine = {cand[i][0] for i in pins}
            chosen = [i for i in chosen if not ((mode[i] == UNDER or mode[i] == ABOVE) and cand[i][0] in mine)
                      and not any(L[i] < R[j] and L[j] < R[i] and T[i] < B[j] and T[j] < B[i] for j in pins)]
        out: list[Placed] = []
        for i in pins + chosen:
            ref, m, text = cand[i][0], cand[i][1], cand[i][2]
            out.append(Placed(-1 if m == CENTRED else ref, text, float(lx[i]), float(ly[i]), float(w[i]), h))
        return out

    def _fitted(self, text: str, room: float) -> str:
        """``text`` as it fits ``room`` pixels (:func:`~.name_room.fit_name`, cached)."""
        return self.text.fitted(text, room)

    @staticmethod
    def _walls(c: _Columns, sx: float, sy: float, area: tuple[float, float, float, float], gx: float, gy: float,
               bw: float, bh: float) -> dict[tuple[int, int], list[tuple[int, float, float, float, float]]]:
        """The drawn devices' rectangles in ``area`` (scaled) in the layout's buckets: names keep off them."""
        r = c.rects * np.array([[sx], [sy], [sx], [sy]])
        k = np.flatnonzero((r[2] > area[0]) & (r[0] < area[2]) & (r[3] > area[1]) & (r[1] < area[3]))
        out: dict[tuple[int, int], list[tuple[int, float, float, float, float]]] = {}
        for d, x0, y0, x1, y1 in zip(c.tops[k].tolist(), *r[:, k].tolist(), strict=True):
            for q in range(math.floor((x0 - gx) / bw), math.floor((x1 - gx) / bw) + 1):
                for row in range(math.floor((y0 - gy) / bh), math.floor((y1 - gy) / bh) + 1):
                    out.setdefault((row, q), []).append((d, x0, y0, x1, y1))
        return out

    def _text(self, ref: int, mode: int) -> str:
        if mode == CENTRED:
            return self._extra[2][ref]
        text = self._names.get(ref)
        if text is None:
            assert self.fscene.fabric is not None
            text = self._aliases.get(ref) if mode in (UNDER, ABOVE) else None
            text = text if text is not None else self.fscene.fabric.name_of(ref)
            if mode == INSIDE:       # inside its server: the local name (gpu0, mlx5_3)
                text = text.rsplit("/", 1)[-1]
            self._names[ref] = text
        return text

    # ------------------------------------------------------------------ text
    def _set_font(self) -> None:
        self.text = LabelText(self.fscene.theme.label_font, self.pixel_size)
        self.font = self.text.font
        self._height = self.text.height

    def _width(self, text: str) -> float:
        return self.text.width(text)


__all__ = ["LabelLayer", "NORMAL_PX", "PRESENTATION_PX", "P_CHILD", "P_EXTRA", "P_SERVER", "P_SWITCH", "Placed"]
