"""Benchmark: generate and save a k=32 fat tree (8,192 hosts), measure memory per cable.

Run: python bench/gen_save.py [--k 32] [--repeat 5]
Goals (issue: foundation): generation + save <= 2 s, model <= 200 bytes per cable.
Prints medians over the repeats; these machines are noisy.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from fabricviz.formats.native import load_fabric, save_fabric  # noqa: E402
from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.model import Catalog  # noqa: E402


def model_bytes(k: int) -> tuple[int, int]:
    """(bytes the fabric holds, cables): tracemalloc around generation, imports done first."""
    Catalog.default()
    k_ary_fat_tree(4)                       # warm caches and lazy imports
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    f = k_ary_fat_tree(k)
    gc.collect()
    held = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return held, f.counts()["cables"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    gen, save, load = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.fabric.json")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            f = k_ary_fat_tree(args.k)
            t1 = time.perf_counter()
            save_fabric(f, path)
            t2 = time.perf_counter()
            load_fabric(path)
            t3 = time.perf_counter()
            gen.append(t1 - t0)
            save.append(t2 - t1)
            load.append(t3 - t2)
        size = os.path.getsize(path)
    held, cables = model_bytes(args.k)
    c = f.counts()
    total = [g + s for g, s in zip(gen, save, strict=True)]
    print(f"k={args.k} fat tree: {c['nic']:,} hosts, {c['ib_switch']:,} switches, {cables:,} cables, "
          f"{len(f):,} devices")
    print(f"generate      median {statistics.median(gen):.3f} s")
    print(f"save          median {statistics.median(save):.3f} s  ({size / 1e6:.1f} MB file)")
    print(f"generate+save median {statistics.median(total):.3f} s  goal 2.0 s  "
          f"ratio {statistics.median(total) / 2.0:.2f}")
    print(f"load          median {statistics.median(load):.3f} s")
    print(f"model memory  {held / 1e6:.2f} MB = {held / cables:.0f} B per cable  goal 200 B  "
          f"ratio {held / cables / 200:.2f}  (numpy tables alone: {f.nbytes() / cables:.0f} B)")


if __name__ == "__main__":
    main()
