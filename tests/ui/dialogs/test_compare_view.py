"""View ▸ InfiniBand vs RoCE…: the window shows what compare_techs computes, both heatmaps on one
colour scale, one slider for both, read-only canvases.

Expected colours come from the shared scale's definition (16 equal bins of [vmin, vmax]) applied
to each run's own frame: in the 8:1 incast at 0.2 ms the receiver's cable holds 924 KB on
InfiniBand (credits hold the rest back in the senders) and 14.9 MB on RoCE, against a scale
that ends at the RoCE peak of 15.0 MB: bins 0 and 15.
"""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.generate import fat_tree
from fabricviz.sim.compare import compare_techs
from fabricviz.ui.canvas.overlays.traffic import COLORS, scale_for
from fabricviz.ui.dialogs.compare import ReadOnlyCanvas, TechCompareWindow
from fabricviz.ui.document.document import Document

WAIT = 60_000                # a generous deadline: only a hang waits this long


@pytest.fixture(scope="module")
def tree():
    return fat_tree(levels=2, radix=8, hosts=16)


@pytest.fixture(scope="module")
def ref(tree):
    return compare_techs(tree, "incast:8", "fluid", 2e-3, 0)


def receiver_cable(f, flows):
    nic = int(f.devices_t.bound[int(flows.dst[0])])
    return int(f.ports_t.cable[int(f.devices_t.first_port[nic])])


def cable_value(frame, attr, c):
    v = getattr(frame, attr)
    return max(float(v[2 * c]), float(v[2 * c + 1]))


def run_window(qtbot, f):
    dlg = TechCompareWindow(Document(f))
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    dlg.workload_box.setCurrentText("incast")
    dlg.arg_edit.setText("8")
    dlg.model_box.setCurrentText("fluid")
    dlg.duration_edit.setText("2ms")
    with qtbot.waitSignal(dlg.compared, timeout=WAIT):
        assert dlg.run()
        assert not dlg.run()                      # one comparison at a time
        assert dlg.run_button.text() == "Running…"
    assert dlg.error is None and not dlg.running and dlg.progress.value() == 100
    return dlg


def test_window_shows_the_comparison_on_one_scale(qtbot, tree, ref):
    dlg = run_window(qtbot, tree)
    c = dlg.comparison
    assert c.ib.fabric is not tree and c.ib.fabric.name == tree.name      # a snapshot of the design
    # the table is compare_techs' table, cell for cell, with the numbers behind each cell
    assert dlg.table.rowCount() == len(ref.rows()) == 9            # 8 metrics, then the transports
    for i, row in enumerate(ref.rows()):
        assert dlg.table.verticalHeaderItem(i).text() == row[0]
        assert [dlg.table.item(i, j).text() for j in range(3)] == list(row[1:])
    role = QtCore.Qt.ItemDataRole.UserRole
    assert dlg.table.item(0, 0).data(role) == ref.ib.throughput_gbps == pytest.approx(400.0)
    assert dlg.table.item(0, 1).data(role) == ref.roce.throughput_gbps
    assert dlg.table.item(5, 2).data(role) == ref.roce.paused_links - ref.ib.paused_links
    assert dlg.summary.text() == "\n".join(f"• {line}" for line in ref.lines)
    assert dlg.titles["ib"].text() == ref.ib.title == "InfiniBand (QM9700-R8 × 8, 4xNDR)"
    assert dlg.titles["roce"].text() == ref.roce.title == "RoCE (SN4700-R8 × 8, 400GbE) · twin"

    ib_frames, roce_frames = ref.ib.result.frames, ref.roce.result.frames
    assert len(dlg.times) == len(ib_frames) == len(roce_frames) == 200
    assert dlg.slider.value() == 199 and dlg.time_label.text().startswith("200/200")   # opens on the last frame
    c_ib = receiver_cable(c.ib.fabric, ref.ib.result.flows)
    c_roce = receiver_cable(c.roce.fabric, ref.roce.result.flows)
    assert c_ib == c_roce == 0                     # the twin keeps cable ids
    ov = dlg.overlays

    # utilisation: one 0..1 scale; at frame 120 IB's port is full, and so is RoCE's: ConnectX's
    # DCQCN (the default preset) does not clamp the senders' target rate on a CNP
    assert dlg.scale == scale_for("utilisation", ib_frames + roce_frames)
    dlg.slider.setValue(120)
    assert (dlg.frame_index("ib"), dlg.frame_index("roce")) == (120, 120)
    for side, frames in (("ib", ib_frames), ("roce", roce_frames)):
        assert ov[side].color_of(0) == dlg.scale.color(cable_value(frames[120], "link_util", 0))
    assert (ov["ib"].bucket_of(0), ov["roce"].bucket_of(0)) == (15, 15)

    # queue: the scale runs to the larger peak of the two runs (RoCE's), so colours compare
    dlg.metric_box.setCurrentText("queue")
    peak = max(float(fr.link_queue.max()) for fr in ib_frames + roce_frames)
    assert (dlg.scale.metric, dlg.scale.vmin, dlg.scale.vmax) == ("queue", 0.0, peak)
    ib_peak = max(float(fr.link_queue.max()) for fr in ib_frames)
    assert peak == max(float(fr.link_queue.max()) for fr in roce_frames) > 10 * ib_peak   # PFC's MBs vs credits
    assert dlg.legend.scale == dlg.scale
    for k in (0, 5, 20, 199):                      # the slider moves both canvases
        dlg.slider.setValue(k)
        QtWidgets.QApplication.processEvents()
        assert dlg.time_label.text() == f"{k + 1}/200 · {ib_frames[k].time_s * 1e3:.3f} ms"
        for side, frames in (("ib", ib_frames), ("roce", roce_frames)):
            v = cable_value(frames[k], "link_queue", 0)
            assert ov[side].color_of(0) == dlg.scale.color(v) == dlg.legend.color_for(v)
            assert ov[side].color_of(0) == COLORS[min(int(v / peak * 16), 15)]
    dlg.slider.setValue(20)
    want = tuple(min(int(cable_value(fr[20], "link_queue", 0) / peak * 16), 15) for fr in (ib_frames, roce_frames))
    assert (ov["ib"].bucket_of(0), ov["roce"].bucket_of(0)) == want and want[0] < want[1]

    # play runs both to the end, then stops
    dlg.slider.setValue(196)
    dlg.play_button.setChecked(True)
    assert dlg.timer.isActive()
    qtbot.waitUntil(lambda: not dlg.timer.isActive(), timeout=WAIT)
    assert dlg.slider.value() == 199 and not dlg.play_button.isChecked()
    assert ov["roce"].color_of(0) == dlg.scale.color(cable_value(roce_frames[199], "link_queue", 0))


