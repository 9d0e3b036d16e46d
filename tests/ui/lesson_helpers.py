"""Helpers for the lesson GUI tests."""

from __future__ import annotations


def open_lesson(qtbot, w, num, sweep_seconds=0.15):
    """Open lesson ``num`` in window ``w`` from the menu's path and wait for its engines;
    (dock, stage). Sweeps animate for ``sweep_seconds``."""
    dock = w.lesson_dock
    w.lesson_stage.sweep_seconds = sweep_seconds
    with qtbot.waitSignal(dock.ready, timeout=60_000):
        assert w.open_lesson(str(num))
    return dock, w.lesson_stage
