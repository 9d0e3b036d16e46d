"""View ▸ VL Layers and View ▸ VL Usage on real windows: the cables' VL colours, stripes and counts,
through the semantic zoom's bundles, the legend rows and the status bar.

Ring of 4 (tests/ib/topologies.py) routed by minhop, with a dateline PathSL put in the routing
cache as the SM's routing: the three routes that cross sw4 → sw1 (h3→h1, h4→h1, h4→h2) ride
SL1, the rest SL0; with identity SL2VL 7 of the 8 cables carry VL0 and VL1, sw2–sw3 only VL0.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtGui, QtWidgets

from fabricviz.formats.ibnetdiscover import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.path_sl import PathSL
from fabricviz.ib.routing import route
from fabricviz.ib.trace import trace
from fabricviz.ui.canvas.legend import overlay_rows
from fabricviz.ui.canvas.overlays.bundled import colours_of
from fabricviz.ui.canvas.overlays.vl_layers import MIXED, PALETTE
from fabricviz.ui.canvas.overlays.vl_usage import usage_colour
from tests.ib.topologies import ring
from tests.ui.route_helpers import pairs, routed_pairs
from tests.ui.zoom_helpers import far_view

WAIT = 60_000                # a generous deadline: only a hang waits this long
HOSTS = ("h1", "h2", "h3", "h4")


def action(w, name):
    return w.findChild(QtGui.QAction, name)


def segments(item) -> int:
    return item.path().elementCount() // 2


def lid_path_sl(r, sl_of) -> PathSL:
    """Rows and columns by CA LID (as dfsssp keys them); ``sl_of(j, k)`` per CA port pair."""
    lids = r.lids.ca_lid.astype(np.int64)
    rows = np.full(int(lids.max()) + 1, -1, np.int32)
    rows[lids] = np.arange(len(lids))
    n = len(lids)
    table = np.array([[sl_of(j, k) if j != k else 255 for k in range(n)] for j in range(n)], np.uint8)
    return PathSL("dfsssp", rows, rows.copy(), table, np.ones(16, np.uint8), 2)


def sweep_routing(w, r) -> None:
    """``r`` as the SM's routing of the window's design (what the Subnet Manager dock stores)."""
    w.document.routing.put("lft:sweep", r)


def show_layers(w, qtbot) -> None:
    a = action(w, "action_vl_layers")
    assert a.isCheckable() and not a.isChecked() and a in w.acts.menu("view").actions()
    a.trigger()
    assert w.document.jobs.wait("vl-layers", 10)
    qtbot.waitUntil(lambda: len(w.vl_layers.cables) > 0, timeout=WAIT)


@pytest.fixture
def ring4(make_window):
    w = make_window()
    w.editor.set_fabric(loads(ring(4).text()))
    QtWidgets.QApplication.processEvents()
    f = w.document.fabric
    r = route(f, "minhop")
    idx = {f.name_of(int(f.ports_t.device[p])): j for j, p in enumerate(r.subnet.ca_ports.tolist())}
    wraps = {(idx[a], idx[b]) for a in HOSTS for b in HOSTS
             if a != b and any(h.switch == "sw4" and h.out_port == 1 for h in trace(r, a, b).hops)}
    assert len(wraps) == 3
    r.info.path_sl = lid_path_sl(r, lambda j, k: 1 if (j, k) in wraps else 0)
    return w, f, r


def test_vl_layers_colour_and_stripe_each_cable(ring4, qtbot):
    w, f, r = ring4
    sweep_routing(w, r)
    show_layers(w, qtbot)
    ov = w.vl_layers
    assert sorted(ov.items) == [(0, 0, 1), (0, 0, 2), (1, 1, 2)]
    only0, both = ov.cables[ov.masks == 0b01], ov.cables[ov.masks == 0b11]
    assert (len(only0), len(both)) == (1, 7)      # each drawn along its own route, not straight
    assert pairs(ov.items[(0, 0, 1)]) == routed_pairs(f, only0)
    assert pairs(ov.items[(0, 0, 2)]) == pairs(ov.items[(1, 1, 2)]) == routed_pairs(f, both)
    assert len(routed_pairs(f, both)) > 7
    only0 = ov.items[(0, 0, 1)]
    assert only0.pen().color().name() == PALETTE[0] == "#1971c2" and only0.pen().dashPattern() == []
    first, second = ov.items[(0, 0, 2)].pen(), ov.items[(1, 1, 2)].pen()
    assert (first.color().name(), second.color().name()) == ("#1971c2", "#e8590c")
    assert first.dashPattern() == second.dashPattern() == [3.0, 3.0]
    assert (first.dashOffset(), second.dashOffset()) == (0.0, -3.0)      # the two colours alternate
    sw23 = next(c for c in range(f.cables_t.n) if {"sw2", "sw3"} <= set(f.cable(c).label.replace(":", " ").split()))
    assert int(ov.masks[ov.cables == sw23][0]) == 0b01
    assert ov.status_text == ("VL layers (minhop): VL0 on 8 cables, VL1 on 7 cables; "
                              "7 cables carry several VLs (striped)")
    assert w.statusBar().currentMessage() == ov.status_text
    assert [(t, c.name()) for t, c, _s in ov.legend_rows()] == [
        ("VL0 (8 cables)", "#1971c2"), ("VL1 (7 cables)", "#e8590c"),
        ("several VLs on one cable: striped (bundles: dark)", MIXED)]
    picture = [(t, c.name()) for t, c, _s in overlay_rows(w.scene.items(), w.scene)]
    assert picture == [("VL0", "#1971c2"), ("VL0 (striped: a cable with several VLs)", "#1971c2"),
                       ("VL1 (striped: a cable with several VLs)", "#e8590c")]
    action(w, "action_vl_layers").trigger()                     # off: every item goes
    assert ov.items == {} and not [i for i in w.scene.items() if i.data(2) == "vl_layers"]


def test_vl_layers_default_routing_is_all_vl0_and_follows_edits(ring4, qtbot):
    w, f, _r = ring4
    show_layers(w, qtbot)                      # no sweep: the design's minhop routing, every path SL0
    ov = w.vl_layers
    assert sorted(ov.items) == [(0, 0, 1)] and len(ov.cables) == 8
    assert pairs(ov.items[(0, 0, 1)]) == routed_pairs(f, ov.cables)
    assert ov.status_text == "VL layers (minhop): VL0 on 8 cables"
    w.editor.remove([], [0])                   # an edit: the routing cache forgets, the layers follow
    assert w.document.jobs.wait("vl-layers", 10)
    qtbot.waitUntil(lambda: bool(ov.items) and len(ov.cables) == 7
                    and pairs(ov.items[(0, 0, 1)]) == routed_pairs(w.document.fabric, ov.cables), timeout=WAIT)


def test_vl_layers_colour_the_bundles_zoomed_out(make_window, qtbot):
    w = make_window()
    f = k_ary_fat_tree(8)
    sem = far_view(w, f)
    assert sem.level == "far" and len(sem.bundles) == 8
    r = route(f, "ftree")
    r.info.path_sl = lid_path_sl(r, lambda j, k: 1)          # every path on SL1
    sweep_routing(w, r)
    show_layers(w, qtbot)
    assert colours_of(w.scene).shown == "vl_layers"
    assert {QtGui.QColor.fromRgba(int(c)).name() for c in sem.bundle_rgba().tolist()} == {PALETTE[1]}
    ov = w.vl_layers
    assert ov.items == {} and len(ov.cables) == 128 + 256 and ov.vl_counts() == {1: 384}   # all in boxes / bundles
    # half the sources on SL0: every bundle carries both VLs → the mixed colour
    r2 = route(f, "ftree")
    r2.info.path_sl = lid_path_sl(r2, lambda j, k: j % 2)
    sweep_routing(w, r2)
    assert w.document.jobs.wait("vl-layers", 10)
    qtbot.waitUntil(lambda: ov._routing is r2 and int(ov.masks.max()) == 0b11, timeout=WAIT)
    assert {QtGui.QColor.fromRgba(int(c)).name() for c in sem.bundle_rgba().tolist()} == {MIXED}
    action(w, "action_vl_layers").trigger()
    assert colours_of(w.scene).shown != "vl_layers"


def test_vl_usage_draws_the_dominant_vl_and_its_share(ring4, qtbot):
    w, f, _r = ring4
    dock = w.traffic_dock
    dock.configure(workload="permutation", model="maxmin", seed=0)
    a = action(w, "action_vl_usage")
    a.trigger()
    assert w.vl_usage.status_text == "VL usage: run traffic first"
    with qtbot.waitSignal(dock.result_ready, timeout=WAIT):
        assert dock.run()
    qtbot.waitUntil(lambda: not dock.running, timeout=WAIT)
    res = dock.result
    # per-VL rates as the simulator gives them ([links, 16] Gbps): four cables with known mixes
    g = np.zeros((res.links.n, 16))
    g[2 * 0, 0] = 10.0                                   # cable 0: VL0 alone → full colour
    g[2 * 1, 1], g[2 * 1 + 1, 0] = 8.0, 2.0              # cable 1: VL1 80 % (both directions added)
    g[2 * 2, 2], g[2 * 2, 0] = 4.0, 3.0                  # cable 2: VL2 57 %
    g[2 * 3, [3, 0, 1]] = 2.0, 2.0, 1.0                  # cable 3: VL0 40 % (the first of the tie)
    object.__setattr__(res, "link_vl_gbps", g)
    dock.result_ready.emit(res)
    ov = w.vl_usage
    assert sorted(ov.items) == [(0, 0), (0, 3), (1, 1), (2, 2)]
    # one cable each, drawn along its own route (the cable layer's segments)
    from fabricviz.ui.canvas.items.cables import routed_path
    assert all(ov.items[k].path() == routed_path(ov.fabric, np.array([c]))
               for k, c in (((0, 0), 0), ((1, 1), 1), ((2, 2), 2), ((0, 3), 3)))
    assert all(segments(ov.items[k]) >= 1 for k in ov.items)
    assert ov.items[(1, 1)].pen().color().name() == usage_colour(1, 1).name() == "#ef8b55"
    assert ov.items[(0, 0)].pen().color().name() == PALETTE[0]
    assert ov.status_text == "VL usage: VL0 leads on 2 cables, VL1 leads on 1 cable, VL2 leads on 1 cable"
    assert [t for t, _c, _s in ov.legend_rows()] == [
        "VL0 carries ≥ 95 % of the cable's Gbps", "VL0 carries < 50 % of the cable's Gbps",
        "VL1 carries 75–95 % of the cable's Gbps", "VL2 carries 50–75 % of the cable's Gbps"]
    a.trigger()
    assert ov.items == {}
