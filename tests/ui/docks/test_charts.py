"""The Charts dock fits the bottom strip: a real ChartsDock showing a real run.

At 1200 × 230 px (the bottom tab strip's height, ``layout.BOTTOM_HEIGHT``) the six
plots reflow into one row of six (cells of about 199 × 176 px; two rows would be 88 px
high, too short to read), each lying wholly inside the dock; a taller dock gets 3 × 2.
Time starts at 0 ms; a max-min run is one steady-state frame, drawn as points over a
"steady state" tick on an axis 0..1, never against a negative time. Every y axis is at
least as wide as its widest tick number, and the numbers drawn do not overlap.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate import leaf_spine
from fabricviz.sim.run import run_traffic
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.docks.charts import PLOTS, STEADY_X, ChartsDock
from fabricviz.ui.document.document import Document
from fabricviz.ui.layout import BOTTOM_HEIGHT
from fabricviz.ui.widgets.plots import grid_columns, nice_ticks, text_width


@pytest.fixture
def strip(qtbot):
    """``strip(width, height)`` → a ChartsDock docked at the bottom of a window, sized so."""
    windows = []                                  # kept alive for the test

    def make(width, height):
        win = QtWidgets.QMainWindow()
        windows.append(win)
        qtbot.addWidget(win)
        win.setCentralWidget(QtWidgets.QWidget())
        dock = ChartsDock(Document(), FabricScene(win), win)
        win.addDockWidget(QtCore.Qt.DockWidgetArea.BottomDockWidgetArea, dock)
        win.resize(width, 800)
        win.show()
        qtbot.waitExposed(win)
        win.resizeDocks([dock], [height], QtCore.Qt.Orientation.Vertical)
        QtWidgets.QApplication.processEvents()
        assert (dock.width(), dock.height()) == (width, height)
        return dock
    return make


def run(model):
    f = leaf_spine(2, 2, 4)
    return f, run_traffic(f, "incast:4", model, None, "minhop", 0.1e-3, 0)


def show(dock, f, res):
    dock.set_result(res, f)
    QtWidgets.QApplication.processEvents()


def plot_rect_in_dock(dock, p) -> QtCore.QRectF:
    """A plot's rectangle in dock pixels (scene → view → dock)."""
    r = p.mapRectToScene(p.boundingRect())
    view = dock.plots.mapFromScene(r).boundingRect()
    return QtCore.QRectF(view.translated(dock.plots.mapTo(dock, QtCore.QPoint(0, 0))))


def assert_inside(dock):
    visible = QtCore.QRectF(dock.visibleRegion().boundingRect())
    view = QtCore.QRectF(dock.plots.geometry().translated(dock.widget().mapTo(dock, QtCore.QPoint(0, 0))))
    assert visible == QtCore.QRectF(dock.rect())                      # nothing of the dock is covered
    for key, p in dock.plot.items():
        r = plot_rect_in_dock(dock, p)
        assert r.width() > 0 and r.height() > 0, key
        assert visible.contains(r) and view.contains(r), (key, r, view)


def test_grid_columns_reflow():
    assert grid_columns(1192, 176, 6) == 6          # the bottom strip: one row
    assert grid_columns(1192, 506, 6) == 3          # a taller dock: 3 × 2
    assert grid_columns(792, 506, 6) == 3           # 264 × 253 px cells, nearer 3:2 than 396 × 169
    assert grid_columns(600, 600, 6) == 2           # 300 × 200 px cells: 2 × 3
    assert grid_columns(600, 176, 6) == 3           # nothing readable: 200 × 88 beats 100 × 176 px
    assert grid_columns(300, 900, 6) == 1
    assert grid_columns(500, 500, 1) == 1


