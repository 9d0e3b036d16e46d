"""``fabricviz simulate FILE``: route a workload and share the fabric out (max-min or fluid).

The engines name parameters in words; this layer turns a :class:`~fabricviz.sim.units.ParamError`
into the same line naming the flag (``--duration 'soon': …``). Hosts the run cannot reach are
left out with one warning line on stderr; the run goes on over the rest. An option of the other
technology (``--sl`` on RoCE, ``--pfc-watchdog`` on InfiniBand, …) is refused, never ignored.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from ..model import FabricError
from ..sim.transports.params import NEW_TRANSPORTS
from ..sim.units import ParamError

#: The flag of each engine parameter, for error messages.
FLAGS = {"routing": "--routing", "model": "--model", "workload": "--workload", "over": "--over",
         "duration": "--duration", "engine": "--engine", "sl": "--sl", "dcqcn": "--dcqcn",
         "flow_control": "--flow-control", "pfc_watchdog": "--pfc-watchdog", "cc": "--cc",
         "fail": "--fail", "pfc_watchdog_restore": "--pfc-watchdog-restore",
         "pfc_watchdog_action": "--pfc-watchdog-action", "partition": "--partition", "transport": "--transport"}

#: RoCE-only options (refused on an InfiniBand design) and InfiniBand-only ones with what they are
#: (refused on a RoCE design): a run never quietly ignores an option of the other technology.
ROCE_ONLY = ("dcqcn", "cc", "pfc_watchdog", "pfc_watchdog_restore", "pfc_watchdog_action")
IB_ONLY = {"sl": "service levels are InfiniBand's", "engine": "subnet manager routing engines are InfiniBand's",
           "partition": "partitions (P_Keys) are InfiniBand's"}


@contextmanager
def flag_errors() -> Iterator[None]:
    """Re-raise an engine's :class:`ParamError` as a FabricError naming the CLI flag."""
    try:
        yield
    except ParamError as e:
        if e.param not in FLAGS:
            raise
        raise FabricError(e.with_flag(FLAGS[e.param])) from None


def left_out_warning(res) -> str:
    """The one stderr line for hosts a run left out ('' when none)."""
    from ..sim.reach import left_out_line
    line = left_out_line(res.left_out)
    if not line:
        return ""
    if res.dropped_flows:
        line += f"; {res.dropped_flows:,} of the given flows touch them and were left out"
    return f"warning: {line}"


def check_tech_options(fabric, args: argparse.Namespace, path: str | None = None) -> None:
    """Refuse, in one line naming the flag, an option of the other technology than the design's
    (DCQCN, PFC and its watchdog on InfiniBand; SLs, SM engines, partitions, credits on RoCE).
    ``path``: the design's file as the line names it (default ``args.file``; several designs: each one's)."""
    from ..sim.reach import fabric_tech
    path = args.file if path is None else path
    given = [d for d in (*ROCE_ONLY, *IB_ONLY) if getattr(args, d, None) is not None]
    fc = getattr(args, "flow_control", None)
    if fabric_tech(fabric) == "ib":
        for d in given:
            if d in ROCE_ONLY:
                raise FabricError(f"{FLAGS[d]}: applies to RoCE (Ethernet) designs; {path} is InfiniBand")
        if fc in ("pfc", "lossy"):
            raise FabricError(f"--flow-control {fc}: applies to RoCE (Ethernet) designs; {path} is InfiniBand")
        return
    for d in given:
        if d in IB_ONLY:
            raise FabricError(f"{FLAGS[d]}: {IB_ONLY[d]}; {path} is a RoCE design")
    if fc == "credit":
        raise FabricError(f"--flow-control credit: credits are InfiniBand's; {path} is a RoCE design "
                          "(use pfc or lossy)")
    for d in ("pfc_watchdog_restore", "pfc_watchdog_action"):
        if d in given and getattr(args, "pfc_watchdog", None) is None:
            raise FabricError(f"{FLAGS[d]}: needs --pfc-watchdog (the detection time)")


def _sl(sl: int | None) -> int | None:
    if sl is not None and not 0 <= sl <= 15:
        raise ParamError("sl", sl, "is not a service level 0..15")
    return sl


