"""Inspector: LIDs from the SM's LID manager (cached, worker for big subnets), port enable/disable and
rate edits through undo, and the words the window uses (singular/plural, what happened last)."""

from __future__ import annotations

import threading

from PySide6 import QtCore

from fabricviz.generate import fat_tree
from fabricviz.ib.routing import route
from fabricviz.model.guid import format_guid
from fabricviz.ui.docks.inspector import C_GUID, C_LID, C_PORT, C_STATE

LEFT = QtCore.Qt.MouseButton.LeftButton


def _click(qtbot, w, name: str) -> int:
    """Click a device on the canvas (zoom 1, centred on it) and wait for the inspector."""
    f, view = w.fabric, w.view
    item = w.scene.items_by_id[f.find(name)]
    view.resetTransform()
    view.centerOn(item.scenePos())
    view._after_zoom()
    qtbot.mouseClick(view.viewport(), LEFT, pos=view.mapFromScene(item.sceneBoundingRect().center()))
    qtbot.waitUntil(lambda: w.inspector.device == f.find(name))
    w.inspector.refresh()
    return f.find(name)


def _rows(w) -> dict[str, int]:
    t = w.inspector.ports
    return {t.item(r, C_PORT).text(): r for r in range(t.rowCount())}


def test_inspector_shows_the_subnet_managers_lids_for_switches_and_nics(make_window, qtbot):
    w = make_window()
    f = w.fabric
    r = route(f)
    _click(qtbot, w, "spine02")
    s = r.subnet.sw_index[f.find("spine02")]
    assert w.inspector.lid.isVisible()
    assert w.inspector.lid.text() == str(r.lids.sw_lid[s]) == "12"
    t = w.inspector.ports
    assert not t.isColumnHidden(C_LID) and t.isColumnHidden(C_GUID)   # switch ports share port 0's LID
    assert {t.item(i, C_LID).text() for i in range(t.rowCount())} == {"12"}
    assert w.inspector.guid.text() == format_guid(f.device("spine02").guid)
    # a NIC: its port's LID and port GUID (the SM runs on node01's HCA: LID 1)
    _click(qtbot, w, "node03/mlx5_0")                # a click on a NIC inside its server selects the NIC
    j = list(r.subnet.ca_ports).index(f.port_id("node03/mlx5_0:1"))
    assert w.inspector.lid.text() == str(r.lids.ca_lid[j]) == "7"
    row = _rows(w)["node03/mlx5_0:1"]
    assert t.item(row, C_LID).text() == "7"
    assert t.item(row, C_GUID).text() == format_guid(f.port("node03/mlx5_0:1").guid)
    # a server lists its HCA's port with the same LID
    _click(qtbot, w, "node03")
    assert t.item(_rows(w)["node03/mlx5_0:1"], C_LID).text() == "7"
    # one computation served every selection; a move keeps the table, a port edit drops it
    assert w.document.routing.computations['lids'] == 1
    w.editor.move([f.find("spine02")], 20, 0)
    _click(qtbot, w, "spine02")
    assert w.document.routing.computations['lids'] == 1
    assert w.inspector.set_port_enabled(f.port_id("node01/mlx5_0:1"), False)
    _click(qtbot, w, "node01")
    assert w.document.routing.computations['lids'] == 2
    # the SM moved to the next HCA; node01's disabled port has none
    assert t.item(_rows(w)["node01/mlx5_0:1"], C_LID).text() == "no LID (not reachable from the SM)"
    r2 = route(f)
    assert r2.lids.ca_lid[list(r2.subnet.ca_ports).index(f.port_id("node02/mlx5_0:1"))] == 1


