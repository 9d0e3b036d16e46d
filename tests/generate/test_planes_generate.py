"""Multi-plane generators: ``superpod --planes`` against the DGX B300 RA's rows, ``rail``/``fat-tree``
``--planes``, and lint finding every device reachable once each plane has its own SM."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from fabricviz.check.info import fabric_info
from fabricviz.check.lint import lint
from fabricviz.cli import main
from fabricviz.generate import fat_tree, rail_optimized, superpod
from fabricviz.model import FabricError
from fabricviz.model.planes import cable_planes, device_planes

B300 = json.loads((Path(__file__).parents[1] / "data" / "superpod" / "ra_tables.json").read_text())[
    "systems"]["dgx-b300"]["rows"]


def _counts(f) -> tuple:
    """(nodes, GPUs, leaves, spines, node-leaf links, leaf-spine links) counted from the graph."""
    info = fabric_info(f)
    sw = {tier: sum(v for k, v in kinds.items() if k.endswith("switch")) for tier, kinds in info["tiers"].items()}
    cab = info["cables_by_tier"]
    return (info["counts"]["server"], info["counts"]["gpu"], sw.get("leaf", 0), sw.get("spine", 0),
            cab.get("hosts-leaf", 0), cab.get("leaf-spine", 0))


@pytest.mark.parametrize("row", [pytest.param(r, marks=pytest.mark.slow) if r["sus"] >= 8 else r for r in B300],
                         ids=[f"{r['sus']}su" for r in B300])
def test_b300_two_planes_has_the_ra_switches_with_every_gpu_on_both_planes(row):
    f = superpod("dgx-b300", row["sus"], planes=2)
    # the RA's leaves and spines exactly; links: one per GPU per plane, and a 400G link per leaf
    # uplink (the RA counts 800G twin-port cables, two links each)
    assert _counts(f) == (row["nodes"], row["gpus"], row["leaf"], row["spine"], 2 * row["node_leaf"],
                          2 * row["leaf_spine"])
    dp = device_planes(f)
    assert np.bincount(dp[dp >= 0]).tolist() == [(row["leaf"] + row["spine"]) // 2] * 2
    cp = cable_planes(f)[f.cable_ids()]
    assert (cp >= 0).all() and np.bincount(cp).tolist() == [row["node_leaf"] + row["leaf_spine"]] * 2
    assert f.settings.generator.params["planes"] == 2


@pytest.mark.slow
def test_lint_finds_every_device_of_the_8su_b300_reachable_with_one_sm_per_plane():
    one = lint(superpod("dgx-b300", 8))
    assert [x.message.split(":")[0] for x in one.by_rule("ib-unreachable")] == [
        "2144 cabled InfiniBand device(s) not reachable from the subnet manager on su1-dgx01/mlx5_0"]
    two = lint(superpod("dgx-b300", 8, planes=2))
    assert two.by_rule("ib-unreachable") == [] and two.findings == []


def test_rail_and_fat_tree_build_one_fabric_per_plane():
    r = rail_optimized(1, planes=2)
    c = r.counts()
    assert (c["server"], c["nic"], c["ib_switch"], c["cables"]) == (32, 256, 24, 1024)
    nic = int(r.device_ids("nic")[0])
    assert int(r.devices_t.nports[nic]) == 2 and str(r.port_rate(int(r.devices_t.first_port[nic]))) == "2xXDR"
    e = rail_optimized(1, planes=2, fabric="roce")          # Spectrum-X twin-plane: 2 × 400GbE
    assert e.counts()["eth_switch"] == 24 and str(e.port_rate(int(e.devices_t.first_port[e.device_ids("nic")[0]]))) \
        == "400GbE"
    t = fat_tree(radix=8, planes=4)
    assert (t.counts()["ib_switch"], t.counts()["cables"]) == (48, 256)
    assert str(t.port_rate(int(t.devices_t.first_port[t.device_ids("nic")[0]]))) == "1xXDR"


@pytest.mark.parametrize("args,msg", [
    (["superpod", "--system", "dgx-h100", "--units", "1", "--planes", "2"],
     "--planes 2: the DGX SuperPOD with DGX H100 RA builds one plane (multi-plane: dgx-b300, dgx-b300-xdr)"),
    (["superpod", "--system", "dgx-b300", "--units", "1", "--planes", "4"],
     "--planes 4: a ConnectX-8 port splits into 2 planes"),
    (["rail", "--units", "1", "--planes", "3"], "--planes 3: an 800G port splits into 2 or 4 planes"),
])
def test_planes_the_design_cannot_have_are_refused_in_one_line(args, msg, tmp_path, capsys):
    assert main(["generate", *args, "-o", str(tmp_path / "x.fabric.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"fabricviz: error: {msg}" and not (tmp_path / "x.fabric.json").exists()


def test_superpod_planes_from_the_cli(tmp_path, capsys):
    out = tmp_path / "b300.fabric.json"
    assert main(["generate", "superpod", "--system", "dgx-b300", "--units", "1", "--planes", "2",
                 "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip().endswith("64 servers, 512 GPUs, 512 NICs, 24 switches, 2,048 cables")
    assert main(["info", str(out), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["planes"] == [{"name": "plane1", "switches": 12, "cables": 1024},
                              {"name": "plane2", "switches": 12, "cables": 1024}]
    assert info["tiers"]["leaf"] == {"ib_switch": 16} and info["tiers"]["spine"] == {"ib_switch": 8}
    assert main(["info", str(out)]) == 0
    assert "planes: plane1 (12 switches, 1,024 cables), plane2 (12 switches, 1,024 cables)" in \
        capsys.readouterr().out.splitlines()
    assert "planes" not in fabric_info(superpod("dgx-b300", 1))


def test_unknown_plane_count_for_the_model_refused():
    with pytest.raises(FabricError, match="must be at least 1"):
        rail_optimized(1, planes=0)


def _ordered(f) -> tuple:
    """(nodes, GPUs, leaves, spines, node-leaf cables, leaf-spine cables): cables to order, the links
    of one broken-out cage on one cable."""
    info = fabric_info(f)
    sw = {tier: sum(v for k, v in kinds.items() if k.endswith("switch")) for tier, kinds in info["tiers"].items()}
    cab = info["breakout_cables_by_tier"]
    return (info["counts"]["server"], info["counts"]["gpu"], sw.get("leaf", 0), sw.get("spine", 0),
            cab.get("hosts-leaf", 0), cab.get("leaf-spine", 0))


@pytest.mark.parametrize("row", [pytest.param(r, marks=pytest.mark.slow) if r["sus"] >= 8 else r for r in B300],
                         ids=[f"{r['sus']}su" for r in B300])
def test_b300_roce_twin_plane_is_the_spectrum_x_ra_to_the_cable(row):
    f = superpod("dgx-b300", row["sus"], fabric="roce", planes=2)
    # SN5600 at 128 × 400GbE; a splitter cable per leaf cage to two GPUs, a twin-port cable per
    # leaf cage to a spine cage: the RA's cable counts; its links are twice that
    assert _ordered(f) == (row["nodes"], row["gpus"], row["leaf"], row["spine"], row["node_leaf"], row["leaf_spine"])
    assert fabric_info(f)["cables_by_tier"] == {"hosts-leaf": 2 * row["node_leaf"], "leaf-spine": 2 * row["leaf_spine"]}
    assert {f.part_of(int(d)).id for d in f.device_ids("eth_switch")} == {"SN5600-2x400GbE"}
    nic = int(f.device_ids("nic")[0])
    assert [str(f.port_rate(int(f.devices_t.first_port[nic]) + k)) for k in range(2)] == ["400GbE"] * 2
    assert f.devices_t.nports[nic] == 2 and f.meta["params"]["planes"] == 2
    dp = device_planes(f)
    assert np.bincount(dp[dp >= 0]).tolist() == [(row["leaf"] + row["spine"]) // 2] * 2


def test_b300_roce_twin_plane_from_the_cli(tmp_path, capsys):
    out = tmp_path / "b300r.fabric.json"
    assert main(["generate", "superpod", "--system", "dgx-b300", "--units", "1", "--fabric", "roce", "--planes", "2",
                 "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip().endswith("64 servers, 512 GPUs, 512 NICs, 24 switches, 2,048 cables")
    assert main(["info", str(out)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert "cables by tier: hosts-leaf 1,024, leaf-spine 1,024" in text
    assert "cables to order by tier (one per broken-out cage): hosts-leaf 512, leaf-spine 512" in text
    assert main(["generate", "superpod", "--system", "dgx-b300-xdr", "--units", "1", "--fabric", "roce",
                 "--planes", "2", "-o", str(tmp_path / "x.fabric.json")]) == 2
    assert capsys.readouterr().err.strip().endswith("RA is built on ib only")
    assert "breakout_cables_by_tier" not in fabric_info(superpod("dgx-b300", 1, planes=2))   # no broken-out part


@pytest.mark.parametrize("units,fabric", [(1, "roce"), (2, "ib")])
def test_a_planes_scalable_unit_is_one_group_with_its_servers_under_both_planes_leaves(units, fabric):
    """The planes are layers of one design: an SU's group holds both planes' leaves (plane 1's first), its
    DGX hang under all 16 of them, and no SU's drawing reaches into another's (a group per plane put all
    64 hosts in su1-plane1's box, across su1-plane2's: the guilook review of issue 27)."""
    from fabricviz.generate.geometry import device_rects
    from fabricviz.generate.groups import find_groups
    f = superpod("dgx-b300", units, fabric=fabric, planes=2)
    assert [(g.name, list(g.switches)) for g in f.settings.groups] == [
        (f"su{s}", [f"su{s}-rail{r}-p{k}" for k in (1, 2) for r in range(8)]) for s in range(1, units + 1)]
    g = find_groups(f)
    assert g.names == (*[f"su{s}" for s in range(1, units + 1)], f"{8 * units} spines")
    t = f.devices_t
    tops = np.flatnonzero(t.alive & (t.parent < 0))
    r = device_rects(f, tops)
    at = {int(d): i for i, d in enumerate(tops.tolist())}
    boxes = []
    for s in range(units):
        leaves = [at[f.find(n)] for n in f.settings.groups[s].switches]
        hosts = [at[d] for d in tops.tolist() if g.group[d] == s and f.name_of(d).startswith(f"su{s + 1}-dgx")]
        assert len(hosts) == 64 and len(np.unique(r[1, leaves])) == 1       # one row of 16 leaves
        assert list(np.argsort(r[0, leaves], kind="stable")) == list(range(16))   # p1's rails, then p2's
        assert r[1, hosts].min() > r[3, leaves].max()                       # the servers under the row
        assert r[0, leaves].min() <= r[0, hosts].min() and r[2, hosts].max() <= r[2, leaves].max()
        mine = leaves + hosts
        boxes.append((r[0, mine].min(), r[1, mine].min(), r[2, mine].max(), r[3, mine].max()))
    for a in range(units):
        for b in range(a + 1, units):
            x0, y0, x1, y1 = boxes[a]
            u0, v0, u1, v1 = boxes[b]
            assert x1 <= u0 or u1 <= x0 or y1 <= v0 or v1 <= y0, (a, b)
