"""``fabricviz bom FILE``: bill of materials with cost and power; ``--csv OUT`` exports it."""

from __future__ import annotations

import argparse
import json

from ..loaders import load_any


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("bom", help="bill of materials: parts, cables, optics, cost and power")
    p.add_argument("file")
    p.add_argument("--csv", metavar="OUT", help="write the BOM as CSV")
    p.add_argument("--prices", metavar="FILE.json", help="price overrides: part id -> price (or {price_usd, power_w})")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..check.bom import bill_of_materials, load_prices
    from ..model.atomic import write_atomic
    prices = load_prices(args.prices) if args.prices else None
    bom = bill_of_materials(load_any(args.file), prices, args.prices or "prices")
    if args.csv:
        write_atomic(args.csv, bom.to_csv())       # the old CSV stays whole if this fails
    print(json.dumps(bom.to_dict(), indent=2) if args.json else bom.format())
    return 0
