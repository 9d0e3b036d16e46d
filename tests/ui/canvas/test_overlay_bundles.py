"""Overlays through semantic zoom: zoomed out to "far" the heatmap, the PFC pause marks, the sweep's
discovery, port loads and a traced path are drawn on the bundles; back at near, per cable as before.

Design: a 3-level radix-8 fat tree (8 pods, 16 cores, 384 cables) in a 1920×1080 window zoomed
out to far, where each pod box joins the cores' box by one bundle of 16 cables. Expected colours
come from the engine's own frames (``run_traffic`` with the dock's arguments) through the scale's
definition (16 equal bins of [0, 1]); a bundle's expected value is the max (or the mean) of its
members' hotter directions; the drawn colour is the pen of the line item drawing the bundle.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate import k_ary_fat_tree
from fabricviz.model.fabric import KIND_CODE, SERVER
from fabricviz.sim.run import run_traffic
from fabricviz.ui.canvas.items.cables import cable_anchors
from fabricviz.ui.canvas.overlays.bundled import REDUCE_SETTING, colours_of
from fabricviz.ui.canvas.overlays.loads import COLORS as LOAD_COLORS
from fabricviz.ui.canvas.overlays.loads import level_of
from fabricviz.ui.canvas.overlays.sweep import DISCOVERY_STEPS, TRACE_COLOR
from fabricviz.ui.canvas.overlays.traffic import COLORS, PAUSED_COLOR, ColorScale
from tests.ui.zoom_helpers import far_view

WAIT = 60_000                # a generous deadline: only a hang waits this long
UTIL = ColorScale("utilisation", 0.0, 1.0)
#: The Traffic dock's run: 16 hosts into one over 0.5 ms of the fluid model (PFC pauses spread
#: from the receiver's leaf up into the pod ↔ core bundles from frame 3 on).
RUN = dict(workload="incast", arg="16", model="fluid", duration="0.5ms", seed=0)


@pytest.fixture
def far(make_window):
    """(window, fabric, semantic layer): radix-8 fat tree at 1920×1080 zoomed out to far."""
    w = make_window()
    f = k_ary_fat_tree(8)
    sem = far_view(w, f)
    assert sem.level == "far" and len(sem.bundles) == 8
    assert sem.bundles.count.tolist() == [16] * 8
    return w, f, sem


def action(w, name):
    return w.findChild(QtGui.QAction, name)


def segments(path: QtGui.QPainterPath) -> np.ndarray:
    """[n, 4] segments of a path of disjoint pairs."""
    pts = np.array([(path.elementAt(i).x, path.elementAt(i).y) for i in range(path.elementCount())])
    return pts.reshape(-1, 4) if len(pts) else np.zeros((0, 4))


def same_segments(seg: np.ndarray, ends: np.ndarray) -> bool:
    """``seg`` ([n, 4]) and ``ends`` ([4, m]) hold the same segments (either way round)."""
    want = {tuple(np.round(e, 3)) for e in ends.T}
    got = {tuple(np.round(s, 3)) for s in seg}
    flip = {(e[2], e[3], e[0], e[1]) for e in want}
    return len(seg) == ends.shape[1] and all(s in want or s in flip for s in got)


def drawn_rgba(sem) -> np.ndarray:
    """Per bundle: the colour (QRgb) of the line item that draws it (every segment of it: the
    second row of pods' bundles run round the first row's boxes)."""
    e, owner = sem.bundle_segments, sem.segment_bundle
    out = np.zeros(len(sem.bundles), np.int64)
    found = np.zeros(e.shape[1], int)
    for item in sem.draw.lines.values():
        if not item.isVisible():
            continue
        for s in segments(item.path()):
            d = np.abs(e - s[:, None]).max(axis=0)
            for j in np.flatnonzero(d < 1e-6):
                assert out[owner[j]] in (0, item.pen().color().rgba())      # one colour along it
                out[owner[j]] = item.pen().color().rgba()
                found[j] += 1
    assert found.tolist() == [1] * e.shape[1]          # every segment of every bundle drawn, once
    return out


def run_in_dock(qtbot, w):
    dock = w.traffic_dock
    dock.configure(**RUN)
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    assert dock.error is None
    return dock


def member_values(f, sem, frame) -> list[np.ndarray]:
    u = frame.link_util
    return [np.maximum(u[2 * m], u[2 * m + 1]) for m in (sem.bundles.members(k) for k in range(len(sem.bundles)))]


def test_heatmap_bundles_take_the_hottest_or_the_mean_colour_and_paused_members_mark_them(far, qtbot):
    w, f, sem = far
    dock = run_in_dock(qtbot, w)
    ref = run_traffic(f, "incast:16", "fluid", None, "minhop", 0.5e-3, 0)
    assert len(dock.result.frames) == len(ref.frames)
    ov = w.traffic_view.overlay
    assert action(w, "action_bundle_max").isChecked() and not action(w, "action_bundle_mean").isChecked()
    dock.player.set_frame(5)
    fr = ref.frames[5]
    np.testing.assert_array_equal(dock.current_frame().link_util, fr.link_util)
    vals = member_values(f, sem, fr)
    hottest = np.array([v.max() for v in vals])
    mean = np.array([v.mean() for v in vals])
    want = [COLORS[b].rgba() for b in UTIL.buckets(hottest)]
    assert drawn_rgba(sem).tolist() == want
    assert [dock.legend.color_for(v).rgba() for v in hottest] == want        # the legend agrees
    assert len(set(want)) >= 2                                # hot and cool bundles on this frame
    # no per-cable heat is drawn at far: every cable is in a box or a bundle
    assert len(ov.run_cables) == 384 and len(ov.cables) == 0 and ov.drawn_count() == 0
    # paused: exactly the bundles with a paused member carry the red dashes, over their lines
    p = fr.link_paused
    paused_cables = np.flatnonzero(p[0:2 * 384:2] | p[1:2 * 384:2])
    want_paused = [k for k in range(8) if np.isin(sem.bundles.members(k), paused_cables).any()]
    assert 1 <= len(want_paused) < 8
    assert ov.paused_bundles.tolist() == want_paused
    marks = ov.marks
    assert marks.isVisible() and marks.zValue() > max(it.zValue() for it in sem.draw.lines.values())
    w.view.viewport().repaint()
    assert [k for k in range(8) if marks.shows("paused", k)] == want_paused
    # on screen: red dashes along exactly the paused bundles' lines
    img = w.view.viewport().grab().toImage()
    for k in range(8):
        pts = [w.view.mapFromScene(QtCore.QPointF(ax + t * (bx - ax), ay + t * (by - ay)))
               for ax, ay, bx, by in sem.bundle_segments[:, sem.segment_bundle == k].T
               for t in np.linspace(0.1, 0.9, 41)]
        seen = {QtGui.QColor(img.pixel(p)).name() for p in pts if img.rect().contains(p)}
        assert (PAUSED_COLOR in seen) == (k in want_paused), (k, seen)

    # View ▸ Bundle Colour ▸ Mean: the mean's colour, kept in the settings
    action(w, "action_bundle_mean").trigger()
    assert sem.reduce_how == "mean" and w.settings.value(REDUCE_SETTING) == "mean"
    assert not action(w, "action_bundle_max").isChecked()
    want_mean = [COLORS[b].rgba() for b in UTIL.buckets(mean)]
    assert drawn_rgba(sem).tolist() == want_mean != want
    # the next frame keeps the choice
    dock.player.set_frame(6)
    vals6 = member_values(f, sem, ref.frames[6])
    assert drawn_rgba(sem).tolist() == [COLORS[b].rgba() for b in UTIL.buckets([v.mean() for v in vals6])]
    action(w, "action_bundle_max").trigger()
    assert sem.reduce_how == "max" and w.settings.value(REDUCE_SETTING) == "max"
    assert drawn_rgba(sem).tolist() == [COLORS[b].rgba() for b in UTIL.buckets([v.max() for v in vals6])]


def test_an_open_group_draws_its_cables_heat_and_near_is_todays_heatmap(far, qtbot):
    w, f, sem = far
    dock = run_in_dock(qtbot, w)
    ov = w.traffic_view.overlay
    dock.player.set_frame(5)
    fr = dock.current_frame()
    own = UTIL.buckets(np.maximum(fr.link_util[0:768:2], fr.link_util[1:768:2]))
    # open pod 0: its 32 inner cables (16 host links, 16 leaf–aggregation) are drawn as themselves
    sem.expand(0)
    QtWidgets.QApplication.processEvents()
    inner = np.flatnonzero(sem.node_of()[f.ports_t.device[f.cables_t.port_a[:384]]] ==
                           sem.node_of()[f.ports_t.device[f.cables_t.port_b[:384]]])
    assert len(ov.cables) == 32 and not np.isin(ov.cables, inner).any()
    assert [ov.bucket_of(int(c)) for c in ov.cables] == own[ov.cables].tolist()
    # back to near: every cable on its own in its own colour, no bundle colours, no bundle marks
    sem.collapse_all()
    w.view.zoom_by(2.0 / w.view.scale_factor())
    QtWidgets.QApplication.processEvents()
    assert sem.level == "near" and sem.bundles is None
    assert ov.cables.tolist() == list(range(384))
    np.testing.assert_allclose(ov.ends, np.vstack(cable_anchors(f, np.arange(384))))   # at their own anchors
    assert all(ov.color_of(c) == COLORS[own[c]] for c in range(384))
    assert sorted(ov.paused.tolist()) == np.flatnonzero(fr.link_paused[0:768:2] | fr.link_paused[1:768:2]).tolist()
    assert not ov.marks.isVisible() and colours_of(w.scene).shown == ""
    assert not any(item.isVisible() for item in w.scene.cables.items.values())   # under the heat


@pytest.fixture
def far_sweep(far, qtbot):
    w, f, sem = far
    d = w.sweep_dock
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        action(w, "action_sweep").trigger()
    sem.refresh()
    assert sem.level == "far"
    return w, f, sem, d


def test_the_sweep_at_far_marks_a_bundle_discovered_once_any_member_is(far_sweep):
    w, f, sem, d = far_sweep
    tl = d.timeline
    ov = d.overlay
    pal = ov.discovery_palette
    ct, pt = f.cables_t, f.ports_t
    b = sem.bundles

    def expected(disc, how):
        out = []
        for k in range(len(b)):
            m = b.members(k)
            found = disc[pt.device[ct.port_a[m]]] & disc[pt.device[ct.port_b[m]]]
            share = found.mean() if how == "mean" else float(found.any())
            out.append(pal[int(max(1, round(share * DISCOVERY_STEPS))) if share > 0 else 0].rgba())
        return out

    # a step where some pods' core links are found and some not
    steps = [i for i in range(len(tl)) if len(set(expected(tl.state(i).discovered, "max"))) == 2]
    assert steps
    i = steps[len(steps) // 2]
    d.show_step(i)
    disc = tl.state(i).discovered
    assert drawn_rgba(sem).tolist() == expected(disc, "max")
    # the group boxes: outlined once any member is discovered, veiled while none is
    g = sem.grouping
    subnet = ov.subnet_devices
    top = np.where(f.devices_t.parent >= 0, f.devices_t.parent, np.arange(f.devices_t.n))
    groups = g.group[top[subnet]]
    found = sorted(set(groups[disc[subnet]].tolist()))
    assert ov.drawn["box_discovered"].tolist() == found
    assert ov.drawn["box_undiscovered"].tolist() == sorted(set(groups.tolist()) - set(found))
    assert len(ov.drawn["discovered"]) == 0            # no device is drawn as itself at far
    action(w, "action_bundle_mean").trigger()
    assert drawn_rgba(sem).tolist() == expected(disc, "mean")
    action(w, "action_bundle_max").trigger()


def test_a_traced_path_is_drawn_on_top_of_the_bundles_at_its_drawn_ends(far_sweep, qtbot, monkeypatch):
    w, f, sem, d = far_sweep
    calls = []
    real = sem.set_top_cables
    monkeypatch.setattr(sem, "set_top_cables", lambda cids, pen=None: (calls.append(cids), real(cids, pen)))
    servers = np.flatnonzero(f.devices_t.alive & (f.devices_t.kind == KIND_CODE[SERVER]))
    src, dst = f.name_of(int(servers[0])), f.name_of(int(servers[-1]))       # pod 1 → pod 8
    d.src_edit.setText(src)
    d.dst_edit.setText(dst)
    qtbot.mouseClick(d.trace_button, QtCore.Qt.MouseButton.LeftButton)
    path = d.overlay.trace_cables
    assert len(path) == 6                                    # host, leaf, agg, core, agg, leaf, host
    assert calls and calls[-1].tolist() == list(path)
    top = sem.draw.top
    assert top.isVisible() and top.pen().color().name() == TRACE_COLOR
    assert top.zValue() > max(it.zValue() for it in sem.draw.lines.values())
    # two of the path's cables ride the pod ↔ core bundles: drawn along those bundles' lines (pod
    # 8's runs round pod 4's box), the others at their drawn ends
    k = [int(x) for x in sem.bundles.of_cable[np.searchsorted(sem.bundles.cable_ids, path)] if x >= 0]
    assert len(k) == 2
    ends = sem.cable_ends(np.asarray(path))
    alone = (sem.bundles.of_cable[np.searchsorted(sem.bundles.cable_ids, path)] < 0) & np.isfinite(ends).all(axis=0)
    drawn = np.hstack([sem.bundle_segments[:, np.isin(sem.segment_bundle, k)], np.unique(ends[:, alone], axis=1)])
    assert same_segments(segments(top.path()), drawn)
    assert d.overlay.items["trace"].path().isEmpty()          # not twice
    # port loads ticked: the bundles take the busiest member's load level
    d.loads_box.setChecked(True)
    loads = d.loads
    want = [LOAD_COLORS[int(level_of(np.array([loads.values[np.isin(loads.cables, sem.bundles.members(kk))].max()]),
                                     loads.vmax)[0])] for kk in range(len(sem.bundles))]
    assert [QtGui.QColor.fromRgba(int(c)).name() for c in drawn_rgba(sem)] == want
    d.loads_box.setChecked(False)
    assert colours_of(w.scene).shown == "sweep"
    # back at near the sweep draws the path itself again and the layer has none
    w.view.zoom_by(2.0 / w.view.scale_factor())
    QtWidgets.QApplication.processEvents()
    assert sem.level == "near" and calls[-1] is None
    assert not d.overlay.items["trace"].path().isEmpty() and not top.isVisible()


def test_the_bundle_colour_choice_is_in_the_view_menu_and_kept_for_the_next_window(make_window):
    w = make_window()
    menu = w.findChild(QtWidgets.QMenu, "bundle_colour_menu")
    assert menu.menuAction() in w.acts.menu("view").actions()
    assert [a.objectName() for a in menu.actions()] == ["action_bundle_max", "action_bundle_mean"]
    assert w.scene.semantic.reduce_how == "max" and action(w, "action_bundle_max").isChecked()
    action(w, "action_bundle_mean").trigger()
    w2 = make_window()
    assert action(w2, "action_bundle_mean").isChecked() and not action(w2, "action_bundle_max").isChecked()
    assert w2.scene.semantic.reduce_how == "mean"
