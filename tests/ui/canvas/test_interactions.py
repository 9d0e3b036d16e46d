"""Each canvas gesture (fabricviz.ui.canvas.interactions) driven by real mouse and key events on the demo."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets

from fabricviz.ui.canvas.interactions import CableDraw, ChildDrag, Interaction, MoveDevices, Pan, Pick

LEFT = QtCore.Qt.MouseButton.LeftButton
MIDDLE = QtCore.Qt.MouseButton.MiddleButton


def _demo_at_scale_one(make_window, center: tuple[float, float]):
    """The demo at 100 % (a pixel is a scene unit), centred on ``center``."""
    w = make_window()
    view = w.view
    view.resetTransform()
    view.zoom_by(1.0)
    view.centerOn(*center)
    QtWidgets.QApplication.processEvents()
    assert view.scale_factor() == 1.0
    return w, view, view.viewport()


def _screen(w, name: str) -> QtCore.QPoint:
    return w.view.mapFromScene(w.scene.items_by_id[w.fabric.find(name)].scenePos())


def _drag(qtbot, vp, start: QtCore.QPoint, delta: QtCore.QPoint, steps: int = 4) -> QtCore.QPoint:
    for k in range(1, steps + 1):
        qtbot.mouseMove(vp, start + delta * (k / steps))
    return start + delta


def _lines(scene) -> list[QtWidgets.QGraphicsLineItem]:
    return [i for i in scene.items() if isinstance(i, QtWidgets.QGraphicsLineItem)]


def _press_port(qtbot, w, port: str) -> QtCore.QPoint:
    """Hover the port's device (its markers appear), press on the port's marker."""
    view, f = w.view, w.fabric
    vp = view.viewport()
    qtbot.mouseMove(vp, _screen(w, port.split(":")[0]))
    marker = view.ports.marker(f.port_id(port))
    assert marker is not None, "ports appear on hover"
    at = view.mapFromScene(marker.scenePos())
    qtbot.mouseMove(vp, at)
    qtbot.mousePress(vp, LEFT, pos=at)
    return at


def _marker_pos(w, port: str) -> QtCore.QPoint:
    marker = w.view.ports.marker(w.fabric.port_id(port))
    assert marker is not None, "the target's ports appear while dragging a cable over it"
    return w.view.mapFromScene(marker.scenePos())


def test_the_view_offers_presses_to_one_object_per_gesture_in_priority_order(make_window):
    w = make_window()
    view = w.view
    kinds = [type(i) for i in view.interactions]
    assert kinds == [Pan, CableDraw, Pick, ChildDrag, MoveDevices]
    assert all(isinstance(i, Interaction) and not i.active for i in view.interactions)
    assert view.active_interaction is None
    assert (view.pan, view.cable_draw, view.pick, view.child_drag, view.move_devices) == \
        tuple(view.interactions)


def test_middle_drag_pans_by_the_drag_distance_and_edits_nothing(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (280, -260))
    f = w.fabric
    sig, count = f.signature(), w.editor.stack.count()
    h, v = view.horizontalScrollBar(), view.verticalScrollBar()
    h0, v0 = h.value(), v.value()
    assert h.minimum() <= h0 - 60 and v.minimum() <= v0 - 40      # room to scroll that far
    leaf = w.scene.items_by_id[f.find("leaf02")]
    leaf_pos = leaf.pos()
    start = _screen(w, "leaf02")                   # pressed on a device: panning, not moving it
    qtbot.mousePress(vp, MIDDLE, pos=start)
    assert view.active_interaction is view.pan
    end = _drag(qtbot, vp, start, QtCore.QPoint(60, 40))
    qtbot.mouseRelease(vp, MIDDLE, pos=end)
    assert (h.value(), v.value()) == (h0 - 60, v0 - 40)
    assert view.active_interaction is None
    assert f.signature() == sig and w.editor.stack.count() == count
    assert leaf.pos() == leaf_pos and w.scene.selected_device_ids() == []


def test_space_and_left_drag_pans_and_releasing_space_gives_the_left_button_back(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (280, -260))
    f = w.fabric
    sig, count = f.signature(), w.editor.stack.count()
    h, v = view.horizontalScrollBar(), view.verticalScrollBar()
    h0, v0 = h.value(), v.value()
    assert h0 + 50 <= h.maximum() and v.minimum() <= v0 - 30
    view.setFocus()
    qtbot.keyPress(view, QtCore.Qt.Key.Key_Space)
    assert view.pan.space and view.viewport().cursor().shape() == QtCore.Qt.CursorShape.OpenHandCursor
    start = _screen(w, "leaf02")
    qtbot.mousePress(vp, LEFT, pos=start)
    assert view.active_interaction is view.pan
    assert view.viewport().cursor().shape() == QtCore.Qt.CursorShape.ClosedHandCursor
    end = _drag(qtbot, vp, start, QtCore.QPoint(-50, 30))
    qtbot.mouseRelease(vp, LEFT, pos=end)
    assert (h.value(), v.value()) == (h0 + 50, v0 - 30)
    assert f.signature() == sig and w.editor.stack.count() == count
    assert w.scene.selected_device_ids() == []                  # the left press selected nothing
    qtbot.keyRelease(view, QtCore.Qt.Key.Key_Space)
    assert not view.pan.space
    qtbot.mouseClick(vp, LEFT, pos=_screen(w, "leaf02"))       # a plain click again
    assert w.scene.selected_device_ids() == [f.find("leaf02")]
    assert (h.value(), v.value()) == (h0 + 50, v0 - 30)


def test_cable_drawn_from_a_free_port_to_a_free_port_is_one_cable_in_one_undo_step(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (119, -520))
    f = w.fabric
    sig, count = f.signature(), w.editor.stack.count()
    assert f.counts()["cables"] == 32
    a, b = f.port_id("spine01:5"), f.port_id("spine02:5")
    assert f.ports_t.cable[a] < 0 and f.ports_t.cable[b] < 0
    _press_port(qtbot, w, "spine01:5")
    assert view.active_interaction is view.cable_draw and view.cable_draw.source == a
    assert len(_lines(w.scene)) == 1
    qtbot.mouseMove(vp, _screen(w, "spine02"))
    end = _marker_pos(w, "spine02:5")
    qtbot.mouseMove(vp, end)
    assert _lines(w.scene)[0].line().p2() == view.mapToScene(end)     # the rubber line follows
    qtbot.mouseRelease(vp, LEFT, pos=end)
    assert f.counts()["cables"] == 33
    assert w.editor.stack.count() == count + 1
    cab = f.cable(int(f.ports_t.cable[a]))
    assert {cab.port_a.name, cab.port_b.name} == {"spine01:5", "spine02:5"}
    assert _lines(w.scene) == [] and view.active_interaction is None
    assert w.statusBar().currentMessage() == f"cabled {cab.label} ({cab.type}, {cab.rate})"
    w.acts["undo"].trigger()
    assert f.signature() == sig and f.counts()["cables"] == 32


def test_escape_mid_drag_cancels_the_cable_and_removes_the_rubber_line(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (119, -520))
    f = w.fabric
    sig, count = f.signature(), w.editor.stack.count()
    _press_port(qtbot, w, "spine01:5")
    qtbot.mouseMove(vp, _screen(w, "spine02"))
    end = _marker_pos(w, "spine02:5")
    qtbot.mouseMove(vp, end)
    line = _lines(w.scene)
    assert len(line) == 1 and line[0].scene() is w.scene
    view.setFocus()
    qtbot.keyClick(view, QtCore.Qt.Key.Key_Escape)
    assert _lines(w.scene) == [] and line[0].scene() is None
    assert not view.cable_draw.active and view.active_interaction is None
    qtbot.mouseRelease(vp, LEFT, pos=end)                      # the release on a port no longer cables
    assert f.counts()["cables"] == 32 and f.ports_t.cable[f.port_id("spine02:5")] < 0
    assert f.signature() == sig and w.editor.stack.count() == count


def test_moving_two_selected_devices_snaps_to_the_grid_in_one_undo_step(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (119, -260))
    f, t = w.fabric, w.fabric.devices_t
    sig, count = f.signature(), w.editor.stack.count()
    l1, l2 = f.find("leaf01"), f.find("leaf02")
    w.scene.select_devices([l1, l2])
    x0, y0 = t.x.copy(), t.y.copy()
    assert (x0[l1], y0[l1], x0[l2], y0[l2]) == (51, -260, 187, -260)
    start = _screen(w, "leaf01")
    qtbot.mousePress(vp, LEFT, pos=start)
    assert view.active_interaction is view.move_devices
    end = _drag(qtbot, vp, start, QtCore.QPoint(47, 23))
    # while dragging, the items follow the mouse exactly and the model has not moved
    assert w.scene.items_by_id[l2].pos() == QtCore.QPointF(187 + 47, -260 + 23)
    assert np.array_equal(t.x, x0)
    qtbot.mouseRelease(vp, LEFT, pos=end)
    assert w.editor.stack.count() == count + 1
    assert w.editor.stack.text(count) == "Move 2 devices"
    # leaf01, the grabbed one, lands on the grid: (51 + 47, -260 + 23) -> (100, -240); leaf02 alike
    assert (t.x[l1], t.y[l1], t.x[l2], t.y[l2]) == (100, -240, 236, -240)
    others = np.setdiff1d(np.arange(len(x0)), [l1, l2])
    assert np.array_equal(t.x[others], x0[others]) and np.array_equal(t.y[others], y0[others])
    assert w.scene.items_by_id[l1].pos() == QtCore.QPointF(100, -240)
    assert w.scene.selected_device_ids() == sorted([l1, l2])
    assert view.active_interaction is None
    w.acts["undo"].trigger()
    assert np.array_equal(t.x, x0) and np.array_equal(t.y, y0) and f.signature() == sig
    assert w.scene.items_by_id[l1].pos() == QtCore.QPointF(51, -260)
    assert w.scene.items_by_id[l2].pos() == QtCore.QPointF(187, -260)


def test_a_middle_press_during_a_cable_drag_does_not_pan_and_the_cable_still_lands(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (119, -520))
    f = w.fabric
    count = w.editor.stack.count()
    h, v = view.horizontalScrollBar(), view.verticalScrollBar()
    h0, v0 = h.value(), v.value()
    start = _press_port(qtbot, w, "spine01:5")
    qtbot.mousePress(vp, MIDDLE, pos=start)
    last = _drag(qtbot, vp, start, QtCore.QPoint(40, 30))
    assert (h.value(), v.value()) == (h0, v0)
    assert view.active_interaction is view.cable_draw and not view.pan.active
    assert _lines(w.scene)[0].line().p2() == view.mapToScene(last)
    qtbot.mouseRelease(vp, MIDDLE, pos=last)
    assert view.active_interaction is view.cable_draw
    qtbot.mouseMove(vp, _screen(w, "spine02"))
    end = _marker_pos(w, "spine02:5")
    qtbot.mouseMove(vp, end)
    qtbot.mouseRelease(vp, LEFT, pos=end)
    assert (h.value(), v.value()) == (h0, v0)
    assert f.counts()["cables"] == 33 and w.editor.stack.count() == count + 1
    assert int(f.ports_t.cable[f.port_id("spine01:5")]) == int(f.ports_t.cable[f.port_id("spine02:5")])


def test_a_middle_press_while_moving_devices_does_not_pan(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (119, -260))
    f, t = w.fabric, w.fabric.devices_t
    h, v = view.horizontalScrollBar(), view.verticalScrollBar()
    h0, v0 = h.value(), v.value()
    l1 = f.find("leaf01")
    start = _screen(w, "leaf01")
    qtbot.mousePress(vp, LEFT, pos=start)
    mid = _drag(qtbot, vp, start, QtCore.QPoint(20, 0), steps=2)
    qtbot.mousePress(vp, MIDDLE, pos=mid)
    end = _drag(qtbot, vp, mid, QtCore.QPoint(20, 0), steps=2)
    qtbot.mouseRelease(vp, MIDDLE, pos=end)
    assert (h.value(), v.value()) == (h0, v0) and view.active_interaction is view.move_devices
    qtbot.mouseRelease(vp, LEFT, pos=end)
    assert (t.x[l1], t.y[l1]) == (90, -260)          # 51 + 40 -> 91, snapped to 90
    assert w.editor.stack.count() == 1


def test_cancelling_a_move_puts_the_items_back_and_edits_nothing(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (119, -260))
    f = w.fabric
    sig = f.signature()
    l1 = f.find("leaf01")
    item = w.scene.items_by_id[l1]
    start = _screen(w, "leaf01")
    qtbot.mousePress(vp, LEFT, pos=start)
    end = _drag(qtbot, vp, start, QtCore.QPoint(30, 30))
    assert item.pos() == QtCore.QPointF(81, -230)
    view.cancel_interaction()
    assert item.pos() == QtCore.QPointF(51, -260) and view.active_interaction is None
    qtbot.mouseMove(vp, end + QtCore.QPoint(10, 10))        # the rest of the drag moves nothing
    qtbot.mouseRelease(vp, LEFT, pos=end + QtCore.QPoint(10, 10))
    assert item.pos() == QtCore.QPointF(51, -260)
    assert f.signature() == sig and w.editor.stack.count() == 0


def test_a_click_on_a_gpu_selects_it_and_dragging_it_moves_its_server(make_window, qtbot):
    w, view, vp = _demo_at_scale_one(make_window, (60, 0))
    f, t = w.fabric, w.fabric.devices_t
    server, gpu = f.find("node01"), f.find("node01/gpu0")
    kids = [c.id for c in f.device(server).children]
    at = _screen(w, "node01/gpu0")
    qtbot.mouseClick(vp, LEFT, pos=at)
    assert w.scene.selected_device_ids() == [gpu]
    assert w.editor.stack.count() == 0
    x0, y0 = t.x.copy(), t.y.copy()
    qtbot.mousePress(vp, LEFT, pos=at)
    assert view.active_interaction is view.child_drag
    end = _drag(qtbot, vp, at, QtCore.QPoint(47, 23))
    qtbot.mouseRelease(vp, LEFT, pos=end)
    assert w.editor.stack.count() == 1
    assert (t.x[server] - x0[server], t.y[server] - y0[server]) == (50, 20)   # (0, 0) -> (50, 20)
    assert np.allclose(t.x[kids] - x0[kids], 50) and np.allclose(t.y[kids] - y0[kids], 20)
    assert w.scene.selected_device_ids() == [server]     # a drag is not a click on the GPU
    w.acts["undo"].trigger()
    assert np.array_equal(t.x, x0) and np.array_equal(t.y, y0)
