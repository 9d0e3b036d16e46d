"""The real NDR DGX SuperPOD discovery (NVIDIA/topograph) on a 1920×1080 canvas (issue 26): at fit
and zoomed in, it reads as its scalable units, rails and spines — no name drawn on another, no line
drawn across a switch or host block it does not end at, SHARP aggregation nodes inside their
switches without names of their own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate.geometry import device_rects
from fabricviz.ib.sharp import sharp_mask
from fabricviz.loaders import load_any
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
    group other than its two ends (:func:`through_boxes`)."""
    b = sem.bundles
    seg, owner = sem.bundle_segments, sem.segment_bundle
    nodes = np.unique(np.concatenate([b.a, b.b]))
    at = {int(v): i for i, v in enumerate(nodes.tolist())}
    own_a = np.array([at[int(v)] for v in b.a[owner]], np.int64)
    own_b = np.array([at[int(v)] for v in b.b[owner]], np.int64)
    return through_boxes(seg, own_a, own_b, sem._node_rects(nodes))


def test_fitted_and_zoomed_it_reads_as_units_rails_and_spines(canvas, fabric):
    view, scene, sem = canvas
    fit = view.scale_factor()
    g = sem.grouping
    assert g.names == tuple(f"su{i}" for i in range(1, 9)) + ("9 spines",)
    for zoom in (None, 0.8, fit * 1.5):
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
