"""Rows transport,workload,seed,src,dst,bytes,fct_us from one htsim run's stdout (htsim_eqds,
htsim_ndp, htsim_hpcc print "Flow NAME_SRC_DST ... finished at T ... total bytes B"; T in µs
from 0, every flow starts at 0). Every flow of the matrix must finish, else the run is refused."""
import re
import sys

run, cm, transport, workload, seed = sys.argv[1:6]
want = sum(1 for line in open(cm) if "->" in line)
rows = []
for line in open(run):
    m = re.match(r"Flow [A-Za-z]+_(\d+)_(\d+) .*finished at ([\d.e+-]+) .*total bytes (\d+)", line)
    if m:
        rows.append(f"{transport},{workload},{seed},{m[1]},{m[2]},{m[4]},{float(m[3]):.3f}")
if len(rows) != want:
    sys.exit(f"{run}: {len(rows)} of {want} flows finished")
print("\n".join(rows))
