#!/usr/bin/env bash
# Regenerate the htsim_roce reference figures in this folder (not run by CI: CI cannot fetch htsim).
#
#   HTSIM=/path/to/csg-htsim/sim  bash make_reference.sh
#
# htsim: github.com/Broadcom/csg-htsim at 841d9e7, built with `make` in sim/ (which builds
# sim/datacenter too). RoceSrc's constructor calls srand(time(NULL)), so every run is pinned to
# one time() by the LD_PRELOAD shim fixtime.c in this folder; with it a run repeats exactly.
#
# The cases: 3-level fat trees of radix 8 (128 hosts) and radix 12 (432 hosts), htsim's own
# gen_permutation.py (all hosts send, 4,000,000 bytes each, all start at 0, seeds 1..5),
# RoCE without congestion control on lossless input queues (htsim's defaults: PFC pause above 15
# packets held, resume below 12; MTU 9000; 1 us per hop; no switch latency), 100 Gb/s, and three
# routings: ecmp_host (ECMP hash per flow), ecmp_ar (adaptive per flowlet, 10 us sticky gap) and
# ecmp_rr (per-packet round robin). -host_queue_type prio because ecmp_rr aborts with the default
# fair_prio (FairPriorityQueue::beginService assertion); ecmp_host and ecmp_ar give the same
# figures with either.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${HTSIM:?set HTSIM to csg-htsim/sim}"
work=$(mktemp -d)
gcc -shared -fPIC -O2 -o "$work/fixtime.so" "$here/fixtime.c"
out="$work/reference.csv"                # moved in place when every run is done
echo "hosts,seed,routing,src,dst,bytes,fct_us" > "$out"
# htsim_roce's closing "Rtx: N": bytes resent by go-back-N, summed in a C int — past 2^31 it wraps
# (negative), so only values in 0 … 2^31 − 1 are byte counts
rtx="$work/retransmits.csv"
echo "hosts,seed,routing,retransmitted_bytes" > "$rtx"
for hosts in 128 432; do
  for seed in 1 2 3 4 5; do
    cm="$here/perm-$hosts-$seed.cm"
    python3 "$HTSIM/datacenter/connection_matrices/gen_permutation.py" "$cm" $hosts $hosts 4000000 0 $seed >/dev/null
    for strat in ecmp_host ecmp_ar ecmp_rr; do
      extra=""; [ $strat = ecmp_host ] && extra="-paths 256"
      (cd "$work" && LD_PRELOAD="$work/fixtime.so" "$HTSIM/datacenter/htsim_roce" -nodes $hosts -tiers 3 -conns $hosts \
        -tm "$cm" -strat $strat $extra -host_queue_type prio -linkspeed 100000 -end 30000 \
        -o "$work/log.dat" > "$work/run.txt")          # in $work: htsim writes idmap.txt where it runs
      python3 "$here/parse_htsim.py" "$work/run.txt" "$cm" $hosts $seed $strat >> "$out"
      echo "$hosts,$seed,$strat,$(sed -n 's/.*Rtx: \(-\{0,1\}[0-9]*\).*/\1/p' "$work/run.txt")" >> "$rtx"
    done
  done
done
mv "$out" "$here/reference.csv"
mv "$rtx" "$here/retransmits.csv"
rm -rf "$work"
