#!/usr/bin/env bash
# Regenerate the htsim_roce shuffle figures in this folder (not run by CI: CI cannot fetch htsim).
#
#   HTSIM=/path/to/csg-htsim/sim  bash make_shuffle.sh
#
# htsim: github.com/Broadcom/csg-htsim at 841d9e7, built with `make` in sim/ (as make_reference.sh).
# The case (issue 30): the radix-8 3-level fat tree (128 hosts), a 4-permutation shuffle — four of
# htsim's own gen_permutation.py matrices (seeds 10S+1 … 10S+4, 2,000,000 B per flow, all at t=0)
# in one connection matrix, so every host sends 4 flows and receives 4 (512 flows) — for S = 1, 2, 3;
# RoCE without congestion control on htsim's lossless queues, 100 Gb/s, routing ecmp_ar (adaptive
# per flowlet) and ecmp_host (ECMP per flow). time() is pinned by fixtime.c as in make_reference.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${HTSIM:?set HTSIM to csg-htsim/sim}"
work=$(mktemp -d)
gcc -shared -fPIC -O2 -o "$work/fixtime.so" "$here/fixtime.c"
out="$work/shuffle.csv"
echo "hosts,seed,routing,src,dst,bytes,fct_us" > "$out"
wall="$work/shuffle_wall.csv"
echo "hosts,seed,routing,wall_s" > "$wall"
for seed in 1 2 3; do
  cm="$here/shuffle-128-$seed.cm"
  : > "$work/all"
  for k in 1 2 3 4; do
    python3 "$HTSIM/datacenter/connection_matrices/gen_permutation.py" "$work/p.cm" 128 128 2000000 0 $((10 * seed + k)) >/dev/null
    grep -- "->" "$work/p.cm" >> "$work/all"
  done
  { echo "Nodes 128"; echo "Connections 512"; awk '{ $3 = NR; print }' "$work/all"; } > "$cm"
  for strat in ${STRATS:-ecmp_ar ecmp_host}; do
    extra=""; [ $strat = ecmp_host ] && extra="-paths 256"
    t0=$(date +%s.%N)
    (cd "$work" && LD_PRELOAD="$work/fixtime.so" "$HTSIM/datacenter/htsim_roce" -nodes 128 -tiers 3 -conns 512 \
      -tm "$cm" -strat $strat $extra -host_queue_type prio -linkspeed 100000 -end 100000 \
      -o "$work/log.dat" > "$work/run.txt")
    t1=$(date +%s.%N)
    python3 "$here/parse_htsim.py" "$work/run.txt" "$cm" 128 $seed $strat >> "$out"
    echo "128,$seed,$strat,$(python3 -c "print(round($t1 - $t0, 1))")" >> "$wall"
  done
done
mv "$out" "$here/shuffle.csv"
mv "$wall" "$here/shuffle_wall.csv"
rm -rf "$work"
