"""File ▸ Export Switch Config on a real window: the dialog runs the writer in the job runner and
says what it wrote (the very files :func:`render` makes); a refusal writes nothing and says why."""

from __future__ import annotations

import json

import pytest
from PySide6 import QtGui, QtWidgets

from fabricviz.generate import k_ary_fat_tree, leaf_spine
from tests.ui.roce_helpers import switch_pair as _fabric

switch_config = pytest.importorskip("fabricviz.formats.switch_config")


def export_dialog(w):
    act = w.findChild(QtGui.QAction, "action_export_switch_config")
    file_menu = [m for m in w.menuBar().findChildren(QtWidgets.QMenu) if m.title() == "&File"][0]
    assert act in file_menu.actions()
    act.trigger()
    return [d for d in w.findChildren(QtWidgets.QDialog, "export_switch_config_dialog") if d.isVisible()][-1]


def run(dlg, qtbot, out, os_name="sonic", priority=None):
    dlg.folder.setText(str(out))
    dlg.os_box.setCurrentIndex(dlg.os_box.findData(os_name))
    if priority is not None:
        dlg.priority.setValue(priority)
    with qtbot.waitSignal(dlg.finished_export, timeout=60_000) as sig:
        assert dlg.export()
    return sig.args


@pytest.mark.parametrize("os_name, per_switch", [("sonic", 1), ("cumulus", 2)])
def test_export_writes_the_files_and_says_so(make_window, qtbot, tmp_path, os_name, per_switch):
    w = make_window()
    w.apply_generated(leaf_spine(4, 3, 1))
    before = json.dumps(w.editor.fabric.meta)
    dlg = export_dialog(w)
    assert (dlg.priority.value(), dlg.dscp.value()) == (3, 26)
    out = tmp_path / "cfg"
    text, ok = run(dlg, qtbot, out, os_name)
    want = switch_config.render(w.editor.fabric, os_name, priority=3, dscp=26)
    assert ok and text == (f"wrote {len(want)} files to {out}: {7 * per_switch} {os_name} switch file(s), "
                           "4 NIC script(s)")
    assert sorted(p.name for p in out.iterdir()) == sorted(want)
    assert all((out / name).read_text() == body for name, body in want.items())
    assert [p.name for p in dlg.written] == list(want)
    assert w.statusBar().currentMessage() == text and json.dumps(w.editor.fabric.meta) == before


def test_refusals_write_nothing(make_window, qtbot, tmp_path):
    w = make_window()
    w.apply_generated(_fabric("SN4700", 14, 10_000.0, "T-400G-LR4"))      # over the 64 MiB buffer
    steps = w.editor.stack.count()
    dlg = export_dialog(w)
    out = tmp_path / "cfg"
    text, ok = run(dlg, qtbot, out)
    assert not ok and text == ("refused: headroom does not fit the buffer of siteA, siteB (over by up to "
                               "3,816,130 B); nothing written (see `fabricviz headroom`)")
    assert not out.exists() and dlg.status.text() == text
    text, ok = run(dlg, qtbot, out, priority=6)
    assert not ok and text.startswith("refused: priority 6: taken (CNPs)") and not out.exists()
    w.apply_generated(k_ary_fat_tree(4))
    text, ok = run(dlg, qtbot, out, priority=3)
    assert not ok and text == "refused: not a RoCE design (no cabled Ethernet switch port)" and not out.exists()
    dlg.folder.setText("")
    assert not dlg.export() and dlg.status.text() == "choose an output folder first"
    assert w.editor.stack.count() == steps + 1                       # only the generate: the export edits nothing
