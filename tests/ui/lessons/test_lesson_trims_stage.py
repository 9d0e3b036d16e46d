"""Lesson 5 in the GUI: the PFC step marks the paused cables, the spraying + trimming step (EQDS) the
cable whose queue trims, and no paused one; the Traffic dock shows the step's transport."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.ui.canvas.overlays.trims import ROLE
from tests.ui.lesson_helpers import open_lesson

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def shared_lesson_runs(shared_runs):
    """The session's engine runs (no test here edits a lesson's fabric)."""


def _go(dock, stage, title):
    dock.go([r.title for r in dock.results].index(title))
    stage.finish()
    QtWidgets.QApplication.processEvents()
    return dock.results[dock.k]


def _trim_items(w):
    return [it for it in w.scene.items() if it.data(2) == ROLE and it.isVisible()]


def test_lesson_5_shows_pauses_then_trims(qtbot, make_window):
    w = make_window()
    dock, stage = open_lesson(qtbot, w, 5)
    assert dock.error is None and len(dock.results) == 4
    pfc = _go(dock, stage, "PFC alone: the victim")
    assert len(pfc.traffic.paused_cables) == 6 and stage.overlay.drawn["paused"] == pfc.traffic.paused_cables
    assert w.traffic_view.trims.cables.tolist() == [] and _trim_items(w) == []
    eq = _go(dock, stage, "Spraying + trimming instead of PFC")
    f = w.editor.fabric
    s1s2 = int(f.port("s1:1").cable.id)
    assert w.traffic_dock.result is eq.traffic.result
    assert w.traffic_dock.form.transport_box.currentText() == "EQDS: spraying + trimming"
    assert stage.overlay.drawn["paused"] == () and stage.overlay.paused_items == []
    assert w.traffic_view.trims.cables.tolist() == [s1s2] == list(eq.traffic.trimming_cables)
    assert len(_trim_items(w)) == 2                                   # casing and ticks on that cable
    _go(dock, stage, "DCQCN")                                         # back to a fluid run: no trims
    assert w.traffic_view.trims.cables.tolist() == [] and _trim_items(w) == []
