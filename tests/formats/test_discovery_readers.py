"""The discovery outputs of real fabrics (issue 26, "Read what real fabrics produce"): ibnetdiscover
variants (switch blocks only, -g chassis grouping, -p ports report), iblinkinfo, OpenSM's
opensm-subnet.lst and the ibdm topology file; checked against each other on the same fabric."""

import subprocess
import sys
from pathlib import Path

import pytest

from fabricviz.formats import (
    ibdm_topo,
    iblinkinfo,
    ibnetdiscover,
    ibnetdiscover_ports,
    opensm_subnet_lst,
)
from fabricviz.loaders import detect_format, load_any
from fabricviz.model import FabricError

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "samples"
ROOT = Path(__file__).resolve().parents[2]


def cable_set(f) -> set[frozenset[tuple[int, int]]]:
    """Each cable as its two ends (device GUID, port number): what any reader of the same fabric must agree on."""
    return {frozenset((c.port_a.device.guid, c.port_a.num) if i == 0 else (c.port_b.device.guid, c.port_b.num)
                      for i in (0, 1)) for c in f.cables()}


def counts(f) -> tuple[int, int, int]:
    c = f.counts()
    return c.get("ib_switch", 0), c.get("nic", 0), c["cables"]


# --------------------------------------------------------------------------- ibnetdiscover variants
def test_switch_blocks_only_with_single_spaces_builds_the_cas_from_the_link_lines():
    f = ibnetdiscover.load(SAMPLES / "qdr_switch_blocks_only.ibnetdiscover")
    assert counts(f) == (2, 20, 25)
    hca = f.device("node01/mlx5_0")       # the adapter "node01 HCA-1", in its server node01
    assert f.meta["node_descriptions"]["0x0002c9030003bf82"] == ["node01/mlx5_0", "node01 HCA-1"]
    assert hca.guid == 0x0002c9030003bf82 and len(hca.port_ids) == 2
    port2 = hca.port(2)
    assert port2.guid == 0x0002c9030003bf84 and port2.cable is not None and hca.port(1).cable is None
    assert str(port2.rate) == "4xQDR"
    a, b = f.device("MF0;ib-sw-a:IS5030/U1"), f.device("MF0;ib-sw-b:IS5030/U1")
    isl = [c for c in f.cables() if {c.port_a.device.id, c.port_b.device.id} == {a.id, b.id}]
    assert sorted((c.port_a.num, c.port_b.num) for c in isl) == [(p, p) for p in range(31, 36)]
    assert f.meta["file_lids"]["0x0002c9030003bf82:2"] == 3      # the CA's LID, from the switch's line


def test_an_unknown_peer_whose_id_is_no_guid_stays_refused():
    text = 'switchguid=0x10\nSwitch 4 "S-0000000000000010" # "sw"\n[1] "node-a"[1] # "a" lid 2 4xQDR\n'
    with pytest.raises(FabricError, match=r'^x:3: link to unknown node "node-a"$'):
        ibnetdiscover.loads(text, "x")


def test_the_real_superpod_file_loads_as_before():
    f = ibnetdiscover.load(SAMPLES / "topograph_superpod_ndr.ibnetdiscover")
    assert counts(f) == (40, 582, 1114)


def test_chassis_grouping_output_of_g():
    f = load_any(SAMPLES / "chassis_grouped_g.ibnetdiscover")
    assert counts(f) == (3, 2, 4)
    assert f.device("SW-ISR9288 Line 1 Chip 1").port(1).peer.device.name == "node1/mlx5_0"   # "node1 HCA-1" in its server


