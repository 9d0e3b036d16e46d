"""Traffic over planes: a flow spread over every plane (max-min per plane, summed), a failed plane
or a failed plane leaf halving what crossed it, on InfiniBand and on RoCE twin-plane (ECMP).

The design: ``fat_tree(radix=8, planes=2)``: 32 one-GPU nodes whose ConnectX-8 splits into 2 planes
(2 × 2xXDR = 400 Gb/s each on InfiniBand, 2 × 400GbE on RoCE), per plane 8 leaves and 4 spines."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree
from fabricviz.model import FabricError
from fabricviz.sim.planes import plane_traffic
from fabricviz.sim.whatif import hosts_cut, measure, parse_fail, prepare, run_trials, with_cables_down
from fabricviz.sim.workloads import Flows, make_workload


@pytest.fixture(scope="module", params=["ib", "roce"])
def design(request):
    return fat_tree(radix=8, planes=2, fabric=request.param)


def _pairs(f) -> Flows:
    """node 2i <-> node 2i+1 (both on one leaf in every plane): no link shared by two flows."""
    nics = f.device_ids("nic")
    return Flows(nics, nics.reshape(-1, 2)[:, ::-1].ravel())


def _leaf_cables(f, name: str) -> np.ndarray:
    pt = f.ports_t
    d = f.find(name)
    return np.unique(pt.cable[(pt.device == d) & (pt.cable >= 0)])


def _leaf_down(f, name: str):
    return with_cables_down(f, _leaf_cables(f, name))


def test_a_flow_takes_every_plane(design):
    r = plane_traffic(design, _pairs(design))
    assert [p.name for p in r.planes] == ["plane1", "plane2"]
    assert r.rate.tolist() == [800.0] * 32                       # 400 on each plane
    assert [p.rate.tolist() for p in r.planes] == [[400.0] * 32] * 2


def test_a_plane_down_halves_every_flow(design):
    r = plane_traffic(design, _pairs(design), down=["plane2"])
    assert r.rate.tolist() == [400.0] * 32 and r.planes[1].down and r.planes[1].cut_flows == 32


def test_a_failed_plane_leaf_halves_the_flows_of_its_hosts_only(design):
    r = plane_traffic(_leaf_down(design, "leaf01-p1"), _pairs(design))
    # leaf01 carries node01-04 in plane 1: their flows keep plane 2 only
    assert r.rate.tolist() == [400.0] * 4 + [800.0] * 28
    assert r.mean_gbps == 750.0 and [p.cut_flows for p in r.planes] == [4, 0]


def test_permutation_spreads_over_the_planes_ib():
    f = fat_tree(radix=8, planes=2)
    w = make_workload(f, "permutation", seed=0)
    r = plane_traffic(f, Flows(w.src, w.dst))
    # minhop on each plane: the same max-min share on both (identical planes, own SMs); GPU ends, so
    # each plane also gets its share of the GPU's one PCIe link (B200: 440 / 2 = 220 Gb/s per plane)
    assert [round(float(p.rate.mean()), 4) for p in r.planes] == [204.375, 204.375]
    assert round(r.mean_gbps, 4) == 408.75 and float(r.rate.max()) <= 440.0
    failed = plane_traffic(_leaf_down(f, "leaf01-p1"), Flows(w.src, w.dst))
    assert [round(float(p.rate.mean()), 4) for p in failed.planes] == [160.0, 204.375]


def test_twin_plane_roce_permutation_is_ecmp_per_plane():
    f = fat_tree(radix=8, planes=2, fabric="roce")
    w = make_workload(f, "permutation", seed=0)
    r = plane_traffic(f, Flows(w.src, w.dst))
    # each plane hashes on its own switches: the planes collide differently
    assert [round(float(p.rate.mean()), 4) for p in r.planes] == [177.9167, 200.0]
    assert round(r.mean_gbps, 4) == 377.9167


def test_whatif_fail_plane_halves_the_metric_exactly():
    f = fat_tree(radix=8, planes=2)
    sh = prepare(f, parse_fail("plane:0,1"), "permutation")
    assert round(sh.intact_gbps, 4) == 408.75 and len(sh.trials) == 2
    rows = run_trials(sh)
    assert [(r.k, r.failed, round(r.metric_gbps, 4), round(r.relative, 6)) for r in rows] == [
        (0, ("plane1",), 204.375, 0.5), (1, ("plane2",), 204.375, 0.5)]


def test_whatif_plane_refusals(tmp_path, capsys):
    f = fat_tree(radix=8, planes=2)
    with pytest.raises(FabricError, match="plane 2 but the design has 2 planes"):
        prepare(f, parse_fail("plane:2"), "permutation")
    one = fat_tree(radix=8)
    with pytest.raises(FabricError, match="no meta.planes"):
        prepare(one, parse_fail("plane:0"), "permutation")
    path = tmp_path / "two.fabric.json"
    save_fabric(f, path)
    assert main(["whatif", str(path), "--fail", "plane:1"]) == 0
    out = capsys.readouterr().out
    assert "intact 408.75 Gb/s mean per flow" in out and "   1       1   0.500   0.500   0.500   0.500   0.500" in out


def test_simulate_reports_each_plane(tmp_path, capsys):
    path = tmp_path / "two.fabric.json"
    save_fabric(fat_tree(radix=8, planes=2), path)
    assert main(["simulate", str(path), "--workload", "permutation"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "32 flows over 2 planes (maxmin): mean 408.75 Gb/s per flow",
        "  plane1: mean 204.37 Gb/s, 0 flows it cannot carry",
        "  plane2: mean 204.37 Gb/s, 0 flows it cannot carry"]


def test_the_traffic_docks_run_on_planes_names_a_missing_partition():
    # partitions on planes: tests/sim/test_plane_partitions.py; without a partitions.conf a named one is refused
    from fabricviz.sim.run import run_traffic
    with pytest.raises(FabricError, match=r"^partition 'x': the design has no partitions.conf \(every port is a "
                                          r"full member of the Default partition 0x7fff\)$"):
        run_traffic(fat_tree(radix=8, planes=2), "permutation", "maxmin", None, "minhop", 1e-3, 0, partition="x")


def test_whatif_a_failed_plane_leaf_degrades_its_hosts_and_both_leaves_disconnect_them():
    f = fat_tree(radix=8, planes=2)
    rows = run_trials(prepare(f, parse_fail("switches-of:leaf:1"), "permutation", 4, 0))
    # a plane leaf: its 4 hosts keep the other plane (degraded, not cut off); the plane's share of
    # their flows is lost (permutation: 408.75 → 363.125 Gb/s mean when leaf08-p1 fails)
    assert [(r.failed, round(r.metric_gbps, 4), r.disconnected, r.degraded, r.nics_cut) for r in rows[:2]] == [
        (("leaf08-p1",), 363.125, (), ("node29", "node30", "node31", "node32"), 4),
        (("leaf07-p1",), 356.25, (), ("node25", "node26", "node27", "node28"), 4)]
    # the same leaf in both planes: its hosts are cut off, their flows left out of the metric
    sh = prepare(f, parse_fail("switches:2"), "permutation", 1, 0)
    both = with_cables_down(f, np.concatenate([_leaf_cables(f, "leaf01-p1"), _leaf_cables(f, "leaf01-p2")]))
    value, out, dropped = measure(sh, both)
    assert hosts_cut(sh, both, out)[:2] == (("node01", "node02", "node03", "node04"), ())
    assert dropped == 8 and [u.reason for u in out[:1]] == ["plane1: not cabled"]
