"""The canvas minimap (overview: viewport rectangle, click, drag, wheel, toggle, redraws) and
View ▸ Fit Selection, on a real 1920×1080 main window showing a radix-8 fat tree at 100 %."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ui.canvas import minimap as mm
from fabricviz.ui.document.settings import settings

LEFT = QtCore.Qt.MouseButton.LeftButton
NOMOD = QtCore.Qt.KeyboardModifier.NoModifier


@pytest.fixture
def win(make_window, qtbot):
    """A 1920×1080 window on a 3-level radix-8 fat tree (128 hosts), zoomed to 100 % on its middle."""
    w = make_window()
    w.resize(1920, 1080)
    w.apply_generated(k_ary_fat_tree(8))
    QtWidgets.QApplication.processEvents()
    zoom_100(w)
    return w


def zoom_100(w) -> None:
    v = w.view
    v.zoom_by(1.0 / v.scale_factor())
    v.centerOn(w.scene.content_rect().center())
    QtWidgets.QApplication.processEvents()
    assert v.scale_factor() == pytest.approx(1.0, abs=1e-9)


def centre(w) -> QtCore.QPointF:
    """The scene point at the middle of the canvas."""
    vp = w.view.viewport()
    return w.view.mapToScene(QtCore.QPoint(vp.width() // 2, vp.height() // 2)).toPoint().toPointF()


def device_pos(w, name: str) -> QtCore.QPointF:
    f = w.fabric
    d = f.find(name)
    return QtCore.QPointF(float(f.devices_t.x[d]), float(f.devices_t.y[d]))


def test_minimap_sits_in_the_corner_and_its_rectangle_is_what_the_canvas_shows(win):
    w, m = win, win.minimap
    assert w.view.viewport().size().width() >= 1100 and not m.isHidden() and m.isVisible()
    vp = w.view.viewport().geometry()
    g = m.geometry()
    assert (g.right(), g.bottom()) == (vp.right() - mm.MARGIN, vp.bottom() - mm.MARGIN)
    for bar in (w.view.verticalScrollBar(), w.view.horizontalScrollBar()):
        assert bar.isVisible() and not g.intersects(bar.geometry())
    # the box is as big as allowed along the design's long side; the design keeps its aspect
    assert g.width() == mm.MAX_SIZE.width() and mm.MIN_SIZE.height() <= g.height() <= mm.MAX_SIZE.height()
    c = w.scene.content_rect()
    drawn = QtCore.QRectF(m.to_minimap(c.topLeft()), m.to_minimap(c.bottomRight()))
    assert drawn.width() / drawn.height() == pytest.approx(c.width() / c.height(), rel=1e-9)
    assert QtCore.QRectF(m.rect()).contains(drawn)
    assert drawn.center().x() == pytest.approx(g.width() / 2) and drawn.center().y() == pytest.approx(g.height() / 2)
    # the viewport rectangle maps back to the canvas's visible scene rect within a minimap pixel
    shown = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    r = m.viewport_rect()
    back = QtCore.QRectF(m.to_scene(r.topLeft()), m.to_scene(r.bottomRight()))
    px = 1.0 / m.scale
    for a, b in ((back.left(), shown.left()), (back.top(), shown.top()),
                 (back.right(), shown.right()), (back.bottom(), shown.bottom())):
        assert abs(a - b) <= px
    assert r.width() == pytest.approx(shown.width() * m.scale) and not r.contains(drawn)   # a part shows
    # the window shrinks: still in the corner
    w.resize(1700, 1000)
    QtWidgets.QApplication.processEvents()
    vp, g = w.view.viewport().geometry(), m.geometry()
    assert not m.isHidden() and (g.right(), g.bottom()) == (vp.right() - mm.MARGIN, vp.bottom() - mm.MARGIN)


def test_zoomed_out_the_rectangle_is_kept_inside_the_box_with_its_four_sides(win):
    w, m = win, win.minimap
    w.view.zoom_by(0.5)
    c = w.scene.content_rect()
    w.view.centerOn(QtCore.QPointF(c.left(), c.center().y()))     # the design's left edge in the middle
    QtWidgets.QApplication.processEvents()
    assert not m.isHidden()
    r, drawn = m.viewport_rect(), m.drawn_rect()
    lo, right, bottom = mm.PAD / 2, m.width() - mm.PAD / 2, m.height() - mm.PAD / 2
    assert r.left() < lo and lo < r.right() < right       # the canvas shows more than the map, on the left
    assert QtCore.QRectF(m.rect()).contains(drawn)
    assert drawn.left() == lo and drawn.right() == pytest.approx(r.right())
    assert drawn.top() == pytest.approx(max(r.top(), lo)) and drawn.bottom() == pytest.approx(min(r.bottom(), bottom))
    w.view.zoom_by(1e-6)                                # far out (to the least zoom): the whole design shows
    QtWidgets.QApplication.processEvents()
    assert m.isHidden()


def test_a_click_centres_the_canvas_there_and_keeps_the_keyboard_on_the_canvas(win):
    w, m = win, win.minimap
    w.activateWindow()
    w.view.setFocus()
    QtWidgets.QApplication.processEvents()
    focus, renders = QtWidgets.QApplication.focusWidget(), m.renders
    assert focus is w.view
    here = centre(w)
    far = max((w.fabric.name_of(int(d)) for d in w.fabric.device_ids("ib_switch")),
              key=lambda n: abs(device_pos(w, n).x() - here.x()) + abs(device_pos(w, n).y() - here.y()))
    at = m.to_minimap(device_pos(w, far)).toPoint()         # the switch farthest from the middle
    assert not m.viewport_rect().contains(QtCore.QPointF(at))
    QTest.mouseClick(m, LEFT, NOMOD, at)
    want = m.to_scene(QtCore.QPointF(at))
    got = centre(w)
    assert abs(got.x() - want.x()) <= 1.5 and abs(got.y() - want.y()) <= 1.5
    for got_c, want_c in ((got.x(), device_pos(w, far).x()), (got.y(), device_pos(w, far).y())):
        assert abs(got_c - want_c) <= 1.0 / m.scale                        # within a minimap pixel
    assert m.renders == renders                           # moving the view never redraws the design
    assert QtWidgets.QApplication.focusWidget() is focus and m.focusPolicy() == QtCore.Qt.FocusPolicy.NoFocus


def test_dragging_the_rectangle_moves_the_canvas_continuously(win):
    w, m = win, win.minimap
    start = centre(w)
    grab = m.viewport_rect().center().toPoint() + QtCore.QPoint(3, 2)     # off the middle: the grip is kept
    QTest.mousePress(m, LEFT, NOMOD, grab)
    assert centre(w) == start                           # pressing on the rectangle does not jump
    QTest.mouseMove(m, grab + QtCore.QPoint(-20, 0))
    mid = centre(w)
    assert abs(mid.x() - (start.x() - 20 / m.scale)) <= 1.5 and abs(mid.y() - start.y()) <= 1.5
    QTest.mouseMove(m, grab + QtCore.QPoint(-60, 4))
    QTest.mouseRelease(m, LEFT, NOMOD, grab + QtCore.QPoint(-60, 4))
    end = centre(w)
    assert abs(end.x() - (start.x() - 60 / m.scale)) <= 1.5 and abs(end.y() - (start.y() + 4 / m.scale)) <= 1.5
    QTest.mouseMove(m, grab)                            # released: moving no longer drags
    assert centre(w) == end


def test_the_wheel_over_the_minimap_zooms_the_canvas_about_its_middle(win):
    w, m = win, win.minimap
    before = centre(w)
    pos = QtCore.QPointF(m.viewport_rect().center())
    ev = QtGui.QWheelEvent(pos, QtCore.QPointF(m.mapToGlobal(pos.toPoint())), QtCore.QPoint(), QtCore.QPoint(0, 120),
                           QtCore.Qt.MouseButton.NoButton, NOMOD, QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    QtWidgets.QApplication.sendEvent(m, ev)
    assert w.view.scale_factor() == pytest.approx(1.25)
    after = centre(w)
    assert abs(after.x() - before.x()) <= 1.5 and abs(after.y() - before.y()) <= 1.5
    assert w.zoom_label.text() == "125 %"


def test_fit_hides_it_and_view_minimap_toggles_it_and_is_remembered(win, make_window):
    w, m = win, win.minimap
    act = w.findChild(QtGui.QAction, "action_minimap")
    assert act is w.acts["minimap"] and act.isCheckable() and act.isChecked()
    assert act in w.acts.menu("view").actions()
    w.fit()
    QtWidgets.QApplication.processEvents()
    assert m.isHidden()                                 # the whole design shows: nothing to navigate
    zoom_100(w)
    assert not m.isHidden()
    act.trigger()
    assert m.isHidden() and not act.isChecked() and settings().value(mm.SETTING, type=bool) is False
    w2 = make_window()
    assert not w2.acts["minimap"].isChecked() and not w2.minimap.on
    w2.resize(1920, 1080)
    w2.apply_generated(k_ary_fat_tree(8))
    QtWidgets.QApplication.processEvents()
    zoom_100(w2)
    assert w2.minimap.isHidden()
    act.trigger()
    assert not m.isHidden() and settings().value(mm.SETTING, type=bool) is True


def _select(w, names: list[str]) -> None:
    w.scene.select_devices([w.fabric.find(n) for n in names])


def test_fit_selection_zooms_to_the_selected_leaves_and_without_a_selection_does_what_fit_does(win):
    w = win
    act = w.findChild(QtGui.QAction, "action_fit_selection")
    assert act.shortcut() == QtGui.QKeySequence("Shift+F") and act in w.acts.menu("view").actions()
    clashes = [a.objectName() for a in w.findChildren(QtGui.QAction)
               if a is not act and QtGui.QKeySequence("Shift+F") in a.shortcuts()]
    assert clashes == []
    w.fit()
    fit_scale, fit_centre = w.view.scale_factor(), centre(w)
    _select(w, ["leaf01", "leaf04"])
    act.trigger()
    shown = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    for name in ("leaf01", "leaf04"):
        assert shown.contains(w.scene.items_by_id[w.fabric.find(name)].sceneBoundingRect())
    assert w.view.scale_factor() > fit_scale
    assert not w.keep_fitted                            # a resize no longer refits the whole design
    # a selected cable counts by its two ends
    w.scene.clearSelection()
    cid = int(w.fabric.cable_ids()[0])
    w.scene.set_selected_cables({cid})
    act.trigger()
    shown = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    layer = w.scene.cables
    e = layer.ends[:, list(layer.ids).index(cid)]
    assert shown.contains(QtCore.QPointF(e[0], e[1])) and shown.contains(QtCore.QPointF(e[2], e[3]))
    assert w.view.scale_factor() == pytest.approx(mm.FIT_SELECTION_MAX)    # a short cable: capped
    # nothing selected: exactly Fit
    w.scene.set_selected_cables(set())
    zoom_100(w)
    act.trigger()
    assert w.view.scale_factor() == pytest.approx(fit_scale, rel=1e-12) and centre(w) == fit_centre
    assert w.keep_fitted


def test_an_edit_redraws_the_minimap_once_but_a_pan_does_not(win, qtbot):
    w, m = win, win.minimap
    renders, key, image = m.renders, m.cache_key, m.picture.toImage()
    assert key[0] == w.document.revision
    rect = m.viewport_rect()
    bar = w.view.horizontalScrollBar()
    bar.setValue(bar.value() + 300)                     # a pan: the rectangle moves, the design is not redrawn
    QtWidgets.QApplication.processEvents()
    assert m.viewport_rect().left() == pytest.approx(rect.left() + 300 * m.scale)
    assert (m.renders, m.cache_key) == (renders, key)
    leaf = w.fabric.find("leaf01")
    w.editor.move([leaf], -400.0, 0.0)                   # leaf01 leaves the design: the bounds grow
    w.editor.move([leaf], 0.0, -40.0)                    # a burst of edits: one redraw
    assert m.renders == renders                          # debounced
    qtbot.waitUntil(lambda: m.renders > renders, timeout=60_000)
    assert m.renders == renders + 1 and m.cache_key != key and m.cache_key[0] == w.document.revision
    assert m.picture.toImage() != image
    assert m.to_minimap(device_pos(w, "leaf01")).x() >= mm.PAD       # the moved leaf is still on the map


def test_a_dark_palette_redraws_it_in_the_dark_theme(win):
    w, m = win, win.minimap
    app = QtWidgets.QApplication.instance()
    old = app.palette()
    dark = QtGui.QPalette(old)
    for role, colour in ((QtGui.QPalette.ColorRole.Window, "#202428"), (QtGui.QPalette.ColorRole.WindowText, "#e0e0e0"),
                         (QtGui.QPalette.ColorRole.Base, "#181b1f")):
        dark.setColor(role, QtGui.QColor(colour))
    renders = m.renders
    try:
        app.setPalette(dark)
        QtWidgets.QApplication.processEvents()
        assert w.scene.theme.dark and m.cache_key[1] is True and m.renders > renders
        corner = m.grab().toImage().pixelColor(2, m.height() // 2)       # the box's own background
        assert corner.lightness() < 80
    finally:
        app.setPalette(old)
        QtWidgets.QApplication.processEvents()
    assert not w.scene.theme.dark and m.cache_key[1] is False


def test_draw_design_puts_small_devices_as_pixels_of_their_kind_over_the_cables(qapp):
    from fabricviz.ui.canvas import theme as th
    f = k_ary_fat_tree(8)
    theme = th.Theme(dark=False)
    img = QtGui.QImage(120, 80, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(QtCore.Qt.GlobalColor.transparent)
    px, dx, dy = 0.02, 10.0, 40.0                        # a server (30 units) is 0.6 px: one pixel
    mm.draw_design(img, f, theme, px, dx, dy)
    t = f.devices_t

    def pixel(name):
        d = f.find(name)
        return img.pixelColor(int(t.x[d] * px + dx), int(t.y[d] * px + dy))
    assert pixel("node001") == theme.pens["server"].color()          # the outline colour: the fill is near white
    assert pixel("leaf01") == theme.brushes["ib_switch"].color()
    assert pixel("core01") == theme.brushes["ib_switch"].color()
    painted = sum(img.pixelColor(x, y).alpha() > 0 for x in range(img.width()) for y in range(img.height()))
    cable = theme.cable_pens[(1, "transceiver")].color()             # leaf-spine-core optics, drawn faint
    see_through = [img.pixelColor(x, y) for x in range(img.width()) for y in range(img.height())
                   if 0 < img.pixelColor(x, y).alpha() < 255]        # faint: more cables, more opaque
    assert min(c.alpha() for c in see_through) == mm.CABLE_ALPHA
    assert sum(abs(c.hue() - cable.hue()) <= 6 for c in see_through) > 0.9 * len(see_through)
    assert 100 < painted < img.width() * img.height()


def test_a_canvas_resize_calls_nothing_of_the_view_until_the_event_loop_runs(win):
    """The resize filter runs while the window is being destroyed too: it only posts a sync
    (once for a burst of resizes) that dies with the minimap."""
    w, m = win, win.minimap
    calls = []
    m._sync = lambda *a: calls.append(a)         # the sync touches view.viewport()/mapToScene
    vp = w.view.viewport()
    for k in range(3):
        QtWidgets.QApplication.sendEvent(vp, QtGui.QResizeEvent(vp.size() - QtCore.QSize(k, k), vp.size()))
    assert calls == []
    QtWidgets.QApplication.processEvents()
    assert calls == [()]
    del m._sync
    m.hide()
    w.resize(1700, 1000)                         # the posted sync still puts it back in the corner
    QtWidgets.QApplication.processEvents()
    vp, g = w.view.viewport().geometry(), m.geometry()
    assert not m.isHidden() and (g.right(), g.bottom()) == (vp.right() - mm.MARGIN, vp.bottom() - mm.MARGIN)


def test_a_view_whose_scene_went_first_gets_no_redraw(win):
    """Closing a window deletes its scene before its view (``fabricviz demo --screenshot`` printed
    an AttributeError traceback from the minimap's redraw then): with no scene it draws nothing."""
    m = win.minimap
    m._pixmap = None
    win.view.setScene(None)
    m._sync()
    m.refresh()
    assert m._pixmap is None
