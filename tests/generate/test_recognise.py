"""Servers, management hosts, rails and scalable units recognised in discovered fabrics (issue 26).

The real file is NVIDIA/topograph's NDR DGX SuperPOD discovery (tests/data/samples/README.md). Its
truth is counted here from the text itself, independently of the importer: every ``Ca`` header's
NodeDescription is ``"<host> <adapter>"`` (HCA-N or mlx5_N), the factory ``"MT4129 ConnectX7
Mellanox Technologies"`` or a SHARP ``"Mellanox Technologies Aggregation Node"``; leaves are
named ``IBLEAF-<rail>-<su>``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from fabricviz.cli import main
from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads, node_description
from fabricviz.generate import k_ary_fat_tree, rail_optimized
from fabricviz.generate.hosts import HostRole, adapter_ranks, is_factory, plan_hosts, split_description
from fabricviz.generate.recognise import recognise
from fabricviz.loaders import load_any
from fabricviz.model.fabric import KIND_CODE, SERVER

REAL = Path(__file__).resolve().parents[1] / "data" / "samples" / "topograph_superpod_ndr.ibnetdiscover"


def truth() -> dict:
    """Counts read straight from the file's Ca headers and switch names."""
    text = REAL.read_text()
    descs = re.findall(r'^Ca\t\d+ "H-[0-9a-f]+"\t\t# "([^"]*)"', text, re.M)
    sharp = [d for d in descs if d == "Mellanox Technologies Aggregation Node"]
    factory = [d for d in descs if d.startswith("MT4129 ConnectX7")]
    named = [d for d in descs if d not in sharp and d not in factory]
    hosts = Counter(d.split()[0] for d in named)
    leaves = re.findall(r'^Switch\t65 "S-[0-9a-f]+"\t\t# "MF0;[AB]09-P1-IBLEAF-(\d\d)-(\d\d):', text, re.M)
    return {"cas": len(descs), "sharp": len(sharp), "factory": len(factory), "named": len(named),
            "hosts": hosts, "leaves": leaves}


def test_the_real_file_counted_by_hand():
    t = truth()
    # 582 CAs: 40 SHARP nodes, 69 factory descriptions, 473 named adapters of 122 hosts
    assert (t["cas"], t["sharp"], t["factory"], t["named"]) == (582, 40, 69, 473)
    assert len(t["hosts"]) == 122
    assert Counter(t["hosts"].values()) == {4: 109, 3: 11, 2: 2}
    assert {h for h, n in t["hosts"].items() if n == 2} == {"B11-P1-CUFM-02", "ubuntu"}
    # 31 leaves: rails 1-4 of SUs 1-8, rail 3 of SU 1 not discovered
    assert len(t["leaves"]) == 31 and ("03", "01") not in t["leaves"]


@pytest.fixture(scope="module")
def real():
    return load_any(REAL)


def test_real_superpod_imports_as_servers(real):
    t = truth()
    c = real.counts()
    assert c["server"] == len(t["hosts"]) == 122
    assert c["nic"] == t["cas"] == 582 and c["ib_switch"] == 40 and c["cables"] == 1114
    srv = real.device("a08-p1-dgx-04-c17")
    assert srv.kind == "server" and srv.part_id == "HOST-4xCX7-1P"
    # adapters in NIC order: mlx5_0, mlx5_1, mlx5_4, mlx5_5 (the file lists mlx5_5 first)
    assert [real.name_of(d.id) for d in srv.nics] == [f"a08-p1-dgx-04-c17/mlx5_{i}" for i in range(4)]
    assert [node_description(real, d.id) for d in srv.nics] == [f"a08-p1-dgx-04-c17 mlx5_{i}" for i in (0, 1, 4, 5)]
    assert len(real.device("localhost").nics) == 3
    # the descriptions come back byte for byte on export
    out = export_ibnetdiscover(real)
    assert out.count('"a08-p1-dgx-04-c17 mlx5_5"') == 2 and out.count('"localhost HCA-6"') == 2


