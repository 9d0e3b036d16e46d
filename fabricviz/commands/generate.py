"""``fabricviz generate fat-tree|leaf-spine|rail|superpod|nvl72|torus|ring|dragonfly``: build a fabric and save it."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import Fabric


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    gen = sub.add_parser("generate", help="generate a fabric and save it as a native file")
    gsub = gen.add_subparsers(dest="topology", parser_class=parser_class, required=True)

    ft = gsub.add_parser("fat-tree", help="InfiniBand (or RoCE) fat tree, 2 or 3 switch levels")
    ft.add_argument("--levels", type=int, choices=(2, 3), default=2)
    ft.add_argument("--radix", type=int, required=True, help="switch radix (ports used per switch)")
    ft.add_argument("--hosts", type=int, help="fabric end ports (default: the most the tree allows)")
    ft.add_argument("--blocking", default="1:1", help="leaf host ports : uplinks, e.g. 2:1")
    ft.add_argument("--parallel", type=int, default=1, help="parallel links between a leaf and a spine")
    ft.add_argument("--fabric", choices=("ib", "roce"), default="ib")
    ft.add_argument("--servers", choices=("node", "dgx"), default="node",
                    help="node: 1 GPU + 1 NIC per host; dgx: 8-GPU/8-NIC servers")
    ft.add_argument("--switch", help="catalog part id of the switches")
    ft.add_argument("--speed", help="link rate, e.g. 4xNDR, 4xHDR, 400GbE")
    ft.add_argument("--planes", type=int, default=1, help="planes: one tree per plane, each NIC port split")
    ft.add_argument("--name", help="design name (default: from the parameters)")
    ft.add_argument("-o", "--output", required=True)

    ls = gsub.add_parser("leaf-spine", help="leaf-spine (RoCE by default), optional super-spine tier")
    ls.add_argument("--leaves", type=int, required=True)
    ls.add_argument("--spines", type=int, required=True)
    ls.add_argument("--hosts-per-leaf", type=int, required=True)
    ls.add_argument("--uplinks", type=int, help="uplinks per leaf (default: one per spine)")
    ls.add_argument("--oversubscription", help="leaf host ports : uplinks, e.g. 3:1 (sets --uplinks)")
    ls.add_argument("--speed", default=None, help="link rate (default 400GbE; 4xNDR with --fabric ib)")
    ls.add_argument("--fabric", choices=("ib", "roce"), default="roce")
    ls.add_argument("--super-spines", type=int, default=0)
    ls.add_argument("--pods", type=int, default=1)
    ls.add_argument("--servers", choices=("node", "dgx"), default="node")
    ls.add_argument("--switch", help="catalog part id of the switches")
    ls.add_argument("--name", help="design name (default: from the parameters)")
    ls.add_argument("-o", "--output", required=True)

    rl = gsub.add_parser("rail", help="rail-optimized DGX scalable units (SuperPOD style)")
    rl.add_argument("--units", type=int, required=True, help="scalable units of 32 DGX nodes")
    rl.add_argument("--fabric", choices=("ib", "roce"), default="ib")
    rl.add_argument("--speed", help="link rate (default 4xNDR, 400GbE with --fabric roce)")
    rl.add_argument("--switch", help="catalog part id of the switches")
    rl.add_argument("--planes", type=int, default=1, help="planes: one fabric per plane, each NIC port split")
    rl.add_argument("--name", help="design name (default: from the parameters)")
    rl.add_argument("-o", "--output", required=True)

    spd = gsub.add_parser("superpod", help="NVIDIA DGX SuperPOD compute fabric, sized as its reference architecture")
    spd.add_argument("--system", required=True, metavar="{dgx-h100,dgx-b200,dgx-b300,dgx-b300-xdr}",
                     help="the RA's system (gb200-nvl72: no published counts; see 'generate nvl72')")
    spd.add_argument("--units", type=int, required=True, help="scalable units (SUs)")
    spd.add_argument("--fabric", choices=("ib", "roce"), default="ib")
    spd.add_argument("--planes", type=int, default=1,
                     help="planes of a multi-plane design (dgx-b300: 2; dgx-b300-xdr: 2 or 4)")
    spd.add_argument("--name", help="design name (default: from the parameters)")
    spd.add_argument("-o", "--output", required=True)

    nv = gsub.add_parser("nvl72", help="GB200/GB300 NVL72 racks (NVLink domains) on a rail-optimised leaf/spine")
    nv.add_argument("--racks", type=int, required=True, help="NVL72 racks (NVLink domains of 18 compute trays)")
    nv.add_argument("--system", choices=("gb200", "gb300"), default="gb200")
    nv.add_argument("--fabric", choices=("ib", "roce"), default="ib")
    nv.add_argument("--partition", type=int, help="GPUs per NVLink partition of every rack (4, 8, 12, 36, ...)")
    nv.add_argument("--name", help="design name (default: from the parameters)")
    nv.add_argument("-o", "--output", required=True)

    _register_direct(gsub)
    gen.set_defaults(func=run)


def _register_direct(gsub: argparse._SubParsersAction) -> None:
    """``torus``, ``ring`` and ``dragonfly`` (:mod:`fabricviz.generate.direct`)."""
    to = gsub.add_parser("torus", help="2-D or 3-D torus (or mesh) of switches, hosts on every switch")
    to.add_argument("--dims", required=True, help="switches per dimension, e.g. 4x4 or 4x4x4")
    rg = gsub.add_parser("ring", help="ring of switches (a 1-D torus), hosts on every switch")
    rg.add_argument("--switches", type=int, required=True)
    for p in (to, rg):
        p.add_argument("--hosts-per-switch", type=int, default=1)
        p.add_argument("--links-per-neighbour", type=int, default=1, help="parallel cables to each neighbour")
        p.add_argument("--mesh", action="store_true", help="no wrap-around cables (a mesh / a line)")
    df = gsub.add_parser("dragonfly", help="dragonfly: groups of all-to-all routers joined by global links")
    df.add_argument("--groups", type=int, required=True)
    df.add_argument("--routers", type=int, required=True, help="routers per group (a)")
    df.add_argument("--hosts", type=int, required=True, help="hosts per router (p)")
    df.add_argument("--global-links", type=int, default=1, help="global links per router (h)")
    df.add_argument("--balanced", action="store_true", help="refuse unless a = 2p = 2h")
    for p in (to, rg, df):
        p.add_argument("--fabric", choices=("ib", "roce"), default="ib")
        p.add_argument("--speed", help="link rate (default 4xNDR, 400GbE with --fabric roce)")
        p.add_argument("--switch", help="catalog part id of the switches")
        p.add_argument("--servers", choices=("node", "dgx"), default="node")
        p.add_argument("--name", help="design name (default: from the parameters)")
        p.add_argument("-o", "--output", required=True)


def flag_of(topology: str, param: str) -> str:
    """The flag of ``generate TOPOLOGY`` that sets the generator's parameter ``param`` (a ring's
    one dimension is its ``--switches``; the others are the parameter's name as a flag)."""
    if topology == "ring" and param == "dims":
        return "--switches"
    return "--" + param.replace("_", "-")


