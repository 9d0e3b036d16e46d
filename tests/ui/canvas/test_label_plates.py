"""No cable line through a name (issue 29: "names have lines through them"), on the canvas as a
1920×1080 screen shows it (about 1300×960), at fit:

* leaf-spine 8 × 4 × 16 (``generate leaf-spine --leaves 8 --spines 4 --hosts-per-leaf 16``): each
  spine's name sat under its box, where its 8 downlinks leave;
* GB200 NVL72, 8 racks (``generate nvl72 --racks 8 --system gb200``): every "spine01…" name was
  crossed by its 16 downlinks and every "su1-rail0…" by 8–16 cables.

A spine's name now sits above its box (no cable leaves from its top), and every name is drawn on a
plate in the background colour above the cables: read back from the rendered canvas, no pixel of a
shown name's text rectangle has a cable's colour (before: 137 such pixels on the leaf-spine, 1,378 on
the NVL72 design).
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtGui

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.generate.nvl72 import nvl72
from fabricviz.ib.tiers import switch_mask
from fabricviz.ui.canvas.items.label_paint import PAD_PX, PLATE_ALPHA
from fabricviz.ui.canvas.items.name_room import name_above
from fabricviz.ui.canvas.items.semantic import NEAR
from tests.ui.canvas.test_label_room import canvas
from tests.ui.canvas.test_near_routes import drawn_cables
from tests.ui.canvas.test_semantic_zoom import zoom_to

pytestmark = pytest.mark.gui


def glyph_rects(view, scene) -> tuple[list[int], np.ndarray]:
    """The shown names' devices and their text rectangles ([4, n], viewport pixels, without the padding)."""
    shown = [(d, r) for d, _, r in scene.label_layer.in_view(view) if d >= 0]
    r = np.array([[q.left() + PAD_PX, q.top() + PAD_PX, q.right() - PAD_PX, q.bottom() - PAD_PX]
                  for _, q in shown]).T
    return [d for d, _ in shown], r


def crossed_by(seg: np.ndarray, view, rects: np.ndarray) -> np.ndarray:
    """Per rectangle (viewport pixels), how many of the scene segments ``seg`` (right-angled) cross it."""
    t = view.viewportTransform()
    ax, bx = seg[0] * t.m11() + t.m31(), seg[2] * t.m11() + t.m31()
    ay, by = seg[1] * t.m22() + t.m32(), seg[3] * t.m22() + t.m32()
    lx, hx, ly, hy = (v[None, :] for v in (np.minimum(ax, bx), np.maximum(ax, bx),
                                           np.minimum(ay, by), np.maximum(ay, by)))
    x0, y0, x1, y1 = (v[:, None] for v in rects)
    return ((lx < x1) & (hx > x0) & (ly < y1) & (hy > y0)).sum(axis=1)


