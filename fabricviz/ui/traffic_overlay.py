"""Traffic heatmap on the canvas: cables coloured by a frame's utilisation, queue or latency.

Drawn on top of the scene's own cable layer without touching it: a cable is
drawn by one of :data:`BUCKETS` path items (one cosmetic pen per colour
bucket), so a frame costs one ``np.digitize`` and a few ``setPath`` calls,
never a QGraphicsItem per link. A cable's value is the hotter of its two
directed links (``2c`` and ``2c + 1``). Links whose transmitter is paused (PFC
XOFF or no credits) get a red dashed outline, ECN-marking links a dotted
overlay. PCIe hops inside servers have no canvas geometry and are not drawn.

:class:`ColorScale` is the single mapping from a value to a bucket and colour;
the legend and the overlay share it, so what the legend says is what is drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric
from fabricviz.ui.scene import ROLE_KIND, _path_pairs, cable_anchors

#: Colour buckets of the heatmap.
BUCKETS = 16
#: Metric key → (frame attribute, legend title, unit).
METRICS = {"utilisation": ("link_util", "Utilisation", "%"),
           "queue": ("link_queue", "Queue", "B"),
           "latency": ("link_latency_ns", "Latency", "ns")}
#: Heat ramp stops (cool → hot); buckets sample it evenly.
RAMP = ("#3b4cc0", "#2c7bb6", "#00a6ca", "#00ccbc", "#90eb9d", "#ffff8c", "#f9d057", "#f29e2e",
        "#e76818", "#d7191c")
PAUSED_COLOR = "#ff2020"
ECN_COLOR = "#ff00ff"
Z_HEAT = -0.8          # above the scene's cables (-1), under the selection highlight (-0.5)


def _ramp_colors(n: int) -> list[QtGui.QColor]:
    stops = [QtGui.QColor(c) for c in RAMP]
    out = []
    for i in range(n):
        t = i / max(n - 1, 1) * (len(stops) - 1)
        j = min(int(t), len(stops) - 2)
        u = t - j
        a, b = stops[j], stops[j + 1]
        out.append(QtGui.QColor(round(a.red() + u * (b.red() - a.red())),
                                round(a.green() + u * (b.green() - a.green())),
                                round(a.blue() + u * (b.blue() - a.blue()))))
    return out


COLORS = _ramp_colors(BUCKETS)


@dataclass(frozen=True)
class ColorScale:
    """``[vmin, vmax]`` cut in :data:`BUCKETS` equal bins; below/above clamp to the ends."""

    metric: str
    vmin: float
    vmax: float

    def buckets(self, values: np.ndarray) -> np.ndarray:
        """Bucket index 0..BUCKETS-1 of each value (NaN and inf count as the bottom/top)."""
        v = np.asarray(values, np.float64)
        span = self.vmax - self.vmin
        t = (v - self.vmin) / span if span > 0 else np.zeros_like(v)
        t = np.nan_to_num(t, nan=0.0, posinf=1.0, neginf=0.0)
        return np.clip((t * BUCKETS).astype(np.int64), 0, BUCKETS - 1)

    def bucket(self, value: float) -> int:
        return int(self.buckets(np.array([value]))[0])

    def color(self, value: float) -> QtGui.QColor:
        return QtGui.QColor(COLORS[self.bucket(value)])

    def edges(self) -> np.ndarray:
        """Bucket boundaries (``BUCKETS + 1`` values)."""
        return np.linspace(self.vmin, self.vmax, BUCKETS + 1)

    def label(self, value: float) -> str:
        unit = METRICS[self.metric][2]
        if unit == "%":
            return f"{value * 100:.0f} %"
        if unit == "B":
            for div, u in ((1e6, "MB"), (1e3, "KB")):
                if abs(value) >= div:
                    return f"{value / div:.3g} {u}"
            return f"{value:.0f} B"
        if abs(value) >= 1e3:
            return f"{value / 1e3:.3g} µs"
        return f"{value:.0f} ns"


def scale_for(metric: str, frames) -> ColorScale:
    """The fixed scale of a run: utilisation 0..1; queue 0..peak; latency min..max of live cables
    over all frames (fixed per run so colours compare across frames)."""
    if metric not in METRICS:
        raise ValueError(f"metric {metric!r}: use {', '.join(METRICS)}")
    if metric == "utilisation":
        return ColorScale(metric, 0.0, 1.0)
    attr = METRICS[metric][0]
    hi = max((float(np.nanmax(getattr(f, attr))) if len(getattr(f, attr)) else 0.0) for f in frames)
    lo = 0.0
    if metric == "latency":
        lo = min((float(np.nanmin(getattr(f, attr))) if len(getattr(f, attr)) else 0.0) for f in frames)
    if not np.isfinite(hi):
        hi = lo + 1.0
    return ColorScale(metric, lo, hi if hi > lo else lo + 1.0)


def _pen(color: QtGui.QColor | str, width: float, style=QtCore.Qt.PenStyle.SolidLine) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setCosmetic(True)
    pen.setWidthF(width)
    pen.setStyle(style)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    return pen


class TrafficOverlay:
    """Heatmap items on ``scene``; ``set_links`` once per run, ``show_frame`` per frame."""

    def __init__(self, scene: QtWidgets.QGraphicsScene) -> None:
        self.scene = scene
        self.items: list[QtWidgets.QGraphicsPathItem] = []
        for b in range(BUCKETS):
            item = self._item(_pen(COLORS[b], 2.0), Z_HEAT + b * 1e-3)    # hotter on top
            self.items.append(item)
        self.paused_item = self._item(_pen(PAUSED_COLOR, 4.0, QtCore.Qt.PenStyle.DashLine), Z_HEAT + 0.05)
        self.ecn_item = self._item(_pen(ECN_COLOR, 1.5, QtCore.Qt.PenStyle.DotLine), Z_HEAT + 0.06)
        self.cables = np.zeros(0, np.int64)     # cable ids drawn, in ``ends`` column order
        self.ends = np.zeros((4, 0))
        self.members: list[np.ndarray] = [np.zeros(0, np.int64)] * BUCKETS
        self.paused = np.zeros(0, np.int64)
        self.ecn = np.zeros(0, np.int64)
        self.scale: ColorScale | None = None
        self.ecn_threshold = 0.0                # a link marks when its marking probability exceeds this

    def _item(self, pen: QtGui.QPen, z: float) -> QtWidgets.QGraphicsPathItem:
        item = QtWidgets.QGraphicsPathItem()
        item.setPen(pen)
        item.setZValue(z)
        item.setData(ROLE_KIND, "traffic")
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.scene.addItem(item)
        return item

    def all_items(self) -> list[QtWidgets.QGraphicsPathItem]:
        return self.items + [self.paused_item, self.ecn_item]

    # ------------------------------------------------------------------ geometry
    def set_links(self, fabric: Fabric, n_links: int) -> None:
        """Geometry of every live cable whose two directed links exist (``2c + 1 < n_links``)."""
        cids = fabric.cable_ids()
        cids = cids[2 * cids + 1 < n_links]
        self.cables = np.asarray(cids, np.int64)
        self.ends = np.vstack(cable_anchors(fabric, self.cables)) if len(cids) else np.zeros((4, 0))
        self.clear()

    def clear(self) -> None:
        """Draw nothing (no run, or the design changed since)."""
        empty = QtGui.QPainterPath()
        for item in self.all_items():
            item.setPath(empty)
        self.members = [np.zeros(0, np.int64)] * BUCKETS
        self.paused = self.ecn = np.zeros(0, np.int64)

    def forget(self) -> None:
        self.cables = np.zeros(0, np.int64)
        self.ends = np.zeros((4, 0))
        self.scale = None
        self.clear()

    def _path(self, cols: np.ndarray) -> QtGui.QPainterPath:
        e = self.ends[:, cols]
        return _path_pairs(e[0], e[1], e[2], e[3])

    # ------------------------------------------------------------------ frames
    def cable_values(self, link_values: np.ndarray) -> np.ndarray:
        """A cable's value: the larger of its two directions."""
        c = self.cables
        v = np.asarray(link_values)
        return np.maximum(v[2 * c], v[2 * c + 1])

    def show_frame(self, frame, scale: ColorScale) -> None:
        """Colour every cable from ``frame`` with ``scale``; mark paused and ECN-marking links."""
        self.scale = scale
        if not len(self.cables):
            return
        attr = METRICS[scale.metric][0]
        b = scale.buckets(self.cable_values(getattr(frame, attr)))
        order = np.argsort(b, kind="stable")
        cuts = np.searchsorted(b[order], np.arange(BUCKETS + 1))
        members = []
        for k, item in enumerate(self.items):
            cols = order[cuts[k]:cuts[k + 1]]
            members.append(self.cables[cols])
            item.setPath(self._path(cols))
        self.members = members
        c = self.cables
        paused = np.asarray(frame.link_paused, bool)
        pcols = np.flatnonzero(paused[2 * c] | paused[2 * c + 1])
        self.paused = c[pcols]
        self.paused_item.setPath(self._path(pcols))
        ecn = np.asarray(frame.link_ecn)
        ecols = np.flatnonzero(np.maximum(ecn[2 * c], ecn[2 * c + 1]) > self.ecn_threshold)
        self.ecn = c[ecols]
        self.ecn_item.setPath(self._path(ecols))

    # ------------------------------------------------------------------ queries (tests, tooltips)
    def bucket_of(self, cable: int) -> int | None:
        for k, m in enumerate(self.members):
            if len(m) and np.any(m == cable):
                return k
        return None

    def color_of(self, cable: int) -> QtGui.QColor | None:
        """The pen colour the cable is drawn with now (None when not drawn)."""
        k = self.bucket_of(cable)
        return None if k is None else self.items[k].pen().color()

    def is_paused(self, cable: int) -> bool:
        return bool(np.any(self.paused == cable))

    def is_marking(self, cable: int) -> bool:
        return bool(np.any(self.ecn == cable))

    def drawn_count(self) -> int:
        """Segments drawn by the bucket items (each cable once)."""
        return sum(item.path().elementCount() // 2 for item in self.items)


class LegendBar(QtWidgets.QWidget):
    """The colour scale: :data:`BUCKETS` swatches between the min and max labels, plus the marks."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic_legend")
        self.scale: ColorScale | None = None
        self.setMinimumHeight(46)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)

    def set_scale(self, scale: ColorScale | None) -> None:
        self.scale = scale
        self.setToolTip("" if scale is None else "\n".join(
            f"{scale.label(lo)} – {scale.label(hi)}" for lo, hi in zip(scale.edges()[:-1], scale.edges()[1:])))
        self.update()

    def color_for(self, value: float) -> QtGui.QColor:
        """The colour this legend shows for ``value``."""
        if self.scale is None:
            raise ValueError("no scale yet: run a workload")
        return self.scale.color(value)

    def texts(self) -> tuple[str, str]:
        s = self.scale
        return ("", "") if s is None else (s.label(s.vmin), s.label(s.vmax))

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:  # noqa: N802
        p = QtGui.QPainter(self)
        fm = p.fontMetrics()
        w, h = self.width(), fm.height()
        bar = QtCore.QRectF(4, 2, w - 8, 12)
        step = bar.width() / BUCKETS
        for k, c in enumerate(COLORS):
            p.fillRect(QtCore.QRectF(bar.left() + k * step, bar.top(), step + 0.5, bar.height()), c)
        lo, hi = self.texts()
        title = METRICS[self.scale.metric][1] if self.scale is not None else "no run"
        y = int(bar.bottom()) + h
        p.drawText(4, y, lo)
        p.drawText(int(w / 2 - fm.horizontalAdvance(title) / 2), y, title)
        p.drawText(int(w - 4 - fm.horizontalAdvance(hi)), y, hi)
        y2 = y + 4
        p.setPen(_pen(PAUSED_COLOR, 3, QtCore.Qt.PenStyle.DashLine))
        p.drawLine(4, y2 + h // 2, 34, y2 + h // 2)
        p.setPen(self.palette().color(QtGui.QPalette.ColorRole.WindowText))
        p.drawText(40, y2 + h - 3, "paused (PFC/credits)")
        x = 44 + fm.horizontalAdvance("paused (PFC/credits)") + 12
        p.setPen(_pen(ECN_COLOR, 2, QtCore.Qt.PenStyle.DotLine))
        p.drawLine(x, y2 + h // 2, x + 30, y2 + h // 2)
        p.setPen(self.palette().color(QtGui.QPalette.ColorRole.WindowText))
        p.drawText(x + 36, y2 + h - 3, "ECN marking")
        p.end()

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(260, 2 * self.fontMetrics().height() + 24)


__all__ = ["BUCKETS", "COLORS", "ColorScale", "LegendBar", "METRICS", "TrafficOverlay", "scale_for"]
