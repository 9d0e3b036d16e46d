"""Live routing toggles and adopt(): the dock re-runs (or shows) exactly what the engine computes.

Expected numbers come from ``run_traffic`` called directly (what ``fabricviz
simulate`` runs). On leaf_spine(4, 4, 4) (16 hosts, one 400G uplink from each
leaf to each of 4 spines, non-blocking) the seed-0 permutation collides under
ECMP hashing: rate/line mean 21/32 = 0.65625; adaptive routing spreads it to 1.0.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.model import FabricError
from fabricviz.sim.run import run_traffic

WAIT = 60_000                # a generous deadline: only a hang waits this long


def window_with(make_window, f):
    w = make_window()
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    assert w.scene.fabric is f
    return w, w.traffic_dock


def first_run(qtbot, dock, **controls):
    dock.configure(**controls)
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    assert dock.error is None and not dock.running


def same_run(res, ref):
    assert (res.routing, res.model, len(res.frames)) == (ref.routing, ref.model, len(ref.frames))
    assert np.array_equal(res.routes.links, ref.routes.links)
    for a, b in zip(res.frames, ref.frames, strict=True):
        assert np.array_equal(a.flow_rate_gbps, b.flow_rate_gbps)
        assert np.array_equal(a.link_util, b.link_util)


def test_maxmin_ecmp_to_adaptive_reruns_live(make_window, qtbot):
    f = leaf_spine(4, 4, 4)
    w, dock = window_with(make_window, f)
    first_run(qtbot, dock, workload="permutation", arg="", model="maxmin", routing="ecmp", seed=0)
    ecmp = dock.result
    assert ecmp.summary(f)["rate_share"]["mean"] == pytest.approx(21 / 32, abs=1e-7)   # float32 rates
    dock.player.set_playing(True)                  # one steady-state frame: nothing to play
    assert not dock.player.timer.isActive()
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT) as sig:
        dock.form.routing_box.setCurrentText("adaptive")          # what the user's pick does
        assert dock.running
    res = dock.result
    assert sig.args == [res] and res is not ecmp
    ref = run_traffic(f, "permutation", "maxmin", "adaptive", "minhop", 10e-3, 0)
    same_run(res, ref)
    assert res.summary(f)["rate_share"]["mean"] == ref.summary(f)["rate_share"]["mean"] == \
        pytest.approx(1.0, abs=1e-7)
    assert dock.status.text().startswith("ecmp → adaptive: rate/line mean 0.656 → 1.000 (min 1.000) · "
                                         "16 flows, maxmin on eth · 1 frame(s) · ")
    assert w.charts_dock.result is res                      # the charts follow
    assert dock.frame == 0 and dock.player.slider.maximum() == 0


def test_fluid_rerun_keeps_frame_and_playing(make_window, qtbot):
    f = leaf_spine(4, 4, 4)
    w, dock = window_with(make_window, f)
    first_run(qtbot, dock, workload="permutation", arg="", model="fluid", routing="ecmp",
              duration="0.2ms", seed=0)
    assert len(dock.result.frames) == 200
    charts = w.charts_dock
    charts.show_link(charts.link_box.itemData(2))
    link, flow = charts.link, charts.flow
    dock.player.set_frame(37)
    dock.player.timer.setInterval(10 ** 7)         # "playing" without a tick racing the re-run
    dock.player.set_playing(True)
    assert dock.player.timer.isActive() and dock.player.play_button.isChecked()
    t37 = dock.current_frame().time_s
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        dock.form.routing_box.setCurrentText("adaptive")
    ref = run_traffic(f, "permutation", "fluid", "adaptive", "minhop", 0.2e-3, 0)
    same_run(dock.result, ref)
    assert dock.frame == 37 and dock.current_frame().time_s == t37
    assert dock.player.frame_label.text().startswith("38/200")
    assert dock.player.timer.isActive() and dock.player.play_button.isChecked() and dock.player.play_button.text() == "⏸"
    share = ref.summary(f)["rate_share"]["mean"]
    before = run_traffic(f, "permutation", "fluid", "ecmp", "minhop", 0.2e-3, 0).summary(f)["rate_share"]["mean"]
    assert dock.status.text().startswith(f"ecmp → adaptive: rate/line mean {before:.3f} → {share:.3f} (min ")
    # the charts keep the user's link and flow, now with the adaptive run's values
    assert (charts.link, charts.flow) == (link, flow)
    assert np.array_equal(charts.curve_data("util")[1],
                          np.array([fr.link_util[link] for fr in ref.frames], np.float64))
    assert charts.cursors[0].value() == pytest.approx(t37 * 1e3)
    dock.player.set_playing(False)


def test_changes_during_a_run_wait_and_only_the_latest_runs(make_window, qtbot):
    f = leaf_spine(4, 4, 4)
    w, dock = window_with(make_window, f)
    first_run(qtbot, dock, workload="permutation", arg="", model="maxmin", routing="ecmp", seed=0)
    shown = []
    dock.result_ready.connect(lambda r: shown.append(r.routing))
    runs = dock.runs_started
    dock.form.routing_box.setCurrentText("adaptive")               # starts a run
    assert dock.running
    dock.form.routing_box.setCurrentText("static")                 # both wait ...
    dock.form.routing_box.setCurrentText("spray")                  # ... and only spray runs next
    assert dock.runs_started == runs + 1 and "next: spray" in dock.status.text()
    qtbot.waitUntil(lambda: shown == ["adaptive", "spray"] and not dock.running, timeout=WAIT)
    assert dock.runs_started == runs + 2
    same_run(dock.result, run_traffic(f, "permutation", "maxmin", "spray", "minhop", 10e-3, 0))
    assert dock.status.text().startswith("adaptive → spray: rate/line mean 1.000 → 1.000")
    # configure() sets the controls for scripts and lessons: no re-run
    dock.configure(routing="ecmp")
    assert not dock.running and dock.runs_started == runs + 2


def test_engine_change_reruns_on_ib_static_only(make_window, qtbot):
    f = fat_tree(2, 8, fabric="ib")
    w, dock = window_with(make_window, f)
    first_run(qtbot, dock, workload="permutation", arg="", model="maxmin", routing="default",
              engine="minhop", seed=3)
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        dock.form.engine_box.setCurrentText("updn")
    same_run(dock.result, run_traffic(f, "permutation", "maxmin", None, "updn", 10e-3, 3))
    assert dock.status.text().startswith("static (minhop) → static (updn): rate/line mean 0.750 → 0.750")
    # on RoCE the SM engine does not route: nothing to re-run, and the status says so
    f2 = leaf_spine(2, 2, 4)
    w2, dock2 = window_with(make_window, f2)
    first_run(qtbot, dock2, workload="permutation", arg="", model="maxmin", seed=0)
    res, runs = dock2.result, dock2.runs_started
    dock2.form.engine_box.setCurrentText("ftree")
    assert not dock2.running and dock2.runs_started == runs and dock2.result is res
    assert dock2.status.text().endswith("same routes with default (ftree): not re-run")


def test_adopt_shows_a_precomputed_run_then_toggles_live(make_window, qtbot):
    f = leaf_spine(4, 4, 4)
    w, dock = window_with(make_window, f)
    ref = run_traffic(f, "incast", "fluid", "ecmp", "minhop", 0.1e-3, 0)     # a lesson's worker
    runs = dock.runs_started
    with pytest.raises(FabricError, match="traffic routing 'fast'"):
        dock.adopt(ref, f, routing="fast")
    assert dock.result is None and dock.form.routing_box.currentText() == "default"
    frames = []
    dock.frame_changed.connect(frames.append)
    with qtbot.waitSignals([dock.result_ready, dock.scale_changed], timeout=WAIT):
        dock.adopt(ref, f, workload="incast", arg="", model="fluid", routing="ecmp", duration="0.1ms", seed=0)
    assert dock.runs_started == runs and not dock.running             # shown, not re-run
    assert dock.result is ref and dock.result_fabric is f and frames == [0]
    assert (dock.form.routing_box.currentText(), dock.form.model_box.currentText()) == ("ecmp", "fluid")
    assert dock.player.slider.maximum() == len(ref.frames) - 1 == 99
    s = ref.summary(f)
    assert dock.status.text().startswith(f"{s['flows']} flows, ecmp routing, fluid on eth · 100 frame(s) · "
                                         f"rate/line mean {s['rate_share']['mean']:.3f}")
    assert "precomputed" in dock.status.text()
    assert w.traffic_view.overlay.drawn_count() == f.cables_t.alive.sum()
    assert w.charts_dock.result is ref and w.charts_dock.has_cc_rate
    # the adopted run is live like one the dock ran: same workload, duration and seed, new routing
    dock.player.set_frame(40)
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        dock.form.routing_box.setCurrentText("spray")
    same_run(dock.result, run_traffic(f, "incast", "fluid", "spray", "minhop", 0.1e-3, 0))
    assert dock.frame == 40
