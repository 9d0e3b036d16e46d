"""Semantic zoom on a real 1920×1080 canvas: far (group boxes, bundles), middle (switches, host
blocks, "×n" lines), near (every device); bundles stand for exactly their cables; clicks select
them, double-clicks open and close groups; overlays colour bundles; edits and undo regroup.

Designs: k=16 fat tree (16 pods of 8 leaves + 8 aggregation switches and 64 hosts, 64 cores; each
pod has 8 × 8 = 64 uplinks of 400G to the cores), k=8 for the window tests, k=32 for the size.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate import k_ary_fat_tree, leaf_spine
from fabricviz.generate.groups import cable_tops
from fabricviz.model.tech import rates_gbps
from fabricviz.ui.canvas.items.batch import device_rects
from fabricviz.ui.canvas.items.bundles import node_groups
from fabricviz.ui.canvas.items.cables import cable_anchors, routes_for
from fabricviz.ui.canvas.items.devices import DeviceItem
from fabricviz.ui.canvas.items.semantic import (
    BOX_PAD,
    FAR,
    FAR_SWITCH_PX,
    MIDDLE,
    MIDDLE_SERVER_PX,
    NEAR,
    SEMANTIC_SETTING,
    drawn_primitives,
)
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.document.editor import Editor

LEFT = QtCore.Qt.MouseButton.LeftButton


def open_canvas(qtbot, f):
    """(view, scene, semantic layer) of ``f`` on a 1920×1080 canvas, fitted."""
    scene = FabricScene()
    scene.set_fabric(f)
    view = CanvasView(scene, Editor(f))
    scene.setParent(view)                 # goes with the view
    qtbot.addWidget(view)
    view.resize(1920, 1080)
    view.show()
    qtbot.waitExposed(view)
    view.fit_all()
    QtWidgets.QApplication.processEvents()
    return view, scene, scene.semantic


def zoom_to(view, scale):
    """Zoom about the view's centre: the view zooms under the pointer, and a test run after one that
    moved the pointer over a canvas would otherwise zoom somewhere else."""
    centre = view.mapToScene(view.viewport().rect().center())
    view.zoom_by(scale / view.scale_factor())
    view.centerOn(centre)
    QtWidgets.QApplication.processEvents()


def visible_tops(scene):
    return {d for d, it in scene.items_by_id.items() if it.parentItem() is None and it.isVisible()}


def bundle_set(sem):
    b = sem.bundles
    return sorted(zip(b.a.tolist(), b.b.tolist(), b.count.tolist(), strict=True))


def view_point(view, x, y):
    return view.mapFromScene(QtCore.QPointF(float(x), float(y)))


@pytest.fixture
def k16(qtbot):
    return open_canvas(qtbot, k_ary_fat_tree(16))


def test_fitted_k16_is_far_boxes_and_one_bundle_per_pod_standing_for_its_cables(k16):
    view, scene, sem = k16
    f = scene.fabric
    assert sem.level == FAR and view.scale_factor() * 48 < FAR_SWITCH_PX
    g = sem.grouping
    assert g.n_groups == 17 and g.names[-1] == "64 cores" and g.names[:2] == ("pod 1", "pod 2")
    # nothing of the near drawing is painted: device items, batch and cable paths are hidden
    assert visible_tops(scene) == set() and scene.batch.items == {}
    assert not any(it.isVisible() for it in scene.cables.items.values())
    b = sem.bundles
    assert len(b) == 16 and set(b.b.tolist()) == {16}
    cids, ta, tb = cable_tops(f)
    ct = f.cables_t
    for k in range(16):
        pod, top = g.members(int(b.a[k])), g.members(int(b.b[k]))
        between = (np.isin(ta, pod) & np.isin(tb, top)) | (np.isin(ta, top) & np.isin(tb, pod))
        assert b.count[k] == between.sum() == 64
        gbps = rates_gbps(ct.tech[cids[between]], ct.speed[cids[between]], ct.width[cids[between]]).sum()
        assert b.gbps[k] == gbps == 64 * 400
        assert sorted(b.members(k).tolist()) == sorted(cids[between].tolist())
        assert b.label(k) == "64 × 400G"
    extras = scene.label_layer._extra[2]
    assert extras.count("64 × 400G") == 16 and "pod 3" in extras and extras.count("16 switches · 64 hosts") == 16


def test_zooming_in_goes_far_middle_near_each_drawing_differently(k16):
    view, scene, sem = k16
    counts = {FAR: drawn_primitives(view)}
    zoom_to(view, (FAR_SWITCH_PX + 1) / 48)                      # switches 21 px, servers < 18 px
    assert sem.level == MIDDLE
    counts[MIDDLE] = drawn_primitives(view)
    g = sem.grouping
    # middle: switches as paths, one block per leaf's 4 hosts, block-leaf lines "×4"
    assert sum(len(it.path().elementCount() and [1]) for it in sem.draw.switches.values()) == 1
    assert sem.draw.blocks.path().elementCount() == 5 * g.n_blocks == 5 * 128
    blocks = (sem.bundles.a >= g.n_groups) & (sem.bundles.a < g.n_groups + g.n_blocks)
    assert blocks.sum() == 128 and set(sem.bundles.count[blocks].tolist()) == {8}
    extras = scene.label_layer._extra[2]
    assert extras.count("8 hosts") == 128 and extras.count("×8") == 128
    zoom_to(view, (MIDDLE_SERVER_PX + 1) / 26)
    assert sem.level == NEAR and sem.bundles is None
    counts[NEAR] = drawn_primitives(view)
    # near is the scene's own drawing again
    assert visible_tops(scene) == set(scene.items_by_id) - {d for d, it in scene.items_by_id.items()
                                                           if it.parentItem() is not None}
    assert all(it.isVisible() for it in scene.cables.items.values())
    assert not any(it.isVisible() for it in sem.draw.all_items())
    assert len(set(counts.values())) == 3 and counts[FAR] < 2000, counts


def test_radix32_at_fit_draws_under_2000_primitives(qtbot):
    view, scene, sem = open_canvas(qtbot, k_ary_fat_tree(32))      # 8,192 hosts, 24,576 cables
    assert sem.level == FAR and len(sem.bundles) == 32
    n = drawn_primitives(view)
    print(f"k=32 fitted: {n} primitives")
    assert n <= 2000


def test_cable_ends_at_far_are_the_bundle_ends_on_the_two_boxes(k16):
    view, scene, sem = k16
    f = scene.fabric
    g, b = sem.grouping, sem.bundles
    k = 4
    members = b.members(k)
    ends = sem.cable_ends(members)
    _, ta, _ = cable_tops(f, members)
    for end, node in ((ends[:2], int(b.a[k])), (ends[2:], int(b.b[k]))):
        r = device_rects(f, g.members(node))
        box = (r[0].min() - BOX_PAD, r[1].min() - BOX_PAD, r[2].max() + BOX_PAD, r[3].max() + BOX_PAD)
        pts = {tuple(p) for p in np.round(end.T, 6).tolist()}
        x, y = pts.pop() if len(pts) == 1 else (None, None)      # every member drawn at one point
        assert x is not None and box[0] <= x <= box[2]
        assert y == pytest.approx(box[1]) or y == pytest.approx(box[3])    # on the box's top or bottom edge
    pod_top = np.isin(ta, g.members(int(b.a[k])))
    assert np.allclose(ends[:, pod_top], sem.bundle_ends[:, [k]])
    assert np.allclose(ends[:, ~pod_top], sem.bundle_ends[[2, 3, 0, 1]][:, [k]])
    # pod 5's line runs round pod 1 (see the routing tests); pod 1's goes straight up to the core box
    assert sem.bundle_ends[0, 0] == pytest.approx(sem.bundle_ends[2, 0])
    assert (sem.segment_bundle == 0).sum() == 1 and (sem.segment_bundle == k).sum() >= 3
    # a cable inside a pod: both ends at the pod's centre; at near: the real anchors
    inner = int(np.flatnonzero(sem.bundles.of_cable < 0)[0])
    cid = int(sem.bundles.cable_ids[inner])
    e = sem.cable_ends(np.array([cid]))[:, 0]
    assert e[0] == e[2] and e[1] == e[3]
    zoom_to(view, 1.0)
    assert np.allclose(sem.cable_ends(members), np.vstack(cable_anchors(f, members)))


def test_set_cable_values_colours_a_bundle_by_its_hottest_or_mean_member(k16):
    view, scene, sem = k16
    f = scene.fabric
    b = sem.bundles
    k = 9                                     # pod 10: its line runs round pod 6 and pod 2
    members = b.members(k)
    values = np.full(f.cables_t.n, np.nan)
    values[members[:3]] = [0.2, 0.8, 0.5]
    mine = sem.bundle_segments[:, sem.segment_bundle == k]
    assert mine.shape[1] >= 3

    def reds(v):
        return [QtGui.QColor(int(round(255 * x)), 0, 0) for x in v]

    plain = sem.bundle_colors()
    sem.set_cable_values(values, reds)
    colors = sem.bundle_colors()
    assert colors[k] == QtGui.QColor(204, 0, 0)                       # max 0.8
    assert [c for i, c in enumerate(colors) if i != k] == [c for i, c in enumerate(plain) if i != k]
    (red,) = [it for key, it in sem.draw.lines.items() if key[1] == QtGui.QColor(204, 0, 0).rgba()]
    drawn = np.array([[red.path().elementAt(i).x, red.path().elementAt(i).y] for i in range(red.path().elementCount())])
    assert np.allclose(drawn.reshape(-1, 4).T, mine)                 # every segment of it, that colour
    sem.set_reduce("mean")
    assert sem.bundle_colors()[k] == QtGui.QColor(128, 0, 0)          # mean 0.5
    assert any(key[1] == QtGui.QColor(128, 0, 0).rgba() for key in sem.draw.lines)
    sem.set_cable_values(None, reds)
    assert sem.bundle_colors() == plain


def test_top_cables_are_drawn_at_their_drawn_ends(k16):
    view, scene, sem = k16
    b = sem.bundles
    cids = np.concatenate([b.members(0)[:1], b.members(3)[:1]])
    sem.set_top_cables(cids)
    top = sem.draw.top
    assert top.isVisible() and top.path().elementCount() == 4
    pts = [(top.path().elementAt(i).x, top.path().elementAt(i).y) for i in range(4)]
    e = sem.cable_ends(cids)
    assert pts == [(e[0, 0], e[1, 0]), (e[2, 0], e[3, 0]), (e[0, 1], e[1, 1]), (e[2, 1], e[3, 1])]
    sem.set_top_cables(None)
    assert not top.isVisible()


def test_click_on_a_bundle_selects_its_cables_and_a_box_its_devices(make_window, qtbot):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(8))      # 8 pods of 4 leaves, 4 aggregation switches, 16 hosts
    view, scene, sem = w.view, w.scene, w.scene.semantic
    zoom_to(view, 0.15)
    view.centerOn(scene.content_rect().center())
    assert sem.level == FAR
    b = sem.bundles
    k = 1                                     # pod 2: the top row, its line is nowhere behind a box
    e = sem.bundle_ends[:, k]
    qtbot.mouseClick(view.viewport(), LEFT, pos=view_point(view, (e[0] + e[2]) / 2, (e[1] + e[3]) / 2))
    assert scene.selected_cables == set(b.members(k).tolist()) and len(scene.selected_cables) == 16
    assert sem.draw.selected.isVisible() and sem.draw.selected.path().elementCount() == 2
    w.inspector.refresh()
    assert w.inspector.title.text() == "bundle <b>pod 2 ↔ 16 cores</b>: 16 × 400G (6.4 Tb/s), 16 cables"
    # a click in a pod's box selects its top-level devices (their items show, selected)
    box = sem.queries.group_rect(4)
    qtbot.mouseClick(view.viewport(), LEFT, pos=view.mapFromScene(box.center()))
    members = sem.grouping.members(4)
    assert scene.selected_device_ids() == sorted(members.tolist()) and scene.selected_cables == set()
    assert visible_tops(scene) == set(members.tolist())


def test_tooltips_and_rubber_bands_at_far(k16, qtbot):
    view, scene, sem = k16
    f = scene.fabric
    e = sem.bundle_ends[:, 1]
    mid = QtCore.QPointF((e[0] + e[2]) / 2, (e[1] + e[3]) / 2)
    assert sem.queries.tooltip_at(mid, 1.0) == "64 × 400G (25.6 Tb/s): pod 2 ↔ 64 cores"
    assert sem.queries.tooltip_at(sem.queries.group_rect(2).center(), 1.0) == \
        "pod 3: 80 devices; click selects its devices, double-click opens it"
    # a rubber band from empty canvas (left of every line) over part of pod 1 selects the devices it meets
    box = sem.queries.group_rect(0)
    left = min(box.left(), sem.bundle_segments[[0, 2]].min()) - 20 / view.scale_factor()
    start, end = QtCore.QPointF(left, box.top()), box.center()
    qtbot.mousePress(view.viewport(), LEFT, pos=view.mapFromScene(start))
    for t in (0.25, 0.5, 0.75, 1.0):
        qtbot.mouseMove(view.viewport(), view.mapFromScene(start + (end - start) * t))
    qtbot.mouseRelease(view.viewport(), LEFT, pos=view.mapFromScene(end))
    band = QtCore.QRectF(view.mapToScene(view.mapFromScene(start)), view.mapToScene(view.mapFromScene(end)))
    ids = f.device_ids()
    tops = ids[f.devices_t.parent[ids] < 0]
    r = device_rects(f, tops)
    meets = (r[2] >= band.left()) & (r[0] <= band.right()) & (r[3] >= band.top()) & (r[1] <= band.bottom())
    assert scene.selected_device_ids() == sorted(tops[meets].tolist()) and meets.sum() > 0


def _empty_point_in(view, sem, g):
    """A view point inside group ``g``'s frame over no device item and no bundle."""
    r = sem.queries.group_rect(g)
    tol = 4.0 / view.scale_factor()
    for fy in np.linspace(0.02, 0.98, 25):
        for fx in np.linspace(0.02, 0.98, 25):
            p = view.mapFromScene(QtCore.QPointF(r.left() + fx * r.width(), r.top() + fy * r.height()))
            sp = view.mapToScene(p)
            if r.contains(sp) and view.fscene.device_item_at(sp) is None and sem.queries.bundle_at(sp, tol) is None:
                return p
    raise AssertionError("no empty point in the frame")


