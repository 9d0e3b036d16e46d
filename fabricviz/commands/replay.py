"""``fabricviz replay TOPO DUMP``: a real fabric's OpenSM LFT dump on its topology — summary,
trace and credit loops on the tables the subnet manager really wrote."""

from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("replay", help="load a real opensm-lfts.dump onto its topology; trace, credit loops")
    p.add_argument("topology", help="ibnetdiscover output (or ibsim net file, or any design) of the fabric")
    p.add_argument("dump", help="opensm-lfts.dump from the same fabric")
    p.add_argument("--sm", help="node the SM ran on (only matters for discovery; default: the file's first node)")
    p.add_argument("--trace", nargs=2, metavar=("SRC", "DST"), help="path between two end ports by the tables")
    p.add_argument("--check-loops", action="store_true", help="search the tables for credit loops (exit 1 if any)")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..formats.opensm_replay import replay_files
    from ..ib.creditloops import find_credit_loops
    from ..ib.report import summary
    from ..ib.trace import trace
    r = replay_files(args.topology, args.dump, args.sm)
    s = summary(r)
    rc = 0
    t = trace(r, *args.trace) if args.trace else None
    loops = find_credit_loops(r) if args.check_loops else None
    if t is not None and not t.ok:
        rc = 1
    if loops:
        rc = 1
    if args.json:
        if t is not None:
            s["trace"] = {"src": t.src, "dst": t.dst, "slid": t.slid, "dlid": t.dlid, "ok": t.ok,
                          "problem": t.problem,
                          "hops": [{"switch": h.switch, "in": h.in_port, "out": h.out_port} for h in t.hops]}
        if loops is not None:
            s["credit_loops"] = [{"channels": list(lp.channels), "size": lp.size,
                                  "destinations": list(lp.destinations)} for lp in loops]
        print(json.dumps(s, indent=2))
        return rc
    print(f"{s['switches']} switches, {s['ca_ports']} CA ports, {s['lids']} LIDs (max {s['max_lid']}), "
          f"tables from {args.dump}")
    for tier, (lo, hi) in s["uplink_routes"].items():
        print(f"routes per up-port, {tier}: {lo}..{hi}" if lo != hi else f"routes per up-port, {tier}: {lo}")
    for w in s["warnings"]:
        print(f"warning: {w}")
    if t is not None:
        print(t.format())
    if loops is not None:
        for lp in loops:
            print(lp.format())
        print(f"{len(loops)} credit loop(s)" if loops else "no credit loops")
    return rc
