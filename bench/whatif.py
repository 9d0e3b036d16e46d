"""Failure what-if speed (issue 17): 1,000 single-cable-failure trials, serial and on 2 Dask workers.

A radix-16 three-level fat tree (1,024 hosts, 320 switches, 3,072 cables), RoCE (ECMP re-hash
over the surviving graph) and InfiniBand (a fresh minhop sweep per trial), permutation metric.
Prints the median time per trial, the total, and where a trial's time goes (its peer: the
intact run measured in the same process). Issue target: <= 60 s for 1,000 trials with 2 workers
on a 2-core machine, so <= ~120 s serial.

Then the same trials on a local Dask cluster of 2 workers (sim/fanout.py, as `whatif --workers 2`),
checked equal to the serial results, with the speedup 1 → 2 workers.

Batch (``fabricviz whatif A.json B.json``): two designs' trials in one map (sim/whatif.py Batch),
serial vs 2 warm local Dask workers, median of the rounds and the ratio; the peer is each design's
trials run alone, serially, in the same rounds (a batch should cost their sum).

Run: .venv/bin/python bench/whatif.py [trials] [ib|roce|both|batch] [rounds]
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from fabricviz.generate.fattree import fat_tree
from fabricviz.generate.rail import rail_optimized
from fabricviz.sim.fanout import FanOut
from fabricviz.sim.whatif import Batch, failed_fabric, measure, parse_fail, prepare, run_batch_trial, run_trial


def bench(fabric_kind: str, trials: int) -> None:
    f = fat_tree(levels=3, radix=16, fabric=fabric_kind)
    t0 = time.perf_counter()
    sh = prepare(f, parse_fail("cables:1"), trials=trials, seed=0)
    prep = time.perf_counter() - t0
    times, serial = [], []
    t0 = time.perf_counter()
    for j in range(len(sh.trials)):
        t = time.perf_counter()
        serial.append(run_trial(sh, j))
        times.append(time.perf_counter() - t)
    total = time.perf_counter() - t0
    with FanOut(2) as fo:                         # the cluster's start-up outside the timing
        t0 = time.perf_counter()
        two = fo.map(run_trial, sh, range(len(sh.trials)))
        total2 = time.perf_counter() - t0
    assert two == serial, "2 workers must give the serial trials"
    # where a trial's time goes: the failed copy, and routing + max-min on it; the intact run as peer
    copy_t = statistics.median(_time(lambda j=j: failed_fabric(sh, j)) for j in range(20))
    intact = statistics.median(_time(lambda: measure(sh, f)) for _ in range(10))
    med = statistics.median(times)
    print(f"{fabric_kind:5} {f.name}: {trials:,} trials  median {med * 1e3:7.2f} ms/trial  total {total:6.1f} s  "
          f"(prepare {prep:.2f} s; copy + cable down {copy_t * 1e3:.2f} ms; intact route + max-min "
          f"{intact * 1e3:.2f} ms; trial / intact {med / intact:.2f})")
    print(f"      2 Dask workers: total {total2:6.1f} s, speedup 1 -> 2 workers {total / total2:.2f}x (same trials)")


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def bench_batch(trials: int, rounds: int) -> None:
    """Two designs (a radix-16 fat tree, 1,024 hosts; a 4-SU rail-optimised fabric, 128 DGX), RoCE,
    ``trials`` single-switch-failure trials each, as one batch."""
    spec = parse_fail("switches:1")
    designs = (fat_tree(levels=3, radix=16, fabric="roce"), rail_optimized(4, "roce"))
    batch = Batch(tuple(prepare(f, spec, trials=trials, seed=0) for f in designs))
    items = batch.items()
    serial = FanOut(1)
    t_ser, t_par, t_alone = [], [], []
    with FanOut(2) as fo:
        ref = fo.map(run_batch_trial, batch, items)             # cold workers: imports, first calls
        for _ in range(rounds):
            got, t = _timed(lambda: serial.map(run_batch_trial, batch, items))
            t_ser.append(t)
            two, t = _timed(lambda: fo.map(run_batch_trial, batch, items))
            t_par.append(t)
            alone, t = _timed(lambda: [r for sh in batch.designs for r in serial.map(run_trial, sh,
                                                                                     range(len(sh.trials)))])
            t_alone.append(t)
            assert got == two == alone == ref, "the batch must give each design's own trials"
    ms, mp, ma = (statistics.median(x) for x in (t_ser, t_par, t_alone))
    print(f"batch of 2 designs ({', '.join(f.name for f in designs)}), {len(items):,} trials, {rounds} rounds:")
    print(f"  {'run':<34} {'median s':>9}")
    print(f"  {'serial batch (workers 1)':<34} {ms:9.3f}")
    print(f"  {'2 local Dask workers, warm':<34} {mp:9.3f}")
    print(f"  {'peer: each design alone, serial':<34} {ma:9.3f}")
    print(f"  speedup 1 -> 2 workers {ms / mp:.2f}x; serial batch / designs alone {ms / ma:.2f} (results identical); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    which = sys.argv[2] if len(sys.argv) > 2 else "both"
    if which == "batch":
        bench_batch(n, int(sys.argv[3]) if len(sys.argv) > 3 else 3)
    for kind in (("roce", "ib") if which == "both" else () if which == "batch" else (which,)):
        bench(kind, n)
