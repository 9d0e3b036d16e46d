"""Traffic dock, canvas heatmap and charts: what the user sees matches the engine's frames.

Expected values come from running the same engine call (``run_traffic``, what
``fabricviz simulate`` does) outside the GUI and from the colour scale's
definition (16 equal bins of [vmin, vmax]): e.g. at frame 0 of the incast the
receiver's downlink carries 0.8 of line rate → bin floor(0.8 · 16) = 12.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.model import FabricError
from fabricviz.sim.run import run_traffic
from fabricviz.ui.canvas.overlays.traffic import BUCKETS, COLORS, ColorScale, scale_for
from fabricviz.ui.docks.charts import fabric_series
from fabricviz.ui.docks.traffic import TrafficDock

WAIT = 60_000                # a generous deadline: only a hang waits this long


def run_in_dock(qtbot, window, **controls):
    dock = window.traffic_dock
    dock.configure(**controls)
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    assert dock.error is None
    return dock


def open_fabric(window, f):
    """Put ``f`` in the window the way the app does (editor replaces its fabric)."""
    window.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    assert window.scene.fabric is f


def receiver_downlink(f, flows):
    """Cable id and directed link into the incast receiver's NIC."""
    dst = int(flows.dst[0])
    nic = int(f.devices_t.bound[dst])
    port = int(f.devices_t.first_port[nic])
    c = int(f.ports_t.cable[port])
    link = 2 * c + (0 if int(f.cables_t.port_b[c]) == port else 1)
    return c, link


def test_color_scale_bins():
    s = ColorScale("utilisation", 0.0, 1.0)
    assert s.buckets(np.array([0.0, 0.0624, 0.0625, 0.8, 0.99, 1.0, 1.7, np.nan])).tolist() == \
        [0, 0, 1, 12, 15, 15, 15, 0]
    q = ColorScale("queue", 0.0, 16e6)
    assert q.bucket(2.7e6) == 2 and q.label(2.7e6) == "2.7 MB"
    assert len(COLORS) == BUCKETS and COLORS[0] != COLORS[-1]


