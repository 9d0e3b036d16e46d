#!/usr/bin/env bash
# The one more shape of issue 30: the transport references on htsim's 3-level fat tree of radix 12
# (432 hosts; not run by CI: CI cannot fetch htsim).
#
#   HTSIM=/path/to/csg-htsim/sim  bash make_reference_432.sh
#
# As make_reference.sh (same htsim 841d9e7, same binaries, flags and ../fixtime.c), with -nodes 432:
# export-htsim writes the same latencies for `generate fat-tree --levels 3 --radix 12 --fabric roce
# --speed 100GbE --switch SN4700` (-hop_latency 0.105 -switch_latency 0.45) as for radix 8.
# Workloads: perm432.cm = htsim's own perm-432-1.cm one level up (gen_permutation.py seed 1, 4,000,000 B
# per host); incast432.cm = make_cm.py incast with HOSTS=432 (16 random senders → host 0, 1,000,000 B,
# seed 1). Seeds 13, 1, 2 each. Figures go to reference_432.csv, wall seconds to wall_432.csv.
# Each run is held to 8 GB of address space (prlimit --as) and they run one at a time.
set -euo pipefail
HOP=${HOP:-0.105} SWITCH=${SWITCH:-0.45}
here=$(cd "$(dirname "$0")" && pwd)
: "${HTSIM:?set HTSIM to csg-htsim/sim}"
work=$(mktemp -d)
gcc -shared -fPIC -O2 -o "$work/fixtime.so" "$here/../fixtime.c"
cp "$here/../perm-432-1.cm" "$here/perm432.cm"
HOSTS=432 python3 "$here/make_cm.py" incast "$here/incast432.cm" 1
out="$work/reference_432.csv"
echo "transport,workload,seed,src,dst,bytes,fct_us" > "$out"
wall="$work/wall_432.csv"
echo "transport,workload,seed,wall_s" > "$wall"
for t in eqds ndp hpcc; do
  case $t in
    eqds) flags="-tiers 3" ;;
    ndp)  flags="-tiers 3 -strat perm" ;;
    hpcc) flags="-strat ecmp_host -paths 256" ;;          # htsim_hpcc has no -tiers: always 3
  esac
  for w in perm432 incast432; do
    cm="$here/$w.cm"
    n=$(sed -n 's/^Connections //p' "$cm")
    for seed in ${SEEDS:-13 1 2}; do
      s=$(date +%s.%N)
      (cd "$work" && LD_PRELOAD="$work/fixtime.so" prlimit --as=8589934592 "$HTSIM/datacenter/htsim_$t" -nodes 432 \
        -conns "$n" -tm "$cm" $flags -seed $seed -hop_latency $HOP -switch_latency $SWITCH -linkspeed 100000 \
        -end 100000 -o "$work/log.dat" > "$work/run.txt")
      e=$(date +%s.%N)
      python3 "$here/parse.py" "$work/run.txt" "$cm" $t $w $seed >> "$out"
      echo "$t,$w,$seed,$(python3 -c "print(f'{$e - $s:.2f}')")" >> "$wall"
      echo "$t,$w,$seed done" >&2
    done
  done
done
mv "$out" "$here/reference_432.csv"
mv "$wall" "$here/wall_432.csv"
rm -rf "$work"
