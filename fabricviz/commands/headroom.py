"""``fabricviz headroom FILE``: PFC headroom per lossless port (every term) and the buffer
budget per switch; exit 1 when a switch's headroom does not fit its buffer."""

from __future__ import annotations

import argparse
import math
from typing import Any


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("headroom", help="PFC headroom per port and buffer budget per switch (RoCE)")
    p.add_argument("file")
    p.add_argument("--mtu", type=int, default=None,
                   help="largest frame on a lossless port, bytes (default: the design's, else 9216)")
    p.add_argument("--method", choices=("ieee", "nvidia"), default=None,
                   help="ieee: 802.1Qbb worst case (default); nvidia: the NVIDIA rule of thumb")
    p.add_argument("--priorities", default=None,
                   help="lossless 802.1p priorities, e.g. 3 or 3,4 (default: the design's, else 3)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=run)


def _priorities(texts: str | None) -> tuple[int, ...] | None:
    from ..ethernet.roce_meta import parse_priorities
    from ..model import FabricError
    try:
        return parse_priorities(texts, "--priorities")
    except ValueError as e:
        raise FabricError(str(e)) from None


def _num(v: float) -> float | None:
    return None if math.isnan(v) else v


def report(fabric: Any, plan: Any, other: Any) -> dict[str, Any]:
    """The JSON document: settings, ports (with the other method's total) and switches."""
    ports = []
    for p in plan.ports.tolist():
        ports.append({"switch": fabric.name_of(int(fabric.ports_t.device[p])), "port": fabric.port_name(p),
                      "speed_gbps": float(plan.gbps[p]), "cable_m": float(round(plan.cable_m[p], 3)),
                      "cable_type": fabric.cable(int(fabric.ports_t.cable[p])).type,
                      "medium": str(plan.medium[p]), "headroom_bytes": int(plan.headroom_bytes[p]),
                      "terms": plan.terms(p), f"headroom_{other.method}_bytes": int(other.headroom_bytes[p]),
                      "xoff_bytes": float(plan.xoff_bytes[p]), "xon_bytes": float(plan.xon_bytes[p])})
    switches = []
    for d, b in sorted(plan.switches.items()):
        switches.append({"switch": fabric.name_of(d), "part": b.part, "buffer_bytes": _num(b.buffer_bytes),
                         "estimated": b.estimated, "ports": b.ports, "headroom_total": b.headroom_total,
                         "reserved": b.reserved, "shared_pool": _num(b.shared_pool), "alpha": b.alpha,
                         "dynamic_th": b.dynamic_th, "use": _num(b.use), "fits": b.fits})
    return {"mtu": plan.mtu, "method": plan.method, "priorities": list(plan.priorities),
            "ports": ports, "switches": switches}


def _mb(v: float | None) -> str:
    return "?" if v is None else f"{v / 2**20:.2f}"


def _print(doc: dict[str, Any], other: str) -> None:
    prios = ",".join(map(str, doc["priorities"]))
    print(f"PFC headroom ({doc['method']}, MTU {doc['mtu']} B, lossless priorities {prios})")
    terms = list(doc["ports"][0]["terms"]) if doc["ports"] else []
    short = {"receiver_max_frame": "rx frame", "pause_frame": "pause", "interface_delay": "intf",
             "response_delay": "resp", "cable_propagation": "cable", "sender_max_frame": "tx frame",
             "sender_mtu": "tx mtu", "receiver_mtu": "rx mtu", "fixed": "fixed"}
    head = (f"{'switch':<14} {'port':<18} {'Gb/s':>5} {'m':>7} {'cable':<11} {'headroom B':>10} "
            + " ".join(f"{short.get(t, t):>8}" for t in terms) + f" {other + ' B':>9}")
    print(head)
    for r in doc["ports"]:
        ctype = f"{r['cable_type']}/{r['medium']}"
        print(f"{r['switch']:<14} {r['port']:<18} {r['speed_gbps']:>5g} {r['cable_m']:>7g} {ctype:<11} "
              f"{r['headroom_bytes']:>10,} " + " ".join(f"{v:>8.0f}" for v in r["terms"].values())
              + f" {r[f'headroom_{other}_bytes']:>9,}")
    print()
    print(f"{'switch':<14} {'part':<8} {'buffer MiB':>10} {'est':>4} {'ports':>5} {'headroom MiB':>12} "
          f"{'reserved MiB':>12} {'shared MiB':>10} {'alpha':>5} {'use':>6}  fits")
    for s in doc["switches"]:
        use = "?" if s["use"] is None else f"{100 * s['use']:.1f}%"
        print(f"{s['switch']:<14} {s['part']:<8} {_mb(s['buffer_bytes']):>10} "
              f"{'yes' if s['estimated'] else 'no':>4} {s['ports']:>5} {_mb(s['headroom_total']):>12} "
              f"{_mb(s['reserved']):>12} {_mb(s['shared_pool']):>10} {s['alpha']:>5g} {use:>6}  "
              f"{'yes' if s['fits'] else 'NO'}")
    bad = [s["switch"] for s in doc["switches"] if not s["fits"]]
    if bad:
        print(f"headroom does not fit the buffer of: {', '.join(bad)}")


def run(args: argparse.Namespace) -> int:
    import json

    from ..ethernet.lossless import lossless_plan
    from ..ethernet.roce_meta import RoceMetaError, design_error
    from ..loaders import load_any
    from ..model import FabricError
    prios = _priorities(args.priorities)
    fabric = load_any(args.file)
    try:
        plan = lossless_plan(fabric, mtu=args.mtu, method=args.method, priorities=prios)
        other = lossless_plan(fabric, mtu=plan.mtu, method="nvidia" if plan.method == "ieee" else "ieee",
                              priorities=plan.priorities)
    except RoceMetaError as e:
        raise FabricError(design_error(args.file, e)) from None
    except ValueError as e:
        raise FabricError(str(e)) from None
    if not plan.switches:
        raise FabricError(f"{args.file}: not a RoCE design (no cabled Ethernet switch port)")
    doc = report(fabric, plan, other)
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        _print(doc, other.method)
    return 0 if all(s["fits"] for s in doc["switches"]) else 1