def test_incast_fluid_heatmap_pauses_scrub_and_charts(make_window, qtbot):
    w = make_window()
    f = leaf_spine(4, 2, 8)
    # the DCQCN paper's parameters (not ConnectX's, the RoCE default) and 1 MB static PFC thresholds
    # (the SN4700's own pool would take the whole incast): the incast overruns the receiver's port
    # long enough for PFC to pause the senders — the picture this test checks
    f.meta["roce"] = {"dcqcn": "paper", "pfc": {"xoff": 1000000}}
    open_fabric(w, f)
    assert w.traffic_dock.objectName() == "traffic"
    assert len([d for d in w.findChildren(TrafficDock)]) == 1
    dock = run_in_dock(qtbot, w, workload="incast", arg="8", model="fluid", duration="2ms", seed=0)
    ref = run_traffic(f, "incast:8", "fluid", None, "minhop", 2e-3, 0)
    res = dock.result
    assert len(res.frames) == len(ref.frames) == 200
    ov = w.traffic_view.overlay
    c, link = receiver_downlink(f, res.flows)
    legend = dock.legend

    # a finished run opens on its last frame (the steady part the summary describes), not at 10 µs
    assert dock.frame == 199 and dock.player.frame_label.text().startswith("200/200 · 2.000 ms")
    assert w.document.session.traffic.frame == 199
    # frame 0: the receiver's downlink at 0.8 of line rate → bucket 12, drawn in the legend's colour
    dock.player.set_frame(0)
    fr0 = ref.frames[0]
    v = max(float(fr0.link_util[2 * c]), float(fr0.link_util[2 * c + 1]))
    assert v == pytest.approx(0.8, abs=1e-6)
    assert dock.frame == 0
    assert ov.bucket_of(c) == 12
    assert ov.color_of(c) == legend.color_for(v) == COLORS[12]
    assert ov.drawn_count() == f.cables_t.alive.sum()          # every cable once
    assert not ov.is_paused(c)

    # frame 5: the senders' uplinks are PFC-paused; exactly those cables are drawn paused
    dock.player.set_frame(5)
    fr5 = ref.frames[5]
    paused_links = np.flatnonzero(fr5.link_paused)
    assert len(paused_links) == 8
    want = sorted({int(l) // 2 for l in paused_links if l < res.links.n_cable_links})
    assert sorted(ov.paused.tolist()) == want
    assert all(ov.is_paused(p) for p in want) and not ov.is_paused(c)
    assert ov.is_marking(c)                                   # the receiver's egress marks ECN
    assert ov.color_of(c) == legend.color_for(float(fr5.link_util[link])) == COLORS[15]

    # scrub: frame k shows frame k's values, for every cable
    for k in (3, 120, 199):
        dock.player.slider.setValue(k)
        QtWidgets.QApplication.processEvents()
        assert dock.frame == k
        fr = ref.frames[k]
        val = np.maximum(fr.link_util[0::2][:f.cables_t.n], fr.link_util[1::2][:f.cables_t.n])
        for cab in f.cable_ids():
            assert ov.bucket_of(int(cab)) == ColorScale("utilisation", 0, 1).bucket(float(val[cab]))
        assert dock.player.frame_label.text().startswith(f"{k + 1}/200")

    # the queue metric: scale 0..peak queue of the run, receiver's bucket follows
    dock.metric_box.setCurrentText("queue")
    s = dock.scale
    peak = max(float(fr.link_queue.max()) for fr in ref.frames)
    assert (s.metric, s.vmin, s.vmax) == ("queue", 0.0, peak)
    dock.player.set_frame(5)
    assert ov.color_of(c) == COLORS[min(int(float(fr5.link_queue[link]) / peak * BUCKETS), BUCKETS - 1)]
    assert legend.texts()[1] == s.label(peak)

    # charts: curves equal the frames' arrays for the chosen link and flow, and the fabric panel
    charts = w.charts_dock
    charts.show_link(link)
    t = np.array([fr.time_s for fr in ref.frames]) * 1e3
    for key, attr in (("util", "link_util"), ("queue", "link_queue"), ("latency", "link_latency_ns")):
        x, y = charts.curve_data(key)
        assert np.allclose(x, t)
        assert np.allclose(y, [getattr(fr, attr)[link] for fr in ref.frames], rtol=1e-6)
    charts.show_flow(3)
    assert np.allclose(charts.curve_data("flow_rate")[1], [fr.flow_rate_gbps[3] for fr in ref.frames])
    # beside it the sender's DCQCN rate Rc: cut below line rate (400G) by the first CNPs within the
    # first two frames (20 us), falling while the receiver's port marks, below the fair share 400/8 later
    cc = np.array([fr.flow_cc_rate_gbps[3] for fr in ref.frames], np.float64)
    x, y = charts.curve_data("cc_rate")
    assert charts.has_cc_rate and charts.curves["cc_rate"].isVisible()
    assert np.allclose(x, t) and np.allclose(y, cc, rtol=1e-9)
    assert cc[1] < 400.0 and np.all(np.diff(cc[1:6]) < 0) and cc.min() < 50.0
    assert charts.plot["flow_rate"].titleLabel.text.startswith("flow rate<br>")
    assert "DCQCN Rc" in charts.plot["flow_rate"].titleLabel.text         # its key, beside the title
    agg = fabric_series(ref.frames)
    assert np.allclose(charts.curve_data("throughput")[1], agg["throughput"])
    assert np.allclose(charts.curve_data("p99_latency")[1],
                       [np.percentile(fr.flow_latency_ns, 99) for fr in ref.frames])
    assert charts.cursors[0].value() == pytest.approx(t[5])

    # canvas selection of the receiver's cable charts its hotter direction (the downlink)
    w.scene.set_selected_cables({c})
    assert charts.link == link


def test_ib_fat_tree_maxmin_permutation_static_sm_routes(make_window, qtbot):
    w = make_window()
    f = fat_tree(2, 8, fabric="ib")
    open_fabric(w, f)
    dock = run_in_dock(qtbot, w, workload="permutation", arg="", model="maxmin", routing="static",
                       engine="minhop", seed=3)
    ref = run_traffic(f, "permutation", "maxmin", "static", "minhop", 10e-3, 3)
    res = dock.result
    assert res.routing == "static" and res.fabric_tech == "ib" and len(res.frames) == 1
    assert np.array_equal(res.routes.links, ref.routes.links)     # the SM's LFT paths
    assert dock.player.slider.maximum() == 0
    fr = ref.frames[0]
    ov = w.traffic_view.overlay
    s = scale_for("utilisation", ref.frames)
    n = f.cables_t.n
    val = np.maximum(fr.link_util[0:2 * n:2], fr.link_util[1:2 * n:2])
    hot = int(np.argmax(val))
    assert ov.color_of(hot) == COLORS[s.bucket(float(val[hot]))]
    assert sorted(ov.members[BUCKETS - 1].tolist()) == np.flatnonzero(s.buckets(val) == BUCKETS - 1).tolist()
    assert len(ov.paused) == 0                                   # max-min has no pauses
    charts = w.charts_dock                                        # no DCQCN on a max-min run
    assert not charts.has_cc_rate and not charts.curves["cc_rate"].isVisible()
    assert len(charts.curve_data("cc_rate")[1]) == 0
    assert charts.plot["flow_rate"].titleLabel.text.startswith("flow rate · DCQCN n/a<br>")
    assert "DCQCN Rc" not in charts.plot["flow_rate"].titleLabel.text
    rows = charts.csv_rows()                                       # its CSV column stays empty
    assert len(rows) == 2 and rows[1][5] == "" and rows[1][4] == float(fr.flow_rate_gbps[charts.flow])


def test_bad_duration_is_refused_and_new_design_clears(make_window, qtbot):
    w = make_window()
    open_fabric(w, leaf_spine(2, 2, 4))
    dock = w.traffic_dock
    dock.configure(model="fluid", duration="fast")
    assert not dock.run() and not dock.running
    assert "the duration 'fast'" in dock.status.text() and "--" not in dock.status.text()
    dock.configure(workload="shift", arg="1", model="maxmin")
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        dock.run()
    assert w.traffic_view.overlay.drawn_count() > 0
    open_fabric(w, leaf_spine(2, 2, 2))
    assert dock.result is None and w.traffic_view.overlay.drawn_count() == 0


def test_chart_export_csv_png_and_failed_saves(make_window, qtbot, tmp_path, monkeypatch):
    import csv

    from PySide6 import QtGui

    from fabricviz.ui.docks.charts import CSV_COLUMNS
    w = make_window()
    f = leaf_spine(2, 2, 4)
    open_fabric(w, f)
    run_in_dock(qtbot, w, workload="incast", arg="4", model="fluid", duration="0.1ms", seed=0)
    ref = run_traffic(f, "incast:4", "fluid", None, "minhop", 0.1e-3, 0)
    charts = w.charts_dock
    charts.show_link(5)
    charts.show_flow(2)
    assert charts.export_csv(tmp_path / "run.csv") == len(ref.frames) == 100
    with open(tmp_path / "run.csv", newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == list(CSV_COLUMNS) and len(rows) == 101
    agg = fabric_series(ref.frames)
    for k, (row, fr) in enumerate(zip(rows[1:], ref.frames, strict=True)):
        got = [float(v) for v in row[:9]]
        assert got == [fr.time_s * 1e3, float(fr.link_util[5]), float(fr.link_queue[5]),
                       float(fr.link_latency_ns[5]), float(fr.flow_rate_gbps[2]), float(fr.flow_cc_rate_gbps[2]),
                       agg["throughput"][k], agg["mean_latency"][k],
                       float(np.percentile(fr.flow_latency_ns.astype(np.float64), 99))]
        assert row[9] == charts.link_box.currentText() and row[10] == charts.flow_box.currentText()

    size = charts.export_png(tmp_path / "run.png")
    img = QtGui.QImage(str(tmp_path / "run.png"))
    assert not img.isNull() and (img.width(), img.height()) == size
    assert img.width() >= 1200 and img.height() >= 540 + 30      # laid out readable, caption on top
    small = img.scaled(64, 32)
    assert len({small.pixel(x, y) for x in range(64) for y in range(32)}) > 20     # a picture, not a fill

    # a failed save names the place, leaves an existing file whole and shows one line, no dialog
    (tmp_path / "keep.csv").write_text("old\n")
    import fabricviz.model.atomic as atomic

    def disk_full(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(FabricError, match="keep.csv: cannot save: No space left on device"):
        charts.export_csv(tmp_path / "keep.csv")
    assert (tmp_path / "keep.csv").read_text() == "old\n"
    assert not list(tmp_path.glob(".keep.csv.*"))                # and no temp file
    monkeypatch.undo()
    target = tmp_path / "no-such-dir" / "x.png"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    assert charts.export_dialog("png") is None
    msg = charts.message.text()
    assert msg.startswith("could not save: ") and str(target) in msg and "\n" not in msg
    good = tmp_path / "dialog"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(good), "")))
    assert charts.export_dialog("csv") == str(good) + ".csv"
    assert charts.message.text() == "saved dialog.csv (100 frames)"
    assert (tmp_path / "dialog.csv").read_text() == (tmp_path / "run.csv").read_text()


def test_a_design_with_unreachable_hosts_runs_on_the_rest_and_says_who_is_left_out(make_window, qtbot):
    """The demo plus a lone switch with a server and an uncabled server: the run is the demo's,
    and the status names the two hosts left out and why (it used to refuse the whole design)."""
    from fabricviz.loaders import load_any
    from fabricviz.ui.main_window import DEMO_FABRIC
    from tests.sim.islands import with_island
    f = with_island(load_any(str(DEMO_FABRIC)), "ib_switch:QM9700-R8", "NODE-1G-NDR")
    alone = run_traffic(load_any(str(DEMO_FABRIC)), "alltoall", "maxmin", "static", "minhop", 10e-3, 0)
    w = make_window()
    w.editor.set_fabric(f)
    dock = w.traffic_dock
    dock.configure(workload="alltoall", model="maxmin", routing="static", engine="minhop")
    assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=60_000)
    assert dock.error is None, dock.error
    assert [(u.name, u.reason) for u in dock.result.left_out] == [
        ("srv98", "no route from the SM's subnet"), ("srv99", "not cabled")]
    assert dock.status.text().endswith("2 hosts unreachable, left out of the run: "
                                       "srv98 (no route from the SM's subnet), srv99 (not cabled)")
    assert np.array_equal(dock.result.frames[0].flow_rate_gbps, alone.frames[0].flow_rate_gbps)

    # the dock lists them, one row each; clicking a row asks the window to select that host
    box = dock.findChild(QtWidgets.QListWidget, "traffic_left_out")
    assert box is dock.left_out_list and not box.isHidden()
    assert dock.left_out_rows() == ["srv98 — no route from the SM's subnet", "srv99 — not cabled"]
    picked = []
    dock.select_hosts.connect(picked.append)
    dock.show()
    QtWidgets.QApplication.processEvents()
    qtbot.mouseClick(box.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     pos=box.visualItemRect(box.item(1)).center())
    assert picked == [[f.find("srv99")]]
    qtbot.mouseClick(box.viewport(), QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.ControlModifier,
                     pos=box.visualItemRect(box.item(0)).center())
    assert picked[-1] == sorted([f.find("srv98"), f.find("srv99")])
    # a run with everyone in it empties and hides the list
    w.editor.set_fabric(load_any(str(DEMO_FABRIC)))
    assert dock.left_out_rows() == [] and box.isHidden()