def test_real_superpod_structure(real):
    t = truth()
    s = recognise(real)
    assert len(s.servers) == 120 and s.adapters == t["named"] == 473
    assert sorted(real.name_of(d) for d in s.management) == ["B11-P1-CUFM-02", "ubuntu"]
    assert len(s.unnamed) == t["factory"] == 69 and s.loose == ()
    assert len(s.sharp) == t["sharp"] == 40 and len(s.spines) == 9
    assert s.rail_optimised and [u.name for u in s.units] == [f"su{i}" for i in range(1, 9)]
    # each SU: its leaves by rail, rail k = leaves IBLEAF-0<k+1>-*
    for k, u in enumerate(s.units):
        names = [re.search(r"IBLEAF-(\d\d)-(\d\d)", real.name_of(d)).groups() for d in u.leaves]
        assert names == sorted(n for n in t["leaves"] if int(n[1]) == k + 1)
        assert list(u.rails) == [int(r) - 1 for r, _su in names]
    assert [len(r.leaves) for r in s.rails] == [8, 8, 7, 8]
    assert [(u.name, sum(real.devices_t.kind[d] == KIND_CODE[SERVER] for d in u.hosts)) for u in s.units][:1] == [("su1", 11)]
    # the one swapped pair: b08-p1-dgx-08-c01's HCA-5 on the rail-4 leaf, its HCA-6 on the rail-3 leaf
    assert [real.port_name(int(real.cables_t.port_b[c])) for c in s.off_rail] == \
           ["b08-p1-dgx-08-c01/mlx5_2:1", "b08-p1-dgx-08-c01/mlx5_3:1"]
    # named like the generator's units, in the stored groups (grouping, layout and canvas use them)
    assert [g.name for g in real.settings.groups] == [u.name for u in s.units]


def test_info_reports_what_was_recognised(capsys):
    assert main(["info", str(REAL)]) == 0
    out = capsys.readouterr().out
    assert "servers: 120 (473 adapters in servers)   unnamed adapters (one-NIC hosts): 69" in out
    assert "management hosts (UFM): B11-P1-CUFM-02, ubuntu" in out
    assert "rail-optimised: 8 scalable units, 4 rails, 9 spines, 2 cables off rail" in out
    assert "  su1   11 servers + 21 lone adapters, leaves on rails 0 1 3" in out
    assert main(["info", str(REAL), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)["structure"]
    assert (s["servers"], s["unnamed_adapters"], s["sharp_nodes"], s["spines"]) == (120, 69, 40, 9)
    assert s["management_hosts"] == ["B11-P1-CUFM-02", "ubuntu"]
    assert [len(u["leaves"]) for u in s["scalable_units"]] == [3, 4, 4, 4, 4, 4, 4, 4]
    assert [r["name"] for r in s["rails"]] == ["rail0", "rail1", "rail2", "rail3"]


@pytest.mark.parametrize("units", [1, 2, 4])
def test_generated_rail_design_round_trips_to_the_same_rails_and_units(units):
    f = rail_optimized(units)
    g = loads(export_ibnetdiscover(f), "rail.ibnetdiscover")
    want, got = recognise(f), recognise(g)
    assert got.rail_optimised and want.rail_optimised and got.off_rail == ()
    assert len(got.servers) == len(want.servers) == 32 * units and got.adapters == want.adapters
    for s, fab in ((want, f), (got, g)):
        assert [u.name for u in s.units] == [f"su{u + 1}" for u in range(units)]
        assert [[fab.name_of(d) for d in u.leaves] for u in s.units] == \
               [[f"su{u + 1}-rail{r}" for r in range(8)] for u in range(units)]
        assert [[fab.name_of(d) for d in r.leaves] for r in s.rails] == \
               [[f"su{u + 1}-rail{k}" for u in range(units)] for k in range(8)]
        assert len(s.spines) == 4 * units
    # the servers come back as the generator's: 8 NICs each, NIC i on rail i
    assert g.counts()["server"] == 32 * units and g.counts()["nic"] == 256 * units
    assert g.device("su1-dgx07/mlx5_3").port(1).peer.device.name == "su1-rail3"


def test_a_fat_tree_has_no_rails():
    s = recognise(loads(export_ibnetdiscover(k_ary_fat_tree(4)), "k4.ibnetdiscover"))
    assert not s.rail_optimised and s.units == () and s.rails == () and len(s.servers) == 16


# ---------------------------------------------------------------------------- host names
def test_descriptions_that_name_a_host():
    assert split_description("dgx01 mlx5_3") == ("dgx01", "mlx5_3")
    assert split_description("b07-p1-dgx-07-c18  HCA-6") == ("b07-p1-dgx-07-c18", "HCA-6")
    assert split_description("node7/mlx5_0") == ("node7", "mlx5_0")
    for d in ("MT4129 ConnectX7   Mellanox Technologies", "Mellanox Technologies Aggregation Node",
              "dgx01", "dgx01 mlx5_3 extra", "MF0;leaf01:MQM9700/U1", " mlx5_0"):
        assert split_description(d) is None, d
    assert is_factory("MT4129 ConnectX7   Mellanox Technologies") and not is_factory("dgx01 mlx5_0")
    assert adapter_ranks(["HCA-6", "HCA-1", "mlx5_5", "HCA-2", "mlx5_0", None, "HCA-5"]) == [3, 0, 1, 1, 0, -1, 2]


def test_plan_hosts_by_name_and_system_image_guid():
    descs = ["dgx01 HCA-2", "dgx01 HCA-1", "MT4123 ConnectX6 Mellanox Technologies", "x", "y",
             "ufm-a mlx5_0", "dup HCA-1", "dup HCA-1", "leaf01"]
    sysg = [None, None, None, 0xA, 0xA, None, None, None, None]
    adapter = [True] * 8 + [False]
    plan = plan_hosts(descs, sysg, adapter, frozenset({"leaf01"}))
    hosts = {h.name: h for h in plan.hosts}
    assert hosts["dgx01"].adapters == (0, 1) and hosts["dgx01"].locals_ == (1, 0)   # HCA-1 is NIC 0
    assert hosts["ufm-a"].role is HostRole.MANAGEMENT and hosts["dgx01"].role is HostRole.SERVER
    assert "dup" not in hosts                      # one adapter name twice: two hosts, not one
    assert plan.unnamed == (2,)
    # "x" and "y" share a system image GUID but name no host: left as they are
    assert plan.host_of(9)[3] == plan.host_of(9)[4] == -1
    # a host name some other device already has is not used
    assert plan_hosts(["leaf01 mlx5_0"], [None], [True], frozenset({"leaf01"})).hosts == ()


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["minhop", "updn", "ftree"])
def test_grouping_into_servers_changes_no_lid_and_no_lft_entry(real, engine):
    """The same file with every adapter's description made one word ("host_HCA-1": no host name)
    imports as 582 loose adapters, as before servers were recognised; both route alike."""
    from fabricviz.ib.routing import route
    text = REAL.read_text()
    flat, n = re.subn(r'"([^" ]+) ((?:HCA-|mlx5_)\d+)"', r'"\1_\2"', text)
    assert n == 2 * 473                              # each adapter: its switch's port line and its own
    loose = loads(flat, REAL.name)
    assert loose.counts()["server"] == 0 and real.counts()["server"] == 122
    a, b = route(real, engine), route(loose, engine)
    assert a.routed_by == b.routed_by
    ga = dict(zip(a.subnet.ca_guid.tolist(), a.lids.ca_lid.tolist(), strict=True))
    gb = dict(zip(b.subnet.ca_guid.tolist(), b.lids.ca_lid.tolist(), strict=True))
    assert ga == gb and len(ga) == 582
    sa = {int(g): a.lft[s].tolist() for s, g in enumerate(a.subnet.sw_guid.tolist())}
    sb = {int(g): b.lft[s].tolist() for s, g in enumerate(b.subnet.sw_guid.tolist())}
    assert sa == sb and len(sa) == 40


