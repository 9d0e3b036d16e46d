"""Benchmark and check: fabricviz against htsim_roce on the stored reference (tests/data/htsim).

Run: python bench/htsim_compare.py [--hosts 128,432] [--seeds 1,2,3,4,5] [--routing ecmp,adaptive,spray]
                                   [--htsim PATH/TO/csg-htsim/sim] [--per-seed]
     python bench/htsim_compare.py --shuffle [--seeds 1,2,3] [--routing adaptive,ecmp] [--htsim …]

``--shuffle`` (issue 30): the radix-8 tree's 4-permutation shuffle of 2 MB (shuffle-128-S.cm: every
host sends 4 flows and receives 4, 512 flows), against shuffle.csv, with htsim's host in the fluid
model (``FluidParams.host_fifo``: every flow paced at line rate into its NIC's one FIFO); it prints
the fluid model's wall time per seed beside htsim's own (shuffle_wall.csv, or a fresh run with --htsim).

For each fat tree (radix 8: 128 hosts, radix 12: 432) and each of htsim's five permutations
(4 MB per flow, all at t=0) the same flows run on `generate fat-tree --levels 3 --radix K --fabric
roce --speed 100GbE --switch SN4700` with htsim's queues as the design's PFC thresholds
(meta.roce: MTU 9000, pfc xoff 144,000 / xon 99,000 B — htsim pauses above 15 packets held and
resumes below 12) and `--transport roce-gbn --cc none`, in the fluid model and the max-min model.
Prints per routing the mean over the permutations of mean per-flow Gb/s, median and slowest FCT
(µs) for htsim and fabricviz, and fabricviz's error (``--per-seed``: also each permutation's,
fluid model). With --htsim (a built csg-htsim `sim` folder) it also runs htsim_roce on the
radix-12 permutations in the same run and prints the fluid model's wall time over htsim's (the
issue's target: ≤ 1.0).
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


def fabricviz_run(f, flows, routing: str, model: str, host_fifo: bool = False,
                  duration_s: float | None = None) -> tuple[tuple[float, float, float], float]:
    from dataclasses import replace

    from fabricviz.sim.engine import roce_fluid, simulate
    from fabricviz.sim.fct import flow_times
    t0 = time.perf_counter()
    res = simulate(f, flows, routing, model, duration_s or (40e-3 if routing == "spray" else 12e-3),
                   fluid=replace(roce_fluid(f, cc="none"), host_fifo=host_fifo) if model == "fluid" else None,
                   transport="roce-gbn", stop_when_done=True)
    wall = time.perf_counter() - t0
    ft = flow_times(res)
    assert ft is not None and np.isfinite(ft.fct_s).all(), "every flow must finish"
    return stats(ft.fct_s * 1e6, ft.bytes), wall


def htsim_wall(htsim: str, hosts: int, seed: int, routing: str, cm_name: str = "perm") -> float:
    cm = os.path.join(HERE, f"{cm_name}-{hosts}-{seed}.cm")
    conns = sum(1 for line in open(cm) if "->" in line)
    with tempfile.TemporaryDirectory() as tmp:
        shim = os.path.join(tmp, "fixtime.so")
        subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", shim, os.path.join(HERE, "fixtime.c")], check=True)
        cmd = [os.path.join(htsim, "datacenter", "htsim_roce"), "-nodes", str(hosts), "-tiers", "3",
               "-conns", str(conns), "-tm", cm, "-strat", STRAT[routing], "-host_queue_type", "prio",
               "-linkspeed", "100000", "-end", "30000" if cm_name == "perm" else "100000",
               "-o", os.path.join(tmp, "log.dat")]
        if routing == "ecmp":
            cmd[cmd.index("-host_queue_type"):cmd.index("-host_queue_type")] = ["-paths", "256"]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, cwd=tmp,       # htsim writes idmap.txt here
                       env={**os.environ, "LD_PRELOAD": shim})
        return time.perf_counter() - t0


def shuffle_flows(f, seed: int):
    """shuffle-128-S.cm on the design (host i is node{i+1}/mlx5_0), 2,000,000 B per flow."""
    from fabricviz.sim.workloads import Flows
    pairs = [line.split()[0].split("->") for line in open(os.path.join(HERE, f"shuffle-128-{seed}.cm"))
             if "->" in line]
    src = [f.find(f"node{int(a) + 1:03d}/mlx5_0") for a, _ in pairs]
    dst = [f.find(f"node{int(b) + 1:03d}/mlx5_0") for _, b in pairs]
    return Flows(np.array(src), np.array(dst), np.full(len(pairs), 2e6))


def shuffle(a: argparse.Namespace) -> None:
    with open(os.path.join(HERE, "shuffle.csv")) as fh:
        rows = list(csv.DictReader(fh))
    with open(os.path.join(HERE, "shuffle_wall.csv")) as fh:
        walls = {(int(r["seed"]), r["routing"]): float(r["wall_s"]) for r in csv.DictReader(fh)}
    f = design(128)
    print("| routing | seed | metric | htsim_roce | fluid | error |")
    print("|---|---|---|---|---|---|")
    for routing in a.routing.split(","):
        for seed in (int(s) for s in a.seeds.split(",")):
            sel = [r for r in rows if int(r["seed"]) == seed and r["routing"] == STRAT[routing]]
            ref = stats(np.array([float(r["fct_us"]) for r in sel]), np.array([float(r["bytes"]) for r in sel]))
            cpu = time.process_time()
            got, wall = fabricviz_run(f, shuffle_flows(f, seed), routing, "fluid", host_fifo=True, duration_s=0.1)
            cpu = time.process_time() - cpu
            for i, name in enumerate(("mean per-flow Gb/s", "median FCT µs", "slowest FCT µs")):
                err = 100 * (got[i] / ref[i] - 1)
                print(f"| {routing} | {seed} | {name} | {ref[i]:.1f} | {got[i]:.1f} | {err:+.1f} % |")
            hw = htsim_wall(a.htsim, 128, seed, routing, "shuffle") if a.htsim else walls.get((seed, STRAT[routing]))
            print(f"  {routing} seed {seed}: fluid wall time {wall:.1f} s (CPU {cpu:.1f} s); htsim_roce {hw} s",
                  file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hosts", default="128,432")
    ap.add_argument("--seeds", default=None)
    ap.add_argument("--routing", default=None)
    ap.add_argument("--htsim", default=os.environ.get("HTSIM"))
    ap.add_argument("--shuffle", action="store_true")
    ap.add_argument("--per-seed", action="store_true")
    a = ap.parse_args()
    if a.shuffle:
        a.seeds, a.routing = a.seeds or "1,2,3", a.routing or "adaptive,ecmp"
        shuffle(a)
        return
    a.seeds, a.routing = a.seeds or "1,2,3,4,5", a.routing or "ecmp,adaptive,spray"
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
            if a.per_seed:
                for seed, r, g in zip(seeds, ref, flu, strict=True):
                    err = " / ".join(f"{100 * (g[i] / r[i] - 1):+.1f}" for i in range(3))
                    print(f"  {hosts} {routing} seed {seed}: htsim {r[0]:.2f} Gb/s, {r[1]:.0f} / {r[2]:.0f} µs; "
                          f"fluid {g[0]:.2f}, {g[1]:.0f} / {g[2]:.0f}; error {err} %", file=sys.stderr)
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
