"""Room for names on the canvas (issue 29, the second look): every case here was seen on a
1920×1080 screen (the main window's canvas is about 1300×960) and failed before its fix.

* GB200 NVL72 racks (``generate nvl72 --racks 8 --system gb200``) at fit (47 %) and 50 %: the rail
  leaves' names (su1-rail0 …) sat on the rack's frame (0.2 px apart) with the leaves' lanes through
  them; the racks' trays now hang lower under their leaves (``autolayout.RACK_DROP``).
* k=32 3-level fat tree at 35 % (middle): a pod's name sat on its box's top edge, on the spine row.
* the 98,304-GPU Clos (bench/scale.py's) at 10 %: each leaf's "×64" beside its line lay on the next
  leaf of the row, so the row read "▬×64▬×64▬×64"; a "×n" now lies on no switch, or is left out.
* the real DGX SuperPOD (NDR ibnetdiscover dump) at fit, 60 % and 100 %: "MF0;A09-P1-IBLEAF-01-02:
  MQM9701/U1" and "MT4129 ConnectX7 Mellanox Technologies 0x…" ran over their neighbours (whose
  names then gave way); a name now fits its room in its row (``name_room``).
* leaf-spine 8 × 4 × 16 at fit (80 %) and a 2-level DGX tree: the upper row of a leaf's servers had
  its names on the lower row's frames (12 units between the rows), and the first of two rows of
  spines its names on the second row's boxes, each reading as the other device's name: a name now
  gives way where it would lie on another device.
* k=16 at 50 % (middle): every leaf's name gave way to its "×8" (which its block's "8 hosts" says
  too); a count now gives way to a switch's name.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import fat_tree, k_ary_fat_tree, leaf_spine
from fabricviz.generate.geometry import device_rects
from fabricviz.generate.nvl72 import nvl72
from fabricviz.ib.tiers import switch_mask
from fabricviz.loaders import load_any
from fabricviz.ui.canvas.items.bundles import Label, place_labels
from fabricviz.ui.canvas.items.cables import routes_for
from fabricviz.ui.canvas.items.name_room import NAME_MIN_PX, row_room
from tests.ui.canvas.test_semantic_zoom import open_canvas, zoom_to

pytestmark = pytest.mark.gui
REAL = Path(__file__).resolve().parents[2] / "data" / "samples" / "topograph_superpod_ndr.ibnetdiscover"


def canvas(qtbot, f):
    """(view, scene) of ``f`` on the main window's canvas at 1920×1080, fitted."""
    view, scene, _ = open_canvas(qtbot, f)
    view.resize(1300, 960)
    QtWidgets.QApplication.processEvents()
    view.fit_all()
    QtWidgets.QApplication.processEvents()
    return view, scene


@pytest.mark.parametrize("zoom", [None, 0.5])
def test_nvl72_leaf_names_clear_of_the_rack_frames_and_lanes(qtbot, zoom):
    f = nvl72(racks=8, system="gb200")
    view, scene = canvas(qtbot, f)
    if zoom is not None:
        zoom_to(view, zoom)
    s, layer = view.scale_factor(), scene.label_layer
    assert 0.45 < s <= 0.5
    leaves = [d for d in np.flatnonzero(switch_mask(f)).tolist() if "-rail" in f.name_of(d)]
    frames = [b.sceneBoundingRect() for b in scene.nvlink.blocks.values()]
    assert len(leaves) == 32 and len(frames) == 8
    seg = routes_for(f).seg
    flat = np.isclose(seg[1], seg[3]) & ~np.isclose(seg[0], seg[2])          # the lanes
    for d in leaves:
        r = layer.label_rect(d, s)
        under = [b.top() for b in frames if b.left() < r.right() and r.left() < b.right() and b.top() > r.top()]
        assert under and (min(under) - r.bottom()) * s >= 20.0          # pixels between name and frame
        on = flat & (seg[1] > r.top()) & (seg[1] < r.bottom()) \
            & (np.maximum(seg[0], seg[2]) > r.left()) & (np.minimum(seg[0], seg[2]) < r.right())
        assert not on.any()


