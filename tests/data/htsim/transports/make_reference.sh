#!/usr/bin/env bash
# Regenerate the transport reference figures in this folder (not run by CI: CI cannot fetch htsim).
#
#   HTSIM=/path/to/csg-htsim/sim  bash make_reference.sh
#
# htsim: github.com/Broadcom/csg-htsim at 841d9e7, `make` in sim/ and sim/datacenter (htsim_eqds,
# htsim_ndp, htsim_hpcc). All three seed their own RNG with -seed (default 13); HpccSrc also calls
# srand(time(NULL)) per flow, so every run is pinned to one time() by ../fixtime.c.
#
# Topology: htsim's 3-level fat tree of radix 8 (128 hosts), 100 Gb/s, with the latencies export-htsim
# writes for `generate fat-tree --levels 3 --radix 8 --fabric roce --speed 100GbE --switch SN4700`
# (-hop_latency 0.105 -switch_latency 0.45; HOP=1 SWITCH=0 gives htsim's defaults), each binary's
# own defaults otherwise (seeds 13, 1, 2 each: the figures are compared as means over the seeds):
#   htsim_eqds  -strat ecmp_host is the default (per packet: 64 path entropies, -paths), queue 35
#               packets of MTU 4150 that trim, first window 50 packets, pull per 4096 B
#   htsim_ndp   -strat perm (per packet: a random permutation of the paths), queue 15 × 9000 B
#               that trims, window 15 packets
#   htsim_hpcc  -strat ecmp_host -paths 256 (per flow), lossless input queues 15 packets (PFC)
# Workloads (make_cm.py): perm (4,000,000 B, htsim's own perm-128-1.cm one level up), perm16 (a
# permutation of 16,000,000 B), shuffle (4 permutations of 2,000,000 B), incast (16 → host 0 of
# 1,000,000 B). Wall seconds of each run go to wall.csv.
set -euo pipefail
HOP=${HOP:-0.105} SWITCH=${SWITCH:-0.45}
here=$(cd "$(dirname "$0")" && pwd)
: "${HTSIM:?set HTSIM to csg-htsim/sim}"
work=$(mktemp -d)
gcc -shared -fPIC -O2 -o "$work/fixtime.so" "$here/../fixtime.c"
cp "$here/../perm-128-1.cm" "$here/perm.cm"
python3 "$here/make_cm.py" perm "$here/perm16.cm" 2 16000000
python3 "$here/make_cm.py" shuffle "$here/shuffle.cm" 1
python3 "$here/make_cm.py" incast "$here/incast.cm" 1
out="$work/reference.csv"
echo "transport,workload,seed,src,dst,bytes,fct_us" > "$out"
wall="$work/wall.csv"
echo "transport,workload,seed,wall_s" > "$wall"
for t in eqds ndp hpcc; do
  case $t in
    eqds) flags="-tiers 3" ;;
    ndp)  flags="-tiers 3 -strat perm" ;;
    hpcc) flags="-strat ecmp_host -paths 256" ;;          # htsim_hpcc has no -tiers: always 3
  esac
  for w in perm perm16 shuffle incast; do
    cm="$here/$w.cm"
    n=$(sed -n 's/^Connections //p' "$cm")
    for seed in 13 1 2; do
      s=$(date +%s.%N)
      (cd "$work" && LD_PRELOAD="$work/fixtime.so" "$HTSIM/datacenter/htsim_$t" -nodes 128 -conns "$n" -tm "$cm" \
        $flags -seed $seed -hop_latency $HOP -switch_latency $SWITCH -linkspeed 100000 -end 100000 -o "$work/log.dat" > "$work/run.txt")
      e=$(date +%s.%N)
      python3 "$here/parse.py" "$work/run.txt" "$cm" $t $w $seed >> "$out"
      echo "$t,$w,$seed,$(python3 -c "print(f'{$e - $s:.2f}')")" >> "$wall"
      [ $t = hpcc ] && echo "$t,$w: LOSSLESS not working! printed $(grep -c 'LOSSLESS not working' "$work/run.txt" || true) times" >&2
    done
  done
done
# htsim's own latencies (1 us per hop, no switch latency) on perm.cm: the figures of issue 30, where
# NDP's window limits it
dflt="$work/defaults.csv"
echo "transport,workload,seed,src,dst,bytes,fct_us" > "$dflt"
for t in eqds ndp hpcc; do
  case $t in
    eqds) flags="-tiers 3" ;;
    ndp)  flags="-tiers 3 -strat perm" ;;
    hpcc) flags="-strat ecmp_host -paths 256" ;;
  esac
  for seed in 13 1 2; do
    (cd "$work" && LD_PRELOAD="$work/fixtime.so" "$HTSIM/datacenter/htsim_$t" -nodes 128 -conns 128 -tm "$here/perm.cm" \
      $flags -seed $seed -linkspeed 100000 -end 100000 -o "$work/log.dat" > "$work/run.txt")
    python3 "$here/parse.py" "$work/run.txt" "$here/perm.cm" $t perm $seed >> "$dflt"
  done
done
mv "$dflt" "$here/defaults.csv"
mv "$out" "$here/reference.csv"
mv "$wall" "$here/wall.csv"
rm -rf "$work"
