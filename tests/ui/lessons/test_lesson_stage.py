"""The canvas follows the lesson: sweep states, traced paths, pulled cables, loops, pictures."""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui

from fabricviz.anim.lessons import find_lesson
from fabricviz.ib.report import cable_loads
from fabricviz.ib.trace import path_cables, trace
from fabricviz.ui.canvas.overlays.lesson import ADDED_COLOR, GHOST_COLOR, LOOP_COLOR, PATH_COLORS
from fabricviz.ui.canvas.overlays.traffic import METRICS
from tests.ui.lesson_helpers import open_lesson


def _open(qtbot, w, num):
    return open_lesson(qtbot, w, num, sweep_seconds=0.15)


def _settle(qtbot, w):
    sweep = w.sweep_dock
    qtbot.waitUntil(lambda: sweep.player._stop_at is None, timeout=60_000)


def test_lesson_1_sweep_trace_and_pull_drive_the_canvas(qtbot, make_window, shared_runs):
    w = make_window()
    dock, stage = _open(qtbot, w, 1)
    res = dock.results
    sweep = w.sweep_dock
    # step 1 plays discovery from the first event to the end of the discovery phase
    assert stage.following and w.editor.fabric is res[0].fabric
    assert sweep.pinned and sweep.timeline is res[0].sweep.timeline
    _settle(qtbot, w)
    assert sweep.index == res[0].sweep.last
    f = w.editor.fabric
    switches = set(f.device_ids("ib_switch").tolist())
    assert switches <= set(sweep.overlay.drawn["discovered"].tolist())
    assert len(sweep.overlay.drawn["ACTIVE"]) == 0 and len(sweep.overlay.drawn["INIT"]) > 0
    # steps 2..5 up to SUBNET UP, played one after the other: every cabled subnet port ACTIVE
    for k in range(1, 5):
        dock.next()
        _settle(qtbot, w)
        assert sweep.index == res[k].sweep.last
    assert "SUBNET UP" in sweep.status.text()
    cabled = f.ports_t.cable >= 0
    subnet_ports = np.flatnonzero(cabled & np.isin(f.ports_t.device, f.device_ids(("ib_switch", "nic"))))
    assert sorted(sweep.overlay.drawn["ACTIVE"].tolist()) == sorted(subnet_ports.tolist())
    sweep.loads_box.setChecked(True)                 # the dock's "Port loads": routes per cable
    cables, vals = cable_loads(sweep.routing)
    assert sweep.loads.active and np.array_equal(sweep.loads.values, vals) and set(vals.tolist()) == {1, 4}
    sweep.loads_box.setChecked(False)
    assert not sweep.loads.active
    # step 6: the traced path is the one `fabricviz trace` follows, with [in]→[out] at each switch
    dock.next()
    r = res[5].routing
    t = trace(r, "node01", "node16")
    drawn = stage.overlay.drawn
    assert drawn["paths"] == [path_cables(r, t)] and len(drawn["paths"][0]) == 4
    assert drawn["labels"] == [(h.switch, f"[{h.in_port}]→[{h.out_port}]") for h in t.hops]
    assert drawn["ghosts"] == () and drawn["old_path"] == ()
    # step 7: the pulled cable leaves the canvas, the re-sweep plays, the path moves
    before_path = drawn["paths"][0]
    dock.next()
    _settle(qtbot, w)
    after = w.editor.fabric
    (pulled,) = res[6].change.removed
    assert after is res[6].fabric and not after.cables_t.exists(pulled) and f.cables_t.exists(pulled)
    assert after.port("leaf01:8").cable is None and w.scene.fabric is after
    assert sweep.timeline.events[0].kind == "trap" and sweep.index == len(sweep.timeline) - 1
    drawn = stage.overlay.drawn
    assert drawn["ghosts"] == (pulled,) and drawn["old_path"] == before_path
    assert pulled in before_path and pulled not in drawn["paths"][0]
    assert drawn["paths"][0] == path_cables(res[6].routing, trace(res[6].routing, "node01", "node16"))
    rows = [label for label, _c, _s in stage.legend_rows()]
    assert "node01 → node16" in rows and "pulled / unplugged cable" in rows and "port ACTIVE" in rows
    # back to step 6: the cable is there again, no ghost
    dock.prev()
    assert w.editor.fabric is f and f.port("leaf01:8").cable is not None
    assert stage.overlay.drawn["ghosts"] == () and stage.overlay.drawn["paths"] == [before_path]
    assert w.editor.stack.count() == 0


def test_an_edit_stops_the_canvas_following(qtbot, make_window):
    w = make_window()
    dock, stage = _open(qtbot, w, 1)
    _settle(qtbot, w)
    f = w.editor.fabric
    assert w.editor.remove([], [int(f.port("leaf01:8").cable.id)])
    assert not stage.following
    dock.go(5)
    assert w.editor.fabric is f and stage.overlay.drawn == {}
    assert "no longer follows the lesson" in w.statusBar().currentMessage()