def test_double_click_opens_a_group_in_place_and_again_closes_it(k16, qtbot):
    view, scene, sem = k16
    f = scene.fabric
    before = (drawn_primitives(view), bundle_set(sem))
    g = 2                                                   # "pod 3"
    qtbot.mouseDClick(view.viewport(), LEFT, pos=view.mapFromScene(sem.queries.group_rect(g).center()))
    assert sem.expanded == {g} and sem.level == FAR
    members = set(sem.grouping.members(g).tolist())
    assert visible_tops(scene) == members and len(members) == 16 + 64
    assert view.breadcrumbs.isVisible() and view.breadcrumbs.plain_text() == f"{f.name} › pod 3"
    # its 16 switches are nodes of their own now: each aggregation switch has one bundle of 8 to the cores
    agg = [d for d in members if f.name_of(d).startswith("spine")]
    base = sem.grouping.n_groups + sem.grouping.n_blocks
    b = sem.bundles
    for d in agg:
        k = np.flatnonzero((b.a == base + d) | (b.b == base + d))
        assert len(k) == 1 and b.count[k[0]] == 8 and b.label(int(k[0])) == "8 × 400G"
    # the cables inside the open pod are drawn as themselves (64 host + 64 leaf-aggregation cables),
    # along their near routes: at right angles, across no device (straight, a leaf's cable to its
    # second row of hosts crossed the first)
    cid, ta, tb = cable_tops(f)
    inner = cid[np.isin(ta, list(members)) & np.isin(tb, list(members))]
    assert sorted(sem.near_cids.tolist()) == sorted(inner.tolist()) and len(inner) == 128
    seg = sem.draw.near_ends
    seg = seg[:, (seg[0] != seg[2]) | (seg[1] != seg[3])]
    assert seg.shape[1] > 128 and ((seg[0] == seg[2]) | (seg[1] == seg[3])).all()
    rects = device_rects(f, np.array(sorted(members)))
    from tests.ui.canvas.test_near_routes import crossings  # (it imports this module)
    assert crossings(seg, rects) == 0
    assert sem.draw.frames.isVisible()
    # a click on one of those cables selects it alone (the hidden cable paths are never hit)
    kind = f.devices_t.kind
    up = int(inner[np.flatnonzero((kind[cable_tops(f, inner)[1]] != 0) & (kind[cable_tops(f, inner)[2]] != 0))[0]])
    r = routes_for(f).of(np.array([up]))
    r = r[:, np.argmax(np.abs(r[0] - r[2]) + np.abs(r[1] - r[3]))]        # its longest segment
    pt = view_point(view, (r[0] + r[2]) / 2, (r[1] + r[3]) / 2)
    qtbot.mouseClick(view.viewport(), LEFT, pos=pt)
    assert scene.selected_cables == {up}             # a leaf-aggregation cable
    scene.set_selected_cables(set())
    qtbot.mouseDClick(view.viewport(), LEFT, pos=_empty_point_in(view, sem, g))
    assert sem.expanded == set() and not view.breadcrumbs.isVisible()
    assert (drawn_primitives(view), bundle_set(sem)) == before
    # the breadcrumbs' design name closes every open group
    sem.expand(3)
    sem.expand(5)
    assert view.breadcrumbs.plain_text() == f"{f.name} › pod 4, pod 6"
    view.breadcrumbs.linkActivated.emit("design")
    assert sem.expanded == set() and visible_tops(scene) == set()


