"""The GUI's run controls refuse what the CLI refuses (issue 28: fabricviz/sim/bounds.py): the
Traffic dock's duration past 1 s or under one fluid tick, the Collectives dock's sweep of more
than 1,000 sizes, and the What-if dock's trials capped at 10,000."""

from __future__ import annotations

import pytest
from PySide6 import QtGui, QtWidgets

from fabricviz.generate import leaf_spine
from fabricviz.sim.bounds import MAX_TRIALS
from fabricviz.ui.docks.collectives import JOB


@pytest.mark.parametrize(("duration", "why"), [
    ("3600s", "the duration '3600s' is longer than the 1s a run may last"),
    ("1e400ms", "the duration '1e400ms' is longer than the 1s a run may last"),
    ("0.000001us", "the duration '0.000001us' is shorter than one fluid tick (1us)"),
])
def test_traffic_duration_bounds(make_window, duration, why):
    w = make_window()
    w.editor.set_fabric(leaf_spine(2, 2, 4))
    QtWidgets.QApplication.processEvents()
    dock = w.traffic_dock
    dock.configure(model="fluid", duration=duration)
    assert not dock.run() and not dock.running
    assert why in dock.status.text()


def test_collectives_sweep_bounds(make_window):
    w = make_window()
    w.findChild(QtGui.QAction, "action_collectives_dock").trigger()
    d = w.collectives_dock
    d.sizes_edit.setText("1B:1TB:x1.0000001")
    d.run_button.click()
    assert "276,310,225 sizes, more than the 1,000 a sweep may have" in d.message.text()
    assert not w.document.jobs.running(JOB) and d.plot.curves == []


def test_whatif_trials_capped(make_window):
    w = make_window()
    w.findChild(QtGui.QAction, "action_whatif_dock").trigger()
    box = w.whatif_dock.trials_box
    box.setValue(10 ** 6)
    assert box.maximum() == MAX_TRIALS == 10_000 and box.value() == 10_000
