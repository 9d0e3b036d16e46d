"""Heatmap level of detail on a real canvas: merged segments never hide the hottest cable,
marks survive merging, and zoomed in past LOD_ZOOM every cable in the culling window is drawn on its own.

Design: a k=8 fat tree (384 cables). Zoomed out 20× past "fit", cables whose two ends
share 2-px screen cells merge (the overlay's ``lod_min`` is set to 0 so LOD runs on a
design this small). Expected colours come from the scale's definition (16 equal bins of
[0, 1]: 0.1 → bin 1, 1.0 → bin 15); expected groups are checked against geometry
(every member within one cell of the segment drawing it).
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate import k_ary_fat_tree
from fabricviz.sim.frames import Frame
from fabricviz.ui.canvas.items.cables import cable_anchors, drawn_segments, routes_for
from fabricviz.ui.canvas.items.gutters import SEGS
from fabricviz.ui.canvas.overlays.traffic import BUCKETS, COLORS, LOD_CELL_PX, LOD_ZOOM, ColorScale, group_segments

UTIL = ColorScale("utilisation", 0.0, 1.0)


def frame(n_links, util, paused=(), ecn=()):
    z = np.zeros(n_links)
    p = np.zeros(n_links, bool)
    p[list(paused)] = True
    e = np.zeros(n_links, np.float32)
    e[list(ecn)] = 0.5
    return Frame.make(0.0, util, z, z, p, e, np.zeros(0), np.zeros(0))


@pytest.fixture
def canvas(make_window):
    """A window showing k=8 zoomed out 20× past fit, its overlay (LOD forced on) and the link count."""
    w = make_window()
    w.scene.semantic.set_enabled(False)      # every cable drawn as itself (semantic zoom would bundle them)
    f = k_ary_fat_tree(8)
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    w.view.fit_all()
    w.view.zoom_by(0.05)
    QtWidgets.QApplication.processEvents()
    ov = w.traffic_view.overlay
    ov.lod_min = 0
    n = 2 * f.cables_t.n
    ov.set_links(f, n)
    return w, f, ov, n


def paint(w):
    w.view.viewport().repaint()


def groups(ov):
    """Cable ids of each drawn segment, from the overlay's current grouping."""
    lod = ov.lod
    stops = np.r_[lod.starts[1:], len(lod.cols)]
    return [ov.cables[lod.cols[a:b]] for a, b in zip(lod.starts, stops, strict=True)]


def route_lengths(f):
    """Drawn (non-empty) segments of each cable's route, by cable id (k=8: ids 0..383)."""
    s = routes_for(f).seg.reshape(4, -1, SEGS)
    return ((s[0] != s[2]) | (s[1] != s[3])).sum(axis=1)


def merged_group(ov):
    big = [g for g in groups(ov) if len(g) >= 2]
    assert big, "the zoomed-out view merges some cables"
    return big[0]


