"""opensm-lfts.dump: exact writer output, round trip, and real OpenSM dumps read back byte for byte."""

import numpy as np
import pytest

from fabricviz.formats.opensm_dump import SwitchLft, parse_lfts_dump, read_lfts_dump, write_lfts_dump
from fabricviz.model import FabricError

DESTS = {1: ("Switch", 0x200000, "Switch1"), 2: ("Channel Adapter", 0x100001, "Hca1"),
         3: ("Switch", 0x200001, "Switch2"), 5: ("Channel Adapter", 0x100007, "Hca3")}

# Hand-checked against dump_ucast_lfts (opensm/osm_dump.c): LID 0 and 255 entries are skipped,
# LID 4 has a port but no owner, the trailer prints the max LID (5), not the line count.
EXPECTED = """\
Unicast lids [0-5] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):
0x0001 000 # Switch portguid 0x0000000000200000: 'Switch1'
0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'
0x0003 003 # Switch portguid 0x0000000000200001: 'Switch2'
0x0004 005 # unknown node and type
5 lids dumped
"""


def test_writer_matches_opensm_format():
    lft = np.array([255, 0, 1, 3, 5, 255], dtype=np.uint8)
    assert write_lfts_dump([(0x200000, 1, "Switch1", lft)], DESTS) == EXPECTED


def test_entries_beyond_the_switch_ports_are_dropped():
    lft = np.array([255, 0, 9, 3], dtype=np.uint8)
    text = write_lfts_dump([SwitchLft(0x200000, 1, "Switch1", lft, nports=8)], DESTS)
    assert "0x0002" not in text and "0x0003 003" in text and text.endswith("3 lids dumped\n")


def test_write_read_round_trip():
    rng = np.random.default_rng(7)
    switches = [SwitchLft(0x1000 + i, i + 1, f"sw{i}", rng.integers(0, 9, 40).astype(np.uint8)) for i in range(3)]
    for s in switches:
        s.lft[[0, 7]] = 255
    dests = {lid: ("Channel Adapter", 0x5000 + lid, f"h{lid}") for lid in range(1, 40)}
    text = write_lfts_dump(switches, dests)
    got = read_lfts_dump(text)
    assert got == {s.guid: {lid: int(p) for lid, p in enumerate(s.lft) if p != 255} for s in switches}
    dump = parse_lfts_dump(text)
    # LID 7 is no-path on every switch, so no line names its owner
    assert dump.dests == {k: v for k, v in dests.items() if k != 7}
    assert dump.switches[0x1001].lid == 2 and dump.switches[0x1001].max_lid == 39
    assert dump.by_port_guid()[(0x1000, 0x5000 + 5)] == int(switches[0].lft[5])


def test_real_opensm_dump_reads_and_rewrites_identically(samples, run_opensm):
    out = run_opensm(samples / "ibsim_net.2sw2path4hca.net", "minhop")
    text = (out / "opensm-lfts.dump").read_text()
    dump = parse_lfts_dump(text)
    assert set(dump.switches) == {0x200000, 0x200001}
    assert {g for _t, g, _d in dump.dests.values()} == {0x200000, 0x200001, 0x100001, 0x100004, 0x100007, 0x10000A}
    switches = []
    for g, sw in dump.switches.items():
        lft = np.full(sw.max_lid + 1, 255, np.uint8)
        lft[list(sw.routes)] = list(sw.routes.values())
        switches.append(SwitchLft(g, sw.lid, sw.desc, lft))
    assert write_lfts_dump(switches, dump.dests) == text


@pytest.mark.parametrize("text, message", [
    ("0x0001 001 # Switch portguid 0x01: 'a'\n", r"^d:1: expected \"Unicast lids"),
    ("Unicast lids [0-3] of switch Lid 1 guid 0x01 ('a'):\nnonsense\n", r"^d:2: expected \"0xLID PORT"),
    ("Unicast lids [0-3] of switch Lid 1 guid 0x01 ('a'):\n0x0009 001 # x\n", r"^d:2: LID 9 port 1 outside"),
    ("Unicast lids [0-3] of switch Lid 1 guid 0x01 ('a'):\n0x0001 000 # Switch portguid 0x01: 'a'\n",
     r"^d: switch 0x0000000000000001 has no \"lids dumped\""),
])
def test_bad_dumps(text, message):
    with pytest.raises(FabricError, match=message):
        parse_lfts_dump(text, "d")