def test_left_out_list_is_capped_with_a_count(make_window):
    from fabricviz.sim.reach import Unreachable
    from fabricviz.ui.docks.traffic import LEFT_OUT_ROWS
    dock = make_window().traffic_dock
    dock._list_left_out([Unreachable(1000 + k, f"srv{k}", "not cabled") for k in range(LEFT_OUT_ROWS + 7)])
    rows = dock.left_out_rows()
    assert len(rows) == LEFT_OUT_ROWS + 1 and rows[0] == "srv0 — not cabled"
    assert rows[-1] == "… and 7 more"
    last = dock.left_out_list.item(LEFT_OUT_ROWS)
    assert last.flags() == QtCore.Qt.ItemFlag.NoItemFlags


def test_heatmap_gives_way_to_another_overlay_and_comes_back(make_window, qtbot):
    """One overlay owns the canvas: a run claims it for "traffic"; the SM sweep claiming it hides
    the heatmap (the cables show through again); stepping a frame or raising the Traffic dock
    claims it back and draws that frame."""
    from fabricviz.ui import layout
    w = make_window()
    f = leaf_spine(2, 2, 4)
    open_fabric(w, f)
    session = w.document.session
    assert session.overlay == ""
    dock = run_in_dock(qtbot, w, workload="incast", arg="4", model="fluid", duration="0.1ms", seed=0)
    ov = w.traffic_view.overlay
    cables = int(f.cables_t.alive.sum())
    c, _ = receiver_downlink(f, dock.result.flows)

    def bucket_at(k, cab):       # cable ``cab`` at frame k, as the colour scale bins it
        fr = dock.result.frames[k]
        v = max(float(fr.link_util[2 * cab]), float(fr.link_util[2 * cab + 1]))
        return ColorScale("utilisation", 0, 1).bucket(v)
    # 1 us frames: at frame 0 the receiver's downlink carries nothing yet (bin 0, drawn in the
    # coolest colour); from frame 2 on it is full (bin 15)
    assert (bucket_at(0, c), bucket_at(5, c)) == (0, 15)
    assert dock.frame == len(dock.result.frames) - 1           # the run opens on its last frame
    assert session.owns("traffic") and ov.drawn_count() == cables and ov.bucket_of(c) == 15
    dock.player.set_frame(0)
    assert ov.bucket_of(c) == 0
    dock.player.set_frame(5)
    assert ov.bucket_of(c) == 15

    session.claim("sweep")
    assert ov.drawn_count() == 0 and ov.bucket_of(c) is None             # nothing drawn
    assert w.traffic_view.hidden and dock.result is not None       # the run stays in the dock
    dock.player.set_frame(0)
    assert session.owns("traffic") and not w.traffic_view.hidden
    assert ov.drawn_count() == cables and ov.bucket_of(c) == 0
    dock.player.step(1)
    dock.player.step(1)
    assert ov.bucket_of(c) == 15

    # an edit while the sweep owns the canvas does not take it back
    session.claim("sweep")
    assert w.editor.move([f.find("leaf01")], 10.0, 20.0)
    qtbot.wait(20)                                   # the queued redraw on the new geometry
    assert dock.result is not None and session.owns("sweep") and ov.drawn_count() == 0

    # the Traffic dock hidden behind the inspector, then raised: the heatmap is back, at frame 7
    dock.player.set_frame(7)
    session.claim("lesson")
    assert ov.drawn_count() == 0
    layout.reveal(w, w.inspector)
    QtWidgets.QApplication.processEvents()
    assert dock.visibleRegion().isEmpty() and session.owns("lesson")
    layout.reveal(w, dock)
    QtWidgets.QApplication.processEvents()
    assert session.owns("traffic") and dock.frame == 7 and ov.drawn_count() == cables
    assert ov.bucket_of(c) == bucket_at(7, c) == 15

    # a new design: the run goes and traffic lets go of the canvas
    open_fabric(w, leaf_spine(2, 2, 2))
    assert dock.result is None and session.overlay == ""


