"""Zoomed far out, devices are drawn as one path per kind; clicks and rubber bands still select them."""

from __future__ import annotations

from PySide6 import QtCore

from fabricviz.generate import k_ary_fat_tree

LEFT = QtCore.Qt.MouseButton.LeftButton


def test_zoomed_out_devices_are_batched_paths_and_stay_selectable(make_window, qtbot):
    w = make_window()
    w.scene.semantic.set_enabled(False)       # the batch is the near drawing zoomed out (no bundles)
    w.apply_generated(k_ary_fat_tree(8))                  # 128 hosts, 80 switches
    view, scene, f = w.view, w.scene, w.fabric
    view.fit_all()
    view.zoom_by(0.5)                                     # the auto layout fits k=8 at about 1/3
    assert view.scale_factor() < 0.2
    assert scene.batch.counts() == {"server": 128, "ib_switch": 80}
    tops = [it for it in scene.items_by_id.values() if it.parentItem() is None]
    assert len(tops) == 208 and not any(it.isVisible() for it in tops)
    assert len(scene.batch.items) == 2                     # one path per device kind
    assert scene.batch.items[0].path().elementCount() == 128 * 5
    # a click on a batched server selects it; it gets its own item back (drawn selected)
    host = int(f.device_ids("server")[5])
    pos = view.mapFromScene(QtCore.QPointF(float(f.devices_t.x[host]), float(f.devices_t.y[host])))
    qtbot.mouseClick(view.viewport(), LEFT, pos=pos)
    assert scene.selected_device_ids() == [host] and scene.items_by_id[host].isVisible()
    qtbot.waitUntil(lambda: scene.batch.counts() == {"server": 127, "ib_switch": 80})
    # a rubber band over the core row selects every core switch
    cores = [int(d) for d in f.device_ids("ib_switch") if f.devices_t.tier[d] == 3]
    ys = f.devices_t.y[cores]
    xs = f.devices_t.x[cores]
    tl = view.mapFromScene(QtCore.QPointF(float(xs.min()) - 80, float(ys.min()) - 40))
    br = view.mapFromScene(QtCore.QPointF(float(xs.max()) + 80, float(ys.max()) + 40))
    qtbot.mousePress(view.viewport(), LEFT, pos=tl)
    for k in range(1, 6):
        qtbot.mouseMove(view.viewport(), tl + (br - tl) * (k / 5))
    qtbot.mouseRelease(view.viewport(), LEFT, pos=br)
    assert scene.selected_device_ids() == sorted(cores) and len(cores) == 16
    qtbot.waitUntil(lambda: scene.batch.counts() == {"server": 128, "ib_switch": 64})
    # zooming in brings every item back and drops the paths
    view.resetTransform()
    view._after_zoom()
    assert all(it.isVisible() for it in tops) and scene.batch.items == {}
