"""Lint rules: for each rule a design that triggers it (exact finding) and one that does not."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

import fabricviz.check.lint as lint_mod
from fabricviz.check.lint import RULES, lint
from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate.fattree import fat_tree, k_ary_fat_tree
from fabricviz.generate.leafspine import leaf_spine
from fabricviz.generate.rail import rail_optimized
from fabricviz.model import Fabric


def only(report, rule):
    return [x for x in report.findings if x.rule == rule]


def ids(f, *names):
    return tuple(f.find(n) for n in names)


def pid(f, *names):
    return tuple(f.port_id(n) for n in names)


def cable_at(f, port):
    return f.port(port).cable.id


@pytest.fixture(scope="module")
def k8():
    return k_ary_fat_tree(8)


@pytest.fixture(scope="module")
def k8_report(k8):
    return lint(k8)


@pytest.fixture(scope="module")
def rail1_report():
    return lint(rail_optimized(1))


def test_every_rule_is_registered_with_a_severity():
    assert set(RULES) == {"nic-unconnected", "port-budget", "link-downgrade", "link-degraded", "cable-reach",
                          "mixed-fabric",
                          "lid-space", "oversubscription", "spof-host", "spof-leaf", "rail-crossed",
                          "unbalanced-links", "ftree-refused", "credit-loop", "ib-unreachable",
                          "partition-unknown-guid", "partition-default-only", "partition-limited-only",
                          "partition-pkey-capacity", "pfc-deadlock", "roce-headroom", "plane-refused",
                          "plane-unknown-switch", "plane-crossed", "plane-missing-switch", "plane-nic-port",
                          "cage-plug"}
    assert {r.id for r in RULES.values() if r.routing} == {"ftree-refused", "credit-loop", "ib-unreachable"}


@pytest.mark.parametrize("make", [
    lambda: k_ary_fat_tree(8), lambda: fat_tree(2, 8, hosts=10), lambda: fat_tree(2, 16, servers="dgx"),
    lambda: rail_optimized(1), lambda: rail_optimized(2), lambda: leaf_spine(4, 2, 8, oversubscription="2:1"),
    lambda: leaf_spine(4, 2, 8, fabric="ib"), lambda: leaf_spine(4, 2, 8, super_spines=2, pods=2)])
def test_generated_fabrics_lint_clean_of_errors(make):
    r = lint(make())
    assert r.errors == 0 and r.skipped == []
    assert {x.rule for x in r.findings} <= {"spof-host"}


def test_k8_has_only_the_single_port_host_note(k8, k8_report):
    assert len(k8_report.findings) == 1
    x = k8_report.findings[0]
    assert (x.severity, x.rule) == ("info", "spof-host")
    assert len(x.devices) == 128 and x.devices[0] == k8.find("node001")
    assert x.message.startswith("128 host(s) have a single fabric port")


# --------------------------------------------------------------------------- cabling


def test_nic_unconnected():
    f = fat_tree(2, 8)
    f.remove_cables([cable_at(f, "node01/mlx5_0:1")])
    (x,) = only(lint(f), "nic-unconnected")
    assert (x.severity, x.ports, x.where) == ("warning", pid(f, "node01/mlx5_0:1"), "node01/mlx5_0:1")
    assert x.message == "NIC not cabled: GPU node01/gpu0 has no path to the fabric"
    # a dual-port NIC with one port cabled is a note
    g = Fabric()
    g.add_device("eth_switch", "SN5400", "sw1")
    g.add_device("nic", "BF3-B3220", "dpu1")
    g.add_cable("dpu1:1", "sw1:1", 1.0)
    (y,) = only(lint(g), "nic-unconnected")
    assert (y.severity, y.ports, y.message) == ("info", pid(g, "dpu1:2"), "1 of the NIC's 2 ports not cabled")


def test_nic_unconnected_clean(k8_report):
    assert only(k8_report, "nic-unconnected") == []


def _small(catalog=None):
    """sw1 (QM8700, 40 ports) with three HDR nodes on ports 38-40."""
    f = Fabric(catalog)
    f.add_device("ib_switch", "QM8700", "sw1", tier=1)
    for i, port in enumerate((38, 39, 40)):
        f.add_device("server", "NODE-1G-HDR", f"h{i}")
        f.add_cable(f"h{i}/mlx5_0:1", f"sw1:{port}", 1.0)
    return f


def test_port_budget_cabled_beyond_the_part():
    f = _small()
    assert only(lint(f), "port-budget") == []
    f.catalog = f.catalog.with_parts([replace(f.catalog.get("QM8700"), ports=36)])
    (x,) = only(lint(f), "port-budget")
    assert (x.severity, x.devices) == ("error", ids(f, "sw1"))
    assert x.message == "1 device(s) use ports beyond the 36 of part QM8700 (sw1: 3 cabled, up to port 40)"


def test_port_budget_generator_plan():
    f = leaf_spine(4, 2, 8)                   # 8 host ports + 2 uplinks on 10-port leaves
    assert only(lint(f), "port-budget") == []
    f.meta["params"]["hosts_per_leaf"] = 9    # a hand-edited plan the leaves cannot hold
    (x,) = only(lint(f), "port-budget")
    part = f.device("leaf01").part_id
    assert (x.severity, x.devices) == ("error", ids(f, "leaf01", "leaf02", "leaf03", "leaf04"))
    assert x.message == (f"the leaf-spine plan needs 11 ports on each leaf switch (9 host ports + 2 uplinks); "
                         f"part {part} has 10")


def test_link_downgrade_names_both_ports():
    f = Fabric()
    f.add_device("ib_switch", "QM9700", "leaf01", tier=1)
    f.add_device("server", "NODE-1G-HDR", "node04")
    c = f.add_cable("leaf01:3", "node04/mlx5_0:1", 1.0)
    (x,) = only(lint(f), "link-downgrade")
    assert (x.severity, x.cables, x.where) == ("warning", (c,), "leaf01:3 – node04/mlx5_0:1")
    assert x.message == "comes up at 4xHDR (200 Gb/s) instead of 400 Gb/s: leaf01:3 runs 4xNDR, " \
                        "node04/mlx5_0:1 runs 4xHDR"
    # both ends NDR, the cable part is the limit
    f.add_device("server", "NODE-1G-NDR", "node05")
    c2 = f.add_cable("leaf01:4", "node05/mlx5_0:1", 10.0, part="HDR-AOC")
    x2 = [y for y in only(lint(f), "link-downgrade") if y.cables == (c2,)][0]
    assert x2.message == "comes up at 4xHDR (200 Gb/s) instead of 400 Gb/s: the HDR-AOC cable is rated 4xHDR"


def test_link_downgrade_clean(k8_report):
    assert only(k8_report, "link-downgrade") == []


def test_cable_reach_after_the_parts_file_changes():
    f = Fabric()
    f.add_device("ib_switch", "QM9700", "leaf01", tier=1)
    f.add_device("server", "NODE-1G-NDR", "node04")
    c = f.add_cable("leaf01:3", "node04/mlx5_0:1", 3.0, part="NDR-DAC")
    assert only(lint(f), "cable-reach") == []            # NDR-DAC reaches 3 m in the bundled catalog
    dac = f.catalog.get("NDR-DAC")
    f.catalog = f.catalog.with_parts([replace(dac, reach_m=2.0, lengths_m=(1.0, 1.5, 2.0))])
    (x,) = only(lint(f), "cable-reach")
    assert (x.severity, x.cables) == ("error", (c,))
    assert x.format() == "error  cable-reach  leaf01:3 – node04/mlx5_0:1: 3 m DAC beyond the NDR-DAC's 2 m reach"


def test_mixed_fabric():
    f = fat_tree(2, 8)                        # 8 leaves + 4 spines, 32 host + 32 switch cables
    assert only(lint(f), "mixed-fabric") == []
    f.add_device("eth_switch", "SN5400", "eth1")
    f.add_device("server", "NODE-1G-NDR", "store1", mode="400GbE")
    f.add_cable("store1/mlx5_0:1", "eth1:1", 2.0)
    (x,) = only(lint(f), "mixed-fabric")
    assert (x.severity, x.devices) == ("warning", ids(f, "eth1"))
    assert x.message == ("12 InfiniBand switch(es) with 64 cables and 1 Ethernet switch(es) with 1 cables: "
                         "two separate fabrics that never link")


@pytest.fixture(scope="module")
def big2():
    # 1,458 hosts on 46 leaves + 32 spines (radix 64, 1:1)
    return fat_tree(2, 64, hosts=1458)


@pytest.mark.parametrize("lmc,severity,need", [(4, None, 0), (5, "warning", 47199), (6, "error", 93390)])
def test_lid_space(big2, lmc, severity, need):
    from fabricviz.generate.common import lid_space_problem
    from fabricviz.ib.routing import subnet_and_lids
    big2.meta["lmc"] = lmc
    found = only(lint(big2, ["lid-space"]), "lid-space")
    if severity is None:
        assert found == []                    # 1,458 × 16 + 78 = 23,406
        return
    (x,) = found
    assert x.severity == severity and x.where == big2.name
    if severity == "error":                   # 1,458 × 64 + 78: the count alone is over, route's line
        assert x.message == lid_space_problem(1458, 78, 6)
        assert f"need {need:,} LIDs, over" in x.message
        return
    # 1,458 × 32 + 78 = 46,734 by count; OpenSM's aligned blocks reach LID 47,199, as the SM assigns
    assert subnet_and_lids(big2, lmc=lmc)[1].max_lid == need
    assert x.message == (f"needs {need:,} LIDs (1,458 CA ports × 32 (LMC 5) + 78 switches with aligned blocks), "
                         "within 5% of the 49,151 unicast LIDs: no room to grow")


def test_lid_space_need_of_each_subnet_is_what_route_assigns_from_its_sm():
    # two IB subnets: lint gives each the entries route discovers from that subnet's SM (route's
    # own SM in the first, the first cabled NIC in the other) and the one LID computation
    from fabricviz.check.lint import LintContext
    from fabricviz.check.lint_rules import lid_space_needs
    from fabricviz.ib.routing import sm_device, subnet_and_lids
    f = Fabric(name="two")
    for s, cas in enumerate((5, 9)):
        f.add_device("ib_switch", "QM9700", f"leaf{s}")
        for i in range(cas):
            f.add_device("nic", "CX7-1P", f"ca{s}_{i}")
            f.add_cable(f"ca{s}_{i}:1", f"leaf{s}:{i + 1}", 1.0)
    f.meta["lmc"] = 3
    assert f.name_of(sm_device(f)) == "ca0_0"
    got = {where: (n_ca, n_sw, need, problem)
           for where, n_ca, n_sw, need, problem in lid_space_needs(LintContext(f), every=True)}
    want = {f"subnet of leaf{s}": (cas, 1, subnet_and_lids(f, f"ca{s}_0", lmc=3)[1].max_lid, None)
            for s, cas in enumerate((5, 9))}
    # the SM's block at LID 8 first, then 8 more blocks and the leaf's LID, which costs a block of its own
    assert got == want and want["subnet of leaf1"][2] == 8 + 10 * 8 - 1
    assert only(lint(f, ["lid-space"]), "lid-space") == []                # far from the end: nothing to say


# --------------------------------------------------------------------------- topology


def test_oversubscription_worse_than_asked():
    f = leaf_spine(4, 2, 8, oversubscription="2:1")      # 4 uplinks per leaf, 2 to each spine
    f.remove_cables([cable_at(f, "leaf01:9")])
    (x,) = only(lint(f), "oversubscription")
    assert (x.severity, x.devices) == ("warning", ids(f, "leaf01"))
    assert x.message == "leaf oversubscription up to 8:3 on 1 of 4 leaf switches (worst leaf01), asked for 2:1"


def test_oversubscription_better_than_asked_is_a_note():
    f = leaf_spine(4, 2, 8, oversubscription="2:1")
    f.meta["oversubscription"] = {"leaf": "4:1"}
    (x,) = only(lint(f), "oversubscription")
    assert (x.severity, len(x.devices)) == ("info", 4)
    assert x.message == "leaf oversubscription at most 2:1, asked for 4:1: more uplink capacity than asked"


def test_oversubscription_as_asked(k8_report):
    assert only(k8_report, "oversubscription") == []
    assert only(lint(leaf_spine(4, 2, 8, oversubscription="2:1")), "oversubscription") == []


def test_spof_host_dgx_on_one_leaf(rail1_report):
    f = fat_tree(2, 16, servers="dgx")                   # 8 host ports per leaf: one DGX per leaf
    found = only(lint(f), "spof-host")
    assert len(found) == 16 and all(x.severity == "warning" for x in found)
    assert found[0].devices == ids(f, "node01", "leaf01") and found[0].where == "node01"
    assert found[0].message == "all 8 fabric ports go to leaf01: losing that switch cuts the server off"
    assert only(rail1_report, "spof-host") == []         # every DGX NIC on its own rail leaf


def _two_tier_by_hand():
    """leafA: two links, both to spine1; leafB: one to each spine."""
    f = Fabric()
    for name, tier in (("leafA", 1), ("leafB", 1), ("spine1", 2), ("spine2", 2)):
        f.add_device("ib_switch", "QM9700", name, tier=tier)
    for i, leaf in enumerate(("leafA", "leafB")):
        f.add_device("server", "NODE-1G-NDR", f"h{i}")
        f.add_cable(f"h{i}/mlx5_0:1", f"{leaf}:1", 2.0)
    f.add_cable("leafA:2", "spine1:1", 15.0)
    f.add_cable("leafA:3", "spine1:2", 15.0)
    f.add_cable("leafB:2", "spine1:3", 15.0)
    f.add_cable("leafB:3", "spine2:1", 15.0)
    return f


def test_spof_leaf_all_uplinks_to_one_spine():
    f = _two_tier_by_hand()
    (x,) = only(lint(f), "spof-leaf")
    assert (x.severity, x.devices, x.where) == ("warning", ids(f, "leafA", "spine1"), "leafA")
    assert x.message == "all 2 uplinks go to spine1: losing that switch cuts off the leaf's hosts"


def test_spof_leaf_single_link_is_an_error():
    f = leaf_spine(2, 2, 4, fabric="ib")                 # one link from each leaf to each spine
    assert only(lint(f), "spof-leaf") == []
    f.remove_cables([cable_at(f, "leaf01:6")])
    (x,) = only(lint(f), "spof-leaf")
    c = cable_at(f, "leaf01:5")
    assert (x.severity, x.devices, x.cables) == ("error", ids(f, "leaf01"), (c,))
    assert x.message == "one link to the rest of the fabric (leaf01:5 – spine01:1): losing it cuts off the leaf's hosts"


def test_rails_crossed(rail1_report):
    f = rail_optimized(1)
    f.remove_cables([cable_at(f, "su1-dgx01/mlx5_2:1"), cable_at(f, "su1-dgx01/mlx5_3:1")])
    c2 = f.add_cable("su1-dgx01/mlx5_2:1", "su1-rail3:1", 2.0)
    c3 = f.add_cable("su1-dgx01/mlx5_3:1", "su1-rail2:1", 2.0)
    found = only(lint(f), "rail-crossed")
    assert [(x.severity, x.cables, x.devices) for x in found] == [
        ("warning", (c3,), ()), ("warning", (), ids(f, "su1-rail2")),
        ("warning", (c2,), ()), ("warning", (), ids(f, "su1-rail3"))]
    assert found[0].message == "NIC 3 of su1-dgx01 is on su1-rail2 (rail 2): GPU 3's traffic crosses rails"
    assert found[1].message == "one leaf mixes rails 2, 3"
    assert only(rail1_report, "rail-crossed") == []


def test_unbalanced_parallel_links():
    f = leaf_spine(2, 2, 4, uplinks=4, fabric="ib")      # 2 links from each leaf to each spine
    assert only(lint(f), "unbalanced-links") == []
    f.remove_cables([cable_at(f, "leaf01:5")])
    (x,) = only(lint(f), "unbalanced-links")
    assert (x.severity, x.devices) == ("warning", ids(f, "leaf01"))
    assert x.message.startswith("unequal parallel links up: 2 links to spine02; 1 link to spine01")


# --------------------------------------------------------------------------- routing


def test_ftree_refusal_names_the_rule(k8_report):
    f = k_ary_fat_tree(8)
    f.remove_cables([cable_at(f, "spine01:5")])          # spine01 loses one of its 4 core links
    (x,) = only(lint(f), "ftree-refused")
    assert x.severity == "warning"
    assert x.message.startswith("OpenSM's ftree would refuse this tree and route with minhop: ERR AB09: "
                                "Different number of upward port groups on switches")
    assert "ERR AB0D: Fabric topology hasn't been identified as FatTree" in x.message
    assert set(x.devices) == set(ids(f, "spine01", "spine16"))
    assert only(k8_report, "ftree-refused") == []


def _ring(n=6):
    f = Fabric()
    for i in range(n):
        f.add_device("ib_switch", "QM8700", f"sw{i}")
    for i in range(n):
        f.add_cable(f"sw{i}:1", f"sw{(i + 1) % n}:2", 1.0)
        f.add_device("server", "NODE-1G-HDR", f"h{i}")
        f.add_cable(f"h{i}/mlx5_0:1", f"sw{i}:3", 1.0)
    return f


def test_credit_loops_in_a_ring(k8_report):
    f = _ring()
    found = only(lint(f), "credit-loop")
    assert [x.severity for x in found] == ["error", "error"]
    assert found[0].ports == pid(f, "sw0:1", "sw1:1", "sw2:1", "sw3:1", "sw4:1", "sw5:1")
    assert found[1].ports == pid(f, "sw0:2", "sw5:2", "sw4:2", "sw3:2", "sw2:2", "sw1:2")
    assert found[0].message.startswith("credit loop in minhop routing over 6 channels (sw0:1 -> sw1:1 -> ")
    assert only(k8_report, "credit-loop") == []


def test_unreachable_island(k8_report):
    f = Fabric()
    for i in range(2):
        f.add_device("ib_switch", "QM9700", f"sw{i}")
        f.add_device("server", "NODE-1G-NDR", f"h{i}")
        f.add_cable(f"h{i}/mlx5_0:1", f"sw{i}:1", 2.0)
    r = lint(f)
    (x,) = only(r, "ib-unreachable")
    assert (x.severity, set(x.devices)) == ("error", set(ids(f, "sw1", "h1/mlx5_0")))
    assert x.message == ("2 cabled InfiniBand device(s) not reachable from the subnet manager on h0/mlx5_0: "
                         "no LID, no routes")
    assert [y.message for y in only(r, "spof-leaf")] == ["no link to another switch: its hosts reach only each other"] * 2
    assert only(k8_report, "ib-unreachable") == []


def test_routing_rules_skipped_above_the_limit(k8, monkeypatch):
    monkeypatch.setattr(lint_mod, "ROUTE_LIMIT", 1000)   # k=8: 80 × (80 + 128) = 16,640 cells
    r = lint(k8)
    assert r.skipped == ["ftree-refused", "credit-loop", "ib-unreachable"]
    (x,) = only(r, "routing-skipped")
    assert x.severity == "info" and "16,640 LFT cells" in x.message
    assert lint(k8, full=True).skipped == []


# --------------------------------------------------------------------------- CLI


def test_cli_exit_status_and_json(tmp_path, capsys):
    bad, good = tmp_path / "ring.json", tmp_path / "rail.json"
    save_fabric(_ring(), bad)
    save_fabric(rail_optimized(1), good)
    assert main(["lint", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.strip() == "0 error(s), 0 warning(s), 0 info"
    assert main(["lint", str(bad), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["counts"]["error"] == 2
    assert {x["rule"] for x in doc["findings"] if x["severity"] == "error"} == {"credit-loop"}
    assert main(["lint", str(bad), "--rules", "spof-leaf"]) == 0
    assert main(["lint", str(bad), "--rules", "nope"]) == 2
    assert "unknown lint rule 'nope'" in capsys.readouterr().err


# ---- link-degraded: a link that trained narrower/slower than both its ends can run
MANPAGE = Path(__file__).resolve().parents[1] / "data" / "samples" / "manpage_example.ibnetdiscover"


def test_degraded_1x_links_of_the_manpage_sample_are_flagged():
    # The sample reports S-0008f10400410015[1] <-> S-005442ba00003080[10] at 1xSDR (the other
    # links of both switches run 4xSDR) and H-0008f10403960558[1] <-> S-005442ba00003080[12] at
    # 1xSDR (its port 2 runs 4xSDR): two links narrower than both ends can run.
    from fabricviz.formats.ibnetdiscover import load
    f = load(MANPAGE)
    found = only(lint(f), "link-degraded")
    assert [(x.severity, x.where, x.message) for x in found] == [
        ("warning", "ISR9024 Voltaire:10 – SW-6IB4 Voltaire:1",
         "width degraded: 1x of 4x between ISR9024 Voltaire (0x005442ba00003080) port 10 and SW-6IB4 Voltaire "
         "(0x0008f10400410015) port 1: both ends can run 4xSDR, the link came up 1xSDR (reseat or replace "
         "the cable)"),
        ("warning", "ISR9024 Voltaire:12 – MT23108 InfiniHost Mellanox Technologies 0x0008f10403960558:1",
         "width degraded: 1x of 4x between ISR9024 Voltaire (0x005442ba00003080) port 12 and MT23108 "
         "InfiniHost Mellanox Technologies 0x0008f10403960558 port 1: both ends can run 4xSDR, the link "
         "came up 1xSDR (reseat or replace the cable)"),
    ]
    assert found[0].cables == (f.port("SW-6IB4 Voltaire:1").cable.id,)
    assert only(lint(f), "link-downgrade") == []          # both ends agree: not a port set slower


def test_cli_lint_names_the_degraded_link(capsys):
    assert main(["lint", str(MANPAGE)]) == 0                  # warnings only
    out = capsys.readouterr().out
    assert out.count("link-degraded") == 2
    assert "0 error(s), 3 warning(s), 4 info" in out


def test_degraded_speed_is_flagged_and_generated_fabrics_have_none(k8_report):
    assert only(k8_report, "link-degraded") == []
    assert only(lint(leaf_spine(4, 2, 8)), "link-degraded") == []
    assert only(lint(rail_optimized(1, fabric="roce")), "link-degraded") == []
    # a leaf-host link of a k=4 tree where both ports came up SDR (QM9700-R4 and CX7-1P run NDR)
    f = k_ary_fat_tree(4)
    a, b = f.port_id("leaf01:1"), f.port("leaf01:1").peer.id
    for p in (a, b):
        f.set_port_rate(p, "4xSDR")
    found = only(lint(f), "link-degraded")
    assert [x.message for x in found] == [
        f"speed degraded: SDR of NDR between node01/mlx5_0 (0x{f.device('node01/mlx5_0').guid:016x}) port 1 "
        f"and leaf01 (0x{f.device('leaf01').guid:016x}) port 1: both ends can run 4xNDR, the link came up "
        "4xSDR (reseat or replace the cable)"]
    # one end set slower than the other is link-downgrade's, not a degraded link
    f.set_port_rate(b, "4xNDR")
    assert only(lint(f), "link-degraded") == [] and len(only(lint(f), "link-downgrade")) == 1