def test_view_traffic_opens_the_dock_in_front(make_window, qtbot):
    """View ▸ Traffic (Ctrl+Shift+T) shows the dock as the current tab of the inspector's group."""
    from PySide6 import QtGui
    w = make_window()
    dock = w.traffic_dock
    act = w.findChild(QtGui.QAction, "action_traffic")
    assert act is dock.toggleViewAction() and act.shortcut().toString() == "Ctrl+Shift+T"
    assert dock.isHidden() and not act.isChecked()
    w.inspector.raise_()
    act.trigger()
    QtWidgets.QApplication.processEvents()
    assert act.isChecked() and dock.isVisible() and not dock.visibleRegion().isEmpty()
    group = w.tabifiedDockWidgets(dock)
    assert w.inspector in group
    assert all(d.visibleRegion().isEmpty() for d in group)        # the others are behind it
    bars = [b for b in w.findChildren(QtWidgets.QTabBar)
            if b.isVisible() and "Traffic" in [b.tabText(k) for k in range(b.count())]
            and b.geometry().left() < dock.geometry().right() and b.geometry().right() > dock.geometry().left()
            and abs(b.geometry().top() - dock.geometry().bottom()) < 40]   # the bar under the dock itself
    assert len(bars) == 1 and bars[0].tabText(bars[0].currentIndex()) == "Traffic"
    # behind another tab, the action (checked: the dock is open) still brings it to the front
    w.inspector.raise_()
    QtWidgets.QApplication.processEvents()
    assert dock.visibleRegion().isEmpty()
    act.trigger()                                   # hides it (a toggle) …
    act.trigger()                                   # … and shows it in front again
    QtWidgets.QApplication.processEvents()
    assert not dock.visibleRegion().isEmpty() and bars[0].tabText(bars[0].currentIndex()) == "Traffic"


