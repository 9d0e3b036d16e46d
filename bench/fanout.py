"""Benchmark: a sweep of seeded max-min permutations, serial vs a local Dask cluster of 2 workers.

Run: python bench/fanout.py [--seeds 200] [--k 16] [--repeat 3] [--tiny 2000]

The task is :func:`mean_rate`: the mean max-min rate of seed s's random permutation over the NICs
of a k-ary (radix-k, 3-level) fat tree, the shared input. Each round runs the seeds serially and
on the warm 2-worker cluster (interleaved, so load changes hit both); medians and the speedup are
printed, with the cluster's start-up and the results checked equal (==). The peer is the same
sweep on a plain ``multiprocessing`` pool of 2 (no Dask; the fabric sent once by its initializer),
measured in the same rounds: its speedup is what this machine gives two processes right now (other
work on the 2 cores caps both), so Dask's share is the ratio of the two. The dispatch part runs
``--tiny`` near-empty tasks one item per task with all of them in flight at once, against the
runner's own chunking and window, to show what per-task cost batching saves.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.sim.fanout import FanOut  # noqa: E402


def mean_rate(fabric, seed: int) -> float:
    """Mean max-min rate (Gb/s) of seed's random permutation over the fabric's NICs."""
    from fabricviz.sim.engine import simulate
    from fabricviz.sim.workloads import endpoints, permutation
    res = simulate(fabric, permutation(endpoints(fabric, "nic"), seed=seed), model="maxmin", seed=seed)
    return float(res.flow_rates().mean())


_FABRIC = None


def _pool_init(fabric) -> None:
    global _FABRIC
    _FABRIC = fabric
    mean_rate(fabric, 0)


def _pool_job(seed: int) -> float:
    return mean_rate(_FABRIC, seed)


def tiny(shared, seed: int) -> int:
    return seed * 2 + len(shared)


def timed(fn, *a, **kw):
    t0 = time.perf_counter()
    out = fn(*a, **kw)
    return out, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tiny", type=int, default=2000)
    a = ap.parse_args()
    fabric = k_ary_fat_tree(a.k)
    seeds = list(range(a.seeds))
    print(f"radix-{a.k} 3-level fat tree: {a.k ** 3 // 4} hosts; {a.seeds} seeded max-min permutations; "
          f"{os.cpu_count()} cores")
    serial = FanOut(1)
    ref, _ = timed(serial.map, mean_rate, fabric, seeds[:2])      # imports and first-call set-up
    pool = multiprocessing.get_context("spawn").Pool(2, initializer=_pool_init, initargs=(fabric,))
    t0 = time.perf_counter()
    with pool, FanOut(2) as cluster:
        start = time.perf_counter() - t0
        _, first = timed(cluster.map, mean_rate, fabric, seeds)  # workers import fabricviz, set up
        pool.map(_pool_job, seeds[:4])
        t_ser, t_par, t_pool = [], [], []
        for _ in range(a.repeat):
            ref, t = timed(serial.map, mean_rate, fabric, seeds)
            t_ser.append(t)
            got, t = timed(cluster.map, mean_rate, fabric, seeds)
            t_par.append(t)
            assert got == ref, "the cluster's numbers differ from the serial run"
            peer, t = timed(pool.map, _pool_job, seeds, chunksize=max(1, a.seeds // 20))
            t_pool.append(t)
            assert peer == ref
        ms, mp, mq = statistics.median(t_ser), statistics.median(t_par), statistics.median(t_pool)
        print(f"  {'run':<38} {'median s':>9}  {'per seed ms':>11}")
        print(f"  {'serial (workers 1)':<38} {ms:9.3f}  {1e3 * ms / a.seeds:11.2f}")
        print(f"  {'local cluster (workers 2), warm':<38} {mp:9.3f}  {1e3 * mp / a.seeds:11.2f}")
        print(f"  {'  its first sweep (cold workers)':<38} {first:9.3f}")
        print(f"  {'  starting the cluster':<38} {start:9.3f}")
        print(f"  {'peer: multiprocessing pool of 2':<38} {mq:9.3f}  {1e3 * mq / a.seeds:11.2f}")
        print(f"  speedup 1 -> 2 workers: {ms / mp:.2f}x warm, {ms / (start + first):.2f}x counting start-up "
              f"(results identical: {got == ref}); the pool's {ms / mq:.2f}x; Dask/pool {mq / mp:.2f}; "
              f"load average {os.getloadavg()[0]:.1f}")

        items = list(range(a.tiny))
        want = serial.map(tiny, (1, 2), items)
        cluster.chunk, cluster.window = 1, a.tiny
        per_task, t_one = timed(cluster.map, tiny, (1, 2), items)
        cluster.chunk = cluster.window = None
        chunked, t_chunk = timed(cluster.map, tiny, (1, 2), items)
        assert per_task == chunked == want
        print(f"dispatch, {a.tiny} near-empty tasks on 2 workers:")
        print(f"  one item per task, all {a.tiny} futures at once  {t_one:7.3f} s  "
              f"({1e3 * t_one / a.tiny:.2f} ms a task)")
        print(f"  chunked (measured item time, window 2/thread) {t_chunk:7.3f} s  ({t_one / t_chunk:.0f}x faster)")


if __name__ == "__main__":
    main()
