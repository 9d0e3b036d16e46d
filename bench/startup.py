"""Benchmark: wall time of short ``fabricviz`` commands, against ``python -c pass`` in the same run.

Run: python bench/startup.py [--repeat 5] [--tree DIR [--tree DIR2 ...]]

Each command is a fresh ``python -m fabricviz …`` process; the rounds interleave the commands so
a change in machine load hits all of them alike. Bytecode is cached in a temporary
PYTHONPYCACHEPREFIX (warmed once per command), as an installed package would have it, even when
the environment sets PYTHONDONTWRITEBYTECODE; the source tree is never written. ``--tree DIR``
times the fabricviz package under DIR (e.g. an export of an older commit) with this interpreter;
given more than once, the trees take turns within every round (before/after under the same load)
and each row shows its ratio to the first tree's.

Target (issue 16 "Speed"): ``--help`` and the small ``simulate`` runs (a ring and a max-min
permutation on the RoCE leaf-spine, a static-routed permutation on the InfiniBand k=4 fat tree) each
< 0.4 s wall (median), printed as PASS/FAIL; ``route`` and ``lint`` on small designs are printed for
reference.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.4
#: (label, fabricviz arguments, has a target); ``{s}``/``{ft}``: the small designs.
COMMANDS = (("--help", ["--help"], True),
            ("simulate small", ["simulate", "{s}", "--workload", "ring"], True),
            ("simulate roce", ["simulate", "{s}", "--workload", "permutation", "--model", "maxmin"], True),
            ("simulate ib", ["simulate", "{ft}", "--workload", "permutation", "--routing", "static"], True),
            ("route small", ["route", "{ft}"], False),
            ("lint small", ["lint", "{s}"], False))


def _timed(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--tree", type=Path, action="append",
                    help="directory holding the fabricviz package (default: this checkout); repeatable")
    a = ap.parse_args()
    trees = [t.resolve() for t in a.tree or [ROOT]]
    with tempfile.TemporaryDirectory(prefix="fv-startup-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
        env["QT_QPA_PLATFORM"] = "offscreen"
        fv = [sys.executable, "-m", "fabricviz"]
        designs = {"s": str(Path(tmp) / "s.json"), "ft": str(Path(tmp) / "ft.json")}
        for args in (["generate", "leaf-spine", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2",
                      "-o", designs["s"]],
                     ["generate", "fat-tree", "--radix", "4", "--fabric", "ib", "-o", designs["ft"]]):
            subprocess.run(fv + args, cwd=trees[0], env=env, check=True, stdout=subprocess.DEVNULL)
        runs = {"python -c pass": [sys.executable, "-c", "pass"]}
        runs.update({label: fv + [x.format(**designs) for x in args] for label, args, _ in COMMANDS})
        for tree in trees:                              # warm the bytecode cache and the OS file cache
            for argv in runs.values():
                _timed(argv, tree, env)
        times = {tree: {label: [] for label in runs} for tree in trees}
        for _ in range(a.repeat):
            for label, argv in runs.items():
                for tree in trees:
                    times[tree][label].append(_timed(argv, tree, env))
    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; median of {a.repeat}")
    ok = True
    first = {label: statistics.median(ts) for label, ts in times[trees[0]].items()}
    for tree in trees:
        print(f"tree {tree}")
        peer = statistics.median(times[tree]["python -c pass"])
        print(f"{'command':<16} {'median s':>9} {'min s':>7} {'- peer s':>9}"
              + (f" {'/ first':>8}" if len(trees) > 1 else "") + "  target")
        for label, ts in times[tree].items():
            med = statistics.median(ts)
            verdict = ""
            if any(label == c[0] and c[2] for c in COMMANDS):
                passed = med < TARGET_S
                ok &= passed
                verdict = f"{'PASS' if passed else 'FAIL'} (< {TARGET_S} s)"
            ratio = f" {med / first[label]:8.2f}" if len(trees) > 1 else ""
            print(f"{label:<16} {med:9.3f} {min(ts):7.3f} {med - peer:9.3f}{ratio}  {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
