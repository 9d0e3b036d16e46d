"""pyqtgraph helpers for small plots in a dock strip: a grid that reflows, y axes wide enough
for their numbers.

A bottom dock strip is wide and short (about 1200 × 230 px), a floating dock may be
tall; :func:`grid_columns` picks how many columns a set of plots gets so that each
cell stays readable (or, when none does, the least cramped one). :func:`tick_labels`
gives the numbers an axis draws for a value range, and :func:`fit_axis_width` fixes
the axis's width to the widest of them, so a number is never cut or drawn over the
neighbouring plot (pyqtgraph only widens an axis after a paint that did not fit).
"""

from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from fabricviz.model import FabricError

#: Smallest readable plot cell (px): axes, title and a plot area of about 100 × 80.
CELL_MIN_W, CELL_MIN_H = 170, 140
#: Preferred cell shape (width / height) when several column counts are readable.
CELL_ASPECT = 1.5
#: Axis length (px) at which tick labels are measured: finer ticks than any strip shows,
#: so the widest label at this length bounds the labels at shorter lengths.
MEASURE_PX = 400
#: Tick label size (px), fixed so the widths measured are the widths drawn.
TICK_PX = 11


def grid_columns(width: float, height: float, n: int) -> int:
    """Columns for ``n`` plots in a ``width`` × ``height`` area. Among the counts whose cells are
    at least :data:`CELL_MIN_W` × :data:`CELL_MIN_H`, the one whose cells are closest to
    :data:`CELL_ASPECT` (width / height); when no count gives such cells, the count whose cells
    come closest to that size (the larger of its two shortfalls is smallest)."""
    if n <= 1:
        return 1
    fits: list[tuple[float, int]] = []
    best, best_short = n, math.inf
    for cols in range(1, n + 1):
        rows = math.ceil(n / cols)
        if rows * cols - n >= cols:          # an empty row: the same rows with fewer columns
            continue
        w, h = width / cols, height / rows
        if w >= CELL_MIN_W and h >= CELL_MIN_H:
            fits.append((abs(math.log(w / h / CELL_ASPECT)), cols))
            continue
        short = max(CELL_MIN_W / max(w, 1e-9), CELL_MIN_H / max(h, 1e-9))
        if short < best_short:
            best, best_short = cols, short
    return min(fits)[1] if fits else best


def tick_font() -> QtGui.QFont:
    font = QtGui.QFont()
    font.setPixelSize(TICK_PX)
    return font


def tick_labels(axis: pg.AxisItem, lo: float, hi: float, length: float = MEASURE_PX) -> list[str]:
    """The strings ``axis`` draws at every tick level for the value range ``lo``..``hi`` on an
    axis ``length`` px long."""
    if not hi > lo:
        return []
    out: list[str] = []
    for spacing, values in axis.tickValues(lo, hi, length):
        out += axis.tickStrings(list(values), axis.autoSIPrefixScale * axis.scale, spacing)
    return out


def text_width(axis: pg.AxisItem, text: str) -> float:
    """Width (px) of tick label ``text`` in the axis's tick font, measured as pyqtgraph does."""
    font = axis.style["tickFont"] or QtGui.QFont()
    rect = QtGui.QFontMetricsF(font).boundingRect(QtCore.QRectF(0, 0, 100, 100),
                                                  int(QtCore.Qt.AlignmentFlag.AlignCenter), text)
    return rect.width()


def fit_axis_width(axis: pg.AxisItem, lo: float, hi: float) -> float:
    """Fix a left/right ``axis``'s width to its widest tick label for ``lo``..``hi``, plus the
    tick, the gap to the text and the axis label; returns the width set."""
    texts = tick_labels(axis, lo, hi) or ["0"]
    w = max(text_width(axis, t) for t in texts)
    w += axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"]) + 2
    if axis.label.isVisible():
        w += axis.label.boundingRect().height()
    w = math.ceil(w)
    axis.setWidth(w)
    return float(w)


__all__ = ["CELL_ASPECT", "CELL_MIN_H", "CELL_MIN_W", "fit_axis_width", "grid_columns", "text_width", "tick_font",
           "tick_labels"]


def png_bytes(img: QtGui.QImage, where: object) -> bytes:
    """``img`` encoded as a PNG file, for :func:`fabricviz.model.atomic.write_atomic`; FabricError
    naming ``where`` if Qt cannot encode it."""
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, "PNG"):  # type: ignore[call-overload]  # PySide6's stub: format as bytes, which it refuses (str works)
        raise FabricError(f"{where}: cannot encode the PNG")
    return bytes(buf.data())  # type: ignore[call-overload]  # stub: QByteArray has no buffer protocol
