"""Lessons 9 and 10 in the GUI: the stage draws lesson 10's PFC cycle (one closed red ring through
the cycle's cables) and the cables its deadlocked run paused; lesson 9's headroom step marks the
long uplink and picks its switch in the Lossless dock, its PFC-only incast marks the paused cables
and ECN + DCQCN (nvidia) none."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtGui, QtWidgets

from fabricviz.ui.canvas.items.cables import cable_anchors, routes_for
from fabricviz.ui.canvas.overlays.lesson import LOOP_COLOR, PATH_COLORS
from tests.ui.lesson_helpers import open_lesson


@pytest.fixture(autouse=True)
def shared_lesson_runs(shared_runs):
    """The session's engine runs (no test here edits a lesson's fabric)."""


def _lesson_paths(w, color):
    return [it for it in w.scene.items() if it.data(2) == "lesson_overlay"
            and isinstance(it, QtWidgets.QGraphicsPathItem) and it.pen().color() == QtGui.QColor(color)]


def _ends(f, cables):
    ax, ay, bx, by = cable_anchors(f, np.asarray(cables, np.int64))
    return {(round(float(x), 3), round(float(y), 3)) for x, y in zip(np.r_[ax, bx], np.r_[ay, by], strict=True)}


def _route_points(f, cables):
    """Every corner of the cables' drawn routes (they run through the gutters, issue 29)."""
    seg = routes_for(f).of(np.asarray(cables, np.int64))
    return {(round(float(x), 3), round(float(y), 3))
            for x, y in zip(np.r_[seg[0], seg[2]], np.r_[seg[1], seg[3]], strict=True)}


def _corners(item):
    return {(round(p.x(), 3), round(p.y(), 3)) for poly in item.path().toSubpathPolygons() for p in poly}


def _go(dock, stage, title):
    dock.go([r.title for r in dock.results].index(title))
    stage.finish()
    QtWidgets.QApplication.processEvents()
    return dock.results[dock.k]


def _paused_shown(w, stage, run):
    """The stage's paused marks are the run's paused cables, drawn as two items on the scene."""
    assert w.traffic_dock.result is run.result
    assert stage.overlay.drawn["paused"] == run.paused_cables
    items = stage.overlay.paused_items
    assert len(items) == 2 and all(it.scene() is w.scene and it.isVisible() for it in items)


def test_lesson_10_stage_draws_the_cycle_and_the_deadlocked_cables(qtbot, make_window):
    w = make_window()
    dock, stage = open_lesson(qtbot, w, 10)
    assert dock.error is None and len(dock.results) == 5
    healthy = _go(dock, stage, "Up and down: no cycle")
    assert healthy.loops == 0 and stage.overlay.drawn["loop"] == () and _lesson_paths(w, LOOP_COLOR) == []
    step = _go(dock, stage, "Two failures: a cycle")
    f = w.editor.fabric
    assert f is step.fabric and step.loops == 1 and len(step.loop_cables) >= 4
    assert stage.overlay.drawn["loop"] == step.loop_cables
    (ring,) = _lesson_paths(w, LOOP_COLOR)
    # one ring through both ends of every cable, along their routes
    assert _ends(f, step.loop_cables) <= _route_points(f, step.loop_cables) <= _corners(ring)
    assert step.traffic is None and stage.overlay.paused_items == []
    # the deadlocked run: the ring stays drawn and every cable paused for good carries the mark
    stuck = _go(dock, stage, "The deadlock")
    run = stuck.traffic
    assert set(step.loop_cables) <= set(run.paused_cables)
    assert stage.overlay.drawn["loop"] == stuck.loop_cables == step.loop_cables
    _paused_shown(w, stage, run)
    assert _corners(stage.overlay.paused_items[0]) == _route_points(w.editor.fabric, run.paused_cables)
    w.traffic_dock.player.set_frame(0)                       # before the steady part: no lesson marks
    assert stage.overlay.drawn["paused"] == () and stage.overlay.paused_items == []
    w.traffic_dock.player.set_frame(len(run.result.frames) - 1)
    assert stage.overlay.drawn["paused"] == run.paused_cables
    # the watchdog's run: its own paused cables, the run the Traffic dock shows
    wd = _go(dock, stage, "The PFC watchdog")
    assert wd.traffic.result is not run.result and w.traffic_dock.result is wd.traffic.result
    assert stage.overlay.drawn["paused"] == wd.traffic.paused_cables
    # back to the healthy fabric: no ring, no paused marks, no run
    _go(dock, stage, "Up and down: no cycle")
    assert _lesson_paths(w, LOOP_COLOR) == [] and stage.overlay.paused_items == []
    assert w.traffic_dock.result is None


def test_lesson_9_stage_shows_the_headroom_then_the_pauses_going(qtbot, make_window):
    w = make_window()
    lossless = w.lossless_dock
    lossless.show()
    dock, stage = open_lesson(qtbot, w, 9)
    assert dock.error is None and len(dock.results) == 4
    head = _go(dock, stage, "Headroom for a long uplink")
    f = w.editor.fabric
    h = head.headroom
    long_cable = int(f.port("leaf01:5").cable.id)
    assert f is head.fabric and h.cable == long_cable
    # the long uplink is drawn as the step's path
    assert stage.overlay.drawn["paths"] == [(long_cable,)]
    (mark,) = _lesson_paths(w, PATH_COLORS[0])
    assert _corners(mark) == _route_points(f, (long_cable,)) >= _ends(f, (long_cable,))
    assert stage.legend_rows()[0][0] == f"leaf01:5: 100 m smf, headroom {h.ports[0].headroom:,.0f} B"
    # its switch is selected, so the Lossless dock shows leaf01's budget and ports (the step's numbers)
    assert w.scene.selected_device_ids() == [h.device] and lossless.switch == h.device == f.find("leaf01")
    assert lossless.budget() == h.budget
    rows = {r.name: r for r in lossless.model.rows}
    for p in h.ports:
        assert rows[p.name].ieee == p.headroom and rows[p.name].ieee_terms == dict(p.terms)
        assert rows[p.name].xoff == p.xoff
    assert stage.following and w.editor.stack.count() == 0       # selecting is not an edit
    # PFC alone: the run's nine paused cables, the long uplink's neighbours among them
    pfc = _go(dock, stage, "Incast with PFC only")
    assert w.editor.fabric is f and stage.overlay.drawn["paths"] == []
    assert len(pfc.traffic.paused_cables) == 9
    _paused_shown(w, stage, pfc.traffic)
    hosts = {int(f.port(f"leaf02:{i}").cable.id) for i in (1, 2, 3, 4)}
    assert hosts <= set(pfc.traffic.paused_cables)               # the pause spread back to the far NICs
    # ECN + DCQCN (nvidia): the same flows, no cable paused
    nv = _go(dock, stage, "ECN and DCQCN (NVIDIA preset)")
    assert w.traffic_dock.result is nv.traffic.result and nv.traffic.paused_cables == ()
    assert stage.overlay.drawn["paused"] == () and stage.overlay.paused_items == []
    assert nv.traffic.summary["max_queue"]["bytes"] < pfc.traffic.summary["max_queue"]["bytes"]