@pytest.mark.parametrize("model", ["fluid", "maxmin"])
def test_the_plots_fit_the_bottom_strip(strip, model):
    dock = strip(1200, BOTTOM_HEIGHT)
    f, res = run(model)
    show(dock, f, res)
    assert dock.columns == 6
    assert_inside(dock)
    rects = [plot_rect_in_dock(dock, p) for p in dock.plot.values()]
    tops = {round(r.top()) for r in rects}
    assert len(tops) == 1                                              # one row
    for a, b in zip(rects, rects[1:], strict=False):                                 # side by side, no overlap
        assert a.right() <= b.left()
    assert min(r.width() for r in rects) >= 170 and min(r.height() for r in rects) >= 140


def test_a_tall_dock_gets_two_rows_and_back(strip):
    dock = strip(1200, 560)
    f, res = run("fluid")
    show(dock, f, res)
    assert dock.columns == 3
    assert_inside(dock)
    rects = [plot_rect_in_dock(dock, p) for p in dock.plot.values()]
    assert len({round(r.top()) for r in rects}) == 2
    win = dock.parentWidget()
    win.resizeDocks([dock], [BOTTOM_HEIGHT], QtCore.Qt.Orientation.Vertical)
    QtWidgets.QApplication.processEvents()
    assert dock.height() == BOTTOM_HEIGHT and dock.columns == 6
    assert_inside(dock)


def test_time_axis_starts_at_zero(strip):
    dock = strip(1200, BOTTOM_HEIGHT)
    f, fluid = run("fluid")
    show(dock, f, fluid)
    end_ms = fluid.frames[-1].time_s * 1e3
    for key, p in dock.plot.items():
        lo, hi = p.viewRange()[0]
        assert lo == 0.0 and hi == pytest.approx(end_ms, rel=1e-9), key
        assert p.getAxis("bottom").labelText == "time (ms)"
    assert all(line.isVisible() for line in dock.cursors)
    dock.set_frame(99)
    assert dock.cursors[0].value() == pytest.approx(end_ms, rel=1e-9)

    _, one = run("maxmin")                          # one steady-state frame at t = 0
    assert len(one.frames) == 1 and one.frames[0].time_s == 0.0
    show(dock, f, one)
    for key, p in dock.plot.items():
        assert p.viewRange()[0] == [0.0, 1.0], key
        ax = p.getAxis("bottom")
        assert ax.labelText == "max-min: one frame"
        assert [t for _, t in drawn_texts(ax)] == ["steady state"]          # the one tick drawn
    x, y = dock.curves["util"].getData()
    assert x.tolist() == [STEADY_X] and dock.curves["util"].opts["symbol"] == "o"
    assert y[0] == pytest.approx(100 * float(one.frames[0].link_util[dock.link]))
    assert dock.curve_data("util")[0].tolist() == [0.0]                     # the frame's time
    assert not any(line.isVisible() for line in dock.cursors)              # nothing to scrub
    show(dock, f, fluid)                                                   # back to a run in time
    assert dock.plot["util"].viewRange()[0][0] == 0.0 and dock.cursors[0].isVisible()


def drawn_texts(axis):
    """(rect, text) of every tick label ``axis`` draws now (pyqtgraph's own draw specs)."""
    img = QtGui.QImage(10, 10, QtGui.QImage.Format.Format_ARGB32)
    p = QtGui.QPainter(img)
    try:
        _, _, texts = axis.generateDrawSpecs(p)
    finally:
        p.end()
    return [(r, t) for r, _, t in texts]


