"""Rough edges a new user hit in the docks (issue 29, item 5): the Traffic dock offered the
InfiniBand SM engine on RoCE designs, the trace fields kept the last design's names, a palette
name was cut with no way to read it."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate import k_ary_fat_tree, leaf_spine
from fabricviz.generate.common import pick_switch, use_part
from fabricviz.model import Fabric
from tests.ui.docks.test_traffic import run_in_dock

pytestmark = pytest.mark.gui
WAIT = 60_000


def shown_texts(dock: QtWidgets.QWidget) -> list[str]:
    """The texts of every combo box the user can see in ``dock`` (its items too)."""
    out = []
    for box in dock.findChildren(QtWidgets.QComboBox):
        if box.isVisibleTo(dock):
            out += [box.itemText(i) for i in range(box.count())]
    return out


def test_traffic_offers_the_sm_engine_only_on_infiniband(make_window, qtbot):
    w = make_window()                                         # the demo: InfiniBand
    w.traffic_dock.toggleViewAction().trigger()
    form = w.traffic_dock.form
    assert form.engine_box.isVisibleTo(w.traffic_dock) and form.engine_box.isEnabled()
    assert "minhop" in shown_texts(w.traffic_dock)
    form.routing_box.setCurrentText("adaptive")               # adaptive routing: no SM tables to pick
    assert form.engine_box.isVisibleTo(w.traffic_dock) and not form.engine_box.isEnabled()
    form.routing_box.setCurrentText("default")
    w.apply_generated(leaf_spine(2, 2, 4))                    # RoCE: ECMP, no subnet manager
    QtWidgets.QApplication.processEvents()
    assert not form.engine_box.isVisibleTo(w.traffic_dock)
    assert not {"minhop", "updn", "ftree"} & set(shown_texts(w.traffic_dock))
    dock = run_in_dock(qtbot, w, workload="incast", arg="4", model="maxmin")
    assert ", ecmp routing, maxmin on eth" in dock.status.text() and "minhop" not in dock.status.text()
    w.apply_generated(k_ary_fat_tree(4))                      # InfiniBand again: offered again
    QtWidgets.QApplication.processEvents()
    assert form.engine_box.isVisibleTo(w.traffic_dock) and form.engine_box.currentText() == "minhop"


def test_trace_fields_are_cleared_when_another_design_opens(make_window, qtbot):
    w = make_window()
    d = w.sweep_dock
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        w.findChild(QtGui.QAction, "action_sweep").trigger()
    qtbot.keyClicks(d.src_edit, "node01")
    qtbot.keyClicks(d.dst_edit, "node16")
    d.trace_button.click()
    assert d.tools.trace
    w.apply_generated(k_ary_fat_tree(4))                      # another design: node16 is not in it
    QtWidgets.QApplication.processEvents()
    assert (d.src_edit.text(), d.dst_edit.text()) == ("", "")
    assert d.src_edit.placeholderText().startswith("source")
    w.editor.stack.undo()                                     # an edit, not a new design, keeps them
    qtbot.keyClicks(d.src_edit, "leaf01")
    assert w.editor.move([w.editor.fabric.find("leaf01")], 10.0, 0.0)
    QtWidgets.QApplication.processEvents()
    assert d.src_edit.text() == "leaf01"


def test_a_cut_part_name_reads_whole_in_its_tooltip_and_fits_at_first_start(make_window):
    w = make_window()
    f = Fabric()
    part = pick_switch(f.catalog, "ib", 16)                   # QM9700-R16, hypothetical
    use_part(f, part)
    w.palette_dock.set_catalog(f.catalog)
    tree = w.palette_dock.tree
    item = w.palette_dock.part_item("QM9700-R16")
    assert item.text(0) == "QM9700-R16 (hypothetical)"
    assert item.toolTip(0).startswith("<b>QM9700-R16 (hypothetical)</b><br>")
    # at the first-start width of the Parts dock the whole name is drawn, not "QM9700-R16 (hypothe…"
    w.resizeDocks([w.palette_dock], [230], QtCore.Qt.Orientation.Horizontal)
    QtWidgets.QApplication.processEvents()
    tree.scrollToItem(item)
    rect = tree.visualItemRect(item)
    need = tree.fontMetrics().horizontalAdvance(item.text(0)) + tree.iconSize().width() + 8
    assert rect.width() >= need and rect.right() <= tree.viewport().width()
