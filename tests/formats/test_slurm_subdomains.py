"""Slurm base blocks of domains with sub-domains (NVLink partitions of a rack), against what
NVIDIA/topograph writes for the same domain maps.

Reference: NVIDIA/topograph at commit e2b625071e327ee5c3bb119d8a31289a818c30fc —
``pkg/translate/block_complement_test.go`` (TestComplementUnequalDomainSubDomainCounts,
TestComplementOverflowRoundedToAggregateBoundary, TestComplementSmallSubDomainsRecursePerChild,
TestComplementOddSubDomainCount: their domain maps, block sizes and expected lines) and
``pkg/topology/domain_test.go`` (TestInferTwoLevelBlockSizes)."""

from __future__ import annotations

import pytest
import yaml

from fabricviz.formats import slurm_block, slurm_yaml
from fabricviz.formats.slurm import hostlist
from fabricviz.formats.slurm_subdomains import DomainHosts, complement, display_name, infer_sizes
from fabricviz.generate.nvl72 import nvl72


def _lines(domains: list[DomainHosts], sizes: list[int]) -> list[str]:
    """The slots as topograph's toBlockTopology prints them."""
    out = []
    for k, (sid, nodes) in enumerate(complement(domains, sizes)):
        name = f"block{k + 1:03d}"
        if nodes:
            out += [f"# {name}={display_name(sid)}", f"BlockName={name} Nodes={hostlist(list(nodes))}"]
        else:
            out.append(f"BlockName={name}")
    return [*out, "BlockSizes=" + ",".join(map(str, sizes))]


def _dom(name: str, subs: list[tuple[str, list[str]]]) -> DomainHosts:
    return DomainHosts(name, tuple((h, sub) for sub, hosts in subs for h in hosts))


def test_unequal_domain_sub_domain_counts():
    a = _dom("a", [(f"a.sd{sd}", [f"a-sd{sd}-h{h}" for h in range(9)]) for sd in range(4)])
    b = _dom("b", [("b.sd0", [f"b-h{h:02d}" for h in range(36)])])
    assert _lines([a, b], [18, 72, 288]) == [
        "# block001=a.sd0", "BlockName=block001 Nodes=a-sd0-h[0-8]",
        "# block002=a.sd1", "BlockName=block002 Nodes=a-sd1-h[0-8]",
        "# block003=a.sd2", "BlockName=block003 Nodes=a-sd2-h[0-8]",
        "# block004=a.sd3", "BlockName=block004 Nodes=a-sd3-h[0-8]",
        "# block005=b.sd0", "BlockName=block005 Nodes=b-h[00-17]",
        "# block006=b.sd0", "BlockName=block006 Nodes=b-h[18-35]",
        *[f"BlockName=block{k:03d}" for k in range(7, 17)],
        "BlockSizes=18,72,288"]


def test_overflow_rounded_to_aggregate_boundary():
    a = _dom("a", [(f"a.sd{sd}", [f"a-sd{sd}-h{h}" for h in range(3)]) for sd in range(5)])
    b = _dom("b", [(f"b.sd{sd}", [f"b-sd{sd}-h{h}" for h in range(2)]) for sd in range(4)])
    assert _lines([a, b], [8, 32]) == [
        *[x for sd in range(5) for x in (f"# block{sd + 1:03d}=a.sd{sd}",
                                         f"BlockName=block{sd + 1:03d} Nodes=a-sd{sd}-h[0-2]")],
        "BlockName=block006", "BlockName=block007", "BlockName=block008",
        *[x for sd in range(4) for x in (f"# block{sd + 9:03d}=b.sd{sd}",
                                         f"BlockName=block{sd + 9:03d} Nodes=b-sd{sd}-h[0-1]")],
        "BlockSizes=8,32"]


@pytest.mark.parametrize(("subs", "sizes"), [(4, [8, 32]), (5, [8])])
def test_small_and_odd_sub_domains_get_a_block_each(subs, sizes):
    d = _dom("d", [(f"d.sd{sd}", [f"d-sd{sd}-h{h}" for h in range(3)]) for sd in range(subs)])
    assert _lines([d], sizes) == [
        *[x for sd in range(subs) for x in (f"# block{sd + 1:03d}=d.sd{sd}",
                                            f"BlockName=block{sd + 1:03d} Nodes=d-sd{sd}-h[0-2]")],
        "BlockSizes=" + ",".join(map(str, sizes))]


@pytest.mark.parametrize(("subs", "want"), [
    ([], None),                                              # empty map
    ([("d1", "", 8), ("d2", "", 6)], None),                  # single-level
    ([("f", "f.a", 8), ("f", "f.b", 8)], [8, 16]),
    ([("f", "f.a", 8)], [8]),                                # one sub-domain: one size
    ([("f", "f.a", 8), ("f", "f.b", 4)], [8, 16]),           # 12 hosts → 16
])
def test_infer_two_level_block_sizes(subs, want):
    doms: dict[str, list[tuple[str, str]]] = {}
    for dom, sub, n in subs:
        doms.setdefault(dom, []).extend((f"{sub or dom}-node{i}", sub) for i in range(1, n + 1))
    assert infer_sizes([DomainHosts(k, tuple(v)) for k, v in doms.items()]) == want


def test_partitioned_racks_are_sub_domain_blocks():
    """``generate nvl72 --partition 24``: 3 partitions of 6 trays per rack, each rack padded to 4
    slots (24 = 6 · 2²); ``--partition 36``: 2 of 9, no padding."""
    assert slurm_block.dumps(nvl72(2, partition=24)).splitlines() == [
        "# block001=rack01.p01", "BlockName=block001 Nodes=rack01-ct[01-06]",
        "# block002=rack01.p02", "BlockName=block002 Nodes=rack01-ct[07-12]",
        "# block003=rack01.p03", "BlockName=block003 Nodes=rack01-ct[13-18]",
        "BlockName=block004",
        "# block005=rack02.p01", "BlockName=block005 Nodes=rack02-ct[01-06]",
        "# block006=rack02.p02", "BlockName=block006 Nodes=rack02-ct[07-12]",
        "# block007=rack02.p03", "BlockName=block007 Nodes=rack02-ct[13-18]",
        "BlockName=block008",
        "BlockSizes=6,24"]
    doc = yaml.safe_load(slurm_yaml.dumps(nvl72(2, partition=36)))[1]["block"]
    assert doc == {"block_sizes": [9, 18], "blocks": [
        {"block": "block1", "nodes": "rack01-ct[01-09]"}, {"block": "block2", "nodes": "rack01-ct[10-18]"},
        {"block": "block3", "nodes": "rack02-ct[01-09]"}, {"block": "block4", "nodes": "rack02-ct[10-18]"}]}


def test_a_tray_split_over_partitions_stays_with_its_rack():
    """Partitions that cut a tray: the tray has no sub-domain and goes to the rack's fallback
    sub-domain (topograph's GetDomainTree: named as the domain)."""
    f = nvl72(1)
    f.meta["nvlink_partitions"] = [{"domain": "rack01", "gpus": list(range(0, 34))},
                                   {"domain": "rack01", "gpus": list(range(34, 72))}]
    found, sizes = slurm_block.layout(f)
    assert [(b.domain, hostlist(list(b.nodes))) for b in found] == [
        ("rack01", "rack01-ct09"),                                      # GPUs 32-35: both partitions
        ("rack01.p01", "rack01-ct[01-08]"), ("rack01.p02", "rack01-ct[10-18]"),
        ("", "")]                          # 3 slots overflow the rack's 2: rounded up to 4 (36 hosts)
    assert sizes == [9, 18]