def test_moving_a_device_at_near_moves_its_box_once_zoomed_out(k16):
    view, scene, sem = k16
    f = scene.fabric
    top = sem.grouping.n_groups - 1
    before = sem.queries.group_rect(top)
    zoom_to(view, 1.0)
    core = int(f.find("core01"))
    ed = view.editor
    assert ed.move([core], 0.0, -400.0)
    QtWidgets.QApplication.processEvents()
    view.fit_all()
    QtWidgets.QApplication.processEvents()
    after = sem.queries.group_rect(top)
    assert sem.level == FAR and after.top() == pytest.approx(before.top() - 400.0)
    assert after.bottom() == pytest.approx(before.bottom())


def test_generate_undo_redo_and_delete_regroup(make_window):
    w = make_window()
    view, sem = w.view, w.scene.semantic
    w.apply_generated(k_ary_fat_tree(8))
    zoom_to(view, 0.1)
    assert sem.level == FAR and sem.grouping.n_groups == 9 and len(sem.bundles) == 8
    w.apply_generated(leaf_spine(16, 8, 16))
    zoom_to(view, 0.1)
    assert sem.grouping.n_groups == 17 and sem.grouping.names[0] == "rack leaf01" and len(sem.bundles) == 16
    w.acts["undo"].trigger()
    zoom_to(view, 0.1)
    assert w.fabric.name.startswith("fat-tree") and sem.grouping.n_groups == 9 and len(sem.bundles) == 8
    w.acts["redo"].trigger()
    zoom_to(view, 0.1)
    assert sem.grouping.n_groups == 17 and set(sem.bundles.count.tolist()) == {8}
    # deleting a spine: the top tier loses it, every rack's bundle one cable; undo gives them back
    spine = int(w.fabric.find("spine01"))
    assert w.editor.remove([spine], [])
    QtWidgets.QApplication.processEvents()
    assert sem.grouping.names[-1] == "7 spines" and set(sem.bundles.count.tolist()) == {7}
    w.acts["undo"].trigger()
    QtWidgets.QApplication.processEvents()
    assert sem.grouping.names[-1] == "8 spines" and set(sem.bundles.count.tolist()) == {8}


