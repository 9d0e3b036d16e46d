#!/bin/bash
# Capture real perfquery / ibqueryerrors output from infiniband-diags under ibsim (the files
# beside this script). Needs: apt-get install -y ibsim-utils opensm infiniband-diags
#   capture.sh OUTDIR
# The fabric is ibsim's net-examples/net.2sw2path4hca (tests/data/... ibsim_net.2sw2path4hca.net):
# OpenSM (run once, -o) assigns LIDs Switch1=1 Hca1=2 Switch2=3 Hca2=4 Hca3=5 Hca4=6; then ibsim's
# console command `PerformanceSet "node"[port] PortCounters.<field>=<value>` sets counters between
# two snapshots (t0, t1).
set -eu
net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
out=$(mkdir -p "$1" && readlink -f "$1"); work=$(mktemp -d)
cd "$work"; mkfifo fifo; exec 3<>fifo
ibsim -s "$net" <&3 >ibsim.log 2>&1 & sim=$!
trap 'kill $sim 2>/dev/null; rm -rf "$work"' EXIT
sleep 2
OSM_TMP_DIR=$work OSM_CACHE_DIR=$work timeout 120 ibsim-run opensm -o -f "$work/osm.log" >/dev/null 2>&1
set_pc() { echo "PerformanceSet \"$1\"[$2] PortCounters.$3=$4" >&3; }
q() { ibsim-run "$@" 2>/dev/null || true; }   # ibqueryerrors exits 1 when it found errors
snapshot() {  # every port of every node, basic counters (what a per-LID perfquery loop gives)
  q perfquery -l 1 255; q perfquery -l 3 255
  for lid in 2 4 5 6; do q perfquery "$lid" 1; done
}
# t0
set_pc Switch1 3 SymbolErrorCounter 1234
set_pc Switch1 3 LinkErrorRecoveryCounter 7
set_pc Switch1 5 LinkDownedCounter 3
set_pc Switch2 5 LinkDownedCounter 1
set_pc Hca2 1 SymbolErrorCounter 40
set_pc Hca2 1 PortRcvErrors 42
set_pc Switch2 1 PortXmitDiscards 9
set_pc Switch2 1 PortXmitWait 123456
set_pc Hca3 1 PortXmitWait 5000
sleep 1
q perfquery 1 3 > "$out/perfquery_lid1_port3.txt"
q perfquery -x 1 3 > "$out/perfquery_x_lid1_port3.txt"
q perfquery -x -l 3 1,3 > "$out/perfquery_x_lid3_ports1_3.txt"
q perfquery -a 1 > "$out/perfquery_a_lid1.txt"
q perfquery 1 1,3 > "$out/perfquery_lid1_ports1_3.txt"
snapshot > "$out/perfquery_t0.txt"
q ibqueryerrors --skip-sl > "$out/ibqueryerrors_t0.txt"
q ibqueryerrors --skip-sl -r --data --details > "$out/ibqueryerrors_r_data.txt"
q ibqueryerrors --skip-sl --counters > "$out/ibqueryerrors_counters.txt"
q ibqueryerrors --skip-sl -c --ca > "$out/ibqueryerrors_c_ca.txt"
# t1: the same ports some time later
set_pc Switch1 3 SymbolErrorCounter 1534
set_pc Hca2 1 PortRcvErrors 52
set_pc Switch2 1 PortXmitWait 723456
set_pc Switch2 2 SymbolErrorCounter 65535
sleep 1
snapshot > "$out/perfquery_t1.txt"
q ibqueryerrors --skip-sl > "$out/ibqueryerrors_t1.txt"
echo "captured into $out"
