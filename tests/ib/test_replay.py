"""Replay of OpenSM LFT dumps: our own dumps come back identical, real OpenSM dumps trace and loop."""

import json
from pathlib import Path

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.opensm_lfts import lfts_dump_text
from fabricviz.formats.opensm_replay import replay, replay_files
from fabricviz.generate import fat_tree
from fabricviz.ib.creditloops import find_credit_loops
from fabricviz.ib.report import port_loads
from fabricviz.ib.routing import route
from fabricviz.ib.trace import trace
from fabricviz.loaders import load_any
from fabricviz.model import FabricError

OSM = Path(__file__).resolve().parents[1] / "data" / "opensm"
MINHOP = sorted(p for p in OSM.glob("*-minhop") if (p / "opensm-lfts.dump").exists())


@pytest.mark.parametrize("engine,lmc", [("minhop", 0), ("updn", 0), ("ftree", 1)])
def test_own_dump_replays_to_identical_tables(engine, lmc):
    f = fat_tree(2, 8, 32, fabric="ib")
    r = route(f, engine, lmc=lmc)
    p = replay(f, lfts_dump_text(r))
    assert p.routed_by == "opensm dump" and p.warnings == []
    assert np.array_equal(p.lft, r.lft)
    assert np.array_equal(p.lids.sw_lid, r.lids.sw_lid) and np.array_equal(p.lids.ca_lid, r.lids.ca_lid)
    assert p.lids.lmc == lmc
    assert np.array_equal(port_loads(p), port_loads(r))
    for a, b in (("node01", "node32"), ("node05", "node06"), ("node17", "node02")):
        assert trace(p, a, b) == trace(r, a, b)


@pytest.mark.parametrize("case", MINHOP, ids=lambda p: p.name)
def test_real_opensm_dump_matches_our_minhop(case):
    r = replay_files(case / "topology.net", case / "opensm-lfts.dump")
    ours = route(r.subnet.fabric, "minhop")
    assert r.warnings == []
    assert np.array_equal(r.lids.ca_lid, ours.lids.ca_lid)
    assert np.array_equal(r.lft[:, :ours.lft.shape[1]], ours.lft)


def test_ring4_opensm_tables_trace_and_credit_loop():
    case = OSM / "ring4-minhop"
    r = replay_files(case / "topology.net", case / "opensm-lfts.dump")
    t = trace(r, "h1", "h3")
    assert t.ok and (t.slid, t.dlid) == (4, 7)
    assert [(h.switch, h.in_port, h.out_port) for h in t.hops] == [("sw1", 3, 1), ("sw2", 2, 1), ("sw3", 2, 3)]
    loops = find_credit_loops(r)
    # OpenSM's minhop on a 4-ring sends every 2-hop route clockwise: one cycle over all four ring links
    assert len(loops) == 1
    assert loops[0].channels == ("sw2:1", "sw3:1", "sw4:1", "sw1:1") and loops[0].destinations == (2, 4, 5, 7)


def test_fat_tree_opensm_tables_have_no_credit_loop():
    case = OSM / "fat2-minhop"
    r = replay_files(case / "topology.net", case / "opensm-lfts.dump")
    assert find_credit_loops(r) == []


def test_dump_of_another_fabric_is_refused():
    case = OSM / "ring4-minhop"
    other = load_any(OSM.parent / "samples" / "manpage_example.ibnetdiscover")
    with pytest.raises(FabricError, match=r"^d\.dump: switch 0x0002c90300a00f40 \('sw2'\) is not in the topology"):
        replay(other, (case / "opensm-lfts.dump").read_text(), "d.dump")


def test_entry_beyond_the_switch_ports_is_refused():
    case = OSM / "ring4-minhop"
    f = load_any(case / "topology.net")
    text = (case / "opensm-lfts.dump").read_text().replace("0x0002 003 #", "0x0002 009 #", 1)
    with pytest.raises(FabricError, match=r"^d\.dump: switch 0x0002c90300a00f40 \('sw2'\): LID 2 leaves by port 9, "
                                          r"but sw2 has 3 ports$"):
        replay(f, text, "d.dump")


def test_replay_cli(capsys):
    case = OSM / "ring4-minhop"
    rc = main(["replay", str(case / "topology.net"), str(case / "opensm-lfts.dump"),
               "--trace", "h1", "h3", "--check-loops", "--json"])
    s = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert s["routed_by"] == "opensm dump" and s["switches"] == 4 and s["ca_ports"] == 4 and s["max_lid"] == 8
    assert [h["switch"] for h in s["trace"]["hops"]] == ["sw1", "sw2", "sw3"]
    assert len(s["credit_loops"]) == 1
    rc = main(["replay", str(OSM / "fat2-minhop" / "topology.net"), str(OSM / "fat2-minhop" / "opensm-lfts.dump"),
               "--check-loops"])
    out = capsys.readouterr().out
    assert rc == 0 and out.rstrip().endswith("no credit loops")
