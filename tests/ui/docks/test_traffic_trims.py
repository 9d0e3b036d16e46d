"""Trimmed packets drawn: the Traffic dock's EQDS run marks the cables whose queues trim and charts
trims/s; a run that does not trim (HPCC, RoCE) draws neither.

Expected values are the engine's (``run_traffic``, what ``fabricviz simulate --transport eqds``
runs) on the 16-host radix-8 RoCE fat tree at 100GbE: its permutation sprays every packet over the
4 spines and the hash imbalance of EQDS's 64 path ids over them trims on 11 links (1,467,079
packets/s in all, ≥ 10⁴/s on each: from 10,884/s on spine02 → leaf04 to 468,851/s on spine03 →
leaf03), on 7 cables (both directions of 4 of them trim).
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import fat_tree
from fabricviz.sim.run import run_traffic
from fabricviz.ui.canvas.legend import overlay_rows
from fabricviz.ui.canvas.overlays.trims import MIN_TRIMS_PER_S, ROLE, TRIM_LABEL, TrimMarks, trimming_cables
from fabricviz.ui.docks.charts import TRIM_PLOT

WAIT = 60_000                # a generous deadline: only a hang waits this long

pytestmark = pytest.mark.gui


def tree():
    return fat_tree(2, 8, fabric="roce", speed="100GbE", switch="SN4700", hosts=16)


def run_in_dock(qtbot, window, **controls):
    dock = window.traffic_dock
    dock.configure(**controls)
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    assert dock.error is None
    QtWidgets.QApplication.processEvents()
    return dock


def marks(scene):
    return [it for it in scene.items() if it.data(2) == ROLE]


def test_trimming_cables_from_per_link_rates():
    t = np.array([0.0, 2e4, 5e3, 5e3, 1e4, 0.0, 3e6, 3e6, 9e9])   # the last entry: a PCIe link
    assert trimming_cables(t, 8).tolist() == [0, 2, 3]
    assert trimming_cables(np.zeros(0), 8).tolist() == []
    assert MIN_TRIMS_PER_S == 1e4


def test_eqds_marks_trimming_links_and_charts_trims(make_window, qtbot):
    w = make_window()
    f = tree()
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    ref = run_traffic(f, "permutation", "maxmin", None, "minhop", 1e-3, 0, transport="eqds")
    trims = ref.frames[0].link_trims_per_s
    assert int((trims >= MIN_TRIMS_PER_S).sum()) == 11 and float(trims.sum()) == pytest.approx(1_467_079, abs=1)
    want = trimming_cables(trims, ref.links.n_cable_links)
    assert want.tolist() == [24, 25, 26, 27, 29, 30, 31]           # leaf03/leaf04 ↔ spines

    dock = run_in_dock(qtbot, w, workload="permutation", arg="", model="maxmin", seed=0, transport="eqds")
    res = dock.result
    np.testing.assert_array_equal(res.frames[0].link_trims_per_s, trims)
    tm = w.traffic_view.trims
    assert isinstance(tm, TrimMarks) and tm.cables.tolist() == want.tolist()
    drawn = marks(w.scene)
    assert len(drawn) == 2                                         # casing and ticks, one path each
    # one sub-path per marked cable, each along the cable's own route
    assert all(len(it.path().toSubpathPolygons()) >= len(want) for it in drawn)
    # an exported picture's legend names the mark
    assert [r[0] for r in overlay_rows(w.scene.items(), w.scene)].count(TRIM_LABEL) == 1

    charts = w.charts_dock
    assert TRIM_PLOT in charts.plot and charts.trims_shown and len(charts.laid_out()) == 7
    _, all_trims = charts.curve_data("all_trims")
    assert all_trims == pytest.approx([float(trims.sum())], rel=1e-6)
    link = int(np.argmax(trims))
    charts.show_link(link)
    _, one = charts.curve_data("link_trims")
    assert one == pytest.approx([float(trims[link])], rel=1e-6)

    # HPCC (lossless, no trimming): no marks, and the trims plot leaves the grid
    run_in_dock(qtbot, w, workload="permutation", arg="", model="maxmin", seed=0, transport="hpcc")
    assert not dock.result.frames[0].has_trims
    assert tm.cables.tolist() == [] and marks(w.scene) == []
    assert TRIM_LABEL not in [r[0] for r in overlay_rows(w.scene.items(), w.scene)]
    assert TRIM_PLOT not in charts.plot and len(charts.laid_out()) == 6
    assert charts.curve_data("all_trims")[1].tolist() == []