def test_traffic_and_lint_use_the_documents_routing_instead_of_routing_again(make_window, qtbot, monkeypatch):
    """The inspector's minhop LFTs (the routing cache) serve the Traffic run and the checks."""
    from fabricviz.ib import routing as ib_routing
    from fabricviz.ui.document.routing import lft_engine
    w = make_window()
    f = w.editor.fabric
    cached = w.document.routing.compute("lft", lft_engine)
    calls = []
    real = ib_routing.route
    monkeypatch.setattr(ib_routing, "route", lambda *a, **k: calls.append(a) or real(*a, **k))
    dock = w.traffic_dock
    assert dock.shared_routing("minhop") is cached
    dock.configure(workload="alltoall", model="maxmin", routing="static", engine="minhop")
    assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=60_000)
    assert dock.error is None and calls == []
    alone = run_traffic(f, "alltoall", "maxmin", "static", "minhop", 10e-3, 0)
    assert np.array_equal(dock.result.frames[0].flow_rate_gbps, alone.frames[0].flow_rate_gbps)
    calls.clear()
    fd = w.findings_dock
    with qtbot.waitSignal(fd.finished, timeout=60_000):
        fd.refresh()
    engines = [a[1] if len(a) > 1 else "minhop" for a in calls]
    assert "minhop" not in engines and engines == ["ftree"]   # minhop rules on the cache; ftree's own check
    assert dock.shared_routing("updn") is None  # another engine: the run routes itself