def test_opening_another_design_closes_the_open_groups(make_window):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(8))
    zoom_to(w.view, 0.1)
    sem = w.scene.semantic
    sem.expand(2)
    assert sem.expanded == {2} and w.view.breadcrumbs.isVisible()
    w.files.new_design()
    QtWidgets.QApplication.processEvents()
    assert sem.expanded == set() and not w.view.breadcrumbs.isVisible()


def test_small_designs_and_the_switch_off_stay_near(qtbot):
    view, scene, sem = open_canvas(qtbot, leaf_spine(4, 2, 8))      # 38 devices
    zoom_to(view, 0.05)
    assert sem.level == NEAR and scene.batch.on                      # today's batched drawing
    view, scene, sem = open_canvas(qtbot, k_ary_fat_tree(16))
    zoom_to(view, 0.1)
    assert sem.level == FAR
    sem.set_enabled(False)
    assert sem.level == NEAR and scene.batch.on and not any(it.isVisible() for it in sem.draw.all_items())
    sem.set_enabled(True)
    assert sem.level == FAR and not scene.batch.on and visible_tops(scene) == set()
    assert not any(isinstance(it, DeviceItem) and it.isVisible() for it in scene.items())


# ---------------------------------------------------------------------- routes round other boxes
def group_boxes(sem):
    """[4, groups] scene rectangles of the group boxes."""
    rects = [sem.queries.group_rect(i) for i in range(sem.grouping.n_groups)]
    return np.array([[r.left(), r.top(), r.right(), r.bottom()] for r in rects]).T