def _extra_rects(layer, scale, want):
    """[4, n] scene rectangles of the extra labels whose text ``want(text)`` accepts (text, not halo)."""
    xs, ys, texts, _ = layer._extra
    k = [i for i, t in enumerate(texts) if want(t)]
    w = np.array([layer._width(texts[i]) for i in k]) / 2 - 2.0
    h = (layer._height / 2 - 2.0)
    return np.vstack([xs[k] - w / scale, ys[k] - h / scale, xs[k] + w / scale, ys[k] + h / scale])


def test_k32_pod_names_at_middle_sit_above_their_boxes_clear_of_the_spines(qtbot):
    f = k_ary_fat_tree(32)
    view, scene = canvas(qtbot, f)
    zoom_to(view, 0.35)
    sem, layer = scene.semantic, scene.label_layer
    assert sem.level == "middle"
    g = sem.grouping
    pods = [i for i, n in enumerate(g.names) if n.startswith("pod ")]
    assert len(pods) == 32
    lab = _extra_rects(layer, 0.35, lambda t: t.startswith("pod ") and "\n" not in t)
    assert lab.shape[1] == 32
    box = np.array([[r.left(), r.top(), r.right()] for r in map(sem.queries.group_rect, pods)]).T
    cx = (lab[0] + lab[2]) / 2
    mine = (box[0][:, None] < cx) & (cx < box[2][:, None]) & (box[1][:, None] >= lab[3])   # boxes under each
    gap_px = (np.where(mine, box[1][:, None], np.inf).min(axis=0) - lab[3]) * 0.35
    assert ((gap_px >= 0) & (gap_px < 20)).all()          # just above its box
    ids = f.device_ids()
    dev = device_rects(f, ids[f.devices_t.parent[ids] < 0])
    meet = (dev[0][:, None] < lab[2]) & (dev[2][:, None] > lab[0]) & (dev[1][:, None] < lab[3]) & (dev[3][:, None] > lab[1])
    assert not meet.any()


class _Layer:
    _height = 16.0

    @staticmethod
    def _width(text: str) -> float:
        return 8.0 * len(text)


def test_a_count_beside_its_line_keeps_off_switches():
    # a line comes down from a leaf (0..20 × 0..20) into a block whose top is at y = 30 (scale 1);
    # beside the line the "×64" (24 px wide) would lie on the next leaf at x 24..44
    lab = Label(10.0, 30.0, "×64", 1, 0.0, -1.0, np.inf, True)
    leaves = np.array([[0.0, 24.0], [0.0, 0.0], [20.0, 44.0], [20.0, 20.0]])
    xs, ys, _, _ = place_labels([lab], 1.0, _Layer())
    assert (xs[0], ys[0]) == (26.0, 21.0)                            # on the next leaf
    xs, ys, _, _ = place_labels([lab], 1.0, _Layer(), None, None, leaves)
    assert (xs[0], ys[0]) == (26.0, 39.0)                            # just inside the block
    wide = np.array([[0.0, 24.0, -100.0], [0.0, 0.0, 30.0], [20.0, 44.0, 100.0], [20.0, 20.0, 60.0]])
    assert len(place_labels([lab], 1.0, _Layer(), None, None, wide)[2]) == 0     # no room: left out


@pytest.mark.slow
def test_98k_clos_counts_at_12_percent_lie_on_no_switch(qtbot):
    """At 12 % a host block is narrower than its "64 hosts": the label goes on two lines inside the
    block ("64" / "hosts"), and the bundles' "×64" counts, which say the same, give way to it; no
    label drawn lies on a switch."""
    f = fat_tree(levels=3, radix=128, hosts=98304, fabric="roce", switch="SN5600")
    view, scene = canvas(qtbot, f)
    zoom_to(view, 0.12)
    sem, layer = scene.semantic, scene.label_layer
    assert sem.level == "middle"
    sw = sem.geometry()["sw_rects"]
    texts = [t for _, t, _ in layer.in_view(view)]
    assert min(texts.count("64"), texts.count("hosts")) > 100 and "64 hosts" not in texts   # (some cut at the view edge)
    shown = [r for _, t, r in layer.in_view(view) if t in ("×64", "64", "hosts")]
    for r in shown:
        q = view.mapToScene(r.adjusted(1, 1, -1, -1).toRect()).boundingRect()      # the text and 1 px
        assert not ((sw[0] < q.right()) & (sw[2] > q.left()) & (sw[1] < q.bottom()) & (sw[3] > q.top())).any()


