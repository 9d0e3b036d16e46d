"""``fabricviz check-pfc-deadlock FILE``: cyclic buffer dependencies among the lossless priorities
of a RoCE fabric's ECMP routes (exit 1 when one exists), optionally after failed links."""

from __future__ import annotations

import argparse
import json

from ..loaders import load_any


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("check-pfc-deadlock",
                       help="find PFC deadlocks: cycles of ingress-buffer dependencies per lossless priority")
    p.add_argument("file")
    p.add_argument("--fail", action="append", default=[], metavar="CABLE",
                   help="a cable taken as down, by one of its ports (leaf01:3) or its label; repeatable "
                        "(ports the design disables count as well)")
    p.add_argument("--routing", choices=("bounce", "converged"), default="bounce",
                   help="after a failure: bounce = switches keep their ECMP groups and one that lost every "
                        "next hop detours over another leaf (down-up); converged = ECMP recomputed (default bounce)")
    p.add_argument("--priority", action="append", metavar="P",
                   help="lossless priorities, e.g. 3 or 3,4 (default: the design's roce priorities, else 3); "
                        "repeatable")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ethernet.pfc_deadlock import check_pfc_deadlock
    from ..ethernet.roce_meta import RoceMetaError, design_error, parse_priorities, roce_settings
    from ..model import FabricError
    try:
        prios = parse_priorities(args.priority, "--priority")
    except ValueError as e:
        raise FabricError(str(e)) from None
    fabric = load_any(args.file)
    try:
        roce_settings(fabric)
    except RoceMetaError as e:
        raise FabricError(design_error(args.file, e)) from None
    check = check_pfc_deadlock(fabric, failed=args.fail, routing=args.routing, priorities=prios)
    if args.json:
        print(json.dumps({"file": args.file, **check.to_dict()}, indent=2, ensure_ascii=False))
    else:
        for c in check.cycles:
            print(c.format())
        print(check.summary())
    return 1 if check.cycles else 0
