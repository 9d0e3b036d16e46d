"""One entry point for the CLI and the GUI: route, then run max-min or the fluid model.

``simulate(fabric, flows, routing, model, ...)`` is a pure function of
(fabric, flows, parameters, seed) and returns a :class:`SimResult` whose frames
the GUI can scrub. Defaults follow the fabric: InfiniBand runs static routes,
credit flow control and no end-to-end CC; RoCE runs ECMP, PFC and DCQCN.

A run goes over the reachable part of the design (:mod:`.reach`): flows to or
from a host nobody can reach are left out, and the result names those hosts
with the reason (``SimResult.left_out``) instead of the whole run failing.

On InfiniBand every flow runs on its SL (given, or the path SL of a deadlock-free
routing engine, else 0) and each hop on the VL the egress port's SL→VL table picks;
when the flows use more than one SL, links are shared among their VLs by VL
arbitration (:mod:`.vlarb`). ``SimResult.link_vl_gbps`` is the load per link per VL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..model import Fabric, FabricError
from .fct import Completion, completion_times, fct_summary, maxmin_solver
from .fluid import FluidParams, simulate_fluid
from .fluid_result import FluidResult
from .frames import Frame
from .latency import DEFAULT_LATENCY, LatencyParams, flow_latency_ns, flow_nic_ns, link_latency
from .links import LinkTable, link_table
from .maxmin import MaxMinResult, maxmin, maxmin_paths
from .paths import MODES, PathProvider, Routes, line_gbps, route
from .portfair import portfair_paths
from .reach import Reach, Unreachable, fabric_tech, host_reach
from .transports.params import NEW_TRANSPORTS
from .units import ParamError
from .vlarb import (
    NUM_VLS,
    FlowVl,
    LinkArb,
    entry_vls,
    link_arb,
    link_sl2vl,
    one_class_vl,
    qos_options,
    starved_vls,
    vl_maxmin,
)
from .workloads import Flows

MODELS = ("maxmin", "fluid")
#: Route entries up to which the max-min model on Ethernet serves a host's last link by input ports
#: (:mod:`.portfair`: its filling rounds re-sort every entry, so a sized all-to-all of 128 hosts,
#: 125,440 entries and 30 re-solves, takes 26 s against 0.44 s per flow); a bigger run shares every
#: link per flow, in the few rounds of :mod:`.maxmin`.
PORT_TURN_ENTRIES = 20_000


@dataclass(frozen=True)
class SimResult:
    fabric_tech: str            # "ib" or "eth"
    routing: str
    model: str
    links: LinkTable
    flows: Flows
    routes: Routes
    frames: tuple[Frame, ...]
    fluid: FluidResult | None = None
    left_out: tuple[Unreachable, ...] = ()   # hosts the run could not reach, with why
    dropped_flows: int = 0                   # flows given that touched one of them
    refused: tuple[Any, ...] = ()            # flows the run's partition refused (:class:`~.partitioned.RefusedFlow`)
    partition: str = ""                      # the partition the run went in ("": no partitions)
    link_vl_gbps: np.ndarray | None = None   # [len(links), 16] Gb/s per link per VL (fluid: steady mean;
    #                                          PCIe rows 0); None on Ethernet (no VLs)
    flow_vl: FlowVl | None = None            # SL per flow, VL per hop, starved VLs (InfiniBand)
    completion: Completion | None = None     # max-min with sized flows: progressive completion (:mod:`.fct`)
    transport: Any = None                    # :class:`~.transport.TransportEffect` (reordering cost)

    @property
    def last(self) -> Frame:
        return self.frames[-1]

    def steady(self, attr: str) -> np.ndarray:
        """Mean of a frame array over the run's steady part (its second half in time), each
        frame weighted by the interval it averages; max-min has a single frame."""
        fr = self.frames
        if len(fr) == 1:
            return np.asarray(getattr(fr[0], attr), float)
        t = np.array([f.time_s for f in fr])
        span = np.diff(np.concatenate([[0.0], t]))
        keep = t > t[-1] / 2
        w = span[keep]
        vals = np.array([getattr(f, attr) for f, k in zip(fr, keep, strict=True) if k], float)
        return np.tensordot(w / w.sum(), vals, axes=1)

    def mean_frame_rates(self) -> np.ndarray:
        """Per-flow delivered rate averaged over the steady part of the run."""
        return self.steady("flow_rate_gbps")

    def flow_rates(self) -> np.ndarray:
        """Per-flow rate: max-min share; fluid: the steady-part delivered rate of flows still
        running at the end (the same window as the link utilisation), bytes over the active
        time for flows that finished."""
        if self.fluid is None:
            return self.last.flow_rate_gbps.astype(float)
        done = np.isfinite(self.fluid.finish_s)
        return np.where(done, self.fluid.achieved_gbps, self.mean_frame_rates())

    def line_rates(self) -> np.ndarray:
        """Per flow: its line rate (Gb/s), what its rate share and FCT slowdown are measured
        against — the rate of its first fabric link (a multi-plane run: the sum over its planes)."""
        return line_gbps(self.links, self.routes)

    def summary(self, fabric: Fabric, top: int = 5) -> dict:
        """Mean/min/max flow rate as a share of line rate, hottest links (utilisation over the
        same steady part as the rates), peak queue and when, paused links."""
        rate = all_rate = self.flow_rates()
        line = self.line_rates()
        share = np.where(line > 0, rate / line, 0.0)
        if self.fluid is not None and self.fluid.begin_s is not None:   # flows that never sent would skew the mean
            began = ~np.isnan(self.fluid.begin_s)
            share, rate = share[began], rate[began]
        util = self.steady("link_util")
        hot = np.argsort(-util, kind="stable")[:top]
        name = lambda l: self.links.name(fabric, int(l))   # noqa: E731
        out = {"fabric": self.fabric_tech, "routing": self.routing, "model": self.model,
               "flows": int(len(self.flows)), "links": int(self.links.alive.sum()),
               "rate_share": {"mean": float(share.mean()) if len(share) else 0.0,
                              "min": float(share.min()) if len(share) else 0.0,
                              "max": float(share.max()) if len(share) else 0.0},
               "rate_gbps": {"mean": float(rate.mean()) if len(rate) else 0.0,
                             "total": float(rate.sum())},
               "hottest_links": [{"link": int(l), "from": name(l)[0], "to": name(l)[1],
                                  "utilization": round(float(util[l]), 6)} for l in hot if util[l] > 0]}
        if self.left_out:
            out["left_out"] = [{"host": u.name, "reason": u.reason} for u in self.left_out]
            out["dropped_flows"] = int(self.dropped_flows)
        if self.partition:
            out["partition"] = self.partition
        if self.refused:
            out["refused_flows"] = [{"src": fabric.name_of(r.src), "dst": fabric.name_of(r.dst),
                                     "reason": r.reason} for r in self.refused]
        if self.link_vl_gbps is not None and self.flow_vl is not None:
            out.update(self._vl_summary(fabric, all_rate))
        if self.fluid is not None:
            fl = self.fluid
            out["steady_from_s"] = float(self.frames[-1].time_s / 2)
            mq = int(np.argmax(fl.max_queue_bytes)) if len(fl.max_queue_bytes) else 0
            queue = self.steady("link_queue")
            out["max_queue"] = {"bytes": float(fl.max_queue_bytes[mq]), "link": " -> ".join(name(mq)),
                                "at_s": float(fl.max_queue_s[mq]) if fl.max_queue_s is not None else 0.0,
                                "steady_bytes": float(queue[mq])}
            paused = np.flatnonzero(fl.paused_fraction > 0)
            out["paused_link_count"] = int(len(paused))
            out["paused_links"] = [{"link": int(l), "from": name(l)[0], "to": name(l)[1],
                                    "paused_fraction": round(float(fl.paused_fraction[l]), 4)}
                                   for l in paused[np.argsort(-fl.paused_fraction[paused], kind="stable")][:top]]
            out["active_flows"] = int(len(rate))          # flows that sent during the run
            out["finished_flows"] = int(np.isfinite(fl.finish_s).sum())
            if len(fl.finish_s) and np.all(np.isfinite(fl.finish_s)):
                out["completion_s"] = float(fl.finish_s.max())
            # lost: dropped (lossy tail drops, PFC watchdog drops) + any the model lost track of
            dropped = sum(float(d.sum()) for d in (fl.dropped_bytes, fl.watchdog_dropped_bytes) if d is not None)
            out["lost_bytes"] = round(fl.lost_bytes + dropped, 3) + 0.0      # + 0.0 turns −0.0 into 0.0
            out["headroom_exceeded_links"] = int(fl.headroom_exceeded.sum())
            if fl.dcqcn_preset:
                out["dcqcn_preset"] = fl.dcqcn_preset
            if fl.flow_control == "lossy" and fl.dropped_bytes is not None and fl.retransmitted_bytes is not None:
                assert fl.discarded_bytes is not None and fl.link_dropped_bytes is not None
                out["flow_control"] = "lossy"
                out["dropped_bytes"] = float(fl.dropped_bytes.sum())
                out["retransmitted_bytes"] = float(fl.retransmitted_bytes.sum())
                out["discarded_bytes"] = float(fl.discarded_bytes.sum())
                out["dropping_links"] = int((fl.link_dropped_bytes > 0).sum())
            out["duration_s"] = float(self.frames[-1].time_s)
            out.update(_pfc_summary(fl, name))
        out.update(fct_summary(self, fabric))
        if self.transport is not None:
            resent = self.fluid.reorder_resent_bytes if self.fluid is not None else None
            if self.fluid is not None and resent is None and self.fluid.flow_control != "lossy":
                resent = self.fluid.retransmitted_bytes            # flowlets: what go-back-N resent
            out.update(self.transport.summary(all_rate, float(resent.sum()) if resent is not None else None))
        return out


    def _vl_summary(self, fabric: Fabric, rate: np.ndarray) -> dict:
        """Per-VL link totals, per-SL flow counts and rates, starved VLs."""
        assert self.link_vl_gbps is not None and self.flow_vl is not None
        fv = self.flow_vl
        tot = self.link_vl_gbps.sum(0)
        sls = np.asarray(fv.sl)
        out: dict = {"sl_source": fv.source,
                     "vl_link_gbps": {str(v): round(float(tot[v]), 6) for v in range(NUM_VLS) if tot[v] > 0},
                     "sl_flows": {str(int(s)): {"flows": int((sls == s).sum()),
                                                "rate_gbps": round(float(rate[sls == s].sum()), 6)}
                                  for s in np.unique(sls).tolist()}}
        if fv.arbitrated and self.fluid is None:       # max-min: rounds to the fixed point
            out["vl_arbitration"] = {"rounds": fv.rounds, "converged": fv.converged}
        if fv.starved:
            name = lambda l: " -> ".join(self.links.name(fabric, int(l)))   # noqa: E731
            out["starved_vls"] = [{"link": name(s.link), "vl": s.vl, "flows": s.flows, "reason": s.reason}
                                  for s in fv.starved]
        return out


def _pfc_summary(fl: FluidResult, name: Callable[[int], tuple[str, str]]) -> dict:
    """A PFC run's deadlock (when it set in, was broken, the links paused for good) and watchdog."""
    out: dict = {}
    if fl.deadlock_links is not None and fl.deadlocked:
        assert fl.deadlock_flows is not None
        out["deadlock"] = {"since_s": fl.deadlock_s,
                           "cleared_s": None if np.isnan(fl.deadlock_cleared_s) else fl.deadlock_cleared_s,
                           "links": [" -> ".join(name(int(x))) for x in np.flatnonzero(fl.deadlock_links)],
                           "flows": int(fl.deadlock_flows.sum())}
    if fl.watchdog_storms is not None and fl.watchdog_dropped_bytes is not None:
        out["pfc_watchdog"] = {"storms": int(fl.watchdog_storms.sum()),
                               "storm_links": int((fl.watchdog_storms > 0).sum()),
                               "dropped_bytes": float(fl.watchdog_dropped_bytes.sum())}
    return out


