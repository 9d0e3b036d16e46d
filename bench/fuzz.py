"""Mutation fuzzer over every reader: per format, how many mutants load, are refused cleanly, or fail.

Run: python bench/fuzz.py [--formats native,gml,...] [--per-format 500] [--seed 0] [--timeout 5]
                          [--jobs 2] [--mem-gb 2.5] [--mem-ratio 16] [--mem-floor-mb 32] [--md FILE]
     python bench/fuzz.py --replay FORMAT:SEED:INDEX -o OUT      (write that mutant's bytes to OUT)
Each mutant is read in a fork of a warmed-up worker (RLIMIT_AS cap, CPU time limit) the way
the CLI reads it: load_any + a native dump (also the discovery outputs of fuzzing.DISCOVERY: ibnetdiscover
-p, iblinkinfo, opensm-subnet.lst, ibdm topology), or for opensm_dump `replay` on its topology; the side
files (flows_csv, prices, parts, htsim_cm: tests/formats/fuzzing.SIDE_FORMATS) as simulate --flows,
bom --prices and FABRICVIZ_PARTS read them against a seed design. Its memory is
its own peak RSS rise (tests/formats/fuzz_pool.py); over the floor and over K times the input's bytes
(the file, and a dump's topology) it is ``memory``
(issue 11: "never more memory than a few times the file's size"). Prints a table per format
(mutants, accepted, refused, lost, unnamed, crash, hang, memory, noisy, seconds), then each non-clean
outcome grouped by root cause (exception type + innermost frame) with a count and one example mutant
id, its mutations and message; also the slowest mutant (>= 1 s) and the largest memory ratio, and at
the end the five largest memory ratios of the run (among rises of at least MIN_RISE_MB).
Goal (issue 11): no lost, unnamed, crash, hang, memory or noisy. Exit 1 when any but noisy.
The engine is tests/formats/fuzzing.py (seeds, mutators) and tests/formats/fuzz_pool.py (workers).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from tests.formats.fuzzing import BAD, FORMATS, OUTCOMES, Runner, fuzz, mutant, parse_id  # noqa: E402

COLS = ("mutants",) + OUTCOMES + ("noisy", "seconds")
#: a smaller rise is the fixed cost of any read (imports' pages faulted in again): not worth ranking
MIN_RISE_MB = 8


def _mem(r) -> str:
    return (f"{r.id} [{' + '.join(r.steps)}] {r.mem_mb:.0f} MB for {r.size / 1024:,.0f} KB: "
            f"{r.mem_ratio:.1f}x ({r.outcome})")


def ranked(results, n: int | None = None) -> list:
    """Results by memory ratio, largest first, of the rises of at least MIN_RISE_MB."""
    return sorted((r for r in results if r.mem_mb >= MIN_RISE_MB), key=lambda r: -r.mem_ratio)[:n]


def top_memory(runs, n: int = 5) -> list[str]:
    top = ranked([r for results, _s in runs.values() for r in results], n)
    return [f"\nTop {n} memory ratios (peak RSS rise / input bytes, rises >= {MIN_RISE_MB} MB):"] + (
        [f"  {i}. {_mem(r)}" for i, r in enumerate(top, 1)] or ["  (none)"])


def table(runs) -> list[str]:
    head = f"{'format':<14}" + "".join(f"{c:>9}" for c in COLS)
    lines = [head, "-" * len(head)]
    tot = defaultdict(float)
    for fmt, (results, secs) in runs.items():
        row = {"mutants": len(results), "noisy": sum(1 for r in results if r.noise), "seconds": secs}
        for o in OUTCOMES:
            row[o] = sum(1 for r in results if r.outcome == o)
        for c in COLS:
            tot[c] += row[c]
        lines.append(f"{fmt:<14}" + "".join(f"{row[c]:>9.1f}" if c == "seconds" else f"{row[c]:>9d}" for c in COLS))
    lines.append(f"{'total':<14}" + "".join(f"{tot[c]:>9.1f}" if c == "seconds" else f"{int(tot[c]):>9d}"
                                              for c in COLS))
    return lines


def groups(runs) -> list[str]:
    out = []
    for fmt, (results, _s) in runs.items():
        by = defaultdict(list)
        for r in results:
            if r.outcome in BAD:
                by[(r.outcome, r.root)].append(r)
            if r.noise:
                by[("noisy", r.noise.split(";")[0][:100])].append(r)
        slow = sorted((r for r in results if r.outcome != "hang" and r.seconds >= 1.0), key=lambda r: -r.seconds)
        big = next(iter(ranked(results, 1)), None)
        if not by and not slow and not big:
            continue
        out.append(f"\n## {fmt}")
        if big:
            out.append(f"- largest memory ratio: {_mem(big)}")
        if slow:
            out.append(f"- slow: {len(slow)} mutant(s) took 1 s or more, slowest {slow[0].id} "
                       f"[{' + '.join(slow[0].steps)}] {slow[0].seconds:.1f} s ({slow[0].outcome})")
        for (outcome, root), rs in sorted(by.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
            ex = rs[0]
            msg = ex.message.replace("\n", "\\n")
            if len(msg) > 300:
                msg = msg[:300] + "..."
            out.append(f"- {outcome} x{len(rs)}: {root}\n    e.g. {ex.id} [{' + '.join(ex.steps)}]"
                       f"\n    {ex.type}: {msg}" + (f"\n    noise: {ex.noise[:200]}" if ex.noise else ""))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--formats", default=",".join(FORMATS), help=f"comma-separated, of {', '.join(FORMATS)}")
    ap.add_argument("--per-format", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=5.0, help="CPU seconds per mutant before it is a hang")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--mem-gb", type=float, default=2.5, help="RLIMIT_AS of each worker (0: none)")
    ap.add_argument("--mem-ratio", type=float, default=16, metavar="K",
                    help="a peak RSS rise over K x the input's bytes (and over --mem-floor-mb) is memory")
    ap.add_argument("--mem-floor-mb", type=float, default=32, help="a smaller rise is never memory")
    ap.add_argument("--md", help="also write the table and the root causes to this Markdown file")
    ap.add_argument("--replay", metavar="F:S:I", help="write mutant FORMAT:SEED:INDEX to -o and exit")
    ap.add_argument("-o", "--output", help="where --replay writes the mutant")
    args = ap.parse_args()
    if args.replay:
        if not args.output:
            ap.error("--replay needs -o OUT")
        try:
            m = mutant(*parse_id(args.replay))
        except ValueError as e:
            ap.error(str(e))
        Path(args.output).write_bytes(m.data)
        print(f"{m.id}: seed {m.seed.name}, {' + '.join(m.steps)} -> {args.output} ({len(m.data)} bytes)")
        if m.seed.topology is not None:
            tp = Path(args.output).with_name(m.seed.topology[0])
            tp.write_bytes(m.seed.topology[1])
            print(f"topology: {tp}  (fabricviz replay {tp} {args.output})")
        return 0
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        ap.error(f"unknown format(s) {', '.join(bad)} (use {', '.join(FORMATS)})")
    t0 = time.perf_counter()
    with Runner(jobs=args.jobs, timeout=args.timeout, mem_gb=args.mem_gb, mem_ratio=args.mem_ratio,
                mem_floor_mb=args.mem_floor_mb) as runner:
        runs = fuzz(formats, args.per_format, args.seed, runner,
                    progress=lambda f, n: print(f"{f}: {n} mutants done", file=sys.stderr, flush=True))
    head = [f"fabricviz fuzz: {len(formats)} formats x {args.per_format} mutants, seed {args.seed}, "
            f"CPU time limit {args.timeout:g} s, RLIMIT_AS {args.mem_gb:g} GB, {args.jobs} jobs, "
            f"{time.perf_counter() - t0:.0f} s",
            f"memory verdict: a file's own peak RSS rise over {args.mem_floor_mb:g} MB and over "
            f"K = {args.mem_ratio:g} x its bytes (with a dump's topology)"]
    lines = head + [""] + table(runs) + groups(runs) + top_memory(runs)
    print("\n".join(lines))
    if args.md:
        Path(args.md).write_text("# Fuzz findings (bench/fuzz.py)\n\n"
                                 "Reproduce one: `python bench/fuzz.py --replay ID -o /tmp/m`\n\n"
                                 + "  \n".join(head) + "\n\n```\n" + "\n".join(table(runs)) + "\n```\n"
                                 + "\n".join(groups(runs) + top_memory(runs)) + "\n")
    return 1 if any(r.outcome in BAD for results, _s in runs.values() for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
