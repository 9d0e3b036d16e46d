"""What a lesson step says is what the canvas draws; lesson state does not leak; the narration reads.

For every bundled lesson and every step, in a real main window: the cables drawn as traced,
pulled, new, credit loop and paused are the step's own data (its paths, cable change, loop,
and the cables its traffic run paused, which its narration lines list as "paused links").
"""

from __future__ import annotations

import re

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lessons import bundled, find_lesson
from fabricviz.ui.canvas.overlays.traffic import METRICS
from tests.anim.lesson_runs import shared_run
from tests.ui.lesson_helpers import open_lesson

_PAUSED_LINE = re.compile(r"^  (\S+) -> (\S+): paused [\d.]+%$")
_HOT_LINE = re.compile(r"^  (\S+) -> (\S+): ([\d.]+)%$")


@pytest.fixture(autouse=True)
def shared_lesson_runs(shared_runs):
    """Every test here uses the session's engine runs (none edits a lesson's fabric)."""


def _open(qtbot, w, num):
    return open_lesson(qtbot, w, num, sweep_seconds=0.05)


def _made_by(results, k):
    """The pull or rewire step that made step k's fabric (None: the lesson's own)."""
    fab = results[k].fabric
    return next((r for r in reversed(results[:k + 1]) if r.fabric is fab and r.change is not None), None)


def _canvas_paused(w, stage) -> set[int]:
    """Cables the canvas draws with the paused mark: the heatmap's frame marks and the lesson's."""
    ov = w.traffic_view.overlay
    drawn = {int(c) for c in ov.paused if ov.shows_paused(int(c))} if not w.traffic_view.hidden else set()
    return drawn | set(stage.overlay.drawn.get("paused", ()))


def test_every_step_of_every_lesson_draws_what_the_step_says(qtbot, make_window):
    w = make_window()
    checked = {"paths": 0, "ghosts": 0, "added": 0, "loop": 0, "paused": 0, "hot": 0}
    for num, name, _path in bundled():
        dock, stage = _open(qtbot, w, num)
        results = dock.results
        assert dock.error is None and len(results) == len(find_lesson(str(num)).steps)
        for k, step in enumerate(results):
            dock.go(k)
            stage.finish()
            QtWidgets.QApplication.processEvents()
            where = (name, k + 1)
            drawn = stage.overlay.drawn
            assert stage.following and w.editor.fabric is step.fabric, where
            # traced paths: the step's own, else those of the pull that made this fabric
            m = _made_by(results, k)
            paths = step.paths or (m.paths if m is not None else ())
            assert drawn["paths"] == [p.cables for p in paths][:3], where
            assert drawn["old_path"] == (step.old_path.cables if step.old_path is not None else ()), where
            # pulled / unplugged and new cables
            ch = m.change if m is not None else None
            assert drawn["ghosts"] == (ch.removed if ch is not None else ()), where
            assert drawn["added"] == ((ch.added,) if ch is not None and ch.added is not None else ()), where
            assert drawn["loop"] == step.loop_cables, where
            checked["paths"] += bool(paths)
            checked["ghosts"] += bool(drawn["ghosts"])
            checked["added"] += bool(drawn["added"])
            checked["loop"] += bool(step.loop_cables)
            # paused: exactly the cables the run paused, each named in the narration's list drawn
            run = step.traffic
            if run is None:
                assert _canvas_paused(w, stage) == set() and drawn["paused"] == (), where
                continue
            f = step.fabric
            assert w.traffic_dock.result is run.result and not w.traffic_view.hidden, where
            assert _canvas_paused(w, stage) == set(run.paused_cables), where
            named = {int(f.port(a).cable.id) for ln in step.lines if (mt := _PAUSED_LINE.match(ln))
                     for a in mt.groups()[:1]}
            assert named <= set(run.paused_cables), where
            count = next((int(x) for ln in step.lines if (x := ln.partition("paused links: ")[2].split(" ")[0].rstrip(":")).isdigit()),
                         0)
            assert len(named) == min(count, 5), where
            checked["paused"] += len(run.paused_cables)
            # congested: the hottest link the narration names is drawn in its frame's colour
            hot = next((mt for ln in step.lines if (mt := _HOT_LINE.match(ln))), None)
            if hot is not None:
                c = int(f.port(hot.group(1)).cable.id)
                ov = w.traffic_view.overlay
                fr = run.result.frames[-1]
                scale = w.traffic_dock.scale                # the step's colouring (run.metric)
                vals = getattr(fr, METRICS[scale.metric][0])
                assert scale.metric == run.metric and ov.color_of(c) == scale.color(max(vals[2 * c], vals[2 * c + 1]))
                if run.model == "maxmin":          # one steady frame: the printed share is the drawn one
                    assert ov.color_of(c) == w.traffic_dock.scale.color(float(hot.group(3)) / 100), where
                checked["hot"] += 1
    # the lessons do exercise every kind of mark
    # lesson 7: two runs; 8: a loop; 9: the long uplink, three runs (nine paused, none, two);
    # 10: the cycle on three steps, two runs; 5's spraying + trimming step: a hot link, nothing paused
    assert checked == {"paths": 8, "ghosts": 5, "added": 4, "loop": 5, "paused": 33, "hot": 13}


