"""NVLink rack domains on the canvas (fabricviz.ui.canvas.items.nvlink): a GB200 NVL72 draws
collapsed as one block over its 18 compute trays, a double-click opens it to the trays, its 9 NVLink
switch trays and the links (every tray to a bus that fans out to every switch tray) and closes it
again; zoomed out the rack is a host block of its own (fabricviz.generate.groups); the Parts dock
places one as a single undo step."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.generate.groups import find_groups
from fabricviz.generate.nvl72 import nvl72
from fabricviz.generate.nvlink_racks import nvl72_racks
from fabricviz.ui.canvas.items.devices import ROLE_KIND
from fabricviz.ui.canvas.items.nvlink import NVLINK_KIND, DomainBlock
from tests.ui.canvas.test_semantic_zoom import open_canvas

pytestmark = pytest.mark.gui


def _canvas(qtbot, f):
    view, scene, _ = open_canvas(qtbot, f)          # 1920×1080, fitted
    return view, scene


def _ours(scene):
    return [i for i in scene.items() if i.data(ROLE_KIND) == NVLINK_KIND and i.isVisible()]


def test_an_nvl72_rack_draws_collapsed_and_opens(qtbot):
    f = nvl72_racks(1)
    view, scene = _canvas(qtbot, f)
    layer = scene.nvlink
    (block,) = _ours(scene)
    assert isinstance(block, DomainBlock) and block.name == "rack1" and not layer.is_open("rack1")
    trays = [scene.items_by_id[int(s)] for s in layer.domains[0].servers]
    assert len(trays) == 18 and not any(t.isVisible() for t in trays)          # the block stands for them
    assert all(block.rect().contains(t.sceneBoundingRect()) for t in trays)
    assert block.zValue() > max(t.zValue() for t in trays)
    label = scene.label_layer
    assert not label.device_filter[int(layer.domains[0].servers[0])]         # no tray names under it
    # double-click the block: open
    pos = view.mapFromScene(block.rect().center())
    qtbot.mouseDClick(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    QtWidgets.QApplication.processEvents()
    assert layer.is_open("rack1")
    items = _ours(scene)
    boxes = [i for i in items if type(i) is QtWidgets.QGraphicsRectItem]
    (links,) = [i for i in items if isinstance(i, QtWidgets.QGraphicsPathItem)]
    (frame,) = [i for i in items if isinstance(i, DomainBlock)]
    assert len(boxes) == 9                                                     # the switch trays
    assert links.path().elementCount() == 3 * 18 + 2 + 2 * 9      # 18 tray legs, the bus, 9 switch tray drops
    assert all(t.isVisible() for t in trays) and frame.brush().style() == QtCore.Qt.BrushStyle.NoBrush
    assert all(b.rect().top() > frame.rect().bottom() for b in boxes)
    assert label.device_filter is None
    # and closed again
    pos = view.mapFromScene(frame.rect().topLeft() + QtCore.QPointF(4, 4))
    qtbot.mouseDClick(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    QtWidgets.QApplication.processEvents()
    assert not layer.is_open("rack1") and len(_ours(scene)) == 1 and not trays[0].isVisible()


def test_the_block_follows_an_edit_and_undo(qtbot):
    """Moving a tray (an undoable edit) moves the block's outline with it; undo puts it back."""
    f = nvl72_racks(1)
    view, scene = _canvas(qtbot, f)
    before = _ours(scene)[0].rect()
    tray = int(scene.nvlink.domains[0].servers[-1])
    view.editor.move([tray], 0.0, 400.0)
    QtWidgets.QApplication.processEvents()
    assert _ours(scene)[0].rect().bottom() == pytest.approx(before.bottom() + 400.0)
    view.editor.stack.undo()
    QtWidgets.QApplication.processEvents()
    assert _ours(scene)[0].rect() == before


def test_zoomed_out_each_rack_is_its_own_host_block():
    g = find_groups(nvl72_racks(3))
    assert g.block_names == ("rack1", "rack2", "rack3") and g.block_size.tolist() == [18, 18, 18]


def test_placing_an_nvl72_from_the_parts_dock_is_one_undo_step(qtbot):
    """The Parts dock lists NVLink racks; dropping one adds its 18 trays and its domain setting as one
    command: the canvas draws the block, undo gives the design back to the byte, redo the rack again."""
    from fabricviz.formats.native import dumps
    from fabricviz.generate import leaf_spine
    from fabricviz.ui.docks.palette import PART_ROLE, Palette

    f = leaf_spine(leaves=2, spines=1, hosts_per_leaf=2, fabric="ib")
    view, scene = _canvas(qtbot, f)
    palette = Palette(f.catalog)
    qtbot.addWidget(palette)
    item = palette.part_item("nvlink:GB200-NVL72")
    assert item is not None and item.parent().text(0) == "NVLink racks (2)" and item.data(0, PART_ROLE)
    before = dumps(f)
    first = view.editor.add_part("nvlink:GB200-NVL72", 0.0, 600.0)
    QtWidgets.QApplication.processEvents()
    assert f.name_of(first) == "rack1-ct01" and f.counts()["server"] == 4 + 18
    assert f.meta["nvlink_domains"][-1]["name"] == "rack1" and len(f.meta["nvlink_domains"][-1]["servers"]) == 18
    assert [b.name for b in _ours(scene)] == ["rack1"]
    after = dumps(f)
    view.editor.stack.undo()
    QtWidgets.QApplication.processEvents()
    assert dumps(f) == before and "nvlink_domains" not in f.meta and _ours(scene) == []
    view.editor.stack.redo()
    assert dumps(f) == after
    # a baseboard is no rack to place: refused, nothing changes
    assert view.editor.add_part("nvlink:HGX-H100-8", 0.0, 0.0) is None and dumps(f) == after


