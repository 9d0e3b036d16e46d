"""A multi-plane SuperPOD on the canvas (``generate superpod --system dgx-b300 --units 1 --fabric roce
--planes 2``, the guilook review of issue 27): each scalable unit is one box holding both planes'
leaves (the planes are layers: View ▸ Plane Layers colours or veils each), its 64 DGX under all 16
leaves, no box overlapping another, and each host block's bundle going straight up to its leaf —
with a group per plane the 64 hosts sat in su1-plane1's box, which covered part of su1-plane2's, and
plane 2's "×64" ran 1,138 scene units sideways through plane 1's leaf names."""

from __future__ import annotations

import pytest

from fabricviz.generate.superpod import superpod
from fabricviz.ui.canvas.items.semantic import FAR, MIDDLE, NEAR
from tests.ui.canvas.test_label_room import canvas
from tests.ui.canvas.test_semantic_zoom import zoom_to

pytestmark = pytest.mark.gui


def overlapping_boxes(sem) -> list[tuple[str, str]]:
    g, box = sem.grouping, sem.geometry()["box"]
    out = []
    for i in range(g.n_groups):
        for j in range(i + 1, g.n_groups):
            a, b = box[:, i], box[:, j]
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                out.append((g.names[i], g.names[j]))
    return out


def sideways_host_bundles(sem, f) -> list[tuple[str, float]]:
    """(leaf, scene units) for each host-block-to-leaf bundle whose drawn segments reach further
    than ``REACH`` beyond its leaf's left or right edge."""
    g, b = sem.grouping, sem.bundles
    base = g.n_groups + g.n_blocks
    seg, owner, rect = sem.bundle_segments, sem.segment_bundle, sem.geometry()["rect_of"]
    out = []
    for k in range(len(b)):
        lo, hi = int(b.a[k]), int(b.b[k])
        if g.n_groups <= lo < base <= hi:
            s, r = seg[:, owner == k], rect[:, hi - base]
            past = max(r[0] - min(s[0].min(), s[2].min()), max(s[0].max(), s[2].max()) - r[2], 0.0)
            if past > REACH:
                out.append((f.name_of(hi - base), round(float(past))))
    return out


#: A host block's bundle to a rail leaf fans in from the block's edge: at most this far (scene units,
#: a switch gap and a bit) past the leaf it ends at.
REACH = 20.0


@pytest.mark.parametrize("units,fabric", [(1, "roce"), (4, "ib")])
def test_each_unit_is_one_box_with_its_hosts_under_both_planes(qtbot, units, fabric):
    f = superpod("dgx-b300", units, fabric=fabric, planes=2)
    view, scene = canvas(qtbot, f)                  # the main window's canvas at 1920×1080, fitted
    sem = scene.semantic
    levels = []
    for zoom in (None, 0.28, 0.1):
        if zoom is not None:
            zoom_to(view, zoom)
        sem.refresh()
        g = sem.grouping
        levels.append(sem.level)
        assert g.names == (*[f"su{s}" for s in range(1, units + 1)], f"{8 * units} spines")
        assert overlapping_boxes(sem) == []
        geom = sem.geometry()
        for blk in range(g.n_blocks):              # each unit's 64 DGX: one block inside its unit's box
            k, r = int(g.block_group[blk]), geom["blk"][:, blk]
            box = geom["box"][:, k]
            assert int(g.block_size[blk]) == 64 and g.names[k] == f"su{blk + 1}"
            assert box[0] <= r[0] and r[2] <= box[2] and box[1] <= r[1] and r[3] <= box[3]
        if sem.level == MIDDLE:
            assert len(sem.bundles) == 17 * units and sideways_host_bundles(sem, f) == []
    assert levels == ([NEAR, MIDDLE, FAR] if units == 1 else [MIDDLE, MIDDLE, FAR])