def test_lesson_3_credit_loop_and_lesson_2_rewire_are_drawn(qtbot, make_window, tmp_path, shared_runs):
    w = make_window()
    dock, stage = _open(qtbot, w, 3)
    res = dock.results
    dock.go(1)                       # check_loops on minhop: the ring's five switch-to-switch cables
    f = w.editor.fabric
    ring = {int(c) for c in f.cable_ids() if f.device(int(f.ports_t.device[f.cables_t.port_a[c]])).is_switch
            and f.device(int(f.ports_t.device[f.cables_t.port_b[c]])).is_switch}
    assert res[1].loops == 2
    assert set(stage.overlay.drawn["loop"]) == ring and len(stage.overlay.drawn["loop"]) == 5
    out = tmp_path / "loop.png"
    w.export_view(str(out), 800)
    img = QtGui.QImage(str(out))
    loop = QtGui.QColor(LOOP_COLOR).rgb()
    assert img.width() == 800 and any(img.pixel(x, y) == loop for x in range(0, 560, 2) for y in range(40, img.height(), 2))
    dock.go(3)                       # updn with root sw0: routes per port on the canvas
    cables, vals = cable_loads(res[3].routing)
    assert np.array_equal(stage.loads.cables, cables) and np.array_equal(stage.loads.values, vals)
    assert stage.loads.vmax == 3 and stage.loads.level_of_cable(int(cables[vals.argmax()])) == 5
    assert [r[0] for r in stage.loads.legend_rows()] == ["1 route per port", "2 routes per port", "3 routes per port"]
    dock.go(4)                       # updn with a root: no loop left, nothing red
    assert res[4].loops == 0 and stage.overlay.drawn["loop"] == ()
    # lesson 2: the moved uplink is a ghost on the old fabric and a new cable on the new one
    dock2, stage2 = _open(qtbot, w, 2)
    assert stage2.overlay.drawn["paths"] and len(stage2.overlay.drawn["paths"]) == 3   # three engines
    dock2.go(1)
    d = dock2.results[1].change
    assert set(stage2.overlay.drawn["ghosts"]) == set(d.removed) and len(d.removed) == 2
    assert stage2.overlay.drawn["added"] == (d.added,)
    dock2.go(2)                      # ftree refuses on the miswired tree: the new cable stays marked
    assert stage2.overlay.drawn["added"] == (d.added,) and w.editor.fabric is dock2.results[1].fabric
    out = tmp_path / "rewire.png"
    w.export_view(str(out), 800)
    img = QtGui.QImage(str(out))
    colours = {img.pixel(x, y) for x in range(0, 560, 2) for y in range(40, img.height(), 2)}
    assert QtGui.QColor(ADDED_COLOR).rgb() in colours and QtGui.QColor(GHOST_COLOR).rgb() in colours


def test_lesson_shot_draws_the_step_with_its_overlays(qtbot, make_window, tmp_path, shared_runs):
    from fabricviz.ui.shot import shoot
    w = make_window()
    out = shoot(w, "1", 7, tmp_path / "pull.png", 900)
    img = QtGui.QImage(str(out))
    assert img.width() == 900
    colours = {img.pixel(x, y) for x in range(0, 640, 2) for y in range(30, img.height(), 2)}
    assert QtGui.QColor(GHOST_COLOR).rgb() in colours and QtGui.QColor(PATH_COLORS[0]).rgb() in colours
    assert w.lesson_dock.k == 6 and w.sweep_dock.index == len(w.sweep_dock.timeline) - 1
    assert w.lesson_dock.count == len(find_lesson("1").steps) == 7


def test_every_lesson_steps_to_its_end_on_the_canvas(qtbot, make_window, shared_runs):
    """Each bundled lesson opens, every step drives the canvas without error, traffic steps
    colour cables with the run's frame values, and stepping back to step 1 restores it."""
    from fabricviz.anim.lessons import bundled
    w = make_window()
    for num, name, _path in bundled():
        dock, stage = _open(qtbot, w, num)
        assert dock.error is None, (name, dock.error)
        for k in range(dock.count):
            dock.go(k)
            stage.finish()
            assert stage.following and stage.shown == k, (name, k)
            step = dock.results[k]
            assert w.editor.fabric is step.fabric
            res = step.traffic.result if step.traffic is not None else None
            traffic = w.traffic_dock
            if res is None:
                assert traffic.result is None or traffic.result is not stage._traffic_result
                assert dock.legend.isHidden()
                continue
            assert traffic.result is res and traffic.frame == len(res.frames) - 1
            assert not dock.legend.isHidden() and dock.legend.texts() == traffic.legend.texts()
            ov = w.traffic_view.overlay
            fr = res.frames[-1]
            # coloured by what the step is about: a max-min run's shares, a fluid run's queues
            assert traffic.scale.metric == step.traffic.metric == ("queue" if res.model == "fluid"
                                                                     else "utilisation"), (name, k)
            vals = getattr(fr, METRICS[traffic.scale.metric][0])
            c = int(ov.cables[np.argmax(ov.cable_values(vals))])
            hot = max(vals[2 * c], vals[2 * c + 1])
            assert ov.color_of(c) == traffic.scale.color(hot), (name, k)
        dock.go(0)
        assert w.editor.fabric is dock.results[0].fabric


def test_presentation_keeps_only_canvas_and_lesson_on_traffic_steps(qtbot, make_window, shared_runs):
    w = make_window()
    dock, stage = _open(qtbot, w, 5)
    w.action_presentation.trigger()
    dock.go(1)                                   # PFC alone: a fluid run plays on the canvas
    res = dock.results[1].traffic.result
    assert w.traffic_dock.result is res and w.traffic_dock.player.timer.isActive()      # its frames play
    assert not w.traffic_dock.isVisible() and not w.charts_dock.isVisible()
    assert dock.isVisible() and not dock.legend.isHidden()
    assert dock.legend.texts() == ("0 B", "1.03 MB")            # PFC's story: coloured by queue
    w.action_presentation.trigger()
