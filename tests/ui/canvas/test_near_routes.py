"""Cables at near zoom run through the gutters between rows (issue 29, item 1): read back from the
canvas's own path items, no drawn segment passes through a device unless one of its ends lies in
that device (a port on it, or a NIC inside a server), on the designs a user first builds, at
several zooms; the selected cable is drawn along its own route, end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.generate.geometry import device_rects
from fabricviz.generate.superpod import superpod
from fabricviz.loaders import load_any
from fabricviz.ui.canvas.items.cables import cable_anchors, routes_for, top_devices
from fabricviz.ui.canvas.items.gutters import SEGS, bands, route_cables
from fabricviz.ui.canvas.items.routes import crosses
from fabricviz.ui.canvas.items.semantic import NEAR
from tests.ui.canvas.test_semantic_zoom import open_canvas, zoom_to

pytestmark = pytest.mark.gui

REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "topograph_superpod_ndr.ibnetdiscover"


def path_segments(path) -> np.ndarray:
    """[4, n] the line segments of a QPainterPath (each moveTo starts a polyline)."""
    out = []
    last = None
    for i in range(path.elementCount()):
        e = path.elementAt(i)
        if not e.isMoveTo() and last is not None:
            out.append((last[0], last[1], e.x, e.y))
        last = (e.x, e.y)
    return np.array(out, np.float64).T.reshape(4, -1)


def device_rects_on_canvas(scene) -> np.ndarray:
    """[4, n] the top-level device items' rectangles (scene coordinates, without their outline)."""
    r = [it.mapRectToScene(it.rect()) for it in scene.items_by_id.values() if it.parentItem() is None]
    return np.array([[q.left(), q.top(), q.right(), q.bottom()] for q in r]).T


def crossings(seg: np.ndarray, rects: np.ndarray, eps: float = 0.5) -> int:
    """Segments (all horizontal or vertical, or tested by sampling) that pass through the inside of
    a rectangle neither of their two end points lies in."""
    bad = 0
    for j in range(0, seg.shape[1], 2048):
        ax, ay, bx, by = (v[:, None] for v in seg[:, j:j + 2048])
        lx, hx, ly, hy = np.minimum(ax, bx), np.maximum(ax, bx), np.minimum(ay, by), np.maximum(ay, by)
        meet = (rects[0] + eps < hx) & (rects[2] - eps > lx) & (rects[1] + eps < hy) & (rects[3] - eps > ly)
        own = ((rects[0] <= ax) & (ax <= rects[2]) & (rects[1] <= ay) & (ay <= rects[3])) | \
              ((rects[0] <= bx) & (bx <= rects[2]) & (rects[1] <= by) & (by <= rects[3]))
        slant = (ax != bx) & (ay != by)
        assert not (meet & slant).any(), "near cables are drawn at right angles only"
        bad += int((meet & ~own).sum())
    return bad


def drawn_cables(scene) -> np.ndarray:
    return np.hstack([path_segments(it.path()) for it in scene.cables.items.values()])


DESIGNS = {
    "dgx-2-level": lambda: fat_tree(levels=2, radix=16, hosts=128, servers="dgx"),
    "leaf-spine-8x4x16": lambda: leaf_spine(8, 4, 16),
    "superpod-b300-4su": lambda: superpod("dgx-b300", units=4),
    "real-superpod": lambda: load_any(REAL),
}


@pytest.mark.parametrize("name", list(DESIGNS))
def test_no_cable_is_drawn_across_a_device_it_does_not_end_at(qtbot, name):
    f = DESIGNS[name]()
    view, scene, sem = open_canvas(qtbot, f)
    rects = device_rects_on_canvas(scene)
    for scale in (view.scale_factor(), 0.9, 1.0, 1.6):
        zoom_to(view, scale)
        if sem.level != NEAR:
            continue
        seg = drawn_cables(scene)
        assert seg.shape[1] >= len(f.cable_ids())          # every cable is drawn
        assert crossings(seg, rects) == 0, (name, scale)
    zoom_to(view, 1.0)
    assert sem.level == NEAR