def through_boxes(seg, own_a, own_b, boxes):
    """(segment, box) pairs where a segment ([4, S]) passes through the inside of a box other
    than its own ends' groups (points every 2 scene units along it, 1 unit inside the edges)."""
    out = []
    for j in range(seg.shape[1]):
        ax, ay, bx, by = seg[:, j]
        t = np.linspace(0, 1, int(np.hypot(bx - ax, by - ay) / 2) + 2)
        x, y = ax + t * (bx - ax), ay + t * (by - ay)
        inside = ((boxes[0, :, None] + 1 < x) & (x < boxes[2, :, None] - 1)
                  & (boxes[1, :, None] + 1 < y) & (y < boxes[3, :, None] - 1)).any(axis=1)
        out += [(j, i) for i in np.flatnonzero(inside).tolist() if i not in (own_a[j], own_b[j])]
    return out


def _pod_core_cables(f, g, pod):
    """The cables between group ``pod`` and the core group (the last), sorted."""
    cids, ta, tb = cable_tops(f)
    a, top = g.members(pod), g.members(g.n_groups - 1)
    return sorted(cids[(np.isin(ta, a) & np.isin(tb, top)) | (np.isin(ta, top) & np.isin(tb, a))].tolist())


def test_middle_keeps_one_bundle_per_pod_and_core_group_until_a_pod_is_opened(k16, qtbot):
    """Middle zoom on k=16: inside a pod its switches and host blocks with their "×n" lines; between
    the pods and the cores one bundle per pod ("64 × 400G", 6.5 px), not 1,024 single cables over
    every pod. Every line runs at right angles and none between groups crosses a third group's box.
    Opening a pod (double-click) gives its uplinks lines of their own; closing it bundles them again."""
    view, scene, sem = k16
    zoom_to(view, (FAR_SWITCH_PX + 1) / 48)
    assert sem.level == MIDDLE
    f, g, b = scene.fabric, sem.grouping, sem.bundles
    ga, gb = node_groups(g, b.a), node_groups(g, b.b)
    between = np.flatnonzero(ga != gb)
    assert len(b) == 16 + 16 * (64 + 8) and len(between) == 16            # was 1,024 single cables between
    assert b.a[between].tolist() == list(range(16)) and set(b.b[between].tolist()) == {16}
    for k in between.tolist():
        assert b.count[k] == 64 and b.label(k) == "64 × 400G"
        assert sorted(b.members(k).tolist()) == _pod_core_cables(f, g, int(b.a[k]))
    assert set(sem.routes.width[between].tolist()) == {6.5}
    assert sem.routes.routed.sum() == len(b) - 4       # the top row's 4 bundles: straight up to the cores
    seg, owner = sem.bundle_segments, sem.segment_bundle
    assert ((seg[0] == seg[2]) | (seg[1] == seg[3])).all()
    mine = np.isin(owner, between)
    assert mine.sum() <= 16 * 5
    assert through_boxes(seg[:, mine], ga[owner[mine]], gb[owner[mine]], group_boxes(sem)) == []
    extras = scene.label_layer._extra[2]
    assert extras.count("64 × 400G") == 16 and extras.count("×8") == 16 * 8 and "pod 6" in extras
    # a pod-core cable is drawn at its bundle's ends
    k = int(between[5])
    e = sem.bundle_ends[:, k]
    ends = sem.cable_ends(np.array(_pod_core_cables(f, g, 5)))
    assert all(np.allclose(c, e) or np.allclose(c, e[[2, 3, 0, 1]]) for c in ends.T)
    before = bundle_set(sem)
    # open pod 6 by a double-click on one of its host blocks: its 64 uplinks are lines of their own
    geom = sem.geometry()
    br = geom["blk_rects"][:, np.flatnonzero(g.block_group[geom["blk_ids"]] == 5)[0]]
    qtbot.mouseDClick(view.viewport(), LEFT, pos=view_point(view, (br[0] + br[2]) / 2, (br[1] + br[3]) / 2))
    assert sem.expanded == {5} and sem.level == MIDDLE
    b = sem.bundles
    ga, gb = node_groups(g, b.a), node_groups(g, b.b)
    boxed = (b.a < g.n_groups) & (ga != gb)
    assert boxed.sum() == 15 and 5 not in b.a[boxed].tolist()
    singles = (ga != gb) & ~boxed
    assert singles.sum() == 64 and set(b.count[singles].tolist()) == {1} and set(ga[singles].tolist()) == {5}
    assert sorted(np.concatenate([b.members(int(i)) for i in np.flatnonzero(singles)]).tolist()) == \
        _pod_core_cables(f, g, 5)
    seg, owner = sem.bundle_segments, sem.segment_bundle
    assert ((seg[0] == seg[2]) | (seg[1] == seg[3])).all()
    sem.collapse(5)
    assert bundle_set(sem) == before


