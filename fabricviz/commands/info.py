"""``fabricviz info FILE``: counts, cables, bisection, oversubscription, diameter."""

from __future__ import annotations

import argparse
import json

from ..loaders import load_any


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    inf = sub.add_parser("info", help="counts, cables, bisection, oversubscription, diameter")
    inf.add_argument("file")
    inf.add_argument("--json", action="store_true", help="print JSON instead of text")
    inf.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..check.info import fabric_info, format_info
    info = fabric_info(load_any(args.file))
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print(format_info(info))
    return 0


