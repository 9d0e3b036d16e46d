"""The real NDR DGX SuperPOD discovery (NVIDIA/topograph) on a 1920×1080 canvas (issue 26): at fit
and zoomed in, it reads as its scalable units, rails and spines — no name drawn on another, no line
drawn across a switch or host block it does not end at, SHARP aggregation nodes inside their
switches without names of their own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.generate.geometry import device_rects
from fabricviz.ib.sharp import sharp_mask
from fabricviz.loaders import load_any
from fabricviz.ui.canvas.items.bundles import node_groups
from fabricviz.ui.canvas.items.semantic import MIDDLE
from tests.ui.canvas.test_semantic_zoom import open_canvas, through_boxes

pytestmark = pytest.mark.gui

REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "topograph_superpod_ndr.ibnetdiscover"


@pytest.fixture(scope="module")
def fabric():
    return load_any(REAL)


@pytest.fixture()
def canvas(qtbot, fabric):
    return open_canvas(qtbot, fabric)       # (view, scene, semantic layer), fitted on 1920×1080


def label_overlaps(shown) -> list[tuple[str, str]]:
    e = np.array([[r.left(), r.top(), r.right(), r.bottom()] for *_, r in shown]).reshape(-1, 4)
    ov = ((e[:, None, 0] < e[None, :, 2]) & (e[None, :, 0] < e[:, None, 2])
          & (e[:, None, 1] < e[None, :, 3]) & (e[None, :, 1] < e[:, None, 3]))
    i, j = np.nonzero(np.triu(ov, 1))
    return [(shown[a][1], shown[b][1]) for a, b in zip(i.tolist(), j.tolist(), strict=True)]


def lines_through_nodes(sem) -> list[tuple[int, int]]:
    """(segment, node) where a drawn line passes inside the rectangle of a switch, host block or
    group other than its two ends and the groups they are in (:func:`through_boxes`; a line
    inside a group lies in its box)."""
    b, g = sem.bundles, sem.grouping
    seg, owner = sem.bundle_segments, sem.segment_bundle
    nodes = np.unique(np.concatenate([b.a, b.b]))
    at = {int(v): i for i, v in enumerate(nodes.tolist())}
    own_a = np.array([at[int(v)] for v in b.a[owner]], np.int64)
    own_b = np.array([at[int(v)] for v in b.b[owner]], np.int64)
    ga, gb = node_groups(g, b.a[owner]), node_groups(g, b.b[owner])
    return [(j, i) for j, i in through_boxes(seg, own_a, own_b, sem._node_rects(nodes))
            if int(nodes[i]) not in (int(ga[j]), int(gb[j]))]


def test_fitted_and_zoomed_it_reads_as_units_rails_and_spines(canvas, fabric):
    view, scene, sem = canvas
    assert round(view.scale_factor(), 3) == 0.664
    g = sem.grouping
    assert g.names == tuple(f"su{i}" for i in range(1, 9)) + ("9 spines",)
    for zoom in (None, 0.6, 0.8):                               # fit is 66 %; 100 % is near
        if zoom is not None:
            view.zoom_by(zoom / view.scale_factor())
            QtWidgets.QApplication.processEvents()
        assert sem.level == MIDDLE, view.scale_factor()         # switches, host blocks, "×n" lines
        shown = scene.label_layer.in_view(view)
        texts = [s[1] for s in shown]
        assert label_overlaps(shown) == []
        assert not any("Aggregation Node" in s for s in texts)  # part of their switches
        assert lines_through_nodes(sem) == []
        if zoom is None:
            assert {f"su{i}" for i in range(1, 9)} | {"9 spines"} <= set(texts)
            assert len(sem.bundles) > 0


def test_units_in_a_grid_rail_leaves_in_a_row_spines_above(fabric):
    t = fabric.devices_t
    units = [g.switches for g in fabric.settings.groups]
    ys = {name: float(t.y[fabric.find(name)]) for u in units for name in u}
    spines = [d for d in fabric.device_ids("ib_switch").tolist() if "SPINE" in fabric.name_of(d)]
    assert len(spines) == 9 and max(t.y[spines]) < min(ys.values())
    for u in units:
        xs = [float(t.x[fabric.find(n)]) for n in u]
        assert len({ys[n] for n in u}) == 1 and xs == sorted(xs)        # one row, rail 0 first
    # the host blocks of a unit never overlap (each its own rectangle under the leaves)
    tops = np.flatnonzero(t.alive & (t.parent < 0) & ~sharp_mask(fabric))
    r = device_rects(fabric, tops)
    ov = ((r[0][:, None] < r[2][None, :]) & (r[0][None, :] < r[2][:, None])
          & (r[1][:, None] < r[3][None, :]) & (r[1][None, :] < r[3][:, None]))
    np.fill_diagonal(ov, False)
    assert not ov.any()
    # each SHARP aggregation node inside its switch's frame
    an = np.flatnonzero(sharp_mask(fabric))
    sw = np.array([fabric.port(int(t.first_port[d])).peer.device.id for d in an])
    ra, rs = device_rects(fabric, an), device_rects(fabric, sw)
    assert (ra[0] >= rs[0]).all() and (ra[2] <= rs[2]).all() and (ra[1] >= rs[1]).all() and (ra[3] <= rs[3]).all()


def diagonal_segments(seg: np.ndarray) -> int:
    return int(((np.abs(seg[0] - seg[2]) > 1e-6) & (np.abs(seg[1] - seg[3]) > 1e-6)).sum())


def test_every_line_at_right_angles_at_fit_and_zoomed(canvas):
    """One style per level: no line left straight across the picture (the spine-to-su3..8 leaf
    lines whose Z met another unit's box ran as ~10 diagonals through the middle)."""
    view, scene, sem = canvas
    for zoom in (None, 0.6, 0.8, 1.0):
        if zoom is not None:
            view.zoom_by(zoom / view.scale_factor())
            QtWidgets.QApplication.processEvents()
        sem.refresh()
        if sem.level == MIDDLE:
            seg, b, g = sem.bundle_segments, sem.bundles, sem.grouping
            # between the units and the spines one bundle per unit (issue 29: not 577 single cables)
            boxed = np.flatnonzero(b.a < g.n_groups)
            assert [(g.names[int(b.a[k])], g.names[int(b.b[k])], int(b.count[k])) for k in boxed] == [
                (f"su{u}", "9 spines", n) for u, n in enumerate((53, 66, 67, 68, 70, 70, 67, 71), 1)]
            assert seg.shape[1] > 100 and diagonal_segments(seg) == 0, view.scale_factor()
            assert sem.routes.routed[b.a >= g.n_groups].all()      # bundles straight up: vertical
            assert lines_through_nodes(sem) == []
        else:                                                   # near: every cable as itself
            assert diagonal_segments(scene.cables.segs) == 0 and scene.cables.segs.shape[1] == 5 * 1114
        assert label_overlaps(scene.label_layer.in_view(view)) == []


def test_middle_names_rails_and_spines_by_short_names(canvas, fabric):
    """At fit every rail leaf is named by its unit and rail, as the rail generator names its
    leaves (su1-rail0), and the spines by the host names of their UFM descriptions; near, every
    switch is named by its own name again."""
    view, scene, sem = canvas
    texts = {t for _, t, _ in scene.label_layer.in_view(view)}
    rails = {t for t in texts if "-rail" in t}
    # su1 has no rail-2 leaf (its leaves are on rails 0, 1 and 3), every other unit has four
    assert rails == {f"su{u}-rail{r}" for u in range(1, 9) for r in range(4)} - {"su1-rail2"}
    spines = {t for t in texts if "IBSPINE" in t}
    assert spines == {"A10-P1-IBSPINE-01", "A10-P1-IBSPINE-02", "A10-P1-IBSPINE-03", "A10-P1-IBSPINE-04",
                      "B10-P1-IBSPINE-05", "B10-P1-IBSPINE-06", "B10-P1-IBSPINE-07", "B10-P1-IBSPINE-08",
                      "B10-P1-IBSPINE-09"}
    assert not any(t.startswith("MF0;") for t in texts)
    view.zoom_by(1.0 / view.scale_factor())
    QtWidgets.QApplication.processEvents()
    sem.refresh()
    near = {t for _, t, _ in scene.label_layer.in_view(view)}
    # (its own name, as wide as its box allows: a UFM description by its host name, test_label_room.py)
    assert any(t.startswith("A09-P1-IBLEAF-") for t in near) and not any("-rail" in t for t in near)


def test_unit_hosts_read_as_servers_ufm_and_unnamed_adapters(canvas):
    """Each unit's DGX servers are one block; the one-NIC adapters that never set a name are one
    more block per unit (not one per leaf), UFM and its standby one labelled block."""
    view, scene, sem = canvas
    g = sem.grouping
    blocks = sorted((g.names[int(g.block_group[b])], g.block_kinds[b], int(g.block_hosts[b]))
                    for b in range(g.n_blocks))
    assert blocks == [("su1", "hosts", 11), ("su1", "unnamed", 21), ("su2", "hosts", 11), ("su2", "unnamed", 20),
                      ("su3", "hosts", 18), ("su4", "hosts", 17), ("su5", "hosts", 18), ("su6", "hosts", 15),
                      ("su6", "unnamed", 12), ("su7", "hosts", 16), ("su7", "unnamed", 4),
                      ("su8", "hosts", 14), ("su8", "management", 2), ("su8", "unnamed", 12)]
    texts = {t for _, t, _ in scene.label_layer.in_view(view)}
    # (a label wider than its block goes on two lines where the block is high enough)
    assert {"11 hosts", "21 unnamed", "20 unnamed", "12 unnamed", "adapters", "4 unnamed adapters", "UFM · 2 hosts",
            "14 hosts"} <= texts


def block_labels_outside_their_box(view, sem) -> tuple[list[str], list[str]]:
    """(block labels drawn, those whose rect is not inside their group's box) as the view shows them; a
    label (or a line of one on two lines) is its block's of that text whose rectangle is nearest."""
    from fabricviz.ui.canvas.items.box_labels import _hosts_text, two_rows
    g, geom = sem.grouping, sem.geometry()
    box, blk = geom["box"], geom["blk"]
    layer = view.fscene.label_layer
    texts = [{_hosts_text(g, b), *two_rows(_hosts_text(g, b), layer)} for b in range(g.n_blocks)]
    seen, out = [], []
    for _, text, r in layer.in_view(view):
        mine = [b for b in range(g.n_blocks) if text in texts[b]]
        if not mine:
            continue
        seen.append(text)
        c = view.mapToScene(r.center().toPoint())
        near = min(mine, key=lambda b: max(blk[0, b] - c.x(), c.x() - blk[2, b], 0.0)
                   + max(blk[1, b] - c.y(), c.y() - blk[3, b], 0.0))
        k = box[:, int(g.block_group[near])]
        lo, hi = view.mapFromScene(QtCore.QPointF(k[0], k[1])), view.mapFromScene(QtCore.QPointF(k[2], k[3]))
        if not (lo.x() <= r.left() and r.right() <= hi.x() and lo.y() <= r.top() and r.bottom() <= hi.y()):
            out.append(f"{text} ({g.names[int(g.block_group[near])]})")
    return sorted(seen), out


@pytest.mark.parametrize("size", [(1920, 1080), (1300, 960)], ids=["canvas", "window"])
def test_every_block_label_lies_inside_its_units_box(qtbot, fabric, size):
    """An unnamed-adapter block at its unit's right edge is narrower than its "21 unnamed adapters": the
    label goes on two lines, or moves into the unit's box, instead of sticking out of it (the guilook
    review of issue 27; at the main window's fit, 51 %, and a 1920×1080 canvas's, 66 %)."""
    view, scene, sem = open_canvas(qtbot, fabric)
    view.resize(*size)
    view.fit_all()
    QtWidgets.QApplication.processEvents()
    assert sem.level == MIDDLE
    seen, outside = block_labels_outside_their_box(view, sem)
    # every block's label shows, the unnamed adapters' on two lines (their block is narrower than the
    # label and high enough), su7's 4 adapters' and the UFM's on one (their blocks are lower than two)
    assert seen == sorted(["11 hosts", "11 hosts", "14 hosts", "15 hosts", "16 hosts", "17 hosts", "18 hosts",
                           "18 hosts", "4 unnamed adapters", "UFM · 2 hosts", "12 unnamed", "12 unnamed",
                           "20 unnamed", "21 unnamed", "adapters", "adapters", "adapters", "adapters"])
    assert outside == []
    shown = scene.label_layer.in_view(view)
    assert label_overlaps(shown) == []
    # and no switch's name gives way to them: all 31 rail leaves are named (su1 has no rail 2)
    assert len({t for _, t, _ in shown if "-rail" in t}) == 31
