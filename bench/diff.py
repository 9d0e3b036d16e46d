"""``fabricviz diff`` speed: a design against its own ibnetdiscover export read back, with a few
cables moved, on 2-level fat trees of growing size (goal: a thousand hosts in under 2 s).

Prints the hosts, the cables, the work counted by the engine (ports and cables looked at) and the
median seconds of ``diff_fabrics`` alone (reading the files is the readers' bench).
Run: .venv/bin/python bench/diff.py [HOSTS ...]
"""

import statistics
import sys
import time

from fabricviz.check.diff import diff_fabrics
from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads
from fabricviz.generate.fattree import fat_tree


def main(sizes):
    for hosts in sizes:
        d = fat_tree(levels=2, radix=64, hosts=hosts)
        f = loads(export_ibnetdiscover(d), "bench.ibnd")
        for port in ("leaf01:33", "leaf02:34"):          # two uplinks unplugged: differences to report
            f.remove_cables([f.port(port).cable.id])
        times, report = [], None
        for _ in range(3):
            t = time.perf_counter()
            report = diff_fabrics(d, f)
            times.append(time.perf_counter() - t)
        print(f"{hosts:>5} hosts  {d.counts()['cables']:>5} cables  {report.steps:>7,} steps  "
              f"{len(report.differences)} differences  median {statistics.median(times):.3f} s")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [128, 512, 1024, 2048])
