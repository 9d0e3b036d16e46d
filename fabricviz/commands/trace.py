"""``fabricviz trace FILE SRC DST``: the hop-by-hop path by the LFTs, like ibtracert."""

from __future__ import annotations

import argparse

from .route import add_sm_options, design_for, ethernet, routing_for


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("trace", help="path between two end ports by the LFTs (like ibtracert)")
    p.add_argument("file")
    p.add_argument("src", help="NIC, GPU, server or DEVICE:PORT")
    p.add_argument("dst")
    add_sm_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ib.trace import trace
    fabric = design_for(args)
    if ethernet(fabric, args, ("lmc",)):      # RoCE: the path the 5-tuple hash picks (seed 0, as simulate)
        from ..sim.ecmp_route import ecmp_trace
        print("\n".join(ecmp_trace(fabric, args.src, args.dst)))
        return 0
    r = routing_for(args, fabric)
    t = trace(r, args.src, args.dst)
    print(t.format())
    return 0 if t.ok else 1
