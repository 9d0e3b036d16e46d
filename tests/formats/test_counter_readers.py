"""The port counters readers on real perfquery / ibqueryerrors output captured under ibsim
(tests/data/counters/README.md) and on the ibdiagnet files written from the documented format:
exact values, and one-line refusals naming file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from fabricviz.formats import perfquery
from fabricviz.formats.counter_files import detect, load_counters, loads_counters
from fabricviz.model import FabricError
from fabricviz.model.port_counters import ALL_PORTS, Counter

DATA = Path(__file__).resolve().parents[1] / "data" / "counters"
C = Counter


def errors_of(r):
    return {c: v for c, v in r.values.items() if c not in (C.XMIT_DATA, C.RCV_DATA, C.XMIT_PKTS, C.RCV_PKTS) and v}


def test_perfquery_one_port():
    cf = load_counters(DATA / "perfquery_lid1_port3.txt", "perfquery")
    assert cf.format == "perfquery" and len(cf.records) == 1
    r = cf.records[0]
    assert (r.lid, r.port, r.extended) == (1, 3, False)
    assert r.source.endswith("perfquery_lid1_port3.txt:1")
    assert errors_of(r) == {C.SYMBOL_ERRORS: 1234, C.LINK_ERROR_RECOVERY: 7}
    assert r.values[C.XMIT_WAIT] == 0 and r.values[C.XMIT_PKTS] == 58 and r.values[C.RCV_DATA] == 4176
    assert len(r.values) == 17          # every PortCounters counter, PortSelect/CounterSelect skipped


def test_perfquery_several_ports_and_extended():
    rs = load_counters(DATA / "perfquery_lid1_ports1_3.txt", "perfquery").records
    assert [(r.lid, r.port) for r in rs] == [(1, 1), (1, 3)]
    assert [r.source.rsplit(":", 1)[1] for r in rs] == ["1", "23"]
    ext = load_counters(DATA / "perfquery_x_lid3_ports1_3.txt", "perfquery").records
    assert [(r.lid, r.port, r.extended) for r in ext] == [(3, 1, True), (3, 3, True)]
    assert ext[1].values == {C.XMIT_DATA: 4320, C.RCV_DATA: 4392, C.XMIT_PKTS: 60, C.RCV_PKTS: 61}
    agg = load_counters(DATA / "perfquery_a_lid1.txt", "perfquery").records[0]
    assert agg.port == ALL_PORTS and errors_of(agg) == {C.SYMBOL_ERRORS: 1234, C.LINK_ERROR_RECOVERY: 7,
                                                         C.LINK_DOWNED: 3}


def test_perfquery_fabric_snapshots():
    t0, t1 = (load_counters(DATA / f"perfquery_{t}.txt", "perfquery").records for t in ("t0", "t1"))
    assert len(t0) == len(t1) == 20     # 8 + 8 switch ports, 4 CA ports
    assert sorted({r.lid for r in t0}) == [1, 2, 3, 4, 5, 6]
    nonzero = {(r.lid, r.port): errors_of(r) for r in t1 if errors_of(r)}
    assert nonzero == {(1, 3): {C.SYMBOL_ERRORS: 1534, C.LINK_ERROR_RECOVERY: 7}, (1, 5): {C.LINK_DOWNED: 3},
                       (3, 1): {C.XMIT_DISCARDS: 9, C.XMIT_WAIT: 723456}, (3, 2): {C.SYMBOL_ERRORS: 65535},
                       (3, 5): {C.LINK_DOWNED: 1}, (4, 1): {C.SYMBOL_ERRORS: 40, C.RCV_ERRORS: 52},
                       (5, 1): {C.XMIT_WAIT: 5000}}
    sat = [r for r in t1 if r.saturated()]
    assert [(r.lid, r.port, r.saturated()) for r in sat] == [(3, 2, (C.SYMBOL_ERRORS,))]


def test_ibqueryerrors_errors():
    rs = load_counters(DATA / "ibqueryerrors_t0.txt", "ibqueryerrors").records
    got = [(r.node_desc, r.port, r.port_guid, r.node_guid, r.values) for r in rs]
    assert got == [
        ("Hca2", 1, 0x100004, None, {C.SYMBOL_ERRORS: 40, C.RCV_ERRORS: 42}),
        ("Switch2", ALL_PORTS, None, 0x200001, {C.LINK_DOWNED: 1, C.XMIT_DISCARDS: 9, C.XMIT_WAIT: 123456}),
        ("Switch2", 1, None, 0x200001, {C.XMIT_DISCARDS: 9, C.XMIT_WAIT: 123456}),
        ("Switch2", 5, None, 0x200001, {C.LINK_DOWNED: 1}),
        ("Hca3", 1, 0x100007, None, {C.XMIT_WAIT: 5000}),
        ("Switch1", ALL_PORTS, None, 0x200000, {C.SYMBOL_ERRORS: 1234, C.LINK_ERROR_RECOVERY: 7, C.LINK_DOWNED: 3}),
        ("Switch1", 3, None, 0x200000, {C.SYMBOL_ERRORS: 1234, C.LINK_ERROR_RECOVERY: 7}),
        ("Switch1", 5, None, 0x200000, {C.LINK_DOWNED: 3}),
    ]
    assert all(r.implicit_zero and not r.extended for r in rs)


def test_ibqueryerrors_variants():
    rd = load_counters(DATA / "ibqueryerrors_r_data.txt", "ibqueryerrors").records
    assert [(r.node_desc, r.port, r.lid) for r in rd] == [
        ("Hca2", 1, 4), ("Switch2", ALL_PORTS, None), ("Switch2", 1, 3), ("Switch2", 5, 3), ("Hca3", 1, 5),
        ("Switch1", ALL_PORTS, None), ("Switch1", 3, 1), ("Switch1", 5, 1)]
    assert rd[0].values == {C.SYMBOL_ERRORS: 40, C.RCV_ERRORS: 42, C.XMIT_DATA: 1584, C.RCV_DATA: 1656,
                            C.XMIT_PKTS: 22, C.RCV_PKTS: 23}
    assert not rd[0].extended          # the "(6.188KB)" suffix is on data counters only
    dc = load_counters(DATA / "ibqueryerrors_counters.txt", "ibqueryerrors").records
    assert len(dc) == 20 and not any(r.implicit_zero for r in dc)
    assert (dc[1].node_desc, dc[1].node_guid, dc[1].port_guid, dc[1].values[C.RCV_PKTS]) == ("Hca2", 0x100003, None, 29)
    ca = load_counters(DATA / "ibqueryerrors_c_ca.txt", "ibqueryerrors").records
    assert [(r.node_desc, r.port_guid) for r in ca] == [("Hca2", 0x100004), ("Hca3", 0x100007)]


def test_ibdiagnet_files_equal_the_perfquery_snapshot():
    t0 = {(r.lid, r.port): r.values for r in load_counters(DATA / "perfquery_t0.txt", "perfquery").records}
    pm = load_counters(DATA / "ibdiagnet2.pm", "ibdiagnet-pm").records
    assert {(r.lid, r.port): r.values for r in pm} == t0
    assert pm[0].port_guid == 0x200000 and pm[16].port_guid == 0x100001
    csv = load_counters(DATA / "ibdiagnet2.db_csv", "ibdiagnet-csv").records
    assert len(csv) == 20 and csv[0].source.endswith("ibdiagnet2.db_csv:8")
    assert {(r.node_guid, r.port): r.values for r in csv}[(0x200000, 3)] == t0[(1, 3)]


@pytest.mark.parametrize("name,fmt", [("perfquery_t0.txt", "perfquery"), ("perfquery_x_lid1_port3.txt", "perfquery"),
                                      ("ibqueryerrors_t0.txt", "ibqueryerrors"),
                                      ("ibqueryerrors_counters.txt", "ibqueryerrors"),
                                      ("ibdiagnet2.pm", "ibdiagnet-pm"), ("ibdiagnet2.db_csv", "ibdiagnet-csv")])
def test_detect(name, fmt):
    assert detect((DATA / name).read_text()) == fmt
    assert load_counters(DATA / name).format == fmt


BAD = [
    ("garbage\n", "x:1: not perfquery, ibqueryerrors or ibdiagnet PM output"),
    ("# Port counters: Lid 1 port 3 (CapMask: 0x1300)\nSymbolErrorCounter:....12x\n",
     "x:2: SymbolErrorCounter: '12x' is not a counter value"),
    ("# Port counters: Lid 1 port 3 (CapMask: 0x1300)\nSymbolErrorCounter:....99999999999999999999\n",
     "x:2: SymbolErrorCounter: '99999999999999999999' is not a counter value"),
    ("# Port counters: Lid 1 port 3 (CapMask: 0x1300)\nthis is not\n", "x:2: not a counter line"),
    ("# Port counters: Lid 1 port 300 (CapMask: 0x1300)\n", "x:1: port 300: a port number is 0..255"),
    ('Errors for "Hca2"\n   GUID 0x100004 port 1: [SymbolErrorCounter == 4] junk\n', "x:2: not a counter item"),
    ('Errors for "Hca2"\n   GUID 0x0 port 1: [SymbolErrorCounter == 4]\n', "x:2: GUID 0x0 is not a GUID"),
    ("Port=1 Lid=0x0001 GUID=0x0000000000200000\nsymbol_error_counter=0xzz\n",
     "x:2: symbol_error_counter: '0xzz' is not a counter value"),
    ("START_PM_INFO\nNodeGUID,PortNumber,SymbolErrorCounter\n0x1,1\nEND_PM_INFO\n",
     "x:3: 2 fields, the START_PM_INFO header has 3"),
    ("START_PM_INFO\nNodeGUID,PortNumber\n", "x:1: START_PM_INFO has no END_PM_INFO"),
    ("START_NODES\nEND_NODES\n", "x:1: no START_PM_INFO section"),
    ("START_PM_INFO\nNodeGUID,PortNumber\n0x1,999\nEND_PM_INFO\n", "x:3: PortNumber '999' is not a port number"),
]


@pytest.mark.parametrize("text,msg", BAD)
def test_refusals_name_file_and_line(text, msg):
    with pytest.raises(FabricError) as e:
        loads_counters(text, "x")
    assert str(e.value).startswith(msg) and "\n" not in str(e.value)


def test_control_characters_escaped():
    with pytest.raises(FabricError) as e:
        loads_counters("# Port counters: Lid 1 port 3\nSymbol\u202eErr\x1b:..1\n", "x")
    assert "\u202e" not in str(e.value) and "\x1b" not in str(e.value) and str(e.value).startswith("x:2:")


def test_xmit_wait_dropped_when_unsupported():
    r = perfquery.loads("# Port counters: Lid 1 port 3 (CapMask: 0x0300)\nPortXmitWait:....0\nPortRcvErrors:...2\n",
                        "x").records[0]
    assert r.values == {C.RCV_ERRORS: 2}
