"""The max-min model over PFC against htsim_roce: per-flow max-min, input ports served in turn on the
links into hosts (the model, fabricviz/sim/portfair.py), and input ports in turn on every link.

Run: python bench/portfair_compare.py [--seeds N]

The radix-8 3-level RoCE tree of bench/htsim_compare.py, ECMP, go-back-N, no CC: issue 30's incast
(16 senders -> host 0, 1 MB; tests/data/htsim/incast_roce.csv, 13 htsim seeds), htsim's five
4 MB permutations (reference.csv, ecmp_host) and the three 4x2 MB shuffles (shuffle.csv,
ecmp_host). Prints per workload and variant the mean over seeds of mean per-flow Gb/s, median and
slowest FCT (us), and the error against htsim. The model's seeds are 0..N-1 (its own ECMP hash).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.dirname(__file__))


def main() -> None:
    import htsim_compare as hc

    from fabricviz.sim import engine, maxmin, portfair
    from fabricviz.sim.fct import flow_times
    from fabricviz.sim.workloads import Flows
    default = engine._last_hop_fill
    VARIANTS = (("per flow", lambda fab, links: maxmin.maxmin_paths),
                ("port turns into hosts (the model)", default),
                ("port turns everywhere", lambda fab, links: portfair.portfair_paths))
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=13, help="incast seeds (htsim has 13 stored)")
    a = ap.parse_args()
    f = hc.design(128)

    def incast(_seed: int) -> Flows:
        pairs = [ln.split()[0].split("->") for ln in open(os.path.join(hc.HERE, "transports", "incast.cm"))
                 if "->" in ln]
        return Flows(np.array([f.find(f"node{int(s) + 1:03d}/mlx5_0") for s, _ in pairs]),
                     np.array([f.find(f"node{int(d) + 1:03d}/mlx5_0") for _, d in pairs]), np.full(len(pairs), 1e6))

    def rows(name: str, **want: str) -> list[dict[str, str]]:
        with open(os.path.join(hc.HERE, name)) as fh:
            return [r for r in csv.DictReader(fh) if all(r[k] == v for k, v in want.items())]

    def ref(rs: list[dict[str, str]]) -> tuple[float, float, float]:
        return hc.stats(np.array([float(r["fct_us"]) for r in rs]), np.array([float(r["bytes"]) for r in rs]))

    inc_seeds = sorted({r["seed"] for r in rows("incast_roce.csv")}, key=lambda s: (s != "13", int(s)))[:a.seeds]
    cases = [("incast 16:1 1 MB", [ref(rows("incast_roce.csv", seed=s)) for s in inc_seeds], incast),
             ("permutation 4 MB", [ref(rows("reference.csv", hosts="128", seed=str(s), routing="ecmp_host"))
                                   for s in range(1, 6)], lambda s: hc.flows_of(f, 128, s + 1)),
             ("shuffle 4x2 MB", [ref(rows("shuffle.csv", seed=str(s), routing="ecmp_host")) for s in (1, 2, 3)],
              lambda s: hc.shuffle_flows(f, s + 1))]
    print("| workload | model | htsim (Gb/s / median / slowest) | model | error |")
    print("|---|---|---|---|---|")
    for name, refs, make in cases:
        h = np.mean(refs, axis=0)
        for label, fill in VARIANTS:
            engine._last_hop_fill = fill                  # the engine's single-path solver on Ethernet
            got = []
            for s in range(len(refs)):
                res = engine.simulate(f, make(s), "ecmp", "maxmin", transport="roce-gbn", seed=s)
                ft = flow_times(res)
                assert ft is not None
                got.append(hc.stats(ft.fct_s * 1e6, ft.bytes))
            m = np.mean(got, axis=0)
            err = " / ".join(f"{100 * (x / y - 1):+.1f} %" for x, y in zip(m, h, strict=True))
            print(f"| {name} ({len(refs)} seeds) | {label} | {h[0]:.2f} / {h[1]:.0f} / {h[2]:.0f} | "
                  f"{m[0]:.2f} / {m[1]:.0f} / {m[2]:.0f} | {err} |")
        engine._last_hop_fill = default


if __name__ == "__main__":
    main()
