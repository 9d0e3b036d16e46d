"""Where everything goes in a picture of the design: title, design, legend (screen pixels).

The picture is laid out in screen pixels (1/96 in) and drawn at dpi/96 picture pixels each, so
3.5 in at 300 DPI prints labels and legend at the size the screen shows them, and 1920 × 1080
at 96 DPI is a slide. The legend's text is 1/80 of the picture's width, never under 8 pt
(:func:`legend_font_px`). Labels stay inside the picture: the design is padded by how far its
labels reach out under the picture's transform (the label layer's layout, or the label
items), see :func:`plan_picture`.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.picture_options import SCREEN_DPI, PictureOptions
from fabricviz.ui.canvas.items.devices import ROLE_KIND, DeviceItem
from fabricviz.ui.canvas.legend import LegendBox, Row
from fabricviz.ui.canvas.scene import FabricScene

#: Legend text: this fraction of the picture's width, never under 8 pt (in screen pixels).
LEGEND_WIDTH_SHARE = 1 / 96
MIN_FONT_PX = 8 * SCREEN_DPI / 72
#: Kinds of top-level items that belong to the pointer, hidden while a picture is drawn.
POINTER_KINDS = ("panel",)


def legend_font_px(width: float, height: float | None = None) -> float:
    """Legend text size (screen pixels) for a picture ``width`` × ``height`` screen pixels."""
    px = max(MIN_FONT_PX, width * LEGEND_WIDTH_SHARE)
    return px if height is None else min(px, max(MIN_FONT_PX, height / 18))


# ---------------------------------------------------------------------------- scene parts
@dataclass
class SceneParts:
    """Top-level items of a scene that are neither devices nor the design's own layers."""

    pointer: list[QtWidgets.QGraphicsItem]       # port panels, a cable being drawn
    overlays: list[QtWidgets.QGraphicsItem]      # heatmap, sweep, lesson and load overlays, groups


def scene_parts(scene: FabricScene) -> SceneParts:
    """Sort the top-level items: what belongs to the pointer (port panels, a cable being drawn,
    anything stroked in the selection colour, such as the semantic zoom's selected bundles and
    boxes), and the overlays."""
    own = {id(scene.cables.highlight), id(scene.cables.live), id(getattr(scene, "label_layer", None))}
    select = scene.theme.select_pen.color().rgb()
    pointer, overlays = [], []
    for item in scene.items():
        if type(item) is DeviceItem or id(item) in own or item.parentItem() is not None:
            continue
        kind = item.data(ROLE_KIND)
        pen = item.pen() if isinstance(item, QtWidgets.QAbstractGraphicsShapeItem | QtWidgets.QGraphicsLineItem) \
            else None
        if kind in POINTER_KINDS or isinstance(item, QtWidgets.QGraphicsLineItem) or \
                (pen is not None and pen.style() != QtCore.Qt.PenStyle.NoPen and pen.color().rgb() == select):
            pointer.append(item)
        elif kind not in ("cables", "batch"):
            overlays.append(item)
    return SceneParts(pointer, overlays)


# ---------------------------------------------------------------------------- layout
@dataclass
class PictureLayout:
    """Where everything goes, in screen pixels of a ``width`` × ``height`` picture drawn at
    ``ratio`` picture pixels each: the scene rect ``source`` is drawn into ``target`` (inside
    ``area``, which holds the design and its labels)."""

    width: float
    height: float
    ratio: float
    area: QtCore.QRectF
    target: QtCore.QRectF
    source: QtCore.QRectF
    title_rect: QtCore.QRectF | None
    legend_rect: QtCore.QRectF | None
    columns: int
    font_px: float

    @property
    def transform(self) -> QtGui.QTransform:
        """Scene coordinates → screen pixels of the picture."""
        sx = self.target.width() / self.source.width()
        sy = self.target.height() / self.source.height()
        return QtGui.QTransform(sx, 0, 0, sy, self.target.left() - sx * self.source.left(),
                                self.target.top() - sy * self.source.top())

    @property
    def pixel_size(self) -> QtCore.QSize:
        return QtCore.QSize(round(self.width * self.ratio), round(self.height * self.ratio))


