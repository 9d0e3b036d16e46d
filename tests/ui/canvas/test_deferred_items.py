"""A big design opened zoomed out makes its device items when first needed (issue 29 item 8: the
radix-48 open). Zoomed out the semantic layer draws groups and blocks itself, so none is made;
a selected device gets its own items only; the near level, an edit or ``items_by_id`` make the
rest — each where, and as, an eagerly built scene has it."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.generate.fattree import fat_tree
from fabricviz.ui import main_window
from fabricviz.ui.canvas.scene import FabricScene

pytestmark = pytest.mark.gui


def item_state(scene: FabricScene) -> dict[int, tuple]:
    """Per device: its item's parent, position, rectangle, data and colours, as built (every item)."""
    return item_state_of(scene, scene.items_by_id)


def item_state_of(scene: FabricScene, items: dict | None = None) -> dict[int, tuple]:
    """:func:`item_state` of ``items`` (default: the items made so far)."""
    out = {}
    for d, it in (scene.made_items if items is None else items).items():
        p = it.parentItem()
        r = it.rect()
        out[d] = (None if p is None else int(p.data(0)), round(it.x(), 3), round(it.y(), 3),
                  (round(r.x(), 3), round(r.y(), 3), round(r.width(), 3), round(r.height(), 3)),
                  it.data(0), it.data(2), it.flags().value, it.zValue(), it.brush().color().rgba(), it.pen().color().rgba())
    return out


@pytest.fixture
def big(make_window, monkeypatch):
    monkeypatch.setattr(main_window, "DEFER_DEVICES", 1000)        # the deferred path on a 3,392-device tree
    w = make_window()
    f = fat_tree(levels=3, radix=16)
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    w.view.viewport().repaint()
    return w, f


def test_zoomed_out_no_device_item_is_made(big):
    w, f = big
    scene = w.scene
    assert len(f) == 3392 and scene.semantic.level == "far"
    assert len(scene.made_items) == 0 and len(scene._pending) == 3392
    assert len(scene.cables.ids) == 0 and not scene.cables.items       # near cable paths: none built
    assert scene.semantic.draw.on                      # the layer draws the design: 17 boxes
    assert len(scene.semantic.grouping.names) == 17


def test_a_selected_device_gets_its_items_only(big):
    w, f = big
    scene = w.scene
    node = f.find("node0005")
    scene.select_devices([node])
    kids = f.children_ids(node).tolist()
    assert len(kids) == 2 and sorted(scene.made_items) == sorted([node, *kids])
    assert scene.made_items[node].isSelected() and scene.made_items[node].isVisible()
    assert scene.selected_device_ids() == [node]
    scene.clearSelection()                             # deselected: back to the layer's drawing
    QtWidgets.QApplication.processEvents()
    assert not scene.made_items[node].isVisible()


def test_near_makes_the_items_on_screen_as_an_eager_scene_has_them(big):
    w, f = big
    scene, view = w.scene, w.view
    view.resetTransform()
    view.centerOn(float(f.devices_t.x[f.find("leaf001")]), float(f.devices_t.y[f.find("leaf001")]))
    view.zoom_by(1.0)
    assert scene.semantic.level == "near"
    eager = FabricScene()
    eager.set_fabric(f)
    want = item_state(eager)
    made = {d: want[d] for d in scene.made_items}
    tops = [it for it in scene.made_items.values() if it.parentItem() is None]
    assert 0 < len(tops) < 1344 and all(it.isVisible() for it in tops)      # what is on screen, and around
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    on_screen = [d for d in scene.made_items if scene.made_items[d].parentItem() is None
                 and shown.intersects(scene.made_items[d].sceneBoundingRect())]
    assert f.find("leaf001") in on_screen
    kids = [it for it in scene.made_items.values() if it.parentItem() is not None]
    assert len(kids) and all(it.isVisible() for it in kids)                # 100 %: GPUs and NICs shown
    assert {d: state for d, state in item_state_of(scene).items()} == made
    # a pan at near makes what it brings into view
    before = len(scene.made_items)
    far_node = f.find("node1000")
    view.centerOn(float(f.devices_t.x[far_node]), float(f.devices_t.y[far_node]))
    assert far_node in scene.made_items and len(scene.made_items) > before
    assert scene.made_items[far_node].isVisible()
    # the near cable paths are all built (drawn from arrays, not items)
    assert scene.cables.ids.tolist() == eager.cables.ids.tolist() and len(scene.cables.ids) == 3072
    assert scene.cables.counts() == eager.cables.counts()
    assert scene.cables.segs.tobytes() == eager.cables.segs.tobytes()
    assert all(it.isVisible() for it in scene.cables.items.values())
    # every item, asked for, as the eager scene's
    assert item_state(scene) == want


def test_semantic_zoom_off_builds_everything_at_open(make_window, monkeypatch):
    """Always near: nothing would make the items later, so none is deferred."""
    monkeypatch.setattr(main_window, "DEFER_DEVICES", 1000)
    w = make_window()
    w.scene.semantic.set_enabled(False)
    w.editor.set_fabric(fat_tree(levels=3, radix=16))
    QtWidgets.QApplication.processEvents()
    assert len(w.scene.made_items) == 3392 and len(w.scene.cables.ids) == 3072


def test_an_edit_makes_the_items_first(big):
    w, f = big
    scene = w.scene
    core = f.find("core64")
    assert w.editor.remove([core], [])                 # one undoable edit, as Delete does
    QtWidgets.QApplication.processEvents()
    assert not len(scene._pending) and len(scene.made_items) == 3391
    assert core not in scene.made_items
    # zoomed out still: the made items are hidden, the layer draws them
    assert not any(it.isVisible() for it in scene.made_items.values() if it.parentItem() is None)
    w.editor.stack.undo()
    QtWidgets.QApplication.processEvents()
    assert len(scene.made_items) == 3392 and not scene.made_items[core].isVisible()
    assert len(scene.cables.ids) == 3072                # an edit rebuilt the near paths (hidden)


def test_items_by_id_is_every_item(big):
    w, f = big
    assert len(w.scene.items_by_id) == 3392 and not len(w.scene._pending)
    assert not any(it.isVisible() for it in w.scene.made_items.values() if it.parentItem() is None)
