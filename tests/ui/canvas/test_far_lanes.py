"""Far-level bundles of a pod grid on a real 1920×1080 canvas: each bundle runs round the other
pods in a lane of its own (orthogonal, connected, into its pod's top and out of the core box), no
two lanes overlap on screen, and a click on a lane selects the bundle's cables.

Design: k=16 fat tree (16 pods of 8 leaves + 8 aggregation switches and 64 hosts, 64 cores).
Helpers shared with test_semantic_zoom.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ui.canvas.items.semantic import FAR
from tests.ui.canvas.test_semantic_zoom import LEFT, group_boxes, open_canvas, through_boxes, view_point, zoom_to


@pytest.fixture
def k16(qtbot):
    return open_canvas(qtbot, k_ary_fat_tree(16))


def overlaps(seg, owner, width_px, scale):
    """Pairs of segments of different bundles that lie on each other on screen: parallel, closer
    than their half widths, their extents overlapping."""
    out = []
    for axis in (0, 1):                 # vertical segments (same x), then horizontal (same y)
        along = 1 - axis
        flat = np.flatnonzero(np.isclose(seg[axis], seg[axis + 2]))
        pos = seg[axis, flat]
        lo, hi = np.minimum(seg[along, flat], seg[along + 2, flat]), np.maximum(seg[along, flat], seg[along + 2, flat])
        for i in range(len(flat)):
            for j in range(i + 1, len(flat)):
                a, b = flat[i], flat[j]
                near = abs(pos[i] - pos[j]) * scale < (width_px[a] + width_px[b]) / 2
                if owner[a] != owner[b] and near and min(hi[i], hi[j]) - max(lo[i], lo[j]) > 1e-6:
                    out.append((int(owner[a]), int(owner[b])))
    return out


@pytest.mark.parametrize("zoom", [None, 0.12])
def test_far_bundles_of_a_pod_grid_run_round_the_other_pods_in_lanes_of_their_own(k16, zoom):
    """k=16 at fit (and zoomed out further, still far): a 4 × 4 grid of pods under the core box.
    Straight, pod 5's line up to the cores would cross pod 1 (pods have no cables between them);
    every line that would is drawn through the gutters instead, each bundle in a lane of its own."""
    view, scene, sem = k16
    if zoom is not None:
        zoom_to(view, zoom)
    assert sem.level == FAR
    b, boxes, scale = sem.bundles, group_boxes(sem), view.scale_factor()
    seg, owner = sem.bundle_segments, sem.segment_bundle
    assert len(b) == 16 and set(b.b.tolist()) == {16} and b.a.tolist() == list(range(16))
    left, top, right, bottom = boxes
    assert len(set(np.round(top[:16]).tolist())) == 4 and len(set(np.round(left[:16]).tolist())) == 4
    # straight, the lines of rows 2..4 cross the pods above them: those are drawn otherwise
    cx = (np.maximum(left[:16], left[16]) + np.minimum(right[:16], right[16])) / 2     # where pod and cores face
    straight = np.vstack([cx, top[:16], cx, np.full(16, bottom[16])])
    assert {j for j, _ in through_boxes(straight, b.a, b.b, boxes)} == set(range(4, 16))
    assert through_boxes(seg, b.a[owner], b.b[owner], boxes) == []
    # the top row: one straight line up from the middle of each pod; the others 3 or 5 segments,
    # at right angles, joined end to end from the pod's top edge to the core box's bottom edge
    counts = np.bincount(owner, minlength=16)
    assert counts[:4].tolist() == [1] * 4 and set(counts[4:].tolist()) <= {3, 5}
    assert np.allclose(seg[:, :4], straight[:, :4])
    for k in range(16):
        p = seg[:, owner == k]
        assert np.all(np.isclose(p[0], p[2]) | np.isclose(p[1], p[3]))               # orthogonal
        assert np.allclose(p[2:, :-1], p[:2, 1:])                                      # connected
        assert np.allclose(p[:2, 0], sem.bundle_ends[:2, k]) and np.allclose(p[2:, -1], sem.bundle_ends[2:, k])
        ax, ay, bx, by = sem.bundle_ends[:, k]
        assert ay == pytest.approx(top[k]) and left[k] < ax < right[k]                 # into the pod's top
        assert p[0, 0] == pytest.approx(p[2, 0])                                       # ... from above
        assert by == pytest.approx(bottom[16]) and left[16] <= bx <= right[16]         # out of the core box
    # lanes: no two bundles' segments lie on each other at this zoom, however narrow the gutter
    width = sem.routes.width
    assert overlaps(seg, owner, width[owner], scale) == []
    assert set(width[:4].tolist()) == {6.5} and width.min() >= 1.0      # 64 × 400G: 6.5 px where room
    assert (width.min() < 6.5) == (zoom is not None)                  # narrowed in gutters too narrow
    # the labels: one per bundle on screen, beside its last segment, on no box (text, not halo)
    shown = [r.adjusted(2, 2, -2, -2) for _, t, r in scene.label_layer.in_view(view) if t == "64 × 400G"]
    assert len(shown) == 16
    on_screen = [QtCore.QRectF(view.mapFromScene(QtCore.QPointF(x0, y0)), view.mapFromScene(QtCore.QPointF(x1, y1)))
                 for x0, y0, x1, y1 in boxes.T]
    assert [(i, j) for i, r in enumerate(shown) for j, box in enumerate(on_screen) if r.intersects(box)] == []


def test_a_click_on_a_bundles_lane_selects_its_cables_and_the_inspector_says_which_bundle(make_window, qtbot):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(16))
    view, scene, sem = w.view, w.scene, w.scene.semantic
    view.fit_all()
    QtWidgets.QApplication.processEvents()
    assert sem.level == FAR
    b = sem.bundles
    k = sem.grouping.names.index("pod 9")
    seg = sem.bundle_segments[:, sem.segment_bundle == k]
    vertical = seg[:, np.isclose(seg[0], seg[2])]
    lane = vertical[:, np.argmax(np.abs(vertical[3] - vertical[1]))]             # down the gutter
    assert sem.queries.group_at(QtCore.QPointF(lane[0], (lane[1] + lane[3]) / 2)) is None
    qtbot.mouseClick(view.viewport(), LEFT, pos=view_point(view, lane[0], (lane[1] + lane[3]) / 2))
    assert scene.selected_cables == set(b.members(k).tolist()) and len(scene.selected_cables) == 64
    # drawn selected along the whole route
    assert sem.draw.selected.path().elementCount() == 2 * seg.shape[1]
    w.inspector.refresh()
    assert w.inspector.title.text() == "bundle <b>pod 9 ↔ 64 cores</b>: 64 × 400G (25.6 Tb/s), 64 cables"
    # one cable fewer is not the bundle any more
    scene.set_selected_cables(set(b.members(k)[1:].tolist()))
    w.inspector.refresh()
    assert w.inspector.title.text() == "<b>0</b> devices and <b>63</b> cables selected"


