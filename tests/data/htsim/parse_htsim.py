"""Rows hosts,seed,routing,src,dst,bytes,fct_us from one htsim_roce run's stdout.

Each connection prints "Flow Roce_SRC_DST ID finished at T total bytes B" (T in µs from 0; every
flow of these matrices starts at 0). Every flow of the matrix must finish, else the run is refused.
"""
import re
import sys

run, cm, hosts, seed, routing = sys.argv[1:6]
want = sum(1 for line in open(cm) if "->" in line)
rows = []
for line in open(run):
    m = re.match(r"Flow Roce_(\d+)_(\d+) \d+ finished at ([\d.e+-]+) total bytes (\d+)", line)
    if m:
        rows.append(f"{hosts},{seed},{routing},{m[1]},{m[2]},{m[4]},{float(m[3]):.3f}")
if len(rows) != want:
    sys.exit(f"{run}: {len(rows)} of {want} flows finished")
print("\n".join(rows))
