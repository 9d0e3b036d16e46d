"""View ▸ Lossless (RoCE) on a real window: the plan's numbers for the selected switch, the budget
bar's state, InfiniBand → "not a RoCE design", a big design through the job runner, and the live
buffer use of a fluid traffic run at the shown frame.

Worked by hand for the 4 × 3 leaf-spine (SN4700-R4, 400GbE, MTU 9216) with leaf01:2 – spine01:1
made a 100 m transceiver run (400G-SR8: multimode, 4.943 ns/m):
IEEE = 9,236 + 84 + 61,440 + 57,920 + 9,236 + 2 × 100 × 4.9434 × 400 / 8 (49,434.2) = 187,351 B (rounded up);
NVIDIA = 2 × 9,216 + 3,840 + 130 × 400 = 74,272 B. A 2 m DAC host port: 138,870 / 23,312 B.
XOFF = 1.25 × Kmax(400G) 3,200,000 = 4,000,000 B, XON = XOFF − 2 × 9,216 = 3,981,568 B.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ethernet.lossless import lossless_plan
from fabricviz.generate import k_ary_fat_tree, leaf_spine
from fabricviz.ui.docks import lossless as dock_mod
from fabricviz.ui.docks.lossless import NOT_ROCE
from tests.ui.roce_helpers import open_dock, roce_window, switch_pair


def table(d):
    return [[d.model.text(r, i) for i in range(11)] for r in d.model.rows]


def test_dock_shows_the_plan_of_the_selected_switch(make_window):
    w = roce_window(make_window)
    view_menu = w.acts.menu("view")
    assert w.findChild(QtGui.QAction, "action_lossless_dock") in view_menu.actions()
    d = open_dock(w)
    f = w.editor.fabric
    assert not d.note.isVisible() and d.switch_box.currentText() == "leaf01"          # nothing selected: the first
    assert d.settings_label.text() == ("MTU 9216 B · PFC on priority 3 · headroom: IEEE 802.1Qbb · "
                                       "DCQCN nvidia")
    xo = ["4,000,000", "3,981,568", "800,000", "3,200,000", "0.2"]
    assert table(d) == [["leaf01:1", "400", "2", "dac/dac", "138,870", "23,312", *xo],
                        ["leaf01:2", "400", "100", "transceiver/mmf", "187,351", "74,272", *xo],
                        ["leaf01:3", "400", "15", "aoc/mmf", "145,332", "30,072", *xo],
                        ["leaf01:4", "400", "15", "aoc/mmf", "145,332", "30,072", *xo]]
    plan = lossless_plan(f)
    assert [r.ieee for r in d.model.rows] == plan.headroom_bytes[d.model.rows[0].port:][:4].astype(int).tolist()
    # every term in the tooltip (and under the table for the selected port), the used method marked
    tip = d.model.data(d.model.index(1, 0), QtCore.Qt.ItemDataRole.ToolTipRole)
    assert tip.splitlines() == [
        "leaf01:2: 400 Gb/s, 100 m transceiver/mmf",
        "IEEE 802.1Qbb (used): receiver max frame 9,236 + pause frame 84 + interface delay 61,440 + response delay "
        "57,920 + 2 × cable propagation 49,434 + sender max frame 9,236 = 187,351 B",
        "NVIDIA rule: sender MTU 9,216 + receiver MTU 9,216 + fixed (3,840 B) 3,840 + 2 × cable propagation "
        "52,000 = 74,272 B"]
    d.table.selectRow(1)
    assert d.terms_label.text() == tip
    assert d.model.data(d.model.index(0, 4), QtCore.Qt.ItemDataRole.FontRole).bold()       # IEEE: the design's
    # the budget bar: 574,866 + 6,481 (the longer run) B of headroom, 4 × 32 KiB reserved, against 64 MiB
    b = plan.switches[f.find("leaf01")]
    assert (b.headroom_total, b.reserved, b.shared_pool) == (616_885, 131_072, 66_360_907)
    assert d.bar.state == "fits" and d.bar.segments() == [("headroom", 616_885), ("reserved", 131_072),
                                                         ("shared", 66_360_907)]
    assert "buffer 64.00 MiB (published)" in d.budget_label.text()
    assert "1.1 % used: fits" in d.budget_label.text()
    # selecting a switch on the canvas shows it: spine01's port 1 is the other end of the long run
    w.scene.select_devices([f.find("spine01")])
    QtWidgets.QApplication.processEvents()
    assert d.switch_box.currentText() == "spine01"
    assert table(d)[0][:6] == ["spine01:1", "400", "100", "transceiver/mmf", "187,351", "74,272"]
    # an edit re-plans: the run back to 15 m, spine01:1 as its AOC neighbours
    w.editor.stack.undo()
    assert table(d)[0][:6] == ["spine01:1", "400", "15", "aoc/mmf", "145,332", "30,072"]


@pytest.mark.parametrize("runs, state, text", [
    (14, "over", "105.7 % used: DOES NOT FIT"),          # 70,924,994 B of 64 MiB: over by 3,816,130 B
    (11, "near", "83.0 % used: fits, near the limit"),    # 55,726,781 B: the lint warning
])
def test_budget_bar_state_with_long_single_mode_runs(make_window, runs, state, text):
    w = make_window()
    w.apply_generated(switch_pair("SN4700", runs, 10_000.0, "T-400G-LR4"))
    d = open_dock(w)
    assert d.switch_box.currentText() == "siteA" and d.bar.state == state
    assert text in d.budget_label.text()
    if state == "over":
        assert "over by 3.64 MiB" in d.budget_label.text()
        assert d.bar.segments() == [("headroom", 70_466_242), ("reserved", 458_752)]
        assert d.model.rows[0].xoff == 0.0                 # nothing shared left to pause at
        img = d.bar.grab().toImage()                       # the part beyond the buffer is drawn red
        assert img.pixelColor(img.width() - 6, img.height() // 2).name() == "#c62828"


def test_estimated_buffer_is_flagged(make_window):
    w = make_window()
    w.apply_generated(leaf_spine(2, 1, 1, switch="SN5600"))
    d = open_dock(w)
    assert "<b>SN5600</b> buffer 160.00 MiB (<b>estimate</b>)" in d.budget_label.text()
    assert "estimate" in d.bar.toolTip()


def test_the_dock_leaves_an_infiniband_design_and_comes_back_on_roce(make_window, qtbot):
    """Issue 29: the dock stood open on InfiniBand designs as a "Not a RoCE design" panel."""
    w = make_window()
    w.apply_generated(leaf_spine(4, 3, 1))
    d = open_dock(w)
    act = w.findChild(QtGui.QAction, "action_lossless_dock")
    assert act.isEnabled() and act.isChecked() and d.content.isVisible()
    w.apply_generated(k_ary_fat_tree(4))                    # an InfiniBand design: the dock closes
    QtWidgets.QApplication.processEvents()
    assert d.isHidden() and not act.isChecked() and not act.isEnabled()
    assert act.toolTip() == "RoCE designs only: this design has no Ethernet switch port"
    assert w.lossless_dock not in [x for x in w.findChildren(QtWidgets.QDockWidget) if x.isVisible()]
    w.apply_generated(leaf_spine(2, 1, 1))                  # RoCE again: it was open, it opens again
    QtWidgets.QApplication.processEvents()
    assert act.isEnabled() and d.isVisible() and d.content.isVisible() and len(d.model.rows) > 0
    # a layout restored with the dock open (a RoCE session's) onto an InfiniBand design: it leaves again
    state = w.saveState()
    w.apply_generated(k_ary_fat_tree(4))
    QtWidgets.QApplication.processEvents()
    assert d.isHidden()
    w.restoreState(state)
    qtbot.waitUntil(d.isHidden, timeout=5_000)
    # never shown on one, the panel still says why if it is asked to draw
    d.refresh()
    assert d.note.text() == NOT_ROCE or not d.isVisible()


def test_big_design_is_planned_in_the_job_runner(make_window, monkeypatch):
    monkeypatch.setattr(dock_mod, "BACKGROUND_PORTS", 0)      # every design counts as big here
    w = make_window()
    w.apply_generated(leaf_spine(4, 3, 1))
    d = open_dock(w)
    assert d.note.text() == "Computing the lossless plan…" or w.document.routing.get("lossless") is not None
    assert w.document.routing.wait(10)
    QtCore.QCoreApplication.sendPostedEvents()
    QtWidgets.QApplication.processEvents()
    assert w.document.routing.computations["lossless"] == 1
    assert not d.note.isVisible() and len(d.model.rows) == 4 and d.model.rows[0].ieee == 138_870


def test_live_buffer_use_follows_the_fluid_frame(make_window, qtbot):
    w = roce_window(make_window)
    d = open_dock(w)
    f = w.editor.fabric
    assert not d.live_label.isVisible() and d.table.isColumnHidden(11)        # no run: no live columns
    tr = w.traffic_dock
    tr.configure(workload="incast", arg="3", model="fluid", duration="0.5ms")
    with qtbot.waitSignal(tr.result_ready, timeout=60_000):
        assert tr.run()
    res = tr.result
    # the switch whose egress queues hold the most at the run's peak frame
    sizes = {}
    for s in d.plans.plan.switches:
        ports = np.flatnonzero((f.ports_t.device == s) & (f.ports_t.cable >= 0))
        out = [2 * int(f.ports_t.cable[p]) + (0 if int(f.cables_t.port_a[f.ports_t.cable[p]]) == p else 1)
               for p in ports]
        sizes[s] = out
    k = int(np.argmax([max(float(fr.link_queue[o].sum()) for o in sizes.values()) for fr in res.frames]))
    hot = max(sizes, key=lambda s: float(res.frames[k].link_queue[sizes[s]].sum()))
    d.show_switch(hot)
    tr.player.set_frame(k)
    want = float(np.asarray(res.frames[k].link_queue, float)[sizes[hot]].sum())
    assert want > 0 and d.live is not None and d.bar.queue_bytes == pytest.approx(want, rel=1e-12)
    share = 100 * want / d.budget().buffer_bytes
    assert d.live_label.text().startswith(f"Traffic run at {res.frames[k].time_s * 1e3:.3f} ms: {want:,.0f} B "
                                          f"queued in {f.name_of(hot)} = {share:.2f} % of the buffer")
    assert not d.table.isColumnHidden(11)
    rows = {r.name: r for r in d.model.rows}
    for r in d.model.rows:                # per port: the egress queue at the frame, peak ingress vs XOFF
        c = int(f.ports_t.cable[r.port])
        leave = 2 * c + (0 if int(f.cables_t.port_a[c]) == r.port else 1)
        i = d.model.rows.index(r)
        assert d.model.text(r, 11) == f"{float(res.frames[k].link_queue[leave]):,.0f}"
        held = float(res.frames[k].link_ingress[leave ^ 1])          # PFC's ingress counter at the frame
        assert d.model.text(r, 13) == f"{held:,.0f} ({100 * held / 4e6:.0f} %)"      # of XOFF 4,000,000 B
        peak = float(res.fluid.max_ingress_bytes[leave ^ 1])
        assert d.model.text(r, 14) == f"{peak:,.0f} ({100 * peak / 4e6:.0f} %)"
        assert held <= peak
        assert d.model.text(r, 12) == ("pausing upstream" if res.frames[k].link_paused[leave ^ 1] else ""), i
    assert rows
    tr.player.set_frame(0)                                     # another frame: the bar follows it
    first = float(np.asarray(res.frames[0].link_queue, float)[sizes[hot]].sum())
    assert d.bar.queue_bytes == pytest.approx(first, rel=1e-12) and first != want