def test_ibsim_outputs_of_the_man_page_fabric_agree_with_the_file_they_came_from():
    """ibnetdiscover -g, -p, iblinkinfo (both layouts) and OpenSM's subnet.lst, all written by the
    real tools under ibsim on manpage_example.ibnetdiscover: the same 7 cables between the same ports."""
    want = cable_set(ibnetdiscover.load(SAMPLES / "manpage_example.ibnetdiscover"))
    assert len(want) == 7
    for name, fmt in (("manpage_example.ibnetdiscover-g", "ibnetdiscover"),
                      ("manpage_example.ibnetdiscover-p", "ibnetdiscover-ports"),
                      ("manpage_example.iblinkinfo", "iblinkinfo"),
                      ("manpage_example.iblinkinfo-l", "iblinkinfo"),
                      ("manpage_example.opensm-subnet.lst", "opensm-subnet-lst")):
        path = SAMPLES / name
        assert detect_format(path.read_text(), path.name) == fmt, name
        f = load_any(path)
        assert cable_set(f) == want, name
        assert counts(f) == (2, 4, 7), name


def test_real_tool_outputs_of_the_qdr_fabric_agree_with_the_switch_only_file():
    """The switch-only QDR file imported and exported, run under ibsim: OpenSM's subnet.lst,
    iblinkinfo and ibnetdiscover -p of it, and the hand-written ibdm topology of the same cabling."""
    src = ibnetdiscover.load(SAMPLES / "qdr_switch_blocks_only.ibnetdiscover")
    want = cable_set(src)
    for name in ("qdr_ibsim.opensm-subnet.lst", "qdr_ibsim.iblinkinfo", "qdr_ibsim.ibnetdiscover-p"):
        f = load_any(SAMPLES / name)
        assert counts(f) == (2, 20, 25) and cable_set(f) == want, name
        assert {str(c.port_a.rate) for c in f.cables()} == {"4xQDR"}, name
    topo = ibdm_topo.load(SAMPLES / "qdr_written.topo")
    assert counts(topo) == (2, 20, 25)
    assert sorted((c.port_a.device.name, c.port_a.num, c.port_b.device.name, c.port_b.num) for c in topo.cables()
                  if c.port_b.device.name.startswith("node"))[:2] == [("ib-sw-a", 1, "node01", 2),
                                                                       ("ib-sw-a", 2, "node02", 2)]


def test_ports_report_keeps_lids_and_rates():
    f = ibnetdiscover_ports.load(SAMPLES / "manpage_example.ibnetdiscover-p")
    assert {str(c.port_a.rate) for c in f.cables()} == {"4xSDR"}
    assert f.meta["file_lids"]["0x0008f10400410015:0"] == 3
    dual = f.device(next(n for n in (f.name_of(d) for d in f.device_ids().tolist()) if "0x0008f10403960558" in n))
    assert [dual.port(p).guid for p in (1, 2)] == [0x0008f10403960559, 0x0008f1040396055a]


# --------------------------------------------------------------------------- iblinkinfo
def test_iblinkinfo_gives_every_port_its_state_and_physical_state():
    text = (SAMPLES / "manpage_example.iblinkinfo").read_text()
    ports, problems = iblinkinfo.read_ports(text, "x")
    assert problems == []
    assert len(ports) == 37
    assert sum(p.state == "Active" for p in ports) == 14
    assert {p.phys for p in ports if p.state == "Down"} == {"Polling"}
    assert {str(p.rate) for p in ports if p.state == "Active"} == {"4xSDR"}
    f = iblinkinfo.loads(text, "x")
    assert {str(c.port_a.rate) for c in f.cables()} == {"4xSDR"}
    assert len(list(f.cables())) == 7


def test_iblinkinfo_disabled_port_and_peer_not_listed():
    head = "Switch: 0x0000000000000010 sw:\n"
    ports, problems = iblinkinfo.read_ports(head + '           1    1[  ] ==(                Down/ Disabled)==>'
                                            '             [  ] "" ( )\n', "x")
    assert problems == [] and ports[0].phys == "Disabled" and ports[0].rate is None
    f = iblinkinfo.loads(head + '           1    1[  ] ==(                Down/ Disabled)==>'
                         '             [  ] "" ( )\n', "x")
    assert f.device("sw").port(1).state == "disabled"
    bad = head + '           1    2[  ] ==( 4X 10.0 Gbps Active/  LinkUp)==>       9    1[  ] "gone" ( )\n'
    with pytest.raises(FabricError, match=r"^x:2: peer not listed: lid 9 port 1"):
        iblinkinfo.loads(bad, "x")


