"""``fabricviz latency FILE SRC DST``: every hop of the path with its forwarding mode
(cut-through / store-and-forward), the bytes it serializes and its latency components."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("latency", help="unloaded one-way latency of the path between two GPUs or NICs")
    p.add_argument("file")
    p.add_argument("src", help="GPU or NIC name, e.g. node001/gpu0")
    p.add_argument("dst")
    p.add_argument("--bytes", type=int, default=4096, help="packet size for serialization (default 4096)")
    p.add_argument("--routing", choices=("static", "ecmp"), default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    import numpy as np

    from ..loaders import load_any
    from ..model import FabricError
    from ..sim.engine import fabric_tech
    from ..sim.latency import LatencyParams, nic_overheads, path_hops
    from ..sim.links import link_table
    from ..sim.paths import route
    from ..sim.workloads import Flows
    if args.bytes <= 0:
        raise FabricError(f"--bytes {args.bytes}: must be positive")
    fabric = load_any(args.file)
    ends = []
    for ref in (args.src, args.dst):
        d = fabric.find(ref)
        if d is None:
            raise FabricError(f"{ref!r}: no such device (use a GPU or NIC name, e.g. node001/gpu0)")
        ends.append(d)
    links = link_table(fabric)
    mode = args.routing or ("static" if fabric_tech(fabric) == "ib" else "ecmp")
    r = route(fabric, links, Flows(np.array([ends[0]]), np.array([ends[1]])), mode, seed=args.seed)
    path = r.path(0)
    prm = LatencyParams(bytes=float(args.bytes))
    rows, total = path_hops(fabric, links, path, prm)
    tx, rx = nic_overheads(fabric, links, path, prm)
    if args.json:
        print(json.dumps({"hops": rows, "nic_tx_ns": tx, "nic_rx_ns": rx, "total_ns": total}, indent=2))
        return 0
    print(f"{args.src} -> {args.dst}: {len(rows)} hops, {args.bytes} B packets, {mode} route")
    print(f"{'from':<24} {'to':<24} {'Gb/s':>6} {'forwarding':<17} {'bytes':>6} {'serial':>8} {'prop':>8} "
          f"{'switch':>8} {'total ns':>9}")
    blank = f"{'':<24} {'':>6} {'':<17} {'':>6} {'':>8} {'':>8} {'':>8}"
    print(f"{'NIC tx':<24} {blank} {tx:>9.1f}")
    for h in rows:
        print(f"{h['from']:<24} {h['to']:<24} {h['gbps']:>6g} {h['mode']:<17} {h['bytes_serialized']:>6g} "
              f"{h['serialization_ns']:>8.1f} {h['propagation_ns']:>8.1f} {h['switch_ns']:>8.1f} "
              f"{h['total_ns']:>9.1f}")
    print(f"{'NIC rx':<24} {blank} {rx:>9.1f}")
    print(f"total one-way: {total:.1f} ns ({total / 1000:.3f} µs); a cut-through hop serializes "
          f"only the {prm.header_bytes:g} B header")
    return 0
