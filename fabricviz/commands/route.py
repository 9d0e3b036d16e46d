"""``fabricviz route FILE``: run the subnet manager's routing and report it."""

from __future__ import annotations

import argparse
import json

from ..loaders import load_any
from ..model import FabricError

#: ``fabricviz.ib.routing.ENGINES`` (kept here so building the parser imports no engine)
IB_ENGINES = ("minhop", "updn", "ftree", "dfsssp", "lash", "sssp")


def add_sm_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", choices=IB_ENGINES, default="minhop")
    p.add_argument("--sm", help="node the subnet manager runs on (default: the file's first node)")
    p.add_argument("--lmc", type=int, default=0, help="LID mask control (2^LMC LIDs per CA port)")
    p.add_argument("--roots", help="comma-separated root switches for updn (default: found automatically)")
    p.add_argument("--plane", help="a multi-plane design's plane (index from 0, or name): its own subnet, SM, "
                                   "LIDs and LFTs (default: the design as one subnet)")


def design_for(args: argparse.Namespace):
    """The design of ``args.file``, or its plane ``--plane`` alone."""
    fabric = load_any(args.file)
    if getattr(args, "plane", None) is not None:
        from ..model.planes import plane_fabric
        fabric = plane_fabric(fabric, args.plane)     # FabricError names the planes there are
    return fabric


def ethernet(fabric, args: argparse.Namespace, ib_only: tuple[str, ...] = ()) -> bool:
    """An Ethernet (RoCE) design: routed by ECMP (:mod:`fabricviz.sim.ecmp_route`), no SM; the SM's
    options given (``ib_only``: attribute names of the command's own) are refused."""
    from ..sim.reach import fabric_tech
    if fabric_tech(fabric) == "ib":
        return False
    for opt in ("sm", "roots", *ib_only):
        if getattr(args, opt, None):
            raise FabricError(f"--{opt.replace('_', '-')}: {args.file} is an Ethernet design, routed by ECMP "
                              "(no subnet manager)")
    return True


def routing_for(args: argparse.Namespace, fabric=None):
    from ..ib.lids import check_lmc
    from ..ib.routing import route
    check_lmc(args.lmc, "--lmc")
    fabric = design_for(args) if fabric is None else fabric
    roots = [r.strip() for r in args.roots.split(",")] if getattr(args, "roots", None) is not None else None
    if roots is not None and args.engine != "updn":     # no other engine reads roots: never ignore one
        raise FabricError(f"--roots {args.roots!r}: only --engine updn takes roots (not {args.engine})")
    if roots is not None and not all(roots):
        raise FabricError(f"--roots {args.roots!r}: give switch names separated by commas")
    missing = [r for r in roots or () if fabric.find(r) is None]
    if missing:
        raise FabricError(f"--roots: no device named {missing[0]!r} in {args.file}")
    return route(fabric, args.engine, sm=args.sm, lmc=args.lmc, roots=roots)  # LID space: cli names the file


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("route", help="assign LIDs and compute LFTs like OpenSM (" + ", ".join(IB_ENGINES) + ")")
    p.add_argument("file")
    add_sm_options(p)
    p.add_argument("--dump-lfts", metavar="OUT", help="write the LFTs in OpenSM's opensm-lfts.dump format")
    p.add_argument("--partitions", metavar="FILE",
                   help="OpenSM partitions.conf for the P_Key tables (default: the design's partitions)")
    p.add_argument("--qos-config", metavar="opensm.conf",
                   help="QoS options of an OpenSM options file (qos, qos_sl2vl, qos_vlarb_*, ...); "
                        "default: the options stored in the design")
    p.add_argument("--store-qos", action="store_true",
                   help="save the --qos-config options into the design file (a fabricviz design)")
    p.add_argument("--dump-tables", metavar="OUT",
                   help="write the P_Key, SL2VL and VLArb tables the SM programs (one line a table)")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ib.report import summary
    conf = None
    if args.partitions:                  # a bad file: exit 2 before anything is written
        from ..formats.partitions_conf import load as load_partitions
        conf = load_partitions(args.partitions)
    qos_options = None
    if args.qos_config:
        from ..formats import opensm_conf
        qos_options = opensm_conf.load(args.qos_config)
    if args.store_qos:
        if qos_options is None:
            raise FabricError("--store-qos needs --qos-config opensm.conf")
        from ..ib.qos_meta import META_KEY, to_meta
        from .partitions import store_meta
        store_meta(args.file, META_KEY, to_meta(qos_options), "--store-qos")
    fabric = design_for(args)
    if ethernet(fabric, args, ("dump_lfts", "partitions", "qos_config", "dump_tables", "lmc")):
        from ..sim.ecmp_route import ecmp_summary
        e = ecmp_summary(fabric)
        print(json.dumps(e.to_dict(), indent=2) if args.json else "\n".join(e.lines()))
        return 0
    r = routing_for(args, fabric)
    if qos_options is None:              # the options the design carries (fabricviz route --store-qos)
        from ..ib.qos_meta import design_qos
        qos_options = design_qos(r.subnet.fabric)
    s = summary(r)
    if args.dump_lfts:
        from ..formats.opensm_lfts import write_lfts
        write_lfts(r, args.dump_lfts)
        s["dump_lfts"] = args.dump_lfts
    if args.dump_tables or args.partitions or qos_options is not None:
        from ..ib.pkeys import design_tables
        from ..ib.qos import compute_qos
        pkeys = design_tables(r.subnet, conf)
        s["warnings"] += pkeys.warnings()
        qos = compute_qos(r.subnet, qos_options) if qos_options is not None else None
        if qos is not None and "vls_used" not in s:   # data VLs the SL2VL tables map some SL to
            s["vls_used"] = len({vl for table in qos.sl2vl.values() for vl in table if vl != 15})
        if args.dump_tables:
            from ..formats.sm_tables import write_tables
            write_tables(r, args.dump_tables, pkeys=pkeys, qos=qos)
            s["dump_tables"] = args.dump_tables
    if args.json:
        print(json.dumps(s, indent=2))
        return 0
    line = f"{s['switches']} switches, {s['ca_ports']} CA ports, {s['lids']} LIDs (max {s['max_lid']}), " \
           f"routed by {s['routed_by']} in {s['route_seconds']:.3f} s"
    print(line)
    for tier, (lo, hi) in s["uplink_routes"].items():
        print(f"routes per up-port, {tier}: {lo}..{hi}" if lo != hi else f"routes per up-port, {tier}: {lo}")
    for w in s["warnings"]:
        print(f"warning: {w}")
    return 0
