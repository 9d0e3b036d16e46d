"""View ▸ Partitions: create, fill, rename and delete InfiniBand partitions on the canvas's hosts, each
one undo step that gives the design back to the byte; refusals say why and change nothing."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.formats.native import fabric_to_dict
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import DEFAULT_PKEY, Member, design_partitions
from fabricviz.ui.docks.partitions import ETHERNET_NOTE, parse_pkey


@pytest.fixture
def window(make_window):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(4))
    QtWidgets.QApplication.processEvents()
    return w


def _guid(f, name):
    return int(f.ports_t.guid[f.port(f"{name}/mlx5_0:1").id])


def _statements(f):
    conf = design_partitions(f.meta)
    return None if conf is None else [(s.name, s.pkey, s.ipoib, s.members) for s in conf.statements]


def _cells(model):
    return [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]


STOCK = ("Default", DEFAULT_PKEY, True, (Member("ALL", "full"),))


def test_view_menu_opens_the_dock_tabbed_with_traffic(window):
    w = window
    d = w.partitions_dock
    assert d.objectName() == "partitions" and not d.isVisible()
    act = w.findChild(type(w.acts["fit"]), "action_partitions_dock")
    assert act in w.acts.menu("view").actions() and act.text() == "Partitions"
    act.trigger()
    QtWidgets.QApplication.processEvents()
    assert d.isVisible()
    assert w.dockWidgetArea(d) == w.dockWidgetArea(w.traffic_dock) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea
    w.traffic_dock.toggleViewAction().trigger()
    QtWidgets.QApplication.processEvents()
    assert set(w.tabifiedDockWidgets(d)) == {w.inspector, w.traffic_dock}
    act.trigger()                # off
    assert not d.isVisible()
    act.trigger()
    assert d.note.text() == "No partitions.conf: every port is a full member of the Default partition (0x7fff)."
    assert d.model.rowCount() == 0


def test_create_fill_rename_delete_each_one_undo_step_back_to_the_byte(window):
    w = window
    f, d, stack = w.editor.fabric, w.partitions_dock, w.editor.stack
    states = [fabric_to_dict(f)]
    start = stack.count()
    g1, g2, g3 = (_guid(f, n) for n in ("node01", "node02", "node03"))

    assert d.new_partition("storage", "0x8001")
    assert stack.undoText() == "New partition storage (0x8001)" and d.note.text() == stack.undoText()
    assert _statements(f) == [STOCK, ("storage", 1, False, ())]
    # 16 hosts + 20 switch port 0s, all full members of Default; storage has no member yet
    assert _cells(d.model) == [["Default", "0x7fff", "yes", 36, 0], ["storage", "0x8001", "", 0, 0]]
    assert d.selected_pkey() == 1 and d.members_model.rowCount() == 0
    box = w.traffic_dock.form.partition_box
    assert [box.itemText(i) for i in range(box.count())] == ["Default (0x7fff)", "storage (0x8001)"]
    states.append(fabric_to_dict(f))

    w.scene.select_devices([f.device_id("node01"), f.device_id("node02")])
    d.buttons["add_full"].click()
    assert stack.undoText() == "Add 2 hosts to storage as full members"
    assert _statements(f) == [STOCK, ("storage", 1, False, (Member(g1, "full"), Member(g2, "full")))]
    states.append(fabric_to_dict(f))

    w.scene.select_devices([f.device_id("node03")])
    d.buttons["add_limited"].click()
    assert stack.undoText() == "Add 1 host to storage as limited members"
    assert _statements(f) == [STOCK, ("storage", 1, False,
                                      (Member(g1, "full"), Member(g2, "full"), Member(g3, "limited")))]
    assert _cells(d.model)[1] == ["storage", "0x8001", "", 2, 1]
    assert _cells(d.members_model) == [["node01/mlx5_0:1", f"0x{g1:016x}", "full"],
                                       ["node02/mlx5_0:1", f"0x{g2:016x}", "full"],
                                       ["node03/mlx5_0:1", f"0x{g3:016x}", "limited"]]
    states.append(fabric_to_dict(f))

    d.name_edit.setText("scratch")
    d.buttons["rename"].click()
    assert stack.undoText() == "Rename partition storage to scratch"
    assert _statements(f)[1][0] == "scratch" and _statements(f)[1][3] == _statements_at(states[-1])[1][3]
    assert [box.itemText(i) for i in range(box.count())] == ["Default (0x7fff)", "scratch (0x8001)"]
    states.append(fabric_to_dict(f))

    d.members.selectRow(1)                       # node02
    d.buttons["remove"].click()
    assert stack.undoText() == "Remove node02/mlx5_0:1 from scratch"
    assert _statements(f)[1][3] == (Member(g1, "full"), Member(g3, "limited"))
    states.append(fabric_to_dict(f))

    d.buttons["delete"].click()                  # the last own partition: the design has no file again
    assert stack.undoText() == "Delete partition scratch (0x8001)"
    assert "partitions" not in f.meta and d.model.rowCount() == 0 and box.count() == 0
    assert stack.count() == start + 6

    for want in reversed(states):
        stack.undo()
        assert fabric_to_dict(f) == want
    assert stack.count() - stack.index() == 6 and "partitions" not in f.meta
    assert d.model.rowCount() == 0 and box.count() == 0


def _statements_at(state):
    return [(s.name, s.pkey, s.ipoib, s.members) for s in design_partitions(state["meta"]).statements]


@pytest.mark.parametrize("name, pkey, reason", [
    ("other", "0x8001", "P_Key 0x8001 is taken by storage"),
    ("other", "0x0001", "P_Key 0x8001 is taken by storage"),
    ("other", "0x80zz", "P_Key '0x80zz' is not a hex number (write 0x8001)"),
    ("other", "0x7fff", "P_Key 0x7fff is outside 0x0001–0x7ffe (0x7fff is the Default partition)"),
    ("other", "0x10000", "P_Key 0x10000 is outside 0x0001–0x7ffe (0x7fff is the Default partition)"),
    ("storage", "0x8002", "name 'storage' is taken by the partition 0x8001"),
    ("two words", "0x8002", "name 'two words': letters, digits, '_', '.' or '-' only"),
])
def test_refusals_change_nothing_and_say_why(window, name, pkey, reason):
    w = window
    f, d, stack = w.editor.fabric, w.partitions_dock, w.editor.stack
    assert d.new_partition("storage", "0x8001")
    before, steps = fabric_to_dict(f), stack.count()
    d.name_edit.setText(name)
    d.pkey_edit.setText(pkey)
    d.buttons["new"].click()
    assert d.note.text() == reason and "\n" not in reason
    assert fabric_to_dict(f) == before and stack.count() == steps


def test_adding_without_a_host_selected_is_refused(window):
    w = window
    f, d, stack = w.editor.fabric, w.partitions_dock, w.editor.stack
    assert d.new_partition("storage", "0x8001")
    before, steps = fabric_to_dict(f), stack.count()
    w.scene.select_devices([f.device_id(f.name_of(int(f.device_ids("ib_switch")[0])))])
    assert not d.add_selected("full")
    assert d.note.text().startswith("select hosts on the canvas first")
    assert fabric_to_dict(f) == before and stack.count() == steps


def test_parse_pkey_takes_both_forms():
    assert parse_pkey("0x8001") == parse_pkey("0x0001") == parse_pkey("8001") == 1
    assert parse_pkey("0xfffe") == 0x7FFE


def test_an_ethernet_design_shows_the_note(make_window):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(4, fabric="roce"))
    QtWidgets.QApplication.processEvents()
    d = w.partitions_dock
    assert d.note.text() == ETHERNET_NOTE and not d.editing.isVisibleTo(d)


def test_the_dock_follows_imports_and_a_newly_opened_design(window, tmp_path):
    w = window
    f, d = w.editor.fabric, w.partitions_dock
    conf = tmp_path / "partitions.conf"
    conf.write_text(f"Default=0x7fff : ALL=full ;\ncompute=0x8003, ipoib : 0x{_guid(f, 'node04'):x}=full, "
                    f"0x{_guid(f, 'node05'):x} ;\n")
    assert w.files.import_partitions(str(conf))
    assert _cells(d.model) == [["Default", "0x7fff", "", 36, 0], ["compute", "0x8003", "yes", 1, 1]]
    d.select_pkey(DEFAULT_PKEY)
    d.members.selectRow(0)
    before = fabric_to_dict(f)
    assert not d.remove_member()             # members of Default through ALL=full have no GUID entry
    assert d.note.text().endswith("is in Default through a keyword (ALL, ALL_CAS, …), not by its GUID")
    assert fabric_to_dict(f) == before
    w.document.open(k_ary_fat_tree(4), None, "fresh")
    QtWidgets.QApplication.processEvents()
    assert d.model.rowCount() == 0 and d.members_model.rowCount() == 0
    assert d.note.text() == "No partitions.conf: every port is a full member of the Default partition (0x7fff)."
