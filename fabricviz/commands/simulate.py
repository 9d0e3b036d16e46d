"""``fabricviz simulate FILE``: route a workload and share the fabric out (max-min or fluid)."""

from __future__ import annotations

import argparse
import json
import re
import sys

from ..model import FabricError

_DUR = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e-?\d+)?)\s*(s|ms|us|µs|ns)?\s*$", re.I)
_UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, None: 1.0}


def parse_duration(text: str) -> float:
    """``10ms``, ``250us``, ``0.5s`` → seconds."""
    m = _DUR.match(text)
    if not m:
        raise FabricError(f"--duration {text!r}: use e.g. 10ms, 250us, 0.5s")
    v = float(m.group(1)) * _UNIT[m.group(2).lower() if m.group(2) else None]
    if not v > 0:
        raise FabricError(f"--duration {text!r}: must be positive")
    return v


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("simulate", help="run a workload: per-flow rates, link load, queues, pauses")
    p.add_argument("file", help="design file (native JSON or ibnetdiscover)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", help="ring[:SIZE], alltoall[:SIZE], permutation, shift[:K], incast[:N]")
    src.add_argument("--flows", help="flow CSV: src,dst[,bytes,rate_gbps,start_us,step]")
    p.add_argument("--over", choices=("auto", "gpu", "nic"), default="auto",
                   help="ranks of a --workload: GPUs (via PCIe and their NIC) or NICs")
    p.add_argument("--routing", choices=("static", "adaptive", "ecmp", "spray"),
                   help="default: static on InfiniBand, ecmp on RoCE")
    p.add_argument("--engine", choices=("minhop", "updn", "ftree", "dmodk"), default="minhop",
                   help="InfiniBand static routes: the subnet manager's LFTs from this engine "
                        "(default minhop, as OpenSM), or dmodk for the built-in D-mod-k walk")
    p.add_argument("--same-hash", action="store_true",
                   help="ECMP: same hash seed on every switch (shows polarization)")
    p.add_argument("--model", choices=("maxmin", "fluid"), default="maxmin")
    p.add_argument("--duration", default="10ms", help="fluid run length (default 10ms)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out-flows", help="write per-flow CSV (src,dst,rate_gbps,latency_ns)")
    p.add_argument("--out-links", help="write per-link CSV (link,from,to,utilization,queue_bytes,latency_ns)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..loaders import load_any
    from ..sim.engine import simulate
    from ..sim.flows_csv import load_flows, save_flow_results, save_link_results
    from ..sim.fluid import text_progress
    from ..sim.workloads import make_workload
    duration = parse_duration(args.duration)
    fabric = load_any(args.file)
    flows = load_flows(fabric, args.flows) if args.flows else \
        make_workload(fabric, args.workload, seed=args.seed, over=args.over)
    provider = None
    from ..sim.engine import fabric_tech
    if fabric_tech(fabric) == "ib" and args.routing in (None, "static") and args.engine != "dmodk":
        from ..ib.routing import route
        from ..sim.paths import sm_paths
        provider = sm_paths(route(fabric, args.engine))
    res = simulate(fabric, flows, args.routing, args.model, duration, args.seed, args.same_hash,
                   provider=provider, progress=text_progress() if args.model == "fluid" else None)
    rate = res.flow_rates()
    lat = res.steady("flow_latency_ns")
    if args.out_flows:
        save_flow_results(fabric, res.flows, rate, lat, args.out_flows)
    if args.out_links:
        util = res.steady("link_util")
        last = res.last
        save_link_results(fabric, res.links, util, last.link_queue, last.link_latency_ns,
                          last.link_paused, args.out_links)
    summary = res.summary(fabric)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(format_summary(summary))
    return 0


def format_summary(s: dict) -> str:
    r = s["rate_share"]
    lines = [f"{s['flows']} flows, {s['routing']} routing, {s['model']} model on {s['fabric']}"
             + (f", {s['duration_s'] * 1e3:g} ms" if "duration_s" in s else ""),
             f"flow rate / line rate: mean {r['mean']:.3f}  min {r['min']:.3f}  max {r['max']:.3f}"
             f"  (total {s['rate_gbps']['total']:.1f} Gb/s)"]
    if s["hottest_links"]:
        lines.append("hottest links:")
        lines += [f"  {h['from']} -> {h['to']}: {h['utilization']:.1%}" for h in s["hottest_links"]]
    if "max_queue" in s:
        mq = s["max_queue"]
        lines.insert(1, f"rates and utilisation: mean over the steady part, from {s['steady_from_s'] * 1e3:g} ms")
        lines.append(f"max queue: {mq['bytes'] / 1e3:.1f} KB at {mq['link']} (peak at {mq['at_s'] * 1e3:.3f} ms;"
                     f" {mq['steady_bytes'] / 1e3:.1f} KB mean over the steady part)")
        n, shown = s["paused_link_count"], len(s["paused_links"])
        lines.append("paused links: none" if n == 0 else
                     f"paused links: {n}" + (f" ({shown} most paused shown)" if n > shown else "") + ":"
                     + "".join(f"\n  {p['from']} -> {p['to']}: paused {p['paused_fraction']:.1%}"
                               for p in s["paused_links"]))
        lines.append(f"flows: {s['active_flows']} sent, {s['finished_flows']} finished"
                     + (f", all done at {s['completion_s'] * 1e3:.3f} ms" if "completion_s" in s else ""))
        lost = s["lost_bytes"]
        lines.append(f"bytes lost: {lost:g}" + (" (lossless)" if lost == 0 else "")
                     + (f"; headroom exceeded on {s['headroom_exceeded_links']} links (a real switch would drop)"
                        if s.get("headroom_exceeded_links") else ""))
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(0)