def _paths_solver(routes: Routes, cap: np.ndarray, demand: np.ndarray,
                  fill: Callable[..., MaxMinResult] = maxmin_paths) -> Callable[[np.ndarray], np.ndarray]:
    """``solve(running)`` for :func:`~.fct.completion_times` over single-path routes: ``fill`` of the
    running flows' paths (as :func:`~.fct.maxmin_solver` over their incidence matrix, without it)."""
    def solve(running: np.ndarray) -> np.ndarray:
        return fill(routes.indptr, routes.links, cap, demand, rows=running).rate
    return solve


def _last_hop_fill(fabric: Fabric, links: LinkTable) -> Callable[..., MaxMinResult]:
    """Max-min over PFC (:mod:`.portfair`): a switch's link to a host shared over its input ports in
    turn (an incast's receiver), every other link per flow (bench/portfair_compare.py: port turns
    everywhere overshoot htsim on permutations and shuffles, where its pauses spreading upstream,
    which no flow-level model has, hold the flows back instead)."""
    from ..ib.tiers import switch_mask
    sw = switch_mask(fabric)
    to_host = sw[links.src_dev] & ~sw[links.dst_dev] & ~links.pcie

    def fill(indptr: np.ndarray, path_links: np.ndarray, cap: np.ndarray, demand: np.ndarray | None = None,
             rows: np.ndarray | None = None) -> MaxMinResult:
        return portfair_paths(indptr, path_links, cap, demand, rows, by_port=to_host)
    return fill


