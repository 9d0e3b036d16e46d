"""``fabricviz export-switch-config FILE --os sonic|cumulus -o DIR``: lossless RoCE
configuration per switch (SONiC config_db.json fragment, or NVUE startup YAML + ``nv``
commands) and a ConnectX script per host, from the design's lossless plan.

Exit 2 (one line) for bad arguments or a design without RoCE switches; exit 1, writing
nothing, when a switch's headroom does not fit its buffer (as ``fabricviz headroom``)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("export-switch-config",
                       help="write SONiC / Cumulus NVUE lossless RoCE configs per switch and NIC scripts")
    p.add_argument("file")
    p.add_argument("--os", required=True, choices=("sonic", "cumulus"), help="switch operating system")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write into")
    p.add_argument("--priority", action="append", metavar="P",
                   help="lossless 802.1p priorities, e.g. 3 or 3,4; repeatable "
                        "(default: the design's roce priorities, else 3)")
    p.add_argument("--dscp", type=int, action="append", metavar="D",
                   help="DSCP of RoCE traffic: one for the first lossless priority (default 26; the others "
                        "get AF<p>1 = 8p+2) or one per priority, repeatable")
    p.add_argument("--mtu", type=int, default=None,
                   help="largest frame on a lossless port, bytes (default: the design's, else 9216)")
    p.add_argument("--method", choices=("ieee", "nvidia"), default=None,
                   help="headroom sizing: ieee (802.1Qbb worst case, default) or nvidia")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ethernet.roce_meta import parse_priorities
    from ..formats.switch_config import (
        BufferBudgetExceeded,
        DesignSettingsError,
        NotRoceDesign,
        check_dscp,
        check_priority,
        write_switch_configs,
    )
    from ..loaders import load_any
    from ..model import FabricError
    try:
        prios = parse_priorities(args.priority, "--priority")
    except ValueError as e:
        raise FabricError(str(e)) from None
    for option, values, check in (("--priority", prios, check_priority), ("--dscp", args.dscp, check_dscp)):
        try:
            for v in values or ():
                check(v)
        except ValueError as e:
            raise FabricError(f"{option} {','.join(map(str, values or ()))}: {e}") from None
    fabric = load_any(args.file)
    try:
        paths = write_switch_configs(fabric, args.os, args.output, priority=prios, dscp=args.dscp,
                                     mtu=args.mtu, method=args.method)
    except BufferBudgetExceeded as e:
        print(f"fabricviz: {args.file}: {e}", file=sys.stderr)
        return 1
    except (NotRoceDesign, DesignSettingsError) as e:
        raise FabricError(f"{args.file}: {e}") from None
    for path in paths:
        print(path)
    return 0