def run(args: argparse.Namespace) -> int:
    from ..formats.native import save_fabric
    from ..model import FabricError
    from ..model.errors import ParamError
    from ..model.names import check_text_name
    if args.name is not None:            # the one name validator (control / bidi characters refused)
        args.name = check_text_name(args.name, "--name")
    try:                                 # the generators name a parameter in words (the GUI's); here: its flag
        f = _build(args)
    except ParamError as e:
        raise FabricError(e.with_flag(flag_of(args.topology, e.param))) from None
    save_fabric(f, args.output)
    c = f.counts()
    switches = c["ib_switch"] + c["eth_switch"]
    print(f"{args.output}: {f.name}: {c['server']:,} servers, {c['gpu']:,} GPUs, {c['nic']:,} NICs, "
          f"{switches:,} switches, {c['cables']:,} cables")
    return 0


def _build(args: argparse.Namespace) -> Fabric:
    from ..generate import fat_tree, leaf_spine, rail_optimized
    if args.topology == "fat-tree":
        f = fat_tree(levels=args.levels, radix=args.radix, hosts=args.hosts, blocking=args.blocking,
                     parallel=args.parallel, fabric=args.fabric, servers=args.servers,
                     switch=args.switch, speed=args.speed, name=args.name, planes=args.planes)
    elif args.topology == "leaf-spine":
        f = leaf_spine(args.leaves, args.spines, args.hosts_per_leaf, uplinks=args.uplinks,
                       speed=args.speed, fabric=args.fabric, oversubscription=args.oversubscription,
                       super_spines=args.super_spines, pods=args.pods, servers=args.servers,
                       switch=args.switch, name=args.name)
    elif args.topology == "superpod":
        from ..generate import superpod
        f = superpod(args.system, args.units, fabric=args.fabric, name=args.name, planes=args.planes)
    elif args.topology == "nvl72":
        from ..generate.nvl72 import nvl72
        f = nvl72(args.racks, args.system, fabric=args.fabric, partition=args.partition, name=args.name)
    elif args.topology in ("torus", "ring"):
        from ..generate import torus
        dims = args.dims if args.topology == "torus" else (args.switches,)
        f = torus(dims, args.hosts_per_switch, args.links_per_neighbour, wrap=not args.mesh,
                  speed=args.speed, fabric=args.fabric, switch=args.switch, servers=args.servers,
                  name=args.name)
    elif args.topology == "dragonfly":
        from ..generate import dragonfly
        f = dragonfly(args.groups, args.routers, args.hosts, args.global_links, balanced=args.balanced,
                      speed=args.speed, fabric=args.fabric, switch=args.switch, servers=args.servers,
                      name=args.name)
    else:
        f = rail_optimized(units=args.units, fabric=args.fabric, speed=args.speed, switch=args.switch,
                           name=args.name, planes=args.planes)
    return f


