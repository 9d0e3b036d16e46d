"""``fabricviz lint FILE``: design checks; exit status 1 when there are errors."""

from __future__ import annotations

import argparse
import json

from ..loaders import load_any
from ..model import FabricError


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("lint", help="check a design: cabling, port budgets, LIDs, SPOFs, rails, ftree, credit loops")
    p.add_argument("file", nargs="?")
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--rules", help="comma-separated rule ids to run (default: all)")
    p.add_argument("--full", action="store_true",
                   help="run the routing-based rules even on fabrics too large to route quickly")
    p.add_argument("--list-rules", action="store_true", help="list the rules and exit")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..check.lint import RULES, lint
    if args.list_rules:
        for r in RULES.values():
            print(f"{r.id:<18} {r.severity:<8} {r.summary}")
        return 0
    if args.file is None:
        raise FabricError("lint: give the design FILE to check")
    rules = [r.strip() for r in args.rules.split(",") if r.strip()] if args.rules else None
    fabric = load_any(args.file)
    report = lint(fabric, rules, full=args.full)
    if args.json:
        print(json.dumps({"file": args.file, **report.to_dict()}, indent=2))
    else:
        print(report.format())
    return 1 if report.errors else 0
