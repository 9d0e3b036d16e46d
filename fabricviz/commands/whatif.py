"""``fabricviz whatif DESIGN… --fail cables:K|switches:K|switches-of:TIER:K|links-of:TIER:K``: what failures cost.

Per K, ``--trials`` random failure sets (seeded), each re-routed and measured by
:mod:`fabricviz.sim.whatif`; prints the distribution of the metric relative to the intact
design, the hosts cut off and those degraded (some NICs cut off). ``--worst`` ranks every single
failure of that kind instead. ``--plot`` draws the degradation curve to a PNG with matplotlib (no Qt,
no window). Several designs get the same failures, metric, trials and seed, all their trials in
one fan-out (:class:`~fabricviz.sim.whatif.Batch`), and a comparison table after their own tables.
"""

from __future__ import annotations

import argparse
import json

from ..model import FabricError

#: Rows of the --worst table (all go to --csv).
TOP = 20


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("whatif", help="failure what-if: the metric's distribution after K random failures")
    p.add_argument("file", nargs="+", metavar="FILE",
                   help="design file(s) (native JSON or ibnetdiscover); several are compared under the same "
                        "failures, metric, trials and seed")
    p.add_argument("--fail", required=True, metavar="KIND:K",
                   help="cables:K, switches:K (of any tier), switches-of:TIER:K (TIER: leaf, spine, core; a "
                        "two-level tree's top tier is spine; K drawn from that tier's switches) or "
                        "links-of:TIER:K (TIER: host, leaf-spine, spine-core); K may be a list: cables:1,2,4,8. "
                        "A failed switch loses every cable. plane:K (a multi-plane design): plane K (from 0) down")
    p.add_argument("--trials", type=int, default=100, help="random failure sets per K (default 100, at most 10,000)")
    p.add_argument("--metric", default="permutation",
                   help="permutation (default) or alltoall: mean per-flow max-min rate of that seeded "
                        "workload, made on the intact design; allreduce:SIZE: ring all-reduce busbw "
                        "(fabricviz collective) over every GPU, 0 when a failure cuts one off (the job fails)")
    p.add_argument("--engine", choices=("minhop", "updn", "ftree", "dfsssp", "lash", "dmodk"),
                   help="InfiniBand: the subnet manager's routing engine re-run after each failure "
                        "(default minhop); RoCE designs re-hash ECMP over the surviving graph")
    p.add_argument("--seed", type=int, default=0, help="seeds the failures, the workload and ECMP")
    p.add_argument("--worst", action="store_true",
                   help="every single failure of that kind ranked by its cost (top 20 printed, all in --csv)")
    p.add_argument("--csv", metavar="OUT", help="one row per trial (or per ranked failure with --worst)")
    p.add_argument("--plot", metavar="OUT.png", help="the degradation curve: median with the p5–p95 band vs K "
                   "(one curve per design)")
    p.add_argument("--json", action="store_true", help="print every trial as JSON (a list: one per design)")
    from ..sim.fanout import add_fanout_args
    add_fanout_args(p)                   # --workers N, --scheduler ADDRESS, --quiet
    p.set_defaults(func=run)


FLAGS = {"fail": "--fail", "trials": "--trials", "metric": "--metric", "seed": "--seed"}


