"""DGX SuperPOD generators against every row NVIDIA's reference architectures tabulate.

The rows are ``tests/data/superpod/ra_tables.json`` (each system with its page's URL). The plan
(the sizing rule) must equal every row exactly; the built fabric is counted from its graph
(servers by part, tiers, cables between tiers), not from the plan.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fabricviz.check.info import fabric_info
from fabricviz.cli import main
from fabricviz.formats.native import load_fabric
from fabricviz.generate import plan_superpod, superpod
from fabricviz.generate.superpod import SYSTEMS, UFM_PART
from fabricviz.ib.tiers import device_tiers
from fabricviz.model import Catalog, FabricError
from fabricviz.model.fabric import KIND_CODE, SERVER

TABLES = json.loads((Path(__file__).parents[1] / "data" / "superpod" / "ra_tables.json").read_text())["systems"]
ROWS = [(system, row) for system, spec in TABLES.items() for row in spec["rows"]]


def _published(row: dict) -> tuple:
    return (row["nodes"], row["gpus"], row["leaf"], row["spine"], row["core"] or 0,
            row["node_leaf"], row["leaf_spine"], row["spine_core"] or 0)


def _radix(system: str) -> int:
    return Catalog.default().get(SYSTEMS[system].switch["ib"]).ports


def _built_counts(f) -> tuple:
    """(nodes, GPUs, leaves, spines, cores, node-leaf, leaf-spine, spine-core) from the graph."""
    t = f.devices_t
    servers = np.flatnonzero(t.alive & (t.kind == KIND_CODE[SERVER]))
    parts = [f.part_of(int(d)).id for d in servers]
    info = fabric_info(f)
    sw = {tier: sum(v for k, v in kinds.items() if k.endswith("switch")) for tier, kinds in info["tiers"].items()}
    cab = info["cables_by_tier"]
    return (sum(p != UFM_PART for p in parts), info["counts"]["gpu"], sw.get("leaf", 0), sw.get("spine", 0),
            sw.get("core", 0), cab.get("hosts-leaf", 0), cab.get("leaf-spine", 0), cab.get("spine-core", 0))


@pytest.mark.parametrize(("system", "row"), ROWS, ids=[f"{s}-{r['sus']}su" for s, r in ROWS])
def test_plan_equals_every_published_row(system, row):
    p = plan_superpod(system, row["sus"], _radix(system))
    assert (p.nodes, p.gpus, p.leaves, p.spines, p.cores, p.cables["node-leaf"], p.cables["leaf-spine"],
            p.cables["spine-core"]) == _published(row)


@pytest.mark.parametrize(("system", "row"), ROWS, ids=[f"{s}-{r['sus']}su" for s, r in ROWS])
def test_built_fabric_equals_published_row(system, row):
    f = superpod(system, row["sus"])
    assert _built_counts(f) == _published(row)
    assert f.settings.generator.params["system"] == system


def test_published_spine_counts_that_are_no_power_of_two():
    """The divisor rule: 3 H100 SUs take 16 spines (not 12), 4 and 8 B300-XDR SUs 18 and 36."""
    assert plan_superpod("dgx-h100", 3, 64).spines == 16
    assert [plan_superpod("dgx-b300-xdr", n, 144).spines for n in (4, 8)] == [18, 36]
    assert plan_superpod("dgx-b300-xdr", 4, 144).leaf_parallel == 4


def test_b300_xdr_18su_row_prints_fewer_gpus_than_its_nodes_have():
    row = next(r for r in TABLES["dgx-b300-xdr"]["rows"] if r["sus"] == 18)
    assert row["published_gpus"] == 9216 and row["nodes"] * 8 == row["node_leaf"] == 10368


def test_h100_ufm_takes_one_node_slot_and_four_leaf_ports():
    f = superpod("dgx-h100", 2)
    ufm = f.find("su2-ufm")
    assert ufm is not None and f.part_of(ufm).id == UFM_PART
    assert f.find("su2-dgx32") is None and f.find("su2-dgx31") is not None and f.find("su1-dgx32") is not None
    peers = sorted((f.name_of(int(f.ports_t.device[q])), int(f.ports_t.num[q]))
                   for q in _peer_ports(f, ufm))
    assert peers == [(f"su2-rail{r}", 32) for r in range(4)]


def _peer_ports(f, server):
    t, pt, ct = f.devices_t, f.ports_t, f.cables_t
    kids = np.flatnonzero(t.alive & (t.parent == server))
    out = []
    for k in kids.tolist():
        for q in range(int(t.first_port[k]), int(t.first_port[k]) + int(t.nports[k])):
            c = int(pt.cable[q])
            if c >= 0:
                out.append(int(ct.port_b[c]) if int(ct.port_a[c]) == q else int(ct.port_a[c]))
    return out


def _switch_neighbours(f, d):
    ct, pt = f.cables_t, f.ports_t
    live = np.flatnonzero(ct.alive)
    a, b = pt.device[ct.port_a[live]], pt.device[ct.port_b[live]]
    return np.concatenate([b[a == d], a[b == d]])


def test_b200_core_tier_cables_spine_j_of_every_pod_to_core_plane_j():
    f = superpod("dgx-b200", 16)
    tiers = device_tiers(f)
    cores = [f.find(f"core{i:02d}") for i in range(1, 65)]
    for j in range(8):                       # 8 spines per SU pod, 8 planes of 8 cores
        plane = set(cores[j * 8:(j + 1) * 8])
        for su in range(1, 17):
            sp = f.find(f"su{su}-spine{j + 1}")
            up = _switch_neighbours(f, sp)
            up = up[tiers[up] == 3]
            assert len(up) == 32 and set(up.tolist()) == plane
            assert np.bincount(up).max() == 4                    # 4 parallel links per core
    for c in cores:
        assert len(_switch_neighbours(f, c)) == 64               # every core port used


def test_b300_spines_split_into_groups_past_four_sus():
    p = plan_superpod("dgx-b300", 8, 64)
    assert (p.groups, p.spines_per_group, p.leaf_parallel) == (2, 32, 1)
    assert plan_superpod("dgx-b300", 16, 64).groups == 4
    f = superpod("dgx-b300", 8)
    tiers = device_tiers(f)

    def spines(name):
        n = _switch_neighbours(f, f.find(name))
        return set(n[tiers[n] == 2].tolist())
    a, b = spines("su1-rail0a"), spines("su1-rail1a")
    assert len(a) == len(b) == 32 and not a & b                   # rails 0 and 1 reach disjoint groups
    assert spines("su1-rail0b") == spines("su8-rail6b") == a      # even rails share group 0


def test_refused_sizes_name_the_ones_that_work():
    with pytest.raises(FabricError, match=r"scalable units 128: .*it takes 1-8, 16, 32, 64 SUs"):
        plan_superpod("dgx-b200", 128, 64)
    with pytest.raises(FabricError, match="system 'dgx-a100'"):
        superpod("dgx-a100", 1)
    with pytest.raises(FabricError, match="built on ib only"):
        superpod("dgx-b300-xdr", 1, fabric="roce")


def test_roce_build_uses_ethernet_switches():
    f = superpod("dgx-b200", 2, fabric="roce")
    c = f.counts()
    assert (c["eth_switch"], c["ib_switch"], c["cables"]) == (24, 0, 1024)


def test_cli_generate_info_bom(tmp_path, capsys):
    out = tmp_path / "h100.fvz"
    assert main(["generate", "superpod", "--system", "dgx-h100", "--units", "1", "-o", str(out)]) == 0
    assert "32 servers, 248 GPUs, 252 NICs, 12 switches, 508 cables" in capsys.readouterr().out
    assert main(["info", "--json", str(out)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["cables_by_tier"] == {"hosts-leaf": 252, "leaf-spine": 256}
    assert info["tiers"]["leaf"] == {"ib_switch": 8} and info["tiers"]["spine"] == {"ib_switch": 4}
    assert main(["bom", str(out)]) == 0
    bom = capsys.readouterr().out
    assert "DGX-H100" in bom and "UFM-APPLIANCE-3.1" in bom and "QM9700" in bom
    f = load_fabric(out)
    assert f.settings.generator.name == "superpod"


def test_cli_refuses_unknown_sizes_in_one_line(tmp_path, capsys):
    out = tmp_path / "x.fvz"
    assert main(["generate", "superpod", "--system", "dgx-b200", "--units", "128", "-o", str(out)]) == 2
    assert not out.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fabricviz: error: --units 128: DGX SuperPOD with DGX B200")


@pytest.mark.parametrize(("system", "units", "pods"), [("dgx-b300", 4, 4), ("dgx-b200", 16, 16), ("dgx-h100", 3, 3)])
def test_each_su_is_one_group(system, units, pods):
    """A B300 SU's a- and b-leaves share no node, yet the SU is one pod (one box at far zoom)."""
    from fabricviz.generate.groups import find_groups
    g = find_groups(superpod(system, units))
    names = [n for n, k in zip(g.names, g.kinds, strict=True) if k == "pod"]
    assert names == [f"su{i + 1}" for i in range(pods)]


def test_gb200_is_refused_saying_why_and_what_instead(tmp_path, capsys):
    """The GB200 RA publishes no compute-fabric counts: nothing is invented (issue 27)."""
    out = tmp_path / "x.json"
    assert main(["generate", "superpod", "--system", "gb200-nvl72", "--units", "1", "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        "fabricviz: error: --system 'gb200-nvl72': the DGX SuperPOD GB200 RA tabulates no compute-fabric switch or "
        "cable counts; 'generate nvl72' builds NVL72 racks on a rail-optimised fabric by the same sizing rule\n")
    assert not out.exists()
