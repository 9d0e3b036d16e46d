"""The Charts dock fits the bottom strip: a real ChartsDock showing a real run.

At 1200 × 230 px (the bottom tab strip's height, ``layout.BOTTOM_HEIGHT``) the six
plots reflow into one row of six (cells of about 199 × 176 px; two rows would be 88 px
high, too short to read), each lying wholly inside the dock; a taller dock gets 3 × 2.
Time starts at 0 ms; a max-min run is one steady-state frame, drawn as points over a
"steady state" tick on an axis 0..1, never against a negative time. Every y axis is at
least as wide as its widest tick number, and the numbers drawn do not overlap.
"""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate import leaf_spine
from fabricviz.sim.run import run_traffic
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.docks.charts import PLOTS, STEADY_X, ChartsDock
from fabricviz.ui.document.document import Document
from fabricviz.ui.layout import BOTTOM_HEIGHT
from fabricviz.ui.widgets.plots import grid_columns, text_width, tick_labels


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
        assert lo == 0.0 and hi > 0
        now = tick_labels(ax, lo, hi, ax.height())
        assert now                                                      # numbers at this size
        widest = max(text_width(ax, t) for t in tick_labels(ax, lo, hi))
        assert ax.width() >= widest + ax.style["tickTextOffset"][0] + ax.style["tickLength"], key
        texts = drawn_texts(ax)
        assert len(texts) >= 2, (key, texts)
        for i, (a, _) in enumerate(texts):
            assert a.left() >= 0, (key, texts)                          # inside the axis: not over a neighbour
            for b, _ in texts[i + 1:]:
                assert not a.intersects(b), (key, texts)
    # the numbers read in the plotted units: the link queue in KB, the incast's fluid queue of
    # the hottest link peaks in the thousands of KB (MB of bytes), not in bytes
    if model == "fluid":
        peak = max(float(fr.link_queue[dock.link]) for fr in res.frames)
        assert dock.plot["queue"].viewRange()[1][1] == pytest.approx(1.1 * peak / 1e3, rel=1e-9)