def cable_coloured(view, rects: np.ndarray) -> np.ndarray:
    """Per rectangle, its pixels of the grabbed viewport that are strongly coloured (a cable's pen:
    names are grey on the background; a cable under a plate keeps 15 % of its colour)."""
    img = view.viewport().grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    w, h = img.width(), img.height()
    a = np.frombuffer(img.constBits(), np.uint8, count=img.sizeInBytes()).reshape(h, img.bytesPerLine() // 4, 4)
    rgb = a[:, :w, :3].astype(np.int64)
    chroma = rgb.max(axis=2) - rgb.min(axis=2)
    out = []
    for x0, y0, x1, y1 in rects.T.tolist():
        out.append(int((chroma[max(0, round(y0)):round(y1), max(0, round(x0)):round(x1)] > 60).sum()))
    return np.array(out)


@pytest.mark.parametrize("name, design, spines, crossed, crossed_all", [
    # leaf-spine: the 8 leaves, and the 24 upper-row server names now shown in the gap between a
    # leaf's two server rows, which the lower row's cables cross on their way up to the leaf
    ("leaf-spine-8x4x16", lambda: leaf_spine(8, 4, 16), 4, 8, 32),
    ("nvl72-8-racks", lambda: nvl72(racks=8, system="gb200"), 9, 32, 32),
])
def test_no_cable_line_through_a_shown_name(qtbot, name, design, spines, crossed, crossed_all):
    f = design()
    view, scene = canvas(qtbot, f)
    assert scene.semantic.level == NEAR
    layer = scene.label_layer
    devices, rects = glyph_rects(view, scene)
    seg = drawn_cables(scene)
    through = crossed_by(seg, view, rects)
    # the spines' names sit above their boxes, where no cable is drawn
    top = [i for i, d in enumerate(devices) if f.name_of(d).startswith("spine")]
    assert len(top) == spines
    for i in top:
        box = scene.items_by_id[devices[i]].sceneBoundingRect()
        assert rects[3, i] <= view.mapFromScene(box.topLeft()).y()
        assert through[i] == 0, f.name_of(devices[i])
    # the names cables do cross (NVL72: the rail leaves, cables to both sides) are on plates drawn
    # above every line
    sw = set(np.flatnonzero(switch_mask(f)).tolist())
    assert sum(1 for i, d in enumerate(devices) if through[i] and d in sw) == crossed
    assert int((through > 0).sum()) == crossed_all
    assert layer.zValue() > max(it.zValue() for it in scene.cables.items.values())
    assert PLATE_ALPHA >= 0.85 * 255
    coloured = cable_coloured(view, rects)
    assert coloured.sum() == 0, [(f.name_of(d), int(c)) for d, c in zip(devices, coloured, strict=True) if c]


def test_a_name_goes_above_only_where_every_cable_leaves_from_the_bottom():
    f = leaf_spine(8, 4, 16)
    tops = np.flatnonzero(f.devices_t.alive & (f.devices_t.parent < 0))
    up = {f.name_of(d) for d in tops[name_above(f, tops)].tolist()}
    assert up == {"spine01", "spine02", "spine03", "spine04"}       # not the leaves (cables both ways), no server
    assert len(tops) == 8 + 4 + 128


def test_a_pinned_spine_name_stays_above_its_box(qtbot):
    f = leaf_spine(8, 4, 16)
    view, scene = canvas(qtbot, f)
    layer = scene.label_layer
    spine = next(d for d in range(len(f)) if f.devices_t.exists(d) and f.name_of(d) == "spine02")
    before = {d: r for d, _, r in layer.in_view(view)}[spine]
    want = view.viewportTransform().mapRect(layer.label_rect(spine, view.scale_factor()))
    assert abs(want.top() - before.top()) < 1.0 and abs(want.left() - before.left()) < 1.0
    layer.pin(spine, True)
    pinned = {d: r for d, _, r in layer.in_view(view)}[spine]
    assert (pinned.left(), pinned.top()) == (before.left(), before.top())
    box = view.mapFromScene(scene.items_by_id[spine].sceneBoundingRect().topLeft())
    assert pinned.bottom() <= box.y()


def test_a_name_whose_spot_above_is_taken_goes_under_its_box(qtbot):
    """A 2-level DGX tree of radix 64 at fit (middle level): 32 spines in a row, ~27 px apart. Above
    its box every other name's spot is taken by its neighbour's (spine09's by the row's title "32
    spines"); such a name goes under its box, on its plate, once every name had its first spot: 31 of
    the 32 names show (16 before: all under the boxes, every other one gave way)."""
    f = fat_tree(levels=2, radix=64, servers="dgx")
    view, scene = canvas(qtbot, f)
    shown = {f.name_of(d): r for d, _, r in scene.label_layer.in_view(view) if d >= 0}
    spines = sorted(n for n in shown if n.startswith("spine"))
    assert spines == [f"spine{k:02d}" for k in range(1, 33) if k != 9]
    box = {n: scene.items_by_id[f.find(n)].sceneBoundingRect() for n in spines}
    t = view.viewportTransform()
    above = [n for n in spines if shown[n].bottom() <= t.map(box[n].topLeft()).y()]
    under = [n for n in spines if shown[n].top() >= t.map(box[n].bottomLeft()).y()]
    assert above == [f"spine{k:02d}" for k in range(1, 33, 2) if k != 9]
    assert under == [f"spine{k:02d}" for k in range(2, 33, 2)]


@pytest.mark.parametrize("name, design, zoom", [
    ("k16-3-level", lambda: fat_tree(levels=3, radix=16), 0.5),
    ("dgx-2-level-r64", lambda: fat_tree(levels=2, radix=64, servers="dgx"), None),
])
def test_no_bundle_line_through_a_middle_level_label(qtbot, name, design, zoom):
    """The middle level (bundles, rail and group titles, "×n" counts): no shown label's text has a
    line's colour in it either (before the plates: 1,993 such pixels on k=16 at 50 %, 2,829 on the
    DGX tree at fit)."""
    f = design()
    view, scene = canvas(qtbot, f)
    if zoom is not None:
        zoom_to(view, zoom)
    assert scene.semantic.level != NEAR
    shown = scene.label_layer.in_view(view)
    rects = np.array([[q.left() + PAD_PX, q.top() + PAD_PX, q.right() - PAD_PX, q.bottom() - PAD_PX]
                      for _, _, q in shown]).T
    assert len(shown) > 100
    assert crossed_by(scene.semantic.bundle_segments, view, rects).sum() > 0     # lines do run through some
    coloured = cable_coloured(view, rects)
    assert coloured.sum() == 0, [(t, int(c)) for (_, t, _), c in zip(shown, coloured, strict=True) if c]
