"""Lint speed: median seconds of ``lint`` on k-ary fat trees (goal: < 2 s at k=16).

Prints the routing-cell count that decides whether the routing rules run
(fabricviz.check.lint.ROUTE_LIMIT) next to each time, so the limit can be re-measured.
Run: .venv/bin/python bench/lint.py [K ...]
"""

import statistics
import sys
import time

from fabricviz.check.lint import ROUTE_LIMIT, LintContext, lint
from fabricviz.generate.fattree import k_ary_fat_tree


def main(ks):
    for k in ks:
        f = k_ary_fat_tree(k)
        cells = LintContext(f).route_cells
        times = []
        for _ in range(3):
            t = time.perf_counter()
            lint(f, full=True)
            times.append(time.perf_counter() - t)
        print(f"k={k:<3} {f.counts()['ib_switch']:>5} switches  {cells:>12,} LFT cells "
              f"({'routed' if cells <= ROUTE_LIMIT else 'skipped by default'})  "
              f"median {statistics.median(times):.3f} s")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [8, 16, 20, 24])