def label_rects(scene: FabricScene, transform: QtGui.QTransform, exposed: QtCore.QRectF,
                parts: SceneParts) -> list[QtCore.QRectF]:
    """Rects (screen pixels of the picture) of the labels drawn under ``transform``: the label
    layer's layout, else the per-device label items; plus overlay text that keeps its size."""
    layer = getattr(scene, "label_layer", None)
    if layer is not None:
        out = [QtCore.QRectF(r) for _d, _t, r in layer.layout(transform, exposed)]
    else:
        out = [transform.mapRect(lab.sceneBoundingRect()) for lab in getattr(scene, "labels", {}).values()
               if lab.isVisible()]
    fixed = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
    for it in parts.overlays:
        if it.isVisible() and it.flags() & fixed:
            out.append(it.boundingRect().translated(transform.map(it.scenePos())))
    return out


def design_rect(scene: FabricScene, parts: SceneParts) -> QtCore.QRectF:
    """The design and the overlays drawn around it (sweep LIDs beside switches), scene units."""
    rect = scene.content_rect()
    fixed = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations
    for it in parts.overlays:
        if it.isVisible() and not it.flags() & fixed:
            r = it.sceneBoundingRect()
            if not r.isEmpty():
                rect = r if rect.isEmpty() else rect.united(r)
    return rect if not rect.isEmpty() else QtCore.QRectF(-100, -60, 200, 120)


#: Between the title's box and the design's area, in legend font sizes: a name above the top row
#: (a spine's) at the area's top stays a font size clear of the title (0.3: 4 px at 960 px wide, touching).
TITLE_GAP = 1.0


def plan_picture(scene: FabricScene, opts: PictureOptions, rows: list[Row], title: str,
                 parts: SceneParts, view: QtCore.QRectF | None = None) -> PictureLayout:
    """Lay the picture out: title on top, legend right of the design or under it (whichever
    draws the design larger; under it for flat designs when the height follows the design),
    the design (the scene rect ``view``, or everything) fitted into the rest and padded so its
    labels stay inside. Leaves the scene at the picture's level of detail."""
    r = opts.ratio
    w = opts.width / r
    fixed_h = opts.height / r if opts.height is not None else None
    font = legend_font_px(w, fixed_h)
    m = max(8.0, 0.6 * font)
    top, title_rect = m, None
    if title:
        title_rect = QtCore.QRectF(m, m * 0.6, w - 2 * m, font * 1.3 * 1.5)
        top = title_rect.bottom() + TITLE_GAP * font     # the top row's names (spines) clear of the title
    box = LegendBox(rows, font, scene.theme.text, None) if opts.legend and rows else None
    design = QtCore.QRectF(view) if view is not None else design_rect(scene, parts)
    aspect = design.height() / design.width()
    places = ["right", "bottom"] if box is not None else [None]
    if fixed_h is None and box is not None:
        flat = aspect < 0.4 or box.size(1).width() > 0.3 * w
        places = ["bottom"] if flat else ["right"]
    is_view = view is not None
    best: tuple[float, str | None] | None = None      # chosen on the unpadded fit: labels cost a
    for place in places:                              # level-of-detail change per measurement
        lay = _place(scene, place, w, fixed_h, top, m, font, box, design, parts, is_view, r, False)
        if lay is not None and (best is None or lay.transform.m11() > best[0] * (1 + 1e-9)):
            best = (lay.transform.m11(), place)
    place = best[1] if best is not None else None
    out = _place(scene, place, w, fixed_h, top, m, font, box if place else None, design, parts, is_view, r,
                 not is_view)
    if out is None:                                   # padded, the legend no longer fits beside it
        out = _place(scene, None, w, fixed_h, top, m, font, None, design, parts, is_view, r, not is_view)
    assert out is not None                            # without a legend there is always a layout
    out.title_rect = title_rect
    scene.detail_for_scale(out.transform.m11())
    return out


