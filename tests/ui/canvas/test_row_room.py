"""Room between wrapped rows (issue 29, the third look), on the main window's canvas at
1920×1080 (about 1300×960), fitted; each case failed before its fix:

* a 2-level DGX tree (``generate fat-tree --levels 2 --radix 64 --servers dgx --hosts 256``, 46 %):
  its 32 spines wrap onto two rows 48 units apart and the lanes of the upper row's cables ran
  through that row's names (16 names), and the lanes under the leaves through theirs (8): rows of
  switches are now ``ROW_GAP`` apart and a gutter's lanes lie low in it, a leaf's own lanes not
  shared with the other leaves of its row;
* leaf-spine 8 × 4 × 16 at fit (80 %): each leaf's 16 servers in two rows 12 units apart, only the
  lower row named (24 of 128 servers); rows of servers are now ``HOST_GAP_Y`` apart.
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.generate.autolayout import HOST_GAP_Y, ROW_GAP
from fabricviz.generate.geometry import device_rects
from fabricviz.ui.canvas.items.cables import routes_for
from tests.ui.canvas.test_label_room import canvas

pytestmark = pytest.mark.gui


def shown_names(view, scene):
    """(device, scene rectangle of its text without the halo) of every name drawn now."""
    out = []
    for d, _, q in scene.label_layer.in_view(view):
        if d >= 0:
            out.append((d, view.mapToScene(q.adjusted(2, 2, -2, -2).toRect()).boundingRect()))
    return out


def test_dgx_tree_at_fit_no_lane_crosses_a_name(qtbot):
    f = fat_tree(levels=2, radix=64, servers="dgx", hosts=256)
    view, scene = canvas(qtbot, f)
    assert scene.semantic.level == "near" and 0.45 < view.scale_factor() < 0.48
    t = f.devices_t
    spines = [f.find(f"spine{i:02d}") for i in range(1, 33)]
    tops = np.unique(np.round(t.y[spines], 3))
    assert len(tops) == 2 and tops[1] - tops[0] == pytest.approx(24.0 + ROW_GAP)      # two rows
    seg = routes_for(f).seg
    flat = np.isclose(seg[1], seg[3]) & ~np.isclose(seg[0], seg[2])          # the lanes
    names = shown_names(view, scene)
    named = {f.name_of(d) for d, _ in names}
    assert {f"spine{i:02d}" for i in range(1, 33)} | {f"leaf{i:02d}" for i in range(1, 9)} <= named
    crossed = []
    for d, r in names:
        on = flat & (seg[1] > r.top()) & (seg[1] < r.bottom()) \
            & (np.maximum(seg[0], seg[2]) > r.left()) & (np.minimum(seg[0], seg[2]) < r.right())
        if on.any():
            crossed.append(f.name_of(d))
    assert crossed == []


def test_dgx_tree_leaves_each_take_the_lowest_lane_of_their_gutter():
    f = fat_tree(levels=2, radix=64, servers="dgx", hosts=256)
    seg = routes_for(f).seg
    flat = np.isclose(seg[1], seg[3]) & ~np.isclose(seg[0], seg[2])
    leaf = f.find("leaf01")
    top = device_rects(f, np.array([leaf]))[3, 0]
    under = flat & (seg[1] > top) & (seg[1] < top + 56.0)                # leaf row 1's gutter
    assert np.unique(seg[1][under]).tolist() == [top + 42.5]             # one lane, 5.5 above the block


def test_leaf_spine_at_fit_names_both_rows_of_servers(qtbot):
    f = leaf_spine(leaves=8, spines=4, hosts_per_leaf=16)
    view, scene = canvas(qtbot, f)
    assert scene.semantic.level == "near" and 0.75 < view.scale_factor() < 0.85
    t = f.devices_t
    names = shown_names(view, scene)
    hosts = [(d, r) for d, r in names if f.name_of(d).startswith("node")]
    rows = np.unique(np.round(t.y[[d for d, _ in hosts]], 3), return_counts=True)
    assert len(rows[0]) == 4 and rows[1].tolist() == [12, 12, 12, 12]      # both rows of each pod row
    assert np.diff(rows[0]).tolist()[::2] == [60.0 + HOST_GAP_Y] * 2
    rects = np.array([[r.left(), r.top(), r.right(), r.bottom()] for _, r in names]).T
    i, j = np.triu_indices(rects.shape[1], 1)
    meet = (rects[0, i] < rects[2, j]) & (rects[0, j] < rects[2, i]) & (rects[1, i] < rects[3, j]) \
        & (rects[1, j] < rects[3, i])
    assert not meet.any()                                                  # no two names overlap
    ids = f.device_ids()
    ids = ids[t.parent[ids] < 0]
    dev = device_rects(f, ids)
    on = [(f.name_of(d), f.name_of(int(e))) for d, r in hosts
          for e in ids[(dev[0] < r.right()) & (dev[2] > r.left()) & (dev[1] < r.bottom()) & (dev[3] > r.top())
                       & (ids != d)]]
    assert on == []