def _no_solver(running: np.ndarray) -> np.ndarray:
    raise AssertionError("a run without sized flows re-solves nothing")


def _frame(links: LinkTable, routes: Routes, rate: np.ndarray, link_load: np.ndarray,
           latency: LatencyParams = DEFAULT_LATENCY) -> Frame:
    util = np.where(links.gbps > 0, link_load / np.where(links.gbps > 0, links.gbps, 1), 0.0)
    lat = link_latency(links, latency)
    total = np.where(np.isfinite(lat.total), lat.total, 0.0)
    flow_lat = np.empty(routes.n_flows, np.float32)       # the frame's dtype, a piece of flows at a time
    for lo, hi, sub in routes.split():
        flow_lat[lo:hi] = flow_latency_ns(links, sub, total, flow_nic_ns(links, sub, latency), lat)
    z = np.zeros(links.n)
    return Frame.make(0.0, util, z, lat.total, z.astype(bool), z, rate, flow_lat)


@dataclass(frozen=True)
class _VlPlan:
    """How a run's flows map onto VLs: one class (``arb`` None, each link's one VL) or arbitrated."""
    flows: Flows
    flow_vl: FlowVl
    arb: LinkArb | None
    vl_of_link: np.ndarray | None


def _lid_of_port(sm: Any) -> np.ndarray:
    sn = sm.subnet
    lids = np.zeros(sn.fabric.ports_t.n, np.int64)
    lids[np.asarray(sn.ca_ports, np.int64)] = np.asarray(sm.lids.ca_lid, np.int64)
    return lids


