"""The main window drives real widgets: palette drops, port-to-port cabling, refusals, selection moves."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.formats.native import load_fabric
from fabricviz.ui.canvas.items.devices import DeviceItem
from fabricviz.ui.canvas.view import PART_MIME
from fabricviz.ui.docks.inspector import C_PEER, C_PORT
from fabricviz.ui.main_window import DEMO_FABRIC

ACTIONS = ("action_new", "action_open", "action_save", "action_undo", "action_redo", "action_delete",
           "action_copy", "action_paste", "action_generate", "action_export_image", "action_fit")


def test_window_shows_demo_with_docks_actions_and_every_device(make_window):
    w = make_window()
    demo = load_fabric(DEMO_FABRIC)
    assert w.windowTitle() == "demo-fat-tree.json[*] \u2014 fabricviz"
    assert w.findChild(QtWidgets.QGraphicsView, "canvas") is w.view is w.centralWidget()
    assert w.findChild(QtWidgets.QDockWidget, "palette") is not None
    assert w.findChild(QtWidgets.QDockWidget, "inspector") is not None
    assert isinstance(w.findChild(QtWidgets.QUndoView, "undo_view"), QtWidgets.QUndoView)
    for name in ACTIONS:
        assert isinstance(w.findChild(QtGui.QAction, name), QtGui.QAction), name
    assert w.acts["undo"].shortcut() == QtGui.QKeySequence(QtGui.QKeySequence.StandardKey.Undo)
    assert w.scene.itemIndexMethod() == QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex
    assert w.fabric.signature() == demo.signature()
    assert set(w.scene.items_by_id) == set(demo.device_ids().tolist())
    # cables are drawn as one path per colour bucket, one segment per cable
    assert sum(w.scene.cables.counts().values()) == demo.counts()["cables"] == 32
    assert len(w.scene.cables.items) == 2
    assert w.count_label.text() == "16 servers · 16 GPUs · 16 NICs · 8 switches · 32 cables"
    # GPUs and NICs are drawn inside their server's frame
    server = w.fabric.device("node01")
    frame = w.scene.items_by_id[server.id]
    for child in server.children:
        assert w.scene.items_by_id[child.id].parentItem() is frame
        assert frame.sceneBoundingRect().contains(w.scene.items_by_id[child.id].sceneBoundingRect())


def test_missing_file_leaves_an_empty_design_and_says_why(make_window, tmp_path):
    w = make_window(str(tmp_path / "no-such-fabric.json"))
    assert w.files.load_error and "no-such-fabric.json" in w.files.load_error
    assert w.statusBar().currentMessage() == w.files.load_error
    assert len(w.fabric) == 0 and w.scene.items_by_id == {}


def _drop(view, part: str, scene_pos: QtCore.QPointF, palette) -> None:
    item = palette.part_item(part)
    mime = palette.tree.mimeData([item])
    assert bytes(mime.data(PART_MIME)).decode() == part
    pos = QtCore.QPointF(view.mapFromScene(scene_pos))
    buttons, mods = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
    enter = QtGui.QDragEnterEvent(pos.toPoint(), QtCore.Qt.DropAction.CopyAction, mime, buttons, mods)
    QtWidgets.QApplication.sendEvent(view.viewport(), enter)
    assert enter.isAccepted()
    move = QtGui.QDragMoveEvent(pos.toPoint(), QtCore.Qt.DropAction.CopyAction, mime, buttons, mods)
    QtWidgets.QApplication.sendEvent(view.viewport(), move)
    drop = QtGui.QDropEvent(pos, QtCore.Qt.DropAction.CopyAction, mime, buttons, mods)
    QtWidgets.QApplication.sendEvent(view.viewport(), drop)
    assert drop.isAccepted()


def _empty(make_window):
    w = make_window()
    w.files.new_design()
    assert len(w.fabric) == 0
    return w


def test_palette_drop_creates_the_part_where_dropped(make_window):
    w = _empty(make_window)
    _drop(w.view, "QM9700", QtCore.QPointF(103, -48), w.palette_dock)
    _drop(w.view, "DGX-H100", QtCore.QPointF(300, 200), w.palette_dock)
    f = w.fabric
    assert f.counts() == {"server": 1, "gpu": 8, "nic": 8, "ib_switch": 1, "eth_switch": 0, "cables": 0}
    sw = next(f.devices("ib_switch"))
    assert (sw.part_id, len(sw.ports)) == ("QM9700", 64)
    # dropped where the mouse was, snapped to the 10-unit grid (within a pixel of rounding)
    assert abs(sw.x - 100) <= 10 and abs(sw.y + 50) <= 10 and sw.x % 10 == 0 and sw.y % 10 == 0
    dgx = next(f.devices("server"))
    assert abs(dgx.x - 300) <= 10 and abs(dgx.y - 200) <= 10
    assert len(dgx.gpus) == 8 and len(dgx.nics) == 8
    frame = w.scene.items_by_id[dgx.id]
    kids = [c for c in frame.childItems() if isinstance(c, DeviceItem)]
    assert len(kids) == 16                              # the server shows its GPUs and NICs
    assert w.scene.selected_device_ids() == [dgx.id]    # the new device is selected
    assert w.editor.stack.count() == 2
    w.editor.stack.undo()
    w.editor.stack.undo()
    assert len(f) == 0 and w.scene.items_by_id == {}


def _hover_and_drag_port(qtbot, w, a: str, pa: int, b: str, pb: int) -> None:
    """Mouse: hover device a, press its port pa, move over device b, release on port pb."""
    view, f = w.view, w.fabric
    vp = view.viewport()
    at = view.mapFromScene(w.scene.items_by_id[f.find(a)].scenePos())
    # QTest sends no move event when the pointer is already there (an earlier test may have left it)
    qtbot.mouseMove(vp, at + QtCore.QPoint(40, 40))
    qtbot.mouseMove(vp, at)
    src = view.ports.marker(f.port_id(f"{a}:{pa}"))
    assert src is not None, "ports appear on hover"
    start = view.mapFromScene(src.scenePos())
    qtbot.mouseMove(vp, start)
    qtbot.mousePress(vp, QtCore.Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(vp, view.mapFromScene(w.scene.items_by_id[f.find(b)].scenePos()))
    dst = view.ports.marker(f.port_id(f"{b}:{pb}"))
    assert dst is not None, "the target's ports appear while dragging a cable over it"
    end = view.mapFromScene(dst.scenePos())
    qtbot.mouseMove(vp, end)
    qtbot.mouseRelease(vp, QtCore.Qt.MouseButton.LeftButton, pos=end)


def _switches(w, parts=("QM9700", "QM9700", "SN5600")):
    names = []
    for i, p in enumerate(parts):
        d = w.editor.add_part(p, 200.0 * i, 0.0)
        names.append(w.fabric.name_of(d))
    w.view.resetTransform()
    w.view.setSceneRect(QtCore.QRectF(-300, -300, 1200, 600))
    w.view.centerOn(200, 40)
    w.view._after_zoom()
    return names


def test_drawing_a_cable_between_two_ports_with_the_mouse(make_window, qtbot):
    w = _empty(make_window)
    a, b, _ = _switches(w)
    before = w.editor.stack.count()
    _hover_and_drag_port(qtbot, w, a, 3, b, 5)
    f = w.fabric
    assert f.counts()["cables"] == 1
    cab = next(f.cables())
    assert {cab.port_a.name, cab.port_b.name} == {f"{a}:3", f"{b}:5"}
    assert str(cab.rate) == "4xNDR" and cab.length_m == 3.0
    assert w.editor.stack.count() == before + 1
    w.scene.flush()
    assert sum(w.scene.cables.counts().values()) == 1
    # the port panel now shows the port as cabled
    assert w.view.ports.marker(f.port_id(f"{b}:5")).brush().color() != w.scene.theme.port_free.color()


def test_refused_cables_show_the_reason_and_change_nothing(make_window, qtbot):
    w = _empty(make_window)
    a, b, eth = _switches(w)
    f = w.fabric
    _hover_and_drag_port(qtbot, w, a, 1, b, 1)
    sig = f.signature()
    count = w.editor.stack.count()
    # InfiniBand to Ethernet
    _hover_and_drag_port(qtbot, w, a, 2, eth, 1)
    msg = w.view.message
    assert msg.isVisible()
    assert msg.text() == f"{a}:2 – {eth}:1: cannot cable InfiniBand (4xNDR) to Ethernet (800GbE)"
    assert w.statusBar().currentMessage() == "refused: " + msg.text()
    assert f.signature() == sig and w.editor.stack.count() == count
    # an occupied port
    _hover_and_drag_port(qtbot, w, b, 1, a, 4)
    assert msg.text() == f"{b}:1 is already cabled to {a}:1"
    assert f.signature() == sig and w.editor.stack.count() == count
    # reach: a 10 m run with a 3 m NDR DAC picked in the palette
    item = w.palette_dock.part_item("NDR-DAC")
    w.palette_dock.tree.itemClicked.emit(item, 0)
    w.cable_tools.length_box.setValue(10.0)
    w.view.cable_part = "NDR-DAC"        # the length box resets the part; pick it again
    _hover_and_drag_port(qtbot, w, a, 5, b, 6)
    assert msg.text() == f"{a}:5 – {b}:6: a 10 m DAC is too long: NDR-DAC reaches 3 m (use an AOC or optics)"
    assert f.signature() == sig and w.editor.stack.count() == count


def test_click_ctrl_click_and_rubber_band_select(make_window, qtbot):
    w = make_window()
    w.view.fit_all()
    vp, f, view = w.view.viewport(), w.fabric, w.view
    pos = lambda name: view.mapFromScene(w.scene.items_by_id[f.find(name)].scenePos())  # noqa: E731
    qtbot.mouseClick(vp, QtCore.Qt.MouseButton.LeftButton, pos=pos("spine01"))
    assert w.scene.selected_device_ids() == [f.find("spine01")]
    qtbot.mouseClick(vp, QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.ControlModifier,
                     pos("spine02"))
    assert w.scene.selected_device_ids() == sorted([f.find("spine01"), f.find("spine02")])
    qtbot.waitUntil(lambda: w.inspector.title.text() == "<b>2</b> devices and <b>0</b> cables selected")
    # rubber band around the four leaves
    leaves = [f.find(f"leaf0{i}") for i in range(1, 5)]
    r = QtCore.QRectF()
    for d in leaves:
        r = r.united(w.scene.items_by_id[d].sceneBoundingRect())
    tl = view.mapFromScene(r.topLeft() - QtCore.QPointF(15, 15))
    br = view.mapFromScene(r.bottomRight() + QtCore.QPointF(15, 3))
    qtbot.mousePress(vp, QtCore.Qt.MouseButton.LeftButton, pos=tl)
    for k in range(1, 6):
        qtbot.mouseMove(vp, tl + (br - tl) * (k / 5))
    qtbot.mouseRelease(vp, QtCore.Qt.MouseButton.LeftButton, pos=br)
    assert w.scene.selected_device_ids() == sorted(leaves)


def test_dragging_many_devices_is_one_undo_step(make_window, qtbot):
    w = make_window()
    w.view.fit_all()
    f = w.fabric
    sig = f.signature()
    w.selection.select_all()
    tops = w.scene.selected_device_ids()
    assert len(tops) == 24
    t = f.devices_t
    x0, y0 = t.x.copy(), t.y.copy()
    vp, view = w.view.viewport(), w.view
    start = view.mapFromScene(w.scene.items_by_id[f.find("leaf02")].scenePos())
    qtbot.mousePress(vp, QtCore.Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 6):
        qtbot.mouseMove(vp, start + QtCore.QPoint(12 * k, 6 * k))
    qtbot.mouseRelease(vp, QtCore.Qt.MouseButton.LeftButton, pos=start + QtCore.QPoint(60, 30))
    assert w.editor.stack.count() == 1
    assert w.editor.stack.text(0) == "Move 24 devices"
    dx, dy = t.x - x0, t.y - y0
    assert dx[0] != 0 and np.allclose(dx, dx[0]) and np.allclose(dy, dy[0])   # children moved too
    assert float(t.x[f.find("leaf02")]) % 10 == 0                              # snapped to the grid
    for d in tops:
        assert w.scene.items_by_id[d].pos() == QtCore.QPointF(float(t.x[d]), float(t.y[d]))
    assert w.isWindowModified()
    w.acts["undo"].trigger()
    assert f.signature() == sig and not w.isWindowModified()


def test_keyboard_nudges_merge_into_one_step_and_zoom_keys(make_window, qtbot):
    w = make_window()
    f = w.fabric
    sig = f.signature()
    w.scene.select_devices([f.find("spine01")])
    w.view.setFocus()
    for _ in range(3):
        qtbot.keyClick(w.view, QtCore.Qt.Key.Key_Right)
    assert w.editor.stack.count() == 1
    assert f.device("spine01").x == load_fabric(DEMO_FABRIC).device("spine01").x + 30
    s = w.view.scale_factor()
    qtbot.keyClick(w.view, QtCore.Qt.Key.Key_Plus)
    assert abs(w.view.scale_factor() / s - 1.25) < 1e-6
    w.acts["undo"].trigger()
    assert f.signature() == sig


def test_level_of_detail_keeps_names_readable_and_hides_server_contents_when_zoomed_out(make_window):
    w = make_window()
    leaf = w.fabric.find("leaf01")
    gpu = w.scene.items_by_id[w.fabric.find("node01/gpu0")]

    def names():
        w.view.centerOn(w.scene.content_rect().center())     # whatever the pointer's zoom anchor
        return {d: (t, r.height()) for d, t, r in w.scene.label_layer.in_view(w.view)}
    w.view.resetTransform()
    w.view._after_zoom()
    assert names()[leaf] == ("leaf01", 17.0) and gpu.isVisible()
    assert len(names()) == 16                       # every switch, every other server
    w.view.zoom_by(0.3)
    assert names()[leaf] == ("leaf01", 17.0) and gpu.isVisible()
    assert len(names()) == 10                       # the rest give way rather than shrink (spines' above)
    w.view.zoom_by(0.3)
    assert names()[leaf] == ("leaf01", 17.0) and not gpu.isVisible()
    assert sorted(t for t, _ in names().values()) == ["leaf01", "node01", "spine01", "spine02"]
    assert w.zoom_label.text() == f"{w.view.scale_factor() * 100:.0f} %" == "9 %"
    w.view.zoom_by(0.1)
    assert w.zoom_label.text() == "0.9 %"


def test_inspector_shows_ports_and_peers_and_edits_through_undo(make_window, qtbot):
    w = make_window()
    f = w.fabric
    leaf = f.find("leaf01")
    w.scene.select_devices([leaf])
    w.inspector.refresh()
    table = w.inspector.ports
    assert table.rowCount() == 8
    rows = {table.item(r, C_PORT).text(): table.item(r, C_PEER).text() for r in range(8)}
    assert rows["leaf01:1"] == f.port("leaf01:1").peer.name
    assert rows["leaf01:5"] == f.port("leaf01:5").peer.name
    assert w.inspector.guid.isVisible() and w.inspector.guid.text()
    # rename through the inspector
    w.inspector.name.setText("leafA")
    w.inspector.name.editingFinished.emit()
    assert f.find("leafA") == leaf
    assert [t for d, t, _ in w.scene.label_layer.in_view(w.view) if d == leaf] == ["leafA"]
    # a taken name is refused and nothing changes
    w.inspector.name.setText("spine01")
    w.inspector.name.editingFinished.emit()
    assert f.name_of(leaf) == "leafA"
    assert w.view.message.text() == "name 'spine01' is already used by another device"
    w.acts["undo"].trigger()
    assert f.name_of(leaf) == "leaf01"
