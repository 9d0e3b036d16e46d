"""The Charts dock: a run's frames as time series (pyqtgraph).

Per chosen directed link: utilisation, queue bytes and latency; per chosen flow: delivered rate and, when the run
has rate-based congestion control, the sender's DCQCN rate Rc (what the NIC's rate limiter allows; the gap to the
delivered rate is PFC pauses or a bottleneck CC has not found yet); fabric-wide: aggregate throughput and mean / p99
flow latency; for a run whose transport trims (EQDS, NDP: the frames carry ``link_trims_per_s``) a seventh plot,
packets trimmed per second on the chosen link and over the whole fabric, and when the frames carry pulls
(``link_pulls_per_s``: EQDS / NDP tick by tick) the pulls per second back over its cable (link ``l ^ 1``). The link
list offers the run's hottest links (peak utilisation, then peak queue) plus the hotter direction of a cable
selected on the canvas; flows are listed slowest first. A vertical line follows the frame shown on the canvas.
Curves are created once and only ``setData`` runs after that.

The six plots reflow to the dock (:func:`~fabricviz.ui.widgets.plots.grid_columns`): one row of six in the bottom
strip (about 1200 × 230 px), 3 × 2 or 2 × 3 when the dock is taller, so no plot is cut off. The y axes carry fixed
units in their labels (%, KB, µs, Gb/s) and are as wide as their widest number. Time runs from 0 ms; a max-min run
is one steady-state frame, drawn as points over a "steady state" tick (no time axis, so never a negative time).

Export writes what is charted: a PNG of the plots with a caption naming the run, link and flow, or a CSV with one
row per frame. Both go through QSaveFile, so an existing file survives a failed save.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.model.atomic import write_atomic
from fabricviz.sim.engine import SimResult
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.document.document import Document
from fabricviz.ui.widgets.plots import (
    fit_labels_width,
    grid_columns,
    key_html,
    light_theme,
    nice_ticks,
    png_bytes,
    tick_font,
)

from .export_path import ask_export_path

#: Links and flows offered in the choosers.
HOT_LINKS = 24
LISTED_FLOWS = 64
#: The plots: key, title, y-axis unit; curves plotted in that unit (see ``ChartsDock.scale``).
PLOTS = (("util", "link utilisation", "%"), ("queue", "link queue", "KB"),
         ("latency", "link latency", "µs"), ("flow_rate", "flow rate", "Gb/s"),
         ("throughput", "aggregate throughput", "Gb/s"), ("flow_latency", "flow latency", "µs"),
         ("trims", "trimmed packets", "k/s"))
#: Plots laid out only when the run has them (the frames' ``has_trims``).
TRIM_PLOT = "trims"
#: The pulls/s back over the chosen link's cable on the trims plot (the violet of the canvas's pull marks, darker).
PULL_CURVE = "#7a3ce0"
#: The y range reaches this share of its span past its first and last ticks: their numbers are drawn
#: whole (pyqtgraph drops a number that would stick out of a gridded axis).
Y_PAD = 0.07
#: The x position of a one-frame (max-min steady state) run's points, on an axis 0..1.
STEADY_X = 0.5


def link_series(frames, link: int) -> dict[str, np.ndarray]:
    """``util``, ``queue`` (bytes) and ``latency`` (ns) of ``link`` over the frames, and
    ``link_trims`` and ``link_pulls`` (packets/s; 0 in a frame without): the pulls are those of the reverse
    direction ``link ^ 1``, the pulls that answer the link's data."""
    return {"util": np.array([f.link_util[link] for f in frames], np.float64),
            "queue": np.array([f.link_queue[link] for f in frames], np.float64),
            "latency": np.array([f.link_latency_ns[link] for f in frames], np.float64),
            "link_trims": np.array([f.link_trims_per_s[link] if f.has_trims else 0.0 for f in frames], np.float64),
            "link_pulls": np.array([f.link_pulls_per_s[link ^ 1] if f.has_pulls else 0.0 for f in frames], np.float64)}


