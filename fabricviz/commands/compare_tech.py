"""``fabricviz compare-tech FILE``: the same workload on the design and on its InfiniBand/RoCE twin."""

from __future__ import annotations

import argparse
import json
import sys

from ..sim.transports.params import NEW_TRANSPORTS


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("compare-tech", help="InfiniBand vs RoCE: a workload on the design and on its "
                                            "other-technology twin, side by side")
    p.add_argument("file", help="design file (native JSON or ibnetdiscover)")
    p.add_argument("--workload", default="incast:8",
                   help="ring[:SIZE], alltoall[:SIZE], permutation, shift[:K], incast[:N] (default incast:8)")
    p.add_argument("--over", choices=("auto", "gpu", "nic"), default="auto",
                   help="ranks of the workload: GPUs (via PCIe and their NIC) or NICs")
    p.add_argument("--model", choices=("maxmin", "fluid"), default="fluid",
                   help="fluid (default: queues, PFC/credits, DCQCN) or maxmin (steady-state shares)")
    p.add_argument("--duration", default="2ms", help="fluid run length (default 2ms)")
    p.add_argument("--engine", choices=("minhop", "updn", "ftree", "dmodk"), default="minhop",
                   help="InfiniBand side: the subnet manager engine whose LFTs route the flows")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--dcqcn", choices=("paper", "nvidia"),
                   help="RoCE side's DCQCN parameters (default: the RoCE design's roce.dcqcn setting, "
                        "else nvidia, the ConnectX firmware defaults)")
    p.add_argument("--transport", choices=("ib", "roce-gbn", "roce-ooo") + NEW_TRANSPORTS,
                   help="how the NICs take reordered packets, on the side of its technology (as simulate "
                        "--transport); the other side runs its own default: ib on InfiniBand, on RoCE "
                        "roce-ooo when every NIC part has ooo_placement, else roce-gbn; eqds, ndp, hpcc: the RoCE side "
                        "runs that transport (with --model maxmin: their model is flow-level)")
    p.add_argument("--save-twin", metavar="PATH", help="also write the twin design (native JSON)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..formats.native import save_fabric
    from ..loaders import load_any
    from ..sim.compare import compare_techs, format_comparison
    from ..sim.units import parse_duration
    from .simulate import flag_errors, left_out_warning
    with flag_errors():
        duration = parse_duration(args.duration)
        fabric = load_any(args.file)
        c = compare_techs(fabric, args.workload, args.model, duration, args.seed, engine=args.engine,
                          over=args.over, dcqcn=args.dcqcn, transport=args.transport)
    given = c.roce if c.ib.is_twin else c.ib
    warning = left_out_warning(given.result)
    if warning:
        print(warning, file=sys.stderr)
    if args.save_twin:
        save_fabric(c.twin.fabric, args.save_twin)
    print(json.dumps(c.to_dict(), indent=2) if args.json else format_comparison(c))
    return 0
