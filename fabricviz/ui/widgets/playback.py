"""Play button + frame slider + position label, as the Traffic dock and the IB-vs-RoCE window use them."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack

from PySide6 import QtCore, QtWidgets


def play_controls(parent: QtWidgets.QWidget, prefix: str, names: tuple[str, str, str], tip: str,
                  label_width: int, toggled: Callable[[bool], None], moved: Callable[[int], None]
                  ) -> tuple[QtWidgets.QToolButton, QtWidgets.QSlider, QtWidgets.QLabel]:
    """A checkable play button (``toggled``), a slider at 0..0 (``moved``) and a "–" label,
    named ``prefix_`` + each of ``names``."""
    button = QtWidgets.QToolButton(parent)
    button.setObjectName(f"{prefix}_{names[0]}")
    button.setCheckable(True)
    show_playing(button, False)
    button.setToolTip(tip)
    button.toggled.connect(toggled)
    slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal, parent)
    slider.setObjectName(f"{prefix}_{names[1]}")
    slider.setRange(0, 0)
    slider.valueChanged.connect(moved)
    label = QtWidgets.QLabel("–", parent)
    label.setObjectName(f"{prefix}_{names[2]}")
    label.setMinimumWidth(label_width)
    return button, slider, label


def show_playing(button: QtWidgets.QToolButton, on: bool) -> None:
    """Check the button without re-entering its slot and show play or pause (the standard icon;
    the text is for fonts and styles without it)."""
    if button.isChecked() != on:
        button.blockSignals(True)
        button.setChecked(on)
        button.blockSignals(False)
    button.setText("⏸" if on else "▶")
    px = QtWidgets.QStyle.StandardPixmap
    button.setIcon(button.style().standardIcon(px.SP_MediaPause if on else px.SP_MediaPlay))


class SessionHold:
    """A player held while the session holds playback (a picture is being drawn): ``hold(True)``
    enters the player's own ``held()`` context, ``hold(False)`` leaves it; a repeated call is a
    no-op."""

    def __init__(self, held: Callable[[], AbstractContextManager[None]]) -> None:
        self._held = held
        self._stack: ExitStack | None = None

    def hold(self, on: bool) -> None:
        if on and self._stack is None:
            self._stack = ExitStack()
            self._stack.enter_context(self._held())
        elif not on and self._stack is not None:
            stack, self._stack = self._stack, None
            stack.close()


__all__ = ["SessionHold", "play_controls", "show_playing"]