@pytest.mark.parametrize("zoom", [None, 0.6, 1.0])
def test_real_superpod_names_fit_their_devices(qtbot, zoom):
    f = load_any(REAL)
    view, scene = canvas(qtbot, f)
    if zoom is not None:
        zoom_to(view, zoom)
        leaf = f.find("MF0;A09-P1-IBLEAF-01-02:MQM9701/U1")
        view.centerOn(float(f.devices_t.x[leaf]) + 200.0, float(f.devices_t.y[leaf]) + 100.0)
        QtWidgets.QApplication.processEvents()
    s = view.scale_factor()
    shown = [(d, t, r) for d, t, r in scene.label_layer.in_view(view) if d >= 0 and f.devices_t.parent[d] < 0]
    assert len(shown) >= 10
    tops = f.device_ids()
    tops = tops[f.devices_t.parent[tops] < 0]
    room = dict(zip(tops.tolist(), np.maximum(row_room(device_rects(f, tops)) * s - 2.0, NAME_MIN_PX).tolist(),
                    strict=True))
    assert all(r.width() <= room[d] + 0.5 for d, _, r in shown)
    texts = {f.name_of(d): t for d, t, _ in shown}
    if zoom == 1.0:        # a leaf by its UFM description's host name, an adapter elided in the middle
        assert texts["MF0;A09-P1-IBLEAF-01-02:MQM9701/U1"] == "A09-P1-IBLEAF-01-02"
        hca = [n for n in texts if n.startswith("MT4129 ConnectX7")]
        assert hca and all(texts[n].startswith("MT412") and "…" in texts[n] and texts[n][-4:] == n[-4:] for n in hca), [texts[n] for n in hca]


@pytest.mark.parametrize("which", ["leaf-spine", "dgx"])
def test_names_lie_on_no_other_device(qtbot, which):
    f = leaf_spine(leaves=8, spines=4, hosts_per_leaf=16) if which == "leaf-spine" else \
        fat_tree(levels=2, radix=64, servers="dgx", hosts=256)
    view, scene = canvas(qtbot, f)
    tops = f.device_ids()
    tops = tops[f.devices_t.parent[tops] < 0]
    r = device_rects(f, tops)
    shown = [(d, q) for d, _, q in scene.label_layer.in_view(view) if d >= 0]
    assert len(shown) >= 30
    on = []
    for d, q in shown:
        s = view.mapToScene(q.adjusted(2, 2, -2, -2).toRect()).boundingRect()      # the text, not its halo
        hit = (r[0] < s.right()) & (r[2] > s.left()) & (r[1] < s.bottom()) & (r[3] > s.top()) & (tops != d)
        on += [(f.name_of(d), f.name_of(int(e))) for e in tops[hit]]
    assert on == []


def test_k16_middle_leaf_names_win_over_their_counts(qtbot):
    f = k_ary_fat_tree(16)
    view, scene = canvas(qtbot, f)
    zoom_to(view, 0.5)
    assert scene.semantic.level == "middle"
    vp = view.viewport().rect()
    leaves = [d for d in np.flatnonzero(switch_mask(f)).tolist() if f.name_of(d).startswith("leaf")
              and vp.contains(view.mapFromScene(float(f.devices_t.x[d]), float(f.devices_t.y[d]) + 60.0))]
    shown = {d for d, _, _ in scene.label_layer.in_view(view)}
    assert len(leaves) >= 16 and set(leaves) <= shown
