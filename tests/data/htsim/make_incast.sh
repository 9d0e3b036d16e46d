#!/usr/bin/env bash
# Regenerate incast_roce.csv (not run by CI: CI cannot fetch htsim).
#
#   HTSIM=/path/to/csg-htsim/sim  bash make_incast.sh
#
# htsim 841d9e7 as make_reference.sh. Issue 30's incast on the radix-8 3-level tree: 16 senders ->
# host 0, 1,000,000 B each (transports/incast.cm), RoCE without congestion control on htsim's
# lossless queues, 100 Gb/s, ECMP per flow (ecmp_host, 256 paths), htsim's own latencies; seeds
# 13, 1, 2 (the transports' seeds) and 3-12 (the spread between seeds is wide: mean rate 7.2-9.0 Gb/s).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${HTSIM:?set HTSIM to csg-htsim/sim}"
work=$(mktemp -d)
gcc -shared -fPIC -O2 -o "$work/fixtime.so" "$here/fixtime.c"
out="$work/incast_roce.csv"
echo "hosts,seed,routing,src,dst,bytes,fct_us" > "$out"
for seed in 13 1 2 3 4 5 6 7 8 9 10 11 12; do
  (cd "$work" && LD_PRELOAD="$work/fixtime.so" "$HTSIM/datacenter/htsim_roce" -nodes 128 -tiers 3 -conns 16 \
    -tm "$here/transports/incast.cm" -strat ecmp_host -paths 256 -host_queue_type prio -linkspeed 100000 \
    -seed $seed -end 100000 -o "$work/log.dat" > "$work/run.txt" 2>&1)
  python3 "$here/parse_htsim.py" "$work/run.txt" "$here/transports/incast.cm" 128 $seed ecmp_host >> "$out"
done
mv "$out" "$here/incast_roce.csv"
rm -rf "$work"
