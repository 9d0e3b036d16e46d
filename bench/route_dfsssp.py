"""Benchmark: dfsssp routing time, ours against OpenSM 3.3.23's in the same run.

Run: python bench/route_dfsssp.py [--repeat 7] [--no-opensm] [--quick]
Fabrics: 4×4 and 8×8 tori (1 host per switch) and k=8 and k=12 fat trees (as
tests/ib/topologies.py builds them; the 8×8 torus needs 9 VLs, so both OpenSM and fabricviz
refuse with ERR AD25 and route with minhop: "by" says which engine made the tables). Ours =
median ``route_seconds`` of ``route(f, "dfsssp")`` (hop distances, SSSP LFTs, the VL
assignment; discovery and LIDs excluded, as OpenSM's routing phase; the compiled kernels are
loaded before the timer). OpenSM = median of its own routing time under ibsim (log flags
0x47: "building routing with 'dfsssp'" to "tables configured", which also queues the LFT
blocks). Issue 14 asks for ≤ 2× OpenSM: PASS/FAIL per fabric, exit status 1 on any FAIL.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricviz.formats.ibnetdiscover import loads, sniff  # noqa: E402
from fabricviz.ib.routing import route  # noqa: E402
from tests.ib import oracle  # noqa: E402
from tests.ib import topologies as T  # noqa: E402

CASES = {"torus 4x4": lambda: T.torus_2d(4, 4, 1), "fat tree k=8": lambda: T.k_ary_fat_tree(8),
         "torus 8x8": lambda: T.torus_2d(8, 8, 1), "fat tree k=12": lambda: T.k_ary_fat_tree(12)}
QUICK = ("torus 4x4", "fat tree k=8")
TARGET = 2.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--no-opensm", action="store_true")
    ap.add_argument("--quick", action="store_true", help="only the torus 4x4 and the k=8 fat tree")
    args = ap.parse_args()
    skip = "skipped (--no-opensm)" if args.no_opensm else oracle.opensm_available()
    if skip:
        print(f"OpenSM: {skip}")
    print(f"{'fabric':14s} {'switches':>8s} {'hosts':>6s} {'VLs':>4s} {'by':>7s} {'ours ms':>9s} "
          f"{'OpenSM ms':>10s} {'ratio':>7s}  target <= {TARGET:g}x")
    failed = False
    for name, make in CASES.items():
        if args.quick and name not in QUICK:
            continue
        text = make().text()
        f = loads(text, "topology.net", dialect=sniff(text))
        ours, vls, r = [], 0, None
        for _ in range(args.repeat):
            r = route(f, "dfsssp")
            ours.append(r.route_seconds)
            vls = r.info.vls_used or 0
        assert r is not None
        theirs = None
        if not skip:
            with tempfile.TemporaryDirectory(prefix="fvz-bench-dfsssp-") as tmp:
                runs = [oracle.run_opensm(text, "dfsssp", Path(tmp) / str(i), log_flags=0x47)
                        for i in range(args.repeat)]
            assert all(x.routed_by == r.routed_by for x in runs), f"{name}: OpenSM routed by {runs[0].routed_by}"
            times = [x.route_seconds for x in runs if x.route_seconds is not None]
            theirs = statistics.median(times) if times else None
        mine = statistics.median(ours)
        verdict = ""
        if theirs:
            ok = mine <= TARGET * theirs
            failed |= not ok
            verdict = "PASS" if ok else "FAIL"
        ratio = f"{mine / theirs:7.2f}×" if theirs else "      -"
        osm = f"{theirs * 1e3:10.2f}" if theirs else "         -"
        print(f"{name:14s} {r.subnet.num_switches:8d} {len(r.subnet.ca_ports):6d} {vls or '-':>4} "
              f"{r.routed_by:>7s} {mine * 1e3:9.2f} {osm} {ratio}  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
