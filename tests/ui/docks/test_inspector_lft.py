"""The inspector's LFT table for a selected switch, on the demo fabric (16 nodes, 4 leaves, 4 spines).

Expected rows come from the engine: ``route(fabric).switch_lft(name)`` and
``lid_owner()`` (LID → switch or CA port), read back through the table's model.
Without the Subnet Manager dock's routing, minhop runs in a worker thread:
``GatedRoute`` holds a run's result back so a test can select or edit meanwhile.
"""

from __future__ import annotations

import threading
import time

from PySide6 import QtCore

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib import routing
from fabricviz.ib.routing import route

WAIT = 60_000                # a generous deadline: only a hang waits this long


def table_rows(insp):
    """What the LFT view shows, read through its model as the view reads it."""
    m = insp.lft.model()
    return [tuple(m.data(m.index(r, c)) for c in range(3)) for r in range(m.rowCount())]


def engine_rows(r, name):
    f, sn = r.subnet.fabric, r.subnet
    row = r.switch_lft(name)
    out = []
    for lid, (kind, i) in sorted(r.lid_owner().items()):
        if int(row[lid]) != 255:
            dest = sn.switch_name(i) if kind == "sw" else f.port_name(int(sn.ca_ports[i]))
            out.append((str(lid), str(int(row[lid])), dest))
    return out


def select(w, qtbot, name):
    w.scene.select_devices([w.editor.fabric.device(name).id])
    qtbot.waitUntil(lambda: w.inspector.device == w.editor.fabric.device(name).id, timeout=WAIT)


def test_leaf01_lft_rows_match_the_engine(make_window, qtbot):
    w = make_window()
    insp = w.inspector
    f = w.editor.fabric
    select(w, qtbot, "leaf01")
    qtbot.waitUntil(lambda: not insp.lft_pending and insp.lft.isVisible(), timeout=WAIT)
    want = engine_rows(route(f), "leaf01")
    assert len(want) == 24                               # 16 HCA LIDs + 8 switch LIDs, all routed
    assert table_rows(insp) == want and insp.lft.isVisible()
    assert insp.lft_title.text() == "<b>LFT</b> — 24 routed LIDs, computed here (minhop)"
    # the switch's own LID goes to port 0, node01's HCA (on leaf01) to a down port, node16 to an uplink
    own = str(int(route(f).lids.sw_lid[route(f).subnet.sw_index[f.device("leaf01").id]]))
    assert (own, "0", "leaf01") in want
    dst = {d: p for _l, p, d in want}
    assert f.port(f"leaf01:{dst['node01/mlx5_0:1']}").peer.device.name == "node01/mlx5_0"
    assert f.port(f"leaf01:{dst['node16/mlx5_0:1']}").peer.device.name.startswith("spine")
    # a NIC has no LFT; a server neither
    select(w, qtbot, "node01")
    assert not insp.lft.isVisible() and not insp.lft_title.isVisible()


def test_lft_follows_the_sweep_dock_and_edits(make_window, qtbot):
    w = make_window()
    insp = w.inspector
    f = w.editor.fabric
    d = w.sweep_dock
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        w.findChild(type(w.acts["fit"]), "action_sweep").trigger()
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.engine_box.setCurrentText("updn")
    d.show_step(len(d.timeline) - 1)                 # the sweep's end: every LFT block pushed
    select(w, qtbot, "spine01")
    # up/down routes no spine-to-spine LIDs: 16 HCAs + 4 leaves + itself
    assert insp.lft_title.text() == "<b>LFT</b> — 21 routed LIDs, from the Subnet Manager sweep (updn)"
    assert table_rows(insp) == engine_rows(d.routing, "spine01") == engine_rows(route(f, "updn"), "spine01")
    # pull spine01's cable to leaf01: after the re-sweep the row for node01's LID has a new port
    c = f.port("spine01:1").cable.id
    peer = f.port("spine01:1").peer.device.name
    w.scene.set_selected_cables({c})
    before = dict((dst, port) for _l, port, dst in table_rows(insp))
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.tools.pull_cable()                   # a what-if: the inspector shows it while it follows the sweep
    d.show_step(len(d.timeline) - 1)
    w.scene.set_selected_cables(set())
    select(w, qtbot, "spine01")
    qtbot.waitUntil(lambda: "from the Subnet Manager sweep" in insp.lft_title.text() and table_rows(insp)
                    and dict((x, p) for _l, p, x in table_rows(insp)) != before, timeout=WAIT)
    rows = table_rows(insp)
    assert rows == engine_rows(d.routing, "spine01")
    assert all(p != "1" for _l, p, _d in rows)                       # nothing leaves on the pulled port
    assert peer in {x for _l, _p, x in rows}
    assert len(rows) == 24                     # the spines' LIDs now routed too (down and up again via a leaf)
    assert insp.lft_title.text() == ("<b>LFT</b> — 24 routed LIDs, from the Subnet Manager sweep (updn, "
                                     f"what-if: {f.cable(c).port_a.name} ↔ {f.cable(c).port_b.name} pulled)")
    # put back: the design's own sweep, the rows as before
    qtbot.mouseClick(d.back_button, QtCore.Qt.MouseButton.LeftButton)
    assert d.index == len(d.timeline) - 1      # the step shown before the pull: the sweep's end
    insp.refresh()
    assert dict((x, p) for _l, p, x in table_rows(insp)) == before
    d.show_step(0)                             # back at the first event: no LFT pushed yet
    insp.refresh()
    assert insp.lft_title.text().startswith("<b>LFT</b> — not yet pushed") and not table_rows(insp)


