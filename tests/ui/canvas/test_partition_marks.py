"""View ▸ Partition Marks: hosts marked by partition on the canvas (filled full, outlined limited), and
with one host selected the hosts it can talk to by the P_Key rule; following undo and the toggle."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ui.canvas.overlays.partitions import PALETTE, REACH_COLOUR, SETTING
from tests.ui.partition_helpers import frame as _frame
from tests.ui.partition_helpers import mark_rect as _expected
from tests.ui.partition_helpers import rects as _rects


def _guid(f, name):
    return int(f.ports_t.guid[f.port(f"{name}/mlx5_0:1").id])


@pytest.fixture
def window(make_window, tmp_path):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(4))
    QtWidgets.QApplication.processEvents()
    f = w.editor.fabric
    g = {n: _guid(f, n) for n in ("node01", "node02", "node03", "node04")}
    conf = tmp_path / "partitions.conf"
    conf.write_text("Default=0x7fff, ipoib : ALL=full ;\n"
                    f"storage=0x8001 : 0x{g['node01']:x}=full, 0x{g['node02']:x}=full, 0x{g['node03']:x}=limited ;\n"
                    f"compute=0x8002 : 0x{g['node03']:x}=full, 0x{g['node04']:x}=limited ;\n")
    assert w.files.import_partitions(str(conf))
    QtWidgets.QApplication.processEvents()
    return w


def _action(w):
    return w.findChild(QtGui.QAction, "action_partition_marks")


def _marks(w):
    return [i for i in w.scene.items() if i.data(2) == "partition_marks"]


def test_marks_one_square_per_membership_filled_full_outlined_limited(window):
    w = window
    act = _action(w)
    assert act in w.acts.menu("view").actions() and act.isCheckable() and not act.isChecked()
    assert _marks(w) == []                         # off by default
    act.trigger()
    assert act.isChecked() and w.settings.value(SETTING, type=bool) is True
    items = w.partition_marks.items
    assert sorted(items) == [(1, False), (1, True), (2, False), (2, True)]       # (P_Key, full)
    assert _rects(items[(1, True)]) == sorted([_expected(w, "node01", 0), _expected(w, "node02", 0)])
    assert _rects(items[(1, False)]) == [_expected(w, "node03", 0)]
    assert _rects(items[(2, True)]) == [_expected(w, "node03", 1)]
    assert _rects(items[(2, False)]) == [_expected(w, "node04", 0)]
    # the squares straddle the top edge of the frame: node01's is 8 × 8, centred on the edge
    fr = _frame(w, "node01")
    assert (fr.left() + 2.0, fr.top() - 4.0, 8.0, 8.0) in _rects(items[(1, True)])
    # filled = brush in the partition's colour, no pen; outlined = pen, no brush
    storage, compute = QtGui.QColor(PALETTE[0]), QtGui.QColor(PALETTE[1])
    assert items[(1, True)].brush().color() == storage
    assert items[(1, True)].pen().style() == QtCore.Qt.PenStyle.NoPen
    assert items[(1, False)].brush().style() == QtCore.Qt.BrushStyle.NoBrush
    assert items[(1, False)].pen().color() == storage
    assert items[(2, True)].brush().color() == compute and items[(2, False)].pen().color() == compute
    assert len(_marks(w)) == 4                      # a few path items, not one per host
    # the Partitions dock shows the same colours beside the names (Default: none)
    m = w.partitions_dock.model
    deco = [m.index(r, 0).data(QtCore.Qt.ItemDataRole.DecorationRole) for r in range(m.rowCount())]
    assert [m.index(r, 0).data() for r in range(m.rowCount())] == ["Default", "storage", "compute"]
    assert deco == [None, storage, compute]


def test_selected_host_shows_whom_it_can_talk_to(window):
    w = window
    f = w.editor.fabric
    _action(w).trigger()
    marks = w.partition_marks
    w.scene.select_devices([f.device_id("node03")])
    QtWidgets.QApplication.processEvents()
    names = {f.name_of(d) for d in marks.peers}
    assert names == {"node01", "node02", "node04"}
    assert marks.status_text == "node03 can talk to 3 hosts (storage, compute)"
    assert w.statusBar().currentMessage() == marks.status_text
    assert _rects(marks.reach) == sorted(_frame_t(w, n) for n in ("node01", "node02", "node04"))
    assert marks.reach.pen().color() == QtGui.QColor(REACH_COLOUR)
    # the 12 other hosts (16 less node03 and its 3 peers) are veiled
    assert _rects(marks.veil) == sorted(_frame_t(w, f"node{i:02d}") for i in range(5, 17))
    assert marks.veil.brush().color().alpha() == 170
    # node04 is a limited member of compute: it reaches compute's full member node03 only
    w.scene.select_devices([f.device_id("node04")])
    assert {f.name_of(d) for d in marks.peers} == {"node03"}
    assert marks.status_text == "node04 can talk to 1 host (compute)"
    # two hosts selected: no reach drawn
    w.scene.select_devices([f.device_id("node01"), f.device_id("node02")])
    assert marks.reach is None and marks.veil is None and marks.status_text == ""
    assert len(_marks(w)) == 4


def _frame_t(w, name):
    r = _frame(w, name)
    return (r.x(), r.y(), r.width(), r.height())


def test_undo_of_the_import_and_the_toggle_remove_the_marks(window):
    w = window
    _action(w).trigger()
    assert len(_marks(w)) == 4
    w.editor.stack.undo()                          # the partition import
    QtWidgets.QApplication.processEvents()
    assert _marks(w) == [] and w.partition_marks.items == {}
    w.editor.stack.redo()
    QtWidgets.QApplication.processEvents()
    assert len(_marks(w)) == 4
    _action(w).trigger()                           # off
    assert _marks(w) == [] and w.settings.value(SETTING, type=bool) is False


# zoomed out (hosts in group boxes and host blocks): tests/ui/canvas/test_partition_groups.py


def test_an_ethernet_design_draws_nothing(make_window):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(4, fabric="roce"))
    QtWidgets.QApplication.processEvents()
    # even with a partitions entry in its meta (P_Keys are InfiniBand's)
    w.editor.set_meta("partitions", "partitions", {"version": 1, "statements": [
        {"name": "Default", "pkey": "0x7fff", "members": [["ALL", "full"]]},
        {"name": "storage", "pkey": "0x0001", "members": [["ALL", "full"]]}]})
    _action(w).trigger()
    w.scene.select_devices([w.editor.fabric.device_id("node01")])
    assert _marks(w) == [] and w.partition_marks.status_text == ""
