"""``fabricviz whatif DESIGN --fail cables:K|switches:K|links-of:TIER:K``: what failures cost.

Per K, ``--trials`` random failure sets (seeded), each re-routed and measured by
:mod:`fabricviz.sim.whatif`; prints the distribution of the metric relative to the intact
design and the hosts cut off. ``--worst`` ranks every single failure of that kind instead.
``--plot`` draws the degradation curve to a PNG with Pillow (no Qt, no window).
"""

from __future__ import annotations

import argparse
import json

from ..model import FabricError

#: Rows of the --worst table (all go to --csv).
TOP = 20


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("whatif", help="failure what-if: the metric's distribution after K random failures")
    p.add_argument("file", help="design file (native JSON or ibnetdiscover)")
    p.add_argument("--fail", required=True, metavar="KIND:K",
                   help="cables:K, switches:K or links-of:TIER:K (TIER: host, leaf-spine, spine-core); "
                        "K may be a list: cables:1,2,4,8. A failed switch loses every cable")
    p.add_argument("--trials", type=int, default=100, help="random failure sets per K (default 100)")
    p.add_argument("--metric", default="permutation",
                   help="permutation (default) or alltoall: mean per-flow max-min rate of that seeded "
                        "workload, made on the intact design; allreduce:SIZE: ring all-reduce busbw "
                        "(fabricviz collective) over the GPUs still reachable")
    p.add_argument("--engine", choices=("minhop", "updn", "ftree", "dfsssp", "lash", "dmodk"),
                   help="InfiniBand: the subnet manager's routing engine re-run after each failure "
                        "(default minhop); RoCE designs re-hash ECMP over the surviving graph")
    p.add_argument("--seed", type=int, default=0, help="seeds the failures, the workload and ECMP")
    p.add_argument("--worst", action="store_true",
                   help="every single failure of that kind ranked by its cost (top 20 printed, all in --csv)")
    p.add_argument("--csv", metavar="OUT", help="one row per trial (or per ranked failure with --worst)")
    p.add_argument("--plot", metavar="OUT.png", help="the degradation curve: median with the p5–p95 band vs K")
    p.add_argument("--json", action="store_true", help="print every trial as JSON")
    from ..sim.fanout import add_fanout_args
    add_fanout_args(p)                   # --workers N, --scheduler ADDRESS, --quiet
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..loaders import load_any
    from ..sim.fanout import fanout_from_args
    from ..sim.progress import text_progress
    from ..sim.reach import fabric_tech
    from ..sim.units import ParamError
    from ..sim.whatif import parse_fail, parse_metric, per_k, prepare, ranked, run_trial, run_trials
    from .simulate import flag_errors
    flags = {"fail": "--fail", "trials": "--trials", "metric": "--metric", "seed": "--seed"}
    try:
        with flag_errors():
            spec = parse_fail(args.fail)
            metric = parse_metric(args.metric)
            if args.trials < 1:
                raise ParamError("trials", args.trials, "must be at least 1")
            if args.plot and args.worst:
                raise ParamError("fail", args.fail, "--plot draws the curve over K; --worst has no K")
            fabric = load_any(args.file)
            if args.engine is not None and fabric_tech(fabric) != "ib":
                raise FabricError(f"--engine: subnet manager routing engines are InfiniBand's; "
                                  f"{args.file} is a RoCE design")
            shared = prepare(fabric, spec, metric, args.trials, args.seed, args.engine or "minhop", args.worst)
            runner = fanout_from_args(args)
            if runner.workers == 1 and runner.scheduler is None:
                progress = None if args.quiet else text_progress()
                results = run_trials(shared, progress=progress)
            else:                            # the same pure trials, on Dask workers, in index order
                results = runner.map(run_trial, shared, range(len(shared.trials)))
    except ParamError as e:
        if e.param in flags:
            raise FabricError(e.with_flag(flags[e.param])) from None
        raise
    rows = ranked(results) if args.worst else results
    if args.csv:
        _write_csv(args.csv, rows, args.worst)
    summary = per_k(results)
    if args.plot:
        _plot(args.plot, summary, shared)
    if args.json:
        doc = {"design": fabric.name, "fail": spec.label, "metric": metric, "seed": args.seed,
               "engine": args.engine, "flows": len(shared.flows),
               "intact": {"metric_gbps": shared.intact_gbps, "left_out": sorted(shared.intact_out)},
               "per_k": summary, "trials": [r.to_dict() for r in results]}
        if args.worst:
            doc["worst"] = [dict(r.to_dict(), rank=i) for i, r in enumerate(rows, 1)]
        print(json.dumps(doc, indent=2))
        return 0
    if metric.startswith("allreduce:"):
        what = f"{args.metric} ({len(shared.flows):,} GPUs), intact {shared.intact_gbps:.2f} GB/s busbw"
    else:
        what = f"{metric} ({len(shared.flows):,} flows), intact {shared.intact_gbps:.2f} Gb/s mean per flow"
    print(f"{fabric.name}: fail {spec.what}, metric {what}, seed {args.seed}")
    print(worst_table(rows[:TOP], len(rows)) if args.worst else k_table(summary))
    return 0