def test_lesson_5_pfc_step_draws_the_s1_to_s2_link_paused(qtbot, make_window):
    w = make_window()
    dock, stage = _open(qtbot, w, 5)
    dock.go(1)                                   # "PFC alone: the victim"
    stage.finish()
    f = w.editor.fabric
    isl = int(f.port("s1:1").cable.id)
    assert f.port_name(f.port("s1:1").peer.id) == "s2:1"
    assert "s2 sends PFC PAUSE to every ingress" in dock.say.text()
    assert isl in _canvas_paused(w, stage) and isl in stage.overlay.drawn["paused"]
    items = stage.overlay.paused_items
    assert len(items) == 2 and all(it.scene() is w.scene and it.isVisible() for it in items)
    from fabricviz.ui.canvas.overlays.traffic import PAUSED_CASING, PAUSED_COLOR
    assert [it.pen().color().name() for it in items] == [PAUSED_CASING, PAUSED_COLOR]
    # early in the run (before the queues fill) only what the frame shows is paused
    w.traffic_dock.player.set_frame(0)
    assert stage.overlay.drawn["paused"] == () and _canvas_paused(w, stage) == set()
    w.traffic_dock.player.set_frame(len(w.traffic_dock.result.frames) - 1)
    assert isl in stage.overlay.drawn["paused"]
    dock.go(2)                                   # DCQCN: the pauses stop
    stage.finish()
    assert _canvas_paused(w, stage) == set() and stage.overlay.paused_items == []


def test_a_lessons_run_shows_its_own_controls_not_the_users(qtbot, make_window):
    w = make_window()
    traffic = w.traffic_dock
    traffic.configure(workload="ring", arg="4GB", model="fluid", routing="adaptive", engine="updn",
                      duration="1ms", seed=7)
    dock, stage = _open(qtbot, w, 4)
    expected = shared_run(find_lesson("4"))
    for k, mode in ((0, "ecmp"), (1, "spray"), (2, "ecmp")):
        dock.go(k)
        stage.finish()
        run = expected[k].traffic
        assert traffic.result is run.result and dock.results[k].traffic is run
        form = traffic.form
        assert (form.workload_box.currentText(), form.arg_edit.text(), form.model_box.currentText(),
                form.routing_box.currentText(), form.engine_box.currentText(), form.duration_edit.text(),
                form.seed_box.value()) == ("permutation", "", "maxmin", mode, "minhop", "10ms", 0)
        assert traffic._shown.spec == "permutation" and traffic._shown.routing == mode
        assert traffic.result.summary(w.editor.fabric)["routing"] == mode
    assert traffic.runs_started == 0                      # nothing re-ran with the user's settings
    lesson4_run = traffic.result
    dock5, stage5 = _open(qtbot, w, 5)
    assert traffic.result is dock5.results[0].traffic.result is not lesson4_run   # lesson 5's own first run
    dock5.go(1)
    stage5.finish()
    form = traffic.form
    assert (form.arg_edit.text(), form.model_box.currentText(), form.routing_box.currentText(),
            form.duration_edit.text()) == ("", "fluid", "default", "6ms")
    assert traffic.result is dock5.results[1].traffic.result and len(traffic.result.frames) == 200
    w.files.new_design()                                        # another design: the lesson ends
    assert traffic.result is None and stage5._traffic_result is None and not stage5.following


