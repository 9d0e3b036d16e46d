"""Canvas overlay of the SM sweep: discovery, port states, DR path, traced path, LIDs, loops,
and the ghost of a cable pulled in a what-if.

Its own path items on top of the scene (the scene itself is never edited);
:class:`~fabricviz.ui.docks.sweep.SweepDock` drives it frame by frame.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.sweep_timeline import ACTIVE, ARMED, INIT, SweepState, SweepTimeline
from fabricviz.model import Fabric
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.batch import device_rects
from fabricviz.ui.canvas.items.cables import cable_anchors
from fabricviz.ui.canvas.items.devices import LABEL_ZOOM

#: Above this many CA ports no LID labels are made (they would be unreadable anyway).
MAX_LID_LABELS = 1024
STATE_COLORS = {"INIT": "#f08c00", "ARMED": "#fcc419", "ACTIVE": "#2fb344"}
DISCOVERED_COLOR = "#00b4d8"
DR_COLOR = "#e64980"
TRACE_COLOR = "#15aabf"
LOOP_COLOR = "#fa5252"
GHOST_COLOR = "#868e96"
#: Every colour the overlay draws, as the dock's legend names it: (words, colour, swatch style).
LEGEND = (
    ("discovered", DISCOVERED_COLOR, "outline"),
    ("directed route (DR) of the SMP", DR_COLOR, "line"),
    *((f"port {name}", color, "dot") for name, color in STATE_COLORS.items()),
    ("traced path", TRACE_COLOR, "line"),
    ("credit loop", LOOP_COLOR, "line"),
    ("pulled cable (what-if)", GHOST_COLOR, "dash"),
)


def _pen(color: str, width: float) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setCosmetic(True)
    pen.setWidthF(width)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    return pen


class SweepOverlay:
    """Path items over the scene showing one :class:`SweepState`; ``drawn`` says what is shown."""

    Z = 5.0

    def __init__(self, scene: QtWidgets.QGraphicsScene) -> None:
        self.scene = scene
        self.items: dict[str, QtWidgets.QGraphicsPathItem] = {}
        self.labels: dict[int, QtWidgets.QGraphicsSimpleTextItem] = {}          # by CA port
        self.switch_labels: dict[int, QtWidgets.QGraphicsSimpleTextItem] = {}   # by switch device
        self.drawn: dict[str, np.ndarray] = {}
        self.fabric: Fabric | None = None
        self.timeline: SweepTimeline | None = None
        self.labels_visible = False
        self.trace_cables: tuple[int, ...] = ()
        self.loop_cables: tuple[int, ...] = ()
        self.ghost_cables: tuple[int, ...] = ()

    # ------------------------------------------------------------------ set up
    def set_context(self, fabric: Fabric, timeline: SweepTimeline) -> None:
        """Geometry of the subnet's devices and ports, from the model's coordinates."""
        self.remove()
        self.fabric, self.timeline = fabric, timeline
        self.subnet_devices = np.asarray(sorted(set(timeline.switches.tolist()) | {
            int(fabric.ports_t.device[p]) for p in timeline.sweep.routing.subnet.ca_ports.tolist()}), np.int64)
        self.rects = device_rects(fabric, self.subnet_devices) if len(self.subnet_devices) else np.zeros((4, 0))
        n = int(fabric.ports_t.n)
        self.port_xy = np.full((2, n), np.nan)
        cids = fabric.cable_ids()
        if len(cids):
            ax, ay, bx, by = cable_anchors(fabric, cids)
            ct = fabric.cables_t
            pa, pb = ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)
            self.port_xy[0, pa], self.port_xy[1, pa] = ax, ay
            self.port_xy[0, pb], self.port_xy[1, pb] = bx, by
        self.cable_ends = {int(c): (float(ax[i]), float(ay[i]), float(bx[i]), float(by[i]))
                           for i, c in enumerate(cids.tolist())} if len(cids) else {}
        theme = getattr(self.scene, "theme", None)
        dim = QtGui.QColor(theme.background if theme is not None else QtGui.QColor("#ffffff"))
        dim.setAlpha(190)
        spec = {
            "undiscovered": (QtGui.QPen(QtCore.Qt.PenStyle.NoPen), QtGui.QBrush(dim), 0.0),
            "discovered": (_pen(DISCOVERED_COLOR, 2.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.1),
            "current": (_pen(DR_COLOR, 3.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.4),
            "dr_path": (_pen(DR_COLOR, 4.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.3),
            "trace": (_pen(TRACE_COLOR, 6.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.2),
            "loop": (_pen(LOOP_COLOR, 7.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.25),
            "ghost": (_pen(GHOST_COLOR, 3.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.15),
        }
        spec["ghost"][0].setStyle(QtCore.Qt.PenStyle.DashLine)
        for name, color in STATE_COLORS.items():
            pen = _pen("#000000", 0.5)
            spec[name] = (pen, QtGui.QBrush(QtGui.QColor(color)), 0.5)
        for name, (pen, brush, dz) in spec.items():
            item = QtWidgets.QGraphicsPathItem()
            item.setPen(pen)
            item.setBrush(brush)
            item.setZValue(self.Z + dz)
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            item.setAcceptHoverEvents(False)
            item.setData(2, "sweep_overlay")
            self.scene.addItem(item)
            self.items[name] = item
        ca = timeline.sweep.routing.subnet.ca_ports.tolist()
        if len(ca) + len(timeline.switches) <= MAX_LID_LABELS:
            font = QtGui.QFont(theme.label_font if theme is not None else QtGui.QFont())
            font.setPointSizeF(max(5.0, font.pointSizeF() * 0.8))
            for p in ca:
                if not np.isnan(self.port_xy[0, p]):
                    self.labels[int(p)] = self._label(font, float(self.port_xy[0, p]) + 5,
                                                      float(self.port_xy[1, p]) - 14)
            where = {int(d): k for k, d in enumerate(self.subnet_devices.tolist())}
            for d in timeline.switches.tolist():     # right of the switch box, level with its top
                k = where[int(d)]
                self.switch_labels[int(d)] = self._label(font, float(self.rects[2, k]) + 4,
                                                         float(self.rects[1, k]) - 2)
        t = fabric.devices_t
        self.switch_port0 = {int(d): int(t.first_port[d]) for d in timeline.switches.tolist()}

    def _label(self, font: QtGui.QFont, x: float, y: float) -> QtWidgets.QGraphicsSimpleTextItem:
        t = QtWidgets.QGraphicsSimpleTextItem()
        t.setFont(font)
        t.setBrush(QtGui.QBrush(QtGui.QColor(STATE_COLORS["ACTIVE"]).darker(130)))
        t.setZValue(self.Z + 0.6)
        t.setPos(x, y)
        t.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        t.setVisible(False)
        self.scene.addItem(t)
        return t

    def remove(self) -> None:
        """Take every overlay item off the scene."""
        for item in [*self.items.values(), *self.labels.values(), *self.switch_labels.values()]:
            if item.scene() is not None:
                item.scene().removeItem(item)
        self.items.clear()
        self.labels.clear()
        self.switch_labels.clear()
        self.drawn.clear()
        self.trace_cables = ()
        self.loop_cables = ()
        self.ghost_cables = ()

    @property
    def active(self) -> bool:
        return bool(self.items)

    # ------------------------------------------------------------------ drawing
    def _rect_path(self, idx: np.ndarray) -> QtGui.QPainterPath:
        path = QtGui.QPainterPath()
        r = self.rects
        for i in idx.tolist():
            path.addRect(QtCore.QRectF(r[0, i] - 2, r[1, i] - 2, r[2, i] - r[0, i] + 4, r[3, i] - r[1, i] + 4))
        return path

    def _dot_path(self, ports: np.ndarray) -> QtGui.QPainterPath:
        path = QtGui.QPainterPath()
        rad = th.PORT_R
        xs, ys = self.port_xy[0, ports], self.port_xy[1, ports]
        for x, y in zip(xs.tolist(), ys.tolist()):
            if x == x:       # not NaN
                path.addEllipse(QtCore.QPointF(x, y), rad, rad)
        return path

    def _cable_path(self, cables: tuple[int, ...]) -> QtGui.QPainterPath:
        """A polyline through the cables in order (each drawn end to end, joined where they meet)."""
        path = QtGui.QPainterPath()
        last = None
        for c in cables:
            e = self.cable_ends.get(int(c))
            if e is None:
                continue
            a, b = QtCore.QPointF(e[0], e[1]), QtCore.QPointF(e[2], e[3])
            if last is not None and QtCore.QLineF(last, b).length() < QtCore.QLineF(last, a).length():
                a, b = b, a              # walk the cable from the end nearer the previous one
            if last is None:
                path.moveTo(a)
            else:
                path.lineTo(a)
            path.lineTo(b)
            last = b
        return path

    def show(self, st: SweepState) -> None:
        if not self.items:
            return
        disc = st.discovered[self.subnet_devices]
        self.drawn["undiscovered"] = self.subnet_devices[~disc]
        self.drawn["discovered"] = self.subnet_devices[disc]
        self.items["undiscovered"].setPath(self._rect_path(np.flatnonzero(~disc)))
        self.items["discovered"].setPath(self._rect_path(np.flatnonzero(disc)))
        cur = np.flatnonzero(np.isin(self.subnet_devices, np.asarray(st.event.devices, np.int64)))
        self.drawn["current"] = self.subnet_devices[cur]
        self.items["current"].setPath(self._rect_path(cur) if st.event.kind in ("node", "lid", "lft_block")
                                      else QtGui.QPainterPath())
        for name, code in (("INIT", INIT), ("ARMED", ARMED), ("ACTIVE", ACTIVE)):
            ports = np.flatnonzero(st.port_state == code)
            self.drawn[name] = ports
            self.items[name].setPath(self._dot_path(ports))
        self.drawn["dr_path"] = np.asarray(st.dr_cables, np.int64)
        self.items["dr_path"].setPath(self._cable_path(st.dr_cables))
        for p, label in self.labels.items():
            lid = int(st.lid[p])
            label.setText(f"LID {lid}" if lid else "")
        for d, label in self.switch_labels.items():
            lid = int(st.lid[self.switch_port0[d]])
            label.setText(f"LID {lid}" if lid else "")
        self._label_visibility()

    def set_trace(self, cables: tuple[int, ...]) -> None:
        self.trace_cables = tuple(cables)
        self.drawn["trace"] = np.asarray(cables, np.int64)
        if "trace" in self.items:
            self.items["trace"].setPath(self._cable_path(self.trace_cables))

    def set_loop(self, cables: tuple[int, ...]) -> None:
        """Highlight a credit loop: the cables of its channels, in cycle order."""
        self.loop_cables = tuple(cables)
        self.drawn["loop"] = np.asarray(cables, np.int64)
        if "loop" in self.items:
            path = self._cable_path(self.loop_cables)
            if len(self.loop_cables) > 1:
                path.closeSubpath()
            self.items["loop"].setPath(path)

    def set_ghost(self, cables: tuple[int, ...]) -> None:
        """Draw cables pulled in a what-if as dashed ghosts (the design still has them)."""
        self.ghost_cables = tuple(cables)
        self.drawn["ghost"] = np.asarray(cables, np.int64)
        if "ghost" in self.items:
            path = QtGui.QPainterPath()
            for c in self.ghost_cables:
                path.addPath(self._cable_path((c,)))
            self.items["ghost"].setPath(path)

    def set_zoom(self, scale: float) -> None:
        self.labels_visible = scale >= LABEL_ZOOM
        self._label_visibility()

    def _label_visibility(self) -> None:
        for label in [*self.labels.values(), *self.switch_labels.values()]:
            label.setVisible(self.labels_visible and bool(label.text()))

    def switch_label(self, device: int) -> str:
        """The LID label drawn next to switch ``device`` ("" while it has no LID)."""
        label = self.switch_labels.get(int(device))
        return label.text() if label is not None else ""

    def colors(self) -> set[str]:
        """Every colour the overlay's items draw with (lines, outlines, dots)."""
        out = set()
        for name, item in self.items.items():
            if name == "undiscovered":
                continue                     # the dimming veil is the canvas background
            brush = item.brush()
            col = brush.color() if brush.style() != QtCore.Qt.BrushStyle.NoBrush else item.pen().color()
            out.add(col.name())
        return out

    def port_colour(self, port: int) -> str | None:
        """Name of the colour drawn for ``port`` (INIT/ARMED/ACTIVE), None if no dot."""
        for name in STATE_COLORS:
            arr = self.drawn.get(name)
            if arr is not None and np.any(arr == port):
                return name
        return None
