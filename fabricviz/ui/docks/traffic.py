"""The Traffic dock: run a workload on the design and scrub its frames on the canvas.

What ``fabricviz simulate`` does, inside the editor: pick a workload
(ring all-reduce, all-to-all, permutation, shift:K, incast:N), a model
(max-min steady state or the fluid model with queues, PFC/credits and
DCQCN), a routing mode and, on InfiniBand with static routes, the subnet
manager's engine whose LFTs carry the flows; the NICs' transport (``--transport``) and, for RoCE
fluid runs, the congestion control (``--cc``) beside the model (:mod:`.traffic_transport`) — the
form of these controls is an object the dock holds (:class:`~.traffic_form.TrafficForm`,
``dock.form``); the status line says which transport the run assumed and what reordering cost
it. The engine runs in a worker thread (one run at a time, progress shown); the design is read in place, and a
result computed while it changed is thrown away. Frames are kept: the dock's
player (:class:`~.traffic_playback.FramePlayer`, ``dock.player``: slider and
play/pause) scrubs them; ``frame_changed(k)`` tells the overlay and the charts
which frame to show.

Routing and engine are live: changing either while a run is shown re-runs the
same workload, model, duration and seed with the new choice, then shows the new
run at the same instant (playing on if it was) and says what changed, e.g.
"ecmp → adaptive: rate/line mean 0.470 → 0.980". A change made during a run
waits, and only the latest one runs. ``adopt()`` shows a run computed
elsewhere (a lesson's worker) exactly as if the dock had run it.

A run on a design with unreachable hosts covers the reachable part; the status
line names who is left out and a list under it has one row per host ("srv98 —
no route from the SM's subnet"): clicking rows emits ``select_hosts(ids)`` for
the window to select them on the canvas.

The heatmap is one of the canvas overlays of the document's session: showing a
frame claims the canvas for "traffic"; when another owner (sweep, lesson,
loads) claims it, the heatmap is hidden until the run is shown again (a frame
stepped, the Traffic dock raised).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from PySide6 import QtCore, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.sim.engine import SimResult
from fabricviz.sim.partitioned import refused_line
from fabricviz.sim.reach import left_out_line
from fabricviz.sim.run import run_traffic
from fabricviz.ui.canvas.overlays.pulls import PullLegend
from fabricviz.ui.canvas.overlays.traffic import METRICS, ColorScale, LegendBar, scale_for
from fabricviz.ui.docks.traffic_form import TrafficForm
from fabricviz.ui.docks.traffic_left_out import LeftOutList
from fabricviz.ui.docks.traffic_planes import PlaneBox
from fabricviz.ui.docks.traffic_playback import FramePlayer
from fabricviz.ui.docks.traffic_sl import vl_note
from fabricviz.ui.docks.traffic_transport import needs_refresh, transport_line
from fabricviz.ui.document.document import Document
from fabricviz.ui.document.session import TrafficSetup
from fabricviz.ui.document.traffic_choice import IB_ENGINES, LEFT_OUT_ROWS, ROUTINGS, WORKLOADS, RunChoice  # noqa: F401
from fabricviz.ui.widgets.front import put_in_front


class TrafficDock(QtWidgets.QDockWidget):
    """Runs the form's choice and shows the run: status, left-out hosts, frames (its player) and
    heatmap legend; see the module doc."""

    result_ready = QtCore.Signal(object)      # SimResult (None: cleared)
    frame_changed = QtCore.Signal(int)
    scale_changed = QtCore.Signal(object)     # ColorScale
    failed = QtCore.Signal(str)
    select_hosts = QtCore.Signal(list)        # device ids of left-out hosts clicked in the list

    def __init__(self, document: Document, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Traffic", parent)
        self.setObjectName("traffic")
        self.document = document
        document.changed.connect(self._changed)
        self._running: tuple[Fabric, RunChoice, bool] | None = None   # design, choice, live
        self.runs_started = 0
        self._own_controls: dict[str, Any] | None = None   # the user's controls before a lesson's run
        self._shown: RunChoice | None = None      # the choice behind the run on show
        self._share = 0.0                         # its rate/line mean (for the live status)
        self._pending = False                     # a routing change arrived during a run
        self.result: SimResult | None = None
        self.result_fabric: Fabric | None = None
        self.scale: ColorScale | None = None
        self.error: str | None = None
        self.seconds = 0.0

        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        self.form = TrafficForm(lambda: self.document.fabric, body)   # the run's controls
        self.form.route_changed.connect(self._routing_toggled)
        lay.addWidget(self.form)

        row = QtWidgets.QHBoxLayout()
        self.run_button = QtWidgets.QPushButton("Run", body)
        self.run_button.setObjectName("traffic_run")
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QtWidgets.QPushButton("Cancel", body)
        self.cancel_button.setObjectName("traffic_cancel")
        self.cancel_button.setToolTip("stop the run (the fluid model stops at its next step)")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_run)
        self.progress = QtWidgets.QProgressBar(body)
        self.progress.setObjectName("traffic_progress")
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress, 1)
        lay.addLayout(row)
        self.status = QtWidgets.QLabel("no run yet", body)
        self._status_main: str = "no run yet"
        self._status_notes: dict[str, str] = {}
        self.status.setObjectName("traffic_status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.left_out_list = LeftOutList(body)
        self.left_out_list.picked.connect(self.select_hosts)
        lay.addWidget(self.left_out_list)
        self.planes = PlaneBox(body)              # a multi-plane run: all planes merged, or one plane
        self.planes.picked.connect(self._show_plane)
        lay.addLayout(self.planes.row)

        self.player = FramePlayer(body)           # play/pause, the frame slider and its clock
        self.player.frame_changed.connect(self.frame_changed)
        lay.addLayout(self.player.layout_row())

        row = QtWidgets.QHBoxLayout()
        row.addWidget(QtWidgets.QLabel("Colour by", body))
        self.metric_box = QtWidgets.QComboBox(self)
        self.metric_box.setObjectName("traffic_metric")
        self.metric_box.addItems(list(METRICS))
        self.metric_box.currentIndexChanged.connect(self._metric_changed)
        row.addWidget(self.metric_box, 1)
        lay.addLayout(row)
        self.legend = LegendBar(body)
        lay.addWidget(self.legend)
        self.pull_legend = PullLegend(body)      # the pull marks' row, for a run with pulls (EQDS / NDP fluid)
        lay.addWidget(self.pull_legend)
        self.result_ready.connect(self.pull_legend.set_run)
        lay.addStretch(1)
        self.setWidget(body)
        shown = document.session.traffic              # what the heatmap, charts and lossless dock follow
        self.result_ready.connect(lambda res: shown.show_run(res, self.result_fabric, self.scale))
        self.frame_changed.connect(shown.show_frame)
        self.scale_changed.connect(shown.set_scale)
        self.visibilityChanged.connect(self._visible)
        document.session.cleared.connect(self.clear)
        shown.adopt_requested.connect(self._adopt_requested)      # a lesson's runs
        shown.drop_requested.connect(self.clear)
        shown.seek_requested.connect(self.player.set_frame)
        shown.play_requested.connect(self.player.set_playing)
        shown.present_requested.connect(self._present_run)   # bound: gone with the dock
        document.session.playback_held.connect(self.player.hold)   # pictures: the clock stands still
        shown.offer_setup(self.setup)                 # Record Animation runs the controls' choice again
        self.destroyed.connect(lambda *_: shown.offer_setup(None))

    # ------------------------------------------------------------------ state
    def setup(self) -> TrafficSetup:
        """What the controls would run now (the session offers it to Record Animation)."""
        f = self.form
        return TrafficSetup(f.spec(), f.model_box.currentText(), f.routing_box.currentText(), self.metric,
                            f.choice)

    @property
    def fabric(self) -> Fabric:
        return self.document.fabric

    @property
    def running(self) -> bool:
        return self._running is not None

    @property
    def frame(self) -> int:
        """The frame on show (the player's)."""
        return self.player.frame

    @property
    def metric(self) -> str:  # type: ignore[override]  # a property: Qt's virtual QWidget.metric() keeps its C++ body
        return self.metric_box.currentText()

    def current_frame(self):
        return None if self.result is None else self.result.frames[self.frame]

    def configure(self, **controls: Any) -> None:
        """Set the controls (scripts, lessons, tests) without a live re-run; the keywords and the
        FabricError for an unknown choice are :meth:`.TrafficForm.configure`'s."""
        self.form.configure(**controls)

    def _set_status(self, text: str) -> None:
        """The status line: what happened, then any notes added since (design changed, …)."""
        self._status_main, self._status_notes = text, {}
        self.status.setText(text)

    def _note(self, key: str, text: str) -> None:
        """Add (or replace, moving it last) the note ``key`` after the status."""
        self._status_notes.pop(key, None)
        self._status_notes[key] = text
        self.status.setText(" · ".join([self._status_main, *self._status_notes.values()]))

    def _changed(self, event: Any) -> None:
        if needs_refresh(event):
            self.form.refresh()
        if self.result is not None and self.result_fabric is not None:
            self._note("changed", "the design changed since: run again")
        if self.result is not None and (event is None or self.document.fabric is not self.result_fabric):
            self.clear()                       # a new design: the run goes

    def _adopt_requested(self, result: Any, fabric: Fabric, controls: dict[str, Any]) -> None:
        self.adopt(result, fabric, **controls)

    def _present_run(self, on: bool) -> None:
        put_in_front(self, on)

    def _visible(self, visible: bool) -> None:
        """The dock came to the front with a run: its frame is shown again (the heatmap takes the canvas back)."""
        if visible and self.result is not None and not self.document.session.owns("traffic"):
            self.frame_changed.emit(self.frame)

    # ------------------------------------------------------------------ running
    def run(self) -> bool:
        """Start a run in the worker with the current controls (False when one is running or
        the controls are invalid: the reason goes to the status line)."""
        if self._running is not None:
            return False
        try:
            choice = self.form.choice()
        except FabricError as exc:
            self._fail(str(exc))
            return False
        self.player.set_playing(False)
        self._start(choice, live=False)
        return True

    def _start(self, choice: RunChoice, live: bool) -> None:
        f = self.fabric
        self._running = (f, choice, live)
        self.runs_started += 1
        self.run_button.setEnabled(False)
        self.run_button.setText("Running…")
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        if live:
            assert self.result is not None and self._shown is not None   # live: a re-run of the run on show
            tech = self.result.fabric_tech
            self._set_status(f"re-running with {self._shown.route_label(tech)} → "
                                f"{choice.route_label(tech)}…")
        else:
            self._set_status(f"running {choice.spec} ({choice.model}) on {f.name}…")
        args, kwargs = choice.args(f), choice.kwargs()
        sm = self.shared_routing(choice.engine)
        self.document.jobs.submit("traffic", lambda progress: run_traffic(*args, **kwargs, progress=progress, sm=sm),
                                  on_done=self._done, on_error=self._run_failed, on_stale=self._run_stale,
                                  on_progress=self._progress)

    def shared_routing(self, engine: str) -> Any:
        """The SM routing of this design with ``engine`` the document already has (the sweep's,
        or the inspector's minhop), so the run does not route again; None if there is none."""
        for r in self.document.routing.routings():
            if r.engine == engine and r.subnet.fabric is self.fabric:
                return r
        return None

    def _routing_toggled(self) -> None:
        """Routing or engine changed by the user: re-run the shown run with the new choice (after
        the current run, when one is going)."""
        routing, engine = self.form.routing_box, self.form.engine_box
        if self._running is not None:
            self._pending = True
            self._note("next", f"next: {routing.currentText()} ({engine.currentText()})")
            return
        self._pending = False
        if self.result is None or self._shown is None:
            return
        new = replace(self._shown, routing=routing.currentText(), engine=engine.currentText())
        tech = self.result.fabric_tech
        if new.route_label(tech) == self._shown.route_label(tech):
            if new != self._shown:            # e.g. the SM engine on RoCE: same routes, nothing to run
                self._shown = new
                self._note("same", f"same routes with {new.routing} ({new.engine}): not re-run")
            return
        self._start(new, live=True)

    def wait(self, msecs: int = -1) -> bool:
        """Block until the run is done and shown (tests)."""
        return self.document.jobs.wait("traffic", 1e9 if msecs < 0 else msecs / 1000)

    def _progress(self, x: float) -> None:
        if self._running is not None:
            self.progress.setValue(int(round(100 * x)))

    def _fail(self, text: str) -> None:
        self.error = text
        self._set_status(f"could not run: {text}")
        self.failed.emit(text)

    def _finish(self) -> tuple[Fabric, RunChoice, bool] | None:
        running, self._running = self._running, None
        self.run_button.setEnabled(True)
        self.run_button.setText("Run")
        self.cancel_button.setEnabled(False)
        return running

    def cancel_run(self) -> None:
        """Stop the run going on; the run shown before stays."""
        if self._running is None:
            return
        self.document.jobs.cancel("traffic")
        self._finish()
        self._pending = False
        self.progress.setValue(0)
        self._set_status("run cancelled")

    def _run_stale(self) -> None:
        if self._finish() is not None:
            self._fail("the design changed during the run: run again")

    def _run_failed(self, err: str) -> None:
        if self._finish() is not None:
            self._fail(err)
        if self._pending:
            self._routing_toggled()

    def _done(self, res: Any) -> None:
        running = self._finish()
        if running is None:
            return
        f, choice, live = running
        seconds = self.document.jobs.last_seconds
        if live and self.result is not None:       # same instant, same playing state
            playing = self.player.timer.isActive()
            t = self.result.frames[self.frame].time_s
            k = int(np.argmin(np.abs(np.array([fr.time_s for fr in res.frames]) - t)))
            assert self._shown is not None            # set with the result on show
            before = (self._shown.route_label(res.fabric_tech), self._share)
            self._present(res, f, choice, f"{seconds:.2f} s", k, before)
            self.player.set_playing(playing)
        else:                                      # a fresh run opens where the story is: its last frame,
            self._present(res, f, choice, f"{seconds:.2f} s", len(res.frames) - 1)   # in the steady part
        self.seconds = seconds
        if self._pending:
            self._routing_toggled()

    def _show_plane(self, res: SimResult) -> None:
        """The plane box picked a view of the multi-plane run on show: present it at the same instant."""
        if self.result is None or self._shown is None or self.result_fabric is None:
            return
        t = self.result.frames[self.frame].time_s
        k = int(np.argmin(np.abs(np.array([fr.time_s for fr in res.frames]) - t)))
        self._present(res, self.result_fabric, self._shown, "per plane", k)

    def adopt(self, result: Any, fabric: Fabric, **controls: Any) -> None:
        """Show ``result`` (a SimResult computed elsewhere, e.g. a lesson's worker, on ``fabric``)
        exactly as if the dock had run it; ``controls`` (``configure``'s keywords) set the
        controls to what produced it, without a re-run. A run going on is abandoned."""
        if not getattr(result, "frames", None):
            raise FabricError("traffic: adopt needs a run with frames")
        if self._own_controls is None:          # the user's settings come back after the lesson
            self._own_controls = {**self.form.controls(), "metric": self.metric}
        metric = controls.pop("metric", None)  # the step's colouring (its narration is about it)
        if metric is not None:
            self._set_metric(metric)
        self.configure(**{"transport": "default", **controls, "model": result.model})
        if self._running is not None:          # its result is ignored when it arrives
            self.document.jobs.cancel("traffic")
            self._finish()
        self._pending = False
        self.player.set_playing(False)
        try:
            duration = self.form.choice().duration_s
        except FabricError:                    # an unreadable duration text: the run's own length
            duration = round(result.fluid.end_s, 12) if result.fluid is not None else 10e-3
        form = self.form
        choice = RunChoice(form.spec(), result.model, form.routing_box.currentText(),
                           form.engine_box.currentText(), duration, form.seed_box.value())
        self._present(result, fabric, choice, "precomputed")

    def _present(self, res: Any, f: Fabric, choice: RunChoice, took: str, k: int = 0,
                 before: tuple[str, float] | None = None) -> None:
        """Make ``res`` the run on show at frame ``k``: status (what changed from ``before``,
        the routing and rate/line mean shown, when given), legend, slider, signals."""
        self.error = None
        self.progress.setValue(100)
        self.planes.load(res)
        self.result, self.result_fabric, self._shown = res, f, choice
        s = res.summary(f)
        self._share, low = s["rate_share"]["mean"], s["rate_share"]["min"]
        if before is None:
            text = (f"{s['flows']} flows, {s['routing']} routing, {s['model']} on {s['fabric']} · "
                    f"{len(res.frames)} frame(s) · rate/line mean {self._share:.3f} (min {low:.3f}) · {took}")
        else:
            text = (f"{before[0]} → {choice.route_label(res.fabric_tech)}: rate/line mean {before[1]:.3f} → "
                    f"{self._share:.3f} (min {low:.3f}) · {s['flows']} flows, {s['model']} on {s['fabric']} · "
                    f"{len(res.frames)} frame(s) · {took}")
        if "paused_link_count" in s:
            text += f" · {s['paused_link_count']} link(s) paused"
        if getattr(res, "refused", ()):         # flows the partition does not allow
            text += f" · {refused_line(res.refused, f)}"
        text += vl_note(res) + (f" · {transport_line(s)}" if "transport" in s else "") + self.planes.note()
        left = left_out_line(getattr(res, "left_out", ()))
        if left:                               # the run covers the reachable part; say who is not in it
            text += f" · {left}"
        self._set_status(text)
        self._list_left_out(getattr(res, "left_out", ()))
        self.scale = scale_for(self.metric, res.frames)
        self.legend.set_scale(self.scale)
        k = max(0, min(int(k), len(res.frames) - 1))
        self.player.load(res.frames, k)
        self.result_ready.emit(res)
        self.scale_changed.emit(self.scale)
        self.player.show(k)

    def clear(self) -> None:
        """Forget the run (the window opened another design); controls a lesson set (adopt)
        go back to the user's own."""
        own, self._own_controls = self._own_controls, None
        metric = own.pop("metric") if own is not None else None
        if own is not None:
            self.form.restore(own)
        self.player.set_playing(False)
        self.form.refresh()
        self.result = self.result_fabric = self._shown = None
        self.planes.clear()
        if metric is not None:                 # the user's own colouring, after a lesson's
            self._set_metric(metric)
        self._pending = False
        self.scale = None
        self.legend.set_scale(None)
        self.player.clear()
        self.progress.setValue(0)
        self._set_status("no run yet")
        self._list_left_out(())
        self.result_ready.emit(None)

    # ------------------------------------------------------------------ left-out hosts
    def _list_left_out(self, left_out) -> None:
        """One row per host left out of the run (hidden when none)."""
        self.left_out_list.show_hosts(left_out)

    def left_out_rows(self) -> list[str]:
        """The left-out list's rows as shown."""
        return self.left_out_list.rows()

    def _set_metric(self, metric: str) -> None:
        """Colour by ``metric`` (a lesson step's, or the user's back), quietly: the run shown next
        takes its scale from it."""
        k = self.metric_box.findText(metric)
        if k < 0:
            raise FabricError(f"traffic colour {metric!r}: use "
                              + ", ".join(self.metric_box.itemText(i) for i in range(self.metric_box.count())))
        self.metric_box.blockSignals(True)
        self.metric_box.setCurrentIndex(k)
        self.metric_box.blockSignals(False)
        if self.result is not None:
            self._metric_changed()

    def _metric_changed(self) -> None:
        if self.result is None:
            return
        self.scale = scale_for(self.metric, self.result.frames)
        self.legend.set_scale(self.scale)
        self.scale_changed.emit(self.scale)
        self.player.show(self.frame)


__all__ = ["IB_ENGINES", "ROUTINGS", "TrafficDock", "WORKLOADS"]
