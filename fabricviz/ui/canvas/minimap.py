"""Canvas navigation: the minimap (an overview of the whole design with the view's visible area
on top; click or drag it to move the view, wheel over it to zoom) and the bounds of the selection
for View ▸ Fit Selection.

The overview is drawn from the model's numpy columns, not by ``QGraphicsScene.render``: the minimap
shows only while the canvas is zoomed in, where the scene draws every device item and label however
small; for a k=48 fat tree (85k devices, 83k cables) that costs ~140 ms of CPU, the columns ~30 ms
(bench/minimap.py). Cables are merged by screen cells
(:func:`~fabricviz.ui.canvas.items.segments.group_segments`), devices smaller than 2 px are single
pixels. The picture is cached and drawn again only when the design changes (the document's
``changed``, debounced) or the theme does, never on a pan or zoom: those only move the viewport
rectangle drawn over it.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import CABLE_TYPES, KINDS, Fabric
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.batch import device_rects, rects_path
from fabricviz.ui.canvas.items.cables import cable_anchors, path_pairs
from fabricviz.ui.canvas.items.devices import K_SERVER, DeviceItem
from fabricviz.ui.canvas.items.segments import LOD_CELL_PX, group_segments
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.view import ZOOM_STEP, CanvasView
from fabricviz.ui.document.document import Document

#: The largest box (pixels); a wide or tall design gets a box of its own shape, at least MIN_SIZE.
MAX_SIZE = QtCore.QSize(220, 150)
MIN_SIZE = QtCore.QSize(96, 64)
#: Gap to the canvas's bottom-right corner; padding between the border and the drawing.
MARGIN, PAD = 10, 6
#: The design is drawn again this long after the last change (a burst of edits draws once).
REFRESH_MS = 150
#: QSettings key of View ▸ Minimap.
SETTING = "view/minimap"
#: The viewport rectangle is never drawn smaller than this (deep zoom into a big design).
MIN_RECT_PX = 4.0
#: Fit Selection zooms in no further than this (one small device would fill the canvas at 800 %).
FIT_SELECTION_MAX = 2.0


#: Opacity of the cables in the overview (0-255).
CABLE_ALPHA = 60


def draw_design(image: QtGui.QImage, fabric: Fabric, theme: th.Theme, px: float, dx: float, dy: float) -> None:
    """Cables, then devices of ``fabric`` into ``image`` (ARGB32 premultiplied), scene point
    (x, y) at pixel (x·px + dx, y·px + dy). Cables are merged by 2-px cells per colour bucket (as
    the zoomed-out canvas does); devices of at most 2×2 px are single pixels written from numpy,
    in their kind's colour (servers in their outline's: their fill is near the background);
    bigger ones are one rectangle per pixel box and kind."""
    cell = 1.0 / px
    xf = QtGui.QTransform(px, 0, 0, px, dx, dy)
    p = QtGui.QPainter(image)
    p.setTransform(xf)
    p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
    cids = fabric.cable_ids()
    if len(cids):
        ends = np.vstack(cable_anchors(fabric, cids))
        tech, ctype = fabric.cables_t.tech[cids], fabric.cables_t.ctype[cids]
        for (tc, tname), pen in theme.cable_pens.items():
            sel = (tech == tc) & (ctype == CABLE_TYPES.index(tname))
            if sel.any():
                lod = group_segments(ends[:, sel], cell=LOD_CELL_PX * cell)
                faint = QtGui.QPen(pen)      # cables faint: at this size they would hide the design's shape
                color = QtGui.QColor(pen.color())
                color.setAlpha(CABLE_ALPHA)
                faint.setColor(color)
                p.setPen(faint)
                p.drawPath(path_pairs(lod.x[0::2], lod.y[0::2], lod.x[1::2], lod.y[1::2]))
    p.end()
    t = fabric.devices_t
    ids = fabric.device_ids()
    if not len(ids):
        return
    tops = ids[t.parent[ids] < 0]
    r, kinds = device_rects(fabric, tops), t.kind[tops]
    if th.CHILD_W * px >= 3:              # GPUs and NICs inside servers are big enough to see
        kids = ids[t.parent[ids] >= 0]
        kx, ky = t.x[kids].astype(np.float64), t.y[kids].astype(np.float64)
        w, h = th.CHILD_W / 2, th.CHILD_H / 2
        r = np.hstack([r, np.vstack([kx - w, ky - h, kx + w, ky + h])])
        kinds = np.concatenate([kinds, t.kind[kids]])
    small = ((r[2] - r[0]) * px <= 2) & ((r[3] - r[1]) * px <= 2)
    _put_pixels(image, theme, (r[0, small] + r[2, small]) / 2 * px + dx,
                (r[1, small] + r[3, small]) / 2 * px + dy, kinds[small])
    r, kinds = r[:, ~small], kinds[~small]
    if not len(kinds):
        return
    q = np.floor(r * px).astype(np.int64)
    q -= q.min(axis=1, keepdims=True)
    key = np.ravel_multi_index((*q, kinds.astype(np.int64)), (*(q.max(axis=1) + 1), len(KINDS)))
    _, keep = np.unique(key, return_index=True)
    keep.sort()                               # servers before the GPUs and NICs drawn on them
    r, kinds = r[:, keep], kinds[keep]
    cx, cy = (r[0] + r[2]) / 2, (r[1] + r[3]) / 2     # at least a pixel thick
    hw, hh = np.maximum((r[2] - r[0]) / 2, cell / 2), np.maximum((r[3] - r[1]) / 2, cell / 2)
    r = np.vstack([cx - hw, cy - hh, cx + hw, cy + hh])
    p = QtGui.QPainter(image)
    p.setTransform(xf)
    for k in np.unique(kinds).tolist():       # kind codes: servers first, switches last
        name = KINDS[k]
        p.setPen(theme.pens[name])
        p.setBrush(theme.brushes[name])
        p.drawPath(rects_path(r[:, kinds == k]))
    p.end()


def _put_pixels(image: QtGui.QImage, theme: th.Theme, x: np.ndarray, y: np.ndarray, kinds: np.ndarray) -> None:
    """One opaque pixel per device at (x, y) in its kind's colour, switches over servers."""
    w, h = image.width(), image.height()
    ix, iy = np.floor(x).astype(np.int64), np.floor(y).astype(np.int64)
    inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
    order = np.argsort(kinds[inside], kind="stable")        # later writes win: higher kind codes on top
    ix, iy, kinds = ix[inside][order], iy[inside][order], kinds[inside][order]
    colours = np.array([(theme.pens[n].color() if n == KINDS[K_SERVER] else theme.brushes[n].color()).rgba()
                        for n in KINDS], np.uint32)
    buf = np.frombuffer(image.bits(), np.uint32).reshape(h, image.bytesPerLine() // 4)
    buf[iy, ix] = colours[kinds]


def selection_bounds(scene: FabricScene) -> QtCore.QRectF | None:
    """Scene rectangle of the selected devices and the ends of the selected cables, or None."""
    scene.flush()
    boxes = [item.sceneBoundingRect() for item in scene.selectedItems() if isinstance(item, DeviceItem)]
    edges = [(b.left(), b.top(), b.right(), b.bottom()) for b in boxes]
    if scene.selected_cables:
        layer = scene.cables
        idx = np.flatnonzero(np.isin(layer.ids, np.fromiter(scene.selected_cables, np.int64)))
        if len(idx):
            e = layer.ends[:, idx]
            xs, ys = e[[0, 2]], e[[1, 3]]
            edges.append((float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max())))
    if not edges:
        return None
    a = np.asarray(edges)
    return QtCore.QRectF(QtCore.QPointF(a[:, 0].min(), a[:, 1].min()), QtCore.QPointF(a[:, 2].max(), a[:, 3].max()))


