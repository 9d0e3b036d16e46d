"""Benchmark: max-min solve for 1k / 10k / 100k flows and fluid ticks per second for 1k / 10k flows.

Run: python bench/sim.py [--k 32] [--repeat 5]
Fabric: k-ary fat tree (k=32: 8,192 hosts, 49,152 directed cable links + PCIe hops).
Flows: random (src, dst) NIC pairs, per-switch-seeded ECMP paths (like perf.md §3b).
Goals (issue 4): one max-min solve ≤ 20 ms at 10k flows and ≤ 200 ms at 100k;
fluid ≥ 100 ticks/s at 1k flows. Prints medians over the repeats (noisy shared machines)
and the ratio measured / goal (≤ 1 meets a time goal, ≥ 1 a rate goal).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.sim.fluid import FluidParams, FluidSim  # noqa: E402
from fabricviz.sim.links import link_table  # noqa: E402
from fabricviz.sim.maxmin import maxmin  # noqa: E402
from fabricviz.sim.paths import route  # noqa: E402
from fabricviz.sim.workloads import Flows, endpoints  # noqa: E402

GOALS_MS = {10_000: 20.0, 100_000: 200.0}
FLUID_GOAL = {1_000: 100.0}


def random_flows(ranks: np.ndarray, n: int, seed: int) -> Flows:
    rng = np.random.default_rng(seed)
    s = rng.integers(0, len(ranks), n)
    d = (s + rng.integers(1, len(ranks), n)) % len(ranks)
    return Flows(ranks[s], ranks[d])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ticks", type=int, default=200)
    a = ap.parse_args()
    f = k_ary_fat_tree(a.k)
    L = link_table(f)
    ranks = endpoints(f, "nic")
    print(f"k={a.k} fat tree: {len(ranks)} hosts, {L.n} directed links")
    print("max-min (one exact solve):")
    for n in (1_000, 10_000, 100_000):
        flows = random_flows(ranks, n, 1)
        t0 = time.perf_counter()
        r = route(f, L, flows, "ecmp", seed=1)
        t_route = time.perf_counter() - t0
        A = r.incidence()
        times, rounds = [], 0
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            res = maxmin(A, L.gbps)
            times.append((time.perf_counter() - t0) * 1e3)
            rounds = res.rounds
        med = statistics.median(times)
        over = float((res.link_load - L.gbps).max())
        goal = GOALS_MS.get(n)
        ratio = f"  ratio to goal {med / goal:.2f} (goal {goal:g} ms)" if goal else ""
        print(f"  {n:>7} flows: median {med:8.2f} ms  ({rounds} rounds, nnz {A.nnz}, "
              f"max overload {over:.1e} Gb/s; routing {t_route * 1e3:.0f} ms){ratio}")
    print("fluid (PFC + ECN + DCQCN, dt 1 µs):")
    for n in (1_000, 10_000):
        flows = random_flows(ranks, n, 2)
        r = route(f, L, flows, "ecmp", seed=2)
        rates = []
        for _ in range(max(1, a.repeat // 2)):
            sim = FluidSim(L, flows, r, FluidParams(duration_s=1.0))
            for _ in range(5):
                sim.step()
            t0 = time.perf_counter()
            for _ in range(a.ticks):
                sim.step()
            rates.append(a.ticks / (time.perf_counter() - t0))
        med = statistics.median(rates)
        goal = FLUID_GOAL.get(n)
        ratio = f"  ratio to goal {med / goal:.2f} (goal ≥ {goal:g} ticks/s)" if goal else ""
        print(f"  {n:>7} flows: median {med:8.1f} ticks/s{ratio}")


if __name__ == "__main__":
    main()
