"""The Subnet Manager dock: the heavy sweep replayed on the canvas with a clock.

The sweep (:func:`fabricviz.ib.sweep.heavy_sweep`) and its frames
(:class:`fabricviz.anim.sweep_timeline.SweepTimeline`) are computed in a worker
thread; the dock only shows frames. A QTimer advances the SM's model time
(1× = one millisecond of SM time per second, so a 2-level tree comes up in a
few seconds and a k=16 tree in about four minutes; 100× for the impatient),
the slider scrubs to any step, Step shows one event, Step phase jumps to the
next OpenSM phase, and "Pause at phase end" stops after each phase for teaching.

The canvas is not edited: :class:`SweepOverlay` adds its own path items on top
of the scene (undiscovered IB nodes dimmed, discovered ones outlined, port
dots INIT amber / ARMED yellow / ACTIVE green, the current directed route in
magenta, a traced path in cyan, LID labels on CA ports when zoomed in) and
removes them when the dock closes or the design is replaced or edited.
"""

from __future__ import annotations

import html
import threading
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.sweep_timeline import ACTIVE, ARMED, INIT, PHASE_TITLES, SweepState, SweepTimeline
from fabricviz.ib.routing import ENGINES
from fabricviz.model import Fabric, FabricError
from fabricviz.ui import theme as th
from fabricviz.ui.batch import device_rects
from fabricviz.ui.scene import LABEL_ZOOM, cable_anchors

SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 100.0)
#: Model microseconds shown per wall second at 1×.
US_PER_SECOND = 1000.0
TICK_MS = 33
#: Narration lines kept in the panel (the latest ones).
NARRATION_LINES = 300
#: Above this many CA ports no LID labels are made (they would be unreadable anyway).
MAX_LID_LABELS = 1024
STATE_COLORS = {"INIT": "#f08c00", "ARMED": "#fcc419", "ACTIVE": "#2fb344"}
DISCOVERED_COLOR = "#00b4d8"
CURRENT_COLOR = "#ffffff"
DR_COLOR = "#e64980"
TRACE_COLOR = "#15aabf"


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
        self.labels: dict[int, QtWidgets.QGraphicsSimpleTextItem] = {}
        self.drawn: dict[str, np.ndarray] = {}
        self.fabric: Fabric | None = None
        self.timeline: SweepTimeline | None = None
        self.labels_visible = False
        self.trace_cables: tuple[int, ...] = ()

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
        }
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
        if len(ca) <= MAX_LID_LABELS:
            font = QtGui.QFont(theme.label_font if theme is not None else QtGui.QFont())
            font.setPointSizeF(max(5.0, font.pointSizeF() * 0.8))
            for p in ca:
                if np.isnan(self.port_xy[0, p]):
                    continue
                t = QtWidgets.QGraphicsSimpleTextItem()
                t.setFont(font)
                t.setBrush(QtGui.QBrush(QtGui.QColor(STATE_COLORS["ACTIVE"]).darker(130)))
                t.setZValue(self.Z + 0.6)
                t.setPos(float(self.port_xy[0, p]) + 5, float(self.port_xy[1, p]) - 14)
                t.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
                t.setVisible(False)
                self.scene.addItem(t)
                self.labels[int(p)] = t

    def remove(self) -> None:
        """Take every overlay item off the scene."""
        for item in list(self.items.values()) + list(self.labels.values()):
            if item.scene() is not None:
                item.scene().removeItem(item)
        self.items.clear()
        self.labels.clear()
        self.drawn.clear()
        self.trace_cables = ()

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
        self._label_visibility()

    def set_trace(self, cables: tuple[int, ...]) -> None:
        self.trace_cables = tuple(cables)
        self.drawn["trace"] = np.asarray(cables, np.int64)
        if "trace" in self.items:
            self.items["trace"].setPath(self._cable_path(self.trace_cables))

    def set_zoom(self, scale: float) -> None:
        self.labels_visible = scale >= LABEL_ZOOM
        self._label_visibility()

    def _label_visibility(self) -> None:
        for label in self.labels.values():
            label.setVisible(self.labels_visible and bool(label.text()))

    def port_colour(self, port: int) -> str | None:
        """Name of the colour drawn for ``port`` (INIT/ARMED/ACTIVE), None if no dot."""
        for name in STATE_COLORS:
            arr = self.drawn.get(name)
            if arr is not None and np.any(arr == port):
                return name
        return None


