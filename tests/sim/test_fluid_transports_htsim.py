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
from tests.sim.test_transports_htsim import (
    WORKLOADS,
    _figures,
    check_against_htsim,
    flows_of,
    htsim_figures,
)

pytestmark = pytest.mark.slow       # 12 runs per transport on the 128-host tree, 1-7 s each

SEEDS = (0, 1, 2)
#: (transport, workload) → the bound held on (mean, median, slowest) where 15 % is missed: none. The
#: nearest are HPCC's slowest flows on the permutations (−10 %, −13 %): one ECMP path per flow, the
#: slowest is the one whose path collides most, and which collides depends on the hash seed (htsim's
#: seeds are not the model's).
MISSES: dict[tuple[str, str], tuple[float, float, float]] = {}


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
        check_against_htsim(got, h[(transport, w)], (transport, w), MISSES, PINNED)


PINNED: dict[tuple[str, str], tuple[float, float, float]] = {  # the fluid model's figures, and against htsim
    ('eqds', 'perm'): (88.3103106, 363.533333, 379.066667),  # htsim 87.1 368.2 384.8: +1.4% -1.3% -1.5%
    ('eqds', 'perm16'): (91.522906, 1397.26667, 1469.33333),  # htsim 90.4 1415.8 1503.4: +1.3% -1.3% -2.3%
    ('eqds', 'shuffle'): (23.5345195, 681.533333, 693.6),  # htsim 23.1 694.4 710.0: +1.8% -1.9% -2.3%
    ('eqds', 'incast'): (6.1406202, 1302.8, 1302.8),  # htsim 6.1 1304.6 1314.5: -0.0% -0.1% -0.9%
    ('ndp', 'perm'): (89.1517595, 362.8, 374.666667),  # htsim 87.5 371.8 380.7: +1.9% -2.4% -1.6%
    ('ndp', 'perm16'): (90.4016133, 1427.4, 1465.46667),  # htsim 88.3 1465.9 1489.9: +2.3% -2.6% -1.6%
    ('ndp', 'shuffle'): (24.3408073, 657.866667, 660.933333),  # htsim 23.9 673.0 681.0: +1.9% -2.2% -3.0%
    ('ndp', 'incast'): (6.18536877, 1293.6, 1293.6),  # htsim 6.2 1300.4 1310.9: -0.7% -0.5% -1.3%
    ('hpcc', 'perm'): (46.9876826, 775.6, 1412.13333),  # htsim 46.3 724.0 1578.3: +1.6% +7.1% -10.5%
    ('hpcc', 'perm16'): (46.9619159, 2780.2, 5273.2),  # htsim 45.6 2889.1 6038.0: +2.9% -3.8% -12.7%
    ('hpcc', 'shuffle'): (19.8254733, 858.866667, 1734.66667),  # htsim 20.3 860.8 1573.7: -2.5% -0.2% +10.2%
    ('hpcc', 'incast'): (7.52285848, 1178.13333, 1286.13333),  # htsim 7.6 1290.0 1315.1: -1.4% -8.7% -2.2%
}


if __name__ == "__main__":           # the pinned figures and the table of the README
    d = fat_tree(levels=3, radix=8, fabric="roce", speed="100GbE", switch="SN4700")
    ref = htsim_figures()
    for t in sys.argv[1:] or ("eqds", "ndp", "hpcc"):
        for w in WORKLOADS:
            g, s = fluid_figures(d, t, w)
            e = " ".join(f"{x / y - 1:+.1%}" for x, y in zip(g, ref[(t, w)], strict=True))
            print(f"    ({t!r}, {w!r}): ({g[0]:.9g}, {g[1]:.9g}, {g[2]:.9g}),  # htsim "
                  f"{' '.join(f'{x:.1f}' for x in ref[(t, w)])}: {e}; {s:.2f} s", flush=True)
