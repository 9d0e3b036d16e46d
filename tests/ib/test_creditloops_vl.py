"""Credit loops per VL: the SLs of the paths (PathSL) through the SL2VL tables (per port pair)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from fabricviz.formats.ibnetdiscover import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.creditloops import check_credit_loops, find_credit_loops
from fabricviz.ib.path_sl import PathSL
from fabricviz.ib.qos import QosOptions, QosSet, compute_qos
from fabricviz.ib.routing import route
from fabricviz.ib.trace import trace
from fabricviz.ib.vl_layers import cable_vls, sl2vl_of, walk_vls
from tests.ib.topologies import dragonfly, ring, torus_2d

RING_LOOP = ("sw2:1", "sw3:1", "sw4:1", "sw1:1")     # OpenSM's minhop on a 4-ring: all 2-hop routes clockwise
HOSTS = ("h1", "h2", "h3", "h4")


@pytest.fixture(scope="module")
def ring4():
    return route(loads(ring(4).text()), "minhop")


def _path_sl(r, sl_of) -> PathSL:
    """A dfsssp-style PathSL: rows and columns by CA LID, ``sl_of(src, dst)`` per host pair."""
    f = r.subnet.fabric
    lid = {h: int(trace(r, h, HOSTS[0] if h != HOSTS[0] else HOSTS[1]).slid) for h in HOSTS}
    size = max(lid.values()) + 1
    rows = np.full(size, -1, np.int32)
    for k, h in enumerate(HOSTS):
        rows[lid[h]] = k
    table = np.full((4, 4), 255, np.uint8)
    for a, src in enumerate(HOSTS):
        for b, dst in enumerate(HOSTS):
            if a != b:
                table[a, b] = sl_of(src, dst)
    assert f.name_of(int(r.subnet.sm_node))          # the subnet is the routed one
    return PathSL("dfsssp", rows, rows.copy(), table, np.ones(16, np.uint8), 2)


def _wraps(r, src: str, dst: str) -> bool:
    """The route crosses the dateline: sw4 port 1 (sw4 → sw1, clockwise)."""
    return any(h.switch == "sw4" and h.out_port == 1 for h in trace(r, src, dst).hops)


def test_all_paths_on_sl0_keep_the_vl0_loop(ring4):
    (loop,) = find_credit_loops(ring4, path_sl=_path_sl(ring4, lambda a, b: 0))
    assert loop.channels == RING_LOOP and loop.vls == (0, 0, 0, 0) and loop.layer == (0,)
    assert loop.destinations == (2, 4, 5, 7) and loop.size == 4
    assert loop.format().startswith("credit loop over 4 channels (4 in its component) on VL0: sw2:1 -> sw3:1")
    # the same as the caller-given SL with no path_sl, and as today's VL0-only call
    assert find_credit_loops(ring4) == [loop]


def test_dateline_sl1_breaks_the_loop_and_sl2vl_to_vl0_brings_it_back(ring4):
    wraps = [(a, b) for a in HOSTS for b in HOSTS if a != b and _wraps(ring4, a, b)]
    assert wraps == [("h3", "h1"), ("h4", "h1"), ("h4", "h2")]
    psl = _path_sl(ring4, lambda a, b: 1 if (a, b) in wraps else 0)
    check = check_credit_loops(ring4, path_sl=psl)
    assert check.loops == [] and check.vls == (0, 1) and check.layered
    assert check.summary() == "no credit loops on any VL (minhop, 2 VLs)"
    # QoS on, SL1 → VL0 on every port: the two layers are one lane again
    back = QosOptions(qos=True, default=QosSet(sl2vl=(0, 0) + tuple(range(2, 15)) + (7,)))
    (loop,) = find_credit_loops(ring4, path_sl=psl, sl2vl=back)
    assert loop.channels == RING_LOOP and loop.layer == (0,) and loop.destinations == (2, 4, 5, 7)
    # OpenSM's default tables (SL n → VL n) keep them apart
    assert find_credit_loops(ring4, path_sl=psl, sl2vl=compute_qos(ring4.subnet, QosOptions(qos=True))) == []


def test_the_loop_follows_the_sl_to_its_vl(ring4):
    (loop,) = find_credit_loops(ring4, sl=1)
    assert loop.channels == RING_LOOP and loop.vls == (1, 1, 1, 1)
    assert "on VL1: sw2:1 -> " in loop.format()
    check = check_credit_loops(ring4, sl=3, sl2vl=QosOptions(qos=True, default=QosSet(sl2vl=(5,) * 15 + (15,))))
    assert [lp.layer for lp in check.loops] == [(5,)]
    assert check.summary() == "1 credit loop(s) on VL5 (minhop, 1 VL)"
    # an SL its tables map to VL15 is dropped at the first port: no route, no loop
    gone = check_credit_loops(ring4, sl=15, sl2vl=np.array(tuple(range(15)) + (15,), np.uint8))
    assert gone.loops == [] and gone.walk.dropped == 4 * 3 and gone.vls == ()


def test_vl_changes_hop_by_hop_with_per_in_port_tables(ring4):
    """sw1 puts what comes in from sw4 (its port 2) on VL1 towards sw2: the dependency
    (sw4:1, VL0) → (sw1:1, VL1) leaves VL0's cycle open, and no route goes on from sw1:1 on VL1."""
    sn = ring4.subnet
    S, P1 = sn.num_switches, sn.nbr_dev.shape[1]
    full = np.broadcast_to(np.arange(16, dtype=np.uint8), (S, P1, P1, 16)).copy()
    sw1 = sn.sw_index[sn.fabric.device_id("sw1")]
    full[sw1, 2, 1, 0] = 1
    table = sl2vl_of(sn, full)
    assert table.by_in
    w = walk_vls(ring4, sl2vl=table)
    P1v = P1 * 16
    deps = {(f"{sn.switch_name(a // P1v)}:{a // 16 % P1}/{a % 16}", f"{sn.switch_name(b // P1v)}:{b // 16 % P1}/{b % 16}")
            for a, b in zip(w.dep_a.tolist(), w.dep_b.tolist(), strict=True)}
    assert ("sw4:1/0", "sw1:1/1") in deps and ("sw1:1/0", "sw2:1/0") in deps
    assert not any(a == "sw1:1/1" for a, _b in deps)
    assert find_credit_loops(ring4, sl2vl=table) == []
    assert w.vls_used() == (0, 1)