def test_pods_in_one_row_keep_straight_lines(qtbot):
    view, scene, sem = open_canvas(qtbot, k_ary_fat_tree(6))         # 6 pods, 9 cores: one row
    zoom_to(view, 0.1)
    assert sem.level == FAR and len(sem.bundles) == 6
    boxes = group_boxes(sem)
    assert len(set(np.round(boxes[1, :6]).tolist())) == 1
    assert not sem.routes.routed.any() and sem.segment_bundle.tolist() == list(range(6))
    np.testing.assert_array_equal(sem.bundle_segments, sem.bundle_ends)
    cx = (np.maximum(boxes[0, :6], boxes[0, 6]) + np.minimum(boxes[2, :6], boxes[2, 6])) / 2
    assert np.allclose(sem.bundle_ends, np.vstack([cx, boxes[1, :6], cx, np.full(6, boxes[3, 6])]))


def test_view_menu_semantic_zoom_switches_it_off_and_on_and_is_remembered(make_window):
    w = make_window()
    act = w.findChild(QtGui.QAction, "action_semantic_zoom")
    assert act is w.acts["semantic_zoom"] and act in w.acts.menu("view").actions()
    assert act.isCheckable() and act.isChecked()
    w.apply_generated(k_ary_fat_tree(16))
    w.view.fit_all()
    QtWidgets.QApplication.processEvents()
    sem = w.scene.semantic
    assert sem.level == FAR
    act.trigger()
    assert not act.isChecked() and sem.level == NEAR and w.scene.batch.on
    assert w.settings.value(SEMANTIC_SETTING, type=bool) is False
    w2 = make_window()
    assert not w2.acts["semantic_zoom"].isChecked() and not w2.scene.semantic.enabled
    w2.apply_generated(k_ary_fat_tree(16))
    w2.view.fit_all()
    QtWidgets.QApplication.processEvents()
    assert w2.scene.semantic.level == NEAR
    w2.acts["semantic_zoom"].trigger()
    assert w2.scene.semantic.level == FAR and w2.settings.value(SEMANTIC_SETTING, type=bool) is True


