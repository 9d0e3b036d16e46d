"""The transports against htsim's own simulators (htsim_eqds, htsim_ndp, htsim_hpcc of csg-htsim 841d9e7):
figures in tests/data/htsim/transports (make_reference.sh: the commands; CI cannot fetch htsim).

The design: `generate fat-tree --levels 3 --radix 8 --fabric roce --speed 100GbE --switch SN4700`, htsim
run with the latencies export-htsim writes for it. Workloads: perm (htsim's perm-128-1.cm, 4,000,000 B),
perm16 (a permutation of 16,000,000 B), shuffle (4 permutations of 2,000,000 B), incast (16 → 1 of
1,000,000 B); each figure the mean over 3 seeds (htsim's -seed, the model's route and spray seed).
Target (issue 30): mean per-flow rate, median and slowest FCT within 15 % of htsim; where the
model misses, the bound it holds is written down with why (MISSES). The model's own figures are pinned.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim.engine import simulate
from fabricviz.sim.fct import base_latency_ns, flow_times
from fabricviz.sim.links import link_table
from fabricviz.sim.transports.model import run_transport
from fabricviz.sim.workloads import Flows

pytestmark = pytest.mark.slow       # 36 runs on the 128-host tree, ~20 s

DATA = Path(__file__).resolve().parents[1] / "data" / "htsim" / "transports"
WORKLOADS = ("perm", "perm16", "shuffle", "incast")
TOL = 0.15
#: (transport, workload) → the bound the model holds on (mean, median, slowest) where it misses 15 %.
#: HPCC incast: htsim's lossless queues overshoot ("LOSSLESS not working!") and its switches serve
#: ingress ports round-robin, so the two senders of the receiver's pod (hosts 9 and 13, an aggregation
#: port each to themselves) finish at ~510 µs and lift the mean rate, where max-min shares the
#: receiver's link equally (a max-min serving ingress ports round-robin gets this incast within 3 % but
#: the shuffle 22-28 % off, so it was left out). HPCC shuffle median: 4 flows per NIC on ECMP paths
#: finish in steps of their max-min shares, where htsim's windows spread them (cause not pinned down).
MISSES = {("hpcc", "shuffle"): (TOL, 0.18, TOL), ("hpcc", "incast"): (0.25, TOL, TOL)}


SEEDS = (0, 1, 2)                   # the model's route / spray seeds (htsim's runs: -seed 13, 1, 2)


def _figures(fct: np.ndarray, size: np.ndarray) -> tuple[float, float, float]:
    return float(np.mean(size * 8 / (fct * 1e3))), float(np.median(fct)), float(fct.max())


def htsim_figures(name: str = "reference.csv") -> dict[tuple[str, str], tuple[float, float, float]]:
    """(transport, workload) → (mean rate, median FCT, slowest FCT), each the mean over htsim's 3 seeds."""
    rows: dict[tuple[str, str, str], list[tuple[float, float]]] = defaultdict(list)
    with open(DATA / name) as fh:
        for r in csv.DictReader(fh):
            rows[(r["transport"], r["workload"], r["seed"])].append((float(r["fct_us"]), float(r["bytes"])))
    per: dict[tuple[str, str], list[tuple[float, float, float]]] = defaultdict(list)
    for (t, w, _), v in rows.items():
        fct, size = np.array(v).T
        per[(t, w)].append(_figures(fct, size))
    return {k: tuple(float(x) for x in np.mean(v, axis=0)) for k, v in per.items()}  # type: ignore[misc]


@pytest.fixture(scope="module")
def design():
    return fat_tree(levels=3, radix=8, fabric="roce", speed="100GbE", switch="SN4700")


def flows_of(f, workload: str) -> Flows:
    rows = [line.split() for line in (DATA / f"{workload}.cm").read_text().splitlines() if "->" in line]
    ends = [r[0].split("->") for r in rows]
    src = [f.find(f"node{int(a) + 1:03d}/mlx5_0") for a, _ in ends]
    dst = [f.find(f"node{int(b) + 1:03d}/mlx5_0") for _, b in ends]
    return Flows(np.array(src), np.array(dst), np.array([float(r[-1]) for r in rows]))


def model_figures(f, transport: str, workload: str) -> tuple[float, float, float]:
    """The same three figures of the model, each the mean over :data:`SEEDS`."""
    got = []
    for seed in SEEDS:
        res = simulate(f, flows_of(f, workload), transport=transport, seed=seed)
        ft = flow_times(res)
        assert ft is not None and np.isfinite(ft.fct_s).all()
        got.append(_figures(ft.fct_s * 1e6, ft.bytes))
    return tuple(float(x) for x in np.mean(got, axis=0))  # type: ignore[return-value]


def htsim_latency_figures(f, transport: str) -> tuple[float, float, float]:
    """The model on perm.cm with htsim's own latencies (every cable 1 µs, no switch latency)."""
    links = link_table(f)
    links = replace(links, prop_ns=np.where(links.pcie, links.prop_ns, 1000.0), switch_ns=np.zeros_like(links.switch_ns))
    flows = flows_of(f, "perm")
    got = []
    for seed in SEEDS:
        links, routes, run = run_transport(f, flows, transport, seed, links=links)
        assert run.completion is not None
        fct = (run.completion.finish_s + base_latency_ns(links, routes) * 1e-9) * 1e6
        got.append(_figures(fct, flows.bytes))
    return tuple(float(x) for x in np.mean(got, axis=0))  # type: ignore[return-value]


