"""Driving the What-if dock in tests: its controls set, Run clicked and its end awaited."""

from __future__ import annotations

from PySide6 import QtCore

LEFT = QtCore.Qt.MouseButton.LeftButton


def set_controls(d, kind="cables", ks="1,2", trials=6, seed=3, metric="permutation", worst=False) -> None:
    d.kind_box.setCurrentIndex(d.kind_box.findData(kind))
    d.ks_edit.setText(ks)
    d.trials_box.setValue(trials)
    d.seed_box.setValue(seed)
    d.metric_box.setCurrentText(metric)
    d.worst_box.setChecked(worst)


def run_dock(qtbot, d, expect="done", wait=10_000) -> None:
    """Click Run and wait for the dock's ``finished(expect)``."""
    with qtbot.waitSignal(d.finished, timeout=wait) as sig:
        qtbot.mouseClick(d.run_button, LEFT)
    assert sig.args == [expect]