def _vl_plan(fabric: Fabric, links: LinkTable, flows: Flows, routes: Routes, sm: Any) -> _VlPlan:
    """SLs (given, else the routing's path SL, else 0) and the VL of every hop (see :mod:`.vlarb`)."""
    source = "flows" if flows.sl_given else "default"
    path_sl = sm.info.path_sl if sm is not None else None
    if not flows.sl_given and path_sl is not None:
        from .paths import resolve_ends
        ends = resolve_ends(fabric, links, flows)
        lids = _lid_of_port(sm)
        flows = flows.with_sl(path_sl.sls(lids[ends.src_port], lids[ends.dst_port]), given=False)
        source = "path"
    opts = qos_options(fabric)
    sl = flows.sl
    if len(sl) and bool(np.all(sl == sl[0])):        # one SL: one class per link, as without VLs
        sl2vl = link_sl2vl(fabric, links, opts)
        evl = sl2vl[:, int(sl[0])][routes.links]        # entry_vls for one SL, one byte an entry
        top = int(evl.max()) if len(evl) else 0
        if top < NUM_VLS - 1 or (top > NUM_VLS - 1 and not np.any(evl == NUM_VLS - 1)):
            return _VlPlan(flows, FlowVl(sl, evl, source, False), None, sl2vl[:, int(sl[0])])
    arb = link_arb(fabric, links, opts, sm.subnet if sm is not None else None)
    return _VlPlan(flows, FlowVl(sl, entry_vls(routes, sl, arb.sl2vl), source, True), arb, None)


