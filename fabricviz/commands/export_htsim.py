"""``fabricviz export-htsim FILE (--workload W | --flows CSV) -o DIR``: the workload as an htsim_roce
run (connections.cm, hosts.csv, flows.csv, run.sh, README.txt), to check a ``simulate`` result at
packet level in htsim (github.com/Broadcom/csg-htsim).

``--workload``/``--flows``, ``--over`` and ``--seed`` mean what they mean to ``simulate``. Exit 2 with
one line, writing nothing, for a design htsim's fat tree cannot build or a flow it cannot run.
"""

from __future__ import annotations

import argparse

ROUTINGS = ("ecmp", "adaptive", "spray")


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("export-htsim", help="write an htsim_roce run of a workload (packet-level check)")
    p.add_argument("file", help="design file: a full 2- or 3-level fat tree, one NIC port per host, one speed")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", help="as simulate: ring[:SIZE], alltoall[:SIZE], permutation[:SEED][:SIZE], "
                     "shift[:K][:SIZE], incast[:N][:SIZE]")
    src.add_argument("--flows", help="flow CSV as simulate reads it: src,dst[,bytes,rate_gbps,start_us,step,sl]")
    p.add_argument("--over", choices=("auto", "gpu", "nic"), default="auto",
                   help="ranks of a --workload: GPUs (sending from their NIC's host) or NICs")
    p.add_argument("--routing", choices=ROUTINGS,
                   help="ecmp (htsim -strat ecmp_host), adaptive (ecmp_ar, per flowlet) or spray (ecmp_rr); "
                        "default ecmp, as simulate on RoCE")
    p.add_argument("--transport", choices=("eqds", "ndp", "hpcc"),
                   help="run.sh runs htsim_eqds, htsim_ndp or htsim_hpcc (as simulate --transport) instead of "
                        "htsim_roce, with the flags fabricviz's model of that transport assumes")
    p.add_argument("--seed", type=int, default=0, help="workload seed (as simulate), also htsim's -seed")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="folder to write into")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..loaders import load_any
    from ..sim.flows_csv import load_flows
    from ..sim.htsim import export_htsim
    from ..sim.reach import fabric_tech, host_reach
    from ..sim.workloads import make_workload
    from .simulate import IB_ONLY, flag_errors
    with flag_errors():
        fabric = load_any(args.file)
        if args.flows:
            no_sl = None if fabric_tech(fabric) == "ib" else f"{IB_ONLY['sl']}; {args.file} is a RoCE design"
            flows, where = load_flows(fabric, args.flows, no_sl=no_sl), args.flows
        else:
            flows = make_workload(fabric, args.workload, seed=args.seed, over=args.over, reach=host_reach(fabric))
            where = f"--workload {args.workload} --seed {args.seed} --over {args.over}"
        paths = export_htsim(fabric, flows, args.output, design=args.file, flows_from=where,
                             routing=args.routing, seed=args.seed, transport=args.transport)
    for path in paths:
        print(path)
    return 0
