"""``fabricviz check-loops FILE``: credit loops per VL in the routing (exit 1 when one exists).

Each path rides the SL its engine gives it (dfsssp, lash) or ``--sl``; the SL2VL tables are
those of ``--qos-config`` or the design's stored QoS options when QoS is on, else SL n → VL n.
"""

from __future__ import annotations

import argparse

from .route import add_sm_options, routing_for


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("check-loops", help="find credit loops per VL (cycles in the channel dependency graph)")
    p.add_argument("file")
    add_sm_options(p)
    p.add_argument("--sl", type=int, default=0,
                   help="SL of every path when the engine gives none (minhop, updn, ftree); default 0")
    p.add_argument("--qos-config", metavar="opensm.conf",
                   help="SL2VL tables from an OpenSM options file (default: the design's QoS options)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ib.creditloops import check_credit_loops
    from ..model import FabricError
    if not 0 <= args.sl <= 15:
        raise FabricError(f"--sl {args.sl}: an SL is 0..15")
    options = None
    if args.qos_config:
        from ..formats import opensm_conf
        options = opensm_conf.load(args.qos_config)
    r = routing_for(args)
    if options is None:
        from ..ib.qos_meta import design_qos
        options = design_qos(r.subnet.fabric)
    check = check_credit_loops(r, sl=args.sl, sl2vl=options)
    print(f"routed by {r.routed_by}" + (f" ({r.fallback_reason})" if r.fallback_reason else ""))
    if check.walk.dropped:
        print(f"warning: {check.walk.dropped:,} route(s) mapped to VL15 by the SL2VL tables are dropped")
    for lp in check.loops:
        print(lp.format())
    if not check.loops:
        print(check.summary())
        return 0
    print(f"{len(check.loops)} credit loop(s)")
    return 1