def test_group_colour_is_its_hottest_member_and_members_share_cells(canvas):
    w, f, ov, n = canvas
    util = np.random.default_rng(7).random(n)
    ov.show_frame(frame(n, util), UTIL)
    paint(w)
    lod = ov.lod
    assert lod.merged and lod.segments == ov.drawn_count() < len(ov.cables) == 384
    gs = groups(ov)
    assert sum(len(g) for g in gs) == 384                  # whole design in view: none culled, each once
    own = UTIL.buckets(np.maximum(util[0::2], util[1::2]))
    cell = LOD_CELL_PX / lod.scale
    ends = np.vstack(cable_anchors(f, f.cable_ids()))
    for g, members in enumerate(gs):
        want = int(own[members].max())
        for c in members:
            assert ov.bucket_of(int(c)) == own[c]
            assert ov.color_of(int(c)) == COLORS[own[c]]
            assert ov.drawn_color_of(int(c)) == COLORS[want]
        seg = np.array([lod.x[2 * g], lod.y[2 * g], lod.x[2 * g + 1], lod.y[2 * g + 1]])
        e = ends[:, members]
        near = np.abs(e - seg[:, None]).max(axis=0)
        flipped = np.abs(e - seg[[2, 3, 0, 1], None]).max(axis=0)
        assert np.all(np.minimum(near, flipped) < cell)     # same two cells, either way round
    # the drawn paths: segments per bucket = the routes of the first members of the groups whose
    # hottest member is in that bucket (each group is drawn along its first member's route)
    nseg = route_lengths(f)
    per_bucket = np.bincount([int(own[m].max()) for m in gs], weights=[nseg[m[0]] for m in gs],
                             minlength=BUCKETS).astype(int)
    drawn = {pen.color().name(): path.elementCount() // 2 for pen, path in ov.drawn_paths()}
    assert drawn == {COLORS[k].name(): int(per_bucket[k]) for k in range(BUCKETS) if per_bucket[k]}
    # the scene's own cable strokes, all under the heat, are not painted meanwhile; back after clear
    assert not any(item.isVisible() for item in w.scene.cables.items.values())
    ov.clear()
    assert all(item.isVisible() for item in w.scene.cables.items.values()) and ov.drawn_count() == 0


def test_scene_cables_stay_when_the_run_lacks_one(canvas):
    w, f, ov, n = canvas
    ov.set_links(f, n - 1)                                   # the last cable has one direction only
    ov.show_frame(frame(n, np.full(n, 0.1)), UTIL)
    paint(w)
    assert len(ov.cables) == 383 and ov.color_of(383) is None
    assert all(item.isVisible() for item in w.scene.cables.items.values())


def test_overloaded_cable_is_drawn_hottest_inside_a_cool_group(canvas):
    w, f, ov, n = canvas
    ov.show_frame(frame(n, np.full(n, 0.1)), UTIL)
    paint(w)
    members = merged_group(ov)
    lod = ov.lod
    g = int(lod.group[int(np.searchsorted(ov.cables, members[0]))])
    hot, cool = int(members[-1]), int(members[0])           # the segment is drawn along ``cool``
    util = np.full(n, 0.1)
    util[2 * hot + 1] = 1.0
    ov.show_frame(frame(n, util), UTIL)
    paint(w)
    assert ov.color_of(hot) == ov.drawn_color_of(hot) == COLORS[15]
    assert ov.color_of(cool) == COLORS[1] and ov.drawn_color_of(cool) == COLORS[15]
    nseg = route_lengths(f)
    assert g >= 0 and [(pen.color(), path.elementCount()) for pen, path in ov.drawn_paths()] == \
        [(COLORS[1], 2 * sum(int(nseg[m[0]]) for m in groups(ov) if m[0] != cool)), (COLORS[15], 2 * nseg[cool])]
    # and on screen: the hottest colour is painted where the merged line runs (``cool``'s route)
    s = drawn_segments(routes_for(f).seg.reshape(4, -1, SEGS)[:, cool])
    i = int(np.argmax(np.abs(s[2] - s[0]) + np.abs(s[3] - s[1])))
    mid = QtCore.QPointF((s[0, i] + s[2, i]) / 2, (s[1, i] + s[3, i]) / 2)
    p = w.view.mapFromScene(mid)
    img = w.view.viewport().grab().toImage()
    near = {QtGui.QColor(img.pixel(p.x() + dx, p.y() + dy)).name() for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    assert COLORS[15].name() in near


def test_paused_and_marking_members_mark_their_merged_segment(canvas):
    w, f, ov, n = canvas
    ov.show_frame(frame(n, np.full(n, 0.1)), UTIL)
    paint(w)
    a, b, c = [g for g in groups(ov) if len(g) >= 2][:3]
    pa, pb, ec = int(a[-1]), int(b[-1]), int(c[-1])         # not the members the segments follow
    ov.show_frame(frame(n, np.full(n, 0.1), paused=[2 * pa, 2 * pb + 1], ecn=[2 * ec + 1]), UTIL)
    paint(w)
    assert sorted(ov.paused.tolist()) == sorted([pa, pb]) and ov.ecn.tolist() == [ec]
    assert ov.is_paused(pa) and not ov.is_paused(int(a[0]))
    assert all(ov.shows_paused(int(x)) for x in np.r_[a, b]) and not any(ov.shows_paused(int(x)) for x in c)
    assert all(ov.shows_marking(int(x)) for x in c) and not any(ov.shows_marking(int(x)) for x in np.r_[a, b])
    marks = [(pen.style(), path.elementCount()) for pen, path in ov.drawn_paths()[-2:]]
    nseg = route_lengths(f)                                 # along the routes the segments follow
    assert marks == [(QtCore.Qt.PenStyle.DashLine, 2 * (nseg[a[0]] + nseg[b[0]])),
                     (QtCore.Qt.PenStyle.DotLine, 2 * nseg[c[0]])]


def test_cut_to_window_and_merge_by_cells():
    """Hand geometry: window x 10..50, y -5..5; cells of 4 units."""
    ends = np.array([[0, 0, 100, 0],        # 0: crosses → cut to (10,0)-(50,0)
                     [0, 1, 100, 1],        # 1: crosses 1 unit lower → same cells as 0
                     [60, -60, 0, 0],       # 2: its box meets the window, the line misses it
                     [30, 0, 30, 100],      # 3: leaves through the bottom → (30,0)-(30,5)
                     [200, 0, 300, 0],      # 4: far right
                     [100, 2, 0, 2]], float).T   # 5: like 0, drawn the other way round
    window = (10.0, -5.0, 50.0, 5.0)
    each = group_segments(ends, window)
    assert not each.merged and each.cols.tolist() == [0, 1, 3, 5]
    assert each.group.tolist() == [0, 1, -1, 2, -1, 3]
    assert each.x.tolist() == [10, 50, 10, 50, 30, 30, 50, 10]
    assert each.y.tolist() == [0, 0, 1, 1, 0, 5, 2, 2]
    lod = group_segments(ends, window, cell=4.0)
    assert lod.merged and lod.segments == 2
    g = lod.group
    assert g[0] == g[1] == g[5] != g[3] and g[2] == g[4] == -1
    assert lod.x[2 * g[0]:2 * g[0] + 2].tolist() == [10, 50] and lod.y[2 * g[0]:2 * g[0] + 2].tolist() == [0, 0]
    everything = group_segments(ends)
    assert everything.cols.tolist() == [0, 1, 2, 3, 4, 5] and everything.x.tolist()[:2] == [0, 100]


def _meets(line: QtCore.QLineF, rect: QtCore.QRectF) -> bool:
    """Independent oracle: a segment meets a rect if an end is inside or it crosses an edge."""
    if rect.contains(line.p1()) or rect.contains(line.p2()):
        return True
    corners = [rect.topLeft(), rect.topRight(), rect.bottomRight(), rect.bottomLeft()]
    return any(line.intersects(QtCore.QLineF(corners[i], corners[(i + 1) % 4]))[0]
               == QtCore.QLineF.IntersectionType.BoundedIntersection for i in range(4))


def test_zoomed_in_draws_every_cable_in_the_window_on_its_own(canvas):
    w, f, ov, n = canvas
    util = np.random.default_rng(3).random(n)
    ov.show_frame(frame(n, util), UTIL)
    paint(w)
    assert ov.lod.merged
    w.view.zoom_by(LOD_ZOOM / w.view.scale_factor())         # zoomed in on the middle: a slice
    w.view.centerOn(w.scene.content_rect().center())
    paint(w)
    lod = ov.lod
    assert w.view.scale_factor() == pytest.approx(LOD_ZOOM) and not lod.merged
    window = QtCore.QRectF(QtCore.QPointF(lod.window[0], lod.window[1]),
                           QtCore.QPointF(lod.window[2], lod.window[3]))
    view = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    assert window.contains(view)
    ends = np.vstack(cable_anchors(f, f.cable_ids()))
    lines = {int(c): QtCore.QLineF(*ends[:, i]) for i, c in enumerate(f.cable_ids())}
    in_window = [c for c, ln in lines.items() if _meets(ln, window)]
    in_view = [c for c, ln in lines.items() if _meets(ln, view)]
    assert 0 < len(in_view) <= len(in_window) < 384           # culled to the window
    # and the cables whose straight line misses the window but whose route (drawn) meets it
    s = routes_for(f).seg.reshape(4, -1, SEGS)
    xs, ys = np.hstack([s[0], s[2]]), np.hstack([s[1], s[3]])
    meet = (xs.min(1) <= window.right()) & (xs.max(1) >= window.left()) & \
        (ys.min(1) <= window.bottom()) & (ys.max(1) >= window.top())
    by_route = [c for c in set(lines) - set(in_window) if meet[c]]
    assert len(by_route) > 0                                  # routes leave their straight lines
    assert ov.drawn_count() == len(in_window) + len(by_route)
    for c in in_window:
        assert ov.group_of(c).tolist() == [c]
        assert ov.drawn_color_of(c) == ov.color_of(c) == COLORS[UTIL.bucket(max(util[2 * c], util[2 * c + 1]))]
    assert all(ov.drawn_color_of(c) is None for c in set(lines) - set(in_window))
    # marks zoomed in: exactly the paused / marking cables' own segments
    pc, ec = in_view[0], in_view[-1]
    ov.show_frame(frame(n, util, paused=[2 * pc + 1], ecn=[2 * ec]), UTIL)
    paint(w)
    assert [c for c in in_window if ov.shows_paused(c)] == [pc]
    assert [c for c in in_window if ov.shows_marking(c)] == [ec]


def test_canvas_cables_draw_merged_when_fitted_and_cut_when_zoomed_in(make_window):
    """The scene's own cable items use the same level of detail: every cable is in exactly
    one drawn segment when fitted, and zoomed in only cables meeting the window are drawn."""
    w = make_window()
    w.scene.semantic.set_enabled(False)      # the scene's own cable items at fit (not bundles)
    f = k_ary_fat_tree(16)                                   # 3,072 cables
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    w.view.fit_all()
    w.view.zoom_by(0.1)          # well past fit: cables whose ends share 2-px cells merge
    paint(w)
    items = [it for it in w.scene.cables.items.values() if it.lods is not None]
    drawn = drawn_segments(w.scene.cables.segs).shape[1]     # each cable along its route (3 to 5 segments)
    assert sum(w.scene.cables.counts().values()) == 3072 and 3 * 3072 <= drawn <= SEGS * 3072
    assert items and sum(it.path().elementCount() // 2 for it in items) == drawn     # pictures keep all
    for it in items:
        lod = it.lods.lod
        n = it.lods.ends.shape[1]
        assert lod.merged and lod.segments <= n and sorted(lod.cols.tolist()) == list(range(n))
    assert sum(it.lods.lod.segments for it in items) < drawn
    w.view.zoom_by(LOD_ZOOM / w.view.scale_factor())
    w.view.centerOn(w.scene.content_rect().center())
    paint(w)
    view = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    shown = [it for it in items if it.sceneBoundingRect().intersects(view)]   # only these are painted
    assert shown
    for it in shown:
        lod = it.lods.lod
        assert not lod.merged
        window = QtCore.QRectF(QtCore.QPointF(lod.window[0], lod.window[1]),
                               QtCore.QPointF(lod.window[2], lod.window[3]))
        assert window.contains(view)
        e = it.lods.ends
        meets = [i for i in range(e.shape[1]) if _meets(QtCore.QLineF(*e[:, i]), window)]
        assert sorted(lod.cols.tolist()) == meets and lod.segments == len(meets) < e.shape[1]