def run(args: argparse.Namespace) -> int:
    from ..sim.fanout import TaskRefused, fanout_from_args
    from ..sim.units import ParamError
    from ..sim.whatif import Batch, parse_fail, parse_metric, run_batch_trial
    from .simulate import flag_errors
    files = list(args.file)
    if len(files) == 1:
        args.file = files[0]                 # the CLI names a one-design refusal by args.file
    try:
        with flag_errors():
            spec = parse_fail(args.fail)
            metric = parse_metric(args.metric)
            from ..sim.bounds import MAX_TRIALS
            if not 1 <= args.trials <= MAX_TRIALS:
                raise ParamError("trials", args.trials, f"must be 1 to {MAX_TRIALS:,} per K")
            if args.plot and args.worst:
                raise ParamError("fail", args.fail, "--plot draws the curve over K; --worst has no K")
        batch = Batch(tuple(_prepare(path, spec, metric, args, len(files) > 1) for path in files))
        runner = fanout_from_args(args)      # every design's trials in one map: one cluster
        flat = runner.map(run_batch_trial, batch, batch.items())
    except TaskRefused as e:                 # a trial refused: name the design's file and the trial
        d, j = e.item
        k, i = batch.designs[d].trials[j]
        raise FabricError(f"{files[d]}: K={k} trial {i}: {e.error}") from None
    except ParamError as e:
        if e.param in FLAGS:
            raise FabricError(e.with_flag(FLAGS[e.param])) from None
        raise
    parts, at = [], 0
    for sh in batch.designs:
        parts.append(flat[at:at + len(sh.trials)])
        at += len(sh.trials)
    if len(files) == 1:
        return _report(args, spec, metric, batch.designs[0], parts[0])
    return _report_batch(args, spec, metric, batch.designs, parts, _labels(files, batch.designs))


def _prepare(path: str, spec, metric: str, args: argparse.Namespace, name_file: bool):
    """One design's shared input; a refusal (load, --engine, K) names ``path`` when several are run."""
    from ..loaders import load_any
    from ..sim.units import ParamError
    from ..sim.whatif import prepare
    from .simulate import check_tech_options
    try:
        try:
            fabric = load_any(path)
            check_tech_options(fabric, args, path)    # --engine is InfiniBand's
            return prepare(fabric, spec, metric, args.trials, args.seed, args.engine or "minhop", args.worst)
        except ParamError as e:
            if e.param not in FLAGS:
                raise
            raise FabricError(e.with_flag(FLAGS[e.param])) from None
    except FabricError as e:
        if not name_file or path in str(e):
            raise
        raise FabricError(f"{path}: {e}") from None


def _labels(files: list[str], designs) -> list[str]:
    """The designs' names, or their files when two share a name."""
    names = [sh.fabric.name for sh in designs]
    return names if len(set(names)) == len(names) else list(files)


def _doc(args, spec, metric: str, shared, results, rows) -> dict:
    from ..sim.whatif import per_k
    doc = {"design": shared.fabric.name, "fail": spec.label, "metric": metric, "seed": args.seed,
           "engine": args.engine, "flows": len(shared.flows),
           "intact": {"metric_gbps": shared.intact_gbps, "left_out": sorted(shared.intact_out)},
           "per_k": per_k(results), "trials": [r.to_dict() for r in results]}
    if args.worst:
        doc["worst"] = [dict(r.to_dict(), rank=i) for i, r in enumerate(rows, 1)]
    return doc


def _header(args, spec, metric: str, shared) -> str:
    if metric.startswith("allreduce:"):
        what = f"{args.metric} ({len(shared.flows):,} GPUs), intact {shared.intact_gbps:.2f} GB/s busbw"
    else:
        what = f"{metric} ({len(shared.flows):,} flows), intact {shared.intact_gbps:.2f} Gb/s mean per flow"
    return f"{shared.fabric.name}: fail {spec.what}, metric {what}, seed {args.seed}"


def _report(args, spec, metric: str, shared, results) -> int:
    """One design: its table (or ranking), --csv, --plot, --json."""
    from ..sim.whatif import per_k, ranked
    rows = ranked(results) if args.worst else results
    if args.csv:
        _write_csv(args.csv, rows, args.worst)
    summary = per_k(results)
    if args.plot:
        _plot(args.plot, [("", summary)], f"{shared.fabric.name}: {shared.spec.noun} failed, {shared.metric}")
    if args.json:
        print(json.dumps(_doc(args, spec, metric, shared, results, rows), indent=2))
        return 0
    print(_header(args, spec, metric, shared))
    print(worst_table(rows[:TOP], len(rows)) if args.worst else k_table(summary))
    return 0


