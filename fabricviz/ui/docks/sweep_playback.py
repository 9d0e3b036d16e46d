"""The Subnet Manager dock's clock: play / pause, Step, Step phase, Reset, the speed, "Pause at
phase end", the slider and ``play_until``.

:class:`SweepPlayer` is an object the :class:`~fabricviz.ui.docks.sweep.SweepDock` holds
(``dock.player``): a QTimer plays the SM's events at a pace a class can follow (1× =
:data:`EVENTS_PER_SECOND` events per wall second; the speed box goes up to 1000× for big
fabrics), the slider scrubs to any step, Step shows one event, Step phase jumps to the next
OpenSM phase, and "Pause at phase end" (ticked by default) stops after each phase for teaching.
It picks steps; the dock shows them (:meth:`SweepSteps.show_step`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from PySide6 import QtCore, QtWidgets

from fabricviz.ui.widgets.playback import SessionHold

SPEEDS = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 25.0, 100.0, 1000.0)
#: SM events shown per wall second at 1×: a pace a class can follow and the teacher can talk over.
EVENTS_PER_SECOND = 3.0
#: a whole sweep plays in about this long at the speed picked for it (a big fabric's 3,754 steps
#: would take ~20 minutes at 1×); small sweeps keep 1×.
FULL_SWEEP_S = 60.0
TICK_MS = 33
SPEED_TIP = (f"1× = {EVENTS_PER_SECOND:g} SM events per second, a pace a class can follow (with "
             "\"Pause at phase end\" the clock stops after each OpenSM phase); 5×–1000× for the impatient "
             "and for big fabrics. The status line shows the SM's own model time of each step.")


def default_speed(n_steps: int) -> float:
    """The speed a sweep of ``n_steps`` events starts at: the slowest of :data:`SPEEDS` from 1×
    up that plays it whole in at most about :data:`FULL_SWEEP_S` (the fastest one for huge sweeps)."""
    for s in SPEEDS:
        if s >= 1.0 and n_steps / (s * EVENTS_PER_SECOND) <= FULL_SWEEP_S * 1.25:
            return s
    return SPEEDS[-1]


def time_left_text(seconds: float) -> str:
    """"0:50 left", "21:52 left" — the wall time the rest of a sweep takes at the speed shown."""
    s = int(round(max(seconds, 0.0)))
    return f"{s // 60}:{s % 60:02d} left"


class SweepSteps(Protocol):
    """What the clock uses of the dock that holds it (:class:`~fabricviz.ui.docks.sweep.SweepDock`)."""

    timeline: Any              # the SweepTimeline loaded (None: no sweep)
    index: int                 # the step shown

    def show_step(self, i: int) -> None: ...


class SweepPlayer(QtCore.QObject):
    """Clock and transport controls of one SweepDock; the widgets are laid out by the dock."""

    def __init__(self, dock: SweepSteps, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.dock = dock
        self._pos = 0.0                       # the clock, in events (fractional between ticks)
        self._stop_at: int | None = None      # play_until's target step
        self._rate: float | None = None       # play_until's speed (× real time), instead of the speed box
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(self._tick)
        self._wall = QtCore.QElapsedTimer()
        self._session_hold = SessionHold(self.held)

        def button(name: str, text: str, tip: str, slot: Any) -> QtWidgets.QPushButton:
            b = QtWidgets.QPushButton(text, parent)
            b.setObjectName(name)
            b.setToolTip(tip)
            b.clicked.connect(slot)
            return b
        self.play_button = button("sweep_play", "Play", "play / pause the SM clock (Space)", self.toggle_play)
        self.step_button = button("sweep_step", "Step", "show the next event (Right)", self.step)
        self.phase_button = button("sweep_phase", "Step phase", "jump to the next OpenSM phase (Shift+Right)",
                                   self.step_phase)
        self.reset_button = button("sweep_reset", "Reset", "back to the first event", lambda: dock.show_step(0))
        self.speed_box = QtWidgets.QComboBox(parent)
        self.speed_box.setObjectName("sweep_speed")
        for s in SPEEDS:
            self.speed_box.addItem(f"{s:g}×", s)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.setToolTip(SPEED_TIP)
        self.speed_box.activated.connect(self._speed_picked)
        self.speed_box.currentIndexChanged.connect(lambda _i: self._show_time_left())
        self._auto_speed = True               # a new sweep picks its speed until the user picks one
        self.time_left = QtWidgets.QLabel("", parent)
        self.time_left.setObjectName("sweep_time_left")
        self.time_left.setToolTip("wall time the rest of the sweep takes at this speed (without the "
                                  "stops at each phase's end)")
        self.phase_pause = QtWidgets.QCheckBox("Pause at phase end", parent)
        self.phase_pause.setObjectName("sweep_phase_pause")
        self.phase_pause.setChecked(True)
        self.phase_pause.setToolTip("stop the clock after the last event of each OpenSM phase")
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal, parent)
        self.slider.setObjectName("sweep_slider")
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self._slider_moved)

    def enable(self, ok: bool) -> None:
        """The transport works while a sweep is loaded."""
        for b in (self.play_button, self.step_button, self.phase_button, self.reset_button, self.slider):
            b.setEnabled(ok)

    def set_length(self, n: int) -> None:
        """A sweep of ``n`` steps is loaded: the slider spans it and, unless the user picked a
        speed for this design, the speed box plays it whole in about a minute."""
        self.slider.blockSignals(True)
        self.slider.setRange(0, n - 1)
        self.slider.blockSignals(False)
        if self._auto_speed:
            self.speed_box.setCurrentIndex(SPEEDS.index(default_speed(n)))
        self._show_time_left()

    def new_design(self) -> None:
        """Another design is open: its first sweep picks its own speed again."""
        self._auto_speed = True

    def _speed_picked(self, _index: int) -> None:
        self._auto_speed = False

    def seconds_left(self) -> float:
        """Wall seconds from the step shown to the sweep's last at the speed in the box."""
        tl = self.dock.timeline
        if tl is None:
            return 0.0
        return max(len(tl) - 1 - max(self.dock.index, 0), 0) / (self.speed * EVENTS_PER_SECOND)

    def _show_time_left(self) -> None:
        self.time_left.setText(time_left_text(self.seconds_left()) if self.dock.timeline is not None else "")

    def shown(self, i: int) -> None:
        """The dock shows step ``i``: the slider follows (without scrubbing again), and the time left."""
        self.slider.blockSignals(True)
        self.slider.setValue(i)
        self.slider.blockSignals(False)
        self._show_time_left()

    def moved_to(self, i: int) -> None:
        """The dock went to step ``i``: a paused clock starts from there."""
        if not self.playing:
            self._pos = float(i)

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
        d = self.dock
        tl = d.timeline
        if tl is None:
            return
        if d.index >= len(tl) - 1:
            d.show_step(0)
        self._pos = float(d.index)
        self._wall.start()
        self.timer.start()
        self.play_button.setText("Pause")

    def play_until(self, i: int, seconds: float = 3.0) -> None:
        """Play from the step shown to step ``i`` in about ``seconds`` of wall time, then pause."""
        d = self.dock
        tl = d.timeline
        if tl is None:
            return
        i = max(0, min(int(i), len(tl) - 1))
        if i <= d.index:
            d.show_step(i)
            return
        self._stop_at = i
        self._rate = (i - d.index) / max(seconds, 0.05)       # events per wall second
        self._pos = float(d.index)
        self._wall.start()
        self.timer.start()
        self.play_button.setText("Pause")

    def finish_play(self) -> None:
        """Jump a ``play_until`` animation to its target step (screenshots, tests)."""
        if self._stop_at is not None:
            stop = self._stop_at
            self.pause()
            self.dock.show_step(stop)

    def hold(self, on: bool) -> None:
        """The session holds playback (``on``) or lets it go on (see :meth:`held`)."""
        self._session_hold.hold(on)

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
        d = self.dock
        tl = d.timeline
        if tl is None:
            self.pause()
            return
        dt = self._wall.restart() / 1000.0
        self._pos += dt * (self._rate if self._rate is not None else self.speed * EVENTS_PER_SECOND)
        i = max(d.index, min(int(self._pos), len(tl) - 1))
        if self._stop_at is not None:
            stop = self._stop_at
            if i >= stop:
                d.show_step(stop)
                self.pause()
                return
            if i != d.index:
                d.show_step(i)
            return
        if self.phase_pause.isChecked():
            end = tl.phase_end(d.index)           # the last event of this phase (or of the next one
            if end <= d.index:                    # when play started on a phase's last event)
                end = tl.phase_end(min(d.index + 1, len(tl) - 1))
            if i >= end:
                d.show_step(end)
                self.pause()
                return
        if i != d.index:
            d.show_step(i)
        if i >= len(tl) - 1:
            self.pause()

    def step(self) -> None:
        d = self.dock
        if d.timeline is not None:
            self.pause()
            d.show_step(min(d.index + 1, len(d.timeline) - 1))

    def step_phase(self) -> None:
        d = self.dock
        if d.timeline is not None:
            self.pause()
            d.show_step(d.timeline.next_phase_index(d.index))

    def _slider_moved(self, v: int) -> None:
        if self.dock.timeline is not None and v != self.dock.index:
            self.dock.show_step(v)


__all__ = ["EVENTS_PER_SECOND", "FULL_SWEEP_S", "SPEEDS", "SPEED_TIP", "SweepPlayer", "SweepSteps", "TICK_MS",
           "default_speed", "time_left_text"]