def test_the_context_menu_opens_and_closes_the_group_under_the_pointer(k16):
    """Right-click at middle: "Open group pod 6" on one of its host blocks; then "Close group pod 6"
    (and "Close all groups") on one of its devices, now drawn as themselves; nothing at near."""
    from fabricviz.ui.canvas.group_menu import group_actions
    view, scene, sem = k16
    zoom_to(view, (FAR_SWITCH_PX + 1) / 48)
    assert sem.level == MIDDLE
    g, geom = sem.grouping, sem.geometry()
    br = geom["blk_rects"][:, np.flatnonzero(g.block_group[geom["blk_ids"]] == 5)[0]]
    at = QtCore.QPointF((br[0] + br[2]) / 2, (br[1] + br[3]) / 2)
    acts = group_actions(view, at)
    assert [t for t, _ in acts] == ["Open group pod 6"]
    acts[0][1]()
    assert sem.expanded == {5} and sem.level == MIDDLE
    leaf = next(d for d in g.members(5).tolist() if scene.fabric.name_of(d).startswith("leaf"))
    acts = group_actions(view, scene.items_by_id[leaf].sceneBoundingRect().center())
    assert [t for t, _ in acts] == ["Close group pod 6", "Close all groups"]
    acts[0][1]()
    assert sem.expanded == set()
    assert group_actions(view, QtCore.QPointF(-1e6, -1e6)) == []      # off every group
    zoom_to(view, (MIDDLE_SERVER_PX + 1) / 26)
    assert sem.level == NEAR and group_actions(view, at) == []