def _report_batch(args, spec, metric: str, designs, parts, labels: list[str]) -> int:
    """Several designs: each one's table, then the comparison; --csv with a design column, --json a list."""
    from ..model.atomic import write_atomic
    from ..sim.whatif import csv_text, per_k, ranked
    rows = [ranked(r) if args.worst else r for r in parts]
    summaries = [per_k(r) for r in parts]
    if args.csv:
        write_atomic(args.csv, csv_text((), args.worst, list(zip(labels, rows, strict=True))))
    if args.plot:
        _plot(args.plot, list(zip(labels, summaries, strict=True)), f"{spec.noun} failed, {metric}")
    if args.json:
        print(json.dumps([_doc(args, spec, metric, sh, res, rw)
                          for sh, res, rw in zip(designs, parts, rows, strict=True)], indent=2))
        return 0
    for sh, rw, summary in zip(designs, rows, summaries, strict=True):
        print(_header(args, spec, metric, sh))
        print(worst_table(rw[:TOP], len(rw)) if args.worst else k_table(summary))
        print()
    print(f"comparison of {len(designs)} designs:")
    print(worst_compare(labels, rows) if args.worst else k_compare(labels, summaries))
    return 0


def k_compare(labels: list[str], summaries: list[list[dict]]) -> str:
    """Design × K: the median and p5 relative metric and the hosts cut off (disconnected, degraded: mean)."""
    w = max(6, *(len(x) for x in labels))
    lines = [f"{'design':<{w}}  {'K':>4}  {'median':>6}  {'p5':>6}  {'disconnected':>12}  {'degraded':>8}"]
    for label, summary in zip(labels, summaries, strict=True):
        for s in summary:
            lines.append(f"{label:<{w}}  {s['k']:>4}  {s['relative']['median']:>6.3f}  {s['relative']['p5']:>6.3f}  "
                         f"{s['disconnected_hosts']['mean']:>12.2f}  {s['degraded_hosts']['mean']:>8.2f}")
    lines.append("disconnected, degraded: hosts, mean over the trials")
    return "\n".join(lines)


def worst_compare(labels: list[str], rows: list[list]) -> str:
    """Per design: its costliest single failure."""
    w = max(6, *(len(x) for x in labels))
    lines = [f"{'design':<{w}}  {'failures':>8}  {'delivered':>9}  {'relative':>8}  {'cut off':>7}  "
             f"{'degraded':>8}  costliest"]
    for label, rw in zip(labels, rows, strict=True):
        r = rw[0]
        lines.append(f"{label:<{w}}  {len(rw):>8}  {r.delivered:>9.3f}  {r.relative:>8.3f}  {len(r.disconnected):>7}  "
                     f"{len(r.degraded):>8}  {', '.join(r.failed)}")
    return "\n".join(lines)


def k_table(summary: list[dict]) -> str:
    """Per K: the metric relative to the intact design (min p5 median p95 max), delivered, cut-off
    hosts and degraded hosts (some of their NICs cut off)."""
    head = f"{'K':>4}  {'trials':>6}  {'min':>6}  {'p5':>6}  {'median':>6}  {'p95':>6}  {'max':>6}  " \
           f"{'delivered':>9}  disconnected hosts (mean / max)  degraded hosts (mean / max)"
    lines = [head]
    for s in summary:
        r = s["relative"]
        lines.append(f"{s['k']:>4}  {s['trials']:>6}  " + "  ".join(f"{r[x]:>6.3f}" for x in
                                                                    ("min", "p5", "median", "p95", "max"))
                     + f"  {s['delivered']['median']:>9.3f}  "
                     + f"{s['disconnected_hosts']['mean']:.2f} / {s['disconnected_hosts']['max']}".ljust(31)
                     + f"  {s['degraded_hosts']['mean']:.2f} / {s['degraded_hosts']['max']}")
    lines.append("relative: the metric / the intact design's (flows of cut-off hosts left out); "
                 "delivered: median of relative x surviving share; degraded: some NICs cut off")
    return "\n".join(lines)


