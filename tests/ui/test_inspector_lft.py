"""The inspector's LFT table for a selected switch, on the demo fabric (16 nodes, 4 leaves, 4 spines).

Expected rows come from the engine: ``route(fabric).switch_lft(name)`` and
``lid_owner()`` (LID → switch or CA port), read back from the table widget.
"""

from __future__ import annotations

from fabricviz.ib.routing import route
from fabricviz.ui import sweep_dock

WAIT = 10_000


def table_rows(insp):
    t = insp.lft
    return [tuple(t.item(r, c).text() for c in range(3)) for r in range(t.rowCount())]


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
    d = sweep_dock.integrate(w)
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        w.findChild(type(w.action_fit), "action_sweep").trigger()
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.engine_box.setCurrentText("updn")
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
        d.pull_cable()
    select(w, qtbot, "spine01")
    qtbot.waitUntil(lambda: dict((x, p) for _l, p, x in table_rows(insp)) != before, timeout=WAIT)
    rows = table_rows(insp)
    assert rows == engine_rows(d.routing, "spine01")
    assert all(p != "1" for _l, p, _d in rows)                       # nothing leaves on the pulled port
    assert peer in {x for _l, _p, x in rows}
