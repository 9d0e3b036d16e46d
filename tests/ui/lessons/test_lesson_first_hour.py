"""Lessons as a new user meets them (issue 29, item 6): lesson 1's routing step draws the routes it
talks about, and a lesson's traffic step colours the canvas by what its narration is about, giving
the user's own colouring back afterwards."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.ib.report import cable_loads
from tests.ui.lesson_helpers import open_lesson

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def shared_lesson_runs(shared_runs):
    """The session's engine runs (no test here edits a lesson's fabric)."""


def test_lesson_1_routing_step_draws_the_routes_it_narrates(qtbot, make_window):
    w = make_window()
    dock, stage = open_lesson(qtbot, w, 1, sweep_seconds=0.05)
    res = dock.results
    assert [r.title for r in res[:4]] == ["Discovery", "LID assignment", "Routing", "LFT distribution"]
    dock.go(1)                                                # LID assignment: no routes yet
    stage.finish()
    QtWidgets.QApplication.processEvents()
    assert res[1].routing is None and not stage.loads.active
    dock.go(2)                                                # Routing: the routes per port appear
    stage.finish()
    QtWidgets.QApplication.processEvents()
    cables, vals = cable_loads(res[2].routing)
    assert stage.loads.active and np.array_equal(stage.loads.cables, cables)
    assert np.array_equal(stage.loads.values, vals) and set(vals.tolist()) == {1, 4}
    assert "each cable is now drawn by how many destinations" in dock.say.text()      # it says so
    assert [r[0] for r in stage.loads.legend_rows()][:1] == ["1 route per port"]
    dock.go(3)                                                # LFT distribution: the sweep's marks again
    stage.finish()
    QtWidgets.QApplication.processEvents()
    assert not stage.loads.active


def test_lesson_5_colours_by_queue_for_pfc_and_gives_the_users_colouring_back(qtbot, make_window):
    w = make_window()
    traffic = w.traffic_dock
    traffic.metric_box.setCurrentText("latency")              # the user's own choice
    dock, stage = open_lesson(qtbot, w, 5)
    res = dock.results
    assert [r.traffic.model for r in res] == ["maxmin", "fluid", "fluid", "maxmin"]
    seen = []
    for k in range(len(res)):
        dock.go(k)
        stage.finish()
        QtWidgets.QApplication.processEvents()
        assert traffic.result is res[k].traffic.result
        seen.append((traffic.metric, traffic.scale.metric, w.document.session.traffic.scale.metric))
    # the fair shares by utilisation; PFC's pauses and DCQCN's draining queue by queue; spraying +
    # trimming's steady state by utilisation
    assert seen == [("utilisation",) * 3, ("queue",) * 3, ("queue",) * 3, ("utilisation",) * 3]
    w.files.new_design()                                      # leaving the lesson
    QtWidgets.QApplication.processEvents()
    assert traffic.result is None and traffic.metric == "latency"