def test_opening_another_design_mid_lesson_ends_it(qtbot, make_window):
    w = make_window()
    dock, stage = _open(qtbot, w, 3)
    dock.go(1)
    assert stage.overlay.drawn["loop"] and w.document.session.overlay == "lesson"
    w.document.open(find_lesson("1").build_fabric(), None, "another")
    assert dock.lesson is None and dock.results is None
    assert dock.lesson_title.text() == "No lesson open — pick one from the Lessons menu"
    assert not dock.next_button.isEnabled() and not dock.prev_button.isEnabled()
    dock.next()
    qtbot.mouseClick(dock.next_button, QtCore.Qt.MouseButton.LeftButton)
    assert dock.k == 0 and dock.step_title.text() == "" and dock.position.text() == ""
    assert stage.overlay.drawn == {} and not stage.loads.active and not stage.following
    assert w.document.session.overlay == ""


def test_the_stage_claims_the_canvas_and_yields_it(qtbot, make_window):
    w = make_window()
    session = w.document.session
    dock, stage = _open(qtbot, w, 3)
    assert session.overlay == "lesson"                   # route step: the lesson's port loads
    dock.go(1)
    assert session.owns("lesson") and len(stage.overlay.drawn["loop"]) == 5 and stage.loads.active
    session.claim("sweep")                               # another overlay takes the canvas
    assert stage.overlay.drawn == {} and not stage.loads.active and stage.following
    dock.go(2)
    dock.go(1)                                           # the next step shown claims it back
    assert session.owns("lesson") and len(stage.overlay.drawn["loop"]) == 5
    dock5, stage5 = _open(qtbot, w, 5)
    dock5.go(1)
    stage5.finish()
    assert session.owns("traffic") and stage5.overlay.drawn["paused"]   # heatmap under the lesson's marks
    session.claim("loads")
    assert stage5.overlay.drawn == {} and stage5.overlay.paused_items == []


def test_the_narration_is_readable_in_a_1400_by_900_window(qtbot, make_window):
    w = make_window()
    assert (w.width(), w.height()) == (1400, 900)
    dock = w.lesson_dock
    act = w.findChild(QtGui.QAction, "action_lesson_1")
    with qtbot.waitSignal(dock.ready, timeout=60_000):
        act.trigger()                                    # from the Lessons menu
    QtWidgets.QApplication.processEvents()
    say = dock.findChild(QtWidgets.QLabel, "lesson_say")
    assert dock.isVisible() and not dock.isFloating()
    assert w.dockWidgetArea(dock) == QtCore.Qt.DockWidgetArea.LeftDockWidgetArea   # in the palette's place
    assert say.text() == find_lesson("1").steps[0].say
    line = QtGui.QFontMetrics(say.font()).lineSpacing()
    visible = say.visibleRegion().boundingRect()
    assert visible.height() >= 10 * line and dock.width() >= 320
    title = dock.findChild(QtWidgets.QLabel, "lesson_step_title")
    assert title.visibleRegion().boundingRect().height() >= QtGui.QFontMetrics(title.font()).lineSpacing()
    assert dock.text_scroll.verticalScrollBar().maximum() == 0          # nothing of it scrolled away
    mono = QtGui.QFontMetrics(dock.lines.font()).lineSpacing()
    assert dock.lines.height() < say.height() and dock.lines.height() >= 3 * mono


def test_a_lesson_step_with_traffic_keeps_the_narration_in_view(qtbot, make_window):
    """Lesson 5 shows its run in the Traffic dock: the narration stays visible beside it
    (the two never share a tab group)."""
    w = make_window()
    dock = w.lesson_dock
    with qtbot.waitSignal(dock.ready, timeout=60_000):
        w.findChild(QtGui.QAction, "action_lesson_5").trigger()
    QtWidgets.QApplication.processEvents()
    assert w.traffic_dock.isVisible() and not w.traffic_dock.visibleRegion().isEmpty()
    say = dock.findChild(QtWidgets.QLabel, "lesson_say")
    assert dock.isVisible() and not say.visibleRegion().isEmpty() and say.text()
    assert dock not in w.tabifiedDockWidgets(w.traffic_dock)
