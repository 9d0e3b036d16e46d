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
* route and credit-loop steps: routes per port (:mod:`fabricviz.ui.canvas.overlays.loads`);
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
  trials (:mod:`.stage_docks`).

The stage claims the canvas (``session.claim("lesson")``) for each step it shows, then
drives the docks (which claim it for their sweep or heatmap, drawn under the lesson's
marks); another claim made outside a step (the user's own run, sweep or loads) drops
the lesson's marks.

Stepping back shows the earlier step's fabric and state. Once the user edits
the design the canvas stops following (nothing they did is replaced).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lesson_results import StepResult, TracedPath, TrafficRun
from fabricviz.model import Fabric
from fabricviz.ui.canvas.items.cables import cable_anchors
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.document.document import Document

if TYPE_CHECKING:
    from fabricviz.sim.engine import SimResult
    from fabricviz.ui.canvas.legend import Row
    from fabricviz.ui.docks.sweep import SweepDock
    from fabricviz.ui.docks.traffic import TrafficDock
    from fabricviz.ui.lessons.dock import LessonDock, Presentation

#: Traced path colours (first path on top); the first matches the sweep dock's trace.
PATH_COLORS = ("#15aabf", "#f76707", "#ae3ec9")
PATH_WIDTHS = (6.0, 10.0, 14.0)        # later paths wider and underneath, so shared cables show each colour
OLD_PATH_COLOR = "#868e96"
GHOST_COLOR = "#e03131"
ADDED_COLOR = "#37b24d"
LOOP_COLOR = "#fa5252"
#: Wall seconds a sweep step takes to play on the canvas.
SWEEP_SECONDS = 3.0
Z = 6.0


def _pen(color: str, width: float, style=QtCore.Qt.PenStyle.SolidLine) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setCosmetic(True)
    pen.setWidthF(width)
    pen.setStyle(style)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    return pen


def _polyline(fabric: Fabric, cables: tuple[int, ...]) -> QtGui.QPainterPath:
    """The cables in order, each walked from the end nearer the previous one."""
    path = QtGui.QPainterPath()
    ok = [int(c) for c in cables if fabric.cables_t.exists(int(c))]
    if not ok:
        return path
    ax, ay, bx, by = cable_anchors(fabric, np.asarray(ok, np.int64))
    last = None
    for i in range(len(ok)):
        a, b = QtCore.QPointF(ax[i], ay[i]), QtCore.QPointF(bx[i], by[i])
        if last is not None and QtCore.QLineF(last, b).length() < QtCore.QLineF(last, a).length():
            a, b = b, a
        if last is None or QtCore.QLineF(last, a).length() > 1e-6:
            path.moveTo(a) if last is None else path.lineTo(a)
        path.lineTo(b)
        last = b
    return path


class LessonOverlay:
    """Path items and labels over the scene for one lesson step; ``drawn`` says what is shown."""

    def __init__(self, scene: QtWidgets.QGraphicsScene) -> None:
        self.scene = scene
        self.items: list[QtWidgets.QGraphicsItem] = []
        self.paused_items: list[QtWidgets.QGraphicsItem] = []
        self.drawn: dict[str, Any] = {}

    def clear(self) -> None:
        for item in self.items + self.paused_items:
            if item.scene() is not None:
                item.scene().removeItem(item)
        self.items, self.paused_items = [], []
        self.drawn = {}

    def show_paused(self, fabric: Fabric | None, cables: tuple[int, ...]) -> None:
        """Draw the traffic heatmap's paused mark on ``cables`` of ``fabric`` (none: no marks)."""
        for item in self.paused_items:
            if item.scene() is not None:
                item.scene().removeItem(item)
        self.paused_items = []
        if self.drawn:
            self.drawn["paused"] = ()
        if fabric is None or not cables:
            return
        from fabricviz.ui.canvas.overlays.traffic import paused_pens
        path = _polyline_each(fabric, cables)
        for z, pen in zip((0.05, 0.06), paused_pens()):
            item = self._add_path(path, pen, z)
            self.items.remove(item)
            self.paused_items.append(item)
        self.drawn["paused"] = tuple(int(c) for c in cables if fabric.cables_t.exists(int(c)))

    def _add_path(self, path: QtGui.QPainterPath, pen: QtGui.QPen, z: float) -> QtWidgets.QGraphicsPathItem:
        item = QtWidgets.QGraphicsPathItem(path)
        item.setPen(pen)
        item.setZValue(Z + z)
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, "lesson_overlay")
        self.scene.addItem(item)
        self.items.append(item)
        return item

    def _add_label(self, text: str, x: float, y: float, color: str,
                   scale: float = 1.1) -> QtWidgets.QGraphicsSimpleTextItem:
        t = QtWidgets.QGraphicsSimpleTextItem(text)
        f = t.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * scale)
        t.setFont(f)
        t.setBrush(QtGui.QBrush(QtGui.QColor(color)))
        t.setPen(_pen("#ffffff", 0.0))
        t.setZValue(Z + 1.0)
        t.setPos(x, y)
        t.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        t.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        t.setData(2, "lesson_overlay")
        self.scene.addItem(t)
        self.items.append(t)
        return t

    def show(self, fabric: Fabric, paths: Sequence[TracedPath], old_path: TracedPath | None = None,
             before: Fabric | None = None, ghosts: tuple[int, ...] = (), added: tuple[int, ...] = (),
             loop: tuple[int, ...] = ()) -> None:
        """Draw ``paths`` on ``fabric``; ``old_path`` and ``ghosts`` (cable ids) on ``before``
        (the fabric before a cable was pulled or moved)."""
        self.clear()
        paths = list(paths)
        self.drawn = {"paths": [tuple(p.cables) for p in paths], "old_path": (), "ghosts": tuple(ghosts),
                      "added": tuple(added), "loop": tuple(loop), "labels": [], "paused": ()}
        if old_path is not None and before is not None:
            self.drawn["old_path"] = tuple(old_path.cables)
            self._add_path(_polyline(before, tuple(old_path.cables)),
                           _pen(OLD_PATH_COLOR, 4.0, QtCore.Qt.PenStyle.DashLine), 0.0)
        for i, p in reversed(list(enumerate(paths[:len(PATH_COLORS)]))):
            self._add_path(_polyline(fabric, tuple(p.cables)), _pen(PATH_COLORS[i], PATH_WIDTHS[i]), 0.3 - 0.1 * i)
        self._hop_labels(fabric, paths[:len(PATH_COLORS)])
        if loop:
            path = _polyline(fabric, tuple(loop))
            path.closeSubpath()
            self._add_path(path, _pen(LOOP_COLOR, 7.0), 0.4)
        if added:
            self._add_path(_polyline_each(fabric, added), _pen(ADDED_COLOR, 7.0), 0.5)
        if ghosts and before is not None:
            self._add_path(_polyline_each(before, ghosts), _pen(GHOST_COLOR, 5.0, QtCore.Qt.PenStyle.DashLine), 0.6)
            ax, ay, bx, by = cable_anchors(before, np.asarray(ghosts, np.int64))
            for i in range(len(ghosts)):
                self._add_label("✕", float(ax[i] + bx[i]) / 2 - 10, float(ay[i] + by[i]) / 2 - 16, GHOST_COLOR, 2.2)

    def _hop_labels(self, fabric: Fabric, paths: list[TracedPath]) -> None:
        """``[in]→[out]`` next to each switch of each path (stacked when paths share a switch)."""
        seen: dict[str, int] = {}
        for i, p in enumerate(paths):
            for sw, pin, pout in p.hops:
                d = fabric.find(sw)
                if d is None:
                    continue
                k = seen.get(sw, 0)
                seen[sw] = k + 1
                n = max(int(fabric.devices_t.nports[d]), 1)
                half = float(np.clip(n * 1.5, 48.0, 120.0)) / 2
                text = f"[{pin}]→[{pout}]"
                self._add_label(text, float(fabric.devices_t.x[d]) + half + 6,
                                float(fabric.devices_t.y[d]) - 10 + 16 * k, PATH_COLORS[i])
                self.drawn["labels"].append((sw, text))


