"""Canvas names (issue 13): one pixel size at every zoom and in pictures, never overlapping,
giving way by priority (extra > switch > server) only where they would overlap, pinned names
always shown, renames (and their undo) shown, larger in presentation mode."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.generate.geometry import device_rects
from fabricviz.model import Fabric
from fabricviz.ui.canvas.items.devices import K_GPU, K_NIC
from fabricviz.ui.canvas.items.labels import PAD_PX, SPACING_PX
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.document.editor import Editor

ZOOMS = (0.05, 0.2, 0.55, 1.0, 2.0, 4.0)
#: Height (px) of an 11 px name with its halo room, in the test font.
NAME_H = 17.0
#: A name left out must come this close (px) to a shown one: overlaps are tested exactly.
SLACK = SPACING_PX + 0.5


@pytest.fixture
def canvas(qtbot):
    """``canvas(fabric)`` → (scene, view, editor): a CanvasView whose viewport is 1920×1080."""
    made = []

    def make(fabric: Fabric):
        scene = FabricScene()
        scene.set_fabric(fabric)
        editor = Editor(fabric)
        view = CanvasView(scene, editor)
        view.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        view.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.resize(1920, 1080)
        qtbot.addWidget(view)
        view.show()
        qtbot.waitExposed(view)
        view.fit_all()
        made.append(scene)
        return scene, view, editor

    yield make
    for scene in made:
        scene.set_fabric(None)


def _zoom(view: CanvasView, z: float, device: int) -> None:
    view.resetTransform()
    view.scale(z, z)
    view.centerOn(view.fscene.items_by_id[device].scenePos())
    view._after_zoom()


def _edges(shown) -> np.ndarray:
    return np.array([[r.left(), r.top(), r.right(), r.bottom()] for *_, r in shown]).reshape(-1, 4)


def _overlaps(e: np.ndarray) -> np.ndarray:
    ov = ((e[:, None, 0] < e[None, :, 2]) & (e[None, :, 0] < e[:, None, 2])
          & (e[:, None, 1] < e[None, :, 3]) & (e[None, :, 1] < e[:, None, 3]))
    np.fill_diagonal(ov, False)
    return ov


@pytest.mark.parametrize("make", [lambda: fat_tree(2, 16), lambda: leaf_spine(16, 8, 8)],
                         ids=["fat-tree-2l-r16", "leaf-spine-16x8"])
def test_names_keep_one_pixel_size_never_overlap_and_give_way_only_where_they_would(canvas, make):
    f = make()
    scene, view, _ = canvas(f)
    layer = scene.label_layer
    dt = f.devices_t
    leaf = f.find("leaf01")
    tops = f.device_ids()[dt.parent[f.device_ids()] < 0]
    heights, counts = set(), []
    for z in ZOOMS:
        _zoom(view, z, leaf)
        t = view.viewportTransform()
        shown = layer.in_view(view)
        e = _edges(shown)
        counts.append(len(shown))
        heights |= {r.height() for *_, r in shown}
        assert (e[:, 2] - e[:, 0] > e[:, 3] - e[:, 1]).all(), z        # horizontal
        assert not _overlaps(e).any(), z
        ids = {d for d, _, _ in shown}
        for d, text, r in shown:
            if d < 0:                           # a group's name (semantic zoom)
                assert text
            elif int(dt.parent[d]) < 0:         # centred under its device, its full name
                assert text == f.name_of(d)
                want = t.mapRect(layer.label_rect(d, z))
                assert abs(want.center().x() - r.center().x()) < 1e-6 and abs(want.top() - r.top()) < 1e-6
            else:                               # a GPU/NIC inside its server: the local name, inside it
                assert int(dt.kind[d]) in (K_GPU, K_NIC) and text == f.name_of(d).rsplit("/", 1)[-1]
                assert t.mapRect(scene.items_by_id[d].sceneBoundingRect()).contains(r)
        # a name left out (of the devices the zoom level draws as themselves) would have touched a shown
        # one, or lain on another drawn device (test_label_room.py)
        vp = QtCore.QRectF(view.viewport().rect())
        mask = layer.device_filter
        drawn = [e for e in tops.tolist() if mask is None or e >= len(mask) or mask[e]]
        boxes = device_rects(f, np.array(drawn, np.int64))
        for d in tops.tolist():
            want = t.mapRect(layer.label_rect(d, z))
            if d in ids or not vp.contains(want) or (mask is not None and d < len(mask) and not mask[d]):
                continue
            grown = want.adjusted(-SLACK, -SLACK, SLACK, SLACK)
            text = t.inverted()[0].mapRect(want.adjusted(PAD_PX, PAD_PX, -PAD_PX, -PAD_PX))
            on = (boxes[0] < text.right()) & (boxes[2] > text.left()) & (boxes[1] < text.bottom()) \
                & (boxes[3] > text.top()) & (np.array(drawn) != d)
            assert any(grown.intersects(r) for *_, r in shown) or on.any(), (z, f.name_of(d))
    assert heights == {NAME_H}
    assert counts[0] < counts[3]                # far out most names give way, none shrink
    # near (every device drawn as itself), the first leaf's name shows whatever servers' names it meets
    near = 0
    for z in ZOOMS:
        _zoom(view, z, leaf)
        if layer.device_filter is None:
            near += 1
            assert leaf in {d for d, _, _ in layer.in_view(view)}, z
    assert near >= 3


def _switch_under_server() -> tuple[Fabric, int, int]:
    """A bare server (the lower id) and a switch 40 units below it: their names meet at 25 %."""
    f = Fabric(name="pair")
    s = int(f.add_servers("NODE-1G-NDR", ["s1"], np.array([0.0]), np.array([0.0]), children=False)[0])
    sw = f.add_device("ib_switch", "QM9700", "sw1", 0.0, 40.0)
    return f, s, sw


def test_a_switch_name_wins_over_a_server_name_pinned_and_extra_names_first(canvas):
    f, s, sw = _switch_under_server()
    scene, view, _ = canvas(f)
    layer = scene.label_layer

    def shown():
        return [(d, t) for d, t, _ in layer.in_view(view)]
    _zoom(view, 0.25, sw)
    assert shown() == [(sw, "sw1")]                      # overlapping: the server gives way
    _zoom(view, 1.5, sw)                                 # (at 100 % the server's name lies on the switch)
    assert sorted(shown()) == [(s, "s1"), (sw, "sw1")]   # apart: both
    _zoom(view, 0.25, sw)
    layer.pin(s, True)                                   # its port panel is open: it comes first
    assert shown() == [(s, "s1")]
    layer.pin(s, False)
    mask = np.ones(f.devices_t.n, bool)
    mask[sw] = False
    layer.set_device_filter(mask)                        # the switch is not drawn: nothing to give way to
    assert shown() == [(s, "s1")]
    layer.set_device_filter(None)
    layer.set_extra([0.0], [58.0], ["pod 1"])            # a group name where the switch's name sits
    assert shown() == [(-1, "pod 1")]
    layer.set_extra([], [], [])
    assert shown() == [(sw, "sw1")]


def test_a_pinned_name_in_a_row_with_no_room_hides_only_the_names_it_meets(canvas):
    """Lesson 1's design at 118 %: each leaf's four servers have room for every other name
    (node01, node03). The pointer on node02 (its port panel pins its name) shows node02 and hides
    node01 and node03 — and nothing else changes: node04 stays hidden (issue 29: the row flipped
    to node02/node04 as the pointer moved, the names swapping between paints)."""
    f = fat_tree(levels=2, radix=8, hosts=16)
    scene, view, _ = canvas(f)
    layer = scene.label_layer
    n = {f.name_of(int(d)): int(d) for d in f.device_ids("server").tolist()}
    _zoom(view, 1.18, n["node02"])

    def shown():
        return sorted(t for _, t, _ in layer.in_view(view) if t.startswith("node"))
    base = shown()
    assert {"node01", "node03"} <= set(base) and not {"node02", "node04"} & set(base)
    layer.pin(n["node02"], True)
    assert shown() == sorted((set(base) - {"node01", "node03"}) | {"node02"})
    layer.pin(n["node02"], False)
    assert shown() == base
    layer.pin(n["node04"], True)
    assert shown() == sorted((set(base) - {"node03"}) | {"node04"})


def test_a_rename_and_its_undo_show_and_an_unchanged_repaint_lays_nothing_out(canvas, qtbot):
    f = leaf_spine(4, 2, 4)
    scene, view, editor = canvas(f)
    layer = scene.label_layer
    leaf = f.find("leaf01")
    _zoom(view, 1.0, leaf)

    def name():
        return [t for d, t, _ in layer.in_view(view) if d == leaf]
    assert name() == ["leaf01"]
    view.viewport().repaint()
    made = layer.layouts_made
    view.viewport().repaint()
    view.viewport().update(QtCore.QRect(0, 0, 40, 40))   # a partial repaint reuses the layout too
    view.viewport().repaint(QtCore.QRect(0, 0, 40, 40))
    assert layer.layouts_made == made
    assert editor.rename(leaf, "leafA")
    assert name() == ["leafA"]
    editor.stack.undo()
    assert name() == ["leaf01"]
    assert layer.layouts_made == made + 2


def test_a_picture_at_another_scale_draws_names_at_the_same_pixel_size_where_laid_out(canvas):
    f = leaf_spine(16, 8, 8)
    scene, view, _ = canvas(f)
    layer = scene.label_layer
    src = scene.content_rect().adjusted(-40, -40, 40, 40)
    img_w, img_h = 1000, 400
    s = min(img_w / src.width(), img_h / src.height())
    assert abs(s - view.scale_factor()) > 0.05           # not the view's scale
    transform = QtGui.QTransform(s, 0, 0, s, -src.left() * s, -src.top() * s)   # as render() maps it
    shown = layer.layout(transform, src)
    assert {r.height() for *_, r in shown} == {NAME_H}
    assert not _overlaps(_edges(shown)).any()

    def picture(with_names: bool) -> np.ndarray:
        layer.setVisible(with_names)
        img = QtGui.QImage(img_w, img_h, QtGui.QImage.Format.Format_ARGB32)
        img.fill(QtGui.QColor("white"))
        p = QtGui.QPainter(img)
        scene.render(p, QtCore.QRectF(0, 0, img_w, img_h), src)
        p.end()
        layer.setVisible(True)
        return np.frombuffer(img.constBits(), np.uint8).reshape(img_h, img_w, 4).copy()
    changed = (picture(True) != picture(False)).any(axis=2)
    inside = np.zeros_like(changed)
    for *_, r in shown:                     # (a name may stick out of the picture's edge)
        x0, y0 = round(r.left()), round(r.top())
        rows, cols = slice(max(y0, 0), y0 + int(r.height())), slice(max(x0, 0), x0 + int(r.width()))
        inside[rows, cols] = True
        assert changed[rows, cols].any()
    assert changed.any() and not (changed & ~inside).any()    # names drawn exactly where laid out


def test_presentation_mode_draws_names_larger_and_leaving_it_restores_them(make_window):
    w = make_window()
    w.view.resetTransform()
    w.view._after_zoom()

    def heights():
        w.view.centerOn(w.scene.content_rect().center())
        return {r.height() for *_, r in w.scene.label_layer.in_view(w.view)}
    assert heights() == {NAME_H}
    w.action_presentation.trigger()
    assert w.scene.label_layer.pixel_size == 18
    assert heights() == {25.0}
    w.action_presentation.trigger()
    assert w.scene.label_layer.pixel_size == 11 and heights() == {NAME_H}


def test_a_name_follows_its_device_while_dragged_and_goes_back_when_the_move_is_cancelled(canvas, qtbot):
    f, s, sw = _switch_under_server()
    scene, view, _ = canvas(f)
    _zoom(view, 1.0, sw)
    vp = view.viewport()

    def name_at():
        return {d: r.topLeft() for d, _, r in scene.label_layer.in_view(view)}[sw]
    before = name_at()
    start = view.mapFromScene(scene.items_by_id[sw].scenePos())
    qtbot.mousePress(vp, QtCore.Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 5):
        qtbot.mouseMove(vp, start + QtCore.QPoint(30, 20) * (k / 4))
    assert scene.items_by_id[sw].pos() == QtCore.QPointF(30, 60)     # Qt moved the item, not the model
    assert name_at() == before + QtCore.QPointF(30, 20)
    view.cancel_interaction()
    assert name_at() == before
    # let the button go: QTest keeps it pressed for every later test in this process otherwise
    # (their moves would carry it, and hovering shows no port markers while a button is down)
    qtbot.mouseRelease(vp, QtCore.Qt.MouseButton.LeftButton, pos=start + QtCore.QPoint(30, 20))
    assert name_at() == before


def test_a_far_pinned_name_does_not_size_the_occupancy_grid(canvas):
    """A pinned device (open port panel) far outside the laid-out area is not a candidate there:
    the grid spans the area (and a label around it), not the span to the far device."""
    f, s, sw = _switch_under_server()
    far = f.add_device("ib_switch", "QM9700", "far", 5500.0, 5500.0)
    scene, view, _ = canvas(f)
    layer = scene.label_layer
    _zoom(view, 8.0, sw)
    layer.pin(far, True)
    shown = layer.in_view(view)
    assert far not in [d for d, *_ in shown] and sw in [d for d, *_ in shown]
    rows, cols = layer.last_grid_shape
    cell_h, cell_w = layer.last_grid_cell
    # the area: the 1920×1080 viewport grown by GROW_PX and snapped to 512 px tiles
    assert cols * cell_w <= 3 * 1024 + 2 * 400 + cell_w and rows * cell_h <= 3 * 512 + 2 * NAME_H + 400 + cell_h
    _zoom(view, 8.0, far)                        # there, its name is shown first
    assert [d for d, *_ in layer.in_view(view)][0] == far


@pytest.mark.parametrize("z", [1.3, 1.4, 1.45, 1.5, 1.5179638834707103, 1.52, 1.6, 2.0])
def test_every_server_name_of_the_demo_shows_where_it_has_room(make_window, z):
    """Issue 29: at first launch (152 %) node09's name was missing: the occupancy grid's cells,
    rounded outwards, made names with room between them block each other."""
    w = make_window()
    f, view, layer = w.fabric, w.view, w.scene.label_layer
    nodes = [f"node{i:02d}" for i in range(1, 17)]
    view.resetTransform()
    view.scale(z, z)
    view.centerOn(w.scene.items_by_id[f.find("node08")].scenePos())
    view._after_zoom()
    xs = sorted(float(f.devices_t.x[f.find(n)]) for n in nodes)
    pitch = min(b - a for a, b in zip(xs, xs[1:], strict=False)) * z         # on screen
    widest = max(layer._width(n) for n in nodes)
    shown = {t: r for _, t, r in layer.in_view(view)}
    in_viewport = [n for n in nodes if view.viewport().rect().contains(
        view.mapFromScene(w.scene.items_by_id[f.find(n)].scenePos()))]
    assert len(in_viewport) >= 8
    if pitch >= widest + SPACING_PX:
        assert [n for n in in_viewport if n not in shown] == []
    e = _edges(list(layer.in_view(view)))
    ov = ((e[:, None, 0] < e[None, :, 2]) & (e[None, :, 0] < e[:, None, 2])
          & (e[:, None, 1] < e[None, :, 3]) & (e[None, :, 1] < e[:, None, 3]))
    assert not np.triu(ov, 1).any()


def test_at_fit_every_dgx_of_a_superpod_is_named(qtbot):
    """A DGX H100 4-SU SuperPOD fitted on the canvas of a maximised 1920×1080 window (1325 × 970):
    the server rows are closer (28 units) than a name is high at 38 %, so only each column's last
    server was named; the others now show their names on their own boxes, whole, apart."""
    from fabricviz.generate.superpod import superpod
    from tests.ui.canvas.test_real_superpod import label_overlaps
    from tests.ui.canvas.test_semantic_zoom import open_canvas
    f = superpod("dgx-h100", 4)
    view, scene, sem = open_canvas(qtbot, f)
    view.resize(1325, 970)
    view.fit_all()
    QtWidgets.QApplication.processEvents()
    assert sem.level == "near" and 0.3 < view.scale_factor() < 0.45
    shown = scene.label_layer.in_view(view)
    servers = {f.name_of(int(d)): int(d) for d in f.device_ids("server").tolist()}
    named = {t: r for d, t, r in shown if t in servers}
    assert len(servers) == 128 and sorted(named) == sorted(servers)
    assert label_overlaps(shown) == []
    boxes = {n: view.mapFromScene(scene.items_by_id[d].sceneBoundingRect()).boundingRect() for n, d in servers.items()}
    on_box = [n for n, r in named.items() if boxes[n].contains(r.toAlignedRect())]
    assert len(on_box) == 128 - 4 * 7 - 1       # all but each SU's last row and the UFM appliance
