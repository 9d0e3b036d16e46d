"""The What-if dock's plots (pyqtgraph): the degradation curve and the hosts cut off per K.

Top: per K the median of the metric relative to the intact design, the p5–p95 band, min/max
whiskers and every trial as a small point (click one to show that trial), over a dashed line at
1.0 (the intact design). Bottom, on the same K axis: the hosts cut off per K, the mean as a bar
and the worst trial as a mark. In "worst single failures" mode the top plot draws the ranked
failures' delivered share and the bottom one their cut-off hosts, by rank.
The numbers drawn are :func:`fabricviz.sim.whatif.per_k`'s, unchanged. White with dark axes, as
the Collectives dock's plot beside it (:mod:`.collectives_plot`), in colours that read on white.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from pyqtgraph.exporters import ImageExporter
from PySide6 import QtCore, QtGui

from fabricviz.ui.widgets.plots import tick_font

#: The background and the axes' pen and text (the Collectives plot's).
BACKGROUND, AXIS, TEXT = "w", "#404040", "#202020"
BAND = (31, 119, 180, 55)           # p5–p95: a light blue fill, its edges in the median's blue
MEDIAN = (20, 70, 150)
WHISKER = (110, 110, 110)
POINT = (230, 110, 0, 170)          # the trials: orange dots beside the blue median
INTACT = (120, 120, 120)
CUT = (200, 50, 40)
#: Trials' points sit this share of the K spacing right of their K (beside the whiskers).
POINT_SHIFT = 0.12
#: The picture exported is at least this size (the dock may be narrow).
PICTURE_MIN = (900, 600)


class DegradationPlot(pg.GraphicsLayoutWidget):
    """Two linked plots; ``trial_clicked(row)`` when a trial's point is clicked (its row in
    the results given to :meth:`show_per_k`)."""

    trial_clicked = QtCore.Signal(int)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.setObjectName("whatif_plot")
        self.setMinimumHeight(200)
        self.setBackground(BACKGROUND)
        self.top = self.addPlot(row=0, col=0)
        self.bottom = self.addPlot(row=1, col=0)
        self.ci.layout.setRowStretchFactor(0, 3)
        self.ci.layout.setRowStretchFactor(1, 1)
        self.bottom.setXLink(self.top)
        for p in (self.top, self.bottom):
            p.showGrid(x=False, y=True, alpha=0.25)
            p.setMenuEnabled(False)
            p.hideButtons()
            for name in ("left", "bottom"):
                ax = p.getAxis(name)
                ax.setStyle(tickFont=tick_font())
                ax.enableAutoSIPrefix(False)       # K and host counts, never "(x0.001)"
                ax.setPen(AXIS)
                ax.setTextPen(TEXT)
        self._label(self.top, "left", "relative")
        self._label(self.bottom, "left", "cut off")
        self._label(self.bottom, "bottom", "failed elements K")
        self.intact = pg.InfiniteLine(pos=1.0, angle=0, pen=pg.mkPen(INTACT, width=1,
                                                                     style=QtCore.Qt.PenStyle.DashLine))
        self.top.addItem(self.intact)
        self.p5 = pg.PlotDataItem(pen=pg.mkPen((*BAND[:3], 160)))
        self.p95 = pg.PlotDataItem(pen=pg.mkPen((*BAND[:3], 160)))
        self.band = pg.FillBetweenItem(self.p5, self.p95, brush=pg.mkBrush(*BAND))
        self.whiskers = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), pen=pg.mkPen(WHISKER), beam=0.15)
        self.median = pg.PlotDataItem(pen=pg.mkPen(MEDIAN, width=2), symbol="o", symbolSize=7,
                                      symbolBrush=pg.mkBrush(MEDIAN), symbolPen=None)
        self.points = pg.ScatterPlotItem(size=5, pen=None, brush=pg.mkBrush(*POINT), hoverable=True,
                                         hoverSize=8, tip=None)
        self.points.sigClicked.connect(self._clicked)
        for item in (self.band, self.p5, self.p95, self.whiskers, self.points, self.median):
            self.top.addItem(item)
        self.cut_mean = pg.BarGraphItem(x=[], height=[], width=0.4, brush=pg.mkBrush(*CUT, 130), pen=None)
        self.cut_max = pg.PlotDataItem(pen=None, symbol="t1", symbolSize=8, symbolBrush=pg.mkBrush(CUT),
                                       symbolPen=None)
        self.bottom.addItem(self.cut_mean)
        self.bottom.addItem(self.cut_max)
        self.mode = ""                      # "per_k" | "ranking" | "" (nothing shown)
        self.ks: np.ndarray = np.zeros(0)
        self.clear_plot()

    @staticmethod
    def _label(plot: Any, side: str, text: str) -> None:
        plot.setLabel(side, text, color=TEXT)

    # ------------------------------------------------------------------ showing
    def clear_plot(self) -> None:
        empty = np.zeros(0)
        for item in (self.p5, self.p95, self.median, self.cut_max):
            item.setData(empty, empty)
        self.whiskers.setData(x=empty, y=empty, top=empty, bottom=empty)
        self.points.setData([], [])
        self.cut_mean.setOpts(x=empty, height=empty)
        self.band.setVisible(False)        # emptied curves keep their last path: the fill would stay
        self.mode = ""
        self.ks = empty
        for p in (self.top, self.bottom):         # empty: 0–1 axes, not autorange's ±0.4 of nothing
            p.getAxis("bottom").setTicks(None)
            p.setYRange(0.0, 1.05 if p is self.top else 1.0, padding=0)
        self.top.setXRange(0.0, 1.0, padding=0)

    def show_per_k(self, summary: Sequence[dict], results: Sequence[Any]) -> None:
        """``summary``: :func:`~fabricviz.sim.whatif.per_k` of ``results`` (the trials)."""
        self.clear_plot()
        if not summary:
            return
        self.mode = "per_k"
        ks = np.array([s["k"] for s in summary], float)
        col = {x: np.array([s["relative"][x] for s in summary]) for x in ("min", "p5", "median", "p95", "max")}
        self.ks = ks
        self.p5.setData(ks, col["p5"])
        self.p95.setData(ks, col["p95"])
        self.band.setVisible(True)
        self.median.setData(ks, col["median"])
        self.whiskers.setData(x=ks, y=col["median"], top=col["max"] - col["median"],
                              bottom=col["median"] - col["min"], beam=0.15 * _step(ks))
        self.points.setData(x=[float(r.k) + POINT_SHIFT * _step(ks) for r in results], y=[r.relative for r in results],
                            data=list(range(len(results))))
        self.cut_mean.setOpts(x=ks, height=np.array([s["disconnected_hosts"]["mean"] for s in summary]),
                              width=0.4 * _step(ks))
        self.cut_max.setData(ks, np.array([s["disconnected_hosts"]["max"] for s in summary], float))
        self._label(self.top, "left", "relative")
        self._label(self.bottom, "bottom", "failed elements K")
        ticks = [[(float(k), str(int(k))) for k in ks]]
        self.top.getAxis("bottom").setTicks(ticks)
        self.bottom.getAxis("bottom").setTicks(ticks)
        self._ranges(ks, max(1.05, float(col["max"].max()) * 1.05),
                     float(max(1.0, max(s["disconnected_hosts"]["max"] for s in summary))))

    def show_ranking(self, rows: Sequence[Any]) -> None:
        """The ranked single failures (:func:`~fabricviz.sim.whatif.ranked`): delivered by rank."""
        self.clear_plot()
        if not rows:
            return
        self.mode = "ranking"
        rank = np.arange(1, len(rows) + 1, dtype=float)
        delivered = np.array([r.delivered for r in rows])
        self.median.setData(rank, delivered)
        self.points.setData(x=rank, y=np.array([r.relative for r in rows]), data=list(range(len(rows))))
        cut = np.array([len(r.disconnected) for r in rows], float)
        self.cut_mean.setOpts(x=rank, height=cut, width=0.6)
        self._label(self.top, "left", "delivered · relative")
        self._label(self.bottom, "bottom", "rank (costliest first)")
        self.top.getAxis("bottom").setTicks(None)
        self.bottom.getAxis("bottom").setTicks(None)
        self._ranges(rank, max(1.05, float(max(delivered.max(), max(r.relative for r in rows))) * 1.05),
                     float(max(1.0, cut.max())))

    def _ranges(self, xs: np.ndarray, top: float, cut: float) -> None:
        pad = 0.5 * _step(xs)
        self.top.setXRange(float(xs.min()) - pad, float(xs.max()) + pad, padding=0)
        self.top.setYRange(0.0, top, padding=0)
        self.bottom.setYRange(0.0, cut * 1.15, padding=0)

    def _clicked(self, _item: Any, points: Any, *_rest: Any) -> None:
        if len(points):
            self.trial_clicked.emit(int(points[0].data()))

    # ------------------------------------------------------------------ reading back (tests, export)
    def curve(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) of ``p5``, ``p95``, ``median`` or ``cut_max`` as drawn."""
        x, y = getattr(self, name).getData()
        return (np.zeros(0), np.zeros(0)) if x is None else (np.asarray(x), np.asarray(y))

    def whisker_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """(min, max) per K as the whiskers draw them."""
        o = self.whiskers.opts
        y = np.asarray(o["y"], float)
        return y - np.asarray(o["bottom"], float), y + np.asarray(o["top"], float)

    def cut_bars(self) -> tuple[np.ndarray, np.ndarray]:
        o = self.cut_mean.opts
        return np.asarray(o["x"], float), np.asarray(o["height"], float)

    def picture(self) -> QtGui.QImage:
        """The two plots as an image at least :data:`PICTURE_MIN` px (pyqtgraph's ImageExporter)."""
        ex = ImageExporter(self.ci)
        w = max(PICTURE_MIN[0], self.width())
        ex.parameters()["width"] = w
        if ex.parameters()["height"] < PICTURE_MIN[1]:
            ex.parameters()["height"] = PICTURE_MIN[1]
        img = ex.export(toBytes=True)
        return img


def _step(xs: np.ndarray) -> float:
    """The smallest gap between neighbouring x values (1 for one value): bar and beam widths."""
    if len(xs) < 2:
        return 1.0
    return float(np.min(np.diff(np.sort(xs))))


__all__ = ["DegradationPlot"]