class GatedRoute:
    """Stands in for ``route`` in the inspector's worker: routes for real, then waits for ``gate``.

    Records each call's thread and result, so a test can act while a run is pending.
    """

    def __init__(self):
        self.gate, self.computed = threading.Event(), threading.Event()
        self.threads, self.results = [], []

    def __call__(self, f, *a, **kw):
        self.threads.append(threading.current_thread())
        got = route(f, *a, **kw)
        self.results.append(got)
        self.computed.set()
        assert self.gate.wait(20)
        return got


def test_selecting_switches_while_routing_shows_routing_then_the_rows_of_one_run(make_window, qtbot, monkeypatch):
    gated = GatedRoute()
    monkeypatch.setattr(routing, "route", gated)
    w = make_window()
    insp, f = w.inspector, w.editor.fabric
    select(w, qtbot, "leaf01")
    assert insp.lft_title.text() == "<b>LFT</b> — routing 8 switches with minhop…"
    assert insp.lft_pending and insp.lft_busy.isVisible() and not insp.lft.isVisible()
    assert insp.lft.model().rowCount() == 0
    qtbot.waitUntil(gated.computed.is_set, timeout=WAIT)       # the worker has routed; held back
    select(w, qtbot, "spine03")                      # another switch: the same pending run serves it
    qtbot.wait(30)
    assert insp.lft_title.text() == "<b>LFT</b> — routing 8 switches with minhop…"
    assert len(gated.threads) == 1 and insp.lft_busy.isVisible()
    gated.gate.set()
    with qtbot.waitSignal(insp.lft_ready, timeout=WAIT):
        pass
    qtbot.waitUntil(insp.lft.isVisible, timeout=WAIT)
    want = engine_rows(route(f), "spine03")
    assert len(want) == 24                           # minhop: 16 HCAs, 4 leaves, itself, 3 spines via leaves
    assert table_rows(insp) == want and not insp.lft_busy.isVisible()
    assert insp.lft_title.text() == "<b>LFT</b> — 24 routed LIDs, computed here (minhop)"
    assert gated.threads[0] is not threading.main_thread()
    # back to leaf01: the same result, no second run; a move keeps it too
    select(w, qtbot, "leaf01")
    assert table_rows(insp) == engine_rows(route(f), "leaf01") and insp.routings == 1
    w.editor.move([f.find("leaf01")], 30, 0)
    qtbot.wait(20)
    assert insp.lft.isVisible() and len(gated.threads) == 1 and insp.discarded == 0