def _run_effect(eff: Any, fres: FluidResult) -> Any:
    """A flowlet run's transport effect from what it did: goodput share of what arrived, bytes
    resent per byte delivered."""
    from .transport import TransportEffect
    got, lost = fres.delivered_bytes, fres.discarded_bytes
    assert lost is not None and fres.retransmitted_bytes is not None
    with np.errstate(divide="ignore", invalid="ignore"):
        eta = np.where(got + lost > 0, got / (got + lost), 1.0)
        resent = np.where(got > 0, fres.retransmitted_bytes / got, 0.0)
    return TransportEffect(eff.transport, eff.routing, eta, resent)


def roce_fluid(fabric: Fabric, dcqcn: str | None = None, flow_control: str = "pfc",
               cc: str = "dcqcn") -> FluidParams:
    """The fluid model's parameters for a RoCE design: DCQCN preset ``dcqcn`` (None: the
    design's ``meta["roce"]["dcqcn"]``, default ``nvidia``, the ConnectX defaults) and the
    design's lossless plan (per-port XOFF/XON/headroom, ECN per egress queue: the numbers
    the switch-config export writes)."""
    from ..ethernet.dcqcn import PRESETS
    from ..ethernet.lossless import lossless_plan
    from ..ethernet.roce_meta import roce_settings
    try:
        preset = dcqcn or roce_settings(fabric).dcqcn
        plan = lossless_plan(fabric)
    except ValueError as e:                 # a bad meta["roce"]: the element it names
        raise FabricError(f"{getattr(e, 'where', 'meta.roce')}: {e}") from None
    if preset not in PRESETS:
        raise ParamError("dcqcn", preset, f"is not one of {', '.join(PRESETS)}")
    from ..ethernet.pfc import PfcParams
    return FluidParams(cc=cc, flow_control=flow_control, dcqcn_preset=preset, plan=plan, pfc=PfcParams(mtu=plan.mtu))