# --------------------------------------------------------------------------- opensm-subnet.lst
def test_ibutils_subnet_lst():
    f = opensm_subnet_lst.load(SAMPLES / "ibutils_subnet.lst")
    assert counts(f) == (62, 3, 172)


def test_subnet_lst_refusals_name_the_line():
    good = (SAMPLES / "manpage_example.opensm-subnet.lst").read_text().splitlines()
    assert "PN:0A" in good[1]                # SW-6IB4 port 1 -> ISR9024 port 10 (hex)
    bad = "\n".join(good[:1] + [good[1].replace("PN:0A", "PN:FF")] + good[2:])
    assert opensm_subnet_lst.check(bad, "s.lst")[0] == "s.lst:2: PN:FF is out of range (1-18 hex)"


# --------------------------------------------------------------------------- ibdm topology
def test_ibutils_buffalo8_topology():
    f = ibdm_topo.load(SAMPLES / "ibutils_buffalo8.topo")
    assert counts(f) == (6, 14, 30)
    sl = f.device("SL1-1")
    assert len(sl.port_ids) == 8 and sl.port(5).peer.device.name == "SL2-1"
    assert len(f.device("H01").port_ids) == 2


def test_ibdm_topology_rates_unknown_types_and_chassis():
    text = "MTS800 S-1\n  P1 -4X-5G-> MT23108 H-1 P1\n  P2 -1X-> MT23108 H-1 P2\n  P3 -> QM9700 X 7\n"
    with pytest.raises(FabricError, match=r"^t:4: port 7: expected P1-P254 or Uk/Pn \(QM9700 has no IBNL"):
        ibdm_topo.loads(text, "t")
    f = ibdm_topo.loads(text.replace(" 7\n", " P7\n"), "t")
    assert str(f.device("H-1").port(1).rate) == "4xDDR" and str(f.device("H-1").port(2).rate) == "1xSDR"
    assert f.device("X").kind == "ib_switch" and len(f.device("X").port_ids) == 7
    with pytest.raises(FabricError, match=r"^t:1: MTS14400 is a multi-chip chassis"):
        ibdm_topo.loads("MTS14400 SW\n  L1/P1 -> MT23108 H001 P1\n", "t")


def test_ibdm_export_reads_back_with_its_ibnl_files(tmp_path):
    """fabricviz's ibdm export (topology + IBNL folder) read back: the same cables between the same
    system ports, every port count from the IBNL files; a server's NICs are nodes U1..U8 of one system."""
    from fabricviz.formats import ibdm_topo_export
    from fabricviz.generate import fat_tree
    src = ibnetdiscover.load(SAMPLES / "manpage_example.ibnetdiscover")
    path = tmp_path / "man.ibdm.topo"
    ibdm_topo_export.save(src, path)
    assert (tmp_path / "man.ibdm.topo.ibnl.d").is_dir()
    back = load_any(path)
    names = ibdm_topo_export.export_ibdm_topo(src).port_names
    want = {frozenset(tuple(names[p].rsplit("/P", 1)) for p in (c.port_a.id, c.port_b.id)) for c in src.cables()}
    got = {frozenset((e.device.name, str(e.num)) for e in (c.port_a, c.port_b)) for c in back.cables()}
    assert got == want and len(got) == 7
    assert sorted(len(d.port_ids) for d in back.devices()) == sorted(len(d.port_ids) for d in src.devices())
    dgx = fat_tree(levels=2, radix=4, servers="dgx")
    ibdm_topo_export.save(dgx, tmp_path / "dgx.ibdm.topo")
    again = load_any(tmp_path / "dgx.ibdm.topo")
    assert counts(again) == (dgx.counts()["ib_switch"], dgx.counts()["nic"], len(list(dgx.cables()))) == (6, 8, 16)
    assert again.device("node01/U8").port(1).peer.device.name == "leaf04"


