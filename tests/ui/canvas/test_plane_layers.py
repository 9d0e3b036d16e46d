"""View ▸ Plane Layers and View ▸ Show Plane on a real window: a multi-plane design's cables in
their plane's colour, one plane alone with the others veiled, the legend rows and the status bar.

The design: ``fat_tree(radix=8, planes=2)``, 64 cables per plane (32 node links, 32 leaf-spine)."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

from fabricviz.generate import fat_tree
from fabricviz.model.planes import cable_planes
from fabricviz.ui.canvas.overlays.planes import PALETTE, VEILED
from tests.ui.route_helpers import pairs, routed_pairs


def action(w, name):
    return w.findChild(QtGui.QAction, name)


def test_plane_layers_colour_each_plane_and_show_one_alone(make_window):
    w = make_window()
    w.editor.set_fabric(fat_tree(radix=8, planes=2))
    QtWidgets.QApplication.processEvents()
    a = action(w, "action_plane_layers")
    assert a.isCheckable() and not a.isChecked() and a in w.acts.menu("view").actions()
    a.trigger()
    pl = w.plane_layers
    assert sorted(pl.items) == [(0, False), (1, False)]
    # each plane's lines lie on its cables' own routes (down the gutters), not straight across
    f = w.editor.fabric
    cp = cable_planes(f)
    ids = f.cable_ids()
    for k in (0, 1):
        want = routed_pairs(f, ids[cp[ids] == k])
        assert pairs(pl.items[(k, False)]) == want and len(want) > 64
    assert pl.items[(1, False)].pen().color() == QtGui.QColor(PALETTE[1])
    assert pl.status_text == "planes: plane1 64 cables, plane2 64 cables"
    menu = w.plane_filter_menu
    menu.aboutToShow.emit()
    names = [x.objectName() for x in menu.actions()]
    assert names == ["plane_all", "plane_0", "plane_1"]
    menu.actions()[2].trigger()                  # plane2 alone
    assert sorted(pl.items) == [(0, True), (1, False)]
    assert pairs(pl.items[(0, True)]) == routed_pairs(f, ids[cp[ids] == 0])
    assert pl.status_text == "planes: plane1 64 cables, plane2 64 cables (showing plane2)"
    assert [(t, c.name()) for t, c, _k in pl.legend_rows()] == [
        ("plane1 (64 cables) veiled", QtGui.QColor(VEILED).name()), ("plane2 (64 cables)", PALETTE[1])]
    menu.aboutToShow.emit()
    menu.actions()[0].trigger()                  # all planes again
    assert sorted(pl.items) == [(0, False), (1, False)] and pl.only is None
    a.trigger()                                  # off: nothing drawn
    assert pl.items == {}


def test_plane_layers_draw_nothing_on_a_design_without_planes(make_window):
    w = make_window()
    w.editor.set_fabric(fat_tree(radix=8))
    QtWidgets.QApplication.processEvents()
    action(w, "action_plane_layers").trigger()
    assert w.plane_layers.items == {} and w.plane_layers.status_text == ""
    w.plane_filter_menu.aboutToShow.emit()
    assert [x.isEnabled() for x in w.plane_filter_menu.actions()] == [False]
