"""Issue 30's one more shape: EQDS, NDP and HPCC on the 3-level fat tree of radix 12 (432 hosts) against
htsim_eqds / htsim_ndp / htsim_hpcc (csg-htsim 841d9e7; figures and commands in tests/data/htsim/transports:
make_reference_432.sh, reference_432.csv, wall_432.csv; CI cannot fetch htsim).

`generate fat-tree --levels 3 --radix 12 --fabric roce --speed 100GbE --switch SN4700` (the switch of the
radix-12 RoCE case, bench/htsim_compare.py), htsim with the latencies export-htsim writes for it. Workloads:
perm432 (htsim's perm-432-1.cm: every host sends 4,000,000 B) and incast432 (16 → host 0, 1,000,000 B each);
each figure the mean over 3 seeds (htsim's -seed 13, 1, 2; the model's route and spray seeds 0, 1, 2).
Target: mean per-flow rate, median and slowest FCT within 15 % of htsim, for the fluid model (`--model fluid
--transport …`) and, for the README's table, the max-min model; where one misses, the bound it holds and why
(MISSES). Both models' figures are pinned. ``python tests/sim/test_fluid_transports_htsim_432.py`` prints them
again with the CPU seconds per run (the README's table rows).
"""

from __future__ import annotations

import csv
import sys
import time
from collections import defaultdict

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from tests.sim.test_fluid_transports_htsim import fluid_figures
from tests.sim.test_transports_htsim import DATA, TOL, check_against_htsim, flows_of, htsim_figures, model_figures

pytestmark = pytest.mark.slow       # 6 fluid runs per transport on the 432-host tree, 0.6-3 s CPU each

WORKLOADS = ("perm432", "incast432")
REFERENCE = "reference_432.csv"
#: (transport, workload) → the bound the fluid model holds on (mean, median, slowest) where it misses 15 %:
#: none. The nearest is HPCC's slowest permutation flow (−7.5 %; per seed −13 %, −13 %, +4 %): one ECMP path
#: per flow, and which flows collide most follows the hash seed (htsim's seeds are not the model's).
MISSES: dict[tuple[str, str], tuple[float, float, float]] = {}
#: the same for the max-min model. HPCC perm432 median (+18.2 %): with one ECMP path per flow max-min
#: finishes most flows in steps of 339 µs × the flows on their busiest link (678, 1014, 1351 µs: 102, 160
#: and 62 of the 432 flows for seed 0), and the median falls on the 3-flow step or just below it (1014,
#: 902, 902 µs for seeds 0-2), where htsim's windows spread the flows between the steps (its median
#: 795 µs); the fluid model's windows do too (+4.3 %). HPCC incast432 mean rate (−18.3 %): htsim serves
#: each switch's ingress ports round-robin, so host 33, the one sender in the receiver's pod, has an
#: aggregation port to itself and finishes at 357-381 µs, lifting the mean; max-min shares the receiver's
#: link equally among the 16 (the fluid model serves ingress ports round-robin as htsim does: +3.4 %).
#: The same two mechanisms as max-min's misses on the radix-8 tree (test_transports_htsim.MISSES).
MAXMIN_MISSES = {("hpcc", "perm432"): (TOL, 0.19, TOL), ("hpcc", "incast432"): (0.19, TOL, TOL)}


@pytest.fixture(scope="module")
def design():
    return fat_tree(levels=3, radix=12, fabric="roce", speed="100GbE", switch="SN4700")


def test_stored_reference():
    """Every htsim run is complete (432 and 16 flows, seeds 13, 1, 2) and its figures are these."""
    runs: dict[tuple[str, str, str], int] = defaultdict(int)
    with open(DATA / REFERENCE) as fh:
        for r in csv.DictReader(fh):
            runs[(r["transport"], r["workload"], r["seed"])] += 1
    assert runs == {(t, w, s): (432 if w == "perm432" else 16)
                    for t in ("eqds", "ndp", "hpcc") for w in WORKLOADS for s in ("13", "1", "2")}
    h = htsim_figures(REFERENCE)
    assert h[("eqds", "perm432")] == pytest.approx((85.8, 373.9, 389.0), abs=0.1)
    assert h[("ndp", "perm432")] == pytest.approx((83.3, 389.0, 398.7), abs=0.1)
    assert h[("hpcc", "perm432")] == pytest.approx((43.2, 795.2, 1858.4), abs=0.1)
    assert h[("hpcc", "incast432")] == pytest.approx((7.2, 1291.9, 1311.2), abs=0.1)


def test_workloads_are_htsims(design):
    """perm432.cm is htsim's perm-432-1.cm byte for byte; the flows land on the hosts htsim numbers."""
    assert (DATA / "perm432.cm").read_bytes() == (DATA.parent / "perm-432-1.cm").read_bytes()
    fl = flows_of(design, "perm432")
    assert len(fl.src) == 432 and sorted(fl.src.tolist()) == sorted(fl.dst.tolist())
    inc = flows_of(design, "incast432")
    assert len(set(inc.dst.tolist())) == 1 and len(set(inc.src.tolist())) == 16 and set(inc.bytes) == {1e6}


