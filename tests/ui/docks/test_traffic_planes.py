"""The Traffic dock on a multi-plane design: the run goes per plane and merged (sim.plane_merge); the
plane box shows all planes at once or one plane's own run on the heatmap.

``fat_tree(radix=8, planes=2)``: per plane 8 leaves, 4 spines, 64 cables; an IB permutation (seed 0)
gives 204.375 Gb/s mean on each plane (minhop, each plane its own SM, each with half the GPU's PCIe),
408.75 per flow over both."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import fat_tree
from fabricviz.model.planes import cable_planes
from fabricviz.sim.plane_merge import PlaneRun
from fabricviz.sim.run import run_traffic
from fabricviz.ui.canvas.overlays.traffic import ColorScale

WAIT = 60_000


def _run(qtbot, w, **controls):
    dock = w.traffic_dock
    dock.configure(**controls)
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    assert dock.error is None, dock.error
    return dock


def _buckets(f, frame, cables):
    val = np.maximum(frame.link_util[0::2][:f.cables_t.n], frame.link_util[1::2][:f.cables_t.n])
    scale = ColorScale("utilisation", 0, 1)
    return [scale.bucket(float(val[c])) for c in cables]


@pytest.mark.parametrize("model", ["maxmin", "fluid"])
def test_a_two_plane_run_shows_all_planes_then_each_alone(make_window, qtbot, model):
    w = make_window()
    f = fat_tree(radix=8, planes=2)
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    dock = _run(qtbot, w, workload="permutation", arg="", model=model, duration="100us", seed=0)
    ref = run_traffic(f, "permutation", model, "static", "minhop", 100e-6, 0)
    res = dock.result
    assert isinstance(res, PlaneRun) and dock.planes.box.isVisibleTo(dock)
    assert [dock.planes.box.itemText(i) for i in range(3)] == ["all planes", "plane1", "plane2"]
    assert round(float(res.flow_rates().mean()), 4) == round(float(ref.flow_rates().mean()), 4) == 408.75
    status = dock.status.text()
    assert "rate/line mean 0.511" in status and "2 planes merged (mean Gb/s per flow: plane1 204.4, plane2 204.4)" \
        in status
    ov = w.traffic_view.overlay
    cp = cable_planes(f)
    live = f.cable_ids()
    one, two = live[cp[live] == 0], live[cp[live] == 1]
    assert len(one) == len(two) == 64
    last = len(ref.frames) - 1
    assert dock.frame == last
    # all planes: every cable in the colour of the merged frame, both planes' cables lit
    assert [ov.bucket_of(int(c)) for c in live] == _buckets(f, ref.frames[last], live)
    assert any(ov.bucket_of(int(c)) > 0 for c in one) and any(ov.bucket_of(int(c)) > 0 for c in two)
    # plane 1 alone: its own run's frame; plane 2's cables not in it (drawn as the design draws them)
    dock.planes.set_plane(0)
    p1 = ref.plane_results[0]
    assert dock.result is res.plane_results[0] and "showing plane1 alone" in dock.status.text()
    k = dock.frame
    assert [ov.bucket_of(int(c)) for c in one] == _buckets(f, p1.frames[k], one)
    assert all(ov.bucket_of(int(c)) is None for c in two) and ov.drawn_count() == 64
    assert dock.planes.box.isVisibleTo(dock)          # still the two-plane run's box
    dock.planes.set_plane(1)
    assert all(ov.bucket_of(int(c)) is None for c in one) and any(ov.bucket_of(int(c)) > 0 for c in two)
    dock.planes.set_plane(None)
    assert dock.result is res and [ov.bucket_of(int(c)) for c in live] == _buckets(f, ref.frames[last], live)
    assert ov.drawn_count() == 128


def test_the_plane_box_hides_for_a_single_plane_run(make_window, qtbot):
    w = make_window()
    f = fat_tree(radix=8)
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    dock = _run(qtbot, w, workload="permutation", arg="", model="maxmin", seed=0)
    assert not isinstance(dock.result, PlaneRun) and not dock.planes.box.isVisibleTo(dock)
    assert "planes merged" not in dock.status.text()
