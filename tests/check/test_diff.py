"""fabricviz diff: a design against the fabric it became (its own ibnetdiscover export, read back,
then edited the way real fabrics go wrong), every kind of difference with its exact line."""

import json
from pathlib import Path

import pytest

from fabricviz.check.diff import DiffKind, diff_fabrics
from fabricviz.check.diff_match import MatchedBy
from fabricviz.cli import main
from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads, save_ibnetdiscover
from fabricviz.formats.native import save_fabric
from fabricviz.generate.fattree import fat_tree
from fabricviz.loaders import load_any


@pytest.fixture(scope="module")
def design():
    """2-level fat tree, radix 8, 6 hosts: leaf01:1-4 and leaf02:1-2 to hosts, leaf02:3-4 free,
    leaves' ports 5-8 up to spine01-04 (spine port 1 from leaf01, 2 from leaf02)."""
    return fat_tree(levels=2, radix=8, hosts=6)


def discovered(design):
    return loads(export_ibnetdiscover(design), "fabric.ibnd")


def move(f, port, to):
    """Unplug the cable on ``port`` and plug its far end into ``to`` (returns the far end's name)."""
    p = f.port(port)
    far = p.peer.name
    f.remove_cables([p.cable.id])
    f.add_cable(far, to)
    return far


def lines(report):
    return [d.line for d in report.differences]


def test_the_fabric_as_designed_has_no_difference_and_every_device_matches_by_guid(design):
    r = diff_fabrics(design, discovered(design))
    assert r.equal and r.differences == []
    assert r.summary() == "12 of 12 design devices matched (12 by GUID), 14 cables as designed: no differences"
    assert r.matched[MatchedBy.GUID] == 12 and r.compared == (12, 12)


def test_every_kind_of_difference_is_one_line_naming_both_ends_in_a_fixed_order(design):
    f = discovered(design)
    f.remove_cables([f.port("leaf01:5").cable.id])                 # missing
    move(f, "spine02:1", "spine02:7")                               # wrong port (spine end)
    f.set_port_rate(f.port("leaf02:7").id, "1xSDR")                 # rate below design
    f.add_cable("spine03:5", "spine04:5")                           # extra
    f.rename(f.find("spine01"), "spine-a")                          # renamed
    f.add_device("ib_switch", "QM9700", "rogue")
    f.add_cable("rogue:1", "spine04:6")                             # unexpected
    f.remove_devices([f.find("node06/mlx5_0")])                     # missing device (node06's adapter)
    a, b = f.port("leaf02:5").peer.name, f.port("leaf02:6").peer.name
    f.remove_cables([f.port("leaf02:5").cable.id, f.port("leaf02:6").cable.id])
    f.add_cable("leaf02:5", b)
    f.add_cable("leaf02:6", a)                                      # swapped
    move(f, "leaf01:1", "leaf02:3")                                 # wrong peer (host on another leaf)
    move(f, "leaf02:1", "leaf02:4")                                 # wrong port (host end)
    r = diff_fabrics(design, f)
    rogue = f.device("rogue").guid
    assert lines(r) == [
        "device missing: node06/mlx5_0 (0xb83fd20300000060), cabled to leaf02:2",
        f"device unexpected: rogue (0x{rogue:016x}), cabled to spine04:6",
        "renamed: spine01 reports 'spine-a', designed 'spine01' (0xb83fd20300000090)",
        "missing cable: leaf01:5 – spine01:1",
        "extra cable: spine03:5 – spine04:5 (not in the design, 4xNDR)",
        "wrong port: leaf01:6 – spine02:1: leaf01:6 is cabled to spine02:7 instead of spine02:1",
        "wrong port: leaf02:1 – node05/mlx5_0:1: node05/mlx5_0:1 is cabled to leaf02:4 instead of leaf02:1",
        "wrong peer: leaf01:1 – node01/mlx5_0:1: node01/mlx5_0:1 goes to leaf02:3 instead of leaf01:1",
        "swapped: leaf02:5 – spine01:2 and leaf02:6 – spine02:2 are crossed "
        "(found leaf02:5 – spine02:2 and leaf02:6 – spine01:2)",
        "rate below design: leaf02:7 – spine03:2 runs 1xSDR, designed 4xNDR",
    ]
    assert r.summary().endswith("7 cables as designed: 1 device missing, 1 device unexpected, 1 renamed, "
                                "1 missing cable, 1 extra cable, 2 wrong port, 1 wrong peer, 1 swapped, "
                                "1 rate below design")
    rate = r.differences[-1]
    assert (rate.kind, rate.design_rate, rate.found_rate) == (DiffKind.RATE_BELOW, "4xNDR", "1xSDR")
    # the typed records carry the design's ids: what the GUI draws and selects
    swap = next(d for d in r.differences if d.kind is DiffKind.SWAPPED)
    assert sorted(design.cable(c).label for c in swap.cables) == ["leaf02:5 – spine01:2", "leaf02:6 – spine02:2"]
    peer = next(d for d in r.differences if d.kind is DiffKind.WRONG_PEER)
    assert design.port_name(peer.found[0].port_b) == "leaf02:3"
    assert sorted(design.name_of(d) for d in peer.devices) == ["leaf01", "leaf02", "node01/mlx5_0"]
    assert lines(diff_fabrics(design, f)) == lines(r)        # the same report every run