def _check(got, transport: str, workload: str, misses, pinned) -> None:
    key = (transport, workload)
    check_against_htsim(got, htsim_figures(REFERENCE)[key], key, misses, pinned)


@pytest.mark.parametrize("transport", ["eqds", "ndp", "hpcc"])
def test_fluid_within_tolerance_of_htsim(design, transport):
    for w in WORKLOADS:
        _check(fluid_figures(design, transport, w)[0], transport, w, MISSES, PINNED)


@pytest.mark.parametrize("transport", ["eqds", "ndp", "hpcc"])
def test_maxmin_against_htsim(design, transport):
    for w in WORKLOADS:
        _check(model_figures(design, transport, w), transport, w, MAXMIN_MISSES, MAXMIN_PINNED)


PINNED: dict[tuple[str, str], tuple[float, float, float]] = {  # the fluid model's figures, and against htsim
    ('eqds', 'perm432'): (87.3889228, 367.266667, 381.2),  # htsim 85.8 373.9 389.0: +1.9% -1.8% -2.0%
    ('eqds', 'incast432'): (6.1406202, 1302.8, 1302.8),  # htsim 6.1 1307.2 1315.3: +0.1% -0.3% -0.9%
    ('ndp', 'perm432'): (84.3413034, 383.2, 398.133333),  # htsim 83.3 389.0 398.7: +1.2% -1.5% -0.1%
    ('ndp', 'incast432'): (6.18437163, 1293.6, 1293.6),  # htsim 6.2 1298.4 1311.2: -0.6% -0.4% -1.3%
    ('hpcc', 'perm432'): (43.9839802, 829.666667, 1719.06667),  # htsim 43.2 795.2 1858.4: +1.7% +4.3% -7.5%
    ('hpcc', 'incast432'): (7.49284611, 1235.2, 1284.8),  # htsim 7.2 1291.9 1311.2: +3.4% -4.4% -2.0%
}

MAXMIN_PINNED: dict[tuple[str, str], tuple[float, float, float]] = {  # the max-min model's figures
    ('eqds', 'perm432'): (85.1030713, 376.819131, 410.674796),  # max-min: -0.8% +0.8% +5.6%
    ('eqds', 'incast432'): (6.13566305, 1303.93328, 1303.93328),  # max-min: +0.0% -0.2% -0.9%
    ('ndp', 'perm432'): (88.3106857, 365.072432, 366.516055),  # max-min: +6.0% -6.2% -8.1%
    ('ndp', 'incast432'): (6.18706605, 1293.10069, 1293.10069),  # max-min: -0.6% -0.4% -1.4%
    ('hpcc', 'perm432'): (42.4984051, 939.605795, 1800.42451),  # max-min: -1.7% +18.2% -3.1%
    ('hpcc', 'incast432'): (5.92057115, 1351.3017, 1351.3017),  # max-min: -18.3% +4.6% +3.1%
}


def _wall() -> dict[tuple[str, str], float]:
    """htsim's wall seconds per run (wall_432.csv), the mean over its seeds."""
    got: dict[tuple[str, str], list[float]] = defaultdict(list)
    with open(DATA / "wall_432.csv") as fh:
        for r in csv.DictReader(fh):
            got[(r["transport"], r["workload"])].append(float(r["wall_s"]))
    return {k: float(np.mean(v)) for k, v in got.items()}


if __name__ == "__main__":           # the pinned figures and the README's table rows
    d = fat_tree(levels=3, radix=12, fabric="roce", speed="100GbE", switch="SN4700")
    ref, wall = htsim_figures(REFERENCE), _wall()
    for t in sys.argv[1:] or ("eqds", "ndp", "hpcc"):
        for w in WORKLOADS:
            h = ref[(t, w)]
            g, s = fluid_figures(d, t, w)
            c = time.process_time()
            m = model_figures(d, t, w)
            ms = (time.process_time() - c) / 3
            ef, em = ([f"{x / y - 1:+.1%}" for x, y in zip(v, h, strict=True)] for v in (g, m))
            print(f"    ({t!r}, {w!r}): ({g[0]:.9g}, {g[1]:.9g}, {g[2]:.9g}),  # htsim "
                  f"{' '.join(f'{x:.1f}' for x in h)}: {' '.join(ef)}")
            print(f"    ({t!r}, {w!r}): ({m[0]:.9g}, {m[1]:.9g}, {m[2]:.9g}),  # max-min: {' '.join(em)}")
            print(f"| {t} | {w} | {' / '.join(f'{x:.1f}' for x in h)} | {' / '.join(f'{x:.1f}' for x in g)} | "
                  f"{' / '.join(ef).replace('-', '−')} | {' / '.join(f'{x:.1f}' for x in m)} | "
                  f"{' / '.join(em).replace('-', '−')} | "
                  f"{wall[(t, w)]:.2f} | {s:.2f} | {ms:.2f} |", flush=True)