def k_table(summary: list[dict]) -> str:
    """Per K: the metric relative to the intact design (min p5 median p95 max), delivered, cut-off hosts."""
    head = f"{'K':>4}  {'trials':>6}  {'min':>6}  {'p5':>6}  {'median':>6}  {'p95':>6}  {'max':>6}  " \
           f"{'delivered':>9}  disconnected hosts (mean / max)"
    lines = [head]
    for s in summary:
        r = s["relative"]
        lines.append(f"{s['k']:>4}  {s['trials']:>6}  " + "  ".join(f"{r[x]:>6.3f}" for x in
                                                                    ("min", "p5", "median", "p95", "max"))
                     + f"  {s['delivered']['median']:>9.3f}  "
                     f"{s['disconnected_hosts']['mean']:.2f} / {s['disconnected_hosts']['max']}")
    lines.append("relative: the metric / the intact design's (flows of cut-off hosts left out); "
                 "delivered: median of relative x surviving share")
    return "\n".join(lines)


def worst_table(rows, total: int) -> str:
    """The costliest single failures, most costly first."""
    lines = [f"{'rank':>4}  {'delivered':>9}  {'relative':>8}  {'cut off':>7}  failed"]
    for i, r in enumerate(rows, 1):
        lines.append(f"{i:>4}  {r.delivered:>9.3f}  {r.relative:>8.3f}  {len(r.disconnected):>7}  "
                     f"{', '.join(r.failed)}")
    if total > len(rows):
        lines.append(f"… {total - len(rows):,} more (all in --csv)")
    return "\n".join(lines)


def _write_csv(path: str, rows, worst: bool) -> None:
    from ..model.atomic import write_atomic
    from ..sim.whatif import csv_text          # the What-if dock writes the same
    write_atomic(path, csv_text(rows, worst))


def _plot(path: str, summary: list[dict], shared) -> None:
    """The degradation curve as a PNG: the median relative metric vs K over the p5–p95 band.

    Drawn with Pillow (imageio's image library, already a dependency) so the CLI loads no Qt:
    pictures of the canvas need Qt (``fabricviz render``), a line chart does not."""
    if not path.lower().endswith(".png"):
        raise FabricError(f"--plot {path}: writes a PNG (OUT.png)")
    from ..model.atomic import write_atomic
    import io
    img = degradation_image([s["k"] for s in summary], *([s["relative"][x] for s in summary]
                                                         for x in ("p5", "median", "p95")),
                            title=f"{shared.fabric.name}: {shared.spec.what} failed, {shared.metric}")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    write_atomic(path, buf.getvalue())


def degradation_image(ks: list[int], p5: list[float], median: list[float], p95: list[float], title: str,
                      size: tuple[int, int] = (800, 500)):
    """A Pillow image of the curve: x = K (ticks at the K values), y = metric / intact from 0."""
    from PIL import Image, ImageDraw, ImageFont
    w, h = size
    left, right, top, bottom = 70, 30, 40, 55
    img = Image.new("RGB", size, "white")
    d = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=14)
    ymax = max(1.05, max(p95, default=1.0) * 1.05)
    lo_k, hi_k = min(ks), max(ks)
    span = (hi_k - lo_k) or 1

    def xy(k: float, v: float) -> tuple[float, float]:
        x = left + (k - lo_k) / span * (w - left - right) if hi_k > lo_k else (left + w - right) / 2
        return x, h - bottom - v / ymax * (h - top - bottom)
    for i in range(6):                                       # y grid and labels
        v = ymax * i / 5
        _, y = xy(lo_k, v)
        d.line([(left, y), (w - right, y)], fill=(225, 225, 225))
        d.text((left - 8, y), f"{v:.2f}", fill="black", font=font, anchor="rm")
    for k in ks:
        x, _ = xy(k, 0)
        d.line([(x, top), (x, h - bottom)], fill=(235, 235, 235))
        d.text((x, h - bottom + 8), str(k), fill="black", font=font, anchor="mt")
    band = [xy(k, v) for k, v in zip(ks, p5)] + [xy(k, v) for k, v in reversed(list(zip(ks, p95)))]
    if len(ks) > 1:
        d.polygon(band, fill=(200, 212, 240), outline=(70, 110, 200))
    else:
        d.line([xy(ks[0], p5[0]), xy(ks[0], p95[0])], fill=(70, 110, 200), width=8)
    _, y1 = xy(lo_k, 1.0)
    d.line([(left, y1), (w - right, y1)], fill=(130, 130, 130), width=1)        # the intact design
    pts = [xy(k, v) for k, v in zip(ks, median)]
    if len(pts) > 1:
        d.line(pts, fill=(20, 50, 150), width=3)
    for x, y in pts:
        d.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(20, 50, 150))
    d.rectangle([left, top, w - right, h - bottom], outline="black")
    d.text((w / 2, 12), title, fill="black", font=font, anchor="mt")
    d.text((w / 2, h - 18), "failed elements K  (line: median, band: p5 to p95, grey: intact)", fill="black", font=font,
           anchor="mm")
    d.text((12, top - 22), "metric / intact", fill="black", font=font)
    return img
