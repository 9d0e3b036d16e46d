"""Lesson 7, "Partitions: who can talk to whom": each step's results are the engines'.

The lesson's fabric: a 2-level fat tree, compute01-04 under leaf01, compute05, compute06,
storage01, storage02 under leaf02, four spines, the SM on spine01. Partitions: storage
(0x8001) with the storage servers full and every compute host limited, compute (0x8002)
with compute01-04 full; with a file every end port is also a limited member of the Default
partition and only the SM's port (spine01 port 0) a full one.
"""

from __future__ import annotations

import re

import pytest

from fabricviz.anim.lesson_results import PartitionRow, TalkVerdict
from fabricviz.anim.lessons import find_lesson, parse_lesson, resolve_until
from fabricviz.anim.sweep_timeline import narrate
from fabricviz.cli import main
from fabricviz.ib.partitions import design_partitions
from fabricviz.ib.pkeys import design_tables
from fabricviz.ib.routing import default_sm
from fabricviz.ib.subnet import discover
from fabricviz.model import FabricError
from fabricviz.sim.partitioned import partition_scope
from tests.anim.lesson_runs import shared_run

COMPUTE = tuple(f"compute{i:02d}" for i in range(1, 7))
STORAGE = ("storage01", "storage02")


@pytest.fixture(scope="module")
def lesson():
    les = find_lesson("7")
    return les, shared_run(les)


def _step(res, title):
    return next(r for r in res if r.title == title)


def test_the_lesson_loads_runs_and_its_text_has_no_numbers_of_its_own(lesson):
    les, res = lesson
    assert les.number == 7 and les.name == "partitions" and les.title == "Partitions: who can talk to whom"
    assert [r.action for r in res] == ["partitions", "sweep", "sweep", "sweep", "reach", "reach", "simulate",
                                       "simulate"]
    for step in les.steps:                 # names like compute05 are names; no figure stands alone
        assert not re.search(r"\b\d", step.say), step.title
    assert not les.build_fabric().meta.get("partitions")         # the design before step 1
    assert res[0].fabric.meta["partitions"] and res[-1].fabric is res[0].fabric


def test_partitions_step_says_who_is_in_which(lesson):
    _les, res = lesson
    step = _step(res, "Partitions")
    f = step.fabric
    switches = ("leaf01", "leaf02", "spine02", "spine03", "spine04")
    assert step.partitions == (
        PartitionRow("Default", 0x7FFF, ("spine01",), tuple(sorted(COMPUTE + STORAGE + switches))),
        PartitionRow("storage", 0x0001, STORAGE, COMPUTE),
        PartitionRow("compute", 0x0002, COMPUTE[:4], ()))
    assert step.lines[-3:] == (
        "Default (0x7fff): full members spine01; limited members 13 end ports",
        "storage (0x8001): full members storage01, storage02; limited members " + ", ".join(COMPUTE),
        "compute (0x8002): full members compute01, compute02, compute03, compute04; limited members none")
    # the partitions.conf lines carry the CA port GUIDs of the design
    g = int(f.ports_t.guid[f.port("storage01/mlx5_0:1").id])
    assert step.lines[1].startswith(f"  storage=0x0001 : 0x{g:016x}=full, ")
    assert [s.name for s in design_partitions(f.meta).statements] == ["storage", "compute"]


def test_pkey_step_narrates_the_tables_the_engine_computes_and_enforcement(lesson):
    _les, res = lesson
    step = _step(res, "P_Key tables")
    f = step.fabric
    tl = step.sweep.timeline
    events = tl.events[step.sweep.first:step.sweep.last + 1]
    assert {e.phase for e in events} == {"pkeys"} and events[-1].kind == "banner"
    assert list(step.lines) == [tl.narration[i] for i in range(step.sweep.first, step.sweep.last + 1)]
    tables = design_tables(discover(f, default_sm(f)))
    entries = {}                           # what the SMPs carry, per port name
    for e in events:
        if e.kind == "pkey_block":
            where = f.port_name(e.ports[0]) if e.ports else f.name_of(e.devices[0])
            entries[where] = [x for x in e.data["entries"] if x]
    for host in COMPUTE + STORAGE:
        port = f.port(f"{host}/mlx5_0:1")
        ca = [x for x in tables.ca[int(port.guid)] if x]
        assert entries[f"{host}/mlx5_0:1"] == ca == entries[f.port_name(port.peer.id)]
    assert entries["compute01/mlx5_0:1"] == [0x7FFF, 0x0001, 0x8002]
    assert entries["compute05/mlx5_0:1"] == [0x7FFF, 0x0001]
    assert entries["storage01/mlx5_0:1"] == [0x7FFF, 0x8001]
    # the switches' port 0: Default limited, but the SM's own (spine01) full: 0xffff, not sent
    assert [entries[s] for s in ("leaf01", "leaf02", "spine02", "spine03", "spine04")] == [[0x7FFF]] * 5
    assert "spine01" not in entries and [x for x in tables.switch0[int(f.devices_t.guid[f.find("spine01")])]
                                         if x] == [0xFFFF]
    # enforcement on each leaf port facing a host, right after its blocks
    on = [narrate(e) for e in events if e.kind == "pkey_enforce"]
    assert on == [f"P_Key manager (pkey_mgr): PortInfo → {leaf} port {n}: partition enforcement inbound+outbound on"
                  for leaf in ("leaf01", "leaf02") for n in (1, 2, 3, 4)]
    assert len(events) == 8 * 3 + 5 + 1


