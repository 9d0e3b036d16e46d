"""The transports against htsim's own simulators (htsim_eqds, htsim_ndp, htsim_hpcc of csg-htsim 841d9e7):
figures in tests/data/htsim/transports (make_reference.sh: the commands; CI cannot fetch htsim).

The design: `generate fat-tree --levels 3 --radix 8 --fabric roce --speed 100GbE --switch SN4700`, htsim
run with the latencies export-htsim writes for it. Workloads: perm (htsim's perm-128-1.cm, 4,000,000 B),
perm16 (a permutation of 16,000,000 B), shuffle (4 permutations of 2,000,000 B), incast (16 → 1 of
1,000,000 B). Target (issue 30): mean per-flow rate, median and slowest FCT within 15 % of htsim; where the
model misses, the bound it holds is written down with why (MISSES). The model's own figures are pinned.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim.engine import simulate
from fabricviz.sim.fct import flow_times
from fabricviz.sim.workloads import Flows

pytestmark = pytest.mark.slow       # 12 runs on the 128-host tree, ~6 s

DATA = Path(__file__).resolve().parents[1] / "data" / "htsim" / "transports"
WORKLOADS = ("perm", "perm16", "shuffle", "incast")
TOL = 0.15
#: (transport, workload) → the bound the model holds on (mean, median, slowest) where it misses 15 %:
#: HPCC keeps a flow on one ECMP path, and which flows share a link is the hash's doing — htsim's
#: hash and fabricviz's ECMP put the 128 flows differently, so the median of the permutation is set by a
#: different collision pattern (the mean and slowest hold); on the incast htsim's lossless queues
#: overshoot ("LOSSLESS not working!") and its switches serve ingress ports round-robin, so the two
#: senders of the receiver's pod finish at ~510 µs and lift the mean rate, where max-min shares equally
#: (a max-min that serves ingress ports round-robin gets the incast within 3 % but the shuffle 22-28 % off).
MISSES = {("hpcc", "perm"): (TOL, 0.45, TOL), ("hpcc", "incast"): (0.25, TOL, TOL)}


def htsim_figures() -> dict[tuple[str, str], tuple[float, float, float]]:
    rows: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    with open(DATA / "reference.csv") as fh:
        for r in csv.DictReader(fh):
            rows[(r["transport"], r["workload"])].append((float(r["fct_us"]), float(r["bytes"])))
    out = {}
    for k, v in rows.items():
        fct, size = np.array(v).T
        out[k] = (float(np.mean(size * 8 / (fct * 1e3))), float(np.median(fct)), float(fct.max()))
    return out


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
    res = simulate(f, flows_of(f, workload), transport=transport)
    ft = flow_times(res)
    assert ft is not None and np.isfinite(ft.fct_s).all()
    fct = ft.fct_s * 1e6
    return float(np.mean(ft.bytes * 8 / (fct * 1e3))), float(np.median(fct)), float(fct.max())


def test_stored_reference():
    h = htsim_figures()
    assert len(h) == 12
    assert h[("eqds", "perm")] == pytest.approx((87.0, 369.0, 383.8), abs=0.1)
    assert h[("ndp", "perm")] == pytest.approx((87.6, 371.7, 381.4), abs=0.1)
    assert h[("hpcc", "perm")] == pytest.approx((46.2, 727.9, 1682.0), abs=0.1)


@pytest.mark.parametrize("transport", ["eqds", "ndp", "hpcc"])
def test_within_tolerance_of_htsim(design, transport):
    h = htsim_figures()
    for w in WORKLOADS:
        got, want = model_figures(design, transport, w), h[(transport, w)]
        err = [g / t - 1 for g, t in zip(got, want, strict=True)]
        bound = MISSES.get((transport, w), (TOL, TOL, TOL))
        assert all(abs(e) <= b for e, b in zip(err, bound, strict=True)), (transport, w, got, want, err)
        assert got == pytest.approx(PINNED[(transport, w)], rel=1e-6), (transport, w, got)


def test_ordering_as_htsim(design):
    """On the permutation htsim has EQDS and NDP far ahead of HPCC (per-flow ECMP collisions); so does the model."""
    m = {t: model_figures(design, t, "perm")[0] for t in ("eqds", "ndp", "hpcc")}
    assert min(m["eqds"], m["ndp"]) > 1.5 * m["hpcc"]


PINNED: dict[tuple[str, str], tuple[float, float, float]] = {  # the model's figures, and against htsim
    ('eqds', 'perm'): (86.8384221, 368.997579, 406.788714),  # htsim 87.0 369.0 383.8: -0.2% -0.0% +6.0%
    ('eqds', 'perm16'): (87.0664209, 1469.25701, 1611.47518),  # htsim 90.2 1418.9 1489.1: -3.5% +3.5% +8.2%
    ('eqds', 'shuffle'): (23.4892571, 681.951796, 717.933245),  # htsim 23.1 695.1 709.3: +1.7% -1.9% +1.2%
    ('eqds', 'incast'): (6.13604285, 1303.93328, 1303.93328),  # htsim 6.1 1304.8 1314.4: -0.0% -0.1% -0.8%
    ('ndp', 'perm'): (93.0516395, 345.237626, 347.681932),  # htsim 87.6 371.7 381.4: +6.3% -7.1% -8.9%
    ('ndp', 'perm16'): (93.559695, 1370.11949, 1378.48446),  # htsim 88.3 1466.0 1493.7: +6.0% -6.5% -7.7%
    ('ndp', 'shuffle'): (23.6640277, 679.859159, 687.584589),  # htsim 23.9 673.0 681.4: -0.9% +1.0% +0.9%
    ('ndp', 'incast'): (6.18745225, 1293.10069, 1293.10069),  # htsim 6.2 1299.8 1310.4: -0.7% -0.5% -1.3%
    ('hpcc', 'perm'): (42.9606341, 1014.4596, 1688.14381),  # htsim 46.2 727.9 1682.0: -6.9% +39.4% +0.4%
    ('hpcc', 'perm16'): (47.7018695, 2698.67012, 5393.40696),  # htsim 45.9 3010.4 5600.6: +3.9% -10.4% -3.7%
    ('hpcc', 'shuffle'): (18.3458741, 989.440526, 1519.72275),  # htsim 20.4 863.4 1679.1: -10.0% +14.6% -9.5%
    ('hpcc', 'incast'): (5.92092478, 1351.3017, 1351.3017),  # htsim 7.5 1288.9 1311.3: -21.1% +4.8% +3.0%
}
