"""Canvas overlay of the SM sweep: discovery, port states, DR path, traced path, LIDs, loops,
and the ghost of a cable pulled in a what-if.

Its own path items on top of the scene (the scene itself is never edited);
:class:`~fabricviz.ui.docks.sweep.SweepDock` drives it frame by frame.

Semantic zoom (far/middle, :mod:`fabricviz.ui.canvas.overlays.bundled`): a bundle is
**discovered when any of its cables is** (a cable is discovered once the SM has found both its
ends), drawn in the discovered colour; with View ▸ Bundle Colour ▸ Mean its strength is the share
of its cables discovered. Group boxes and host blocks get the discovered outline when any member
is discovered, the dimming veil while none is. Per-device marks (outlines, port dots, LID labels)
stay only on devices drawn as themselves; the traced path goes on top of the bundles
(``set_top_cables``), the DR path, credit loop and ghost are drawn through the cables' drawn ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.sweep_timeline import ACTIVE, ARMED, INIT, SweepState, SweepTimeline
from fabricviz.generate.geometry import switch_widths
from fabricviz.model import Fabric
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.batch import device_rects
from fabricviz.ui.canvas.items.cables import cable_anchors, path_pairs, walked_path
from fabricviz.ui.canvas.items.devices import K_ETHSW, K_IBSW, LABEL_ZOOM
from fabricviz.ui.canvas.overlays.bundled import (
    bundled,
    by_cable,
    colours_of,
    drawn_alone_devices,
    follow_levels,
    palette_colors,
    semantic_of,
)

if TYPE_CHECKING:
    from fabricviz.ui.canvas.scene import FabricScene

#: Above this many CA ports no LID labels are made (they would be unreadable anyway).
MAX_LID_LABELS = 1024
STATE_COLORS = {"INIT": "#f08c00", "ARMED": "#fcc419", "ACTIVE": "#2fb344"}
DISCOVERED_COLOR = "#00b4d8"
DR_COLOR = "#e64980"
TRACE_COLOR = "#15aabf"
LOOP_COLOR = "#fa5252"
GHOST_COLOR = "#868e96"
TRACE_CASING = "#10242b"
#: Z of the veil over undiscovered group boxes and host blocks (zoomed out).
Z_BOX_VEIL = 2.5
#: Bundles with no discovered cable: this grey, half-way to the canvas background.
UNDISCOVERED_COLOR = "#868e96"
#: Discovery colour steps of a bundle (Mean: the share of its cables discovered).
DISCOVERY_STEPS = 10
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


def port_dots(f: Fabric, port_xy: np.ndarray) -> np.ndarray:
    """[2, ports] radius of each port's state dot and its shift along y from its anchor: no wider
    than the room a port has along its device's edge (16 ports on a 48-unit switch: no pile on
    its corners) and inside the device (the name under it stays clear: issue 29)."""
    pt, dt = f.ports_t, f.devices_t
    n = int(pt.n)
    d = pt.device[:n].astype(np.int64)
    nports = np.maximum(dt.nports[d].astype(np.float64), 1.0)
    sw = np.isin(dt.kind[d], [K_IBSW, K_ETHSW])
    w = np.where(sw, switch_widths(dt.nports[d]), th.CHILD_W)
    h = np.where(sw, th.SWITCH_H, th.CHILD_H)
    r = np.minimum(th.PORT_R, np.minimum(0.45 * w / nports, 0.45 * h))
    inward = np.sign(dt.y[d].astype(np.float64) - port_xy[1])
    return np.vstack([r, inward * r])


class SweepOverlay:
    """Path items over the scene showing one :class:`SweepState`; ``drawn`` says what is shown."""

    Z = 5.0

    def __init__(self, scene: FabricScene) -> None:
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
        self.state: SweepState | None = None
        self.discovery_palette: list[QtGui.QColor] = []
        follow_levels(scene, self._level_changed)

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
        self.port_r = port_dots(fabric, self.port_xy)
        self.cable_ends = {int(c): (float(ax[i]), float(ay[i]), float(bx[i]), float(by[i]))
                           for i, c in enumerate(cids.tolist())} if len(cids) else {}
        self._cables_ends(fabric, cids)
        theme = getattr(self.scene, "theme", None)
        dim = QtGui.QColor(theme.background if theme is not None else QtGui.QColor("#ffffff"))
        self.discovery_palette = _discovery_palette(dim)
        dim.setAlpha(190)
        spec = {
            "undiscovered": (QtGui.QPen(QtCore.Qt.PenStyle.NoPen), QtGui.QBrush(dim), 0.0),
            "discovered": (_pen(DISCOVERED_COLOR, 2.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.1),
            # over the semantic layer's boxes, blocks and switches (≤ 2), under every line drawn here
            "box_undiscovered": (QtGui.QPen(QtCore.Qt.PenStyle.NoPen), QtGui.QBrush(dim), Z_BOX_VEIL - self.Z),
            "box_discovered": (_pen(DISCOVERED_COLOR, 2.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.1),
            "current": (_pen(DR_COLOR, 3.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.4),
            "dr_path": (_pen(DR_COLOR, 4.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.3),
            "trace": (_pen(TRACE_COLOR, 6.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), 0.2),
            # zoomed out: a dark casing under the path the semantic layer draws on top (Z 5.0), so it
            # stands out on bundles of any colour (discovered ones are cyan too)
            "trace_casing": (_pen(TRACE_CASING, 10.0), QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush), -0.05),
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
        top = np.where(t.parent >= 0, t.parent, np.arange(t.n))
        self.subnet_tops = top[self.subnet_devices]
        self.port_top = top[fabric.ports_t.device[:n]] if n else np.zeros(0, np.int64)
        self.label_tops = {int(p): int(self.port_top[p]) for p in self.labels}

    def _cables_ends(self, fabric: Fabric, cids: np.ndarray) -> None:
        """Each cable's two end devices and whether both are in the subnet (for bundle discovery)."""
        ct, pt = fabric.cables_t, fabric.ports_t
        self.cids = cids
        self.cable_da = pt.device[ct.port_a[cids]].astype(np.int64)
        self.cable_db = pt.device[ct.port_b[cids]].astype(np.int64)
        member = np.zeros(int(fabric.devices_t.n), bool)
        member[self.subnet_devices] = True
        self.cable_in_subnet = member[self.cable_da] & member[self.cable_db]

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
        colours = colours_of(self.scene)
        if colours is not None:
            colours.set("sweep", None)
            colours.set_top("sweep", None)
        self.state = None
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
    def _rect_path(self, idx: np.ndarray, rects: np.ndarray | None = None) -> QtGui.QPainterPath:
        path = QtGui.QPainterPath()
        r = self.rects if rects is None else rects
        for i in idx.tolist():
            path.addRect(QtCore.QRectF(r[0, i] - 2, r[1, i] - 2, r[2, i] - r[0, i] + 4, r[3, i] - r[1, i] + 4))
        return path

    def _dot_path(self, ports: np.ndarray) -> QtGui.QPainterPath:
        path = QtGui.QPainterPath()
        rad, dy = self.port_r[0, ports], self.port_r[1, ports]
        xs, ys = self.port_xy[0, ports], self.port_xy[1, ports] + dy
        for x, y, r in zip(xs.tolist(), ys.tolist(), rad.tolist(), strict=True):
            if x == x:       # not NaN
                path.addEllipse(QtCore.QPointF(x, y), r, r)
        return path

    def _zoomed_out(self) -> bool:
        """The scene draws bundles now, of this design (or of a what-if copy with the same ids)."""
        shown = self.scene.fabric
        return (bundled(self.scene) and shown is not None and self.fabric is not None
                and int(shown.devices_t.n) == int(self.fabric.devices_t.n))

    def _drawn_ends(self, cables: tuple[int, ...]) -> list[tuple[float, float, float, float] | None]:
        """Where each cable is drawn now: its anchors at near, its bundle's ends zoomed out."""
        sem = semantic_of(self.scene)
        if not cables or not self._zoomed_out():
            return [self.cable_ends.get(int(c)) for c in cables]
        assert sem is not None                       # zoomed out: the scene has its semantic layer
        e = sem.cable_ends(np.asarray(cables, np.int64))
        return [tuple(col) if np.isfinite(col).all() else None for col in e.T.tolist()]

    def _cable_path(self, cables: tuple[int, ...]) -> QtGui.QPainterPath:
        """A polyline through the cables in order (each drawn end to end, joined where they meet),
        where they are drawn now (at near along their routes)."""
        if cables and not self._zoomed_out() and self.fabric is not None:
            return walked_path(self.fabric, cables)
        path = QtGui.QPainterPath()
        last = None
        for e in self._drawn_ends(tuple(cables)):
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
        self.state = st
        f = self.fabric
        assert f is not None                         # shown once set up for a fabric
        sem = semantic_of(self.scene) if self._zoomed_out() else None
        own = drawn_alone_devices(sem, int(f.devices_t.n))
        here = own[self.subnet_tops]                 # drawn at its own place now
        disc = st.discovered[self.subnet_devices]
        self.drawn["undiscovered"] = self.subnet_devices[~disc & here]
        self.drawn["discovered"] = self.subnet_devices[disc & here]
        self.items["undiscovered"].setPath(self._rect_path(np.flatnonzero(~disc & here)))
        self.items["discovered"].setPath(self._rect_path(np.flatnonzero(disc & here)))
        self._show_nodes(sem, disc, here)
        cur = np.flatnonzero(np.isin(self.subnet_devices, np.asarray(st.event.devices, np.int64)) & here)
        self.drawn["current"] = self.subnet_devices[cur]
        self.items["current"].setPath(self._rect_path(cur) if st.event.kind in ("node", "lid", "lft_block")
                                      else QtGui.QPainterPath())
        port_here = own[self.port_top] if len(self.port_top) else np.zeros(0, bool)
        for name, code in (("INIT", INIT), ("ARMED", ARMED), ("ACTIVE", ACTIVE)):
            ports = np.flatnonzero((st.port_state[:len(port_here)] == code) & port_here)
            self.drawn[name] = ports
            self.items[name].setPath(self._dot_path(ports))
        self.drawn["dr_path"] = np.asarray(st.dr_cables, np.int64)
        self.items["dr_path"].setPath(self._cable_path(st.dr_cables))
        for p, label in self.labels.items():
            lid = int(st.lid[p])
            label.setText(f"LID {lid}" if lid and own[self.label_tops[p]] else "")
        for d, label in self.switch_labels.items():
            lid = int(st.lid[self.switch_port0[d]])
            label.setText(f"LID {lid}" if lid and own[d] else "")
        self._label_visibility()
        self._show_bundles(st)

    def _show_nodes(self, sem, disc: np.ndarray, here: np.ndarray) -> None:
        """Zoomed out: group boxes and host blocks holding subnet devices, outlined once any of
        them is discovered, veiled while none is (``drawn["box_discovered"]``: their node ids)."""
        empty = np.zeros(0, np.int64)
        nodes = sem.node_of()[self.subnet_tops[~here]] if sem is not None else empty
        found = np.unique(nodes[disc[~here]]) if len(nodes) else empty
        unseen = np.setdiff1d(np.unique(nodes), found) if len(nodes) else empty
        self.drawn["box_discovered"], self.drawn["box_undiscovered"] = found, unseen
        for name, ids in (("box_discovered", found), ("box_undiscovered", unseen)):
            r = sem.node_rects(ids) if len(ids) else np.zeros((4, 0))
            ok = np.flatnonzero(np.isfinite(r).all(axis=0))
            self.items[name].setPath(self._rect_path(ok, r))

    def _show_bundles(self, st: SweepState) -> None:
        """Zoomed out: per cable 1.0 discovered (both ends found), 0.0 not yet, NaN outside the
        subnet, to the semantic layer (see the module doc for the rule)."""
        colours = colours_of(self.scene)
        if colours is None:
            return
        if not self._zoomed_out():
            colours.set("sweep", None)
            return
        d = st.discovered
        assert self.fabric is not None               # _zoomed_out() checked it
        v = np.where(self.cable_in_subnet, (d[self.cable_da] & d[self.cable_db]).astype(np.float64), np.nan)
        colours.set("sweep", by_cable(int(self.fabric.cables_t.n), self.cids, v), self.discovery_colors)

    def discovery_colors(self, values: np.ndarray) -> np.ndarray:
        """Bundle colours (QRgb) from the share of discovered members: any → at least the first step."""
        return palette_colors(self.discovery_palette, discovery_step)(values)

    def _level_changed(self) -> None:
        """The canvas changed level (or opened a group): draw the state where things are now."""
        if not self.items or self.state is None:
            return
        self.show(self.state)
        self.set_trace(self.trace_cables)
        self.set_loop(self.loop_cables)
        self.set_ghost(self.ghost_cables)

    def set_trace(self, cables: tuple[int, ...]) -> None:
        """The traced path; zoomed out it is drawn on top of the bundles by the semantic layer."""
        self.trace_cables = tuple(cables)
        self.drawn["trace"] = np.asarray(cables, np.int64)
        if "trace" not in self.items:
            return
        colours = colours_of(self.scene)
        on_top = colours is not None and self._zoomed_out()
        if colours is not None:
            colours.set_top("sweep", np.asarray(self.trace_cables, np.int64) if on_top else None,
                            self.items["trace"].pen())
        self.items["trace"].setPath(QtGui.QPainterPath() if on_top else self._cable_path(self.trace_cables))
        casing = QtGui.QPainterPath()
        if on_top and self.trace_cables:        # under exactly the segments drawn on top
            sem = semantic_of(self.scene)
            assert sem is not None                   # on top only when zoomed out
            e = sem.cable_ends(np.asarray(self.trace_cables, np.int64))
            e = e[:, np.isfinite(e).all(axis=0) & ((e[0] != e[2]) | (e[1] != e[3]))]
            casing = path_pairs(e[0], e[1], e[2], e[3])
        self.items["trace_casing"].setPath(casing)

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
            if name.endswith("undiscovered") or name == "trace_casing":
                continue                     # the dimming veil is the canvas background; the casing an edge
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


