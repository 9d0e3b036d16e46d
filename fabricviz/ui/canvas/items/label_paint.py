"""How one canvas label is drawn: its text at a pixel size, on a plate, with a halo.

A label is its text's size plus :data:`PAD_PX` on every side (the rectangle the label layer
lays out and checks for collisions). That whole rectangle is a *plate*: a rounded rectangle in
the canvas background colour, :data:`PLATE_ALPHA` opaque, painted with the text above every
cable, so no line crosses a name's glyphs (issue 29: "names have lines through them": at fit on
an NVL72 design every spine and rail leaf name had 8–16 cables through it; on a leaf-spine
8 × 4 × 16 each spine's name its 8 cables). The lines stay faintly visible under the plate, so a
cable still reads as running on under the name. The text is stroked in the background colour
first (a halo) then filled.

Drawn once per (text, size, colours, device pixel ratio) into a pixmap and blitted at every
paint (stroking costs ~0.15 ms a label): the plate costs nothing per paint, and only the labels
shown are drawn. SVG and PDF get a vector plate and halo under real (searchable) text.
"""

from __future__ import annotations

import math
from collections import OrderedDict

from PySide6 import QtCore, QtGui

from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.name_room import fit_name

PAD_PX = 2.0        # room around the text, inside the label's rect (the plate's margin)
HALO_PX = 3.0       # width of the pen stroking the text in the background colour
PLATE_ALPHA = 217   # the plate's opacity (of 255: 85 %)
PLATE_RADIUS_PX = 3.0


class LabelText:
    """The labels' font at one pixel size: widths, shortened names and the drawn labels (cached)."""

    def __init__(self, base: QtGui.QFont, px: int) -> None:
        font = QtGui.QFont(base)
        font.setPixelSize(px)
        self.px = px
        self.font = font
        self.metrics = QtGui.QFontMetricsF(font)
        self.ascent = self.metrics.ascent()
        self.height = float(math.ceil(self.metrics.height() + 2 * PAD_PX))
        self._widths: dict[str, float] = {}
        self._fits: dict[tuple[str, int], str] = {}
        self._pixmaps: OrderedDict[tuple, QtGui.QPixmap] = OrderedDict()
        self._paths: OrderedDict[str, QtGui.QPainterPath] = OrderedDict()

    def width(self, text: str) -> float:
        """The label's width in pixels: the text's advance plus the padding, rounded up."""
        w = self._widths.get(text)
        if w is None:
            w = float(math.ceil(self.metrics.horizontalAdvance(text) + 2 * PAD_PX))
            if len(self._widths) > 200_000:
                self._widths.clear()
            self._widths[text] = w
        return w

    def fitted(self, text: str, room: float) -> str:
        """``text`` as it fits ``room`` pixels (:func:`~.name_room.fit_name`, cached)."""
        if self.width(text) <= room:
            return text
        key = (text, int(room))
        out = self._fits.get(key)
        if out is None:
            if len(self._fits) > 50_000:
                self._fits.clear()
            out = self._fits[key] = fit_name(text, room - 2 * PAD_PX, self.metrics)
        return out

    def path(self, text: str) -> QtGui.QPainterPath:
        path = self._paths.get(text)
        if path is None:
            path = QtGui.QPainterPath()
            path.addText(0.0, 0.0, self.font, text)
            self._paths[text] = path
            if len(self._paths) > 8192:
                self._paths.popitem(last=False)
        return path

    def draw_vector(self, painter: QtGui.QPainter, x: float, y: float, text: str, theme: th.Theme) -> None:
        """The label with its top-left at (x, y) as vectors (SVG / PDF): plate, halo, real text."""
        self._plate(painter, QtCore.QRectF(x, y, self.width(text), self.height), theme)
        base = QtCore.QPointF(x + PAD_PX, y + PAD_PX + self.ascent)
        painter.strokePath(self.path(text).translated(base), halo_pen(theme))
        painter.setPen(theme.text)
        painter.drawText(base, text)

    def pixmap(self, text: str, theme: th.Theme, dpr: float) -> QtGui.QPixmap:
        """The label drawn once (plate, halo, text) and blitted at every paint."""
        key = (text, theme.background.rgba(), theme.text.rgba(), dpr)
        pm = self._pixmaps.get(key)
        if pm is not None:
            self._pixmaps.move_to_end(key)
            return pm
        w, h = self.width(text), self.height
        pm = QtGui.QPixmap(max(1, math.ceil(w * dpr)), max(1, math.ceil(h * dpr)))
        pm.setDevicePixelRatio(dpr)
        pm.fill(QtCore.Qt.GlobalColor.transparent)
        p = QtGui.QPainter(pm)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        self._plate(p, QtCore.QRectF(0.0, 0.0, w, h), theme)
        path = self.path(text).translated(PAD_PX, PAD_PX + self.ascent)
        p.strokePath(path, halo_pen(theme))
        p.fillPath(path, theme.text_brush)
        p.end()
        self._pixmaps[key] = pm
        if len(self._pixmaps) > 6000:
            self._pixmaps.popitem(last=False)
        return pm

    @staticmethod
    def _plate(painter: QtGui.QPainter, rect: QtCore.QRectF, theme: th.Theme) -> None:
        c = QtGui.QColor(theme.background)
        c.setAlpha(PLATE_ALPHA)
        painter.save()
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(c)
        painter.drawRoundedRect(rect, PLATE_RADIUS_PX, PLATE_RADIUS_PX)
        painter.restore()


def halo_pen(theme: th.Theme) -> QtGui.QPen:
    pen = QtGui.QPen(theme.background, HALO_PX)
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    return pen


__all__ = ["HALO_PX", "PAD_PX", "PLATE_ALPHA", "LabelText", "halo_pen"]
