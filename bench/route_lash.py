"""Benchmark: LASH routing time, fabricviz vs OpenSM 3.3.23 measured in the same run.

Run: python bench/route_lash.py [--repeat 7] [--no-opensm] [--big]

``ours ms`` is the median ``Routing.route_seconds`` of ``route(fabric, "lash")`` (the routing
phase: switch distances, LASH, the LFTs; not discovery or LIDs); ``lash ms`` the median of
``route_lash`` alone. ``OpenSM ms`` is OpenSM's own routing time for the same fabric under ibsim
(``-D 0x47``: "building routing with 'lash'" to "lash tables configured"; it includes the hop
matrices OpenSM builds first, LASH, and queueing the LFT blocks), skipped when opensm/ibsim are
not installed. ``ratio`` = ours / OpenSM. Target (issue 14): <= 2.0x on the 4x4 torus and the
k=8 fat tree, printed as PASS/FAIL. ``--big`` adds an 8x8 torus and a k=12 fat tree.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fabricviz.formats.ibnetdiscover import loads, sniff  # noqa: E402
from fabricviz.ib.lash import route_lash  # noqa: E402
from fabricviz.ib.routing import route, subnet_and_lids  # noqa: E402
from fabricviz.ib.subnet import switch_distances  # noqa: E402
from tests.ib import oracle, topologies  # noqa: E402

TARGET = 2.0
TARGET_CASES = ("torus 4x4", "fat tree k=8")


def cases(big: bool) -> dict[str, str]:
    out = {"torus 4x4": topologies.torus_2d(4, 4, 1).text(),
           "fat tree k=8": topologies.k_ary_fat_tree(8).text(),
           "dragonfly 4x4": topologies.dragonfly(4, 4, 2).text()}
    if big:
        out["torus 8x8"] = topologies.torus_2d(8, 8, 1).text()
        out["fat tree k=12"] = topologies.k_ary_fat_tree(12).text()
    return out


def ours(text: str, repeat: int) -> tuple[float, float, int, int]:
    """(median route_seconds, median route_lash seconds, switches, VLs needed)."""
    f = loads(text, "bench.net", dialect=sniff(text))
    route(f, "lash")                                   # imports and caches out of the timing
    total = [route(f, "lash").route_seconds for _ in range(repeat)]
    sn, lids = subnet_and_lids(f)
    dist = switch_distances(sn)
    alone = []
    for _ in range(repeat):
        t = time.perf_counter()
        _, info = route_lash(sn, lids, dist)
        alone.append(time.perf_counter() - t)
    return statistics.median(total), statistics.median(alone), sn.num_switches, int(info.vls_used or 0)


def opensm_ms(text: str, repeat: int) -> tuple[float | None, int | None]:
    """(median OpenSM routing seconds, its "Lanes needed"), or (None, None) without OpenSM."""
    if oracle.opensm_available() is not None:
        return None, None
    times, needed = [], None
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            res = oracle.run_opensm(text, "lash", Path(tmp), timeout=600, log_flags=0x47)
            if res.route_seconds is not None:
                times.append(res.route_seconds)
            for m in res.messages:
                if "Lanes needed:" in m:
                    needed = int(m.split("Lanes needed:")[1].split(",")[0])
    return (statistics.median(times) if times else None), needed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--no-opensm", action="store_true")
    ap.add_argument("--big", action="store_true")
    a = ap.parse_args(argv)
    if not a.no_opensm and oracle.opensm_available():
        print(f"OpenSM skipped: {oracle.opensm_available()}")
    print(f"{'fabric':16s} {'switches':>8s} {'VLs':>7s} {'ours ms':>9s} {'lash ms':>9s} "
          f"{'OpenSM ms':>10s} {'ratio':>6s}")
    verdicts = []
    for name, text in cases(a.big).items():
        total, alone, S, vls = ours(text, a.repeat)
        theirs, their_vls = (None, None) if a.no_opensm else opensm_ms(text, a.repeat)
        ratio = total / theirs if theirs else None
        print(f"{name:16s} {S:8d} {vls:>3d}/{their_vls if their_vls is not None else '-':<3} "
              f"{total * 1e3:9.2f} {alone * 1e3:9.2f} "
              f"{theirs * 1e3 if theirs else float('nan'):10.2f} {ratio if ratio else float('nan'):6.2f}")
        if name in TARGET_CASES and ratio is not None:
            verdicts.append((name, ratio))
    for name, ratio in verdicts:
        print(f"{'PASS' if ratio <= TARGET else 'FAIL'}: {name} {ratio:.2f}x OpenSM (target <= {TARGET}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
