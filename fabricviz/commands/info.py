"""``fabricviz info FILE``: counts, cables, bisection, oversubscription, diameter, and the servers,
management hosts, rails and scalable units recognised (:mod:`fabricviz.generate.recognise`)."""

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
    from ..generate.recognise import format_structure, recognise
    fabric = load_any(args.file)
    info = fabric_info(fabric)
    structure = recognise(fabric)            # servers, management hosts, rails and SUs
    info["structure"] = structure.summary(fabric)
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print("\n".join([format_info(info), *format_structure(structure, fabric)]))
    return 0


