"""``fabricviz check-loops FILE``: credit loops in the routing (exit 1 when one exists)."""

from __future__ import annotations

import argparse

from .route import add_sm_options, routing_for


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("check-loops", help="find credit loops (cycles in the channel dependency graph)")
    p.add_argument("file")
    add_sm_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ib.creditloops import find_credit_loops
    r = routing_for(args)
    loops = find_credit_loops(r)
    print(f"routed by {r.routed_by}" + (f" ({r.fallback_reason})" if r.fallback_reason else ""))
    if not loops:
        print("no credit loops")
        return 0
    for lp in loops:
        print(lp.format())
    print(f"{len(loops)} credit loop(s)")
    return 1