def test_an_edit_while_routing_throws_the_stale_result_away_and_routes_again(make_window, qtbot, monkeypatch):
    gated = GatedRoute()
    monkeypatch.setattr(routing, "route", gated)
    w = make_window()
    insp, f = w.inspector, w.editor.fabric
    select(w, qtbot, "leaf01")
    qtbot.waitUntil(gated.computed.is_set, timeout=WAIT)   # the first run has routed the design as it was
    stale = dict((d, p) for _l, p, d in engine_rows(gated.results[0], "leaf01"))
    up = stale["node16/mlx5_0:1"]                    # the uplink leaf01 used towards node16
    assert f.port(f"leaf01:{up}").peer.device.name.startswith("spine")
    insp._idle.setInterval(60_000)                   # the user keeps editing: no pause yet
    assert insp.set_port_enabled(f.port_id(f"leaf01:{up}"), False)
    gated.gate.set()
    qtbot.waitUntil(lambda: insp.discarded == 1, timeout=WAIT)
    qtbot.wait(50)
    # the stale rows were never shown, and no new run starts before the edits pause
    assert len(gated.threads) == 1 and insp.lft_pending and not insp.lft.isVisible()
    assert insp.lft_title.text() == "<b>LFT</b> — routing 8 switches with minhop…"
    insp._idle.setInterval(0)
    insp._idle.start()                               # the edits paused
    qtbot.waitUntil(lambda: not insp.lft_pending and insp.lft.isVisible(), timeout=WAIT)
    assert len(gated.threads) == 2 and insp.routings == 2 and insp.discarded == 1
    rows = table_rows(insp)
    assert rows == engine_rows(route(f), "leaf01") == engine_rows(gated.results[1], "leaf01")
    assert all(p != up for _l, p, _d in rows)        # nothing leaves on the disabled port any more
    assert dict((d, p) for _l, p, d in rows)["node16/mlx5_0:1"] != up
    # undo while nothing runs: routed again for the design as it is
    w.acts["undo"].trigger()
    qtbot.waitUntil(lambda: not insp.lft_pending and insp.lft.isVisible(), timeout=WAIT)
    assert len(gated.threads) == 3 and table_rows(insp) == engine_rows(route(f), "leaf01")


def test_a_k16_fat_tree_switch_fills_from_a_worker_while_the_ui_thread_keeps_ticking(make_window, qtbot,
                                                                                       monkeypatch):
    """The routing runs on a worker thread and the UI thread keeps running meanwhile: the routing
    waits (up to 60 s) for two ticks of a UI-thread timer before it starts. Had it run on the UI
    thread, no tick could come and the wait would time out."""
    spans = []
    ticked = threading.Event()

    def timed(f, *a, **kw):
        waited = ticked.wait(60.0)
        t0 = time.perf_counter()
        got = route(f, *a, **kw)
        spans.append((waited, t0, time.perf_counter(), threading.current_thread()))
        return got

    monkeypatch.setattr(routing, "route", timed)
    w = make_window()
    w.apply_generated(k_ary_fat_tree(16))            # 1,024 hosts, 320 switches
    insp, f = w.inspector, w.editor.fabric
    ticks = []
    timer = QtCore.QTimer()
    timer.setInterval(2)
    timer.timeout.connect(lambda: (ticks.append(time.perf_counter()), len(ticks) >= 2 and ticked.set()))
    select(w, qtbot, "leaf001")
    timer.start()
    assert insp.lft_title.text() == "<b>LFT</b> — routing 320 switches with minhop…"
    qtbot.waitUntil(lambda: not insp.lft_pending and insp.lft.isVisible(), timeout=30_000)
    timer.stop()
    (waited, t0, t1, thread), = spans
    assert thread is not threading.main_thread()
    assert waited and len(ticks) >= 2                # the UI thread ticked while the routing waited
    want = engine_rows(route(f), "leaf001")
    assert len(want) == 1024 + 320                   # every HCA and switch LID has a route from a leaf
    assert table_rows(insp) == want
    assert insp.lft_title.text() == "<b>LFT</b> — 1,344 routed LIDs, computed here (minhop)"


def test_lid_destinations_are_lid_owner_as_arrays_also_with_lmc():
    from fabricviz.formats.native import load_fabric
    from fabricviz.ib.lft_diff import lid_destinations
    from fabricviz.ui.main_window import DEMO_FABRIC
    f = load_fabric(DEMO_FABRIC)
    for lmc in (0, 2):
        r = route(f, lmc=lmc)
        lids, is_sw, idx = lid_destinations(r)
        want = sorted(r.lid_owner().items())
        assert len(want) == 8 + 16 * (1 << lmc)      # 8 switch LIDs (port 0 only), 2^LMC per HCA port
        assert [(int(lid), ("sw" if s else "ca", int(i))) for lid, s, i in zip(lids, is_sw, idx, strict=True)] == want
