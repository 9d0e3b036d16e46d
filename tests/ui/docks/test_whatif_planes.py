"""The What-if dock on a multi-plane design: a plane offered as a failure kind, and failing one of
two planes halves the metric, as ``whatif --fail plane:K``."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree
from fabricviz.sim.whatif import parse_fail, prepare, run_trials
from tests.ui.whatif_helpers import run_dock, set_controls

WAIT = 60_000


def test_a_plane_down_halves_the_metric_in_the_dock(make_window, tmp_path, qtbot):
    p = tmp_path / "two.fabric.json"
    save_fabric(fat_tree(radix=8, planes=2), p)
    w = make_window(p)
    w.findChild(QtGui.QAction, "action_whatif_dock").trigger()
    QtWidgets.QApplication.processEvents()
    d = w.whatif_dock
    d.refresh_kinds()
    assert d.kind_box.itemText(d.kind_box.count() - 1) == "a plane (K: which, from 0)"
    set_controls(d, kind="plane", ks="0,1", trials=1)
    assert d.fail_text() == "plane:0,1"
    run_dock(qtbot, d, "done", WAIT)
    expected = run_trials(prepare(w.editor.fabric.copy(), parse_fail("plane:0,1"), "permutation", 1, 3))
    assert d.shown.results == expected
    assert [(r.failed, round(r.relative, 6)) for r in expected] == [(("plane1",), 0.5), (("plane2",), 0.5)]
