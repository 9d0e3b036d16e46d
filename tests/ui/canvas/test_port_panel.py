"""The port panel a user can reach: real mouse moves over the demo design's leaf01 and node01."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from fabricviz.ui.canvas.items.ports import LABEL_PX


def _leaf(w, name="leaf01"):
    f, view = w.fabric, w.view
    d = f.find(name)
    return f, view, view.viewport(), d, w.scene.items_by_id[d]


def _hover(qtbot, view, item):
    """Onto the device's centre (from a point beside it: a move to where the pointer already
    is delivers no event)."""
    at = view.mapFromScene(item.scenePos())
    qtbot.mouseMove(view.viewport(), at + QtCore.QPoint(0, -3))
    qtbot.mouseMove(view.viewport(), at)


def _screen_rect(view, item) -> QtCore.QRect:
    return view.mapFromScene(item.sceneBoundingRect()).boundingRect()


def _far_point(w, view) -> QtCore.QPoint:
    """A viewport point on empty canvas, far from every device."""
    at = QtCore.QPoint(6, 6)
    assert w.scene.device_item_at(view.mapToScene(at)) is None
    return at


def test_hovering_a_switch_shows_markers_numbered_with_its_port_numbers(make_window, qtbot):
    w = make_window()
    f, view, vp, d, item = _leaf(w)
    assert not view.ports.panels
    _hover(qtbot, view, item)
    panel = view.ports.panels[d]
    ports = f.device(d).port_ids.tolist()
    assert sorted(panel.markers) == ports and sorted(panel.labels) == ports
    assert [panel.labels[p].text() for p in ports] == [str(int(f.ports_t.num[p])) for p in ports]
    assert [panel.labels[p].text() for p in ports] == ["1", "2", "3", "4", "5", "6", "7", "8"]
    rects = [_screen_rect(view, panel.labels[p]) for p in ports]
    for p, r in zip(ports, rects, strict=True):
        assert panel.labels[p].isVisible()
        # the number sits under its own marker, and no two numbers overlap on screen
        m = _screen_rect(view, panel.markers[p])
        assert r.top() >= m.center().y() and abs(r.center().x() - m.center().x()) <= 1
    for a, b in zip(rects, rects[1:], strict=False):
        assert a.right() < b.left()


def test_port_numbers_keep_their_on_screen_size_when_zooming(make_window, qtbot):
    w = make_window()
    f, view, vp, d, item = _leaf(w)
    heights = []
    for scale in (0.5, 2.0):
        view.resetTransform()
        view.scale(scale, scale)
        view.centerOn(item.scenePos())
        view._after_zoom()
        _hover(qtbot, view, item)
        label = view.ports.panels[d].labels[f.port_id("leaf01:8")]
        heights.append(_screen_rect(view, label).height())
    assert abs(heights[0] - heights[1]) <= 1
    assert LABEL_PX <= heights[0] <= 2 * LABEL_PX


def test_a_nic_port_is_numbered_hca_colon_port(make_window, qtbot):
    w = make_window()
    f, view, vp, d, item = _leaf(w, "node01")
    view.resetTransform()
    view.scale(3.0, 3.0)
    view.centerOn(item.scenePos())
    view._after_zoom()
    _hover(qtbot, view, item)
    nic = f.find("node01/mlx5_0")
    p = f.port_id("node01/mlx5_0:1")
    assert view.ports.panels[nic].labels[p].text() == "0:1"


def test_markers_stay_on_the_way_to_a_marker_outside_the_outline_and_hide_far_away(make_window, qtbot):
    w = make_window()
    f, view, vp, d, item = _leaf(w)
    _hover(qtbot, view, item)
    p = f.port_id("leaf01:1")
    marker = view.ports.marker(p)
    target = marker.scenePos()
    assert not item.sceneBoundingRect().contains(target)        # the marker lies outside the device
    start = view.mapFromScene(item.scenePos())
    end = view.mapFromScene(target)
    crossed_outside = False
    for k in range(1, 6):
        at = start + (end - start) * (k / 5)
        qtbot.mouseMove(vp, at)
        sp = view.mapToScene(at)
        crossed_outside |= w.scene.device_item_at(sp) is None and view.ports.port_at(sp) is None
        assert d in view.ports.panels, f"markers hidden at step {k}"
        assert view.ports.marker(p) is not None and view.ports.marker(p).isVisible()
    assert crossed_outside              # the way led over neither the device nor a marker
    assert view.ports.port_at(view.mapToScene(end)) == p
    qtbot.mouseMove(vp, _far_point(w, view))
    qtbot.wait(400)
    assert not view.ports.panels and view.ports.marker(p) is None


def test_no_tooltip_covers_the_markers_of_a_hovered_device(make_window, qtbot):
    w = make_window()
    f, view, vp, d, item = _leaf(w)
    _hover(qtbot, view, item)
    assert d in view.ports.panels
    qtbot.mouseMove(vp, view.mapFromScene(item.scenePos()) + QtCore.QPoint(1, 1))
    qtbot.wait(1200)                                            # past the tooltip delay
    assert d in view.ports.panels
    assert not QtWidgets.QToolTip.isVisible()


def test_the_device_tooltip_shows_where_no_markers_are(make_window, qtbot):
    """The control for the test above: zoomed out, no markers, and the tooltip does appear."""
    w = make_window()
    f, view, vp, d, item = _leaf(w)
    view.resetTransform()
    view.scale(0.15, 0.15)
    view.centerOn(item.scenePos())
    view._after_zoom()
    _hover(qtbot, view, item)
    qtbot.mouseMove(vp, view.mapFromScene(item.scenePos()) + QtCore.QPoint(1, 0))
    assert not view.ports.panels
    qtbot.waitUntil(QtWidgets.QToolTip.isVisible, timeout=60_000)
    assert QtWidgets.QToolTip.text().startswith("<b>leaf01</b>")


def test_a_marker_tooltip_names_the_port_its_rate_and_its_peer(make_window, qtbot):
    w = make_window()
    f, view, vp, d, item = _leaf(w)
    _hover(qtbot, view, item)
    for name, text in (("leaf01:1", "leaf01:1 — 4xNDR — to node01/mlx5_0:1"),
                       ("leaf01:8", f"leaf01:8 — 4xNDR — to {f.port(f.port_id('leaf01:8')).peer.name}")):
        at = view.mapFromScene(view.ports.marker(f.port_id(name)).scenePos())
        qtbot.mouseMove(vp, at)
        qtbot.mouseMove(vp, at + QtCore.QPoint(1, 0))
        qtbot.waitUntil(lambda text=text: QtWidgets.QToolTip.isVisible() and QtWidgets.QToolTip.text() == text,
                        timeout=60_000)
        assert d in view.ports.panels


def test_the_markers_leave_with_the_pointer_also_for_a_dock(make_window, qtbot):
    """Issue 29: the hover port grid stayed on screen after the pointer left for a dock."""
    w = make_window()
    _f, view, vp, d, item = _leaf(w)
    _hover(qtbot, view, item)
    assert d in view.ports.panels
    QtWidgets.QApplication.sendEvent(vp, QtCore.QEvent(QtCore.QEvent.Type.Leave))   # out of the canvas
    assert not view.ports.panels
    _hover(qtbot, view, item)                                   # and back: shown again
    assert d in view.ports.panels
    dock = w.inspector_dock if hasattr(w, "inspector_dock") else w.findChildren(QtWidgets.QDockWidget)[0]
    qtbot.mouseMove(dock, QtCore.QPoint(5, 5))                  # the pointer moves on to a dock
    QtWidgets.QApplication.sendEvent(view, QtCore.QEvent(QtCore.QEvent.Type.Leave))
    assert not view.ports.panels