def discovery_step(values: np.ndarray) -> np.ndarray:
    """Palette step of a bundle's share of discovered cables: 0 none, else 1..DISCOVERY_STEPS."""
    v = np.nan_to_num(np.asarray(values, np.float64))
    return np.where(v > 0, np.maximum(1, np.round(v * DISCOVERY_STEPS)), 0).astype(np.int64)


def _discovery_palette(background: QtGui.QColor) -> list[QtGui.QColor]:
    """Step 0: :data:`UNDISCOVERED_COLOR` half-way to ``background``; steps 1..N: from a light tint
    of :data:`DISCOVERED_COLOR` to the full colour."""
    def mix(a: QtGui.QColor, b: QtGui.QColor, t: float) -> QtGui.QColor:
        return QtGui.QColor(round(a.red() + t * (b.red() - a.red())), round(a.green() + t * (b.green() - a.green())),
                            round(a.blue() + t * (b.blue() - a.blue())))
    bg, grey, disc = QtGui.QColor(background), QtGui.QColor(UNDISCOVERED_COLOR), QtGui.QColor(DISCOVERED_COLOR)
    out = [mix(grey, bg, 0.5)]
    out += [mix(mix(disc, bg, 0.6), disc, (k - 1) / max(DISCOVERY_STEPS - 1, 1)) for k in range(1, DISCOVERY_STEPS + 1)]
    return out
