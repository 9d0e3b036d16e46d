"""Overlays over cables run along the cables' own gutter routes at near zoom (issue 29): read back
from what the traffic heat item paints (every bucket path and the paused / ECN marks), no drawn
segment is slanted and none passes through a device unless one of its ends lies in it; zoomed in
past the culling window, every route segment in view is drawn. The straight heat lines drawn
before are slanted and fail the first check."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import fat_tree
from fabricviz.ui.canvas.items.cables import drawn_segments, routes_for
from fabricviz.ui.canvas.items.semantic import NEAR
from fabricviz.ui.canvas.overlays.traffic import LOD_ZOOM, TrafficOverlay
from tests.ui.canvas.test_near_routes import crossings, device_rects_on_canvas, path_segments
from tests.ui.canvas.test_semantic_zoom import open_canvas, zoom_to
from tests.ui.canvas.test_traffic_lod import UTIL, frame

pytestmark = pytest.mark.gui


def heat_segments(ov: TrafficOverlay) -> np.ndarray:
    """[4, n] every segment the heat item paints now (bucket paths and marks)."""
    return np.hstack([path_segments(p) for _pen, p in ov.drawn_paths()] or [np.zeros((4, 0))])


def in_view(view, routes: np.ndarray) -> np.ndarray:
    """The segments of ``routes`` ([4, n]) that touch what the view shows."""
    r = view.mapToScene(view.viewport().rect()).boundingRect()
    lx, hx = np.minimum(routes[0], routes[2]), np.maximum(routes[0], routes[2])
    ly, hy = np.minimum(routes[1], routes[3]), np.maximum(routes[1], routes[3])
    return routes[:, (lx <= r.right()) & (hx >= r.left()) & (ly <= r.bottom()) & (hy >= r.top())]


@pytest.fixture
def run(qtbot):
    """A 2-level DGX tree at near zoom with a traffic frame shown (some links paused, some marking)."""
    f = fat_tree(levels=2, radix=16, hosts=128, servers="dgx")
    view, scene, sem = open_canvas(qtbot, f)
    ov = TrafficOverlay(scene)
    n = 2 * int(f.cables_t.n)
    ov.set_links(f, n)
    zoom_to(view, 1.0)
    assert sem.level == NEAR
    util = np.random.default_rng(29).random(n)
    ov.show_frame(frame(n, util, paused=range(0, n, 7), ecn=range(3, n, 11)), UTIL)
    view.viewport().repaint()
    return f, view, scene, ov


def test_heat_is_drawn_along_the_routes_at_right_angles(run):
    f, view, scene, ov = run
    # the whole design in view at this zoom (where a zoom lands depends on the pointer: CI's differed),
    # so the heat culls nothing
    r = scene.itemsBoundingRect()
    view.resize(int(r.width()) + 400, int(r.height()) + 400)
    view.centerOn(r.center())
    QtWidgets.QApplication.processEvents()
    view.viewport().repaint()
    assert view.mapToScene(view.viewport().rect()).boundingRect().contains(r)
    rects = device_rects_on_canvas(scene)
    n_cables = len(f.cable_ids())
    assert n_cables == 256 and len(ov.cables) == n_cables and not ov.lod.merged
    seg = heat_segments(ov)
    assert ((seg[0] == seg[2]) | (seg[1] == seg[3])).all()          # no straight slanted line
    assert crossings(seg, rects) == 0
    # the cable layer's segments (the paused and marking cables' once more per mark pen): none other,
    # and every one in view (the heat culls to the view when the canvas is larger than it)
    routes = drawn_segments(routes_for(f).seg)
    drawn = {tuple(c) for c in np.round(seg.T, 6)}
    assert drawn <= {tuple(c) for c in np.round(routes.T, 6)}
    assert all(tuple(c) in drawn for c in np.round(in_view(view, routes).T, 6))
    assert ov.drawn_count() == n_cables
    # merged (level of detail forced on): each merged line still follows a route
    ov.lod_min = 0
    view.viewport().repaint()
    assert ov.lod.merged and ov.drawn_count() == n_cables       # 2-px cells: none share both at 100 %
    seg = heat_segments(ov)
    assert ((seg[0] == seg[2]) | (seg[1] == seg[3])).all() and crossings(seg, rects) == 0


def test_zoomed_in_every_route_in_view_is_drawn(run):
    f, view, scene, ov = run
    zoom_to(view, LOD_ZOOM * 1.25)
    leaf = scene.items_by_id[f.find("leaf03")]
    view.centerOn(leaf.mapRectToScene(leaf.rect()).center())
    QtWidgets.QApplication.processEvents()
    view.viewport().repaint()
    lod = ov.lod
    assert np.isfinite(lod.window).all() and len(lod.cols) < len(ov.cables)       # culled to a window
    seg = heat_segments(ov)
    assert ((seg[0] == seg[2]) | (seg[1] == seg[3])).all()
    assert crossings(seg, device_rects_on_canvas(scene)) == 0
    seen = in_view(view, drawn_segments(routes_for(f).seg))
    drawn = {tuple(c) for c in np.round(seg.T, 6)}
    assert seen.shape[1] > 0 and all(tuple(c) in drawn for c in np.round(seen.T, 6))


def test_failed_cables_and_port_loads_are_drawn_along_the_routes(run):
    """The what-if's failed cables and the routing's port loads (as VL usage and the port counters
    draw: one path per level of the cached routes) lie on the cable layer's routes, at right angles."""
    from types import SimpleNamespace

    from fabricviz.ui.canvas.overlays.failed import FailedCables
    from fabricviz.ui.canvas.overlays.loads import LEVELS, LoadOverlay
    f, _view, scene, _ov = run
    rects = device_rects_on_canvas(scene)
    ids = f.cable_ids()
    want = {tuple(c) for c in np.round(drawn_segments(routes_for(f).seg).T, 6)}
    failed = FailedCables(SimpleNamespace(fabric=f), scene)
    failed.show(ids.tolist())
    assert failed.item is not None
    loads = LoadOverlay(scene)
    loads._make()
    loads.cables, loads.values, loads.vmax, loads.fabric = ids, ids % 7, 6, f
    loads.levels = ids % LEVELS
    loads._draw()
    segs = {"failed": path_segments(failed.item.path()),
            "loads": np.hstack([path_segments(it.path()) for it in loads.items])}
    for name, seg in segs.items():
        assert ((seg[0] == seg[2]) | (seg[1] == seg[3])).all(), name        # no straight slanted line
        assert crossings(seg, rects) == 0, name
        assert {tuple(c) for c in np.round(seg.T, 6)} == want, name
