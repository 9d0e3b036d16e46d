"""Multi-plane traffic in the tick-based fluid model, the merged run, and a failed plane switch.

The design is ``fat_tree(radix=8, planes=2)`` as in test_planes_traffic: 32 one-GPU nodes whose
ConnectX-8 splits into 2 planes of 400 Gb/s, per plane 8 leaves and 4 spines. A sized flow of
4 MB striped over 2 planes is 2 MB per plane: 2e6 · 8 / 400e9 = 40 µs on the wire, the run's
first byte and last tick (1 µs) make 41 µs. With its plane-1 leaf failed, all 4 MB go over plane 2:
80 µs + 1 µs — the host's throughput halves, the others keep both planes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree
from fabricviz.sim.plane_merge import PlaneRun, merge_planes
from fabricviz.sim.planes import plane_traffic
from fabricviz.sim.run import run_traffic
from fabricviz.sim.whatif import with_cables_down
from fabricviz.sim.workloads import Flows, make_workload


@pytest.fixture(scope="module", params=["ib", "roce"])
def design(request):
    return fat_tree(radix=8, planes=2, fabric=request.param)


@pytest.fixture(scope="module")
def ib():
    return fat_tree(radix=8, planes=2)


def _pairs(f, size: float | None = None) -> Flows:
    nics = f.device_ids("nic")
    return Flows(nics, nics.reshape(-1, 2)[:, ::-1].ravel(), bytes=None if size is None else np.full(32, size))


def _down(f, name: str):
    pt, d = f.ports_t, f.find(name)
    return with_cables_down(f, np.unique(pt.cable[(pt.device == d) & (pt.cable >= 0)]))


def test_fluid_runs_every_plane_with_its_own_queues(design):
    r = plane_traffic(design, _pairs(design), model="fluid", duration_s=100e-6)
    assert [p.result.model for p in r.planes] == ["fluid", "fluid"]
    assert [round(float(p.rate.mean()), 6) for p in r.planes] == [400.0, 400.0]
    assert r.rate.round(6).tolist() == [800.0] * 32
    # each plane's run is on the design's link ids: plane k's 64 cables (128 links) live only in its run
    g1, g2 = (p.result.links.gbps for p in r.planes)
    n = r.planes[0].result.links.n_cable_links
    assert not np.any((g1[:n] > 0) & (g2[:n] > 0)) and int((g1[:n] > 0).sum()) == int((g2[:n] > 0).sum()) == 128


def test_a_lost_plane_leaf_halves_its_hosts_in_time(design):
    r = plane_traffic(_down(design, "leaf01-p1"), _pairs(design), model="fluid", duration_s=100e-6)
    # node01-04 keep plane 2 only: 400 of their 800 Gb/s; the other 28 nodes keep both planes
    assert r.rate.round(6).tolist() == [400.0] * 4 + [800.0] * 28
    assert [p.cut_flows for p in r.planes] == [4, 0]


def test_a_sized_flow_is_striped_and_a_lost_plane_leaf_halves_its_hosts(design):
    r = plane_traffic(design, _pairs(design, 4e6), model="fluid", duration_s=1e-3)
    m = merge_planes(design, r)
    assert np.allclose(m.fluid.finish_s, 41e-6) and np.allclose(m.fluid.delivered_bytes, 4e6)
    cut = plane_traffic(_down(design, "leaf01-p1"), _pairs(design, 4e6), model="fluid", duration_s=1e-3)
    mc = merge_planes(design, cut)
    assert [p.cut_flows for p in cut.planes] == [4, 0]
    # node01-04 lost plane 1: their 4 MB all cross plane 2 (every byte arrives), twice as long
    assert np.allclose(mc.fluid.finish_s[:4], 81e-6) and np.allclose(mc.fluid.finish_s[4:], 41e-6)
    assert np.allclose(mc.fluid.delivered_bytes, 4e6)
    rate = mc.flow_rates()
    assert np.allclose(rate[:4], 4e6 * 8 / 81e-6 / 1e9) and np.allclose(rate[4:], 4e6 * 8 / 41e-6 / 1e9)
    assert round(float(rate[0] / rate[4]), 4) == round(41 / 81, 4) == 0.5062


def test_a_failed_plane_switch_limits_that_planes_share_only(ib):
    w = make_workload(ib, "permutation", seed=0)
    fl = Flows(w.src, w.dst)
    got = {}
    for name in ("spine01-p1", "leaf01-p1"):
        for model in ("maxmin", "fluid"):
            r = plane_traffic(_down(ib, name), fl, model=model, duration_s=200e-6)
            got[name, model] = [round(float(p.rate.mean()), 4) for p in r.planes]
    # plane 2 keeps its 204.375 Gb/s mean; plane 1 gives what is left of it (its SM routes around the
    # switch) and nothing moves to plane 2: a spine (1 of 4) costs plane 1 13 % (max-min), a leaf the
    # share of its 4 hosts' flows (0 of the 32 in plane 1: 204.375 → 160)
    assert got == {("spine01-p1", "maxmin"): [178.125, 204.375], ("spine01-p1", "fluid"): [170.625, 204.375],
                   ("leaf01-p1", "maxmin"): [160.0, 204.375], ("leaf01-p1", "fluid"): [160.0, 204.375]}


def test_merged_run_folds_the_planes(ib):
    w = make_workload(ib, "permutation", seed=0)
    r = plane_traffic(ib, Flows(w.src, w.dst), model="fluid", duration_s=100e-6)
    m = merge_planes(ib, r)
    p1, p2 = (p.result for p in r.planes)
    assert len(m.frames) == len(p1.frames) == 100
    n = m.links.n_cable_links
    for k in (0, 50, 99):
        fr, a, b = m.frames[k], p1.frames[k], p2.frames[k]
        assert np.array_equal(fr.link_util[:n], a.link_util[:n] + b.link_util[:n])
        assert np.allclose(fr.flow_rate_gbps, a.flow_rate_gbps + b.flow_rate_gbps)
    assert np.allclose(m.flow_rates(), r.rate)
    s = m.summary(ib)
    # a flow's line is both planes' (800 Gb/s): the mean share is 408.75 / 800, the most 440 / 800 (PCIe)
    assert round(s["rate_share"]["mean"], 6) == 0.510937 and round(s["rate_share"]["max"], 6) == 0.55
    assert round(s["rate_gbps"]["mean"], 4) == 408.75
    assert [(p["name"], round(p["rate_gbps"]["mean"], 4)) for p in s["planes"]] == [("plane1", 204.375),
                                                                                   ("plane2", 204.375)]
    assert m.routes.n_paths == 64 and np.all(np.diff(m.routes.flow) >= 0)


def test_run_traffic_gives_the_merged_run(ib):
    res = run_traffic(ib, "permutation", "maxmin", None, "minhop", 1e-3, 0)
    assert isinstance(res, PlaneRun) and res.plane_names == ("plane1", "plane2")
    assert round(float(res.flow_rates().mean()), 4) == 408.75
    assert [round(float(p.flow_rates().mean()), 4) for p in res.plane_results] == [204.375, 204.375]


def test_simulate_fluid_on_planes(tmp_path, capsys, ib):
    path = tmp_path / "two.fabric.json"
    save_fabric(ib, path)
    assert main(["simulate", str(path), "--workload", "permutation", "--model", "fluid", "--duration", "100us"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "32 flows over 2 planes (fluid): mean 408.75 Gb/s per flow",
        "  plane1: mean 204.37 Gb/s, 0 flows it cannot carry",
        "  plane2: mean 204.37 Gb/s, 0 flows it cannot carry"]
    links = tmp_path / "links.csv"
    assert main(["simulate", str(path), "--workload", "permutation", "--json", "--out-links", str(links)]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["model"] == "maxmin" and round(s["rate_share"]["mean"], 6) == 0.510937 and len(s["planes"]) == 2
    assert len(links.read_text().splitlines()) == 1 + 320


def test_the_planes_share_each_gpus_pcie_link(ib):
    # a GPU's PCIe link (B200: 440 Gb/s) carries both planes: each plane runs on half of it, and the
    # merged run shows the link's load over its whole capacity — never more than the single-plane twin
    gpus = ib.device_ids("gpu")
    one = Flows(gpus[:1], gpus[2:3])
    m = merge_planes(ib, plane_traffic(ib, one))
    assert round(float(m.flow_rates()[0]), 6) == 440.0
    assert [round(float(p.flow_rates()[0]), 6) for p in m.plane_results] == [220.0, 220.0]
    up, _ = m.links.pcie_links(int(gpus[0]))
    assert round(float(m.last.link_util[up]), 6) == 1.0
    assert m.links.gbps[up] == 440.0
    assert all(p.links.gbps[up] == 220.0 for p in m.plane_results)