def test_straight_lines_would_cross_devices_the_routes_avoid():
    """The check can fail: the same cables drawn straight pass through hundreds of devices."""
    f = load_any(REAL)
    t = f.devices_t
    tops = f.device_ids()
    tops = tops[t.parent[tops] < 0]
    rects = device_rects(f, tops)
    ids = f.cable_ids()
    col = np.full(t.n, -1, np.int64)
    col[tops] = np.arange(len(tops))
    da = col[top_devices(f, f.ports_t.device[f.cables_t.port_a[ids]])]
    db = col[top_devices(f, f.ports_t.device[f.cables_t.port_b[ids]])]
    hit = int(crosses(np.vstack(cable_anchors(f, ids)), rects, da, db).sum())
    assert hit == 691                                   # of 1,114 cables, drawn straight
    r = routes_for(f)
    assert r.seg.shape == (4, SEGS * 1114)
    assert crossings(r.seg, rects) == 0
    assert not crosses(r.seg, rects, np.repeat(da, SEGS), np.repeat(db, SEGS)).any()


def test_selected_cable_runs_its_own_route_from_port_to_port(qtbot):
    f = fat_tree(levels=2, radix=16, hosts=128, servers="dgx")
    view, scene, _sem = open_canvas(qtbot, f)
    spine, leaf = f.find("spine01"), f.find("leaf07")
    ids = f.cable_ids()
    pa, pb = f.ports_t.device[f.cables_t.port_a[ids]], f.ports_t.device[f.cables_t.port_b[ids]]
    c = int(ids[((pa == spine) & (pb == leaf)) | ((pa == leaf) & (pb == spine))][0])
    scene.selected_cables = {c}
    scene.cables.update_highlight()
    QtWidgets.QApplication.processEvents()
    seg = path_segments(scene.cables.highlight.path())
    assert 3 <= seg.shape[1] <= SEGS
    assert crossings(seg, device_rects_on_canvas(scene)) == 0    # not over leaf01 or node01
    ax, ay, bx, by = (float(v[0]) for v in cable_anchors(f, np.array([c])))
    pts = {(round(x, 6), round(y, 6)) for x, y in zip(np.r_[seg[0], seg[2]], np.r_[seg[1], seg[3]], strict=True)}
    assert (round(ax, 6), round(ay, 6)) in pts and (round(bx, 6), round(by, 6)) in pts
    # the whole route is one polyline: each segment starts where the one before ended
    assert np.allclose(seg[2, :-1], seg[0, 1:]) and np.allclose(seg[3, :-1], seg[1, 1:])
    # and a click on it anywhere along the route finds it
    mid = seg[:, seg.shape[1] // 2]
    from PySide6 import QtCore
    assert scene.cables.cable_at(QtCore.QPointF((mid[0] + mid[2]) / 2, (mid[1] + mid[3]) / 2), 0.01) is not None


def test_bands_and_lanes():
    rects = np.array([[0, 0, 10, 10], [20, 2, 30, 12], [0, 40, 10, 50], [0, 80, 10, 90]], float).T
    top, bot, band = bands(rects)
    assert top.tolist() == [0, 40, 80] and bot.tolist() == [12, 50, 90] and band.tolist() == [0, 0, 1, 2]
    # a cable from rect 0's bottom to rect 3's top goes round rect 2 (the band between)
    seg = route_cables(rects, np.array([0]), np.array([3]), np.array([[5.0], [10.0], [5.0], [80.0]]))
    assert crossings(seg, rects) == 0
    xs = seg[[0, 2]].ravel()
    assert xs.min() < 0 or xs.max() > 10                      # it left the column to pass rect 2


def test_the_level_is_picked_from_on_screen_sizes(qtbot):
    """far while a typical switch is under FAR_SWITCH_PX px and a typical group box under
    OPEN_BOX_PX2 px²; middle while a typical server is under MIDDLE_SERVER_PX px; near above."""
    from fabricviz.generate import k_ary_fat_tree
    from fabricviz.ui.canvas.items.bundles import typical_box_area, typical_sizes
    from fabricviz.ui.canvas.items.semantic import FAR, FAR_SWITCH_PX, MIDDLE, MIDDLE_SERVER_PX, OPEN_BOX_PX2
    for k, box_area in ((16, 567_672.0), (32, 1_598_200.0)):
        f = k_ary_fat_tree(k)
        _view, scene, sem = open_canvas(qtbot, f)
        sw, srv, _n = typical_sizes(f)
        assert (sw, srv) == (48.0, 26.0) and typical_box_area(f, sem.grouping) == pytest.approx(box_area, rel=1e-3)
        far_to = min(FAR_SWITCH_PX / sw, (OPEN_BOX_PX2 / box_area) ** 0.5)
        assert sem.level_for(far_to * 0.99) == FAR and sem.level_for(far_to * 1.01) == MIDDLE
        near_from = MIDDLE_SERVER_PX / srv
        assert sem.level_for(near_from * 0.99) == MIDDLE and sem.level_for(near_from * 1.01) == NEAR
        scene.set_fabric(None)
    # a radix-32 pod at 35 % is a third of the screen: its inside is drawn, not an empty box
    assert (OPEN_BOX_PX2 / 1_598_200.0) ** 0.5 < 0.35 < FAR_SWITCH_PX / 48.0


@pytest.mark.parametrize("name, zooms", [("leaf-spine-8x4x16", (0.45, 0.6)), ("k16", (0.45, 0.6))])
def test_middle_lines_are_one_style_and_cross_no_node(qtbot, name, zooms):
    from fabricviz.generate import k_ary_fat_tree
    from tests.ui.canvas.test_real_superpod import lines_through_nodes
    f = leaf_spine(8, 4, 16) if name.startswith("leaf") else k_ary_fat_tree(16)
    view, _scene, sem = open_canvas(qtbot, f)
    from fabricviz.ui.canvas.items.semantic import MIDDLE
    for z in zooms:
        zoom_to(view, z)
        assert sem.level == MIDDLE
        seg = sem.bundle_segments
        assert seg.shape[1] > 0 and ((seg[0] == seg[2]) | (seg[1] == seg[3])).all(), z
        assert lines_through_nodes(sem) == [], z


def test_sweep_port_dots_of_a_radix16_switch_neither_pile_up_nor_leave_it():
    """At 193 % during the sweep a k=16 switch's 16 port dots (3.5-unit circles on a 48-unit
    switch) piled up on two corners over its name: now each fits its port's room, inside."""
    from fabricviz.generate import k_ary_fat_tree
    from fabricviz.ui.canvas.overlays.sweep import port_dots
    f = k_ary_fat_tree(16)
    ids = f.cable_ids()
    xy = np.full((2, int(f.ports_t.n)), np.nan)
    ax, ay, bx, by = cable_anchors(f, ids)
    xy[0, f.cables_t.port_a[ids]], xy[1, f.cables_t.port_a[ids]] = ax, ay
    xy[0, f.cables_t.port_b[ids]], xy[1, f.cables_t.port_b[ids]] = bx, by
    r = port_dots(f, xy)
    for name in ("leaf003", "spine003", "core01"):
        d = f.find(name)
        ports = f.device(d).port_ids
        x, y, rad = xy[0, ports], xy[1, ports] + r[1, ports], r[0, ports]
        assert len(ports) == 16 and np.isfinite(x).all()
        rect = device_rects(f, np.array([d]))[:, 0]
        assert ((x - rad >= rect[0]) & (x + rad <= rect[2]) & (y - rad >= rect[1]) & (y + rad <= rect[3])).all()
        dist = np.hypot(x[:, None] - x[None, :], y[:, None] - y[None, :])
        np.fill_diagonal(dist, np.inf)
        assert (dist >= rad[:, None] + rad[None, :]).all()        # no two dots overlap