def test_cable_vls_are_the_union_of_both_directions(ring4):
    f = ring4.subnet.fabric
    wraps = {("h3", "h1"), ("h4", "h1"), ("h4", "h2")}
    psl = _path_sl(ring4, lambda a, b: 1 if (a, b) in wraps else 0)
    cables, masks = cable_vls(ring4, walk_vls(ring4, path_sl=psl))
    by_label = {f.cable(int(c)).label: int(m) for c, m in zip(cables, masks, strict=True)}
    sw4_sw1 = next(lbl for lbl in by_label if "sw4" in lbl and "sw1" in lbl)
    assert by_label[sw4_sw1] == 0b11                  # VL1 clockwise (the wrapping routes), VL0 back
    assert sorted(by_label.values()).count(0b11) == len([m for m in by_label.values() if m == 0b11])
    assert len(by_label) == 8 and all(m in (0b01, 0b11) for m in by_label.values())


def test_today_numbers_on_trees_and_speed_sized_fabrics():
    assert find_credit_loops(route(k_ary_fat_tree(8), "ftree")) == []
    torus = route(loads(torus_2d(4, 4).text()), "minhop")
    (loop,) = find_credit_loops(torus)
    assert loop.size == 59 and loop.layer == (0,)


ENGINES_THERE = {e: importlib.util.find_spec(f"fabricviz.ib.{e}") is not None for e in ("dfsssp", "lash")}


@pytest.mark.parametrize("engine", ["dfsssp", "lash"])
@pytest.mark.parametrize("net", [ring(5), torus_2d(4, 4), dragonfly(4, 4, 1)], ids=["ring5", "torus4x4", "dragonfly"])
def test_deadlock_free_engines_have_no_loop_on_any_vl(engine, net):
    if not ENGINES_THERE[engine]:
        pytest.skip(f"fabricviz.ib.{engine} is not written yet")
    f = loads(net.text())
    assert find_credit_loops(route(f, "minhop"))          # minhop has one
    r = route(f, engine)
    assert r.routed_by == engine and r.info.path_sl is not None
    check = check_credit_loops(r)
    assert check.loops == [] and len(check.vls) >= 2


def test_check_loops_cli_names_the_vl(tmp_path, capsys):
    from fabricviz.cli import main
    from fabricviz.formats.native import save_fabric
    from fabricviz.ib.qos_meta import META_KEY, to_meta
    p = tmp_path / "ring4.net"
    p.write_text(ring(4).text())
    assert main(["check-loops", str(p)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "credit loop over 4 channels (4 in its component) on VL0: " \
                     "sw2:1 -> sw3:1 -> sw4:1 -> sw1:1 -> sw2:1"
    assert out[-1] == "1 credit loop(s)"
    assert main(["check-loops", str(p), "--sl", "2"]) == 1
    assert " on VL2: sw2:1 -> " in capsys.readouterr().out
    # the design's QoS options: SL2 → VL6 on every port
    f = loads(ring(4).text())
    f.meta[META_KEY] = to_meta(QosOptions(qos=True, default=QosSet(sl2vl=(0, 1, 6) + tuple(range(3, 15)) + (7,))))
    save_fabric(f, tmp_path / "ring4.fabric.json")
    assert main(["check-loops", str(tmp_path / "ring4.fabric.json"), "--sl", "2"]) == 1
    assert " on VL6: sw2:1 -> " in capsys.readouterr().out
    tree = tmp_path / "k4.fabric.json"
    save_fabric(k_ary_fat_tree(4), tree)
    assert main(["check-loops", str(tree), "--engine", "ftree"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "no credit loops on any VL (ftree, 1 VL)"
    if ENGINES_THERE["dfsssp"]:
        assert main(["check-loops", str(p), "--engine", "dfsssp"]) == 0
        last = capsys.readouterr().out.splitlines()[-1]
        assert last.startswith("no credit loops on any VL (dfsssp, ") and last.endswith(" VLs)")


def test_lint_names_the_vl():
    from fabricviz.check.lint import lint
    (x,) = lint(loads(ring(4).text()), rules=["credit-loop"]).by_rule("credit-loop")
    assert x.message.startswith("credit loop in minhop routing over 4 channels "
                                "(sw2:1 -> sw3:1 -> sw4:1 -> sw1:1 -> sw2:1) on VL0, from routes to 4 LID(s)")
