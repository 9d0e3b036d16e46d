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

import html
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


#: The plots' light theme (the Collectives and What-if plots', the canvas's): background, axis
#: lines, text.
LIGHT_BACKGROUND, AXIS_PEN, TEXT_PEN = "w", "#404040", "#202020"
#: Steps of a y axis (× a power of ten): 1, 2, 2.5, 5.
NICE_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)


def nice_ticks(lo: float, hi: float) -> tuple[float, float, list[tuple[float, str]]]:
    """A y range for values ``lo``..``hi`` whose both ends are labelled ticks, 3 to 6 nice steps
    (1, 2, 2.5, 5 × 10ⁿ) apart, the top at least 3 % clear of ``hi`` (a curve at its peak is never
    drawn on the top edge) and as low as that allows: ``(bottom, top, [(value, label), …])``."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        lo, hi = 0.0, 0.0
    if hi - lo <= 1e-12 * max(abs(hi), abs(lo), 1.0):
        lo, hi = min(lo, 0.0), max(hi, 0.0) + 1.0
    want = hi + 0.03 * (hi - lo)
    best: tuple[float, float, float, float] | None = None          # (top, -step, bottom, step)
    mag = 10.0 ** math.floor(math.log10((hi - lo) / 6))
    for m in (mag / 10, mag, mag * 10):
        for k in NICE_STEPS[:-1]:
            step = k * m
            bottom = math.floor(lo / step + 1e-9) * step
            top = math.ceil(want / step - 1e-9) * step
            if 3 <= round((top - bottom) / step) <= 6 and (best is None or (top, -step) < best[:2]):
                best = (top, -step, bottom, step)
    assert best is not None                    # some step of the three magnitudes gives 3–6
    top, _, bottom, step = best
    n = int(round((top - bottom) / step))
    values = [float(f"{bottom + i * step:.12g}") for i in range(n + 1)]
    return values[0], values[-1], [(v, f"{v:g}") for v in values]


def fit_labels_width(axis: pg.AxisItem, labels: list[str]) -> float:
    """Fix a left/right ``axis``'s width to its widest of ``labels`` (fixed ticks), as
    :func:`fit_axis_width` does for its own."""
    w = max((text_width(axis, t) for t in labels), default=text_width(axis, "0"))
    w += axis.style["tickTextOffset"][0] + max(0, axis.style["tickLength"]) + 2
    if axis.label.isVisible():
        w += axis.label.boundingRect().height()
    w = math.ceil(w)
    axis.setWidth(w)
    return float(w)


def light_theme(widget: pg.GraphicsLayoutWidget, plots: list[pg.PlotItem]) -> None:
    """The light background and dark axes every other plot of the window has."""
    widget.setBackground(LIGHT_BACKGROUND)
    for p in plots:
        for side in ("left", "bottom"):
            ax = p.getAxis(side)
            ax.setPen(AXIS_PEN)
            ax.setTextPen(TEXT_PEN)
            ax.label.setDefaultTextColor(QtGui.QColor(TEXT_PEN))
        p.titleLabel.setText(p.titleLabel.text, color=TEXT_PEN)      # the title set before, dark too


def key_html(title: str, entries: list[tuple[str, str, bool]]) -> str:
    """A plot's title with its key on a line under it (``entries``: colour, name, dashed), so no
    legend box sits over the curves and the title is no wider than before:
    ``flow rate`` / ``━ delivered  ┅ DCQCN Rc``."""
    keys = "&nbsp;&nbsp;".join(f"<span style='color:{c}'>{'┅' if dashed else '━'}</span>&nbsp;{html.escape(n)}"
                               for c, n, dashed in entries)
    return f"{html.escape(title)}<br>{keys}" if keys else html.escape(title)


__all__ = ["AXIS_PEN", "CELL_ASPECT", "CELL_MIN_H", "CELL_MIN_W", "LIGHT_BACKGROUND", "TEXT_PEN",
           "fit_axis_width", "fit_labels_width", "grid_columns", "key_html", "light_theme", "nice_ticks",
           "text_width", "tick_font", "tick_labels"]


def png_bytes(img: QtGui.QImage, where: object) -> bytes:
    """``img`` encoded as a PNG file, for :func:`fabricviz.model.atomic.write_atomic`; FabricError
    naming ``where`` if Qt cannot encode it."""
    buf = QtCore.QBuffer()
    buf.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    if not img.save(buf, "PNG"):  # type: ignore[call-overload]  # PySide6's stub: format as bytes, which it refuses (str works)
        raise FabricError(f"{where}: cannot encode the PNG")
    return bytes(buf.data())  # type: ignore[call-overload]  # stub: QByteArray has no buffer protocol
