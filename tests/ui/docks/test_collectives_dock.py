"""View ▸ Collectives (issue 17): the dock runs fabricviz.sim.collective off the UI thread and shows
exactly the engine's numbers — table, one plot curve per run, the twin's curve, CSV as the CLI
writes it, the slowest step's bottleneck cables selected on the canvas (of the hop named, when
several hops tie)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.sim.collective import Solver, collective, parse_sizes, slowest_step
from fabricviz.sim.twin import twin
from fabricviz.ui.docks.collectives import JOB
from fabricviz.ui.docks.collectives_plot import PICTURE_MIN, size_ticks

SIZES = "8B:1GB:x2"


@pytest.fixture
def window(make_window):
    w = make_window()                                     # the demo: 16 GPUs on a 2-level NDR fat tree
    w.findChild(QtGui.QAction, "action_collectives_dock").trigger()   # View ▸ Collectives
    return w


def _run(qtbot, dock, button=None):
    with qtbot.waitSignal(dock.finished, timeout=60_000) as sig:
        (button or dock.run_button).click()
    return sig.args[0]


def test_placed_as_a_hidden_tab_beside_traffic_no_wider(make_window):
    w = make_window()
    d = w.collectives_dock
    width = w.inspector.width()
    assert not d.isVisible()
    act = w.findChild(QtGui.QAction, "action_collectives_dock")
    assert act in w.acts.menu("view").actions() and act.text() == "Collectives"
    act.trigger()
    w.traffic_dock.toggleViewAction().trigger()
    QtWidgets.QApplication.processEvents()
    assert w.dockWidgetArea(d) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea
    assert set(w.tabifiedDockWidgets(d)) == {w.inspector, w.traffic_dock}
    assert d.width() <= width + 8                  # the right dock area is not widened


def test_allreduce_gives_the_engines_rows_curve_and_bottleneck(window, qtbot):
    d, f = window.collectives_dock, window.fabric
    assert d.isVisible() and d.sizes_edit.text() == SIZES
    run = _run(qtbot, d)
    solver = Solver(f)
    want = collective(f, "allreduce", parse_sizes(SIZES), solver=solver)
    assert len(want.rows) == 27 and want.n == 16
    assert d.table_rows() == [(f"{r.size:.0f}", f"{r.time_us:.2f}", f"{r.algbw:.2f}", f"{r.busbw:.2f}")
                              for r in want.rows]
    assert run.result.rows == want.rows                      # the very numbers, not only their text
    (curve,) = d.plot.curves
    x, y = curve.getData()
    assert x.tolist() == np.log2([r.size for r in want.rows]).tolist()
    assert y.tolist() == [r.busbw for r in want.rows]
    assert d.plot.labels() == ["demo: 2-level NDR fat tree · all-reduce ring · InfiniBand"]
    neck = slowest_step(f, want, solver)
    # the 4 hops that cross leaves (α of 3 switches): their NIC links and leaf ↔ spine01 links, all at 400G
    assert (len(neck.src), len(neck.links), len(neck.cables), neck.rate_gbps) == (4, 16, 12, 400.0)
    assert neck.link_names[:2] == (("leaf01", "spine01"), ("spine01", "leaf01"))
    # the 4 hops tie: only the one named is highlighted (node04 → node05: its NICs' cables and the
    # leaf01 / leaf02 uplinks to spine01), not the 12 cables of all four (issue 29: on a bigger ring
    # the tied hops' cables were every cable of the design)
    assert neck.named_cables.tolist() == [3, 4, 16, 20]
    assert window.scene.selected_cables == {3, 4, 16, 20}
    assert d.message.text().startswith("slowest step at 512M (its first hop highlighted): ring hop node04/gpu0 → "
                                       "node05/gpu0 (and 3 more like it)")
    assert neck.describe(f) in d.message.text()


def test_tree_bottleneck_cables_are_selected(window, qtbot):
    """Tree all-reduce on the demo: the double tree's edges fill the NICs of servers sending four
    halves and two spine uplinks; the dock selects exactly the links the engine says bound the
    slowest edges."""
    d, f = window.collectives_dock, window.fabric
    d.algo_box.setCurrentIndex(1)
    run = _run(qtbot, d)
    solver = Solver(f)
    want = collective(f, "allreduce", parse_sizes(SIZES), algo="tree", solver=solver)
    neck = slowest_step(f, want, solver)
    assert run.result.rows == want.rows and run.result.algo == "tree"
    assert neck.link_names[:2] == (("leaf02", "spine04"), ("leaf03", "spine01")) and neck.rate_gbps == 100.0
    assert set(neck.cables.tolist()) == {2, 3, 4, 5, 7, 8, 10, 11, 12, 13, 23, 24}     # all 20 edges' bottlenecks
    assert window.scene.selected_cables == set(neck.named_cables.tolist()) == {2, 4}   # the edge named: its NICs
    assert "tree edge node03/gpu0 → node05/gpu0 (and 19 more like it) at 100 Gb/s over leaf02→spine04" \
        in d.message.text()


def test_twin_adds_a_second_curve_with_the_twins_numbers(window, qtbot):
    d, f = window.collectives_dock, window.fabric
    _run(qtbot, d)
    before = set(window.scene.selected_cables)
    run = _run(qtbot, d, d.twin_button)
    want = collective(twin(f, "roce"), "allreduce", parse_sizes(SIZES))
    assert run.twin and run.result.tech == "eth"
    assert len(d.plot.curves) == 2
    assert d.plot.curves[1].getData()[1].tolist() == [r.busbw for r in want.rows]
    assert d.plot.labels()[1] == "demo: 2-level NDR fat tree (RoCE twin) · all-reduce ring · RoCE out-of-order"
    assert d.table_rows()[-1][3] == f"{want.rows[-1].busbw:.2f}"
    assert window.scene.selected_cables == before             # the twin is not on the canvas
    d.clear_button.click()
    assert d.plot.curves == [] and d.table.rowCount() == 0 and not d.csv_button.isEnabled()


def test_a_bad_size_is_named_and_nothing_runs(window, qtbot):
    d = window.collectives_dock
    d.sizes_edit.setText("8B:1QB:x2")
    d.run_button.click()
    assert "'1QB'" in d.message.text() and d.message.text().startswith("sizes:")
    assert not window.document.jobs.running(JOB) and d.plot.curves == []


def test_tree_only_for_allreduce(window):
    d = window.collectives_dock
    d.algo_box.setCurrentIndex(1)
    d.op_box.setCurrentIndex(d.op_box.findData("alltoall"))
    assert not d.tree_enabled() and d.algo_box.currentData() == "ring"
    d.op_box.setCurrentIndex(d.op_box.findData("allreduce"))
    assert d.tree_enabled()


def test_csv_is_what_the_cli_writes_and_png_is_the_plot(window, qtbot, tmp_path, monkeypatch):
    from fabricviz.commands.collective import write_csv
    d = window.collectives_dock
    d.op_box.setCurrentIndex(d.op_box.findData("broadcast"))
    d.sizes_edit.setText("1KB,1MB,1GB")
    d.gpus_box.setCurrentIndex(1)
    d.gpus_spin.setValue(4)
    run = _run(qtbot, d)
    assert run.result.n == 4 and [r.size for r in run.result.rows] == [1e3, 1e6, 1e9]
    cli = tmp_path / "cli.csv"
    write_csv(collective(window.fabric, "broadcast", [1e3, 1e6, 1e9], gpus="4"), str(cli))
    out, png = tmp_path / "dock.csv", tmp_path / "plot"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    assert d.export_dialog("csv") == str(out)
    assert out.read_text() == cli.read_text()
    assert out.read_text().splitlines()[1].startswith("1000,250,float,none,0,")
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(png), "")))
    assert d.export_dialog("png") == str(png) + ".png"
    img = QtGui.QImage(str(png) + ".png")
    assert img.width() >= PICTURE_MIN[0] and img.height() >= PICTURE_MIN[1]


def test_cancel_leaves_the_dock_usable(window, qtbot):
    d = window.collectives_dock
    d.run_button.click()
    job = window.document.jobs.active[JOB]
    assert d.cancel_button.isEnabled() and d.progress.maximum() == 0      # busy
    d.cancel_button.click()
    assert job.wait(10)
    QtCore.QCoreApplication.sendPostedEvents(window.document.jobs)
    QtWidgets.QApplication.processEvents()
    assert d.plot.curves == [] and d.message.text() == "cancelled"
    assert not d.cancel_button.isEnabled() and d.progress.maximum() == 1
    _run(qtbot, d)
    assert len(d.plot.curves) == 1


def test_size_ticks_read_like_nccl_tests():
    major, minor = size_ticks(8, 2 ** 29)
    assert [t for _x, t in major] == ["8B", "8K", "8M"]
    assert len(minor) == 27
    assert [t for _x, t in size_ticks(1e3, 1e9)[0]] == ["1K", "1M"]


def test_another_design_keeps_the_curves_by_name_and_errors_are_said(window, qtbot):
    d = window.collectives_dock
    _run(qtbot, d)
    window.files.new_design()                                       # File ▸ New: an empty design
    assert d.plot.labels() == ["demo: 2-level NDR fat tree · all-reduce ring · InfiniBand"]
    assert d.message.text() == ""
    d.run_button.click()
    assert window.document.jobs.wait(JOB, 10)
    assert d.message.text() == "untitled: no GPU bound to a NIC (a collective runs over GPUs)"
    assert len(d.plot.curves) == 1 and not d.cancel_button.isEnabled()
