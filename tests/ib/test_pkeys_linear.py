"""Many partitions cost work linear in their count (issue 28: a legal 32,767-statement
partitions.conf took over 20 s). Counted, not timed: bench/big_inputs.py times it (the reader + tables, and the whole command)."""

from __future__ import annotations

from fabricviz.formats.native import load_fabric
from fabricviz.formats.partitions_conf import loads
from fabricviz.ib.partitions import resolve
from fabricviz.ib.pkeys import HARDWARE, design_tables, port_table
from fabricviz.ib.subnet import discover
from fabricviz.resources import asset_path
from tests.work import calls


def _conf(n: int, named: bool) -> str:
    if named:       # no P_Key: each header looks its name up among the partitions so far
        return "".join(f"part{i} : ALL=limited ;\n" for i in range(1, n + 1))
    return "".join(f"p{i}=0x{i:04x} : ALL=full ;\n" for i in range(1, n + 1))


def test_a_full_table_looks_for_a_hole_once_per_index():
    """Past a port's 128 entries every further P_Key is dropped: the hole search resumes where it
    stopped (holes only close), so each dropped P_Key costs a few calls, not a scan of the table."""
    def table(n):
        return port_table([0x8000 | k for k in range(1, n + 1)], HARDWARE.ca)
    (tbl, dropped), half = calls(table, 1000)
    (_t, dropped2), full = calls(table, 2000)
    assert len(dropped) == 1000 - 127 and len(dropped2) == 2000 - 127 and tbl[1] == 0x8001 and tbl[127] == 0x807f
    assert full - half < 10 * 1000, (half, full)       # was 263 calls per dropped P_Key


def test_named_headers_are_looked_up_by_name():
    """A header without a P_Key finds an earlier partition of its name in a dict, not by walking
    all earlier ones: twice the statements, twice the calls."""
    conf, half = calls(loads, _conf(1000, True), "m")
    conf2, full = calls(loads, _conf(2000, True), "m")
    assert [p.pkey for p in conf2.statements[:3]] == [1, 2, 3] and len(conf2.statements) == 2000
    assert conf2.statements[-1].pkey == 2000 and conf.statements[-1].name == "part1000"
    assert 1.9 < full / half < 2.1, (half, full)


def test_tables_of_many_partitions_are_linear():
    """The demo's P_Key tables under n, 2n and 4n partitions of everyone (24 end ports, 24
    memberships a statement): each doubling adds twice the calls of the one before (linear), and a
    statement costs a few calls whatever its member count: the memberships are arrays (one ``ALL``
    is one shared index array), not a Python step each (786,384 memberships on the 32,767-statement
    file, issue 28)."""
    subnet = discover(load_fabric(asset_path("demo", "demo-fat-tree.json")))
    counted = {n: calls(design_tables, subnet, loads(_conf(n, False), "m")) for n in (600, 1200, 2400)}
    t1, t2 = counted[600][0], counted[2400][0]
    assert len(t1.ca) == len(t2.ca) == 16 and sum(len(v) for v in t2.dropped.values()) == (2400 - 127) * 24
    host = next(g for g in sorted(t2.ca) if g != t2.resolution.sm_guid)
    assert t2.ca[host][:4] == [0x7FFF, 0x8100, 0x8200, 0x8300]    # Default limited, then OpenSM's order
    first, second = counted[1200][1] - counted[600][1], counted[2400][1] - counted[1200][1]
    assert 1.9 < second / first < 2.1, counted
    assert first < 20 * 600 < 600 * 24, counted      # under one call per membership: was ~40 each


def test_resolution_work_does_not_grow_with_the_ports_in_all():
    """``ALL`` on the demo's 24 end ports and ``ALL_SWITCHES`` on its 8 switch port 0s cost the same
    calls per statement: the members of a keyword are applied as one array."""
    subnet = discover(load_fabric(asset_path("demo", "demo-fat-tree.json")))
    every, all_n = calls(resolve, loads(_conf(1000, False), "m"), subnet)
    sw_text = "".join(f"p{i}=0x{i:04x} : ALL_SWITCHES=full ;\n" for i in range(1, 1001))
    switches, sw_n = calls(resolve, loads(sw_text, "m"), subnet)
    assert [p.members for p in every.partitions[:2]] == [24, 24] and switches.partitions[0].members == 8
    assert sum(p.members for p in every.partitions) == 1001 * 24
    assert abs(all_n - sw_n) < 100, (all_n, sw_n)