class Minimap(QtWidgets.QWidget):
    """The overview in the canvas's bottom-right corner (a child of the view, above its viewport
    and beside its scroll bars: children of the viewport would scroll with it)."""

    def __init__(self, view: CanvasView, document: Document, settings: QtCore.QSettings) -> None:
        super().__init__(view)
        self.setObjectName("minimap")
        self.view = view
        self.document = document
        self.settings = settings
        self.on = bool(settings.value(SETTING, True, type=bool))   # View ▸ Minimap
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)       # keys stay with the canvas
        self.setMouseTracking(True)
        self.setToolTip("Overview: click or drag to move the view, wheel to zoom")
        self.renders = 0                     # how often the design was drawn (tests, bench)
        self.cache_key: tuple | None = None  # (document revision, dark theme, size, pixel ratio)
        self._pixmap: QtGui.QPixmap | None = None
        self._content = QtCore.QRectF()      # the design's bounds when last refreshed
        self._origin = QtCore.QPointF()      # scene point at the drawing's top-left
        self._scale = 1.0                    # minimap pixels per scene unit
        self._grab: QtCore.QPointF | None = None    # while dragging: pointer minus rectangle centre
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh)
        document.changed.connect(self._design_changed)
        view.zoom_changed.connect(self._sync)
        view.horizontalScrollBar().valueChanged.connect(self._sync)
        view.verticalScrollBar().valueChanged.connect(self._sync)
        self._sync_due = False         # a sync posted after a resize of the canvas, not run yet
        self._viewport = view.viewport()
        self._viewport.installEventFilter(self)
        self.hide()
        self.refresh()

    # ------------------------------------------------------------------ geometry
    @property
    def picture(self) -> QtGui.QPixmap | None:
        """The cached drawing of the design (None until first shown after a change)."""
        return self._pixmap

    @property
    def scale(self) -> float:
        """Minimap pixels per scene unit."""
        return self._scale

    def to_minimap(self, p: QtCore.QPointF) -> QtCore.QPointF:
        return QtCore.QPointF(PAD + (p.x() - self._origin.x()) * self._scale,
                              PAD + (p.y() - self._origin.y()) * self._scale)

    def to_scene(self, p: QtCore.QPointF) -> QtCore.QPointF:
        return QtCore.QPointF(self._origin.x() + (p.x() - PAD) / self._scale,
                              self._origin.y() + (p.y() - PAD) / self._scale)

    def visible_scene_rect(self) -> QtCore.QRectF:
        """What the canvas shows, in scene units."""
        v = self.view
        return v.mapToScene(v.viewport().rect()).boundingRect()

    def viewport_rect(self) -> QtCore.QRectF:
        """The canvas's visible area in minimap pixels (exact: not grown to a visible size)."""
        r = self.visible_scene_rect()
        return QtCore.QRectF(self.to_minimap(r.topLeft()), self.to_minimap(r.bottomRight()))

    def drawn_rect(self) -> QtCore.QRectF:
        """The viewport rectangle as drawn: at least MIN_RECT_PX big and kept inside the box, so
        all four sides show (a side on the border: the canvas shows more than the map)."""
        r = self.viewport_rect()
        c, m = r.center(), MIN_RECT_PX
        w, h = max(r.width(), m), max(r.height(), m)
        inner = QtCore.QRectF(PAD / 2, PAD / 2, self.width() - PAD, self.height() - PAD)
        left = min(max(c.x() - w / 2, inner.left()), inner.right() - m)
        top = min(max(c.y() - h / 2, inner.top()), inner.bottom() - m)
        right = max(min(c.x() + w / 2, inner.right()), left + m)
        bottom = max(min(c.y() + h / 2, inner.bottom()), top + m)
        return QtCore.QRectF(QtCore.QPointF(left, top), QtCore.QPointF(right, bottom))

    def _layout(self) -> None:
        """Box size, scale and origin for the current design bounds (its aspect kept)."""
        c = self._content
        if c.isEmpty():
            self._scale, self._origin = 1.0, QtCore.QPointF()
            self.setFixedSize(MAX_SIZE)
            return
        pad = max(c.width(), c.height()) * 0.03 + 20
        c = c.adjusted(-pad, -pad, pad, pad)
        iw, ih = MAX_SIZE.width() - 2 * PAD, MAX_SIZE.height() - 2 * PAD
        s = min(iw / c.width(), ih / c.height())
        # ceil, less float noise: a design of exactly the box's shape must not come out a pixel over
        w = max(int(np.ceil(c.width() * s - 1e-6)) + 2 * PAD, MIN_SIZE.width())
        h = max(int(np.ceil(c.height() * s - 1e-6)) + 2 * PAD, MIN_SIZE.height())
        self.setFixedSize(w, h)
        self._scale = s
        # the drawing area is centred on the design (wider or taller than it when a minimum applies)
        self._origin = QtCore.QPointF(c.center().x() - (w - 2 * PAD) / s / 2,
                                      c.center().y() - (h - 2 * PAD) / s / 2)

    def _place(self) -> None:
        vp = self.view.viewport().geometry()
        self.move(vp.x() + vp.width() - self.width() - MARGIN, vp.y() + vp.height() - self.height() - MARGIN)

    # ------------------------------------------------------------------ showing
    def set_on(self, on: bool) -> None:
        """View ▸ Minimap: show it (when there is something to navigate) or never; remembered."""
        self.on = bool(on)
        self.settings.setValue(SETTING, self.on)
        self._sync()

    def wanted(self) -> bool:
        """Shown when switched on, the design is partly out of view and the canvas has room for it."""
        if not self.on or self._content.isEmpty():
            return False
        vp = self.view.viewport().size()
        if vp.width() < 2 * self.width() or vp.height() < 2 * self.height():
            return False
        return not self.visible_scene_rect().contains(self._content)

    def _sync(self, *_args: object) -> None:
        """After a pan, zoom or resize: show or hide, keep to the corner, move the rectangle."""
        if self.view.scene() is None:     # the window is closing: its scene went first
            return
        if not self.wanted():
            self.hide()
            return
        if self._pixmap is None or self.cache_key != self._key():
            self._render()
        self._place()
        if self.isHidden():
            self.show()
            self.raise_()
        self.update()

    def _design_changed(self, event: object) -> None:
        if event is None:          # another design: draw it before anything shows the old one
            self.refresh()
        else:
            self._timer.start()

    def refresh(self) -> None:
        """Take the design's bounds again and redraw it (when shown; else when next shown)."""
        self._timer.stop()
        if self.view.scene() is None:
            return
        c = self.view.fscene.content_rect()
        # a design refused for a non-finite position is on show for a moment: nothing to draw
        self._content = c if np.isfinite([c.x(), c.y(), c.width(), c.height()]).all() else QtCore.QRectF()
        self._layout()
        self._pixmap = None
        self._sync()

    def theme_changed(self) -> None:
        """The light/dark theme changed: draw again in the scene's new colours."""
        self._pixmap = None
        self._sync()

    def _key(self) -> tuple:
        return (self.document.revision, self.view.fscene.theme.dark, self.width(), self.height(),
                self.devicePixelRatioF())

    def _render(self) -> None:
        dpr = self.devicePixelRatioF()
        img = QtGui.QImage(int(np.ceil(self.width() * dpr)), int(np.ceil(self.height() * dpr)),
                           QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        img.fill(QtCore.Qt.GlobalColor.transparent)
        px = self._scale * dpr
        draw_design(img, self.document.fabric, self.view.fscene.theme, px,
                    PAD * dpr - self._origin.x() * px, PAD * dpr - self._origin.y() * px)
        img.setDevicePixelRatio(dpr)
        self._pixmap = QtGui.QPixmap.fromImage(img)
        self.cache_key = self._key()
        self.renders += 1

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:  # noqa: N802
        if self.view.scene() is None:
            return
        theme = self.view.fscene.theme
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        bg = QtGui.QColor(theme.background)
        bg.setAlpha(240)
        border = QtGui.QColor(theme.text)
        border.setAlpha(110)
        box = QtCore.QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        p.setPen(QtGui.QPen(border, 1.0))
        p.setBrush(bg)
        p.drawRoundedRect(box, 4, 4)
        if self._pixmap is not None:
            p.drawPixmap(0, 0, self._pixmap)
        r = self.drawn_rect()
        accent = QtGui.QColor(th.SELECT_COLOR)
        fill = QtGui.QColor(accent)
        fill.setAlpha(45)
        p.setPen(QtGui.QPen(accent, 2.0))
        p.setBrush(fill)
        p.drawRect(r)
        p.end()

    # ------------------------------------------------------------------ navigation
    def centre_on(self, p: QtCore.QPointF) -> None:
        """Centre the canvas on the scene point under minimap point ``p``."""
        self.view.centerOn(self.to_scene(p))

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        event.accept()
        if event.button() != QtCore.Qt.MouseButton.LeftButton:
            return
        pos = event.position()
        r = self.viewport_rect()
        # on the rectangle: drag it by where it was grabbed; elsewhere: jump there, then drag
        if self.drawn_rect().adjusted(-2, -2, 2, 2).contains(pos):
            self._grab = pos - r.center()
        else:
            self._grab = QtCore.QPointF()
            self.centre_on(pos)
        self.setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        event.accept()
        if self._grab is not None:
            self.centre_on(event.position() - self._grab)
        elif self.drawn_rect().contains(event.position()):
            self.setCursor(QtCore.Qt.CursorShape.OpenHandCursor)
        else:
            self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        event.accept()
        if event.button() == QtCore.Qt.MouseButton.LeftButton and self._grab is not None:
            self.centre_on(event.position() - self._grab)
            self._grab = None
            self.setCursor(QtCore.Qt.CursorShape.OpenHandCursor)

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        event.accept()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802
        """Zoom the canvas about the centre of what it shows (the rectangle grows or shrinks in place)."""
        event.accept()
        steps = event.angleDelta().y() / 120.0
        if steps:
            centre = self.visible_scene_rect().center()
            self.view.zoom_by(ZOOM_STEP ** steps)
            self.view.centerOn(centre)

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:  # noqa: N802
        """The canvas resized: keep to its corner. Nothing here may call the view: while the
        window is destroyed its viewport still sends events and the view is half gone; so the
        sync is posted (with this minimap as its context: it dies with it), once per burst."""
        if event.type() == QtCore.QEvent.Type.Resize and obj is self._viewport and not self._sync_due:
            self._sync_due = True
            QtCore.QTimer.singleShot(0, self, self._resized)
        return super().eventFilter(obj, event)

    def _resized(self) -> None:
        self._sync_due = False
        self._sync()


__all__ = ["FIT_SELECTION_MAX", "Minimap", "draw_design", "selection_bounds"]
