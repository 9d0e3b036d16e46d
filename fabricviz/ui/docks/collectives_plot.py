"""The Collectives dock's busbw-vs-size plot (pyqtgraph): one curve per run, to compare designs.

x is log₂ of the buffer size, labelled as nccl-tests sizes (8B … 1G, binary units); y is busbw in
GB/s. Each curve keeps the run's numbers exactly (``getData()`` gives size exponents and busbw);
the key under the plot names the design, op, algorithm and transport. PNG export is pyqtgraph's
ImageExporter with the key drawn under the plot.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.sim.collective import size_label
from fabricviz.ui.widgets.plots import tick_font

#: Labelled x ticks at most (a 340 px dock reads about six size labels).
MAX_LABELS = 6
#: Tick spacings tried, in powers of two (10: one label per 1024×, 8B → 8K → 8M).
STEPS = (1, 2, 10, 20)
#: Smallest exported picture (px): a dock-sized plot is too small for a slide.
PICTURE_MIN = (900, 560)
#: The key under the plot scrolls past this height (px): about three two-line entries.
KEY_MAX_HEIGHT = 96
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")


def size_ticks(lo: float, hi: float) -> list[list[tuple[float, str]]]:
    """Major (labelled) and minor ticks for sizes ``lo``..``hi`` bytes on a log₂ axis, at powers
    of two from the first one at or above ``lo``, the major ones by the smallest of :data:`STEPS`
    giving at most :data:`MAX_LABELS` (8B:1GB:x2 reads 8B, 8K, 8M)."""
    x0, x1 = math.ceil(math.log2(lo) - 1e-9), math.log2(max(hi, lo))
    span = max(x1 - x0, 0.0)
    step = next((s for s in STEPS if span / s < MAX_LABELS), STEPS[-1] * math.ceil(span / (STEPS[-1] * MAX_LABELS)))
    major = [(float(x0 + k * step), size_label(2.0 ** (x0 + k * step))) for k in range(int(span // step) + 1)]
    minor = [(float(x0 + k), "") for k in range(int(span) + 1)]
    return [major, minor]


class BusbwPlot(QtWidgets.QWidget):
    """busbw (GB/s) against message size, one curve per run; the key under the plot (a dock-wide
    plot has no room for a legend over its curves), in the exported picture too."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("collective_plot")
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.view = pg.PlotWidget(self)
        self.view.setBackground("w")
        item = self.view.getPlotItem()
        item.showGrid(x=True, y=True, alpha=0.25)
        for side in ("left", "bottom"):
            ax = item.getAxis(side)
            ax.setStyle(tickFont=tick_font())
            ax.setPen("#404040")
            ax.setTextPen("#202020")
        item.setLabel("left", "busbw (GB/s)", color="#202020")
        item.setLabel("bottom", "message size", color="#202020")
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        self.view.setMinimumHeight(170)
        lay.addWidget(self.view, 1)
        self.key = QtWidgets.QLabel(self)
        self.key.setObjectName("collective_key")
        self.key.setWordWrap(True)
        self.key.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.key_area = QtWidgets.QScrollArea(self)          # many runs scroll, the plot keeps its height
        self.key_area.setObjectName("collective_key_area")
        self.key_area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.key_area.setWidgetResizable(True)
        self.key_area.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.key_area.setMaximumHeight(KEY_MAX_HEIGHT)
        self.key_area.setWidget(self.key)
        lay.addWidget(self.key_area)
        self.curves: list[pg.PlotDataItem] = []
        self._labels: list[str] = []
        self._colours: list[str] = []

    def add_curve(self, sizes: Sequence[float], busbw: Sequence[float], label: str) -> pg.PlotDataItem:
        """A curve of ``busbw`` over ``sizes``, keyed ``label``."""
        colour = PALETTE[len(self.curves) % len(PALETTE)]
        x = np.log2(np.asarray(sizes, float))
        curve = self.view.plot(x, np.asarray(busbw, float), pen=pg.mkPen(colour, width=2),
                               symbol="o", symbolSize=4, symbolBrush=colour, symbolPen=colour)
        self.curves.append(curve)
        self._labels.append(label)
        self._colours.append(colour)
        self._ticks()
        self._key()
        return curve

    def clear_curves(self) -> None:
        for c in self.curves:
            self.view.removeItem(c)
        self.curves, self._labels, self._colours = [], [], []
        self._key()

    def labels(self) -> list[str]:
        """The runs' labels, one per curve."""
        return list(self._labels)

    def _key(self) -> None:
        self.key.setText("<br>".join(f"<span style='color:{c}'>&#9632;</span> {html.escape(t)}"
                                     for c, t in zip(self._colours, self._labels, strict=True)))
        self.key_area.setVisible(bool(self._labels))

    def _ticks(self) -> None:
        xs = np.concatenate([c.getData()[0] for c in self.curves])
        self.view.getPlotItem().getAxis("bottom").setTicks(
            size_ticks(2.0 ** float(xs.min()), 2.0 ** float(xs.max())))

    def picture(self) -> QtGui.QImage:
        """The plot at least :data:`PICTURE_MIN` px with the key under it. The plot is laid out at that
        size for pyqtgraph's ImageExporter (which would otherwise scale a dock-sized plot's text up
        with it) and put back before anything repaints."""
        from pyqtgraph.exporters import ImageExporter
        item = self.view.getPlotItem()
        old = item.geometry()
        w, h = max(PICTURE_MIN[0], self.view.width()), max(PICTURE_MIN[1], self.view.height())
        try:
            item.setGeometry(QtCore.QRectF(0, 0, w, h))
            item.layout.activate()
            ex = ImageExporter(item)
            ex.parameters()["width"] = w
            ex.parameters()["height"] = h
            plot = ex.export(toBytes=True)
        finally:
            item.setGeometry(old)
            item.layout.activate()
        line = 22
        img = QtGui.QImage(plot.width(), plot.height() + line * len(self._labels) + 8, QtGui.QImage.Format.Format_RGB32)
        img.fill(QtGui.QColor("white"))
        p = QtGui.QPainter(img)
        p.drawImage(0, 0, plot)
        font = QtGui.QFont()
        font.setPixelSize(14)
        p.setFont(font)
        for k, (c, t) in enumerate(zip(self._colours, self._labels, strict=True)):
            y = plot.height() + 4 + k * line
            p.fillRect(12, y + 6, 18, 10, QtGui.QColor(c))
            p.setPen(QtGui.QColor("#202020"))
            p.drawText(QtCore.QRect(38, y, img.width() - 48, line), int(QtCore.Qt.AlignmentFlag.AlignVCenter), t)
        p.end()
        return img

    def export_png(self, path: str | Path) -> tuple[int, int]:
        """Write :meth:`picture` to ``path`` as PNG (atomic); returns its (width, height)."""
        from fabricviz.model.atomic import write_atomic
        from fabricviz.ui.widgets.plots import png_bytes
        img = self.picture()
        write_atomic(path, png_bytes(img, path))
        return img.width(), img.height()


__all__ = ["BusbwPlot", "size_label", "size_ticks"]
