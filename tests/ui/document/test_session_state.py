"""Docks share what they show through the document's Session, not through each other: the
Traffic dock publishes its run (session.traffic), the Charts dock and the heatmap follow it, a
lesson's run reaches the Traffic dock through the session; the Subnet Manager dock publishes its
engine and does what session.sweep asks; the Lessons dock publishes the step; a lesson's curves
and trials reach the Collectives and What-if docks through session.collectives / session.whatif."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.generate import leaf_spine
from fabricviz.sim.run import run_traffic
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.docks.charts import ChartsDock
from fabricviz.ui.docks.traffic import TrafficDock
from fabricviz.ui.docks.traffic_view import TrafficView
from fabricviz.ui.document.document import Document
from fabricviz.ui.document.session import LessonShown, Session


@pytest.fixture
def parts(qtbot):
    f = leaf_spine(2, 2, 4)
    doc = Document(f)
    win = QtWidgets.QMainWindow()
    qtbot.addWidget(win)
    scene = FabricScene(win)
    scene.set_fabric(f, subscribe=False)
    traffic = TrafficDock(doc, win)
    charts = ChartsDock(doc, scene, win)
    view = TrafficView(doc, scene)
    yield f, doc, traffic, charts, view
    win.close()                                     # (kept alive until here)


def test_a_run_adopted_through_the_session_reaches_the_dock_the_charts_and_the_heatmap(parts):
    f, doc, traffic, charts, view = parts
    res = run_traffic(f, "incast:4", "fluid", None, "minhop", 0.1e-3, 0)
    shown = doc.session.traffic
    seen: list = []
    shown.run_changed.connect(seen.append)
    shown.adopt(res, f, {"workload": "incast", "arg": "4"})
    assert traffic.result is res and traffic.result_fabric is f        # the dock did it
    assert (shown.result, shown.fabric, shown.scale) == (res, f, traffic.scale) and seen == [res]
    assert charts.result is res and charts.fabric is f
    assert doc.session.owns("traffic") and view.overlay.drawn_count() > 0
    last = len(res.frames) - 1
    shown.seek(last)
    assert traffic.frame == last == shown.frame and shown.current_frame() is res.frames[last]
    shown.drop()
    assert traffic.result is None and shown.result is None and charts.result is None
    assert seen == [res, None] and not doc.session.owns("traffic")


def test_the_dock_clears_its_run_when_another_design_opens(parts):
    f, doc, traffic, charts, _view = parts
    res = run_traffic(f, "incast:4", "maxmin", None, "minhop", 10e-3, 0)
    doc.session.traffic.adopt(res, f, {})
    doc.open(leaf_spine(2, 2, 2), None, "other")
    assert traffic.result is None and doc.session.traffic.result is None and charts.result is None


def test_session_state_defaults_and_lesson_step():
    s = Session()
    assert (s.sweep.engine, s.sweep.step, s.sweep.pinned, s.sweep.drawn) == ("minhop", None, False, False)
    assert (s.traffic.result, s.traffic.fabric, s.traffic.current_frame()) == (None, None, None)
    lesson = s.lesson
    assert isinstance(lesson, LessonShown) and (lesson.lesson, lesson.results, lesson.step) == (None, None, 0)
    engines, steps = [], []
    s.sweep.engine_changed.connect(engines.append)
    lesson.step_changed.connect(steps.append)
    s.sweep.set_engine("ftree")
    s.sweep.set_engine("ftree")                    # unchanged: said once
    lesson.show_step(2)
    assert engines == ["ftree"] and s.sweep.engine == "ftree" and steps == [2] and lesson.step == 2


def test_pictures_hold_the_playback_of_every_dock(parts):
    """session.held(): the Traffic dock's clock stands still inside and plays on after; a dock
    not playing is not started."""
    f, doc, traffic, _charts, _view = parts
    res = run_traffic(f, "incast:4", "fluid", None, "minhop", 0.1e-3, 0)
    assert len(res.frames) > 1
    doc.session.traffic.adopt(res, f, {})
    with doc.session.held():
        assert not traffic.player.timer.isActive()
    assert not traffic.player.timer.isActive()
    doc.session.traffic.play(True)
    assert traffic.player.timer.isActive()
    with doc.session.held():
        assert not traffic.player.timer.isActive()
    assert traffic.player.timer.isActive()
    doc.session.traffic.play(False)


def test_the_traffic_controls_reach_record_animation_through_the_session(parts, qtbot):
    """Record Animation reads what the Traffic dock would run from session.traffic.setup(), not
    from the dock: the description follows the controls, the run is the dock's own choice, and
    without a Traffic dock the traffic entry is off."""
    from fabricviz.ui.dialogs.record import TRAFFIC, RecordDialog
    f, doc, traffic, charts, view = parts
    traffic.configure(workload="incast", arg="4", model="fluid", duration="0.1ms")
    setup = doc.session.traffic.setup()
    assert (setup.spec, setup.model, setup.metric) == ("incast:4", "fluid", traffic.metric)
    assert setup.choice() == traffic.form.choice()
    dlg = RecordDialog(doc)
    qtbot.addWidget(dlg)
    dlg.what_box.setCurrentIndex(dlg.what_box.findData(TRAFFIC))
    assert dlg.detail.text().startswith(f"incast:4, fluid model, {setup.routing} routing, coloured by")
    traffic.configure(workload="alltoall", arg="")
    dlg.what_box.setCurrentIndex(0)
    dlg.what_box.setCurrentIndex(dlg.what_box.findData(TRAFFIC))
    assert dlg.detail.text().startswith("alltoall, fluid model")
    doc.session.traffic.offer_setup(None)          # the dock gone: nothing to take a run from
    alone = RecordDialog(doc)
    qtbot.addWidget(alone)
    assert not alone.what_box.model().item(1).isEnabled()


def test_a_lessons_collective_and_whatif_steps_reach_their_docks_through_the_session(make_window):
    """A lesson shows its curves and trials through session.collectives and session.whatif: the
    Collectives and What-if docks show them with their controls set from the typed payload, and the
    What-if dock tells the session the trial it draws."""
    from types import SimpleNamespace

    from fabricviz.anim.lesson_collective import collective_action
    from fabricviz.anim.lesson_whatif import whatif_action
    from fabricviz.ui.document.session import CollectiveControls, WhatifControls
    w = make_window()                                   # the demo: 16 GPUs on a 2-level fat tree
    doc, f = w.document, w.editor.fabric
    cd, wd = w.collectives_dock, w.whatif_dock
    _lines, fields = collective_action(SimpleNamespace(fabric=f), {"op": "allgather", "sizes": "8B:1KB:x4",
                                                                   "gpus": "8"})
    curves = fields["collectives"]
    doc.session.collectives.show_runs(curves, CollectiveControls("allgather", "ring", "8B:1KB:x4", "8"))
    doc.session.collectives.present(True)
    assert cd.isVisible() and [r.result for r in cd.runs] == [curves[0].result] and not cd.runs[0].twin
    assert cd.plot.labels()[0].startswith(f"{f.name} · all-gather ring")
    assert (cd.op_box.currentData(), cd.algo_box.currentData(), cd.sizes_edit.text(), cd.gpus_box.currentData(),
            cd.gpus_spin.value()) == ("allgather", "ring", "8B:1KB:x4", "first", 8)
    neck = curves[0].bottleneck                        # a ring's hops tie: the hop the dock names is selected
    assert len(neck.src) > 1 and 0 < len(neck.named_cables) < len(neck.cables)
    assert w.scene.selected_cables == {int(c) for c in neck.named_cables}
    doc.session.collectives.present(False)
    assert not cd.isVisible()

    told = doc.session.whatif
    _lines, fields = whatif_action(SimpleNamespace(fabric=f), {"fail": "switches:1", "worst": True, "seed": 3})
    step = fields["whatif"]
    told.show_trials(step, WhatifControls("switches", (1,), 1, "permutation", 3, True), 0)
    told.present(True)
    assert wd.isVisible() and wd.shown is not None and wd.shown.results == list(step.results)
    assert wd.plot.mode == "ranking" and wd.shown_row == 0 and wd.model.rows[0] == step.ranked[0]
    assert (wd.kind_box.currentData(), wd.worst_box.isChecked(), wd.metric_box.currentText(), wd.seed_box.value()) \
        == ("switches", True, "permutation", 3)
    assert told.cables == tuple(step.cables) == tuple(wd.failed_cables.cables) and told.line == wd.trial_line.text()
    assert told.line.startswith(f"#1: {step.ranked[0].failed[0]} down")
    told.show_row(None)
    assert (told.cables, told.line, wd.failed_cables.cables, wd.shown_row) == ((), "", [], None)
    told.show_trials(step, WhatifControls("cables", (1, 2), 6, "alltoall", 5, False))
    assert (wd.kind_box.currentData(), wd.ks_edit.text(), wd.trials_box.value(), wd.metric_box.currentText(),
            wd.seed_box.value(), wd.worst_box.isChecked()) == ("cables", "1,2", 6, "alltoall", 5, False)