def _polyline_each(fabric: Fabric, cables: tuple[int, ...]) -> QtGui.QPainterPath:
    """Each cable as its own segment (not joined)."""
    path = QtGui.QPainterPath()
    ok = [int(c) for c in cables if fabric.cables_t.exists(int(c))]
    if ok:
        ax, ay, bx, by = cable_anchors(fabric, np.asarray(ok, np.int64))
        for i in range(len(ok)):
            path.moveTo(ax[i], ay[i])
            path.lineTo(bx[i], by[i])
    return path


class LessonStage(QtCore.QObject):
    """Drives the canvas, the Subnet Manager dock and the Traffic dock from the lesson dock's step."""

    following_changed = QtCore.Signal(bool)

    def __init__(self, document: Document, scene: FabricScene, dock: LessonDock, sweep: SweepDock,
                 traffic: TrafficDock, charts: QtWidgets.QDockWidget, presentation: Presentation,
                 status: Callable[[str], None], collectives: Any = None, whatif: Any = None) -> None:
        super().__init__(dock)
        self.document, self.editor, self.dock = document, document.editor, dock
        self.sweep, self.traffic, self.charts, self.presentation = sweep, traffic, charts, presentation
        self.status = status
        self.overlay = LessonOverlay(scene)
        from fabricviz.ui.canvas.overlays.loads import LoadOverlay
        self.loads = LoadOverlay(scene)      # route / check_loops steps: routes per port
        from fabricviz.ui.canvas.overlays.partitions import PartitionMarks, marks_of
        self.marks = marks_of(scene) or PartitionMarks(document, scene, status)   # partition steps
        self.scene = scene
        from fabricviz.ui.lessons.stage_docks import LessonDocks
        self.docks = LessonDocks(document, scene, collectives, whatif, presentation) \
            if collectives is not None and whatif is not None else None   # collective / whatif steps
        self._vl: Any = None                   # VL layer steps: the window's VL layers (vl_layers)
        self.owned: Fabric | None = None       # the design the stage put on the canvas
        self.shown = -1
        self.sweep_seconds = SWEEP_SECONDS
        self._traffic_result: SimResult | None = None   # the run the stage gave the Traffic dock
        self._traffic_run: TrafficRun | None = None
        self._setting = False
        self._driving = False                  # the stage is driving the sweep/traffic docks
        dock.ready.connect(self._ready)
        dock.step_changed.connect(self._step)
        document.replaced.connect(self._replaced)
        document.session.cleared.connect(self.stop)
        document.session.overlay_changed.connect(self._overlay_changed)
        traffic.frame_changed.connect(self._traffic_frame)

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
        if self.docks is not None:
            self.docks.leave()
        if self.sweep.pinned:
            self.sweep.release()
        if self._traffic_result is not None and self.traffic.result is self._traffic_result:
            self.traffic.clear()
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
        if self.dock.results:
            self.show(self.dock.k, animate=True)

    def _step(self, k: int) -> None:
        self.show(k, animate=k == self.shown + 1)

    def show(self, k: int, animate: bool = False) -> bool:
        """Show step ``k`` (0-based) on the canvas; False when the canvas no longer follows."""
        results = self.dock.results
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
        if self.docks is not None:
            self.docks.show(step)
        if step.action in ("route", "check_loops") and step.routing is not None and step.layers is None:
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
                sweep.release()
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
                traffic.clear()
            self._traffic_result = self._traffic_run = None
            self.dock.legend.hide()
            return
        res = run.result
        if traffic.result is not res:
            traffic.adopt(res, fab, **traffic_controls(run))
        if not self.presentation.active:        # its legend and frame slider, beside the lesson
            traffic.show()
            traffic.raise_()
        else:                     # presentation: the canvas and the lesson only (its own legend)
            traffic.hide()
            self.charts.hide()
        self._traffic_result, self._traffic_run = res, run
        self.dock.legend.set_scale(traffic.scale)
        self.dock.legend.show()
        if len(res.frames) > 1 and animate:
            traffic.set_frame(0)
            traffic.set_playing(True)
        else:                     # (set_frame draws the frame again after the lesson's claim)
            traffic.set_playing(False)
            traffic.set_frame(len(res.frames) - 1)

    def _traffic_frame(self, k: int) -> None:
        """The Traffic dock shows frame ``k``: in the run's steady part, mark every cable the run paused."""
        run, traffic = self._traffic_run, self.traffic
        if run is None or traffic.result is not run.result or not self.overlay.drawn:
            self.overlay.show_paused(None, ())
            return
        frames = run.result.frames
        steady = float(run.summary.get("steady_from_s", 0.0))
        on = bool(run.paused_cables) and 0 <= k < len(frames) and frames[k].time_s >= steady
        if on != bool(self.overlay.drawn.get("paused")):
            self.overlay.show_paused(traffic.result_fabric if on else None, run.paused_cables if on else ())

    def finish(self) -> None:
        """Jump every running animation to its end (screenshots, tests)."""
        self.sweep.finish_play()
        traffic = self.traffic
        if traffic.result is not None and traffic.result is self._traffic_result:
            traffic.set_playing(False)
            traffic.set_frame(len(traffic.result.frames) - 1)

    def legend_rows(self) -> list[Row]:
        """Legend rows (label, colour, "line") for what the overlay draws now (pictures)."""
        rows: list[Row] = []
        results = self.dock.results or []
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
            if self.docks is not None:
                rows += self.docks.legend_rows()
        sweep = self.sweep
        if sweep.pinned and sweep.overlay.active:
            from fabricviz.ui.canvas.overlays.sweep import DISCOVERED_COLOR, STATE_COLORS
            rows.append(("discovered by the SM", QtGui.QColor(DISCOVERED_COLOR), "line"))
            rows += [(f"port {name}", QtGui.QColor(c), "rect") for name, c in STATE_COLORS.items()]
        traffic = self.traffic
        if traffic.result is not None and traffic.result is self._traffic_result:
            from fabricviz.ui.canvas.export import heat_rows
            rows += heat_rows(traffic.scale)
        return rows


def traffic_controls(run: TrafficRun) -> dict[str, Any]:
    """The Traffic dock's controls (``TrafficDock.configure`` keywords) for a lesson's run; an
    explicit flow list has no workload name there: the argument is emptied, the name kept."""
    from fabricviz.ui.docks.traffic import IB_ENGINES, ROUTINGS, WORKLOADS
    out: dict[str, Any] = {"model": run.model, "duration": f"{run.duration_ms:g}ms", "seed": run.seed,
                           "routing": run.routing if run.routing in ROUTINGS else "default", "arg": "",
                           "partition": run.partition, "sl": "sm"}     # a lesson's flows: the SM's SLs
    if run.engine in IB_ENGINES:
        out["engine"] = run.engine
    name, _, arg = run.workload.partition(":")
    if name in WORKLOADS:
        out["workload"], out["arg"] = name, arg
    return out


__all__ = ["LessonOverlay", "LessonStage", "PATH_COLORS", "SWEEP_SECONDS", "traffic_controls"]