def test_an_open_racks_caption_stacks_at_every_zoom(qtbot):
    """The three lines under an open rack's switch trays are a label height apart on screen at any
    zoom: at 92 % (a step in scene units) the middle line overlapped the others and gave way."""
    f = nvl72_racks(2)
    view, scene = _canvas(qtbot, f)
    scene.nvlink.toggle("rack1")
    frame = scene.nvlink.blocks["rack1"].rect()
    want = ["rack1: NVIDIA GB200 NVL72 rack NVLink domain",
            "18 compute trays, 72 GPUs; 9 NVLink switch trays × 2 chips",
            "1,296 NVLink 5 links: 18 per GPU × 50 GB/s = 900 GB/s a direction"]
    for s in (0.5, 0.92, 1.0, 2.0):
        view.zoom_by(s / view.scale_factor())
        view.centerOn(frame.center().x(), frame.bottom() + 60)
        QtWidgets.QApplication.processEvents()
        assert scene.semantic.level == "near" and scene.nvlink.is_open("rack1")
        shown = {t: r for d, t, r in scene.label_layer.in_view(view) if d == -1}
        rects = [shown.get(t) for t in want]
        assert all(r is not None for r in rects), (s, sorted(shown))
        assert all(a.bottom() < b.top() for a, b in zip(rects, rects[1:], strict=False)), s   # in order, apart
        assert rects[0].top() > view.mapFromScene(frame.bottomLeft()).y()            # under the trays


def test_a_pictures_legend_names_the_rack_blocks(qtbot):
    """A picture or video of NVL72 racks: the green blocks stand for the trays (whose server, GPU and
    NIC rows are then missing), so the legend has a row for them; open, for the frame and its links."""
    from fabricviz.ui.canvas.legend import overlay_rows
    from fabricviz.ui.canvas.picture_layout import scene_parts
    view, scene = _canvas(qtbot, nvl72_racks(2))

    def rows():
        return [(t, c.name(), s) for t, c, s in overlay_rows(scene_parts(scene).overlays, scene)]
    fill = scene.nvlink.blocks["rack1"].brush().color().name()
    assert rows() == [("NVLink rack domain, closed (2)", fill, "rect")]
    scene.nvlink.toggle("rack2")
    frame = scene.nvlink.blocks["rack2"].pen().color().name()
    assert rows() == [("NVLink rack domain, closed (1)", fill, "rect"), ("NVLink rack domain, open (1)", frame, "line"),
                      ("NVLink links (trays to NVLink switch trays)", "#76b900", "line")]


@pytest.mark.parametrize("size", [(1920, 1080), (1300, 960)], ids=["canvas", "window"])
def test_an_open_racks_caption_stays_on_the_canvas_at_the_designs_edge(qtbot, size):
    """``generate nvl72 --racks 8`` at fit, rack01 (the leftmost) opened: its caption's longest line is
    wider than the rack and was centred on it, so it began left of the design and was cut at the
    canvas's left edge (the guilook review of issue 27, the main window's canvas at 49 %); each line
    now lies whole inside the design's extent and the canvas."""
    f = nvl72(8)
    view, scene, _ = open_canvas(qtbot, f)
    view.resize(*size)
    view.fit_all()
    QtWidgets.QApplication.processEvents()
    scene.nvlink.toggle("rack01")
    QtWidgets.QApplication.processEvents()
    assert scene.semantic.level == "near" and scene.nvlink.is_open("rack01")
    want = ["rack01: NVIDIA GB200 NVL72 rack NVLink domain",
            "18 compute trays, 72 GPUs; 9 NVLink switch trays × 2 chips",
            "1,296 NVLink 5 links: 18 per GPU × 50 GB/s = 900 GB/s a direction"]
    shown = {t: r for d, t, r in scene.label_layer.in_view(view) if d == -1}
    assert all(t in shown for t in want), sorted(shown)
    content = view.mapFromScene(scene.content_rect()).boundingRect()
    viewport = view.viewport().rect()
    frame = view.mapFromScene(scene.nvlink.blocks["rack01"].rect()).boundingRect()
    assert shown[want[2]].width() > frame.width()                    # wider than its rack
    for t in want:
        r = shown[t].toRect()
        assert content.left() <= r.left() and r.right() <= content.right(), (t, r, content)
        assert viewport.contains(r), (t, r, viewport)
        # moved the least: centred on the rack where that fits, else at the design's left edge
        centred = shown[t].center().x() == pytest.approx(frame.center().x(), abs=1)
        assert centred or r.left() - content.left() in (0, 1, 2), (t, r, content)
    # a bigger canvas fits the design at a bigger scale: there the first two lines fit centred
    big = size == (1920, 1080)
    assert [shown[t].center().x() == pytest.approx(frame.center().x(), abs=1) for t in want] == [big, big, False]