def fabric_series(frames) -> dict[str, np.ndarray]:
    """Aggregate delivered rate (Gb/s), mean and p99 flow latency (ns) per frame (in float64)."""
    agg = np.array([float(np.sum(f.flow_rate_gbps, dtype=np.float64)) for f in frames])
    lat = [f.flow_latency_ns.astype(np.float64) for f in frames]
    mean = np.array([float(np.mean(x)) if len(x) else 0.0 for x in lat])
    p99 = np.array([float(np.percentile(x, 99)) if len(x) else 0.0 for x in lat])
    trims = np.array([float(np.sum(f.link_trims_per_s, dtype=np.float64)) for f in frames])
    return {"throughput": agg, "mean_latency": mean, "p99_latency": p99, "all_trims": trims}


def flow_series(frames, flow: int) -> dict[str, np.ndarray]:
    """``rate`` (delivered, Gb/s) and ``cc_rate`` (DCQCN Rc, Gb/s; empty when the run has none)
    of ``flow`` over the frames."""
    rate = np.array([f.flow_rate_gbps[flow] for f in frames], np.float64)
    has_cc = len(frames) > 0 and all(len(f.flow_cc_rate_gbps) for f in frames)
    cc = np.array([f.flow_cc_rate_gbps[flow] for f in frames], np.float64) if has_cc else np.zeros(0)
    return {"rate": rate, "cc_rate": cc}


#: CSV columns (name with unit) in order; ``link`` and ``flow`` name what the series are of.
CSV_COLUMNS = ("time_ms", "link_util_fraction", "link_queue_bytes", "link_latency_ns", "flow_rate_gbps",
               "flow_dcqcn_rate_gbps", "throughput_gbps", "mean_latency_ns", "p99_latency_ns",
               "link", "flow")


def hottest_links(frames, n: int = HOT_LINKS, alive: np.ndarray | None = None) -> np.ndarray:
    """Link ids by peak utilisation over the run, then peak queue (live links only)."""
    util = np.max(np.stack([f.link_util for f in frames]), axis=0)
    queue = np.max(np.stack([f.link_queue for f in frames]), axis=0)
    ids = np.arange(len(util)) if alive is None else np.flatnonzero(alive)
    order = np.lexsort((ids, -queue[ids], -util[ids]))
    return ids[order[:n]]


