"""The Subnet Manager dock: the heavy sweep replayed on the canvas with a clock.

The sweep (:func:`fabricviz.ib.sweep.heavy_sweep`) and its frames
(:class:`fabricviz.anim.sweep_timeline.SweepTimeline`) are computed in a worker
thread; the dock only shows frames. Its clock (:class:`~.sweep_playback.SweepPlayer`,
``dock.player``) plays the SM's events at a pace a class can follow, scrubs, steps
one event or one OpenSM phase, and pauses at each phase's end for teaching.

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
from fabricviz.ui.docks.sweep_playback import SweepPlayer
from fabricviz.ui.docks.sweep_tools import SweepTools, legend_strip
from fabricviz.ui.document.document import Document


class SweepDock(QtWidgets.QDockWidget):
    """The SM's heavy sweep on the canvas: computing it, drawing a step, the narration; its clock
    is the player it holds (``player``)."""

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
        self.pinned = False                   # (the session's) a lesson's sweep: the overlay stays while hidden
        self.overlay = SweepOverlay(scene)
        from fabricviz.ui.canvas.overlays.loads import LoadOverlay
        self.loads = LoadOverlay(scene)
        self._build()
        shown = document.session.sweep
        self.sweep_step.connect(shown.show_step)      # the inspector follows the step
        self.engine_box.currentTextChanged.connect(shown.set_engine)
        shown.set_engine(self.engine_box.currentText())
        shown.adopt_requested.connect(self.adopt)     # a lesson's sweeps
        shown.play_requested.connect(self.player.play_until)
        shown.finish_requested.connect(self.player.finish_play)
        shown.drop_requested.connect(self.release)
        document.session.playback_held.connect(self.player.hold)   # pictures: the clock stands still
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
        self.player = player = SweepPlayer(self, w)     # the clock: play, step, speed, slider
        for b in (player.play_button, player.step_button, player.phase_button, player.reset_button):
            row.addWidget(b)
        row.addWidget(QtWidgets.QLabel("Speed", w))
        row.addWidget(player.speed_box)
        row.addWidget(player.time_left)
        row.addWidget(QtWidgets.QLabel("Engine", w))
        self.engine_box = QtWidgets.QComboBox(w)
        self.engine_box.setObjectName("sweep_engine")
        self.engine_box.addItems(list(ENGINES))
        self.engine_box.currentTextChanged.connect(lambda _t: self.recompute())
        row.addWidget(self.engine_box)
        self.plane_box = QtWidgets.QComboBox(w)          # a multi-plane design: one SM per plane
        self.plane_box.setObjectName("sweep_plane")
        self.plane_box.setToolTip("the plane whose subnet manager sweeps (each plane is its own subnet)")
        self.plane_box.setVisible(False)
        self.plane_box.currentIndexChanged.connect(lambda _i: self.recompute())
        row.addWidget(self.plane_box)
        row.addWidget(player.phase_pause)
        self.loads_box = QtWidgets.QCheckBox("Port loads", w)
        self.loads_box.setObjectName("sweep_loads")
        self.loads_box.setToolTip("colour and thicken cables by how many destinations the LFTs route over them")
        self.loads_box.toggled.connect(lambda _on: self.tools.show_loads())
        row.addWidget(self.loads_box)
        row.addStretch(1)
        lay.addLayout(row)
        self.legend = legend_strip(w)
        lay.addWidget(self.legend)
        lay.addWidget(player.slider)
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
        for key, slot in (("Space", player.toggle_play), ("Right", player.step), ("Shift+Right", player.step_phase)):
            sc = QtGui.QShortcut(QtGui.QKeySequence(key), self)
            sc.setContext(ctx)
            sc.activated.connect(slot)
        self.enable()

    def enable(self) -> None:
        ok = self.timeline is not None
        self.player.enable(ok)
        for b in (self.trace_button, self.pull_button, self.loops_button):
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
        self.player.pause()
        self._events = []
        f: Fabric = fabric if fabric is not None else self.editor.fabric
        if fabric is None and self.tools.whatif is not None:       # another engine: the design's sweep
            self.tools.end_whatif()
        engine = self.engine_box.currentText()
        plane = self._plane(f)
        self.timeline = None
        self._emit_step()
        self._remove_overlay()
        self.loads.clear()
        self.busy = True
        self.enable()
        self.status.setText(f"running the subnet manager ({engine})…")

        def work() -> tuple:
            from fabricviz.ib.sweep import heavy_sweep
            from fabricviz.model.planes import plane_fabric
            g = plane_fabric(f, plane) if plane is not None else f     # the plane alone: the same ids
            sw = heavy_sweep(g, engine, previous=previous, trap_port=trap_port)
            if came_up and trap_port is not None and sw.events and sw.events[0].kind == "trap":
                sw.events[0] = dataclasses.replace(sw.events[0], text=(
                    f"Trap 128 (link state change) from {f.port_name(trap_port)}: port came up; "
                    "the SM forces a heavy sweep"))
            return SweepTimeline(sw, f), lft_changes(sw.routing, previous)
        self.document.jobs.submit("sweep", lambda _progress: work(), on_done=self._computed,
                                  on_error=self._failed)

    def _plane(self, f: Fabric) -> int | None:
        """The plane to sweep (None: the design has no planes); the Plane box follows the design's planes."""
        from fabricviz.model import FabricError
        try:
            names = [p.name for p in f.settings.planes.planes]
        except FabricError:
            names = []
        box = self.plane_box
        if [box.itemText(i) for i in range(box.count())] != names:
            box.blockSignals(True)
            box.clear()
            box.addItems(names)
            box.blockSignals(False)
            box.setVisible(bool(names))
        return box.currentIndex() if names else None

    def adopt(self, timeline: SweepTimeline, index: int | None = None, facts: list[str] | None = None) -> None:
        """Show a sweep computed elsewhere (a lesson's) as if the dock had run it, at step ``index``.

        The overlay stays on the canvas while the dock is hidden (presentation
        mode) until the design is edited or replaced.
        """
        self.player.pause()
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
        self.player.set_length(len(timeline))
        self.enable()
        self.index = -1
        self.show_step(len(timeline) - 1 if index is None else index)

    def release(self) -> None:
        """Drop an adopted sweep (the lesson moved to a step without one)."""
        self.player.pause()
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

    def _failed(self, error: str) -> None:
        self.busy = False
        self.enable()
        self.status.setText(f"no sweep: {error}")
        self.narration.setHtml(f"<p>{html.escape(error)}</p>")

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
        self.player.set_length(len(result))
        self.enable()
        self.index = -1
        self.tools.retrace()           # the path follows the new LFTs
        self.show_step(0)
        self.ready.emit()

    def restore(self, timeline: Any, index: int, facts: list[str], routing: Any) -> None:
        """Show a sweep the dock had before (the design's own, after a what-if) at step ``index``."""
        self.player.pause()
        self.busy = False
        self.timeline, self.routing, self.fact_lines = timeline, routing, list(facts)
        self.tools.loop_lines, self.tools.loop = [], ()
        self.facts.setText(" · ".join(self.fact_lines))
        self.player.set_length(len(timeline))
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
        self.player.new_design()
        for edit in (self.src_edit, self.dst_edit):     # the old design's names mean nothing here
            edit.clear()
        self.routing = None
        self._design_changed(None)

    def _design_changed(self, e: Any = None) -> None:
        if self.tools.whatif is not None:     # a real edit ends the what-if; the design re-sweeps
            self.tools.end_whatif()
        self.pinned = False
        self.document.jobs.cancel("sweep")
        self.document.jobs.cancel("sweep-loops")
        self.busy = False
        self.player.pause()
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
                self.player.pause()
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
            self.player.pause()
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

    # ------------------------------------------------------------------ showing
    def show_step(self, i: int) -> None:
        """Show step ``i`` on the canvas, the slider and the narration."""
        tl = self.timeline
        if tl is None:
            return
        i = max(0, min(int(i), len(tl) - 1))
        self.index = i
        self.t_us = tl.times[i]
        self.player.moved_to(i)
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
        self.player.shown(i)
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
        self.player.pause()
        self._remove_overlay()
        self.loads.clear()
        self.document.session.release("sweep")
        super().closeEvent(event)


__all__ = ["STATE_COLORS", "SweepDock", "SweepOverlay"]