def simulate(fabric: Fabric, flows: Flows, routing: str | None = None, model: str = "maxmin",
             duration_s: float = 10e-3, seed: int = 0, same_seed: bool = False,
             fluid: FluidParams | None = None, provider: PathProvider | None = None,
             progress: Callable[[float], None] | None = None, reach: Reach | None = None,
             sm: Any = None, transport: str | None = None, stop_when_done: bool = False) -> SimResult:
    """Route ``flows`` and share the fabric out (see module doc).

    ``maxmin`` keeps only the flows that run together at t=0 (the first step of
    a ring, flows with start 0); ``fluid`` runs every flow in time. ``reach``: who
    the run can reach (default :func:`~.reach.host_reach` of the fabric); flows
    touching a host left out are dropped and counted. ``sm``: the subnet manager's
    ``fabricviz.ib`` Routing the paths come from (its subnet's QoS tables; its
    ``info.path_sl`` gives flows without an SL of their own their path's SL). ``transport``:
    ib | roce-gbn | roce-ooo (None: the design's, :func:`~.transport.default_transport`), or eqds | ndp | hpcc:
    max-min runs their flow-level model (:mod:`.transports`), fluid runs them tick by tick
    (:mod:`.fluid_transports`: trims per link per frame in ``Frame.link_trimmed_bytes``).
    ``stop_when_done``: a fluid run of sized flows ends once the last one has finished.
    """
    tech = fabric_tech(fabric)
    asked, routing = routing, routing or ("static" if tech == "ib" else "ecmp")
    if routing not in MODES:
        raise ParamError("routing", routing, f"is not one of {', '.join(MODES)}")
    if model not in MODELS:
        raise ParamError("model", model, f"is not one of {', '.join(MODELS)}")
    if not len(flows):
        raise FabricError("no flows to simulate")
    reach = host_reach(fabric, tech) if reach is None else reach
    keep = reach.keep(flows.src) & reach.keep(flows.dst)
    dropped = int(len(flows) - keep.sum())
    if dropped == len(flows):
        raise FabricError(f"no flows to simulate: all {dropped:,} touch a host the run cannot reach "
                          f"({reach.line()})")
    if dropped:
        flows = flows.select(keep)
    refused: tuple[Any, ...] = ()
    scope = reach.scope
    if scope is not None:
        from .partitioned import split_refused
        flows, refused = split_refused(flows, scope, fabric)
    part = scope.label if scope is not None else ""
    if transport in NEW_TRANSPORTS:           # sprayed / receiver-driven / HPCC: their own models
        from .transports.model import route_transport, run_transport
        if model == "fluid":                  # tick by tick: :mod:`.fluid_transports`
            from .fluid_transports import simulate_transport_fluid
            links, routes = route_transport(fabric, flows, transport, seed, routing=asked)
            fres, tf = simulate_transport_fluid(links, flows, routes, transport, duration_s, seed,
                                                stop_when_done, progress=progress)
            return SimResult(tech, tf.routing, model, links, flows, routes, fres.frames, fres, reach.left_out,
                             dropped, refused, part, transport=tf)
        links, routes, run = run_transport(fabric, flows, transport, seed, routing=asked)
        frame = _frame(links, routes, run.goodput_gbps, np.minimum(run.link_load_gbps, links.gbps))  # carried
        queue = np.array(run.link_queue_bytes, np.float32)            # the trimming queues' mean level
        queue.setflags(write=False)
        frame = replace(frame, link_queue=queue)
        if run.mtu_bytes:                                           # a trimming transport: its trims/s
            frame = frame.with_trims(run.trims_per_s)
        return SimResult(tech, run.routing, model, links, flows, routes, (frame,), None, reach.left_out, dropped,
                         refused, part, completion=run.completion, transport=run)
    if model == "maxmin":        # steady state: only the flows running together at t=0
        first = (flows.step <= 0) & (flows.start_s <= 0)
        flows = flows if first.all() else flows.concurrent()    # all of them: no copy of the list
    links = link_table(fabric)
    routes = route(fabric, links, flows, routing, seed=seed, same_seed=same_seed, provider=provider)
    from .transport import check_transport, transport_effect
    eff = transport_effect(links, routes, routing, check_transport(fabric, transport))
    plan = _vl_plan(fabric, links, flows, routes, sm) if tech == "ib" else None
    flows = plan.flows if plan is not None else flows
    if model == "maxmin":
        link_vl, flow_vl = None, None
        if plan is None or plan.arb is None:
            whole = bool(np.all(eff.eta == 1.0))          # x / 1 and x · 1 are x: no per-flow copies
            demand = flows.rate_gbps if whole else flows.rate_gbps / eff.eta   # wire rate: resent bytes load links
            sized = bool(np.isfinite(flows.bytes).any())
            if routes.single():                            # the paths are the matrix's rows: none built
                turns = tech == "eth" and len(routes.links) <= PORT_TURN_ENTRIES
                fill = _last_hop_fill(fabric, links) if turns else maxmin_paths
                res = fill(routes.indptr, routes.links, links.gbps, demand)
                wire = _paths_solver(routes, links.gbps, demand, fill)
            else:
                A = routes.incidence()
                res = maxmin(A, links.gbps, demand)
                wire = maxmin_solver(A, links.gbps, demand) if sized else _no_solver
                del A
            rate, load = (res.rate if whole else res.rate * eff.eta), res.link_load
            del res
            solve = wire if not eff.costly else (lambda run: wire(run) * eff.eta)   # noqa: E731
            if plan is not None:
                assert plan.vl_of_link is not None
                link_vl, flow_vl = one_class_vl(links, load, plan.vl_of_link), plan.flow_vl
        else:
            vres = vl_maxmin(routes, links.gbps, flows.rate_gbps, plan.flow_vl.entry_vl, plan.arb)
            rate, load, link_vl = vres.rate, vres.link_load, vres.link_vl
            link_vl[links.pcie] = 0.0
            flow_vl = plan.flow_vl.with_result(rounds=vres.rounds, converged=vres.converged,
                                               starved=vres.starved)
            evl, vl_arb = plan.flow_vl.entry_vl, plan.arb
            solve = lambda run: vl_maxmin(routes, links.gbps, np.where(run, flows.rate_gbps, 0.0),  # noqa: E731
                                          evl, vl_arb).rate
        done = completion_times(solve, flows.bytes, rate, len(routes.links)) \
            if np.isfinite(flows.bytes).any() else None
        return SimResult(tech, routing, model, links, flows, routes, (_frame(links, routes, rate, load),),
                         None, reach.left_out, dropped, refused, part, link_vl, flow_vl, done, eff)
    prm = fluid or (FluidParams(cc="none", flow_control="credit") if tech == "ib" else roce_fluid(fabric))
    prm = replace(prm, stop_when_done=stop_when_done)
    if routing in ("adaptive", "spray") and eff.transport == "roce-gbn":   # flowlets / spray: reorderings as they come
        from .flowlets import FlowletParams
        prm = replace(prm, duration_s=duration_s, eta=None,
                      flowlets=prm.flowlets or FlowletParams(seed=seed, mtu_bytes=prm.pfc.mtu,
                                                             spray=routing == "spray"))
    else:
        prm = replace(prm, duration_s=duration_s, eta=eff.eta if eff.costly else None)
    arb = plan.arb if plan is not None else None
    fres = simulate_fluid(links, flows, routes, prm, progress,
                          vl=(plan.flow_vl.entry_vl, arb) if plan is not None and arb is not None else None)
    if prm.flowlets is not None:              # the run's own resends, not the estimate
        eff = _run_effect(eff, fres)
    out = SimResult(tech, routing, model, links, flows, routes, fres.frames, fres, reach.left_out, dropped,
                    refused, part, transport=eff)
    if plan is None:
        return out
    if arb is None:
        assert plan.vl_of_link is not None
        return replace(out, link_vl_gbps=one_class_vl(links, out.steady("link_util") * links.gbps,
                                                         plan.vl_of_link), flow_vl=plan.flow_vl)
    assert fres.link_vl_gbps is not None
    evl = plan.flow_vl.entry_vl
    present = np.zeros((links.n, NUM_VLS), bool)
    present[routes.links, evl] = True
    starved = starved_vls(present, fres.link_vl_gbps, links.gbps, arb, routes, evl, np.ones(len(flows), bool))
    return replace(out, link_vl_gbps=fres.link_vl_gbps, flow_vl=plan.flow_vl.with_result(starved=starved))
