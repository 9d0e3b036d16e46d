"""What the window shows of one design beyond the design itself: which overlay owns the canvas
(SM sweep, traffic heatmap, lesson marks, port loads), the sweep and the traffic run on show,
and the reset when another design opens.

Owners claim the canvas with :meth:`Session.claim`; everyone else hides theirs on
``overlay_changed`` (so a sweep's traced path never stays drawn over a traffic heatmap).
:meth:`reset` (called by the document when another design is opened or created) emits
``cleared``: each dock drops its run, lesson, overlay and selection.

What one dock shows that others follow is typed state here, with signals, so docks never hold
each other:

- :attr:`Session.sweep` (:class:`SweepShown`): the Subnet Manager dock's engine and the step of
  the sweep it shows (the inspector follows the step, Record Animation starts at the engine);
- :attr:`Session.traffic` (:class:`TrafficShown`): the Traffic dock's run on show, its design,
  frame and colour scale (the heatmap, the Charts dock and the Lossless dock follow it), and what
  its controls would run now (:class:`TrafficSetup`: Record Animation runs it again);
- :attr:`Session.lesson` (:class:`LessonShown`): the lesson open in the Lessons dock, its
  results and the step shown (the lesson stage follows the step, Record Animation records it);
- :attr:`Session.collectives` (:class:`CollectivesShown`) and :attr:`Session.whatif`
  (:class:`WhatifShown`): a lesson's collective curves and what-if trials, which the Collectives
  and What-if docks show with their controls set to the step's (:class:`CollectiveControls`,
  :class:`WhatifControls`); the What-if dock tells the trial it draws on the canvas;
- :attr:`Session.diff` (:class:`~fabricviz.ui.document.diff_shown.DiffShown`): the comparison with
  a discovered fabric on show, listed by the Differences dock and drawn by the diff overlay.
- :attr:`Session.counters` (:class:`~.counters_shown.CountersShown`): port counters files read
  and their report on the design, which the Port Counters dock lists and View ▸ Colour by draws.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from PySide6 import QtCore

from fabricviz.anim.lesson_collective import CollectiveCurve
from fabricviz.anim.lesson_results import StepResult
from fabricviz.anim.lesson_whatif import WhatifStep
from fabricviz.anim.sweep_timeline import SweepStep
from fabricviz.model import Fabric
from fabricviz.ui.document.counters_shown import CountersShown
from fabricviz.ui.document.diff_shown import DiffShown
from fabricviz.ui.document.traffic_choice import RunChoice

#: The canvas overlays, by owner.
OVERLAYS = ("sweep", "traffic", "lesson", "loads")
#: The SM engine before the Subnet Manager dock says otherwise.
DEFAULT_ENGINE = "minhop"


class SweepShown(QtCore.QObject):
    """The SM sweep on show: the engine chosen in the Subnet Manager dock, the step it shows,
    whether it shows a sweep computed elsewhere (``pinned``: a lesson's) and whether its overlay
    is on the canvas (``drawn``).

    A lesson shows its sweeps through :meth:`adopt`, :meth:`play_until`, :meth:`finish_play` and
    :meth:`drop`: the Subnet Manager dock does what they ask (``*_requested``)."""

    engine_changed = QtCore.Signal(str)
    step_changed = QtCore.Signal(object)      # SweepStep while a sweep shows, else None
    adopt_requested = QtCore.Signal(object, int)    # a SweepTimeline computed elsewhere, the step
    play_requested = QtCore.Signal(int, float)      # play on to step i in about s wall seconds
    finish_requested = QtCore.Signal()
    drop_requested = QtCore.Signal()

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.engine = DEFAULT_ENGINE
        self.step: SweepStep | None = None
        self.pinned = False
        self.drawn = False

    def adopt(self, timeline: Any, index: int) -> None:
        """Show ``timeline`` (a lesson's sweep) at step ``index``, as if the dock had run it."""
        self.adopt_requested.emit(timeline, int(index))

    def play_until(self, i: int, seconds: float) -> None:
        self.play_requested.emit(int(i), float(seconds))

    def finish_play(self) -> None:
        """Jump a playing sweep to where it was going."""
        self.finish_requested.emit()

    def drop(self) -> None:
        """Drop the adopted sweep."""
        self.drop_requested.emit()

    def set_engine(self, engine: str) -> None:
        if engine != self.engine:
            self.engine = engine
            self.engine_changed.emit(engine)

    def show_step(self, step: SweepStep | None) -> None:
        """The sweep's step now on show (None: no sweep shows)."""
        self.step = step
        self.step_changed.emit(step)


@dataclass(frozen=True)
class TrafficSetup:
    """What the Traffic dock's controls would run now: the workload as ``simulate`` spells it, the
    model, the routing and what the heatmap colours by (words for a person), and ``choice()``, the
    run itself (FabricError for a duration that does not parse)."""

    spec: str
    model: str
    routing: str
    metric: str
    choice: Callable[[], RunChoice]


class TrafficShown(QtCore.QObject):
    """The traffic run on show: a SimResult on its design, the frame shown and the colour scale.

    The Traffic dock tells (:meth:`show_run`, :meth:`show_frame`, :meth:`set_scale`); a lesson
    shows its runs through :meth:`adopt`, :meth:`drop`, :meth:`seek`, :meth:`play` and
    :meth:`present`, which the Traffic (and Charts) dock do (``*_requested``)."""

    run_changed = QtCore.Signal(object)       # the SimResult (None: cleared)
    frame_changed = QtCore.Signal(int)
    scale_changed = QtCore.Signal(object)     # ColorScale
    adopt_requested = QtCore.Signal(object, object, object)   # SimResult, its Fabric, the controls (dict)
    drop_requested = QtCore.Signal()
    seek_requested = QtCore.Signal(int)
    play_requested = QtCore.Signal(bool)
    present_requested = QtCore.Signal(bool)   # the run's docks in front (True) or hidden (presentation)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.result: Any = None
        self.fabric: Fabric | None = None
        self.frame = 0
        self.scale: Any = None
        self._setup: Callable[[], TrafficSetup] | None = None

    def offer_setup(self, read: Callable[[], TrafficSetup] | None) -> None:
        """The Traffic dock tells how its controls are read (None: it is gone)."""
        self._setup = read

    def setup(self) -> TrafficSetup | None:
        """What the Traffic dock's controls would run now (None without a Traffic dock)."""
        return self._setup() if self._setup is not None else None

    def show_run(self, result: Any, fabric: Fabric | None, scale: Any = None) -> None:
        """``result`` (run on ``fabric``) is on show now, or nothing (None)."""
        self.result = result
        self.fabric = fabric if result is not None else None
        self.scale = scale if result is not None else None
        self.frame = 0
        self.run_changed.emit(result)

    def show_frame(self, k: int) -> None:
        """Frame ``k`` of the run is on show (told again when shown again)."""
        self.frame = int(k)
        self.frame_changed.emit(self.frame)

    def set_scale(self, scale: Any) -> None:
        self.scale = scale
        self.scale_changed.emit(scale)

    def current_frame(self) -> Any:
        """The frame on show (None without a run)."""
        return None if self.result is None else self.result.frames[self.frame]

    def adopt(self, result: Any, fabric: Fabric, controls: dict[str, Any]) -> None:
        """Show ``result`` (a lesson's run on ``fabric``) as if the Traffic dock had run it with
        ``controls`` (``TrafficDock.configure``'s keywords)."""
        self.adopt_requested.emit(result, fabric, dict(controls))

    def drop(self) -> None:
        """Forget the run on show."""
        self.drop_requested.emit()

    def seek(self, k: int) -> None:
        self.seek_requested.emit(int(k))

    def play(self, on: bool) -> None:
        self.play_requested.emit(bool(on))

    def present(self, on: bool) -> None:
        self.present_requested.emit(bool(on))


class LessonShown(QtCore.QObject):
    """The lesson open in the Lessons dock: the lesson, its engines' results (None while they
    run) and the step shown (0-based)."""

    ready = QtCore.Signal()                   # the engines finished (results, or none after an error)
    step_changed = QtCore.Signal(int)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.lesson: Any = None                   # a fabricviz.anim.lessons.Lesson
        self.results: list[StepResult] | None = None
        self.step = 0

    def open(self, lesson: Any) -> None:
        """``lesson`` is open at its first step; its engines run (None: no lesson)."""
        self.lesson, self.results, self.step = lesson, None, 0

    def deliver(self, results: list[StepResult] | None) -> None:
        self.results = results
        self.ready.emit()

    def show_step(self, k: int) -> None:
        self.step = int(k)
        self.step_changed.emit(self.step)


@dataclass(frozen=True)
class CollectiveControls:
    """What the Collectives dock's controls say for a run computed elsewhere (Run repeats it): the
    op and algorithm as the engine names them, the sizes as typed (``8B:8GiB:x2``) and the GPUs
    (``all`` or a count, the first N in ring order)."""

    op: str
    algo: str
    sizes: str
    gpus: str


class CollectivesShown(QtCore.QObject):
    """A lesson's collective curves: :meth:`show_runs` has the Collectives dock plot exactly them
    (the first is the design on the canvas, the others compared) with its controls set to
    ``controls``; :meth:`present` brings it in front (True) or hides it (``*_requested``)."""

    runs_requested = QtCore.Signal(object, object)   # tuple of CollectiveCurve, CollectiveControls
    present_requested = QtCore.Signal(bool)

    def show_runs(self, runs: tuple[CollectiveCurve, ...], controls: CollectiveControls) -> None:
        self.runs_requested.emit(tuple(runs), controls)

    def present(self, on: bool) -> None:
        self.present_requested.emit(bool(on))


@dataclass(frozen=True)
class WhatifControls:
    """What the What-if dock's controls say for trials computed elsewhere (Run repeats them): the
    failure kind (``switches-of:spine``), the K values and trials per K (unused in worst mode),
    the metric, the seed and whether the single failures are ranked (``worst``)."""

    kind: str
    ks: tuple[int, ...]
    trials: int
    metric: str
    seed: int
    worst: bool


class WhatifShown(QtCore.QObject):
    """A lesson's what-if trials, and the trial the What-if dock draws on the canvas.

    :meth:`show_trials` has the dock show a :class:`~fabricviz.anim.lesson_whatif.WhatifStep` as a
    finished run of its own with its controls set to ``controls`` and the table's row ``row`` on the
    canvas (None: none); :meth:`show_row` shows another row, :meth:`present` brings the dock in
    front or hides it (``*_requested``). The dock tells the trial it draws (:meth:`show_trial`:
    its cables and the line naming it, e.g. ``#1: spine01 down; 0 hosts cut off``)."""

    trials_requested = QtCore.Signal(object, object, object)   # WhatifStep, WhatifControls, row (int | None)
    row_requested = QtCore.Signal(object)                      # int | None
    present_requested = QtCore.Signal(bool)
    trial_changed = QtCore.Signal()

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.cables: tuple[int, ...] = ()      # the failed cables drawn on the canvas
        self.line = ""                         # the line naming that trial ("" for none)

    def show_trials(self, run: WhatifStep, controls: WhatifControls, row: int | None = None) -> None:
        self.trials_requested.emit(run, controls, row)

    def show_row(self, row: int | None) -> None:
        self.row_requested.emit(row)

    def present(self, on: bool) -> None:
        self.present_requested.emit(bool(on))

    def show_trial(self, cables: tuple[int, ...], line: str) -> None:
        """The What-if dock draws ``cables`` (a trial's failure) named by ``line`` (none: (), "")."""
        self.cables, self.line = tuple(int(c) for c in cables), line
        self.trial_changed.emit()


class Session(QtCore.QObject):
    """The shown state of one document."""

    overlay_changed = QtCore.Signal(str)    # the owner now drawing ("" for none)
    cleared = QtCore.Signal()
    playback_held = QtCore.Signal(bool)     # True: clocks stand still (a picture is drawn); False: go on

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.overlay = ""
        self.resets = 0
        self.sweep = SweepShown(self)
        self.traffic = TrafficShown(self)
        self.lesson = LessonShown(self)
        self.collectives = CollectivesShown(self)
        self.whatif = WhatifShown(self)
        self.counters = CountersShown(self)      # port counters files, their report, the canvas colouring
        self.cleared.connect(self.counters.clear)
        self.diff = DiffShown(self)

    def claim(self, owner: str) -> None:
        """``owner`` draws on the canvas now; the others hide theirs."""
        if owner not in OVERLAYS:
            raise ValueError(f"unknown overlay owner {owner!r}")
        if owner != self.overlay:
            self.overlay = owner
            self.overlay_changed.emit(owner)

    def release(self, owner: str) -> None:
        if self.overlay == owner:
            self.overlay = ""
            self.overlay_changed.emit("")

    def owns(self, owner: str) -> bool:
        return self.overlay == owner

    @contextmanager
    def held(self) -> Iterator[None]:
        """Every dock's playback (the Traffic dock's frames, the Subnet Manager dock's sweep) stands
        still inside while a picture is drawn (events run between its bands: a playing clock would
        give its bands different frames), and plays on afterwards."""
        self.playback_held.emit(True)
        try:
            yield
        finally:
            self.playback_held.emit(False)

    def reset(self) -> None:
        """Forget everything shown (another design was opened)."""
        self.resets += 1
        self.overlay = ""
        self.diff.clear()
        self.cleared.emit()
        self.overlay_changed.emit("")


__all__ = ["DEFAULT_ENGINE", "CollectiveControls", "CollectivesShown", "LessonShown", "OVERLAYS", "Session",
           "SweepShown", "TrafficShown", "WhatifControls", "WhatifShown"]
