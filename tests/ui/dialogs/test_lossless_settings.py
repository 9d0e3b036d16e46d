"""Design ▸ RoCE Settings on a real window: one undo step that the Lossless dock's plan follows,
undo gives the meta back byte for byte, a refused field is named and changes nothing.

Numbers (400GbE, 100 m SR8 run, see test_lossless_dock.py): MTU 4200 under the NVIDIA rule is
2 × 4,200 + 3,840 + 130 × 400 = 64,240 B; IEEE at MTU 4200: 9,236 → 4,220 per frame term, so
187,351 − 2 × 5,016 = 177,319 B. Two lossless priorities double the headroom total.
"""

from __future__ import annotations

import json

from PySide6 import QtGui, QtWidgets

from fabricviz.ethernet.lossless import lossless_plan
from fabricviz.ethernet.roce_meta import RoceSettings
from tests.ui.roce_helpers import open_dock, roce_window


def design_menu(w):
    return [m for m in w.menuBar().findChildren(QtWidgets.QMenu) if m.title() == "&Design"][0]


def test_settings_edit_replans_and_undo_restores_the_meta_exactly(make_window):
    w = roce_window(make_window)
    d = open_dock(w)
    f = w.editor.fabric
    before, steps = json.dumps(f.meta, sort_keys=False), w.editor.stack.count()
    assert "roce" not in f.meta
    act = w.findChild(QtGui.QAction, "action_roce_settings")
    assert act in design_menu(w).actions()
    act.trigger()
    dlg = w.findChild(QtWidgets.QDialog, "roce_settings_dialog")
    assert (dlg.mtu.value(), dlg.priorities.text(), dlg.method.currentData(), dlg.dcqcn.currentData()) == \
        (9216, "3", "ieee", "nvidia")                     # the defaults of a design without settings
    # "3" is the priority list, not a count of priorities: the label says so (issue 29)
    (label,) = [x for x in dlg.findChildren(QtWidgets.QLabel) if x.buddy() is dlg.priorities]
    assert label.text() == "Lossless priorities (PFC)" and dlg.priorities.placeholderText().startswith("802.1p")
    dlg.accept()                                          # unchanged: no step
    assert w.editor.stack.count() == steps and "roce" not in f.meta
    d.settings_button.click()                             # the dock's button opens the same dialog
    dlg = [x for x in w.findChildren(QtWidgets.QDialog, "roce_settings_dialog") if x.isVisible()][0]
    dlg.mtu.setValue(4200)
    dlg.priorities.setText("3, 4")
    dlg.method.setCurrentIndex(dlg.method.findData("nvidia"))
    dlg.dcqcn.setCurrentIndex(dlg.dcqcn.findData("paper"))
    dlg.ecn["kmin"].setText("100000")
    dlg.ecn["kmax"].setText("1,000,000")
    dlg.accept()
    assert not dlg.isVisible() and w.editor.stack.count() == steps + 1
    assert w.editor.stack.undoText() == "RoCE settings: MTU 4200, priorities 3,4, nvidia, DCQCN paper"
    assert f.meta["roce"] == {"mtu": 4200, "priorities": [3, 4], "method": "nvidia", "dcqcn": "paper",
                              "ecn": {"kmin": 100000.0, "kmax": 1000000.0}}
    # the dock follows: NVIDIA bold, both totals at MTU 4200, the ECN override, 2 priorities
    row = d.model.rows[1]
    assert (row.name, row.nvidia, row.ieee, row.kmin, row.kmax) == ("leaf01:2", 64_240, 177_319, 1e5, 1e6)
    assert d.model.data(d.model.index(1, 5), QtGui.Qt.ItemDataRole.FontRole).bold()
    assert d.settings_label.text() == ("MTU 4200 B · PFC on priorities 3,4 · headroom: NVIDIA rule of thumb · "
                                       "DCQCN paper")
    b = d.budget()
    assert b.headroom_total == 2 * sum(r.nvidia for r in d.model.rows)
    assert b == lossless_plan(f).switches[f.find("leaf01")]
    w.editor.stack.undo()
    assert json.dumps(f.meta, sort_keys=False) == before
    assert d.model.rows[1].ieee == 187_351 and d.settings_label.text().startswith("MTU 9216 B")
    w.editor.stack.redo()
    assert f.meta["roce"]["mtu"] == 4200


def test_a_refused_field_is_named_and_changes_nothing(make_window):
    w = roce_window(make_window)
    f = w.editor.fabric
    before, steps = json.dumps(f.meta), w.editor.stack.count()
    w.findChild(QtGui.QAction, "action_roce_settings").trigger()
    dlg = [x for x in w.findChildren(QtWidgets.QDialog, "roce_settings_dialog") if x.isVisible()][0]
    for fields, problem in (
            ({"priorities": "3,9"}, "priority 9: an 802.1p priority 0 … 7"),
            ({"priorities": "3,3"}, "priorities [3, 3]: each at most once"),
            ({"priorities": "three"}, "priorities 'three': 802.1p priorities 0 … 7, comma-separated"),
            ({"pmax": "1.5"}, "ecn pmax 1.5: a probability 0 … 1"),
            ({"kmin": "lots"}, "ecn kmin 'lots': a number"),
            ({"kmin": "500000", "kmax": "100000"}, "ecn kmin 500000 above kmax 100000")):
        dlg.show_settings(RoceSettings())
        for name, text in fields.items():
            (dlg.priorities if name == "priorities" else dlg.ecn[name]).setText(text)
        dlg.accept()
        assert dlg.isVisible() and dlg.problem.text() == problem
        assert json.dumps(f.meta) == before and w.editor.stack.count() == steps


def test_fixed_pfc_thresholds_reach_the_plan_and_undo_takes_them_back(make_window):
    """PFC XOFF/XON fields: stored as meta.roce.pfc (one undo step), every lossless port of the plan
    pauses there (XON defaults to XOFF − 2 MTU), a bad pair is named and changes nothing."""
    w = roce_window(make_window)
    f = w.editor.fabric
    before, steps = json.dumps(f.meta), w.editor.stack.count()
    derived = lossless_plan(f).xoff_bytes.copy()
    w.findChild(QtGui.QAction, "action_roce_settings").trigger()
    dlg = [x for x in w.findChildren(QtWidgets.QDialog, "roce_settings_dialog") if x.isVisible()][0]
    assert dlg.pfc["xoff"].text() == "" and dlg.pfc["xon"].text() == ""
    for fields, problem in (({"xoff": "144000", "xon": "200000"}, "pfc xon 200000 not below xoff 144000"),
                            ({"xoff": "lots"}, "pfc xoff 'lots': a number"),
                            ({"xon": "99000"}, "pfc {'xon': 99000}: an object with xoff and optionally xon (bytes)")):
        dlg.show_settings(RoceSettings())
        for name, text in fields.items():
            dlg.pfc[name].setText(text)
        dlg.accept()
        assert dlg.isVisible() and dlg.problem.text() == problem
        assert json.dumps(f.meta) == before and w.editor.stack.count() == steps
    dlg.show_settings(RoceSettings())
    dlg.pfc["xoff"].setText("144,000")
    dlg.accept()
    assert w.editor.stack.count() == steps + 1 and f.meta["roce"]["pfc"] == {"xoff": 144000.0}
    plan = lossless_plan(f)
    on = plan.lossless
    assert on.any() and set(plan.xoff_bytes[on]) == {144000.0} and set(plan.xon_bytes[on]) == {144000.0 - 2 * 9216}
    w.editor.stack.undo()
    assert json.dumps(f.meta) == before and (lossless_plan(f).xoff_bytes == derived).all()
