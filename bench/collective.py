"""Speed of ``fabricviz collective``: an 8 B..1 GB ×2 sweep of ring all-reduce on 128 GPUs
(a rail-optimised SU of 16 DGX H100), median of 5 runs, with the first run (routing, solving the
pattern) and a re-sweep on the solved pattern (the per-size arithmetic) as its peers."""

from __future__ import annotations

import statistics
import time

from fabricviz.generate import rail_optimized
from fabricviz.sim.collective import Solver, collective, parse_sizes


def main() -> None:
    fabric = rail_optimized(1, nodes_per_unit=16)
    sizes = parse_sizes("8B:1GB:x2")
    full, warm = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        solver = Solver(fabric)
        res = collective(fabric, "allreduce", sizes, solver=solver)
        full.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        collective(fabric, "allreduce", sizes, solver=solver)
        warm.append(time.perf_counter() - t0)
    m_full, m_warm = statistics.median(full), statistics.median(warm)
    print(f"{res.n} GPUs, {len(sizes)} sizes, {res.channels} channels: sweep {m_full * 1e3:.1f} ms "
          f"(median of 5), re-sweep on the solved pattern {m_warm * 1e3:.1f} ms, ratio {m_full / m_warm:.1f}x; "
          f"busbw at 1 GB {res.rows[-1].busbw:.1f} GB/s")


if __name__ == "__main__":
    main()
