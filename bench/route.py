"""Benchmark: route k-ary fat trees with each engine; compare with OpenSM's own routing time.

Run: python bench/route.py [--k 8 12 16 24 32] [--big] [--repeat 5] [--no-opensm]

``ours s`` is the median ``Routing.route_seconds``: OpenSM's routing phase (hop tables, the
engine and any fallback, the LFTs; not discovery or LIDs, which ``wall s`` adds). ``OpenSM s``
is OpenSM 3.3's time for the same fabric under ibsim, from its log ("building routing with
'<engine>'" to "tables configured"), where ibsim can hold the fabric (<= 256 switches) and
opensm/ibsim-utils are installed; ``ratio`` = ours / OpenSM, both measured in this run.
The compiled kernels' one-off load (numba) happens before the first timing and is printed.

Targets (issue 14 "Speed"), each printed as PASS/FAIL at the end:
  * every engine <= 1.0x OpenSM's routing time on k=8 and k=12 fat trees;
  * minhop/updn/ftree on the IB-legal maximum (``--big``: radix-64 3-level, 44,032 hosts,
    3,776 switches) <= 10 s each.
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

from fabricviz.generate import fat_tree, k_ary_fat_tree  # noqa: E402
from fabricviz.ib.routing import route  # noqa: E402

ENGINES = ("minhop", "updn", "ftree")
RATIO_TARGET = 1.0             # ours / OpenSM on the k listed in RATIO_KS
RATIO_KS = (8, 12)
BIG_SECONDS = 10.0             # each engine on the radix-64 maximum
BIG = "radix-64 3-level, 44,032 hosts, 3,776 switches (IB-legal max)"


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


def warm_up_seconds(engines: list[str]) -> float:
    """The compiled kernels' one-off load in this process (numba import + disk cache)."""
    from fabricviz.ib.engines import warm_up
    t = time.perf_counter()
    for e in engines:
        warm_up(e)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, nargs="*", default=[8, 12, 16, 24, 32])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--big-repeat", type=int, default=3)
    ap.add_argument("--no-opensm", action="store_true")
    ap.add_argument("--engines", nargs="*", default=list(ENGINES))
    args = ap.parse_args()
    cases = [(f"k={k} ({k ** 3 // 4:,} hosts, {5 * k * k // 4:,} switches)", k, args.repeat,
              lambda k=k: k_ary_fat_tree(k)) for k in args.k]
    if args.big:
        cases.append((BIG, None, args.big_repeat, lambda: fat_tree(levels=3, radix=64, hosts=44032)))
    print(f"kernel load (once per process, before timing): {warm_up_seconds(args.engines):.3f} s")
    print(f"{'fabric':<62} {'engine':<7} {'by':<7} {'ours s':>8} {'wall s':>8} {'OpenSM s':>9} {'ratio':>6}")
    verdicts: list[tuple[str, bool]] = []
    for label, k, repeat, build in cases:
        f = build()
        for e in args.engines:
            try:
                c, w, by = ours(f, e, repeat)
            except ModuleNotFoundError as exc:   # an engine not built yet
                print(f"{label:<62} {e:<7} skipped: {exc}")
                continue
            o = None if args.no_opensm else opensm_seconds(f, e, repeat)
            ratio = c / o if o else None
            os_txt = f"{o:.4f}" if o else "-"
            ratio_txt = f"{ratio:.2f}" if ratio is not None else "-"
            print(f"{label:<62} {e:<7} {by:<7} {c:>8.4f} {w:>8.4f} {os_txt:>9} {ratio_txt:>6}", flush=True)
            if k in RATIO_KS and ratio is not None:
                verdicts.append((f"{e} on k={k}: {c:.4f} s = {ratio:.2f}x OpenSM's {o:.4f} s "
                                 f"(target <= {RATIO_TARGET:.1f}x)", ratio <= RATIO_TARGET and by == e))
            if k is None:
                verdicts.append((f"{e} on the radix-64 maximum: {c:.2f} s (target <= {BIG_SECONDS:.0f} s)",
                                 c <= BIG_SECONDS and by == e))
    if verdicts:
        print("\ntargets (issue 14):")
        for text, ok in verdicts:
            print(f"  {'PASS' if ok else 'FAIL'}  {text}")


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