def test_canvases_are_read_only(qtbot, tree):
    f = tree.copy()
    dlg = TechCompareWindow(Document(f))
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    view = dlg.views["ib"]
    assert isinstance(view, ReadOnlyCanvas) and not view.isInteractive() and not view.acceptDrops()
    assert dlg.scenes["ib"].fabric is f and dlg.scenes["roce"].fabric is None
    leaf = f.find("leaf01")
    before = (f.device(leaf).x, f.device(leaf).y, f.counts())
    item = dlg.scenes["ib"].items_by_id[leaf]
    dlg.scenes["ib"].select_devices([leaf])
    view.zoom_by(2.0)                                       # zoomed in: there is room to pan
    at = view.mapFromScene(item.sceneBoundingRect().center())
    h0 = view.horizontalScrollBar().value()
    qtbot.mousePress(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=at)
    for dx in (10, 40, 80):
        qtbot.mouseMove(view.viewport(), at + QtCore.QPoint(dx, 30))
    qtbot.mouseRelease(view.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=at + QtCore.QPoint(80, 30))
    qtbot.keyClick(view, QtCore.Qt.Key.Key_Right)
    QtWidgets.QApplication.processEvents()
    assert view.horizontalScrollBar().value() == h0 - 80    # the drag panned the view ...
    assert (f.device(leaf).x, f.device(leaf).y, f.counts()) == before     # ... and moved nothing
    assert view.editor.stack.count() == 0 and not view.auto_fit


def test_the_view_menu_opens_one_comparison_window_and_esc_closes_it(make_window, qtbot):
    w = make_window()
    f = fat_tree(levels=2, radix=8, hosts=16, fabric="roce")
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    act = w.acts["compare_techs"]
    assert act.objectName() == "action_compare_techs"
    assert [a.text() for a in w.acts.menu("view").actions()].count("InfiniBand vs RoCE…") == 1
    act.trigger()
    dlg = w.compare_window
    assert isinstance(dlg, TechCompareWindow) and dlg.isVisible() and not dlg.isModal()
    assert dlg.titles["roce"].text() == "RoCE (SN4700-R8 × 8, 400GbE)"
    assert dlg.titles["ib"].text() == "InfiniBand (the twin is built when you press Run)"
    act.trigger()
    assert w.compare_window is dlg and len(w.findChildren(TechCompareWindow)) == 1
    dlg.activateWindow()
    qtbot.keyClick(dlg.views["roce"], QtCore.Qt.Key.Key_Escape)    # Esc closes it, from its canvas too
    assert not dlg.isVisible()