@pytest.mark.skipif(not Path("/usr/lib/x86_64-linux-gnu/ibdm1.5.7/ibnl").is_dir(), reason="ibutils not installed")
def test_single_chip_system_types_match_the_installed_ibnl_files():
    import re
    ibnl = Path("/usr/lib/x86_64-linux-gnu/ibdm1.5.7/ibnl")
    for path in ibnl.glob("*.ibnl"):
        text = path.read_text()
        nodes = re.findall(r"^NODE\s+(SW|CA)\s+(\d+)", text, re.M)
        names = re.search(r"^TOPSYSTEM\s+(\S+)", text, re.M).group(1).split(",")
        if len(nodes) == 1 and len(re.findall(r"^(TOPSYSTEM|SYSTEM)\b", text, re.M)) == 1 and "SUNDCS" not in path.name:
            for n in names:
                assert ibdm_topo.SYSTEM_TYPES[n] == ({"SW": "Switch", "CA": "Ca"}[nodes[0][0]], int(nodes[0][1])), n
        else:
            assert set(names) <= ibdm_topo.CHASSIS, path.name


# --------------------------------------------------------------------------- the CLI
@pytest.mark.parametrize("name,text,where", [
    ("a.lst", "{ SW Ports:08 SystemGUID:1 NodeGUID:2 PortGUID:2 VenID:1 DevID:1 Rev:1 {x} LID:1 PN:1 } junk\n", 1),
    ("a.iblinkinfo", "Switch: 0x10 sw:\n  1 1[ ] ==( Up )==> nothing\n", 2),
    ("a.topo", "MTS800 S\n  P1 -> MT23108 H P3\n", 2),
    ("a.ports", "SW     3  8 0x0008f10400410015 4x SDR                                    'x'\nSW 3 x\n", 2),
])
def test_cli_refusal_is_one_line_with_exit_2(tmp_path, name, text, where):
    p = tmp_path / name
    p.write_text(text)
    r = subprocess.run([sys.executable, "-m", "fabricviz", "info", str(p)], capture_output=True, text=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and f"{p}:{where}: " in r.stderr


# --------------------------------------------------------------------------- OpenSM as the oracle
@pytest.mark.oracle
@pytest.mark.slow
def test_opensm_subnet_lst_of_the_superpod_equals_the_file_it_came_from(run_opensm):
    """OpenSM under ibsim on the real SuperPOD file: its subnet.lst read back gives the same
    devices and the same 1,114 cables between the same GUIDs and ports."""
    src = ibnetdiscover.load(SAMPLES / "topograph_superpod_ndr.ibnetdiscover")
    out = run_opensm(SAMPLES / "topograph_superpod_ndr.ibnetdiscover", "minhop")
    f = opensm_subnet_lst.load(out / "opensm-subnet.lst")
    assert counts(f) == counts(src) == (40, 582, 1114)
    assert cable_set(f) == cable_set(src)


@pytest.mark.oracle
def test_opensm_subnet_lst_of_our_switch_only_import_round_trips(run_opensm, tmp_path):
    """The QDR switch-blocks-only file, imported, exported as ibnetdiscover, run under OpenSM: its
    subnet.lst has the same cables, rates included."""
    src = ibnetdiscover.load(SAMPLES / "qdr_switch_blocks_only.ibnetdiscover")
    exported = tmp_path / "qdr.ibnetdiscover"
    ibnetdiscover.save_ibnetdiscover(src, exported)
    f = opensm_subnet_lst.load(run_opensm(exported, "minhop") / "opensm-subnet.lst")
    assert cable_set(f) == cable_set(src) and len(cable_set(f)) == 25
    assert {str(c.port_a.rate) for c in f.cables()} == {"4xQDR"}
