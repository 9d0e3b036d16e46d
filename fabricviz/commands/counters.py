"""``fabricviz counters DESIGN COUNTERS...``: the worst links of the design by their port counters.

COUNTERS are perfquery, ibqueryerrors or ibdiagnet PM output (``ibdiagnet2.pm``, ``ibdiagnet2.db_csv``),
in any mix; together they are one snapshot. ``--since EARLIER...`` names an earlier snapshot of the
same ports: then each counter is its increase, and per second over the interval between the two —
``--interval S``, else the difference of the newest modification time of each set of files (the
tools print no time; ``cp -p`` / ``rsync -t`` keep mtimes, a plain copy does not: give ``--interval``
then). ``--interval S`` without ``--since``: the counters were cleared S seconds before they were
read (``perfquery -R``, wait, read), so they too are per second.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..model import FabricError


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("counters", help="the worst links by port counters (perfquery, ibqueryerrors, ibdiagnet)",
                       description=__doc__.split("\n\n", 1)[1] if __doc__ else None)
    p.add_argument("design", help="the design (any format fabricviz opens)")
    p.add_argument("counters", nargs="+", metavar="COUNTERS",
                   help="perfquery / ibqueryerrors output, ibdiagnet2.pm or ibdiagnet2.db_csv")
    p.add_argument("--since", nargs="+", metavar="EARLIER", default=[],
                   help="an earlier snapshot of the same ports: rank by the increase (per second)")
    p.add_argument("--interval", type=float, metavar="S",
                   help="seconds between the snapshots (default: from the files' modification times)")
    p.add_argument("--by", choices=("errors", "xmit-wait"), default="errors",
                   help="rank by the error counters (default) or by PortXmitWait (congestion)")
    p.add_argument("--top", type=int, default=20, metavar="N", help="show the N worst links (0: all; default 20)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run)


def _interval(args: argparse.Namespace) -> float | None:
    if args.interval is not None:
        if not (args.interval > 0 and args.interval < 1e12):
            raise FabricError(f"--interval {args.interval!r}: must be a positive number of seconds")
        return float(args.interval)
    if not args.since:
        return None
    from ..formats.counter_files import snapshot_interval
    return snapshot_interval(args.counters, args.since)


def run(args: argparse.Namespace) -> int:
    from ..check.counters import Metric, link_line, port_counters
    from ..formats.counter_files import load_counters
    from ..loaders import load_any
    if args.top < 0:
        raise FabricError(f"--top {args.top}: must be 0 (all) or more")
    interval = _interval(args)
    fabric = load_any(args.design)
    now = [load_counters(p) for p in args.counters]
    before = [load_counters(p) for p in args.since]
    report = port_counters(fabric, now, before, interval)
    metric = Metric(args.by)
    worst = report.worst(metric, args.top or None)
    if args.json:
        print(json.dumps(_json(report, metric, worst), indent=1))
        return 0
    rate = interval is not None
    what = "increase per second" if rate else ("increase" if before else "counts")
    print(f"{len(report.links)} links with counted ends ({report.ports_counted} ports counted); "
          f"{len(report.worst(metric))} with {metric.value} ({what}"
          + (f", over {interval:,.1f} s" if rate else "") + ")")
    for k, lk in enumerate(worst, 1):
        print(f"{k:3d}. {link_line(lk, metric, rate)}")
    dis = report.disagreeing()
    if dis:
        print(f"Ends disagree on {len(dis)} link{'s' if len(dis) != 1 else ''}:")
        for lk in dis[:args.top or None]:
            for fd in lk.findings:
                print(f"  {lk.a.name} — {lk.b.name}: {fd.text}")
        _more(len(dis), args.top)
    if report.unmatched:
        print(f"{len(report.unmatched)} record{'s' if len(report.unmatched) != 1 else ''} name no cabled port "
              "of the design:")
        for u in report.unmatched[:args.top or None]:
            print(f"  {u.source}: {u.why}")
        _more(len(report.unmatched), args.top)
    return 0


def _more(n: int, top: int) -> None:
    if top and n > top:
        print(f"  … and {n - top} more (--top 0 lists all)")


def _end(e: Any) -> dict[str, Any]:
    return {"device": e.device, "port": e.number, "counted": e.known,
            "counters": {c.value: v for c, v in e.values.items()},
            "saturated": [c.value for c in e.saturated], "reset": [c.value for c in e.reset]}


def _json(report: Any, metric: Any, worst: list[Any]) -> dict[str, Any]:
    return {"interval_s": report.interval, "by": metric.value, "ports_counted": report.ports_counted,
            "worst": [{"cable": lk.cable, "a": _end(lk.a), "b": _end(lk.b), metric.value: lk.value(metric),
                       "disagree": [{"kind": fd.kind.name.lower(), "text": fd.text} for fd in lk.findings]}
                      for lk in worst],
            "disagree": [{"cable": lk.cable, "a": lk.a.name, "b": lk.b.name,
                          "findings": [{"kind": fd.kind.name.lower(), "text": fd.text} for fd in lk.findings]}
                         for lk in report.disagreeing()],
            "unmatched": [{"source": u.source, "why": u.why} for u in report.unmatched]}
