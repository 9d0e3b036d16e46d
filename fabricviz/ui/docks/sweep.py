"""The Subnet Manager dock: the heavy sweep replayed on the canvas with a clock.

The sweep (:func:`fabricviz.ib.sweep.heavy_sweep`) and its frames
(:class:`fabricviz.anim.sweep_timeline.SweepTimeline`) are computed in a worker
thread; the dock only shows frames. A QTimer plays the SM's events at a pace a
class can follow (1× = :data:`EVENTS_PER_SECOND` events per wall second; the
speed box goes up to 1000× for big fabrics), the slider scrubs to any step, Step
shows one event, Step phase jumps to the next OpenSM phase, and "Pause at phase
end" (ticked by default) stops after each phase for teaching.

"Pull cable" is a what-if: the re-sweep runs on a copy of the design without the
selected cable (the design, its history and revision stay as they are) and the
cable is drawn as a dashed ghost; "Put back" ends it, "Apply to design" removes
the cable for real as one undo step. The dock claims the canvas for its overlay
(``session.claim("sweep")``) and takes it off when another owner claims it;
``sweep_step`` (and the session's :attr:`~fabricviz.ui.document.session.Session.sweep`) tells
followers (the inspector) which step of which sweep shows.

The canvas is not edited: :class:`SweepOverlay` adds its own path items on top
of the scene (undiscovered IB nodes dimmed, discovered ones outlined, port
dots INIT amber / ARMED yellow / ACTIVE green, the current directed route in
magenta, a traced path in cyan, LID labels on CA ports when zoomed in) and
removes them when the dock closes or the design is replaced or edited.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.sweep_timeline import PHASE_TITLES, SweepStep, SweepTimeline
from fabricviz.ib.lft_diff import lft_changes
from fabricviz.ib.routing import ENGINES, Routing
from fabricviz.model import Fabric
from fabricviz.ui.canvas.overlays.sweep import STATE_COLORS, SweepOverlay
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.docks.sweep_narration import narration_html
from fabricviz.ui.docks.sweep_tools import SweepTools, legend_strip
from fabricviz.ui.document.document import Document

SPEEDS = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 100.0, 1000.0)
#: SM events shown per wall second at 1×: a pace a class can follow and the teacher can talk over.
EVENTS_PER_SECOND = 3.0
TICK_MS = 33
SPEED_TIP = (f"1× = {EVENTS_PER_SECOND:g} SM events per second, a pace a class can follow (with "
             "\"Pause at phase end\" the clock stops after each OpenSM phase); 5×–1000× for the impatient "
             "and for big fabrics. The status line shows the SM's own model time of each step.")


class SweepDock(QtWidgets.QDockWidget):
    """Clock, controls and narration for replaying the SM's heavy sweep on the canvas."""

    ready = QtCore.Signal()                       # a new sweep is loaded
    step_shown = QtCore.Signal(int)
    sweep_step = QtCore.Signal(object)            # SweepStep shown while the dock shows a sweep, else None
    loops_found = QtCore.Signal(object)           # the credit loops (list) found on demand

    def __init__(self, document: Document, scene: FabricScene, view: CanvasView,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Subnet Manager", parent)
        self.setObjectName("sweep")
        self.document, self.editor, self.scene = document, document.editor, scene
        self.timeline: SweepTimeline | None = None
        self.index = -1
        self.t_us = 0.0
        self.busy = False
        self.fact_lines: list[str] = []       # routing facts: engine, fallback, re-sweep changes
        self.routing: Routing | None = None   # the last sweep's Routing (kept across edits: re-sweeps)
        self._events: list[Any] = []          # model edits since the last sweep
        self.tools = SweepTools(self)         # what-if, credit loops, path trace, port loads
        self._pos = 0.0                       # the clock, in events (fractional between ticks)
        self.pinned = False                   # (the session's) a lesson's sweep: the overlay stays while hidden
        self._stop_at: int | None = None      # play_until's target step
        self._rate: float | None = None       # play_until's speed (× real time), instead of the speed box
        self.overlay = SweepOverlay(scene)
        from fabricviz.ui.canvas.overlays.loads import LoadOverlay
        self.loads = LoadOverlay(scene)
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self._wall = QtCore.QElapsedTimer()
        self._build()
        shown = document.session.sweep
        self.sweep_step.connect(shown.show_step)      # the inspector follows the step
        self.engine_box.currentTextChanged.connect(shown.set_engine)
        shown.set_engine(self.engine_box.currentText())
        shown.adopt_requested.connect(self.adopt)     # a lesson's sweeps
        shown.play_requested.connect(self.play_until)
        shown.finish_requested.connect(self.finish_play)
        shown.drop_requested.connect(self.release)
        self._holding: ExitStack | None = None
        document.session.playback_held.connect(self._hold)   # pictures: the clock stands still
        self.visibilityChanged.connect(self._visibility)
        document.changed.connect(lambda e: self._fabric_replaced() if e is None else self._design_changed(e))
        document.session.cleared.connect(self.hide)
        document.session.overlay_changed.connect(self._overlay_changed)
        view.zoom_changed.connect(self.overlay.set_zoom)
        self.overlay.set_zoom(view.transform().m11())

    @property
    def pinned(self) -> bool:
        """A lesson's sweep shows: the overlay stays while the dock is hidden (the session's ``sweep.pinned``)."""
        return bool(self.document.session.sweep.pinned)

    @pinned.setter
    def pinned(self, on: bool) -> None:
        self.document.session.sweep.pinned = bool(on)

    def _remove_overlay(self) -> None:
        self.overlay.remove()
        self.document.session.sweep.drawn = False

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
        self.speed_box.setToolTip(SPEED_TIP)
        row.addWidget(self.speed_box)
        row.addWidget(QtWidgets.QLabel("Engine", w))
        self.engine_box = QtWidgets.QComboBox(w)
        self.engine_box.setObjectName("sweep_engine")
        self.engine_box.addItems(list(ENGINES))
        self.engine_box.currentTextChanged.connect(lambda _t: self.recompute())
        row.addWidget(self.engine_box)
        self.phase_pause = QtWidgets.QCheckBox("Pause at phase end", w)
        self.phase_pause.setObjectName("sweep_phase_pause")
        self.phase_pause.setChecked(True)
        self.phase_pause.setToolTip("stop the clock after the last event of each OpenSM phase")
        row.addWidget(self.phase_pause)
        self.loads_box = QtWidgets.QCheckBox("Port loads", w)
        self.loads_box.setObjectName("sweep_loads")
        self.loads_box.setToolTip("colour and thicken cables by how many destinations the LFTs route over them")
        self.loads_box.toggled.connect(lambda _on: self.tools.show_loads())
        row.addWidget(self.loads_box)
        row.addStretch(1)
        lay.addLayout(row)
        self.legend = legend_strip(w)
        lay.addWidget(self.legend)
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
        self.trace_button.clicked.connect(self.tools.trace_path)
        self.dst_edit.returnPressed.connect(self.tools.trace_path)
        for x in (self.src_edit, self.dst_edit, self.trace_button):
            trow.addWidget(x)
        lay.addLayout(trow)
        frow = QtWidgets.QHBoxLayout()
        self.facts = QtWidgets.QLabel("", w)
        self.facts.setObjectName("sweep_facts")
        self.facts.setWordWrap(True)
        self.facts.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        frow.addWidget(self.facts, 1)
        row = frow
        self.pull_button = button("sweep_pull", "Pull cable", "what if the cable selected on the canvas "
                                  "went down: Trap 128, re-sweep and reroute on a copy — the design is "
                                  "not edited", self.tools.pull_cable)
        self.back_button = button("sweep_put_back", "Put back", "end the what-if (or undo an applied pull): "
                                  "the sweep of the design again", self.tools.put_back)
        self.apply_button = button("sweep_apply", "Apply to design", "remove the pulled cable from the "
                                   "design for real (one undo step)", self.tools.apply_pull)
        self.loops_button = button("sweep_loops", "Credit loops", "find cycles in the channel dependency "
                                   "graph of these LFTs and highlight the first", self.tools.show_credit_loops)
        lay.addLayout(frow)
        self.setWidget(w)
        ctx = QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut
        for key, slot in (("Space", self.toggle_play), ("Right", self.step), ("Shift+Right", self.step_phase)):
            sc = QtGui.QShortcut(QtGui.QKeySequence(key), self)
            sc.setContext(ctx)
            sc.activated.connect(slot)
        self.enable()

    def enable(self) -> None:
        ok = self.timeline is not None
        for b in (self.play_button, self.step_button, self.phase_button, self.reset_button, self.slider,
                  self.trace_button, self.pull_button, self.loops_button):
            b.setEnabled(ok)
        whatif = self.tools.whatif
        self.pull_button.setEnabled(ok and whatif is None)
        self.back_button.setEnabled((whatif is not None or self.tools.pulled is not None) and not self.busy)
        self.apply_button.setEnabled(ok and whatif is not None)

    # ------------------------------------------------------------------ computing
    def recompute(self, previous: Any = None, trap_port: int | None = None, came_up: bool = False,
                  fabric: Fabric | None = None) -> None:
        """Run the SM on the current design (or ``fabric``, a what-if copy of it) in a worker;
        ``ready`` fires when it is loaded.

        With ``previous`` (the routing before an edit) it is a re-sweep: LIDs are
        kept, Trap 128 from ``trap_port`` comes first, and the dock counts the LFT
        entries that changed.
        """
        self.pause()
        self._events = []
        f: Fabric = fabric if fabric is not None else self.editor.fabric
        if fabric is None and self.tools.whatif is not None:       # another engine: the design's sweep
            self.tools.end_whatif()
        engine = self.engine_box.currentText()
        self.timeline = None
        self._emit_step()
        self._remove_overlay()
        self.loads.clear()
        self.busy = True
        self.enable()
        self.status.setText(f"running the subnet manager ({engine})…")

        def work() -> tuple:
            from fabricviz.ib.sweep import heavy_sweep
            sw = heavy_sweep(f, engine, previous=previous, trap_port=trap_port)
            if came_up and trap_port is not None and sw.events and sw.events[0].kind == "trap":
                sw.events[0] = dataclasses.replace(sw.events[0], text=(
                    f"Trap 128 (link state change) from {f.port_name(trap_port)}: port came up; "
                    "the SM forces a heavy sweep"))
            return SweepTimeline(sw, f), lft_changes(sw.routing, previous)
        self.document.jobs.submit("sweep", lambda _progress: work(), on_done=self._computed,
                                  on_error=self._failed)

    def adopt(self, timeline: SweepTimeline, index: int | None = None, facts: list[str] | None = None) -> None:
        """Show a sweep computed elsewhere (a lesson's) as if the dock had run it, at step ``index``.

        The overlay stays on the canvas while the dock is hidden (presentation
        mode) until the design is edited or replaced.
        """
        self.pause()
        self.document.jobs.cancel("sweep")
        self.busy = False
        self._events = []
        self.timeline = timeline
        self.routing = r = timeline.sweep.routing
        self._share(r)
        self.pinned = True
        self.engine_box.blockSignals(True)
        self.engine_box.setCurrentText(r.engine)
        self.engine_box.blockSignals(False)
        self.document.session.sweep.set_engine(self.engine_box.currentText())
        self.tools.new_lfts(trace=True)
        self.fact_lines = [f"routed by {r.routed_by}" + (f" (asked for {r.engine})" if r.engine != r.routed_by
                                                          else "")] + list(facts or [])
        self.facts.setText(" · ".join(self.fact_lines))
        self._draw(timeline.fabric)
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(timeline) - 1)
        self.slider.blockSignals(False)
        self.enable()
        self.index = -1
        self.show_step(len(timeline) - 1 if index is None else index)

    def release(self) -> None:
        """Drop an adopted sweep (the lesson moved to a step without one)."""
        self.pause()
        self.pinned = False
        self.document.jobs.cancel("sweep")
        self.timeline = None
        self._emit_step()
        self._remove_overlay()
        self.loads.clear()
        self.document.session.release("sweep")
        self.enable()
        self.status.setText("")
        self.narration.setHtml("")

    def play_until(self, i: int, seconds: float = 3.0) -> None:
        """Play from the step shown to step ``i`` in about ``seconds`` of wall time, then pause."""
        tl = self.timeline
        if tl is None:
            return
        i = max(0, min(int(i), len(tl) - 1))
        if i <= self.index:
            self.show_step(i)
            return
        self._stop_at = i
        self._rate = (i - self.index) / max(seconds, 0.05)       # events per wall second
        self._pos = float(self.index)
        self._wall.start()
        self.timer.start()
        self.play_button.setText("Pause")

    def _failed(self, error: str) -> None:
        self.busy = False
        self.enable()
        self.status.setText(f"no sweep: {error}")
        self.narration.setHtml(f"<p>{html.escape(error)}</p>")

    def finish_play(self) -> None:
        """Jump a ``play_until`` animation to its target step (screenshots, tests)."""
        if self._stop_at is not None:
            stop = self._stop_at
            self.pause()
            self.show_step(stop)

    def _computed(self, result: Any) -> None:
        """The sweep of the current design (a stale one is dropped by the job runner)."""
        self.busy = False
        result, changed = result
        self.timeline = result
        self.routing = r = result.sweep.routing
        self._share(r)
        self.tools.new_lfts()                    # new LFTs: the old loop highlight goes
        self.fact_lines = [f"routed by {r.routed_by}" + (f" (asked for {r.engine})" if r.engine != r.routed_by
                                                          else "")]
        if r.fallback_reason:
            self.fact_lines.append(f"fallback: {r.fallback_reason}; routed with minhop instead")
        if self.tools.whatif is not None:
            self.fact_lines.append(f"what-if: {self.tools.whatif.label} pulled on a copy — the design is unchanged "
                                   "(Put back ends it, Apply to design makes it real)")
        if changed is not None:
            first = result.events[0].text if result.events else ""
            self.fact_lines.append(f"re-sweep ({first.split(':')[0]}): {changed[0]:,} LFT entries changed on "
                                   f"{changed[1]} switch(es), {r.info.lft_blocks_sent or 0} LFT block(s) sent")
        self.facts.setText(" · ".join(self.fact_lines))
        if self.isVisible():
            self._draw(self.editor.fabric)
        else:
            self.tools.show_loads()
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(result) - 1)
        self.slider.blockSignals(False)
        self.enable()
        self.index = -1
        self.tools.retrace()           # the path follows the new LFTs
        self.show_step(0)
        self.ready.emit()

    def restore(self, timeline: Any, index: int, facts: list[str], routing: Any) -> None:
        """Show a sweep the dock had before (the design's own, after a what-if) at step ``index``."""
        self.pause()
        self.busy = False
        self.timeline, self.routing, self.fact_lines = timeline, routing, list(facts)
        self.tools.loop_lines, self.tools.loop = [], ()
        self.facts.setText(" · ".join(self.fact_lines))
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(timeline) - 1)
        self.slider.blockSignals(False)
        self._remove_overlay()
        self.enable()
        self.index = -1
        self.show_step(index)
        self.tools.retrace()           # the path follows the design's LFTs again
        self.ready.emit()

    def _share(self, routing: Any) -> None:
        """The inspector (and everyone else) shows the LFTs this sweep pushed."""
        if routing.subnet.fabric is self.editor.fabric:
            self.document.routing.put("lft:sweep", routing)

    def _fabric_replaced(self) -> None:
        self.tools.forget()
        self.routing = None
        self._design_changed(None)

    def _design_changed(self, e: Any = None) -> None:
        if self.tools.whatif is not None:     # a real edit ends the what-if; the design re-sweeps
            self.tools.end_whatif()
        self.pinned = False
        self.document.jobs.cancel("sweep")
        self.document.jobs.cancel("sweep-loops")
        self.busy = False
        self.pause()
        self.timeline = None
        self._emit_step()
        self._remove_overlay()
        self.loads.clear()
        self._events.append(e)
        self.enable()
        self.status.setText("the design changed — the sweep runs again")
        if self.isVisible() and len(self._events) == 1:
            QtCore.QTimer.singleShot(0, self._recompute_if_idle)

    def _recompute_if_idle(self) -> None:
        events, self._events = self._events, []
        if self.timeline is not None or not self.isVisible():
            return
        f = self.editor.fabric
        prev = self.routing
        cables = [e for e in events if e is not None and e.what == "cable" and e.kind in ("added", "removed")]
        if prev is None or prev.subnet.fabric is not f or len(cables) != len(events):
            self.recompute()           # a new design or more than a cable changed: a fresh sweep
            return
        # a cable pulled or put back: Trap 128 from its switch end, re-sweep keeping LIDs
        c = cables[0].id
        ends = [int(f.cables_t.port_a[c]), int(f.cables_t.port_b[c])]
        sw = [p for p in ends if f.device(int(f.ports_t.device[p])).is_switch]
        if self.tools.pulled is not None and self.tools.pulled[0] == c and cables[0].kind == "added":
            self.tools.pulled = None
        self.recompute(previous=prev, trap_port=(sw or ends)[0], came_up=cables[0].kind == "added")

    def _visibility(self, visible: bool) -> None:
        if not visible:
            self._emit_step()
            if not self.pinned:
                self.pause()
                self._remove_overlay()
                self.loads.clear()
                self.document.session.release("sweep")
            return
        if self.timeline is None:
            if not self.busy:
                self.recompute()
        elif not self.overlay.active:
            self._draw(self.editor.fabric)
            self._show(self.index)
            self._emit_step()

    # ------------------------------------------------------------------ the canvas
    def _draw(self, fabric: Fabric) -> None:
        """Put the overlay on the canvas for the loaded sweep (claiming it from other overlays)."""
        self.document.session.claim("sweep")
        assert self.timeline is not None              # drawn once a sweep is loaded
        self.overlay.set_context(fabric, self.timeline)
        tools = self.tools
        self.overlay.set_trace(tools.trace)
        self.overlay.set_loop(tools.loop)
        self.overlay.set_ghost((tools.whatif.cable,) if tools.whatif is not None else ())
        tools.show_loads()
        self.document.session.sweep.drawn = self.overlay.active

    def _overlay_changed(self, owner: str) -> None:
        """Another overlay owns the canvas now: the sweep's items (path, loops, ghost) go."""
        if owner and owner != "sweep" and self.overlay.active:
            self.pause()
            self._remove_overlay()
            self.loads.clear()

    def _emit_step(self) -> None:
        """Tell followers the step shown, or None while the dock shows no sweep."""
        tl = self.timeline
        if tl is not None and self.isVisible() and 0 <= self.index < len(tl):
            whatif = self.tools.whatif
            self.sweep_step.emit(SweepStep(tl, self.index, whatif.label if whatif else ""))
        else:
            self.sweep_step.emit(None)

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
        self._pos = float(self.index)
        self._wall.start()
        self.timer.start()
        self.play_button.setText("Pause")

    def _hold(self, on: bool) -> None:
        """The session holds playback (``on``) or lets it go on (see :meth:`held`)."""
        if on and self._holding is None:
            self._holding = ExitStack()
            self._holding.enter_context(self.held())
        elif not on and self._holding is not None:
            stack, self._holding = self._holding, None
            stack.close()

    @contextmanager
    def held(self) -> Iterator[None]:
        """Playback stands still inside (a picture is being drawn between its clock ticks), then
        goes on from where it was toward the same ``play_until`` target."""
        if not self.playing:
            yield
            return
        self.timer.stop()
        try:
            yield
        finally:
            self._wall.restart()              # the time held does not count
            self.timer.start()

    def pause(self) -> None:
        self._stop_at = self._rate = None
        self.timer.stop()
        self.play_button.setText("Play")

    def _tick(self) -> None:
        tl = self.timeline
        if tl is None:
            self.pause()
            return
        dt = self._wall.restart() / 1000.0
        self._pos += dt * (self._rate if self._rate is not None else self.speed * EVENTS_PER_SECOND)
        i = max(self.index, min(int(self._pos), len(tl) - 1))
        if self._stop_at is not None:
            stop = self._stop_at
            if i >= stop:
                self.show_step(stop)
                self.pause()
                return
            if i != self.index:
                self.show_step(i)
            return
        if self.phase_pause.isChecked():
            end = tl.phase_end(self.index)        # the last event of this phase (or of the next one
            if end <= self.index:                 # when play started on a phase's last event)
                end = tl.phase_end(min(self.index + 1, len(tl) - 1))
            if i >= end:
                self.show_step(end)
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
        self.t_us = tl.times[i]
        if not self.playing:
            self._pos = float(i)
        if not self.overlay.active and (self.isVisible() or self.pinned):
            self._draw(self.editor.fabric)       # back on the canvas (another overlay had it)
        self._show(i)
        self.step_shown.emit(i)
        self._emit_step()

    def _show(self, i: int) -> None:
        tl = self.timeline
        if tl is None or i < 0:
            return
        st = tl.state(i)
        self.slider.blockSignals(True)
        self.slider.setValue(i)
        self.slider.blockSignals(False)
        self.overlay.show(st)
        self.document.session.sweep.drawn = self.overlay.active
        n_sw = int(st.discovered[tl.switches].sum())
        self.status.setText(f"step {i + 1}/{len(tl)} · t = {st.t_us:,.1f} µs · "
                            f"{PHASE_TITLES.get(st.phase, st.phase)} · {n_sw}/{len(tl.switches)} switches found"
                            + (" · SUBNET UP" if st.subnet_up else ""))
        self.narration.setHtml(self._narration_html(i))
        self.narration.scrollToAnchor("current")

    def show_index(self) -> None:
        """Show the current step again (status, overlay, narration)."""
        self._show(self.index)

    def _narration_html(self, i: int) -> str:
        return narration_html(self.timeline, i, self.fact_lines, self.tools.loop_lines, self.tools.trace_lines)

    def narration_text(self) -> str:
        return self.narration.toPlainText()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        self.pause()
        self._remove_overlay()
        self.loads.clear()
        self.document.session.release("sweep")
        super().closeEvent(event)


__all__ = ["EVENTS_PER_SECOND", "SPEEDS", "STATE_COLORS", "SweepDock", "SweepOverlay"]