def test_lids_of_a_big_subnet_come_from_a_worker_and_refusals_read_no_lid(make_window, qtbot, monkeypatch):
    from fabricviz.ib import lid_table
    from fabricviz.ui.docks import inspector
    gate = threading.Event()
    real = lid_table.lid_table
    monkeypatch.setattr(lid_table, "lid_table", lambda f: (gate.wait(20), real(f))[1])
    monkeypatch.setattr(inspector, "SYNC_SWITCHES", 4)   # the demo's 8 switches count as "big" here
    w = make_window()
    _click(qtbot, w, "leaf03")
    assert w.inspector.lid.text() == "—"             # unknown while the worker runs: nothing blocks
    assert {w.inspector.ports.item(i, C_LID).text() for i in range(8)} == {"—"}
    gate.set()
    qtbot.waitUntil(lambda: w.inspector.lid.text() == "6", timeout=60_000)
    t = w.inspector.ports
    assert {t.item(i, C_LID).text() for i in range(t.rowCount())} == {"6"}
    # no cabled IB port: the SM cannot run, the inspector says why instead of failing
    w.files.new_design()
    monkeypatch.setattr(inspector, "SYNC_SWITCHES", 2000)
    d = w.editor.add_part("QM9700", 0.0, 0.0)
    w.scene.select_devices([d])
    w.inspector.refresh()
    assert w.inspector.lid.text() == "no LID (no cabled InfiniBand port for the subnet manager to run on)"
    # an Ethernet fabric shows no LID at all
    w.apply_generated(fat_tree(2, 8, 8, fabric="roce"))
    sw = int(w.fabric.device_ids("eth_switch")[0])
    w.scene.select_devices([sw])
    w.inspector.refresh()
    assert not w.inspector.lid.isVisible() and w.inspector.ports.isColumnHidden(C_LID)


def test_port_enable_disable_and_rate_edits_are_undoable_and_refusals_change_nothing(make_window, qtbot):
    w = make_window()
    f = w.fabric
    _click(qtbot, w, "leaf01")
    t = w.inspector.ports
    count = w.editor.stack.count()
    # untick State: the port is disabled, one undo step
    item = t.item(_rows(w)["leaf01:3"], C_STATE)
    assert item.checkState() == QtCore.Qt.CheckState.Checked and item.text() == "init"
    item.setCheckState(QtCore.Qt.CheckState.Unchecked)
    assert f.port("leaf01:3").state == "disabled"
    assert w.editor.stack.count() == count + 1 and w.editor.stack.text(count) == "Set leaf01:3 disabled"
    qtbot.waitUntil(lambda: t.item(_rows(w)["leaf01:3"], C_STATE).text() == "disabled")
    t.item(_rows(w)["leaf01:3"], C_STATE).setCheckState(QtCore.Qt.CheckState.Checked)
    assert f.port("leaf01:3").state == "init"        # cabled InfiniBand: INIT until the SM sweeps
    w.acts["undo"].trigger()
    w.acts["undo"].trigger()
    assert f.port("leaf01:3").state == "init" and w.editor.stack.index() == count
    sig = f.signature()
    # rate: the part's rates in a box; pick 4xHDR from the popup
    box = w.inspector.rate_boxes[f.port_id("leaf01:3")]
    choices = [box.itemText(i) for i in range(box.count())]
    assert choices[:4] == ["4xNDR", "2xNDR", "4xHDR", "2xHDR"] and "4xXDR" not in choices
    box.showPopup()
    popup = box.view()
    idx = popup.model().index(choices.index("4xHDR"), 0)
    popup.scrollTo(idx)
    qtbot.mouseClick(popup.viewport(), LEFT, pos=popup.visualRect(idx).center())
    assert str(f.port_rate(f.port_id("leaf01:3"))) == "4xHDR"
    assert str(f.port("leaf01:3").cable.rate) == "4xHDR"            # the link renegotiated
    assert w.editor.stack.text(w.editor.stack.index() - 1) == "Set leaf01:3 to 4xHDR"
    assert w.statusBar().currentMessage() == "Set leaf01:3 to 4xHDR"
    w.acts["undo"].trigger()
    assert f.signature() == sig
    assert w.statusBar().currentMessage() == "Undo: Set leaf01:3 to 4xHDR"
    # a rate the part does not support, typed: the model's message, nothing changes
    count = w.editor.stack.count()
    qtbot.waitUntil(lambda: f.port_id("leaf01:3") in w.inspector.rate_boxes)
    box = w.inspector.rate_boxes[f.port_id("leaf01:3")]
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "4xXDR")
    qtbot.keyClick(box.lineEdit(), QtCore.Qt.Key.Key_Return)
    msg = "leaf01:3: QM9700-R8 cannot run at 4xXDR (supported: 4xNDR)"
    assert w.view.message.isVisible() and w.view.message.text() == msg
    assert w.statusBar().currentMessage() == "refused: " + msg
    assert f.signature() == sig and w.editor.stack.count() == count
    qtbot.waitUntil(lambda: w.inspector.rate_boxes[f.port_id("leaf01:3")].currentText() == "4xNDR")