def test_reach_steps_exact_peers_and_verdicts(lesson):
    _les, res = lesson
    r5 = _step(res, "Who can compute05 reach?").reach
    assert r5.src == "compute05" and r5.peers == STORAGE and r5.hosts == 7
    assert r5.through == ("storage (0x8001)",)
    assert r5.verdicts == (TalkVerdict("compute05", "storage01", True, "over storage (0x8001)"),
                           TalkVerdict("compute05", "compute06", False, "both limited members of storage (0x8001)"))
    r1 = _step(res, "Who can compute01 reach?")
    assert r1.reach.peers == ("compute02", "compute03", "compute04") + STORAGE
    assert r1.reach.through == ("storage (0x8001)", "compute (0x8002)")
    assert r1.lines[0] == ("compute01 can talk to 5 of 7 hosts: over storage (0x8001): storage01, storage02; "
                           "over compute (0x8002): compute02, compute03, compute04")
    assert [(v.dst, v.allowed) for v in r1.reach.verdicts] == [("compute02", True), ("compute05", False)]


def test_reach_agrees_with_the_traffic_engines_partition_rule(lesson):
    """Every pair the reach step allows shares a partition with a full member in the simulator's
    own membership (sim.partitioned), and no other pair does."""
    from fabricviz.anim.lesson_partitions import host_guids, talk
    _les, res = lesson
    f = res[0].fabric
    tables = design_tables(discover(f, default_sm(f)))
    names = {p.pkey: p.name for p in tables.resolution.partitions}
    scopes = [partition_scope(f, name) for name in ("storage", "compute")]
    hosts = COMPUTE + STORAGE
    for a in hosts:
        for b in hosts:
            if a == b:
                continue
            na, nb = f.find(f"{a}/mlx5_0"), f.find(f"{b}/mlx5_0")
            sim = any(s.member[na] and s.member[nb] and (s.full[na] or s.full[nb]) for s in scopes)
            assert talk(tables, names, host_guids(f, a), host_guids(f, b))[0] == sim, (a, b)


def test_runs_in_a_partition_refuse_and_allow_exact_flows(lesson):
    _les, res = lesson
    st = _step(res, "Traffic in storage").traffic
    f = res[0].fabric
    sim = st.result
    assert st.partition == sim.partition == "storage (0x8001)"
    assert [(f.name_of(r.src), f.name_of(r.dst), r.reason) for r in sim.refused] == [
        ("compute05/mlx5_0", "compute06/mlx5_0", "both limited members of storage (0x8001)")]
    ran = [(f.name_of(int(s)), f.name_of(int(d))) for s, d in zip(sim.flows.src, sim.flows.dst, strict=True)]
    assert ran == [("compute05/mlx5_0", "storage01/mlx5_0"), ("compute06/mlx5_0", "storage02/mlx5_0")]
    assert list(sim.flow_rates()) == [400.0, 400.0]                # each at its NDR line rate
    assert _step(res, "Traffic in storage").lines[-1] == (
        "1 flow refused by the partition: compute05/mlx5_0 → compute06/mlx5_0 "
        "(both limited members of storage (0x8001))")
    ct = _step(res, "Traffic in compute")
    sim = ct.traffic.result
    assert [(f.name_of(int(s)), f.name_of(int(d))) for s, d in zip(sim.flows.src, sim.flows.dst, strict=True)] == [
        ("compute01/mlx5_0", "compute02/mlx5_0")]
    assert sim.refused == () and sim.dropped_flows == 1
    assert {u.name for u in sim.left_out} == {"compute05", "compute06", "storage01", "storage02"}
    assert ct.lines[-2:] == ("compute05 left out: not in partition compute (0x8002)",
                             "3 other hosts outside the partition")


def test_cli_demo_runs_the_lesson_to_the_pkey_step(capsys):
    les = find_lesson("partitions")
    assert resolve_until(les, "P_Key") == 3
    assert main(["demo", "7", "--until", "P_Key"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Lesson 7: Partitions: who can talk to whom\n")
    assert "PortInfo → leaf02 port 4: partition enforcement inbound+outbound on" in out
    assert out.rstrip().endswith("PKEY setup completed - STARTING SM LID CONFIG") and "[4]" not in out


@pytest.mark.parametrize("step, msg", [
    ({"action": "partitions", "title": "t", "say": "s"}, r"steps\[0\]\.conf: give either conf"),
    ({"action": "reach", "title": "t", "say": "s"}, r"steps\[0\]\.src: required by action 'reach'"),
    ({"action": "sweep", "until": "pkey", "title": "t", "say": "s"}, r"unknown sweep phase 'pkey'"),
])
def test_bad_partition_steps_give_one_line(step, msg):
    data = {"format": "fabricviz-lesson", "version": 1, "name": "x", "title": "x",
            "fabric": {"generator": "fat_tree", "args": {"levels": 2, "radix": 4, "hosts": 4}}, "steps": [step]}
    with pytest.raises(FabricError, match=msg):
        parse_lesson(data, "x.json")
