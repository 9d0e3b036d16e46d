"""The Traffic dock's frame playback: play/pause, the frame slider, its label and the clock.

:class:`FramePlayer` is an object the :class:`~fabricviz.ui.docks.traffic.TrafficDock` holds
(``dock.player``). It scrubs and plays the frames of the run on show (:meth:`FramePlayer.load`)
and says which one shows with ``frame_changed(k)``; it stands still while the session holds
playback (a picture is being drawn). Space plays / pauses while the slider has focus.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.document.traffic_choice import PLAY_MS
from fabricviz.ui.widgets.playback import SessionHold, play_controls, show_playing


class FramePlayer(QtCore.QObject):
    """Play button, frame slider, frame label and timer over one run's frames."""

    frame_changed = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.frames: Sequence[Any] | None = None      # the frames of the run on show
        self.play_button, self.slider, self.frame_label = play_controls(
            parent, "traffic", ("play", "frame", "frame_label"),
            "play / pause the frames (Space when the slider has focus)", 130, self.set_playing, self._slider_moved)
        space = QtGui.QShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_Space), self.slider)
        space.setContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        space.activated.connect(self.play_button.toggle)
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(PLAY_MS)
        self.timer.timeout.connect(self._tick)
        self._session_hold = SessionHold(self.held)

    def layout_row(self) -> QtWidgets.QHBoxLayout:
        """The button, the slider (stretching) and the label in a row."""
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.play_button)
        row.addWidget(self.slider, 1)
        row.addWidget(self.frame_label)
        return row

    @property
    def frame(self) -> int:
        return self.slider.value()

    def load(self, frames: Sequence[Any], k: int) -> None:
        """A run's ``frames`` are on show, at frame ``k`` (the slider moves silently; :meth:`show` shows it)."""
        self.frames = frames
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(frames) - 1)
        self.slider.setValue(k)
        self.slider.blockSignals(False)

    def clear(self) -> None:
        """No run on show."""
        self.frames = None
        self.slider.blockSignals(True)
        self.slider.setRange(0, 0)
        self.slider.blockSignals(False)
        self.frame_label.setText("–")

    def set_frame(self, k: int) -> None:
        """Show frame ``k`` (clamped to the run)."""
        if self.frames is None:
            return
        k = max(0, min(int(k), len(self.frames) - 1))
        if k == self.slider.value():
            self.show(k)
        else:
            self.slider.setValue(k)        # → _slider_moved → show

    def step(self, n: int = 1) -> None:
        self.set_frame(self.frame + n)

    def _slider_moved(self, k: int) -> None:
        if self.frames is not None:
            self.show(k)

    def show(self, k: int) -> None:
        """Label frame ``k`` and tell followers (``frame_changed``)."""
        assert self.frames is not None                # shown only with a run
        fr = self.frames[k]
        self.frame_label.setText(f"{k + 1}/{len(self.frames)} · {fr.time_s * 1e3:.3f} ms")
        self.frame_changed.emit(k)

    def hold(self, on: bool) -> None:
        """The session holds playback (``on``) or lets it go on (see :meth:`held`)."""
        self._session_hold.hold(on)

    @contextmanager
    def held(self) -> Iterator[None]:
        """Playback stands still inside (a picture is being drawn), then plays on."""
        if not self.timer.isActive():
            yield
            return
        self.set_playing(False)
        try:
            yield
        finally:
            self.set_playing(True)

    def set_playing(self, on: bool) -> None:
        on = bool(on) and self.frames is not None and len(self.frames) > 1
        show_playing(self.play_button, on)
        if on:
            assert self.frames is not None
            if self.frame >= len(self.frames) - 1:
                self.set_frame(0)
            self.timer.start()
        else:
            self.timer.stop()

    def _tick(self) -> None:
        if self.frames is None or self.frame >= len(self.frames) - 1:
            self.set_playing(False)
            return
        self.step(1)


__all__ = ["FramePlayer"]