def _place(scene: FabricScene, place: str | None, w: float, fixed_h: float | None, top: float, m: float,
           font: float, box: LegendBox | None, design: QtCore.QRectF, parts: SceneParts, is_view: bool,
           ratio: float, pad_labels: bool) -> PictureLayout | None:
    """The layout with the legend at ``place`` (None: no legend, always a layout), or None if
    the legend leaves the design too little room;
    ``pad_labels``: padded until the labels fit in the design's area."""
    cols, ls = 1, QtCore.QSizeF(0, 0)
    if place == "right":
        assert box is not None                       # a legend placed: there is one
        avail = fixed_h - top - m if fixed_h is not None else None
        cols = box.columns_for_height(avail) if avail is not None else 1
        ls = box.size(cols)
        area_w = w - ls.width() - 3 * m
        below = m
    elif place == "bottom":
        assert box is not None
        cols = box.columns_for_width(w - 2 * m)
        ls = box.size(cols)
        area_w = w - 2 * m
        below = ls.height() + 2 * m
    else:
        area_w, below = w - 2 * m, m
    max_h = (fixed_h if fixed_h is not None else 1.5 * w) - top - below
    if place is not None and (area_w < 0.3 * w or (max_h < 0.15 * w and fixed_h is not None)):
        return None                              # no legend: the design takes what there is
    area_w = max(area_w, 20.0)
    max_h = max(max_h, 20.0)
    pads = [0.25 * font] * 4                     # left, top, right, bottom, screen pixels
    for _ in range(5):
        iw = max(area_w - pads[0] - pads[2], 1.0)
        area_h = max_h if fixed_h is not None else min(max_h, iw / design.width() * design.height()
                                                       + pads[1] + pads[3])
        ih = max(area_h - pads[1] - pads[3], 1.0)
        s = min(iw / design.width(), ih / design.height())
        fitted = QtCore.QRectF(m + pads[0] + (iw - s * design.width()) / 2,
                               top + pads[1] + (ih - s * design.height()) / 2,
                               s * design.width(), s * design.height())
        area = QtCore.QRectF(m, top, area_w, area_h)
        if not pad_labels:
            break
        t = QtGui.QTransform(s, 0, 0, s, fitted.left() - s * design.left(), fitted.top() - s * design.top())
        scene.detail_for_scale(s)
        rects = label_rects(scene, t, t.inverted()[0].mapRect(area), parts)
        if not rects:
            break
        u = rects[0]
        for rr in rects[1:]:
            u = u.united(rr)
        over = [area.left() - u.left(), area.top() - u.top(), u.right() - area.right(), u.bottom() - area.bottom()]
        if max(over) < 0.5:
            break
        pads = [p + max(o, 0.0) + (1.0 if o > 0 else 0.0) for p, o in zip(pads, over, strict=True)]
    if is_view:
        target, source = fitted, QtCore.QRectF(design)
    else:
        inv = QtGui.QTransform(s, 0, 0, s, fitted.left() - s * design.left(),
                               fitted.top() - s * design.top()).inverted()[0]
        target, source = area, inv.mapRect(area)
    h = fixed_h if fixed_h is not None else top + max(area_h + below, (ls.height() + 2 * m) if place == "right"
                                                      else 0.0)
    legend_rect = None
    if place == "right":
        legend_rect = QtCore.QRectF(w - m - ls.width(), top, ls.width(), ls.height())
    elif place == "bottom":
        legend_rect = QtCore.QRectF(m, top + area_h + m, ls.width(), ls.height())
    return PictureLayout(w, h, ratio, area, target, source, None, legend_rect, cols, font)


