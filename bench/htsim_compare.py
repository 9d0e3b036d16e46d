"""Benchmark and check: fabricviz against htsim_roce on the stored reference (tests/data/htsim).

Run: python bench/htsim_compare.py [--hosts 128,432] [--seeds 1,2,3,4,5] [--routing ecmp,adaptive,spray]
                                   [--htsim PATH/TO/csg-htsim/sim]

For each fat tree (radix 8: 128 hosts, radix 12: 432) and each of htsim's five permutations
(4 MB per flow, all at t=0) the same flows run on `generate fat-tree --levels 3 --radix K --fabric
roce --speed 100GbE --switch SN4700` with htsim's queues as the design's PFC thresholds
(meta.roce: MTU 9000, pfc xoff 144,000 / xon 99,000 B — htsim pauses above 15 packets held and
resumes below 12) and `--transport roce-gbn --cc none`, in the fluid model and the max-min model.
Prints per routing the mean over the permutations of mean per-flow Gb/s, median and slowest FCT
(µs) for htsim and fabricviz, and fabricviz's error. With --htsim (a built csg-htsim `sim`
folder) it also runs htsim_roce on the radix-12 permutations in the same run and prints the
fluid model's wall time over htsim's (the issue's target: ≤ 1.0).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

HERE = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "htsim")
STRAT = {"ecmp": "ecmp_host", "adaptive": "ecmp_ar", "spray": "ecmp_rr"}
RADIX = {128: 8, 432: 12}
ROCE = {"mtu": 9000, "pfc": {"xoff": 144000, "xon": 99000}}


def reference() -> list[dict[str, str]]:
    with open(os.path.join(HERE, "reference.csv")) as f:
        return list(csv.DictReader(f))


def design(hosts: int):
    from fabricviz.generate import fat_tree
    f = fat_tree(levels=3, radix=RADIX[hosts], fabric="roce", switch="SN4700", speed="100GbE")
    f.set_meta("roce", ROCE)
    return f


def flows_of(f, hosts: int, seed: int):
    """htsim's permutation (its .cm file, in its order) on the design: host i is node{i+1}/mlx5_0."""
    from fabricviz.sim.workloads import Flows
    pairs = [line.split()[0].split("->") for line in open(os.path.join(HERE, f"perm-{hosts}-{seed}.cm"))
             if "->" in line]
    src = [f.find(f"node{int(a) + 1:03d}/mlx5_0") for a, _ in pairs]
    dst = [f.find(f"node{int(b) + 1:03d}/mlx5_0") for _, b in pairs]
    return Flows(np.array(src), np.array(dst), np.full(len(pairs), 4e6))


def stats(fct_us: np.ndarray, nbytes: np.ndarray) -> tuple[float, float, float]:
    return float(np.mean(nbytes * 8 / (fct_us * 1e3))), float(np.median(fct_us)), float(np.max(fct_us))


def fabricviz_run(f, flows, routing: str, model: str) -> tuple[tuple[float, float, float], float]:
    from fabricviz.sim.engine import roce_fluid, simulate
    from fabricviz.sim.fct import flow_times
    t0 = time.perf_counter()
    res = simulate(f, flows, routing, model, 40e-3 if routing == "spray" else 12e-3,
                   fluid=roce_fluid(f, cc="none") if model == "fluid" else None, transport="roce-gbn",
                   stop_when_done=True)
    wall = time.perf_counter() - t0
    ft = flow_times(res)
    assert ft is not None and np.isfinite(ft.fct_s).all(), "every flow must finish"
    return stats(ft.fct_s * 1e6, ft.bytes), wall


def htsim_wall(htsim: str, hosts: int, seed: int, routing: str) -> float:
    cm = os.path.join(HERE, f"perm-{hosts}-{seed}.cm")
    with tempfile.TemporaryDirectory() as tmp:
        shim = os.path.join(tmp, "fixtime.so")
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", shim, os.path.join(HERE, "fixtime.c")], check=True)
        cmd = [os.path.join(htsim, "datacenter", "htsim_roce"), "-nodes", str(hosts), "-tiers", "3",
               "-conns", str(hosts), "-tm", cm, "-strat", STRAT[routing], "-host_queue_type", "prio",
               "-linkspeed", "100000", "-end", "30000", "-o", os.path.join(tmp, "log.dat")]
        if routing == "ecmp":
            cmd[cmd.index("-host_queue_type"):cmd.index("-host_queue_type")] = ["-paths", "256"]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=tmp,       # htsim writes idmap.txt here
                       env={**os.environ, "LD_PRELOAD": shim})
        return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", default="128,432")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--routing", default="ecmp,adaptive,spray")
    ap.add_argument("--htsim", default=os.environ.get("HTSIM"))
    a = ap.parse_args()
    rows = reference()
    seeds = [int(s) for s in a.seeds.split(",")]
    print("| hosts | routing | metric | htsim_roce | fluid | fluid error | max-min | max-min error |")
    print("|---|---|---|---|---|---|---|---|")
    for hosts in (int(h) for h in a.hosts.split(",")):
        f = design(hosts)
        for routing in a.routing.split(","):
            ref, flu, mm, walls, hwalls = [], [], [], [], []
            for seed in seeds:
                sel = [r for r in rows if int(r["hosts"]) == hosts and int(r["seed"]) == seed
                       and r["routing"] == STRAT[routing]]
                ref.append(stats(np.array([float(r["fct_us"]) for r in sel]),
                                 np.array([float(r["bytes"]) for r in sel])))
                flows = flows_of(f, hosts, seed)
                s, wall = fabricviz_run(f, flows, routing, "fluid")
                flu.append(s)
                walls.append(wall)
                mm.append(fabricviz_run(f, flows, routing, "maxmin")[0])
                if a.htsim and hosts == 432:
                    hwalls.append(htsim_wall(a.htsim, hosts, seed, routing))
            R, Fm, M = (np.mean(x, axis=0) for x in (ref, flu, mm))
            for i, name in enumerate(("mean per-flow Gb/s", "median FCT µs", "slowest FCT µs")):
                print(f"| {hosts} | {routing} | {name} | {R[i]:.1f} | {Fm[i]:.1f} | {100 * (Fm[i] / R[i] - 1):+.1f} % "
                      f"| {M[i]:.1f} | {100 * (M[i] / R[i] - 1):+.1f} % |")
            line = f"  fluid wall time: median {statistics.median(walls):.2f} s per permutation"
            if hwalls:
                line += (f"; htsim_roce {statistics.median(hwalls):.2f} s; ratio "
                         f"{statistics.median(walls) / statistics.median(hwalls):.2f}")
            print(line, file=sys.stderr)


if __name__ == "__main__":
    main()