SYSIMG = """\
switchguid=0x10
Switch\t4 "S-0000000000000010"\t\t# "leaf01" enhanced port 0 lid 1 lmc 0
[1]\t"H-0000000000000020"[1](21)\t\t# "node01 mlx5_0" lid 2 4xNDR
[2]\t"H-0000000000000030"[1](31)\t\t# "MT4129 ConnectX7   Mellanox Technologies" lid 3 4xNDR
[3]\t"H-0000000000000040"[1](41)\t\t# "MT4129 ConnectX7   Mellanox Technologies" lid 4 4xNDR

sysimgguid=0xabc
caguid=0x20
Ca\t1 "H-0000000000000020"\t\t# "node01 mlx5_0"
[1](21) \t"S-0000000000000010"[1]\t\t# lid 2 lmc 0 "leaf01" lid 1 4xNDR

sysimgguid=0xabc
caguid=0x30
Ca\t1 "H-0000000000000030"\t\t# "MT4129 ConnectX7   Mellanox Technologies"
[1](31) \t"S-0000000000000010"[2]\t\t# lid 3 lmc 0 "leaf01" lid 1 4xNDR

sysimgguid=0x40
caguid=0x40
Ca\t1 "H-0000000000000040"\t\t# "MT4129 ConnectX7   Mellanox Technologies"
[1](41) \t"S-0000000000000010"[3]\t\t# lid 4 lmc 0 "leaf01" lid 1 4xNDR
"""


def test_adapters_sharing_a_system_image_guid_are_one_server():
    f = loads(SYSIMG, "sysimg.ibnetdiscover")
    node = f.device("node01")
    assert [d.guid for d in node.nics] == [0x20, 0x30]        # the named adapter first
    s = recognise(f)
    assert [f.name_of(d) for d in s.servers] == ["node01"] and s.adapters == 2
    assert [f.name_of(d) for d in s.unnamed] == ["MT4129 ConnectX7 Mellanox Technologies 0x0000000000000040"]
    assert export_ibnetdiscover(f).count('"MT4129 ConnectX7   Mellanox Technologies"') == 4   # kept as read