def worst_table(rows, total: int) -> str:
    """The costliest single failures, most costly first."""
    lines = [f"{'rank':>4}  {'delivered':>9}  {'relative':>8}  {'cut off':>7}  {'degraded':>8}  failed"]
    for i, r in enumerate(rows, 1):
        lines.append(f"{i:>4}  {r.delivered:>9.3f}  {r.relative:>8.3f}  {len(r.disconnected):>7}  "
                     f"{len(r.degraded):>8}  {', '.join(r.failed)}")
    if total > len(rows):
        lines.append(f"… {total - len(rows):,} more (all in --csv)")
    return "\n".join(lines)


def _write_csv(path: str, rows, worst: bool) -> None:
    from ..model.atomic import write_atomic
    from ..sim.whatif import csv_text  # the What-if dock writes the same
    write_atomic(path, csv_text(rows, worst))


def _plot(path: str, curves: list[tuple[str, list[dict]]], title: str) -> None:
    """The degradation curve(s) as a PNG: the median relative metric vs K over the p5–p95 band,
    one curve per ``(label, per_k summary)``.

    Drawn by matplotlib's Agg renderer (:mod:`.plotting`) so the CLI loads no Qt: pictures of the
    canvas need Qt (``fabricviz render``), a line chart does not."""
    if not path.lower().endswith(".png"):
        raise FabricError(f"--plot {path}: writes a PNG (OUT.png)")
    from .plotting import write_png
    write_png(curves_figure([(label, [s["k"] for s in summary],
                              *([s["relative"][x] for s in summary] for x in ("p5", "median", "p95")))
                             for label, summary in curves], title=title), path)


#: Line colours of the curves, the first one's band fill and outline.
COLOURS = ((20, 50, 150), (200, 90, 20), (30, 140, 60), (160, 30, 140), (120, 120, 20), (20, 140, 160))
BAND = ((200, 212, 240), (70, 110, 200))


def curves_figure(curves: list[tuple], title: str, size: tuple[int, int] = (800, 500)):
    """A matplotlib figure of ``(label, ks, p5, median, p95)`` curves: x = K (ticks at the K values),
    y = metric / intact from 0. One curve: its band filled; several: each band outlined in its colour,
    a legend."""
    from .plotting import figure, rgb
    ks = sorted({k for c in curves for k in c[1]})
    p95 = [v for c in curves for v in c[4]]
    ymax = max(1.05, max(p95, default=1.0) * 1.05)
    fig = figure(size)
    ax = fig.add_subplot()
    one = len(curves) == 1
    for i, (_label, cks, p5, _median, c95) in enumerate(curves):
        colour = rgb(COLOURS[i % len(COLOURS)])
        edge = rgb(BAND[1]) if one else colour
        if len(cks) > 1:
            ax.fill_between(cks, p5, c95, facecolor=rgb(BAND[0]) if one else "none", edgecolor=edge, linewidth=1)
        else:
            ax.plot([cks[0], cks[0]], [p5[0], c95[0]], color=edge, linewidth=8 if one else 2,
                    solid_capstyle="butt")
    ax.axhline(1.0, color=rgb((130, 130, 130)), linewidth=1)                    # the intact design
    for i, (label, cks, _p5, median, _c95) in enumerate(curves):
        ax.plot(cks, median, color=rgb(COLOURS[i % len(COLOURS)]), linewidth=3, marker="o", markersize=8,
                label=label if not one else None)
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_ylim(0, ymax)
    ax.grid(color=rgb((230, 230, 230)))
    ax.set_axisbelow(True)
    ax.set_title(title)
    ax.set_xlabel("failed elements K  (line: median, band: p5 to p95, grey: intact)")
    ax.set_ylabel("metric / intact")
    if not one:
        ax.legend(loc="upper left")
    fig.tight_layout()
    return fig
