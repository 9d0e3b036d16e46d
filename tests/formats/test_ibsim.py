"""ibsim net files: the GUIDs ibsim assigns, one-sided links, GUID base lines, checked against real ibsim."""

import re

import pytest

from fabricviz.formats.ibsim import check_ibsim, load_ibsim, loads_ibsim
from fabricviz.model import FabricError


def test_2sw2path4hca_guids_as_ibsim_assigns_them(samples):
    # ibsim/sim_net.c (new_node, init_ports): switches count from 0x200000 by 1, CAs from 0x100000
    # by ports + 1 (these HCAs have 2 ports, so +3), in file order; CA port N = node GUID + N and
    # every switch port carries the switch GUID. Confirmed with ibsim 0.10 + OpenSM 3.3.23 (see the
    # test below, which reads what the real ibsim gave when it is installed).
    f = load_ibsim(samples / "ibsim_net.2sw2path4hca.net")
    assert {d.name: d.guid for d in f.devices()} == {
        "Switch1": 0x200000, "Switch2": 0x200001,
        "Hca1": 0x100000, "Hca2": 0x100003, "Hca3": 0x100006, "Hca4": 0x100009}
    assert [f.device(h).port(1).guid for h in ("Hca1", "Hca2", "Hca3", "Hca4")] == [
        0x100001, 0x100004, 0x100007, 0x10000A]
    assert f.device("Hca1").port(2).guid == 0x100002
    parallel = [c for c in f.cables() if {c.port_a.device.name, c.port_b.device.name} == {"Switch1", "Switch2"}]
    assert sorted((c.port_a.num, c.port_b.num) for c in parallel) == [(3, 3), (5, 5)]
    assert f.counts()["cables"] == 6
    assert {str(c.rate) for c in f.cables()} == {"4xSDR"}  # ibsim's default link: 4x SDR
    assert f.meta["sm_node"] == "Switch1"
    assert f.meta["source"] == {"format": "ibsim", "file": "ibsim_net.2sw2path4hca.net"}
    assert "file_lids" not in f.meta


def test_guids_match_the_real_ibsim(samples, run_opensm):
    path = samples / "ibsim_net.2sw2path4hca.net"
    out = run_opensm(path, "minhop")
    lst = (out / "opensm-subnet.lst").read_text()
    ibsim_nodes = {(m[0], int(m[1], 16), int(m[2], 16))
                   for m in re.findall(r"\{ (?:SW|CA)[-A-Z]* .*?NodeGUID:([0-9a-f]+) PortGUID:([0-9a-f]+) .*?\{([^}]*)\}",
                                       lst) for m in [(m[2], m[0], m[1])]}
    f = load_ibsim(path)
    ours = {(d.name, d.guid, d.guid if d.kind == "ib_switch" else p.guid)
            for d in f.devices() for p in d.ports if p.cable is not None}
    assert ibsim_nodes == ours


def test_example_net_one_port_per_line_and_tiers(samples):
    f = load_ibsim(samples / "ibsim_net_example.net")
    assert f.counts()["cables"] == 4 and f.counts()["nic"] == 2
    assert f.port("Hca2:2").peer.name == "Switch1:2" and f.port("Hca2:2").guid == 0x100005
    assert f.port("Hca2:1").cable is None
    assert [(d.name, d.tier) for d in f.devices()] == [("Switch1", 1), ("Switch2", 2), ("Hca1", 0), ("Hca2", 0)]


def test_one_sided_links_guid_lines_and_routers():
    text = """\
switchguid=0x5000
Switch 4 "a"
[1] "b"[4]
[2] "h"[1]

Switch 4 "b"

caguid+0x10
Hca 1 "h" # "host one"

rtguid=0x9000
Rt 2 "r"
[1] "a"[3]
"""
    assert check_ibsim(text, "n.net") == []
    f = loads_ibsim(text, "n.net")
    assert {d.name: d.guid for d in f.devices()} == {"a": 0x5000, "b": 0x5001, "host one": 0x100010, "r": 0x9000}
    assert f.port("b:4").peer.name == "a:1" and f.port("host one:1").peer.name == "a:2"
    r = f.device("r")
    assert (r.kind, r.part_id, r.port(1).guid, r.port(2).guid) == ("nic", "IB-ROUTER-2p", 0x9001, 0x9002)
    assert r.port(1).peer.name == "a:3"


def test_router_without_guid_line_is_refused():
    # ibsim starts routers at GUID 0 (no initial value in sim_net.c's guids[]), which is not a GUID
    with pytest.raises(FabricError, match=r'^n\.net:1: ibsim would give "r" GUID 0x0; add a rtguid= line'):
        loads_ibsim('Rt 2 "r"\n', "n.net")


def test_unsupported_ibsim_lines_are_named():
    problems = check_ibsim('include "other.net"\nSwitch 4 "a"\n@x "b"[1]\n', "n.net")
    assert problems == ["n.net:1: ibsim 'include' lines are not supported",
                        "n.net:3: ibsim port aliases (@) are not supported"]


def test_two_ports_claiming_one_unlisted_port():
    text = 'Switch 4 "a"\n[1] "h"[1]\n\nSwitch 4 "b"\n[1] "h"[1]\n\nHca 1 "h"\n'
    assert check_ibsim(text, "n.net") == [
        'n.net:5: "h"[1] is also linked from "a"[1] at line 2']


def test_node_descriptions_with_repeated_spaces_are_kept(samples):
    from fabricviz.formats.ibnetdiscover import export_ibnetdiscover
    text = (samples / "ibsim_net.2sw2path4hca.net").read_text()
    text = text.replace('Switch 8 "Switch2"', 'Switch 8 "Switch2" # "Quantum  QM8700   spine"')
    f = loads_ibsim(text, "spaced.net")
    assert f.find("Quantum QM8700 spine") is not None
    assert f.meta["node_descriptions"] == {"0x0000000000200001": ["Quantum QM8700 spine", "Quantum  QM8700   spine"]}
    assert '# "Quantum  QM8700   spine" enhanced port 0 lid 0 lmc 0' in export_ibnetdiscover(f)