def test_a_fabric_with_other_guids_is_matched_by_name_then_through_the_cabling(design):
    f = discovered(design)
    for d in f.device_ids("ib_switch").tolist():           # other switch GUIDs: matched by name
        f.set_guid(d, int(f.devices_t.guid[d]) ^ 0x5A5A0000)
    r = diff_fabrics(design, f)
    assert r.equal and r.matched == {MatchedBy.GUID: 6, MatchedBy.DESCRIPTION: 6, MatchedBy.CABLING: 0}
    leaf01 = f.find("leaf01")
    for d in f.device_ids("ib_switch").tolist():           # and other names: found from the hosts' cables
        f.rename(d, f"sw-{d}")
    r = diff_fabrics(design, f)
    assert r.matched == {MatchedBy.GUID: 6, MatchedBy.DESCRIPTION: 0, MatchedBy.CABLING: 6}
    assert lines(r)[0] == f"renamed: leaf01 reports 'sw-{leaf01}', designed 'leaf01' (0xb83fd2035a5a0070)"
    assert [d.kind for d in r.differences] == [DiffKind.RENAMED] * 6


def test_the_work_is_one_look_at_each_port_and_each_cable():
    for hosts in (6, 60):
        d = fat_tree(levels=2, radix=16, hosts=hosts)
        r = diff_fabrics(d, discovered(d))
        assert r.equal
        assert r.steps == d.ports_t.n + 2 * d.counts()["cables"]