class SweepDock(QtWidgets.QDockWidget):
    """Clock, controls and narration for replaying the SM's heavy sweep on the canvas."""

    computed = QtCore.Signal(object, object)      # (generation, SweepTimeline | Exception)
    ready = QtCore.Signal()                       # a new sweep is loaded
    step_shown = QtCore.Signal(int)

    def __init__(self, window: Any) -> None:
        super().__init__("Subnet Manager", window)
        self.setObjectName("sweep")
        self.window_ = window
        self.timeline: SweepTimeline | None = None
        self.index = -1
        self.t_us = 0.0
        self._gen = 0
        self._busy = False
        self.trace_lines: list[str] = []
        self.overlay = SweepOverlay(window.scene)
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self._wall = QtCore.QElapsedTimer()
        self._build()
        self.computed.connect(self._computed)
        self.visibilityChanged.connect(self._visibility)
        window.editor.fabric_replaced.connect(self._design_changed)
        window.scene.fabric_event.connect(lambda _e: self._design_changed())
        if hasattr(window, "view") and hasattr(window.view, "zoom_changed"):
            window.view.zoom_changed.connect(self.overlay.set_zoom)
            self.overlay.set_zoom(window.view.transform().m11())

    # ------------------------------------------------------------------ widgets
    def _build(self) -> None:
        w = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(w)
        lay.setContentsMargins(4, 4, 4, 4)
        row = QtWidgets.QHBoxLayout()

        def button(name: str, text: str, tip: str, slot) -> QtWidgets.QPushButton:
            b = QtWidgets.QPushButton(text, w)
            b.setObjectName(name)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            row.addWidget(b)
            return b
        self.play_button = button("sweep_play", "Play", "play / pause the SM clock (Space)", self.toggle_play)
        self.step_button = button("sweep_step", "Step", "show the next event (Right)", self.step)
        self.phase_button = button("sweep_phase", "Step phase", "jump to the next OpenSM phase (Shift+Right)",
                                   self.step_phase)
        self.reset_button = button("sweep_reset", "Reset", "back to the first event", lambda: self.show_step(0))
        row.addWidget(QtWidgets.QLabel("Speed", w))
        self.speed_box = QtWidgets.QComboBox(w)
        self.speed_box.setObjectName("sweep_speed")
        for s in SPEEDS:
            self.speed_box.addItem(f"{s:g}×", s)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.setToolTip("1× = one millisecond of SM time per second")
        row.addWidget(self.speed_box)
        row.addWidget(QtWidgets.QLabel("Engine", w))
        self.engine_box = QtWidgets.QComboBox(w)
        self.engine_box.setObjectName("sweep_engine")
        self.engine_box.addItems(list(ENGINES))
        self.engine_box.currentTextChanged.connect(lambda _t: self.recompute())
        row.addWidget(self.engine_box)
        self.phase_pause = QtWidgets.QCheckBox("Pause at phase end", w)
        self.phase_pause.setObjectName("sweep_phase_pause")
        row.addWidget(self.phase_pause)
        row.addStretch(1)
        lay.addLayout(row)
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal, w)
        self.slider.setObjectName("sweep_slider")
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self._slider_moved)
        lay.addWidget(self.slider)
        self.status = QtWidgets.QLabel("", w)
        self.status.setObjectName("sweep_status")
        lay.addWidget(self.status)
        self.narration = QtWidgets.QTextBrowser(w)
        self.narration.setObjectName("sweep_narration")
        lay.addWidget(self.narration, 1)
        trow = QtWidgets.QHBoxLayout()
        self.src_edit = QtWidgets.QLineEdit(w)
        self.src_edit.setObjectName("sweep_trace_src")
        self.src_edit.setPlaceholderText("source (node01, node01/mlx5_0:1, leaf01)")
        self.dst_edit = QtWidgets.QLineEdit(w)
        self.dst_edit.setObjectName("sweep_trace_dst")
        self.dst_edit.setPlaceholderText("destination")
        self.trace_button = QtWidgets.QPushButton("Trace", w)
        self.trace_button.setObjectName("sweep_trace")
        self.trace_button.clicked.connect(self.trace_path)
        self.dst_edit.returnPressed.connect(self.trace_path)
        for x in (self.src_edit, self.dst_edit, self.trace_button):
            trow.addWidget(x)
        lay.addLayout(trow)
        self.setWidget(w)
        ctx = QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut
        for key, slot in (("Space", self.toggle_play), ("Right", self.step), ("Shift+Right", self.step_phase)):
            sc = QtGui.QShortcut(QtGui.QKeySequence(key), self)
            sc.setContext(ctx)
            sc.activated.connect(slot)
        self._enable()

    def _enable(self) -> None:
        ok = self.timeline is not None
        for b in (self.play_button, self.step_button, self.phase_button, self.reset_button, self.slider,
                  self.trace_button):
            b.setEnabled(ok)

    # ------------------------------------------------------------------ computing
    def recompute(self) -> None:
        """Run the SM on the current design in a worker; ``ready`` fires when it is loaded."""
        self.pause()
        self._gen += 1
        gen = self._gen
        f: Fabric = self.window_.editor.fabric
        engine = self.engine_box.currentText()
        self.timeline = None
        self.overlay.remove()
        self._enable()
        self.status.setText(f"running the subnet manager ({engine})…")
        self._busy = True

        def work() -> None:
            from fabricviz.ib.sweep import heavy_sweep
            try:
                result: Any = SweepTimeline(heavy_sweep(f, engine), f)
            except Exception as exc:  # shown in the dock, never raised in the thread
                result = exc
            try:
                self.computed.emit(gen, result)
            except RuntimeError:      # the dock is gone
                pass
        threading.Thread(target=work, daemon=True, name="sweep-worker").start()

    def _computed(self, gen: int, result: Any) -> None:
        if gen != self._gen:
            return                    # the design or engine changed meanwhile
        self._busy = False
        if isinstance(result, Exception):
            self.status.setText(f"no sweep: {result}")
            self.narration.setHtml(f"<p>{html.escape(str(result))}</p>")
            return
        self.timeline = result
        self.trace_lines = []
        if self.isVisible():
            self.overlay.set_context(self.window_.editor.fabric, result)
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(result) - 1)
        self.slider.blockSignals(False)
        self._enable()
        self.index = -1
        self.show_step(0)
        self.ready.emit()

    def _design_changed(self) -> None:
        self._gen += 1
        self.pause()
        self.timeline = None
        self.overlay.remove()
        self._enable()
        self.status.setText("the design changed — the sweep runs again")
        if self.isVisible():
            QtCore.QTimer.singleShot(0, self._recompute_if_idle)

    def _recompute_if_idle(self) -> None:
        if self.timeline is None and self.isVisible():
            self.recompute()

    def _visibility(self, visible: bool) -> None:
        if not visible:
            self.pause()
            self.overlay.remove()
            return
        if self.timeline is None:
            if not self._busy:
                self.recompute()
        elif not self.overlay.active:
            self.overlay.set_context(self.window_.editor.fabric, self.timeline)
            self.overlay.set_trace(self._trace_cables)
            self._show(self.index)

    # ------------------------------------------------------------------ clock
    @property
    def speed(self) -> float:
        return float(self.speed_box.currentData())

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def toggle_play(self) -> None:
        if self.playing:
            self.pause()
        else:
            self.play()

    def play(self) -> None:
        tl = self.timeline
        if tl is None:
            return
        if self.index >= len(tl) - 1:
            self.show_step(0)
        self.t_us = tl.times[self.index]
        self._wall.start()
        self.timer.start()
        self.play_button.setText("Pause")

    def pause(self) -> None:
        self.timer.stop()
        self.play_button.setText("Play")

    def _tick(self) -> None:
        tl = self.timeline
        if tl is None:
            self.pause()
            return
        dt = self._wall.restart() / 1000.0
        self.t_us += dt * US_PER_SECOND * self.speed
        i = max(self.index, tl.index_at_time(self.t_us))
        if self.phase_pause.isChecked() and tl.events[i].phase != tl.events[self.index].phase:
            end = tl.phase_end(self.index)
            if end > self.index:
                i = end
            self.show_step(i)
            self.pause()
            return
        if i != self.index:
            self.show_step(i)
        if i >= len(tl) - 1:
            self.pause()

    def step(self) -> None:
        if self.timeline is not None:
            self.pause()
            self.show_step(min(self.index + 1, len(self.timeline) - 1))

    def step_phase(self) -> None:
        if self.timeline is not None:
            self.pause()
            self.show_step(self.timeline.next_phase_index(self.index))

    def _slider_moved(self, v: int) -> None:
        if self.timeline is not None and v != self.index:
            self.show_step(v)

    # ------------------------------------------------------------------ showing
    def show_step(self, i: int) -> None:
        """Show step ``i`` on the canvas, the slider and the narration."""
        tl = self.timeline
        if tl is None:
            return
        i = max(0, min(int(i), len(tl) - 1))
        self.index = i
        if not self.playing:
            self.t_us = tl.times[i]
        self._show(i)
        self.step_shown.emit(i)

    def _show(self, i: int) -> None:
        tl = self.timeline
        if tl is None or i < 0:
            return
        st = tl.state(i)
        self.slider.blockSignals(True)
        self.slider.setValue(i)
        self.slider.blockSignals(False)
        self.overlay.show(st)
        n_sw = int(st.discovered[tl.switches].sum())
        self.status.setText(f"step {i + 1}/{len(tl)} · t = {st.t_us:,.1f} µs · "
                            f"{PHASE_TITLES.get(st.phase, st.phase)} · {n_sw}/{len(tl.switches)} switches found"
                            + (" · SUBNET UP" if st.subnet_up else ""))
        self.narration.setHtml(self._narration_html(i))
        self.narration.scrollToAnchor("current")

    def _narration_html(self, i: int) -> str:
        tl = self.timeline
        lo = max(0, i - NARRATION_LINES + 1)
        out = []
        if lo:
            out.append(f"<p style='color:gray'>… {lo:,} earlier steps</p>")
        prev = tl.events[lo - 1].phase if lo else None
        for j in range(lo, i + 1):
            e = tl.events[j]
            if e.phase != prev:
                out.append(f"<p><b>{html.escape(PHASE_TITLES.get(e.phase, e.phase))}</b></p>")
                prev = e.phase
            text = html.escape(tl.narration[j])
            if e.kind == "banner":
                text = f"<b>{text}</b>"
            if j == i:
                out.append(f"<p style='background-color:#fff3bf;color:#000'><a name='current'></a>&#9654; {text}</p>")
            else:
                out.append(f"<p>{text}</p>")
        if self.trace_lines:
            out.append("<p><b>Path</b></p>")
            out.extend(f"<p><tt>{html.escape(s)}</tt></p>" for s in self.trace_lines)
        return "\n".join(out)

    def narration_text(self) -> str:
        return self.narration.toPlainText()

    # ------------------------------------------------------------------ path trace
    @property
    def _trace_cables(self) -> tuple[int, ...]:
        return getattr(self, "_trace", ())

    def trace_path(self) -> None:
        """Highlight the LFT path between the two names and list its hops in the narration."""
        from fabricviz.ib.trace import endpoint_port, trace
        tl = self.timeline
        if tl is None:
            return
        f = tl.fabric
        src, dst = self.src_edit.text().strip(), self.dst_edit.text().strip()
        try:
            if not src or not dst:
                raise FabricError("trace: give a source and a destination")
            r = trace(tl.sweep.routing, src, dst)
            sp = endpoint_port(tl.sweep.routing, src)
        except (FabricError, KeyError, ValueError) as exc:
            self.status.setText(f"trace: {exc}")
            return
        cables: list[int] = []
        if sp >= 0 and int(f.ports_t.cable[sp]) >= 0:
            cables.append(int(f.ports_t.cable[sp]))
        for h in r.hops:
            if 0 < h.out_port < 255:
                c = int(f.ports_t.cable[f.port_id(h.switch, h.out_port)])
                if c >= 0:
                    cables.append(c)
        self._trace = tuple(cables)
        self.overlay.set_trace(self._trace)
        self.trace_lines = [f"{r.src} (LID {r.slid}) → {r.dst} (LID {r.dlid})"]
        self.trace_lines += [f"[{h.in_port}] {h.switch} [{h.out_port}]" for h in r.hops]
        self.trace_lines.append(f"{len(r.hops)} switch hop(s)" if r.ok else f"!! {r.problem}")
        self.trace_hops = r.hops
        self._show(self.index)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        self.pause()
        self.overlay.remove()
        super().closeEvent(event)


def integrate(window: Any) -> SweepDock:
    """Add the Subnet Manager dock (bottom, hidden until chosen) and a View-menu toggle.

    ``window`` needs ``editor`` (``.fabric``, ``fabric_replaced``), ``scene``
    (``fabric_event``, ``theme``) and ``view`` (``zoom_changed``). Idempotent;
    the dock is kept as ``window.sweep_dock``. Showing it runs the sweep.
    """
    existing = getattr(window, "sweep_dock", None)
    if isinstance(existing, SweepDock):
        return existing
    from fabricviz.ui.findings import view_menu
    dock = SweepDock(window)
    window.addDockWidget(QtCore.Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    dock.hide()
    act = dock.toggleViewAction()
    act.setObjectName("action_sweep")
    act.setText("&Subnet Manager Sweep")
    act.setShortcut(QtGui.QKeySequence("Ctrl+Shift+U"))
    view_menu(window).addAction(act)
    window.sweep_dock = dock
    return dock


__all__ = ["SPEEDS", "STATE_COLORS", "SweepDock", "SweepOverlay", "integrate"]
