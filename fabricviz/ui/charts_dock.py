"""The Charts dock: a run's frames as time series (pyqtgraph).

Per chosen directed link: utilisation, queue bytes and latency; per chosen
flow: delivered rate; fabric-wide: aggregate throughput and mean / p99 flow
latency. The link list offers the run's hottest links (peak utilisation, then
peak queue) plus the hotter direction of a cable selected on the canvas; flows
are listed slowest first. A vertical line follows the frame shown on the
canvas. Curves are created once and only ``setData`` runs after that.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from fabricviz.model import Fabric

#: Links and flows offered in the choosers.
HOT_LINKS = 24
LISTED_FLOWS = 64


def link_series(frames, link: int) -> dict[str, np.ndarray]:
    """``util``, ``queue`` (bytes) and ``latency`` (ns) of ``link`` over the frames."""
    return {"util": np.array([f.link_util[link] for f in frames], np.float64),
            "queue": np.array([f.link_queue[link] for f in frames], np.float64),
            "latency": np.array([f.link_latency_ns[link] for f in frames], np.float64)}


def fabric_series(frames) -> dict[str, np.ndarray]:
    """Aggregate delivered rate (Gb/s), mean and p99 flow latency (ns) per frame."""
    agg = np.array([float(np.sum(f.flow_rate_gbps, dtype=np.float64)) for f in frames])
    mean = np.array([float(np.mean(f.flow_latency_ns)) if len(f.flow_latency_ns) else 0.0 for f in frames])
    p99 = np.array([float(np.percentile(f.flow_latency_ns, 99)) if len(f.flow_latency_ns) else 0.0
                    for f in frames])
    return {"throughput": agg, "mean_latency": mean, "p99_latency": p99}


def hottest_links(frames, n: int = HOT_LINKS, alive: np.ndarray | None = None) -> np.ndarray:
    """Link ids by peak utilisation over the run, then peak queue (live links only)."""
    util = np.max(np.stack([f.link_util for f in frames]), axis=0)
    queue = np.max(np.stack([f.link_queue for f in frames]), axis=0)
    ids = np.arange(len(util)) if alive is None else np.flatnonzero(alive)
    order = np.lexsort((ids, -queue[ids], -util[ids]))
    return ids[order[:n]]


class ChartsDock(QtWidgets.QDockWidget):
    """Time series of the current run (see the module doc)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Charts", parent)
        self.setObjectName("charts")
        self.result = None
        self.fabric: Fabric | None = None
        self.time_ms = np.zeros(0)
        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Link", body))
        self.link_box = QtWidgets.QComboBox(body)
        self.link_box.setObjectName("charts_link")
        self.link_box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.link_box.setMinimumContentsLength(18)
        self.link_box.currentIndexChanged.connect(self._link_chosen)
        row.addWidget(self.link_box, 1)
        row.addWidget(QtWidgets.QLabel("Flow", body))
        self.flow_box = QtWidgets.QComboBox(body)
        self.flow_box.setObjectName("charts_flow")
        self.flow_box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.flow_box.setMinimumContentsLength(18)
        self.flow_box.currentIndexChanged.connect(self._flow_chosen)
        row.addWidget(self.flow_box, 1)
        lay.addLayout(row)

        self.plots = pg.GraphicsLayoutWidget(body)
        self.plots.setObjectName("charts_plots")
        self.plots.setMinimumHeight(220)
        lay.addWidget(self.plots, 1)
        self.setWidget(body)
        spec = (("util", "link utilisation", "%"), ("queue", "link queue", "B"),
                ("latency", "link latency", "s"), ("flow_rate", "flow rate", "b/s"),
                ("throughput", "aggregate throughput", "b/s"), ("flow_latency", "flow latency", "s"))
        self.plot: dict[str, pg.PlotItem] = {}
        self.cursors: list[pg.InfiniteLine] = []
        for i, (key, title, unit) in enumerate(spec):
            p = self.plots.addPlot(row=i // 3, col=i % 3, title=title)
            p.setLabel("left", units=unit)
            p.setLabel("bottom", "time (ms)")
            p.showGrid(x=True, y=True, alpha=0.2)
            p.setMenuEnabled(False)
            self.plot[key] = p
            line = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen("#ff9f1a", width=1))
            p.addItem(line)
            self.cursors.append(line)
        self.plot["flow_latency"].addLegend(offset=(5, 5))
        pen = lambda c: pg.mkPen(c, width=1.5)    # noqa: E731
        self.curves = {"util": self.plot["util"].plot(pen=pen("#d7191c")),
                       "queue": self.plot["queue"].plot(pen=pen("#f29e2e")),
                       "latency": self.plot["latency"].plot(pen=pen("#2c7bb6")),
                       "flow_rate": self.plot["flow_rate"].plot(pen=pen("#76b900")),
                       "throughput": self.plot["throughput"].plot(pen=pen("#2f6db5")),
                       "mean_latency": self.plot["flow_latency"].plot(pen=pen("#2c7bb6"), name="mean"),
                       "p99_latency": self.plot["flow_latency"].plot(pen=pen("#d7191c"), name="p99")}
        # data in the curves' plotted units (latency shown in s, rates in b/s for SI prefixes)
        self.scale = {"util": 100.0, "queue": 1.0, "latency": 1e-9, "flow_rate": 1e9, "throughput": 1e9,
                      "mean_latency": 1e-9, "p99_latency": 1e-9}
        self.link: int | None = None
        self.flow: int | None = None

    # ------------------------------------------------------------------ run
    def set_result(self, result: Any, fabric: Fabric | None = None) -> None:
        """Show ``result`` (None clears): fabric-wide panel, then the hottest link and slowest flow."""
        self.result, self.fabric = result, fabric
        self.link_box.blockSignals(True)
        self.flow_box.blockSignals(True)
        self.link_box.clear()
        self.flow_box.clear()
        self.link = self.flow = None
        if result is None:
            for c in self.curves.values():
                c.setData([], [])
            self.link_box.blockSignals(False)
            self.flow_box.blockSignals(False)
            return
        frames = result.frames
        self.time_ms = np.array([f.time_s for f in frames]) * 1e3
        for key, y in fabric_series(frames).items():
            self._set("%s" % key, y)
        for l in hottest_links(frames, alive=result.links.alive):
            self.link_box.addItem(self._link_name(int(l)), int(l))
        rate = result.flow_rates()
        for i in np.argsort(rate, kind="stable")[:LISTED_FLOWS]:
            self.flow_box.addItem(self._flow_name(int(i)), int(i))
        self.link_box.blockSignals(False)
        self.flow_box.blockSignals(False)
        if self.link_box.count():
            self.show_link(int(self.link_box.itemData(0)))
        if self.flow_box.count():
            self.show_flow(int(self.flow_box.itemData(0)))
        self.set_frame(0)

    def _set(self, key: str, y: np.ndarray) -> None:
        one = len(self.time_ms) == 1          # max-min: a single steady-state point
        self.curves[key].setData(self.time_ms, y * self.scale[key], symbol="o" if one else None,
                                 symbolSize=6)

    def _link_name(self, l: int) -> str:
        if self.fabric is None:
            return f"link {l}"
        a, b = self.result.links.name(self.fabric, l)
        return f"{a} → {b}"

    def _flow_name(self, i: int) -> str:
        fl = self.result.flows
        if self.fabric is None:
            return f"flow {i}"
        return f"#{i} {self.fabric.name_of(int(fl.src[i]))} → {self.fabric.name_of(int(fl.dst[i]))}"

    # ------------------------------------------------------------------ choices
    def show_link(self, link: int) -> None:
        """Plot directed link ``link`` (added to the chooser when it is not listed)."""
        if self.result is None:
            return
        i = self.link_box.findData(int(link))
        if i < 0:
            self.link_box.blockSignals(True)
            self.link_box.addItem(self._link_name(int(link)), int(link))
            self.link_box.blockSignals(False)
            i = self.link_box.count() - 1
        if self.link_box.currentIndex() != i:
            self.link_box.blockSignals(True)
            self.link_box.setCurrentIndex(i)
            self.link_box.blockSignals(False)
        self.link = int(link)
        for key, y in link_series(self.result.frames, self.link).items():
            self._set(key, y)

    def show_flow(self, flow: int) -> None:
        if self.result is None:
            return
        i = self.flow_box.findData(int(flow))
        if i < 0:
            self.flow_box.blockSignals(True)
            self.flow_box.addItem(self._flow_name(int(flow)), int(flow))
            self.flow_box.blockSignals(False)
            i = self.flow_box.count() - 1
        if self.flow_box.currentIndex() != i:
            self.flow_box.blockSignals(True)
            self.flow_box.setCurrentIndex(i)
            self.flow_box.blockSignals(False)
        self.flow = int(flow)
        self._set("flow_rate", np.array([f.flow_rate_gbps[self.flow] for f in self.result.frames], np.float64))

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
        x = float(self.time_ms[max(0, min(int(k), len(self.time_ms) - 1))])
        for line in self.cursors:
            line.setValue(x)

    def curve_data(self, key: str) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) of a curve in engine units (ms; fraction, bytes, ns, Gb/s)."""
        x, y = self.curves[key].getData()
        if x is None:
            return np.zeros(0), np.zeros(0)
        return np.asarray(x), np.asarray(y) / self.scale[key]


__all__ = ["ChartsDock", "fabric_series", "hottest_links", "link_series"]