def test_cli_exit_status_is_0_when_equal_1_when_different_2_when_unreadable(design, tmp_path, capsys):
    src = tmp_path / "design.json"
    save_fabric(design, src)
    same = tmp_path / "same.ibnd"
    save_ibnetdiscover(design, same)
    assert main(["diff", str(src), str(same)]) == 0
    assert capsys.readouterr().out == \
        "12 of 12 design devices matched (12 by GUID), 14 cables as designed: no differences\n"
    f = discovered(design)
    f.remove_cables([f.port("leaf01:5").cable.id])
    edited = tmp_path / "edited.ibnd"
    save_ibnetdiscover(f, edited)
    assert main(["diff", str(src), str(edited)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "missing cable: leaf01:5 – spine01:1",
        "12 of 12 design devices matched (12 by GUID), 13 cables as designed: 1 missing cable"]
    assert main(["diff", str(src), str(edited), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"] == {"missing cable": 1} and doc["equal"] is False
    assert doc["differences"] == [{"kind": "missing cable", "line": "missing cable: leaf01:5 – spine01:1",
                                   "design": [["leaf01:5", "spine01:1"]], "found": []}]
    bad = tmp_path / "bad.ibnd"
    bad.write_text("Switch 8 \"S-1\"\n[1] \"node-a\"[1]\n")     # a peer with no block and no GUID id
    assert main(["diff", str(src), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fabricviz: error: {bad}") and len(err.splitlines()) == 1
    assert main(["diff", str(src), str(tmp_path / "none.ibnd")]) == 2
    assert capsys.readouterr().err == f"fabricviz: error: {tmp_path / 'none.ibnd'}: no such file\n"


def test_a_design_with_ethernet_compared_with_an_infiniband_discovery_leaves_ethernet_out():
    d = fat_tree(levels=2, radix=8, hosts=4)
    f = discovered(d)
    d.add_device("eth_switch", "SN5600", "mgmt")
    r = diff_fabrics(d, f)
    assert r.equal and r.ethernet_left_out and r.compared == (9, 9)


REAL = Path(__file__).resolve().parents[1] / "data" / "samples" / "topograph_superpod_ndr.ibnetdiscover"


def test_the_real_superpod_dump_against_itself_edited_and_with_other_switch_guids_and_names():
    """NVIDIA/topograph's NDR SuperPOD (40 switches, 582 adapters incl. 40 SHARP nodes, 1114 links):
    its switches given other GUIDs in the design are found by name; given other names too, through
    the cabling from the adapters (edge first, as ibtopodiff -e)."""
    design, found = load_any(REAL), load_any(REAL)
    leaf1, leaf2 = "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1", "MF0;A09-P1-IBLEAF-04-02:MQM9701/U1"
    found.remove_cables([found.port(f"{leaf1}:1").cable.id])
    a, b = found.port(f"{leaf2}:1").peer.name, found.port(f"{leaf2}:2").peer.name
    found.remove_cables([found.port(f"{leaf2}:1").cable.id, found.port(f"{leaf2}:2").cable.id])
    found.add_cable(f"{leaf2}:1", b)
    found.add_cable(f"{leaf2}:2", a)
    # the adapters are their hosts' NICs (issue 26): "a08-p1-dgx-04-c01 mlx5_5" is a08-p1-dgx-04-c01's
    # fourth adapter, its NIC 3; "a06-p1-dgx-02-c01 HCA-6" likewise
    want = [f"missing cable: {leaf1}:1 – a08-p1-dgx-04-c01/mlx5_3:1",
            f"swapped: {leaf2}:1 – a06-p1-dgx-02-c01/mlx5_3:1 and {leaf2}:2 – a06-p1-dgx-02-c02/mlx5_3:1 are "
            f"crossed (found {leaf2}:1 – a06-p1-dgx-02-c02/mlx5_3:1 and {leaf2}:2 – a06-p1-dgx-02-c01/mlx5_3:1)"]
    r = diff_fabrics(design, found)
    assert lines(r) == want and r.matched[MatchedBy.GUID] == 622 and r.cables_ok == 1111
    switches = design.device_ids("ib_switch").tolist()
    for d in switches:
        design.set_guid(d, int(design.devices_t.guid[d]) ^ 0x77)
    r = diff_fabrics(design, found)
    assert lines(r) == want
    assert r.matched == {MatchedBy.GUID: 582, MatchedBy.DESCRIPTION: 40, MatchedBy.CABLING: 0}
    i1, i2 = design.find(leaf1), design.find(leaf2)
    for d in switches:
        design.rename(d, f"sw{d}")
    r = diff_fabrics(design, found)
    assert r.matched == {MatchedBy.GUID: 582, MatchedBy.DESCRIPTION: 0, MatchedBy.CABLING: 40}
    assert [x.kind for x in r.differences].count(DiffKind.RENAMED) == 40
    assert i2 == i1 + 1                                     # the file's first two switches
    assert r.differences[0].line == f"renamed: sw{i1} reports '{leaf1}', designed 'sw{i1}' (0x2c5eab0300b87b40)"
    assert [x.line for x in r.differences if x.kind is not DiffKind.RENAMED] == [
        f"missing cable: a08-p1-dgx-04-c01/mlx5_3:1 – sw{i1}:1",
        f"swapped: a06-p1-dgx-02-c01/mlx5_3:1 – sw{i2}:1 and a06-p1-dgx-02-c02/mlx5_3:1 – sw{i2}:2 are crossed "
        f"(found a06-p1-dgx-02-c01/mlx5_3:1 – sw{i2}:2 and a06-p1-dgx-02-c02/mlx5_3:1 – sw{i2}:1)"]