def fluid_params(fabric, args: argparse.Namespace):
    """The fluid model's parameters from ``--dcqcn`` / ``--flow-control`` (None: the engine's
    defaults for the design's technology); the options were checked against the design's
    technology first (:func:`check_tech_options`)."""
    dcqcn, fc = getattr(args, "dcqcn", None), getattr(args, "flow_control", None)
    wd, cc = getattr(args, "pfc_watchdog", None), getattr(args, "cc", None)
    if args.model != "fluid" and wd is not None:
        raise ParamError("pfc_watchdog", wd, "applies to fluid runs (--model fluid)")
    if args.model != "fluid" or (dcqcn is None and fc is None and wd is None and cc is None):
        return None
    from ..sim.engine import roce_fluid
    from ..sim.fluid import FluidParams
    from ..sim.reach import fabric_tech
    if fabric_tech(fabric) == "ib":          # the other technology's options: check_tech_options refused
        return FluidParams(cc="none", flow_control="credit")
    prm = roce_fluid(fabric, dcqcn, fc or "pfc", cc or "dcqcn")
    if wd is None:
        return prm
    if (fc or "pfc") != "pfc":
        raise ParamError("pfc_watchdog", wd, "watches PFC pauses: it needs --flow-control pfc")
    from dataclasses import replace

    from ..sim.units import parse_duration

    def dur(text: str) -> float:
        try:
            return parse_duration(text)
        except ParamError as e:
            raise ParamError("pfc_watchdog", text, e.problem) from None
    restore = getattr(args, "pfc_watchdog_restore", None)
    return replace(prm, pfc_watchdog_s=dur(wd), pfc_watchdog_restore_s=dur(restore) if restore else None,
                   pfc_watchdog_action=getattr(args, "pfc_watchdog_action", None) or "drop")


def _pfc_cycle(fabric, args: argparse.Namespace, duration: float, progress):
    """The flows loading the first PFC cycle after ``--fail`` (bounce routes), forced onto their
    paths; ``pfc-cycle:SIZE`` gives each that size."""
    import numpy as np

    from ..ethernet.pfc_watchdog import cycle_load
    from ..sim.engine import simulate
    from ..sim.workloads import Flows, parse_size
    _, _, arg = args.workload.partition(":")
    try:
        size = parse_size(arg) if arg else np.inf
    except FabricError as e:
        raise ParamError("workload", args.workload, str(e)) from None
    cyc, cf = cycle_load(fabric, failed=args.fail)
    print(f"loading {cyc.ring()} with {len(cf)} flows", file=sys.stderr)
    flows = Flows(cf.src, cf.dst, np.full(len(cf.src), size))
    return simulate(fabric, flows, args.routing, args.model, duration, args.seed,
                    provider=cf.provider(), progress=progress, fluid=fluid_params(fabric, args))