def test_stored_reference():
    h = htsim_figures()
    assert len(h) == 12
    assert h[("eqds", "perm")] == pytest.approx((87.1, 368.2, 384.8), abs=0.1)
    assert h[("ndp", "perm")] == pytest.approx((87.5, 371.8, 380.7), abs=0.1)
    assert h[("hpcc", "perm")] == pytest.approx((46.3, 724.0, 1578.3), abs=0.1)


def check_against_htsim(got, want, key: tuple[str, str], misses, pinned) -> None:
    """A model's (mean rate, median, slowest FCT) ``got`` for ``key`` (transport, workload): within TOL of
    htsim's ``want`` (or the bound its pinned miss allows) and equal to its pinned figures."""
    err = [g / t - 1 for g, t in zip(got, want, strict=True)]
    bound = misses.get(key, (TOL, TOL, TOL))
    assert all(abs(e) <= b for e, b in zip(err, bound, strict=True)), (*key, got, want, err)
    assert got == pytest.approx(pinned[key], rel=1e-6), (*key, got)


@pytest.mark.parametrize("transport", ["eqds", "ndp", "hpcc"])
def test_within_tolerance_of_htsim(design, transport):
    h = htsim_figures()
    for w in WORKLOADS:
        check_against_htsim(model_figures(design, transport, w), h[(transport, w)], (transport, w), MISSES, PINNED)


@pytest.mark.parametrize("transport", ["eqds", "ndp", "hpcc"])
def test_htsims_own_latencies(design, transport):
    """htsim's defaults (1 µs per hop): the issue's figures (EQDS 85, NDP 57, HPCC 46 Gb/s); NDP's window
    of 15 × 9000 B per round trip now limits it, the round trip including its pulls' waits."""
    h = htsim_figures("defaults.csv")[(transport, "perm")]
    got = htsim_latency_figures(design, transport)
    err = [g / t - 1 for g, t in zip(got, h, strict=True)]
    assert all(abs(e) <= TOL for e in err), (transport, got, h, err)
    assert got == pytest.approx(DEFAULTS_PINNED[transport], rel=1e-6), (transport, got)


def test_ordering_as_htsim(design):
    """On the permutation htsim has EQDS and NDP far ahead of HPCC (per-flow ECMP collisions); so does the model."""
    m = {t: model_figures(design, t, "perm")[0] for t in ("eqds", "ndp", "hpcc")}
    assert min(m["eqds"], m["ndp"]) > 1.5 * m["hpcc"]


PINNED: dict[tuple[str, str], tuple[float, float, float]] = {  # the model's figures, and against htsim
    ('eqds', 'perm'): (86.8812312, 368.71774, 408.845821),  # htsim 87.1 368.2 384.8: -0.3% +0.1% +6.2%
    ('eqds', 'perm16'): (86.9093978, 1471.51786, 1642.74613),  # htsim 90.4 1415.8 1503.4: -3.8% +3.9% +9.3%
    ('eqds', 'shuffle'): (23.5439701, 680.794958, 709.009169),  # htsim 23.1 694.4 710.0: +1.9% -2.0% -0.1%
    ('eqds', 'incast'): (6.13604285, 1303.93328, 1303.93328),  # htsim 6.1 1304.6 1314.5: -0.1% -0.0% -0.8%
    ('ndp', 'perm'): (89.2180352, 363.495272, 365.467007),  # htsim 87.5 371.8 380.7: +1.9% -2.2% -4.0%
    ('ndp', 'perm16'): (89.5957296, 1444.23525, 1450.01779),  # htsim 88.3 1465.9 1489.9: +1.4% -1.5% -2.7%
    ('ndp', 'shuffle'): (23.6640339, 679.859159, 687.57019),  # htsim 23.9 673.0 681.0: -0.9% +1.0% +1.0%
    ('ndp', 'incast'): (6.18745225, 1293.10069, 1293.10069),  # htsim 6.2 1300.4 1310.9: -0.6% -0.6% -1.4%
    ('hpcc', 'perm'): (45.5041716, 789.898192, 1463.5824),  # htsim 46.3 724.0 1578.3: -1.6% +9.1% -7.3%
    ('hpcc', 'perm16'): (44.7220073, 2788.49468, 5393.40696),  # htsim 45.6 2889.1 6038.0: -2.0% -3.5% -10.7%
    ('hpcc', 'shuffle'): (18.1396592, 997.016065, 1744.28416),  # htsim 20.3 860.8 1573.7: -10.8% +15.8% +10.8%
    ('hpcc', 'incast'): (5.92092478, 1351.3017, 1351.3017),  # htsim 7.6 1290.0 1315.1: -22.4% +4.8% +2.8%
}

DEFAULTS_PINNED: dict[str, tuple[float, float, float]] = {
    'eqds': (86.1782419, 371.83774, 411.965821),  # htsim 85.5 374.9 392.2: +0.8% -0.8% +5.0%
    'ndp': (63.6849771, 533.239622, 533.63536),  # htsim 58.0 585.8 593.8: +9.8% -9.0% -10.1%
    'hpcc': (45.2835475, 793.018192, 1466.7024),  # htsim 44.9 748.1 1666.9: +0.8% +6.0% -12.0%
}
