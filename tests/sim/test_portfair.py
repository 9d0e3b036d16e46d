"""Port-fair max-min (fabricviz/sim/portfair.py): lossless switches serve their input ports in turn."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim import engine
from fabricviz.sim.engine import simulate
from fabricviz.sim.fct import flow_times
from fabricviz.sim.maxmin import maxmin_paths
from fabricviz.sim.portfair import portfair_paths, waterfill
from fabricviz.sim.workloads import Flows

#: 8-to-1 incast on a 2-level tree (link ids of fat_tree(levels=2, radix=8, hosts=16) as RoCE):
#: three senders on the receiver's leaf, five over spines; flows 3 and 7 share spine link 35 into
#: the receiver's leaf; links 65.. are PCIe (440 Gb/s), the rest 400 Gb/s.
PATHS = [[66, 2, 1, 65], [68, 4, 1, 65], [70, 6, 1, 65], [72, 8, 42, 35, 1, 65], [74, 10, 40, 33, 1, 65],
         [76, 12, 46, 39, 1, 65], [78, 14, 44, 37, 1, 65], [80, 16, 50, 35, 1, 65]]


def _csr(paths):
    return np.cumsum([0] + [len(p) for p in paths]), np.concatenate(paths)


def test_waterfill_per_segment():
    got = waterfill(np.array([0, 0, 1, 1, 1]), np.array([10.0, 9.0]), np.array([1.0, 20, 1, 2, 20]))
    assert got.tolist() == [1.0, 9.0, 1.0, 2.0, 6.0]


def test_receiver_link_split_over_its_input_ports_not_its_flows():
    indptr, links = _csr(PATHS)
    cap = np.full(81, 400.0)
    cap[65:] = 440.0
    pf = portfair_paths(indptr, links, cap)
    # 7 input ports into link 1 get 400/7 each; the two flows behind port 35 split theirs
    assert pf.rate == pytest.approx([400 / 7] * 3 + [200 / 7] + [400 / 7] * 3 + [200 / 7])
    assert pf.link_load[1] == pytest.approx(400.0)                    # work-conserving
    assert pf.bottleneck.tolist() == [1] * 8
    mm = maxmin_paths(indptr, links, cap)
    assert mm.rate == pytest.approx([50.0] * 8)                       # per flow: 1/8 each


def test_distinct_input_ports_give_per_flow_maxmin():
    rng = np.random.default_rng(3)
    paths = [list(rng.choice(np.arange(i * 10, i * 10 + 10), 2, replace=False)) + [200] for i in range(6)]
    paths += [[300 + i, 201] for i in range(3)]
    indptr, links = _csr(paths)
    cap = rng.uniform(10, 100, 310)
    demand = np.array([np.inf, 5.0, np.inf, np.inf, 1.0, np.inf, np.inf, 2.0, np.inf])
    pf, mm = portfair_paths(indptr, links, cap, demand), maxmin_paths(indptr, links, cap, demand)
    np.testing.assert_allclose(pf.rate, mm.rate, rtol=1e-12)
    rows = np.array([True, False] * 4 + [True])
    np.testing.assert_allclose(portfair_paths(indptr, links, cap, demand, rows=rows).rate,
                               maxmin_paths(indptr, links, cap, demand, rows=rows).rate, rtol=1e-12)


# ---------------------------------------------------------------- the max-min model against htsim_roce
DATA = Path(__file__).resolve().parents[1] / "data" / "htsim"


@pytest.fixture(scope="module")
def k8():
    f = fat_tree(levels=3, radix=8, fabric="roce", speed="100GbE", switch="SN4700")
    f.set_meta("roce", {"mtu": 9000, "pfc": {"xoff": 144000, "xon": 99000}})
    return f


def _cm_flows(f, path, size):
    pairs = [ln.split()[0].split("->") for ln in path.read_text().splitlines() if "->" in ln]
    return Flows(np.array([f.find(f"node{int(a) + 1:03d}/mlx5_0") for a, _ in pairs]),
                 np.array([f.find(f"node{int(b) + 1:03d}/mlx5_0") for _, b in pairs]), np.full(len(pairs), size))


def _mean_rate(res):
    ft = flow_times(res)
    return float(np.mean(ft.bytes * 8 / (ft.fct_s * 1e9)))


def test_incast_within_15_percent_of_htsim_over_13_seeds(k8, monkeypatch):
    """Issue 30's 16:1 incast of 1 MB (transports/incast.cm) against htsim_roce ecmp_host on 13 seeds
    (incast_roce.csv): the receiver's link served by input ports gets within 8.1 %; per flow it is
    −23.7 % (every sender 1/16, all finishing together)."""
    with open(DATA / "incast_roce.csv") as fh:
        rows = list(csv.DictReader(fh))
    seeds = sorted({r["seed"] for r in rows}, key=int)
    assert len(seeds) == 13 and len(rows) == 13 * 16
    ht = np.mean([np.mean([float(r["bytes"]) * 8 / (float(r["fct_us"]) * 1e3) for r in rows if r["seed"] == s])
                  for s in seeds])
    assert ht == pytest.approx(8.166, abs=1e-3)
    flows = _cm_flows(k8, DATA / "transports" / "incast.cm", 1e6)
    turns = np.mean([_mean_rate(simulate(k8, flows, "ecmp", "maxmin", seed=s, transport="roce-gbn"))
                     for s in range(13)])
    assert abs(turns / ht - 1) <= 0.15 and turns / ht - 1 == pytest.approx(-0.080, abs=0.001)
    monkeypatch.setattr(engine, "_last_hop_fill", lambda fab, links: maxmin_paths)
    per_flow = np.mean([_mean_rate(simulate(k8, flows, "ecmp", "maxmin", seed=s, transport="roce-gbn"))
                        for s in range(13)])
    assert per_flow / ht - 1 == pytest.approx(-0.237, abs=0.001)


def test_a_permutation_is_per_flow_maxmin(k8, monkeypatch):
    """htsim's permutation perm-128-1.cm: no host link has two input ports busy, so port turns change
    nothing (the max-min model's permutation and shuffle figures stay as they were)."""
    flows = _cm_flows(k8, DATA / "perm-128-1.cm", 4e6)
    res = simulate(k8, flows, "ecmp", "maxmin", transport="roce-gbn")
    monkeypatch.setattr(engine, "_last_hop_fill", lambda fab, links: maxmin_paths)
    ref = simulate(k8, flows, "ecmp", "maxmin", transport="roce-gbn")
    np.testing.assert_array_equal(res.flow_rates(), ref.flow_rates())
    np.testing.assert_allclose(res.completion.finish_s, ref.completion.finish_s, rtol=1e-12)   # summed in another order
