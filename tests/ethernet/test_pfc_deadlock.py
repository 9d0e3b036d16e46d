"""PFC deadlock check: buffer dependency cycles of ECMP routes, bounce routes after failed links,
the CLI (exit codes, JSON), the lint rule and the flows that close a cycle.

Leaf-spine 4 leaves × 3 spines, one host per leaf: leafNN:2/3/4 go to spine01/02/03 port NN.
Failing spine02–leaf03 and spine01–leaf04 makes spine02 bounce leaf03's traffic and spine01
leaf04's down to another leaf and up again; the two down-up turns close the cycle
leaf01 → spine01 → leaf02 → spine02 → leaf01.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from fabricviz.check.lint import lint
from fabricviz.cli import main
from fabricviz.ethernet.pfc_closing import closing_flows
from fabricviz.ethernet.pfc_deadlock import cable_of, check_pfc_deadlock
from fabricviz.formats.native import save_fabric as save
from fabricviz.generate import leaf_spine, ring
from fabricviz.model import FabricError

TWO_FAILURES = ("spine02:3", "leaf04:2 – spine01:4")
CYCLE_BUFFERS = ("spine01:1", "leaf02:2", "spine02:2", "leaf01:3")


@pytest.fixture(scope="module")
def ls43():
    return leaf_spine(4, 3, 1)


def nic(i: int) -> str:
    return f"node{i:02d}/mlx5_0"


def test_healthy_leaf_spine_has_no_cycle(ls43):
    c = check_pfc_deadlock(ls43)
    assert c.cycles == [] and c.priorities == (3,) and c.failed == ()
    # 12 leaf–spine cables: 24 ingress buffers; each leaf→spine buffer feeds the 3 other leaves
    # (12 × 3) — nothing ever leaves a spine's downlink buffer but towards a host
    assert (c.buffers, c.dependencies, c.switches, c.detours) == (24, 36, 7, ())


def test_one_failure_bounces_without_a_cycle(ls43):
    c = check_pfc_deadlock(ls43, failed=["spine02:3"])
    assert c.failed_names == ("leaf03:3 – spine02:3",)
    assert c.cycles == []
    ids = {ls43.name_of(s): ls43.name_of(t) for s, t in c.detours}
    assert ids == {"spine02": "leaf03"}          # spine02 lost leaf03: it bounces that traffic
    assert c.dependencies == 39                  # 36 - 3 over the dead link + 6 of the bounces
    conv = check_pfc_deadlock(ls43, failed=["spine02:3"], routing="converged")
    assert conv.cycles == [] and conv.detours == () and conv.dependencies == 30


def test_two_failures_close_the_textbook_cycle(ls43):
    c = check_pfc_deadlock(ls43, failed=TWO_FAILURES)
    assert len(c.cycles) == 1
    cyc = c.cycles[0]
    assert cyc.priority == 3
    assert cyc.ring() == "leaf01 → spine01 → leaf02 → spine02 → leaf01"
    assert cyc.buffers == CYCLE_BUFFERS
    assert cyc.ports == tuple(ls43.port_id(p) for p in CYCLE_BUFFERS)
    assert [ls43.cable(x).label for x in cyc.cables] == [
        "leaf01:2 – spine01:1", "leaf02:2 – spine01:2", "leaf02:3 – spine02:2", "leaf01:3 – spine02:1"]
    assert cyc.size == 8
    # flows leaf01 ↔ leaf02 over the cycle, and those that bounce: leaf0x → leaf03 at spine02,
    # leaf0x → leaf04 at spine01, and leaf03 ↔ leaf04 coming down the bounce
    assert cyc.flow_names == tuple(f"{nic(a)} → {nic(b)}" for a, b in (
        (1, 2), (1, 3), (1, 4), (2, 1), (2, 3), (2, 4), (3, 4), (4, 3)))
    assert {ls43.name_of(s) for s, _t in c.detours} == {"spine01", "spine02"}
    # once every switch recomputed its ECMP (leaf03 reaches leaf04 over spine03) the cycle is gone
    assert check_pfc_deadlock(ls43, failed=TWO_FAILURES, routing="converged").cycles == []


def test_disabled_ports_count_as_failures_and_priorities_come_from_the_design():
    f = leaf_spine(4, 3, 1)
    f.set_port_state(f.port_id("spine02:3"), "disabled")
    f.set_port_state(f.port_id("leaf04:2"), "disabled")
    f.set_meta("roce", {"priorities": [3, 4]})
    c = check_pfc_deadlock(f)
    assert c.failed_names == ("leaf03:3 – spine02:3", "leaf04:2 – spine01:4")
    assert [(x.priority, x.buffers) for x in c.cycles] == [(3, CYCLE_BUFFERS), (4, CYCLE_BUFFERS)]
    assert [x.priority for x in check_pfc_deadlock(f, priorities=[5]).cycles] == [5]


def test_ring_of_ethernet_switches_has_a_cycle_each_way():
    f = ring(4, fabric="roce")
    c = check_pfc_deadlock(f)
    assert [x.ring() for x in c.cycles] == ["sw-0 → sw-1 → sw-2 → sw-3 → sw-0",
                                             "sw-0 → sw-3 → sw-2 → sw-1 → sw-0"]
    assert c.cycles[0].buffers == ("sw-1:1", "sw-2:1", "sw-3:1", "sw-0:1")
    # the two-hop flows (opposite switches) make every dependency; one-hop flows none
    assert c.cycles[0].flow_names == tuple(f"{nic(a)} → {nic(b)}" for a, b in ((1, 3), (2, 4), (3, 1), (4, 2)))
    assert (c.buffers, c.dependencies) == (8, 8)
    assert check_pfc_deadlock(ring(3, fabric="roce")).cycles == []     # every route is one hop


def test_closing_flows_follow_the_cycle(ls43):
    cyc = check_pfc_deadlock(ls43, failed=TWO_FAILURES).cycles[0]
    cf = closing_flows(ls43, cyc, failed=TWO_FAILURES)
    assert len(cf) == 4
    deps = {(cyc.links[k], cyc.links[(k + 1) % 4]) for k in range(4)}
    covered = set()
    for src, dst, sp, dp, path in zip(cf.src, cf.dst, cf.src_port, cf.dst_port, cf.paths, strict=True):
        assert ls43.ports_t.device[sp] == src and ls43.ports_t.device[dp] == dst
        assert path[0] // 2 == ls43.ports_t.cable[sp] and path[-1] // 2 == ls43.ports_t.cable[dp]
        covered |= set(zip(path[:-1].tolist(), path[1:].tolist(), strict=True)) & deps
    assert covered == deps                        # together the flows add every dependency
    got = cf.provider()(ls43, None, cf.src_port[::-1], cf.dst_port[::-1])
    assert [p.tolist() for p in got] == [p.tolist() for p in cf.paths[::-1]]
    assert (ls43.name_of(int(cf.src[0])), ls43.name_of(int(cf.dst[0]))) == (nic(1), nic(2))


def test_cable_references_and_refusals(ls43):
    assert cable_of(ls43, "leaf01:3") == cable_of(ls43, "leaf01:3 – spine02:1") == cable_of(ls43, "spine02:1")
    with pytest.raises(FabricError, match="no cable joins"):
        cable_of(ls43, "leaf01:3 – spine01:2")
    with pytest.raises(FabricError, match="no Ethernet switches"):
        check_pfc_deadlock(leaf_spine(2, 1, 1, fabric="ib"))
    with pytest.raises(FabricError, match="routing 'lazy'"):
        check_pfc_deadlock(ls43, routing="lazy")


def test_cli_exit_codes_and_json(ls43, tmp_path, capsys):
    path = tmp_path / "ls.json"
    save(ls43, path)
    assert main(["check-pfc-deadlock", str(path)]) == 0
    assert capsys.readouterr().out.startswith("no cyclic buffer dependency on lossless priority 3:")
    assert main(["check-pfc-deadlock", str(path), "--fail", "spine02:3", "--fail", "leaf04:2", "--json"]) == 1
    got = json.loads(capsys.readouterr().out)
    assert got["deadlock"] is True and got["routing"] == "bounce" and got["priorities"] == [3]
    assert [x["name"] for x in got["failed"]] == ["leaf03:3 – spine02:3", "leaf04:2 – spine01:4"]
    (cyc,) = got["cycles"]
    assert cyc["ring"] == ["leaf01", "spine01", "leaf02", "spine02"] and cyc["buffers"] == list(CYCLE_BUFFERS)
    assert len(cyc["flows"]) == 8 and cyc["flows"][0]["name"] == f"{nic(1)} → {nic(2)}"
    assert main(["check-pfc-deadlock", str(path), "--fail", "spine02:3", "--fail", "leaf04:2",
                 "--routing", "converged"]) == 0
    capsys.readouterr()
    assert main(["check-pfc-deadlock", str(path), "--fail", "spine09:1"]) == 2
    assert "spine09" in capsys.readouterr().err


def test_lint_warns_with_the_ring_and_the_failed_links():
    f = leaf_spine(4, 3, 1)
    assert lint(f, ["pfc-deadlock"]).findings == []
    f.set_port_state(f.port_id("spine02:3"), "disabled")
    f.set_port_state(f.port_id("spine01:4"), "disabled")
    (w,) = lint(f, ["pfc-deadlock"]).findings
    assert w.severity == "warning" and w.where == "leaf01"
    assert w.message.startswith(
        "PFC deadlock possible on priority 3: leaf01 → spine01 → leaf02 → spine02 → leaf01 after "
        "leaf03:3 – spine02:3, leaf04:2 – spine01:4 went down (bounce routes); closed by 8 flow(s), e.g. "
        f"{nic(1)} → {nic(2)}, ")
    assert w.ports == tuple(f.port_id(p) for p in CYCLE_BUFFERS)
    assert np.array_equal(sorted(w.ports), sorted(f.port_id(p) for p in CYCLE_BUFFERS))


def test_a_cut_off_leaf_is_unreachable_not_a_bounce_detour():
    """leaf01 loses both uplinks: its traffic has nowhere to go (6 leaf pairs unreachable), no
    switch bounces it, and leaf01 no longer counts among the switches of the graph."""
    f = leaf_spine(4, 2, 8)
    c = check_pfc_deadlock(f, failed=["leaf01:9", "leaf01:10"])
    assert (c.detours, c.switches, len(c.unreachable)) == ((), 5, 6)
    assert c.summary().endswith("over 5 Ethernet switches; 0 bounce detour(s); "
                                "6 unreachable (source, destination) switch pair(s), leaf01 cut off")
    assert c.to_dict()["cut_off"] == ["leaf01"]
    one = check_pfc_deadlock(f, failed=["leaf01:9"])           # still reachable over spine02: a detour
    assert ([(f.name_of(s), f.name_of(t)) for s, t in one.detours], one.unreachable, one.switches) == (
        [("spine01", "leaf01")], (), 6)