@pytest.mark.parametrize("model", ["fluid", "maxmin"])
def test_y_axis_numbers_fit_and_do_not_overlap(strip, model):
    dock = strip(1200, BOTTOM_HEIGHT)
    f, res = run(model)
    show(dock, f, res)
    units = {key: unit for key, _, unit in PLOTS}
    for key, p in dock.plot.items():
        ax = p.getAxis("left")
        assert ax.labelText == units[key] and ax.labelUnits == ""      # fixed units, in the label
        lo, hi = p.viewRange()[1]
        first, last, ticks = nice_ticks(min(0.0, plot_low(p)), plot_peak(p))
        assert first == 0.0 and lo < 0.0 < last < hi                    # y from 0, the end ticks inside
        labels = [t for _, t in ticks]
        widest = max(text_width(ax, t) for t in labels)
        assert ax.width() >= widest + ax.style["tickTextOffset"][0] + ax.style["tickLength"], key
        texts = drawn_texts(ax)
        assert sorted(t for _, t in texts) == sorted(labels), (key, texts)   # every number drawn, the ends too
        for i, (a, _) in enumerate(texts):
            assert a.left() >= 0, (key, texts)                          # inside the axis: not over a neighbour
            for b, _ in texts[i + 1:]:
                assert not a.intersects(b), (key, texts)
    # the numbers read in the plotted units: the link queue in KB, the incast's fluid queue of
    # the hottest link peaks in the thousands of KB (MB of bytes), not in bytes
    if model == "fluid":
        peak = max(float(fr.link_queue[dock.link]) for fr in res.frames)
        top = nice_ticks(0.0, peak / 1e3)[1]
        assert dock.plot["queue"].viewRange()[1][1] == pytest.approx(top * 1.07, rel=1e-9)
        assert peak / 1e3 * 1.03 <= top <= peak / 1e3 * 1.5


@pytest.mark.gui
def test_light_plots_with_a_labelled_top_tick_and_keys_beside_the_titles(strip):
    """Issue 29: the Traffic charts were dark unlike every other plot, drew values on their top edge
    with no labelled tick there, and put legend boxes over the lines."""
    dock = strip(1200, BOTTOM_HEIGHT)
    f, res = run("fluid")
    show(dock, f, res)
    assert dock.plots.backgroundBrush().color().name() == "#ffffff"        # as the Collectives plot
    img = dock.plots.grab().toImage()
    assert img.pixelColor(img.width() // 2, img.height() // 2).lightness() > 200
    for key, p in dock.plot.items():
        ax = p.getAxis("left")
        assert ax.pen().color().name() == "#404040" and ax.textPen().color().name() == "#202020"
        first, last, ticks = nice_ticks(min(0.0, plot_low(p)), plot_peak(p))
        lo, hi = p.viewRange()[1]
        assert lo < first and last < hi                                  # inside the range, with room
        labels = [t for _, t in drawn_texts(ax)]                           # what pyqtgraph draws
        assert f"{first:g}" in labels and f"{last:g}" in labels, (key, first, last, labels)   # both ends labelled
        assert last >= plot_peak(p) + 0.03 * (last - first), key          # the peak is clear of the top tick
        assert not [it for it in p.scene().items() if isinstance(it, pg.LegendItem)]   # no box over the lines
    assert "DCQCN Rc" in dock.plot["flow_rate"].titleLabel.text
    assert "p99" in dock.plot["flow_latency"].titleLabel.text and "mean" in dock.plot["flow_latency"].titleLabel.text
    # util: the receiver's downlink at 100 % → 0..120 in steps of 20, "120" drawn at the top
    lo, hi = dock.plot["util"].viewRange()[1]
    assert (lo, hi) == pytest.approx((-0.07 * 120, 120 * 1.07))
    assert sorted(t for _, t in drawn_texts(dock.plot["util"].getAxis("left"))) == \
        sorted(["0", "20", "40", "60", "80", "100", "120"])


def _ys(p):
    return [np.asarray(it.yData, float) for it in p.getViewBox().addedItems
            if isinstance(it, pg.PlotDataItem) and it.isVisible() and it.yData is not None and len(it.yData)]


def plot_peak(p) -> float:
    """The highest value a plot draws (0 with none)."""
    return max((float(np.nanmax(y)) for y in _ys(p)), default=0.0)


def plot_low(p) -> float:
    return min((float(np.nanmin(y)) for y in _ys(p)), default=0.0)
