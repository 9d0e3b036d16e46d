"""The canvas follows the lesson: each step shows what its engines computed.

A lesson's steps were run by the real engines in a worker
(:func:`~fabricviz.anim.lessons.run_lesson`); every step carries the fabric it
left (a copy when it pulled or moved a cable), and what to show:

* sweep steps and a pulled cable's Trap 128 re-sweep play in the Subnet
  Manager dock's overlay, from where the previous step stopped to the phase
  the step ends on (the dock adopts the lesson's sweep: its slider, narration
  and clock work as usual, and the overlay stays while the dock is hidden in
  presentation mode);
* traced paths (up to three, e.g. minhop/updn/ftree) with ``[in] switch
  [out]`` labels, the path before a cable was pulled (dashed), the pulled or
  moved cable (a red dashed ghost with a cross), the new cable, and the first
  credit loop, in :class:`LessonOverlay`;
* route and credit-loop steps, and a sweep step that stops after the routing phase: routes per
  port (:mod:`fabricviz.ui.canvas.overlays.loads`);
* VL steps (``layers``, a credit-loop check of dfsssp's routing): the VL layers
  (:mod:`fabricviz.ui.canvas.overlays.vl_layers`, whatever View ▸ VL Layers says), each cable
  in the colours of the VLs its paths use, instead of the routes per port;
* partition steps (``partitions``, ``reach``, a run in a partition): the partition marks
  (:mod:`fabricviz.ui.canvas.overlays.partitions`, shown whatever View ▸ Partition Marks says)
  with whom a reach step's host can talk;
* headroom steps: the port's cable as a traced path, and its switch selected on the canvas (so the
  Lossless dock, which follows the selection, shows that switch's headroom and buffer budget);
* simulate steps: the Traffic dock adopts the run (heatmap, legend, charts) with its
  controls set to the step's workload, model, routing, duration, seed and partition; fluid runs
  play their frames. Once the frames reach the run's steady part, every cable the run
  paused (what the step's summary lists as paused links) carries the heatmap's paused
  mark, also where the frame's instantaneous sample misses it;
* collective and what-if steps: the Collectives and What-if docks show the step's curves and
  trials, asked through the session (:mod:`.stage_docks`).

The stage claims the canvas (``session.claim("lesson")``) for each step it shows, then
drives the docks (which claim it for their sweep or heatmap, drawn under the lesson's
marks); another claim made outside a step (the user's own run, sweep or loads) drops
the lesson's marks.

Stepping back shows the earlier step's fabric and state. Once the user edits
the design the canvas stops following (nothing they did is replaced).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui

from fabricviz.anim.lesson_results import StepResult, TracedPath, TrafficRun
from fabricviz.model import Fabric
from fabricviz.ui.canvas.legend import Row
from fabricviz.ui.canvas.overlays.lesson import (
    ADDED_COLOR,
    GHOST_COLOR,
    LOOP_COLOR,
    OLD_PATH_COLOR,
    PATH_COLORS,
    LessonOverlay,
)
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.document.document import Document

#: Wall seconds a sweep step takes to play on the canvas.
SWEEP_SECONDS = 3.0

if TYPE_CHECKING:
    from fabricviz.sim.engine import SimResult
    from fabricviz.ui.lessons.dock import LessonDock, Presentation

class LessonStage(QtCore.QObject):
    """Drives the canvas, and through the session the Subnet Manager, Traffic, Collectives and What-if
    docks, from the lesson's step (the session's ``lesson``)."""

    following_changed = QtCore.Signal(bool)

    def __init__(self, document: Document, scene: FabricScene, dock: LessonDock, presentation: Presentation,
                 status: Callable[[str], None]) -> None:
        super().__init__(dock)
        self.document, self.editor, self.dock = document, document.editor, dock
        self.presentation = presentation
        self.sweep = document.session.sweep         # the sweep on show (the Subnet Manager dock's)
        self.traffic = document.session.traffic     # the run on show (the Traffic dock's)
        self.status = status
        self.overlay = LessonOverlay(scene)
        from fabricviz.ui.canvas.overlays.loads import LoadOverlay
        self.loads = LoadOverlay(scene)      # route / check_loops steps: routes per port
        from fabricviz.ui.canvas.overlays.partitions import PartitionMarks, marks_of
        self.marks = marks_of(scene) or PartitionMarks(document, scene, status)   # partition steps
        self.scene = scene
        from fabricviz.ui.lessons.stage_docks import LessonDocks
        self.docks = LessonDocks(document, scene, presentation)   # collective / whatif steps (through the session)
        self._vl: Any = None                   # VL layer steps: the window's VL layers (vl_layers)
        self.owned: Fabric | None = None       # the design the stage put on the canvas
        self.shown = -1
        self.sweep_seconds = SWEEP_SECONDS
        self._traffic_result: SimResult | None = None   # the run the stage gave the Traffic dock
        self._traffic_run: TrafficRun | None = None
        self._setting = False
        self._driving = False                  # the stage is driving the sweep/traffic docks
        self.lesson = document.session.lesson     # the lesson, its results and the step on show
        self.lesson.ready.connect(self._ready)
        self.lesson.step_changed.connect(self._step)
        document.replaced.connect(self._replaced)
        document.session.cleared.connect(self.stop)
        document.session.overlay_changed.connect(self._overlay_changed)
        self.traffic.frame_changed.connect(self._traffic_frame)

    # ------------------------------------------------------------------ ownership
    def begin(self, fabric: Fabric) -> None:
        """A lesson was opened with ``fabric`` on the canvas: follow it."""
        self.owned, self.shown = fabric, -1
        self.overlay.clear()
        self.loads.clear()

    @property
    def following(self) -> bool:
        ed = self.editor
        return self.owned is not None and ed.fabric is self.owned and ed.stack.count() == 0

    def _replaced(self) -> None:
        if not self._setting:
            self.stop()                       # another design is on the canvas: stop following

    def stop(self) -> None:
        """Stop following the lesson: its marks, port loads, sweep and traffic run go."""
        self.owned, self.shown = None, -1
        self.overlay.clear()
        self.loads.clear()
        self.marks.unpin()
        if self._vl is not None:
            self._vl.unpin()
        self.docks.leave()
        if self.sweep.pinned:
            self.sweep.drop()
        if self._traffic_result is not None and self.traffic.result is self._traffic_result:
            self.traffic.drop()
        self._traffic_result = self._traffic_run = None
        self.document.session.release("lesson")

    def _overlay_changed(self, owner: str) -> None:
        """Another overlay owns the canvas now: the lesson's marks go (the next step redraws them)."""
        if owner and owner != "lesson" and not self._driving:
            self.overlay.clear()
            self.loads.clear()
            self.marks.unpin()
            if self._vl is not None:
                self._vl.unpin()

    # ------------------------------------------------------------------ steps
    def _ready(self) -> None:
        if self.lesson.results:
            self.show(self.lesson.step, animate=True)

    def _step(self, k: int) -> None:
        self.show(k, animate=k == self.shown + 1)

    def show(self, k: int, animate: bool = False) -> bool:
        """Show step ``k`` (0-based) on the canvas; False when the canvas no longer follows."""
        results = self.lesson.results
        if not results or not 0 <= k < len(results):
            return False
        if not self.following:
            self.overlay.clear()
            self.loads.clear()
            if self.owned is not None:
                self.status("the design was edited: the canvas no longer follows the lesson (reopen it to restart)")
            return False
        step = results[k]
        fab = step.fabric
        if self.editor.fabric is not fab:
            self._setting = True
            try:
                self.editor.set_fabric(fab)
            finally:
                self._setting = False
            self.owned = fab
        self.shown = k
        self.document.session.claim("lesson")     # the lesson owns the canvas; the sweep and
        self._driving = True                      # traffic docks it drives then draw under its marks
        try:
            self._show_sweep(results, k, fab, animate)
            self._show_traffic(step, fab, animate)
        finally:
            self._driving = False
        self._show_marks(results, k, fab)
        if step.headroom is not None:              # the Lossless dock follows the canvas selection
            self.scene.select_devices([step.headroom.device])
        self._show_partitions(step, fab)
        self._show_layers(step)
        self.docks.show(step)
        # route, credit-loop and the sweep's routing phase: the routes per port the engine chose
        if step.action in ("route", "check_loops", "sweep") and step.routing is not None and step.layers is None:
            self.loads.show(fab, step.routing)
        else:
            self.loads.clear()
        self._traffic_frame(self.traffic.frame)
        return True

    @staticmethod
    def _latest(results: list[StepResult], k: int, fab: Fabric,
                has: Callable[[StepResult], bool]) -> StepResult | None:
        """The last step up to ``k`` on ``fab`` for which ``has`` holds."""
        for j in range(k, -1, -1):
            if results[j].fabric is fab and has(results[j]):
                return results[j]
        return None

    def _show_sweep(self, results: list[StepResult], k: int, fab: Fabric, animate: bool) -> None:
        sweep = self.sweep
        r = self._latest(results, k, fab, lambda r: r.sweep is not None)
        if r is None or r.sweep is None:
            if sweep.pinned:
                sweep.drop()
            return
        play = r.sweep
        if r is results[k] and animate:
            sweep.adopt(play.timeline, max(play.first - 1, 0))
            sweep.play_until(play.last, self.sweep_seconds)
        else:
            sweep.adopt(play.timeline, play.last)

    def _change_of(self, results: list[StepResult], k: int, fab: Fabric) -> StepResult | None:
        """The pull or rewire that made ``fab`` (None: the lesson's own fabric)."""
        return self._latest(results, k, fab, lambda r: r.change is not None)

    def _paths_of(self, results: list[StepResult], k: int, fab: Fabric) -> tuple[TracedPath, ...]:
        m = self._change_of(results, k, fab)
        return results[k].paths or (m.paths if m is not None else ())

    def _show_marks(self, results: list[StepResult], k: int, fab: Fabric) -> None:
        r = results[k]
        m = self._change_of(results, k, fab)
        ch = m.change if m is not None else None
        self.overlay.show(fab, self._paths_of(results, k, fab), old_path=r.old_path,
                          before=ch.before if ch is not None else None, ghosts=ch.removed if ch is not None else (),
                          added=(ch.added,) if ch is not None and ch.added is not None else (),
                          loop=r.loop_cables)

    @property
    def vl_layers(self) -> Any:
        """The window's VL layers overlay (made here when the scene has none)."""
        if self._vl is None:
            from fabricviz.ui.canvas.overlays.vl_layers import VlLayers, layers_of
            self._vl = layers_of(self.scene) or VlLayers(self.document, self.scene, self.status)
        return self._vl

    def _show_layers(self, step: StepResult) -> None:
        """VL steps: the VLs each cable carries, as the step's engines found them."""
        m = step.layers
        if m is not None and m.layer_names:        # the engine's layers: a few colours, not every SL
            self.vl_layers.pin(m.cables, m.layer_masks, m.engine, names=m.layer_names)
        elif m is not None:
            self.vl_layers.pin(m.cables, m.masks, m.engine)
        elif self._vl is not None:
            self._vl.unpin()

    def _show_partitions(self, step: StepResult, fab: Fabric) -> None:
        """Partition steps: the partition marks, with whom a reach step's host can talk."""
        run = step.traffic
        if step.partitions or step.reach is not None or (run is not None and run.partition):
            self.marks.pin(fab.find(step.reach.src) if step.reach is not None else None)
        else:
            self.marks.unpin()

    def _show_traffic(self, step: StepResult, fab: Fabric, animate: bool) -> None:
        traffic = self.traffic
        run = step.traffic
        if run is None:
            if self._traffic_result is not None and traffic.result is self._traffic_result:
                traffic.drop()
            self._traffic_result = self._traffic_run = None
            self.dock.legend.hide()
            return
        res = run.result
        if traffic.result is not res:
            traffic.adopt(res, fab, traffic_controls(run))
        if not self.presentation.active:        # its legend and frame slider, beside the lesson
            traffic.present(True)
        else:                     # presentation: the canvas and the lesson only (its own legend)
            traffic.present(False)
        self._traffic_result, self._traffic_run = res, run
        self.dock.legend.set_scale(traffic.scale)
        self.dock.legend.show()
        if len(res.frames) > 1 and animate:
            traffic.seek(0)
            traffic.play(True)
        else:                     # (set_frame draws the frame again after the lesson's claim)
            traffic.play(False)
            traffic.seek(len(res.frames) - 1)

    def _traffic_frame(self, k: int) -> None:
        """The Traffic dock shows frame ``k``: in the run's steady part, mark every cable the run paused."""
        run, shown = self._traffic_run, self.traffic
        if run is None or shown.result is not run.result or not self.overlay.drawn:
            self.overlay.show_paused(None, ())
            return
        frames = run.result.frames
        steady = float(run.summary.get("steady_from_s", 0.0))
        on = bool(run.paused_cables) and 0 <= k < len(frames) and frames[k].time_s >= steady
        if on != bool(self.overlay.drawn.get("paused")):
            self.overlay.show_paused(shown.fabric if on else None, run.paused_cables if on else ())

    def finish(self) -> None:
        """Jump every running animation to its end (screenshots, tests)."""
        self.sweep.finish_play()
        res = self.traffic.result
        if res is self._traffic_result and res is not None:
            self.traffic.play(False)
            self.traffic.seek(len(res.frames) - 1)

    def legend_rows(self) -> list[Row]:
        """Legend rows (label, colour, "line") for what the overlay draws now (pictures)."""
        rows: list[Row] = []
        results = self.lesson.results or []
        if 0 <= self.shown < len(results):
            r = results[self.shown]
            for i, p in enumerate(self._paths_of(results, self.shown, r.fabric)[:len(PATH_COLORS)]):
                rows.append((p.label, QtGui.QColor(PATH_COLORS[i]), "line"))
            if r.old_path is not None:
                rows.append((r.old_path.label, QtGui.QColor(OLD_PATH_COLOR), "dash"))
            if self.overlay.drawn.get("loop"):
                on = " on " + ", ".join(f"VL{v}" for v in r.loop_vls) if r.loop_vls else ""
                rows.append((f"credit loop{on}", QtGui.QColor(LOOP_COLOR), "line"))
            if self.overlay.drawn.get("ghosts"):
                rows.append(("pulled / unplugged cable", QtGui.QColor(GHOST_COLOR), "dash"))
            if self.overlay.drawn.get("added"):
                rows.append(("new cable", QtGui.QColor(ADDED_COLOR), "line"))
            rows += self.loads.legend_rows()
            if self._vl is not None and self._vl.pinned:
                rows += self._vl.legend_rows()
            if self.marks.pinned:
                rows += self.marks.legend_rows()
            rows += self.docks.legend_rows()
        sweep = self.sweep
        if sweep.pinned and sweep.drawn:
            from fabricviz.ui.canvas.overlays.sweep import DISCOVERED_COLOR, STATE_COLORS
            rows.append(("discovered by the SM", QtGui.QColor(DISCOVERED_COLOR), "line"))
            rows += [(f"port {name}", QtGui.QColor(c), "rect") for name, c in STATE_COLORS.items()]
        shown = self.traffic
        if shown.result is not None and shown.result is self._traffic_result:
            from fabricviz.ui.canvas.export import heat_rows
            rows += heat_rows(shown.scale)
        return rows


def traffic_controls(run: TrafficRun) -> dict[str, Any]:
    """The Traffic dock's controls (``TrafficDock.configure`` keywords) for a lesson's run; an
    explicit flow list has no workload name there: the argument is emptied, the name kept."""
    from fabricviz.ui.document.traffic_choice import IB_ENGINES, ROUTINGS, WORKLOADS
    out: dict[str, Any] = {"model": run.model, "duration": f"{run.duration_ms:g}ms", "seed": run.seed,
                           "routing": run.routing if run.routing in ROUTINGS else "default", "arg": "",
                           "partition": run.partition, "sl": "sm",     # a lesson's flows: the SM's SLs
                           "metric": run.metric}        # the colouring the step's narration is about
    if run.engine in IB_ENGINES:
        out["engine"] = run.engine
    if run.transport:                                   # the step's own transport (EQDS: trims drawn)
        out["transport"] = run.transport
    name, _, arg = run.workload.partition(":")
    if name in WORKLOADS:
        out["workload"], out["arg"] = name, arg
    return out


__all__ = ["LessonOverlay", "LessonStage", "PATH_COLORS", "SWEEP_SECONDS", "traffic_controls"]
