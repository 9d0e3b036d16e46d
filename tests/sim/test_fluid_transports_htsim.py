"""EQDS, NDP and HPCC in the tick-based fluid model (fabricviz/sim/fluid_transports) against htsim's own
simulators (htsim_eqds / htsim_ndp / htsim_hpcc of csg-htsim 841d9e7; figures and commands in
tests/data/htsim/transports, the same runs test_transports_htsim.py holds the flow-level model to).

k=8 3-level RoCE tree at 100 Gb/s with export-htsim's latencies; workloads perm (4 MB), perm16 (16 MB),
shuffle (4 × 2 MB), incast (16 → 1, 1 MB); each figure the mean over 3 seeds (htsim's -seed 13, 1, 2; the
model's route and spray seeds 0, 1, 2). Target (issue 30): mean per-flow rate, median and slowest FCT within
15 % of htsim; where the model misses, the bound it holds and why (MISSES). The model's figures are pinned.
``python tests/sim/test_fluid_transports_htsim.py`` prints them again with the CPU seconds per run.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim.engine import simulate
from fabricviz.sim.fct import flow_times
from tests.sim.test_transports_htsim import TOL, WORKLOADS, _figures, flows_of, htsim_figures

pytestmark = pytest.mark.slow       # 12 runs per transport on the 128-host tree, 1-7 s each

SEEDS = (0, 1, 2)
#: (transport, workload) → the bound held on (mean, median, slowest) where 15 % is missed. EQDS perm16's
#: slowest flow: the hash of 64 path ids onto 16 paths overloads some spine links for the whole run; their
#: queues stay at the 35-packet trimming limit, so the flows crossing most of them see round trips of
#: ~27 µs (base ~12 µs) and, 50 packets in flight, run at ~62 Gb/s; htsim's slowest flow runs at ~85.
MISSES = {("eqds", "perm16"): (TOL, TOL, 0.16)}


@pytest.fixture(scope="module")
def design():
    return fat_tree(levels=3, radix=8, fabric="roce", speed="100GbE", switch="SN4700")


def fluid_figures(f, transport: str, workload: str) -> tuple[tuple[float, float, float], float]:
    """(mean rate, median FCT, slowest FCT) of the fluid model, each the mean over :data:`SEEDS`; CPU s per run."""
    got, cpu = [], 0.0
    for seed in SEEDS:
        c = time.process_time()
        res = simulate(f, flows_of(f, workload), model="fluid", transport=transport, seed=seed, duration_s=20e-3,
                       stop_when_done=True)
        cpu += time.process_time() - c
        ft = flow_times(res)
        assert ft is not None and np.isfinite(ft.fct_s).all()
        assert res.fluid is not None and res.fluid.lost_bytes == 0.0
        got.append(_figures(ft.fct_s * 1e6, ft.bytes))
    return tuple(float(x) for x in np.mean(got, axis=0)), cpu / len(SEEDS)  # type: ignore[return-value]


@pytest.mark.parametrize("transport", ["eqds", "ndp", "hpcc"])
def test_fluid_within_tolerance_of_htsim(design, transport):
    h = htsim_figures()
    for w in WORKLOADS:
        got, _ = fluid_figures(design, transport, w)
        want = h[(transport, w)]
        err = [g / t - 1 for g, t in zip(got, want, strict=True)]
        bound = MISSES.get((transport, w), (TOL, TOL, TOL))
        assert all(abs(e) <= b for e, b in zip(err, bound, strict=True)), (transport, w, got, want, err)
        assert got == pytest.approx(PINNED[(transport, w)], rel=1e-6), (transport, w, got)


PINNED: dict[tuple[str, str], tuple[float, float, float]] = {}


if __name__ == "__main__":           # the pinned figures and the table of the README
    d = fat_tree(levels=3, radix=8, fabric="roce", speed="100GbE", switch="SN4700")
    ref = htsim_figures()
    for t in sys.argv[1:] or ("eqds", "ndp", "hpcc"):
        for w in WORKLOADS:
            g, s = fluid_figures(d, t, w)
            e = " ".join(f"{x / y - 1:+.1%}" for x, y in zip(g, ref[(t, w)], strict=True))
            print(f"    ({t!r}, {w!r}): ({g[0]:.9g}, {g[1]:.9g}, {g[2]:.9g}),  # htsim "
                  f"{' '.join(f'{x:.1f}' for x in ref[(t, w)])}: {e}; {s:.2f} s", flush=True)
