"""The What-if dock (issue 17) on a RoCE leaf-spine of 2 leaves × 2 spines × 2 hosts per leaf.

Expected numbers come from the engine called directly (:mod:`fabricviz.sim.whatif`) on the same
design, and the worst list from ``fabricviz whatif --worst --csv`` itself. The design (see
tests/sim/test_whatif.py): intact permutation mean 300 Gb/s; a leaf-spine cable down → 200 × 4 flows;
a host cable down → that host cut off; leaf01 down → node01 and node02 cut off, nothing runs.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate.leafspine import leaf_spine
from fabricviz.sim.whatif import parse_fail, per_k, prepare, ranked, run_trials
from fabricviz.ui.docks import whatif as whatif_mod
from fabricviz.ui.docks import whatif_runner
from fabricviz.ui.layout import Area
from tests.ui.whatif_helpers import run_dock, set_controls

WAIT = 60_000                # a generous deadline: only a hang waits this long
LEFT = QtCore.Qt.MouseButton.LeftButton


@pytest.fixture
def design(tmp_path):
    p = tmp_path / "ls.json"
    save_fabric(leaf_spine(2, 2, 2), p)
    return p


@pytest.fixture
def window(make_window, design):
    """(window, What-if dock) opened from View ▸ What-if on the leaf-spine."""
    w = make_window(design)
    w.findChild(QtGui.QAction, "action_whatif_dock").trigger()
    QtWidgets.QApplication.processEvents()
    return w, w.whatif_dock


_set = set_controls


def _run(qtbot, d, expect="done"):
    run_dock(qtbot, d, expect, WAIT)


def _click_row(qtbot, d, row):
    ix = d.model.index(row, 0)
    d.table.scrollTo(ix)
    qtbot.mouseClick(d.table.viewport(), LEFT, pos=d.table.visualRect(ix).center())


def test_dock_is_a_hidden_tab_beside_traffic_opened_from_the_view_menu(make_window, design):
    w = make_window(design)
    d = w.whatif_dock
    assert not d.isVisible() and w.dockWidgetArea(d) == Area.RightDockWidgetArea
    w.findChild(QtGui.QAction, "action_whatif_dock").trigger()
    assert d.isVisible() and not d.visibleRegion().isEmpty()
    assert d in w.tabifiedDockWidgets(w.inspector)          # a tab of the right-hand group, not a new column


def test_run_shows_the_engines_per_k_statistics_and_a_click_shows_the_trial_changing_nothing(window, qtbot):
    w, d = window
    f, stack, doc = w.editor.fabric, w.editor.stack, w.document
    rev, count, clean = doc.revision, stack.count(), stack.isClean()
    expected = run_trials(prepare(f.copy(), parse_fail("cables:1,2"), "permutation", 6, 3))
    _set(d)
    _run(qtbot, d)
    assert d.shown.results == expected and d.progress.value() == 1000
    summary = per_k(expected)
    assert d.model.rowCount() == 12 and d.model.columns == ("failed", "K", "trial", "rel.", "cut", "degr.")
    # the plot draws exactly the engine's per-K numbers
    px = d.plot
    rel = {x: [s["relative"][x] for s in summary] for x in ("min", "p5", "median", "p95", "max")}
    for name in ("p5", "median", "p95"):
        x, y = px.curve(name)
        assert x.tolist() == [1.0, 2.0] and y.tolist() == rel[name]
    lo, hi = px.whisker_ends()
    assert lo.tolist() == pytest.approx(rel["min"], abs=1e-12) and hi.tolist() == pytest.approx(rel["max"], abs=1e-12)
    bx, bh = px.cut_bars()
    assert bx.tolist() == [1.0, 2.0] and bh.tolist() == [s["disconnected_hosts"]["mean"] for s in summary]
    assert px.curve("cut_max")[1].tolist() == [s["disconnected_hosts"]["max"] for s in summary]
    assert d.status.text().startswith("12 trials · cables · permutation, intact 300 Gb/s per flow")
    # a K=2 trial clicked in the table: its two cables selected and drawn as failed
    row = 8
    r = expected[row]
    _click_row(qtbot, d, row)
    assert d.shown_row == row
    assert sorted(f.cable(c).label for c in w.scene.selected_cables) == sorted(r.failed) and len(r.failed) == 2
    assert d.failed_cables.cables == sorted(w.scene.selected_cables)
    drawn = [i for i in w.scene.items() if i.data(2) == whatif_mod.ROLE]
    from fabricviz.ui.canvas.items.cables import drawn_segments, routes_for
    route = drawn_segments(routes_for(f).of(np.array(d.failed_cables.cables)))     # along both cables' routes
    assert len(drawn) == 1 and drawn[0].path().elementCount() == 2 * route.shape[1] >= 2 * 2
    from tests.ui.canvas.test_near_routes import path_segments
    seg = path_segments(drawn[0].path())
    assert np.allclose(seg, route) and ((seg[0] == seg[2]) | (seg[1] == seg[3])).all()     # at right angles
    assert r.disconnected == ("node01",) and r.nics_cut == 1          # node01's one NIC lost its cable
    assert [d.model.index(row, c).data() for c in range(6)] == [", ".join(r.failed), "2", "2", f"{r.relative:.3f}",
                                                                "1", "0"]
    assert d.trial_line.text() == f"trial 2 (K=2): {r.failed[0]}, {r.failed[1]} down; 1 host cut off, 0 degraded (1 NIC)"
    # a trial's point in the plot shows that trial too
    pt = [p for p in px.points.points() if p.data() == 3][0]
    px.points.sigClicked.emit(px.points, [pt], None)
    assert d.shown_row == 3 and sorted(f.cable(c).label for c in w.scene.selected_cables) == list(expected[3].failed)
    # the what-if edited nothing
    assert (doc.revision, stack.count(), stack.isClean()) == (rev, count, clean)
    assert len(f.cable_ids()) == 8 and not w.isWindowModified()
    # opening another design clears the dock and the canvas
    w.document.open(leaf_spine(2, 2, 1), None, "other")
    assert d.shown is None and d.model.rowCount() == 0 and px.mode == "" and px.curve("median")[0].size == 0
    assert not [i for i in w.scene.items() if i.data(2) == whatif_mod.ROLE] and d.trial_line.text() == ""


def test_worst_single_failures_equal_the_cli_ranking_and_export(window, qtbot, design, tmp_path, capsys):
    w, d = window
    _set(d, kind="cables", worst=True)
    _run(qtbot, d)
    cli_csv, dock_csv = tmp_path / "cli.csv", tmp_path / "dock.csv"
    assert main(["whatif", str(design), "--fail", "cables:1", "--worst", "--seed", "3", "--csv", str(cli_csv),
                 "--quiet"]) == 0
    capsys.readouterr()
    assert d.export_csv(dock_csv) == 8
    assert dock_csv.read_text() == cli_csv.read_text()
    assert [d.model.index(i, 0).data() for i in range(8)] == [
        "leaf01:3 – spine01:1", "leaf01:4 – spine02:1", "leaf02:3 – spine01:2", "leaf02:4 – spine02:2",
        "node01/mlx5_0:1 – leaf01:1", "node02/mlx5_0:1 – leaf01:2", "node03/mlx5_0:1 – leaf02:1",
        "node04/mlx5_0:1 – leaf02:2"]
    assert d.plot.mode == "ranking" and d.plot.curve("median")[1].tolist() == pytest.approx([2 / 3] * 8, abs=1e-12)
    png = tmp_path / "plot.png"
    size = d.export_png(png)
    img = QtGui.QImage(str(png))
    assert (img.width(), img.height()) == size and size[0] >= 900
    assert img.pixelColor(2, 2).name() == "#ffffff"                   # white, as the Collectives plot
    # a failed switch: every one of its cables is shown
    _set(d, kind="switches", worst=True)
    _run(qtbot, d)
    f = w.editor.fabric
    expected = ranked(run_trials(prepare(f.copy(), parse_fail("switches:1"), worst=True, seed=3)))
    assert d.shown.rows() == expected and expected[0].failed == ("leaf01",)
    _click_row(qtbot, d, 0)
    leaf = f.device_id("leaf01")
    pt = f.ports_t
    own = {int(c) for c in pt.cable[(pt.device == leaf) & (pt.cable >= 0)]}
    assert w.scene.selected_cables == own and len(own) == 4
    assert d.trial_line.text() == "#1: leaf01 down; 2 hosts cut off, 0 degraded (2 NICs)"


def test_cancel_mid_run_keeps_the_finished_trials_and_the_dock_runs_again(window, qtbot, monkeypatch):
    w, d = window
    real = whatif_runner.engine_trial
    reached, release = threading.Event(), threading.Event()

    def held(sh, j):                 # the 4th trial waits until the test has pressed Cancel
        if j == 3 and not release.is_set():
            reached.set()
            release.wait(WAIT / 1000)
        return real(sh, j)
    monkeypatch.setattr(whatif_runner, "engine_trial", held)
    _set(d)
    expected = run_trials(prepare(w.editor.fabric.copy(), parse_fail("cables:1,2"), "permutation", 6, 3))
    qtbot.mouseClick(d.run_button, LEFT)
    assert reached.wait(WAIT / 1000)
    qtbot.waitUntil(lambda: d.progress.value() == 250, timeout=WAIT)       # 3 of 12 trials, one report each
    assert d.running() and not d.run_button.isEnabled() and d.cancel_button.isEnabled()
    with qtbot.waitSignal(d.finished, timeout=WAIT) as sig:
        qtbot.mouseClick(d.cancel_button, LEFT)
    release.set()
    assert sig.args == ["cancelled"]
    assert d.shown.results == expected[:3] and d.model.rowCount() == 3
    assert d.status.text().startswith("cancelled: 3 of 12 trials kept")
    assert d.run_button.isEnabled() and not d.cancel_button.isEnabled()
    _run(qtbot, d)
    assert d.shown.results == expected and not d.shown.cancelled


def test_refusals_are_one_line_and_start_nothing(window, qtbot):
    _w, d = window
    _set(d, ks="1,99")
    _run(qtbot, d, expect="error")
    assert d.status.text() == "refused: fail 'cables:1,99': K=99 but the design has 8 cables"
    _set(d, ks="x")
    qtbot.mouseClick(d.run_button, LEFT)
    assert not d.running() and d.status.text().startswith("refused: fail 'cables:x'")
    assert np.isclose(d.progress.value(), 0)


def test_hosts_that_lost_some_nics_are_degraded_not_cut_off(make_window, tmp_path, qtbot):
    """Two DGX (8 NICs each, one per rail leaf): a rail leaf down costs each DGX one NIC of eight."""
    from fabricviz.generate.rail import rail_optimized
    p = tmp_path / "rail.json"
    save_fabric(rail_optimized(1, "roce", nodes_per_unit=2), p)
    w = make_window(p)
    w.findChild(QtGui.QAction, "action_whatif_dock").trigger()
    d = w.whatif_dock
    _set(d, kind="switches", worst=True)
    _run(qtbot, d)
    assert d.model.columns == ("failed", "rank", "deliv.", "rel.", "cut", "degr.")
    assert [d.model.index(0, c).data() for c in range(6)] == ["su1-rail1", "1", "0.750", "1.000", "0", "2"]
    assert [d.model.index(11, c).data() for c in (0, 4, 5)] == ["spine03", "0", "0"]
    assert d.model.headerData(5, QtCore.Qt.Orientation.Horizontal, QtCore.Qt.ItemDataRole.ToolTipRole) == (
        "hosts degraded (lost some of their NICs' paths)")
    assert d.model.index(0, 5).data(QtCore.Qt.ItemDataRole.ToolTipRole).endswith(
        "cut off: none\ndegraded: su1-dgx01, su1-dgx02 (2 NICs cut)")
    _click_row(qtbot, d, 0)
    assert d.trial_line.text() == "#1: su1-rail1 down; 0 hosts cut off, 2 degraded (2 NICs)"
    assert d.plot.cut_bars()[1].tolist() == [0.0] * 12         # the bottom plot: hosts cut off, none


def test_zoomed_out_the_failed_cables_follow_their_bundles_routes(make_window, tmp_path, qtbot):
    """A radix-8 three-level fat tree (128 hosts) at the middle level on a 1920×1080 window: a
    failed cable from a lower-row pod's spine up to a core is drawn along the route its bundle takes
    round the upper pods (the selection's route), not straight across them."""
    from fabricviz.generate import k_ary_fat_tree
    from fabricviz.ui.canvas.overlays.bundled import colours_of
    p = tmp_path / "ft8.json"
    save_fabric(k_ary_fat_tree(8), p)
    w = make_window(p)
    w.resize(1920, 1080)
    QtWidgets.QApplication.processEvents()
    w.view.fit_all()
    QtWidgets.QApplication.processEvents()
    w.findChild(QtGui.QAction, "action_whatif_dock").trigger()
    d = w.whatif_dock
    sem = w.scene.semantic
    sem.refresh()
    for _ in range(8):                  # fitted, its pods may read as far boxes: zoom in to the middle level
        if sem.level == "middle":
            break
        w.view.zoom_by(1.15)
        QtWidgets.QApplication.processEvents()
        sem.refresh()
    assert sem.level == "middle"
    _set(d, kind="links-of:spine-core", ks="1", trials=1, seed=3)
    _run(qtbot, d)
    _click_row(qtbot, d, 0)
    assert d.shown.results[0].failed == ("spine17:7 – core03:5",)
    f = w.editor.fabric
    cable = [int(c) for c in f.cable_ids() if f.cable(int(c)).label == "spine17:7 – core03:5"]
    assert d.failed_cables.cables == cable and len(cable) == 1
    assert not [i for i in w.scene.items() if i.data(2) == whatif_mod.ROLE]     # no straight line of its own
    cids, pen = colours_of(w.scene).tops["whatif"]
    assert cids.tolist() == cable and pen.style() == QtCore.Qt.PenStyle.DashLine
    top, selected = sem.draw.top.path(), sem.draw.selected.path()
    # along its pod's bundle up to the cores (the middle level bundles pod–core cables): its route's
    # segments, at right angles, not one straight line
    k = int(sem.bundles.of_cable[sem.cable_pos[cable[0]]])
    route = sem.bundle_segments[:, sem.segment_bundle == k]
    assert sem.bundles.a[k] < sem.grouping.n_groups and route.shape[1] == 3
    assert sem.draw.top.isVisible() and top.elementCount() == 2 * route.shape[1]
    els = [top.elementAt(i) for i in range(top.elementCount())]
    assert [(e.x, e.y) for e in els] == [(float(x), float(y)) for j in range(route.shape[1])
                                         for x, y in (route[:2, j], route[2:, j])]
    assert [top.elementAt(i) for i in range(top.elementCount())] == [
        selected.elementAt(i) for i in range(selected.elementCount())]  # where the selection glows
    d.show_row(None)
    assert "whatif" not in colours_of(w.scene).tops and not sem.draw.top.isVisible()


def test_the_fail_kinds_offered_are_the_designs_switch_tiers(window, qtbot):
    """A leaf-spine has leaf and spine switches; a three-level fat tree core switches too. Failing the
    spines runs the engine's switches-of:spine, and the status line says "spine switches"."""
    from fabricviz.generate import k_ary_fat_tree
    w, d = window
    kinds = lambda: [d.kind_box.itemText(i) for i in range(d.kind_box.count())]   # noqa: E731
    assert kinds() == ["cables", "switches", "spine switches", "leaf switches", "host links", "leaf-spine links",
                       "spine-core links"]
    _set(d, kind="switches-of:spine", ks="1,2", trials=2)
    assert d.fail_text() == "switches-of:spine:1,2"
    _run(qtbot, d)
    f = w.editor.fabric
    assert d.shown.results == run_trials(prepare(f.copy(), parse_fail("switches-of:spine:1,2"), "permutation", 2, 3))
    assert [(r.failed, r.relative) for r in d.shown.results] == [
        (("spine02",), 2 / 3), (("spine02",), 2 / 3), (("spine01", "spine02"), 0.0), (("spine01", "spine02"), 0.0)]
    assert d.status.text() == "4 trials · spine switches · permutation, intact 300 Gb/s per flow"
    assert d.plot.band.isVisible() and not d.plot.band.path().isEmpty()
    _set(d, kind="switches-of:spine", worst=True)         # every spine ranked; no p5–p95 band left behind
    _run(qtbot, d)
    assert [r.failed for r in d.shown.rows()] == [("spine01",), ("spine02",)] and d.plot.mode == "ranking"
    assert not d.plot.band.isVisible()
    w.document.open(k_ary_fat_tree(4), None, "ft4")
    assert "core switches" in kinds() and d.kind_box.currentData() == "switches-of:spine"     # the choice kept
    w.document.open(leaf_spine(2, 2, 1), None, "ls")
    assert "core switches" not in kinds()


def test_at_the_docks_width_the_failed_column_reads_without_scrolling(window, qtbot):
    """At 340 px the table's first column, what failed, takes the width the numbers leave: a
    leaf-spine cable's name is shown whole, no horizontal scroll bar."""
    w, d = window
    w.resizeDocks([d], [340], QtCore.Qt.Orientation.Horizontal)
    _set(d, kind="cables", ks="1", trials=4)
    _run(qtbot, d)
    QtWidgets.QApplication.processEvents()
    assert d.width() <= 360
    t, hh = d.table, d.table.horizontalHeader()
    assert hh.sectionResizeMode(0) == QtWidgets.QHeaderView.ResizeMode.Stretch
    assert hh.length() <= t.viewport().width() and not t.horizontalScrollBar().isVisible()
    text = d.model.index(0, 0).data()
    assert text == "leaf01:3 – spine01:1" and t.fontMetrics().horizontalAdvance(text) + 8 <= hh.sectionSize(0)
    assert t.textElideMode() == QtCore.Qt.TextElideMode.ElideMiddle


def test_the_plot_is_white_with_dark_axes_as_the_collectives_plot(window):
    from fabricviz.ui.docks import whatif_plot
    _w, d = window
    px = d.plot
    assert px.backgroundBrush().color().name() == "#ffffff"
    for p in (px.top, px.bottom):
        for side in ("left", "bottom"):
            assert p.getAxis(side).pen().color().name() == "#404040"
            assert p.getAxis(side).textPen().color().name() == "#202020"
    # what is drawn on white is dark enough to read: every colour's luminance well below white's
    for rgb in (whatif_plot.MEDIAN, whatif_plot.POINT[:3], whatif_plot.CUT, whatif_plot.WHISKER):
        assert 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2] < 160