def register(sub: argparse._SubParsersAction, parser_class: type) -> None:
    p = sub.add_parser("simulate", help="run a workload: per-flow rates, link load, queues, pauses")
    p.add_argument("file", help="design file (native JSON or ibnetdiscover)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", help="ring[:SIZE], alltoall[:SIZE] (SIZE per rank, default 1GB; a bare "
                     "number is bytes), permutation[:SEED][:SIZE], shift[:K][:SIZE], incast[:N][:SIZE] (SIZE per "
                     "flow, with a unit: permutation:4MB, incast:8:1MB; default long-lived), or pfc-cycle[:SIZE]: "
                     "the flows that load the first PFC cycle check-pfc-deadlock finds (with --fail), on its "
                     "paths. Sizes: B, KB, MB, GB, TB decimal; KiB, MiB, GiB, TiB binary. Sized flows run to "
                     "completion: the summary gives their completion times (FCT)")
    src.add_argument("--flows", help="flow CSV: src,dst[,bytes,rate_gbps,start_us,step,sl]")
    p.add_argument("--sl", type=int, metavar="N",
                   help="InfiniBand service level 0..15 of every flow (a flow CSV's sl column overrides it "
                        "per flow); default 0, or each path's SL when the routing engine gives one (dfsssp, lash)")
    p.add_argument("--over", choices=("auto", "gpu", "nic"), default="auto",
                   help="ranks of a --workload: GPUs (via PCIe and their NIC) or NICs")
    p.add_argument("--routing", choices=("static", "adaptive", "ecmp", "spray"),
                   help="default: static on InfiniBand, ecmp on RoCE")
    p.add_argument("--engine", choices=("minhop", "updn", "ftree", "dfsssp", "lash", "dmodk"),
                   help="InfiniBand static routes: the subnet manager's LFTs from this engine "
                        "(default minhop, as OpenSM), or dmodk for the built-in D-mod-k walk")
    p.add_argument("--same-hash", action="store_true",
                   help="ECMP: same hash seed on every switch (shows polarization)")
    p.add_argument("--model", choices=("maxmin", "fluid"), default="maxmin")
    p.add_argument("--duration", default="10ms",
                   help="fluid run length (default 10ms; from 1us, one fluid tick, to 1s: 1,000,000 ticks); a run "
                        "whose flows all have sizes ends when the last one finishes")
    p.add_argument("--dcqcn", choices=("paper", "nvidia"),
                   help="RoCE fluid runs: DCQCN parameters, the SIGCOMM'15 paper's or the ConnectX firmware "
                        "defaults (default: the design's roce.dcqcn setting, else nvidia)")
    p.add_argument("--flow-control", choices=("pfc", "credit", "lossy"),
                   help="fluid runs: PFC pauses (RoCE default), credits (InfiniBand default) or lossy "
                        "(no PFC: full queues drop, go-back-N resends)")
    p.add_argument("--cc", choices=("dcqcn", "none"),
                   help="RoCE fluid runs: congestion control (default dcqcn; none: PFC only)")
    p.add_argument("--transport", choices=("ib", "roce-gbn", "roce-ooo") + NEW_TRANSPORTS,
                   help="how the NICs take reordered packets: ib (InfiniBand), roce-ooo (out-of-order placement, "
                        "no cost) or roce-gbn (go-back-N: adaptive/spray routing resends); default from the "
                        "design: ib, else roce-ooo when every NIC part has ooo_placement, else roce-gbn. RoCE "
                        "designs also take eqds (receiver-driven, sprayed, trimming), ndp (the same, "
                        "window-limited) and hpcc (INT-based window over lossless ECMP) with htsim's constants: "
                        "flow-level with --model maxmin, tick by tick (trims, pulls, pauses) with --model fluid")
    p.add_argument("--fail", action="append", default=[], metavar="CABLE",
                   help="--workload pfc-cycle: a cable taken as down (as check-pfc-deadlock --fail); repeatable")
    p.add_argument("--pfc-watchdog", metavar="TIME",
                   help="RoCE fluid runs: PFC watchdog detection time (e.g. 100us, SONiC pfcwd): a switch queue "
                        "paused that long is a storm")
    p.add_argument("--pfc-watchdog-restore", metavar="TIME",
                   help="the watchdog's restoration time: a storm ends once no pause came for this long "
                        "(default the detection time)")
    p.add_argument("--pfc-watchdog-action", choices=("drop", "forward"),
                   help="in a storm: drop the queue's packets, or forward them ignoring pauses (default drop)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--partition", help="InfiniBand: run in this partition of the design's partitions.conf "
                   "(name or P_Key, default the Default partition 0x7fff); hosts outside it are left out, "
                   "flows between two limited members refused")
    p.add_argument("--out-flows", help="write per-flow CSV (flow,src,dst,sl,bytes,start_us,finish_us,fct_us,"
                   "rate_gbps,latency_ns; rate of a finished sized flow: bytes*8/FCT)")
    p.add_argument("--out-links", help="write per-link CSV (link,from,to,utilization,queue_bytes,latency_ns)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except FabricError as e:              # the design's own settings: name the file as well
        if str(e).startswith("meta.roce"):
            raise FabricError(f"{args.file}: {e}") from None
        raise


def _run(args: argparse.Namespace) -> int:
    from ..loaders import load_any
    from ..sim.compare import run_workload
    from ..sim.flows_csv import load_flows, save_flow_results, save_link_results
    from ..sim.progress import text_progress
    from ..sim.reach import fabric_tech, host_reach
    from ..sim.run import partition_reach, plane_partition_reach
    from ..sim.summary import format_summary
    from ..sim.units import parse_duration
    from ..sim.workloads import make_workload
    with flag_errors():
        duration = parse_duration(args.duration)
        fabric = load_any(args.file)
        check_tech_options(fabric, args)
        reach = (plane_partition_reach(fabric, args.partition) if fabric.settings.planes else    # one SM per plane
                 partition_reach(fabric, args.partition)) or host_reach(fabric)
        progress = text_progress() if args.model == "fluid" else None
        if (args.workload or "").partition(":")[0].strip().lower() == "pfc-cycle":
            res = _pfc_cycle(fabric, args, duration, progress)
        else:
            if args.fail:
                raise ParamError("fail", args.fail[0], "applies to --workload pfc-cycle")
            no_sl = None if fabric_tech(fabric) == "ib" else f"{IB_ONLY['sl']}; {args.file} is a RoCE design"
            flows = load_flows(fabric, args.flows, sl=_sl(args.sl), no_sl=no_sl) if args.flows else \
                make_workload(fabric, args.workload, seed=args.seed, over=args.over, reach=reach, sl=args.sl)
            if fabric.settings.planes:                      # one subnet per plane: the model per plane
                return _planes(fabric, flows, args, duration, progress, reach)
            res = run_workload(fabric, flows, args.model, duration, args.seed, args.routing,
                               args.engine or "minhop",
                               progress, same_seed=args.same_hash, reach=reach, fluid=fluid_params(fabric, args),
                               transport=args.transport, stop_when_done=True)
    warning = left_out_warning(res)
    if warning:
        print(warning, file=sys.stderr)
    if res.refused:
        from ..sim.partitioned import refused_line
        print(f"warning: {refused_line(res.refused, fabric)}", file=sys.stderr)
    rate = res.flow_rates()
    lat = res.steady("flow_latency_ns")
    if args.out_flows:
        from ..sim.fct import flow_times
        save_flow_results(fabric, res.flows, rate, lat, args.out_flows, flow_times(res))
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
        if "dcqcn_preset" in summary:
            print(f"DCQCN: {summary['dcqcn_preset']} preset")
        from ..ethernet.pfc_watchdog import pfc_lines
        for line in pfc_lines(summary):
            print(line)
        if "dropped_bytes" in summary:
            print(f"lossy (no PFC): {summary['dropped_bytes']:,.0f} bytes dropped at "
                  f"{summary['dropping_links']} link(s), {summary['retransmitted_bytes']:,.0f} bytes "
                  f"retransmitted (go-back-N), {summary['discarded_bytes']:,.0f} out-of-order bytes discarded")
    return 0


def _planes(fabric, flows, args: argparse.Namespace, duration: float, progress, reach) -> int:
    """A multi-plane design: every flow spread over the planes, the model run on each plane
    alone (sim.planes); ``--out-*`` and ``--json`` of the merged run (sim.plane_merge). In a
    ``--partition`` (every plane's), flows between two limited members are refused first."""
    from ..sim.partitioned import refused_line
    from ..sim.run import run_planes
    pt, merged = run_planes(fabric, flows, reach, args.engine or "minhop", args.routing, args.seed, args.model,
                            duration, fluid_params(fabric, args), progress, args.transport)
    if merged.refused:
        print(f"warning: {refused_line(merged.refused, fabric)}", file=sys.stderr)
    if args.out_flows:
        from ..sim.fct import flow_times
        from ..sim.flows_csv import save_flow_results
        save_flow_results(fabric, merged.flows, merged.flow_rates(), merged.steady("flow_latency_ns"),
                          args.out_flows, flow_times(merged))
    if args.out_links:
        from ..sim.flows_csv import save_link_results
        last = merged.last
        save_link_results(fabric, merged.links, merged.steady("link_util"), last.link_queue,
                          last.link_latency_ns, last.link_paused, args.out_links)
    if args.json:
        print(json.dumps(merged.summary(fabric), indent=2))
        return 0
    print("\n".join([f"{len(pt.flows):,} flows over {len(pt.planes)} planes ({args.model}): "
                     f"mean {float(merged.flow_rates().mean()):.2f} Gb/s per flow"]
                    + [f"  {p.name}: mean {float(p.rate.mean()) if len(p.rate) else 0.0:.2f} Gb/s, "
                       f"{p.cut_flows} flows it cannot carry" + (" (down)" if p.down else "") for p in pt.planes]))
    return 0
