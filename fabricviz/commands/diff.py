"""``fabricviz diff DESIGN DISCOVERED [--json]``: is the fabric cabled the way it was designed?

One line per difference (missing, extra, wrong port or peer, swapped pairs, rate below design,
devices missing, unexpected or renamed), then a summary. Exit status: 0 when the fabrics agree,
1 when anything differs, 2 when a file cannot be read (one line naming it)."""

from __future__ import annotations

import argparse
import json

from ..loaders import load_any


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("diff", help="compare a design with a discovered fabric (ibnetdiscover output, ibsim "
                                    "net file or another design): missing, extra and misplaced cables")
    p.add_argument("design", help="the design (any format fabricviz reads)")
    p.add_argument("discovered", help="what the fabric reports, e.g. ibnetdiscover output")
    p.add_argument("--json", action="store_true", help="print the differences as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..check.diff import diff_fabrics
    design = load_any(args.design)
    found = load_any(args.discovered)
    report = diff_fabrics(design, found)
    if args.json:
        print(json.dumps({"design": args.design, "discovered": args.discovered, **report.to_dict()}, indent=2))
    else:
        for d in report.differences:
            print(d.line)
        if report.ethernet_left_out:
            print("note: the design's Ethernet part is not compared (the discovered fabric has none)")
        print(report.summary())
    return 0 if report.equal else 1