def test_switch_name_stays_visible_above_its_port_panel(make_window, qtbot):
    w = make_window()
    f, view = w.fabric, w.view
    spine = f.find("spine03")

    def name_rect():
        """spine03's name as drawn, in scene units (None when it is not drawn)."""
        shown = {d: r for d, _, r in w.scene.label_layer.in_view(view)}
        return view.viewportTransform().inverted()[0].mapRect(shown[spine]) if spine in shown else None

    for scale in (1.0, 0.3):                         # names show at every zoom, at one pixel size
        view.resetTransform()
        view.scale(scale, scale)
        item = w.scene.items_by_id[spine]
        view.centerOn(item.scenePos())
        view._after_zoom()
        assert name_rect() is not None
        qtbot.mouseMove(view.viewport(), view.mapFromScene(item.scenePos()))
        panel = view.ports.panels[spine]
        lab, pan = name_rect(), panel.sceneBoundingRect()
        # a spine's cables all leave from its bottom edge: its name sits above its box (issue 29)
        assert lab.bottom() < item.sceneBoundingRect().top() < pan.top() and not lab.intersects(pan)
        assert abs(lab.height() * scale - 17.0) < 1e-6
        qtbot.mouseMove(view.viewport(), view.mapFromScene(item.scenePos() + QtCore.QPointF(0, -130)))
        assert not view.ports.panels and name_rect() is not None


def test_counts_say_one_server_and_the_status_bar_says_what_happened_last(make_window, qtbot, monkeypatch):
    w = make_window()
    assert w.statusBar().currentMessage() == "opened demo-fat-tree.json"
    w.files.new_design()
    w.editor.add_part("NODE-1G-NDR", 0.0, 0.0)
    w.editor.add_part("QM9700", 0.0, -260.0)
    assert w.count_label.text() == "1 server · 1 GPU · 1 NIC · 1 switch · 0 cables"
    w.scene.clearSelection()
    w.inspector.refresh()
    assert w.inspector.title.text() == "<b>untitled</b><br>1 server, 1 GPU, 1 NIC, 1 switch, 0 cables"
    w.scene.select_devices([int(w.fabric.device_ids("ib_switch")[0]), int(w.fabric.device_ids("server")[0])])
    w.inspector.refresh()
    assert w.inspector.title.text() == "<b>2</b> devices and <b>0</b> cables selected"
    # generate through the dialog: the status bar reports the generation, not the old open
    from fabricviz.ui.dialogs.generator import GeneratorDialog
    monkeypatch.setattr(GeneratorDialog, "exec", lambda self: (self.ft_levels.setValue(2),
                                                               self.ft_radix.setValue(8), self.accept(),
                                                               self.result is not None)[-1] and 1)
    w.acts["generate"].trigger()
    text = w.editor.stack.text(w.editor.stack.count() - 1)
    assert text == "Generate fat-tree-2l-r8-32h (64 cables)"
    assert w.statusBar().currentMessage() == text
    assert w.count_label.text() == "32 servers · 32 GPUs · 32 NICs · 12 switches · 64 cables"
    w.scene.select_devices([w.fabric.find("leaf01")])
    w.scene.set_selected_cables({int(w.fabric.cable_ids()[0])})
    w.inspector.refresh()
    assert w.inspector.title.text() == "<b>1</b> device and <b>1</b> cable selected"
    w.acts["undo"].trigger()
    assert w.statusBar().currentMessage() == "Undo: " + text
    w.acts["redo"].trigger()
    assert w.statusBar().currentMessage() == "Redo: " + text
