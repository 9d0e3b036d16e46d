"""Peak memory and wall time of the two big all-to-all runs on 3-level radix-16 InfiniBand fat trees of
256 and 1,024 single-GPU hosts (issue 17: ≤ 400 MB at 1,024):

* ``fabricviz collective --op alltoall --sizes 1GB``: transfers NIC to NIC (the default), with GPU to GPU
  (``Solver(nic_to_nic=False)``) as its peer;
* ``fabricviz simulate DESIGN --workload alltoall --model maxmin`` (sized flows: progressive max-min).

Each run is its own process (peak RSS from getrusage: the whole process, interpreter, numpy, scipy and
the subnet manager's compiled kernels included); wall time is the run's own (imports and building the
design excluded), the median of ``--repeat`` runs (default 3).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

COLLECTIVE = """
import resource, sys, time
from fabricviz.generate import fat_tree
from fabricviz.sim.collective import Solver, collective
f = fat_tree(levels=3, radix=16, hosts=int(sys.argv[1]), fabric="ib")
t = time.perf_counter()
r = collective(f, "alltoall", [1e9], solver=Solver(f, nic_to_nic=sys.argv[2] == "1"))
t = time.perf_counter() - t
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, t, repr(r.rows[0].busbw))
"""

SIMULATE = """
import contextlib, hashlib, io, resource, sys, time
from fabricviz.cli import main
out = io.StringIO()
t = time.perf_counter()
with contextlib.redirect_stdout(out):
    main(["simulate", sys.argv[1], "--workload", "alltoall", "--model", "maxmin", "--json"])
t = time.perf_counter() - t
digest = hashlib.sha1(out.getvalue().encode()).hexdigest()[:12]
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, t, digest)
"""


def child(code: str, *args: str) -> tuple[float, float, str]:
    out = subprocess.run([sys.executable, "-c", code, *args], check=True, capture_output=True, text=True).stdout
    rss, secs, digest = out.split()[-3:]
    return float(rss), float(secs), digest


def measure(code: str, repeat: int, *args: str) -> tuple[float, float, str]:
    """(peak RSS MB, median wall s, the result: busbw or the JSON summary's digest) of ``repeat`` runs."""
    runs = [child(code, *args) for _ in range(repeat)]
    assert len({r[2] for r in runs}) == 1, "a run's result changed between runs"
    return max(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[0][2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hosts", type=int, nargs="*", default=[256, 1024])
    args = ap.parse_args()
    from fabricviz.formats.native import save_fabric
    from fabricviz.generate import fat_tree
    with tempfile.TemporaryDirectory() as tmp:
        for hosts in args.hosts:
            lean = measure(COLLECTIVE, args.repeat, str(hosts), "1")
            plain = measure(COLLECTIVE, args.repeat, str(hosts), "0")
            print(f"collective alltoall 1 GB, {hosts} GPUs: peak RSS {lean[0]:.0f} MB NIC to NIC, {plain[0]:.0f} MB "
                  f"GPU to GPU (ratio {lean[0] / plain[0]:.2f}); median {lean[1]:.2f} s vs {plain[1]:.2f} s "
                  f"(ratio {lean[1] / plain[1]:.2f}); busbw {float(lean[2]):.6f} vs {float(plain[2]):.6f} GB/s")
            design = Path(tmp) / f"ft{hosts}.json"
            save_fabric(fat_tree(levels=3, radix=16, hosts=hosts, fabric="ib"), design)
            rss, secs, digest = measure(SIMULATE, args.repeat, str(design))
            print(f"simulate --workload alltoall --model maxmin, {hosts} hosts: peak RSS {rss:.0f} MB, "
                  f"median {secs:.2f} s (summary {digest})")


if __name__ == "__main__":
    main()
