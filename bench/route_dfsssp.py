"""Benchmark: dfsssp routing time, ours against OpenSM 3.3.23's in the same run.

Run: python bench/route_dfsssp.py [--repeat 7] [--no-opensm]
Fabrics: a 4×4 torus (1 host per switch) and a k=8 fat tree (as tests/ib/topologies.py builds
them). Ours = median ``route_seconds`` of ``route(f, "dfsssp")`` (hop distances, SSSP LFTs, the
VL assignment; discovery and LIDs excluded, as OpenSM's routing phase). OpenSM = median of its
own routing time under ibsim (log flags 0x47: "building routing with 'dfsssp'" to "dfsssp
tables configured", which also queues the LFT blocks). Issue 14 asks for ≤ 2× OpenSM.
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

CASES = {"torus 4x4": lambda: T.torus_2d(4, 4, 1), "fat tree k=8": lambda: T.k_ary_fat_tree(8)}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--no-opensm", action="store_true")
    args = ap.parse_args()
    skip = "skipped (--no-opensm)" if args.no_opensm else oracle.opensm_available()
    if skip:
        print(f"OpenSM: {skip}")
    print(f"{'fabric':14s} {'switches':>8s} {'hosts':>6s} {'VLs':>4s} {'ours ms':>9s} {'OpenSM ms':>10s} {'ratio':>7s}")
    for name, make in CASES.items():
        text = make().text()
        f = loads(text, "topology.net", dialect=sniff(text))
        ours, vls, r = [], 0, None
        for _ in range(args.repeat):
            r = route(f, "dfsssp")
            ours.append(r.route_seconds)
            vls = r.info.get("vls_used", 0)
        assert r is not None
        theirs = None
        if not skip:
            with tempfile.TemporaryDirectory(prefix="fvz-bench-dfsssp-") as tmp:
                times = [oracle.run_opensm(text, "dfsssp", Path(tmp) / str(i), log_flags=0x47).route_seconds
                         for i in range(args.repeat)]
            theirs = statistics.median(t for t in times if t is not None)
        mine = statistics.median(ours)
        ratio = f"{mine / theirs:7.1f}×" if theirs else "      -"
        osm = f"{theirs * 1e3:10.2f}" if theirs else "         -"
        print(f"{name:14s} {r.subnet.num_switches:8d} {len(r.subnet.ca_ports):6d} {vls:4d} "
              f"{mine * 1e3:9.2f} {osm} {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