def test_latency_colouring_includes_queueing(make_window, qtbot):
    """An incast with queues: the latency scale reaches the queued link's serialization +
    propagation + switch + queue/rate, far above the ~90 ns of an idle hop, and a pulled
    cable (no capacity) never makes the scale infinite."""
    f = leaf_spine(2, 2, 4)
    w = make_window()
    w.editor.set_fabric(f)
    dock = w.traffic_dock
    dock.configure(workload="incast", arg="4", model="fluid", duration="0.5ms")
    dock.metric_box.setCurrentText("latency")
    assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=60_000)
    assert dock.error is None, dock.error
    frames = dock.result.frames
    peak = max(float(np.nanmax(fr.link_latency_ns)) for fr in frames)
    queued = max(float(np.max(fr.link_queue)) for fr in frames)
    assert queued > 100_000 and peak > 5_000                 # queueing, not a bare ~90 ns hop
    assert np.isfinite(dock.scale.vmax) and dock.scale.vmax == pytest.approx(peak)
    k = int(np.argmax([np.nanmax(fr.link_latency_ns) for fr in frames]))
    fr = frames[k]
    link = int(np.nanargmax(fr.link_latency_ns))
    links = dock.result.links
    wait_ns = float(fr.link_queue[link]) * 8 / float(links.gbps[link])      # bytes / (Gb/s) = ns per 8 bits
    base_ns = float(fr.link_latency_ns[link]) - wait_ns
    assert wait_ns > 5_000 and 0 < base_ns < 2_000           # the queue's wait, plus a hop's own ~µs