class ChartsDock(QtWidgets.QDockWidget):
    """Time series of the current run (see the module doc)."""

    def __init__(self, document: Document, scene: FabricScene, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Charts", parent)
        self.setObjectName("charts")
        self.scene = scene
        self.result: SimResult | None = None
        self.fabric: Fabric | None = None
        self.time_ms = np.zeros(0)
        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        row = QtWidgets.QHBoxLayout()

        def chooser(label: str, name: str, slot) -> QtWidgets.QComboBox:
            row.addWidget(QtWidgets.QLabel(label, body))
            box = QtWidgets.QComboBox(body)
            box.setObjectName(name)
            box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(18)
            box.setMinimumWidth(160)                # room for Export without widening the dock
            box.currentIndexChanged.connect(slot)
            row.addWidget(box, 1)
            return box
        self.link_box = chooser("Link", "charts_link", self._link_chosen)
        self.flow_box = chooser("Flow", "charts_flow", self._flow_chosen)
        self.export_button = QtWidgets.QToolButton(body)
        self.export_button.setObjectName("charts_export")
        self.export_button.setText("Export")
        self.export_button.setToolTip("save these charts as a PNG picture or their frames as CSV")
        self.export_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QtWidgets.QMenu(self.export_button)
        self.action_png = menu.addAction("Chart picture (PNG)…", lambda: self.export_dialog("png"))
        self.action_png.setObjectName("charts_export_png")
        self.action_csv = menu.addAction("Frame data (CSV)…", lambda: self.export_dialog("csv"))
        self.action_csv.setObjectName("charts_export_csv")
        self.export_button.setMenu(menu)
        self.export_button.setEnabled(False)
        row.addWidget(self.export_button)
        self.message = QtWidgets.QLabel("", body)       # one line: the last export's outcome
        self.message.setObjectName("charts_message")
        self.message.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        row.addWidget(self.message, 1)
        lay.addLayout(row)

        self.plots = pg.GraphicsLayoutWidget(body)
        self.plots.setObjectName("charts_plots")
        self.plots.setMinimumHeight(120)          # the strip's height; the grid reflows to fit
        self.plots.ci.layout.setSpacing(2)
        self.plots.ci.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.plots, 1)
        self.setWidget(body)
        self.plot: dict[str, pg.PlotItem] = {}       # the plots laid out (the trims plot only when shown)
        self.frame_line: dict[str, pg.InfiniteLine] = {}   # per plot: the line at the frame shown
        font = tick_font()
        for i, (key, title, unit) in enumerate(PLOTS):
            p = self.plots.addPlot(row=i // 3, col=i % 3)
            p.setTitle(title, size="9pt")
            p.setLabel("left", unit)
            p.setLabel("bottom", "time (ms)")
            for side in ("left", "bottom"):
                ax = p.getAxis(side)
                ax.enableAutoSIPrefix(False)           # fixed units: no "(x0.001)", no prefix switch
                ax.setStyle(tickFont=font, autoExpandTextSpace=False)
            p.showGrid(x=True, y=True, alpha=0.2)
            p.setMenuEnabled(False)
            p.disableAutoRange()                       # ranges are set from the data (_fit)
            p.getViewBox().setLimits(xMin=0.0)         # no pan into negative time
            self.plot[key] = p
            line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#ff9f1a", width=1))
            p.addItem(line)
            self.frame_line[key] = line
        light_theme(self.plots, list(self.plot.values()))   # as the Collectives and What-if plots
        self.all_plots = dict(self.plot)
        pen = lambda c, **kw: pg.mkPen(c, width=1.5, **kw)    # noqa: E731
        self.curves = {"util": self.plot["util"].plot(pen=pen("#d7191c")),
                       "queue": self.plot["queue"].plot(pen=pen("#f29e2e")),
                       "latency": self.plot["latency"].plot(pen=pen("#2c7bb6")),
                       "flow_rate": self.plot["flow_rate"].plot(pen=pen("#76b900"), name="delivered"),
                       "cc_rate": self.plot["flow_rate"].plot(
                           pen=pen("#c77dff", style=QtCore.Qt.PenStyle.DashLine), name="DCQCN Rc"),
                       "throughput": self.plot["throughput"].plot(pen=pen("#2f6db5")),
                       "mean_latency": self.plot["flow_latency"].plot(pen=pen("#2c7bb6"), name="mean"),
                       "p99_latency": self.plot["flow_latency"].plot(pen=pen("#d7191c"), name="p99"),
                       "link_trims": self.plot["trims"].plot(pen=pen("#2a2a2a"), name="link"),
                       "all_trims": self.plot["trims"].plot(pen=pen("#7a7a7a", style=QtCore.Qt.PenStyle.DashLine),
                                                            name="all links"),
                       "link_pulls": self.plot["trims"].plot(pen=pen(PULL_CURVE), name="pulls back")}
        # engine units → the plotted units of PLOTS (fraction → %, bytes → KB, ns → µs)
        self.scale = {"util": 100.0, "queue": 1e-3, "latency": 1e-3, "flow_rate": 1.0, "cc_rate": 1.0,
                      "throughput": 1.0, "mean_latency": 1e-3, "p99_latency": 1e-3, "link_trims": 1e-3,
                      "all_trims": 1e-3, "link_pulls": 1e-3}
        self.plot_of = {"util": "util", "queue": "queue", "latency": "latency", "flow_rate": "flow_rate",
                        "cc_rate": "flow_rate", "throughput": "throughput", "mean_latency": "flow_latency",
                        "p99_latency": "flow_latency", "link_trims": "trims", "all_trims": "trims",
                        "link_pulls": "trims"}
        self.link: int | None = None
        self.flow: int | None = None
        self.columns = 3
        self.trims_shown = True                          # laid out now; _set_trims_shown(False) below
        self._set_cc_shown(False)
        self._set_trims_shown(False)
        self._set_time_axis()
        for key in self.plot:
            self._fit(key)
        self.plots.installEventFilter(self)
        self._reflow()
        self.shown = document.session.traffic          # the Traffic dock's run on show
        self.shown.run_changed.connect(self._run_changed)
        self.shown.frame_changed.connect(self.set_frame)
        self.shown.present_requested.connect(self._present_run)
        scene.selectionChanged.connect(self._selection)

    def _run_changed(self, result: Any) -> None:
        self.set_result(result, self.shown.fabric)

    def _present_run(self, on: bool) -> None:
        """Presentation mode: the canvas and the lesson only."""
        if not on:
            self.hide()

    def _selection(self) -> None:
        """One cable selected on the canvas: chart its hotter direction."""
        cabs = self.scene.selected_cables
        if len(cabs) == 1 and self.result is not None:
            self.show_cable(next(iter(cabs)))

    # ------------------------------------------------------------------ run
    @property
    def has_cc_rate(self) -> bool:
        """The run carries the senders' DCQCN rate (fluid model with DCQCN)."""
        return self.result is not None and all(len(f.flow_cc_rate_gbps) for f in self.result.frames)

    def set_result(self, result: SimResult | None, fabric: Fabric | None = None) -> None:
        """Show ``result`` (None clears): fabric-wide panel, then the hottest link and slowest flow.

        A re-run on the same design (another routing mode, say) keeps the chosen link, and the
        chosen flow when the flows are the same, so the two runs read side by side."""
        prev, prev_fabric, link, flow = self.result, self.fabric, self.link, self.flow
        self.result, self.fabric = result, fabric
        self.link_box.blockSignals(True)
        self.flow_box.blockSignals(True)
        self.link_box.clear()
        self.flow_box.clear()
        self.link = self.flow = None
        self.message.clear()
        self.export_button.setEnabled(result is not None)
        if result is None:
            self.time_ms = np.zeros(0)
            for c in self.curves.values():
                c.setData([], [])
            self._set_cc_shown(False)
            self._set_trims_shown(False)
            self._set_time_axis()
            for key in self.plot:
                self._fit(key)
            self.link_box.blockSignals(False)
            self.flow_box.blockSignals(False)
            return
        frames = result.frames
        self.time_ms = np.array([f.time_s for f in frames]) * 1e3
        self._set_trims_shown(any(f.has_trims for f in frames), any(f.has_pulls for f in frames))
        self._set_time_axis()
        for key, y in fabric_series(frames).items():
            if key != "all_trims" or self.trims_shown:
                self._set(key, y)
        for l in hottest_links(frames, alive=result.links.alive):
            self.link_box.addItem(self._link_name(int(l)), int(l))
        rate = result.flow_rates()
        for i in np.argsort(rate, kind="stable")[:LISTED_FLOWS]:
            self.flow_box.addItem(self._flow_name(int(i)), int(i))
        self.link_box.blockSignals(False)
        self.flow_box.blockSignals(False)
        same = prev is not None and fabric is not None and fabric is prev_fabric
        if same and link is not None and link < result.links.n and result.links.alive[link]:
            self.show_link(link)
        elif self.link_box.count():
            self.show_link(int(self.link_box.itemData(0)))
        if same and prev is not None and flow is not None and len(prev.flows) == len(result.flows) and \
                np.array_equal(prev.flows.src, result.flows.src) and np.array_equal(prev.flows.dst, result.flows.dst):
            self.show_flow(flow)
        elif self.flow_box.count():
            self.show_flow(int(self.flow_box.itemData(0)))
        self.set_frame(0)

    @property
    def one_frame(self) -> bool:
        """The run is one steady-state frame (max-min): points over "steady state", no time."""
        return len(self.time_ms) == 1

    def _x(self) -> np.ndarray:
        return np.array([STEADY_X]) if self.one_frame else self.time_ms

    def _set(self, key: str, y: np.ndarray) -> None:
        one = self.one_frame                  # max-min: a single steady-state point
        curve = self.curves[key]
        color = pg.mkPen(curve.opts["pen"]).color()
        curve.setData(self._x(), y * self.scale[key], symbol="o" if one else None, symbolSize=8,
                      symbolBrush=color, symbolPen=color)
        self._fit(self.plot_of[key])

    def _set_time_axis(self) -> None:
        """x from 0: 0..last frame time (ms) for a run in time; 0..1 with one "steady state" tick
        for a one-frame run (the frame's time is 0, so an autoscaled axis would go negative)."""
        one = self.one_frame
        end = float(self.time_ms[-1]) if len(self.time_ms) and not one else 0.0
        hi = 1.0 if one or end <= 0 else end
        for p in self.plot.values():
            ax = p.getAxis("bottom")
            ax.setTicks([[(STEADY_X, "steady state")], []] if one else None)
            ax.setLabel("max-min: one frame" if one else "time (ms)")
            vb = p.getViewBox()
            vb.setLimits(xMin=0.0, xMax=1.0 if one else None)
            p.setXRange(0.0, hi, padding=0)
        for line in self.frame_line.values():
            line.setVisible(not one and self.result is not None)

    def _fit(self, plot: str) -> None:
        """y from 0 (every series here is ≥ 0) to 10 % above the highest visible point (0..1 with
        no data), then the y axis as wide as its widest number."""
        p = self.all_plots[plot]
        ys = [np.asarray(it.yData, np.float64) for it in p.getViewBox().addedItems
              if isinstance(it, pg.PlotDataItem) and it.isVisible() and it.yData is not None and len(it.yData)]
        y = np.concatenate(ys) if ys else np.zeros(0)
        y = y[np.isfinite(y)]
        lo = min(0.0, float(y.min())) if len(y) else 0.0
        hi = float(y.max()) if len(y) else 0.0
        lo, hi, ticks = nice_ticks(lo, hi)         # both ends labelled, the peak clear of the top edge
        p.setYRange(lo, hi, padding=Y_PAD)         # room for the end ticks' numbers inside the axis
        ax = p.getAxis("left")
        ax.setTicks([ticks, []])
        fit_labels_width(ax, [t for _, t in ticks])

    # ------------------------------------------------------------------ layout
    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:  # noqa: N802
        if obj is self.plots and event.type() == QtCore.QEvent.Type.Resize:
            self._reflow()
        return super().eventFilter(obj, event)

    @property
    def cursors(self) -> list[pg.InfiniteLine]:
        """The frame lines of the plots laid out."""
        return [self.frame_line[k] for k in self.plot]

    def laid_out(self) -> list[pg.PlotItem]:
        """The plots in the grid, in PLOTS order: the trims plot only for a run that trims."""
        return list(self.plot.values())

    def _reflow(self) -> None:
        """Columns for the plots' current size (see the module doc)."""
        self._grid(grid_columns(self.plots.width(), self.plots.height(), len(self.laid_out())))

    def _set_trims_shown(self, on: bool, pulls: bool = False) -> None:
        """Lay the trims plot out (a run that trims) or take it out of the grid; its pulls curve and
        key only for a run with pulls."""
        self.curves["link_pulls"].setVisible(pulls)
        p = self.all_plots[TRIM_PLOT]
        p.setTitle(key_html("trimmed packets", [("#2a2a2a", "link", False), ("#7a7a7a", "all links", True)]
                            + ([(PULL_CURVE, "pulls back", False)] if pulls else [])), size="9pt")
        if on == self.trims_shown:
            return
        self.trims_shown = on
        p.setVisible(on)
        self.plot = {k: q for k, q in self.all_plots.items() if k != TRIM_PLOT or on}
        if not on:
            for key in ("link_trims", "all_trims", "link_pulls"):
                self.curves[key].setData([], [])
        self.columns = 0                                   # re-lay the grid with or without it
        self._reflow()

    def _grid(self, cols: int) -> None:
        """Lay the plots out ``cols`` wide, in PLOTS order (row by row)."""
        if cols == self.columns:
            return
        lay = self.plots.ci.layout
        for i in reversed(range(lay.count())):
            lay.removeAt(i)
        items = self.laid_out()
        for r in range(lay.rowCount()):
            lay.setRowStretchFactor(r, 0)
        for c in range(lay.columnCount()):
            lay.setColumnStretchFactor(c, 0)
        for i, p in enumerate(items):
            lay.addItem(p, i // cols, i % cols)
        rows = -(-len(items) // cols)
        for r in range(rows):
            lay.setRowStretchFactor(r, 1)
        for c in range(cols):
            lay.setColumnStretchFactor(c, 1)
        self.columns = cols
        lay.invalidate()

    def _set_cc_shown(self, on: bool) -> None:
        """The DCQCN curve and its key only for runs that have it; the title says n/a."""
        curve = self.curves["cc_rate"]
        curve.setVisible(on)
        if not on:
            curve.setData([], [])
            self._fit("flow_rate")
        # the keys sit in the titles, beside the name, never over the curves
        keys = [("#76b900", "delivered", False)] + ([("#c77dff", "DCQCN Rc", True)] if on else [])
        title = "flow rate" if on or self.result is None else "flow rate · DCQCN n/a"
        self.plot["flow_rate"].setTitle(key_html(title, keys), size="9pt")
        self.plot["flow_latency"].setTitle(key_html("flow latency", [("#2c7bb6", "mean", False),
                                                                     ("#d7191c", "p99", False)]), size="9pt")

    def _link_name(self, l: int) -> str:
        if self.fabric is None:
            return f"link {l}"
        assert self.result is not None                # named while a result is shown
        a, b = self.result.links.name(self.fabric, l)
        return f"{a} → {b}"

    def _flow_name(self, i: int) -> str:
        assert self.result is not None                # named while a result is shown
        fl = self.result.flows
        if self.fabric is None:
            return f"flow {i}"
        return f"#{i} {self.fabric.name_of(int(fl.src[i]))} → {self.fabric.name_of(int(fl.dst[i]))}"

    # ------------------------------------------------------------------ choices
    def show_link(self, link: int) -> None:
        """Plot directed link ``link`` (added to the chooser when it is not listed)."""
        if self.result is None:
            return
        self._choose(self.link_box, int(link), self._link_name)
        self.link = int(link)
        for key, y in link_series(self.result.frames, self.link).items():
            if key not in ("link_trims", "link_pulls") or self.trims_shown:
                self._set(key, y)

    def show_flow(self, flow: int) -> None:
        """Plot flow ``flow``'s delivered rate and, when the run has it, its DCQCN rate."""
        if self.result is None:
            return
        self._choose(self.flow_box, int(flow), self._flow_name)
        self.flow = int(flow)
        series = flow_series(self.result.frames, self.flow)
        self._set("flow_rate", series["rate"])
        self._set_cc_shown(len(series["cc_rate"]) > 0)
        if len(series["cc_rate"]):
            self._set("cc_rate", series["cc_rate"])

    def _choose(self, box: QtWidgets.QComboBox, item: int, name: Callable[[int], str]) -> None:
        i = box.findData(item)
        box.blockSignals(True)
        if i < 0:
            box.addItem(name(item), item)
            i = box.count() - 1
        box.setCurrentIndex(i)
        box.blockSignals(False)

    def show_cable(self, cable: int) -> None:
        """Plot the hotter direction (peak utilisation, then queue) of canvas cable ``cable``."""
        if self.result is None or 2 * cable + 1 >= self.result.links.n_cable_links:
            return
        a, b = link_series(self.result.frames, 2 * cable), link_series(self.result.frames, 2 * cable + 1)
        hotter = (b["util"].max(), b["queue"].max()) > (a["util"].max(), a["queue"].max())
        self.show_link(2 * cable + int(hotter))

    def _link_chosen(self, i: int) -> None:
        if i >= 0:
            self.show_link(int(self.link_box.itemData(i)))

    def _flow_chosen(self, i: int) -> None:
        if i >= 0:
            self.show_flow(int(self.flow_box.itemData(i)))

    def set_frame(self, k: int) -> None:
        """Move the cursor line to frame ``k``."""
        if self.result is None or not len(self.time_ms):
            return
        x = float(self._x()[max(0, min(int(k), len(self.time_ms) - 1))])
        for line in self.frame_line.values():
            line.setValue(x)

    def curve_data(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) of a curve in engine units (frame time in ms; fraction, bytes, ns, Gb/s)."""
        x, y = self.curves[key].getData()
        if x is None or not len(x):
            return np.zeros(0), np.zeros(0)
        if self.one_frame:                     # drawn over "steady state"; the frame is at t = 0
            x = self.time_ms
        return np.asarray(x), np.asarray(y) / self.scale[key]

    # ------------------------------------------------------------------ export
    def csv_rows(self) -> list[list]:
        """Header (``CSV_COLUMNS``) and one row per frame of what is charted, in engine units;
        the DCQCN column is empty when the run has no rate-based CC."""
        if self.result is None or self.link is None or self.flow is None:
            raise FabricError("charts: no run to export")
        frames = self.result.frames
        ls, fs = link_series(frames, self.link), flow_series(frames, self.flow)
        agg = fabric_series(frames)
        cc = fs["cc_rate"] if len(fs["cc_rate"]) else [""] * len(frames)
        link, flow = self._link_name(self.link), self._flow_name(self.flow)
        rows: list[list] = [list(CSV_COLUMNS)]
        for k, fr in enumerate(frames):
            rows.append([float(fr.time_s) * 1e3, ls["util"][k], ls["queue"][k], ls["latency"][k],
                         fs["rate"][k], cc[k], agg["throughput"][k], agg["mean_latency"][k],
                         agg["p99_latency"][k], link, flow])
        return rows

    def export_csv(self, path: str | Path) -> int:
        """Write :meth:`csv_rows` to ``path`` (atomic); returns the number of frame rows."""
        rows = self.csv_rows()
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerows(rows)
        write_atomic(path, text.getvalue())
        return len(rows) - 1

    def picture(self, min_size: tuple[int, int] = (1200, 540)) -> QtGui.QImage:
        """The plots under a caption naming the design, run, link and flow. They are laid out
        for the picture at least ``min_size`` px (the dock may be a strip, or hidden) and put
        back before anything repaints."""
        if self.result is None:
            raise FabricError("charts: no run to export")
        ci, scene = self.plots.ci, self.plots.scene()
        w = max(self.plots.width(), min_size[0])
        h = max(self.plots.height(), min_size[1])
        res = self.result
        caption = f"{getattr(self.fabric, 'name', '') or 'design'} · {len(res.flows)} flows, {res.model}, " \
                  f"{res.routing} routing"
        if self.link is not None:
            caption += f" · link {self._link_name(self.link)}"
        if self.flow is not None:
            caption += f" · flow {self._flow_name(self.flow)}"
        cap_h = 30
        bg = self.plots.backgroundBrush().color()
        img = QtGui.QImage(w, h + cap_h, QtGui.QImage.Format.Format_RGB32)
        img.fill(bg)
        p = QtGui.QPainter(img)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setPen(QtGui.QColor("#d0d0d0") if bg.lightness() < 128 else QtGui.QColor("#202020"))
        font = QtGui.QFont()
        font.setPixelSize(15)
        p.setFont(font)
        p.drawText(QtCore.QRect(10, 0, w - 20, cap_h),
                   QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter,
                   p.fontMetrics().elidedText(caption, QtCore.Qt.TextElideMode.ElideRight, w - 20))
        old, cols = ci.geometry(), self.columns
        try:
            self._grid(grid_columns(w, h, len(self.laid_out())))
            ci.setGeometry(QtCore.QRectF(0, 0, w, h))
            ci.layout.activate()
            scene.render(p, QtCore.QRectF(0, cap_h, w, h), QtCore.QRectF(0, 0, w, h))
        finally:
            p.end()
            self._grid(cols)
            ci.setGeometry(old)
            ci.layout.activate()
        return img

    def export_png(self, path: str | Path) -> tuple[int, int]:
        """Write :meth:`picture` to ``path`` as PNG (atomic); returns its (width, height)."""
        img = self.picture()
        write_atomic(path, png_bytes(img, path))
        return img.width(), img.height()

    def export_dialog(self, kind: str) -> str | None:
        """Ask where, then export ``kind`` (png | csv); the outcome goes to the one-line message.
        Returns the path written, or None."""
        if self.result is None:
            return None
        stem = (getattr(self.fabric, "name", "") or "charts") + f"-{self.result.model}-{self.result.routing}"
        path = ask_export_path(self, "charts", stem, kind)
        if path is None:
            return None
        try:
            if kind == "png":
                width, height = self.export_png(path)
                done = f"{width}×{height} px"
            else:
                done = f"{self.export_csv(path)} frames"
        except FabricError as exc:
            self.message.setText(f"could not save: {exc}")
            self.message.setToolTip(str(exc))
            return None
        self.message.setText(f"saved {Path(path).name} ({done})")
        self.message.setToolTip(path)
        return path


__all__ = ["CSV_COLUMNS", "PLOTS", "ChartsDock", "fabric_series", "flow_series", "hottest_links", "link_series"]
