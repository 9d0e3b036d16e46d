"""``fabricviz collective FILE --op OP``: nccl-tests style time, algbw and busbw per message size
on a design (:mod:`fabricviz.sim.collective` has the model); ``--csv``, ``--plot`` (busbw vs size,
log x, a PNG drawn by matplotlib's Agg renderer: no window, no Qt), ``--json``."""

from __future__ import annotations

import argparse
import json

from ..model import FabricError
from .collective_output import FLAGS, as_json, table, write_csv, write_plot
from .collective_sweep import one_case, run_sweep


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("collective", help="nccl-tests style collective performance: time, algbw, busbw per size")
    p.add_argument("file", nargs="+", metavar="FILE",
                   help="design file(s) (native JSON or ibnetdiscover); several: one case per design")
    p.add_argument("--op", required=True, help="allreduce, allgather, reducescatter, alltoall or broadcast; "
                   "a list OP,OP,… runs one case per op")
    p.add_argument("--algo", default="ring",
                   help="ring (default), tree (all-reduce only), nvls (NVLink SHARP inside NVLink domains: "
                        "all-reduce, all-gather, reduce-scatter), sharp (in-network reduction on InfiniBand "
                        "switches: all-reduce) or auto (the fastest of those per size)")
    p.add_argument("--sizes", default="8B:8GB:x2",
                   help="buffer sizes: START:STOP:xK geometric (default 8B:8GB:x2), or SIZE[,SIZE…]; "
                        "B/KB/MB/GB decimal, KiB/MiB/GiB binary; at most 1,000 sizes")
    p.add_argument("--gpus", default="all",
                   help="all (default), N (the first N in ring order) or NAME,NAME,… (ranks in that order); "
                        "a list of counts N1,N2,… (or all) is a scaling sweep, one case each")
    p.add_argument("--routing", choices=("static", "adaptive", "ecmp", "spray"),
                   help="default: the SM's LFTs (static) on InfiniBand, ecmp on RoCE")
    p.add_argument("--transport", choices=("ib", "roce-gbn", "roce-ooo"),
                   help="as simulate --transport (default from the design)")
    p.add_argument("--engine", choices=("minhop", "updn", "ftree", "dfsssp", "lash", "sssp", "dmodk"),
                   default="minhop", help="InfiniBand static routes: the subnet manager's LFTs from this engine "
                                          "(default minhop, as OpenSM), or dmodk for the built-in D-mod-k walk")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--csv", metavar="OUT", help="write one row per size")
    p.add_argument("--plot", metavar="OUT.png", help="busbw vs size (log x) as a PNG")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    from ..sim.fanout import add_fanout_args
    add_fanout_args(p)                   # several cases: --workers N, --scheduler ADDRESS, --quiet
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not one_case(args):                # designs × ops × GPU counts: cases fanned out
        return run_sweep(args)
    from ..loaders import load_any
    from ..sim.collective import collective, parse_sizes
    from ..sim.units import ParamError
    from .simulate import check_tech_options
    try:
        sizes = parse_sizes(args.sizes)
        fabric = load_any(args.file)
        check_tech_options(fabric, args)          # --engine is InfiniBand's
        res = collective(fabric, args.op.strip().lower(), sizes, args.algo.strip().lower(), args.gpus,
                         args.routing, args.transport, args.seed, engine=args.engine)
        if args.plot:
            write_plot(res, args.plot, f"{res.op} ({res.algo}), {res.n} GPUs: {fabric.name}")
    except ParamError as e:
        flag = FLAGS.get(e.param, f"--{e.param}")
        raise FabricError(e.with_flag(flag)) from None
    if args.csv:
        write_csv(res, args.csv)
    print(json.dumps(as_json(res, fabric.name), indent=2) if args.json else table(res, fabric.name))
    return 0


__all__ = ["FLAGS", "as_json", "register", "run", "table", "write_csv", "write_plot"]
