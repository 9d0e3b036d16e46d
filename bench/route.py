"""Benchmark: route k-ary fat trees with each engine; compare with OpenSM's own routing time.

Run: python bench/route.py [--k 8 16 24 32] [--big] [--repeat 3] [--no-opensm]
Prints median seconds (compute only: hop tables + LFTs, as OpenSM's routing phase)
and, where ibsim can hold the fabric (≤ 256 switches) and opensm/ibsim-utils are
installed, OpenSM's routing time for the same fabric and the ratio ours/OpenSM.
Goals (issue 3): ours ≤ 1.0× OpenSM; k=32 in ≤ 2 s. ``--big`` adds the largest
single IB subnet a radix-64 3-level tree can be (44,032 hosts, 3,776 switches).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "ib"))

from fabricviz.build import fat_tree, k_ary_fat_tree  # noqa: E402
from fabricviz.ib.routing import route  # noqa: E402

ENGINES = ("minhop", "updn", "ftree")


def ours(fabric, engine: str, repeat: int) -> tuple[float, float, str]:
    """(median route_seconds, median wall seconds incl. discovery and LIDs, routed_by)."""
    compute, wall, by = [], [], ""
    for _ in range(repeat):
        t = time.perf_counter()
        r = route(fabric, engine)
        wall.append(time.perf_counter() - t)
        compute.append(r.route_seconds)
        by = r.routed_by
    return statistics.median(compute), statistics.median(wall), by


def opensm_seconds(fabric, engine: str, repeat: int) -> float | None:
    try:
        import oracle
        from fabricviz.formats.ibnetdiscover import export_ibnetdiscover
    except ImportError:
        return None
    if oracle.opensm_available() is not None or fabric.counts()["ib_switch"] > 256:
        return None
    text = export_ibnetdiscover(fabric)
    times = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            res = oracle.run_opensm(text, engine, Path(tmp), timeout=600, log_flags=0x47)
            if res.route_seconds is not None:
                times.append(res.route_seconds)
    return statistics.median(times) if times else None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, nargs="*", default=[8, 12, 16, 24, 32])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--no-opensm", action="store_true")
    ap.add_argument("--engines", nargs="*", default=list(ENGINES))
    args = ap.parse_args()
    cases = [(f"k={k} ({k ** 3 // 4:,} hosts, {5 * k * k // 4:,} switches)", lambda k=k: k_ary_fat_tree(k))
             for k in args.k]
    if args.big:
        cases.append(("radix-64 3-level, 44,032 hosts, 3,776 switches (IB-legal max)",
                      lambda: fat_tree(levels=3, radix=64, hosts=44032)))
    print(f"{'fabric':<58} {'engine':<7} {'by':<7} {'ours s':>8} {'wall s':>8} {'OpenSM s':>9} {'ratio':>6}")
    for label, build in cases:
        f = build()
        for e in args.engines:
            try:
                c, w, by = ours(f, e, args.repeat)
            except ModuleNotFoundError as exc:   # an engine not built yet
                print(f"{label:<58} {e:<7} skipped: {exc}")
                continue
            o = None if args.no_opensm else opensm_seconds(f, e, args.repeat)
            ratio = f"{c / o:.2f}" if o else "-"
            os_txt = f"{o:.3f}" if o else "-"
            print(f"{label:<58} {e:<7} {by:<7} {c:>8.3f} {w:>8.3f} {os_txt:>9} {ratio:>6}", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
