"""One entry point for the CLI and the GUI: route, then run max-min or the fluid model.

``simulate(fabric, flows, routing, model, ...)`` is a pure function of
(fabric, flows, parameters, seed) and returns a :class:`SimResult` whose frames
the GUI can scrub. Defaults follow the fabric: InfiniBand runs static routes,
credit flow control and no end-to-end CC; RoCE runs ECMP, PFC and DCQCN.

A run goes over the reachable part of the design (:mod:`.reach`): flows to or
from a host nobody can reach are left out, and the result names those hosts
with the reason (``SimResult.left_out``) instead of the whole run failing.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from ..model import Fabric, FabricError
from .fluid import FluidParams, FluidResult, simulate_fluid
from .frames import Frame
from .latency import LatencyParams, flow_latency_ns, flow_nic_ns, link_latency
from .links import LinkTable, link_table
from .maxmin import maxmin
from .paths import MODES, PathProvider, Routes, route
from .reach import Reach, Unreachable, fabric_tech, host_reach
from .units import ParamError
from .workloads import Flows

MODELS = ("maxmin", "fluid")


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
        vals = np.array([getattr(f, attr) for f, k in zip(fr, keep) if k], float)
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

    def summary(self, fabric: Fabric, top: int = 5) -> dict:
        """Mean/min/max flow rate as a share of line rate, hottest links (utilisation over the
        same steady part as the rates), peak queue and when, paused links."""
        rate = self.flow_rates()
        line = _line_gbps(self.links, self.routes)
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
            out["lost_bytes"] = round(fl.lost_bytes, 3) + 0.0      # + 0.0 turns −0.0 into 0.0
            out["headroom_exceeded_links"] = int(fl.headroom_exceeded.sum())
            out["duration_s"] = float(self.frames[-1].time_s)
        return out


def _line_gbps(links: LinkTable, routes: Routes) -> np.ndarray:
    fp = np.searchsorted(routes.flow, np.arange(routes.n_flows))
    start = routes.indptr[np.minimum(fp, max(routes.n_paths - 1, 0))]
    l0 = routes.links[start]
    l1 = routes.links[np.minimum(start + 1, len(routes.links) - 1)]
    return np.where(links.pcie[l0], links.gbps[l1], links.gbps[l0])


def steady_state(links: LinkTable, flows: Flows, routes: Routes,
                 latency: LatencyParams = LatencyParams()) -> Frame:
    """Max-min fair rates as one frame (queues 0: the flow model has none)."""
    A = routes.incidence()
    res = maxmin(A, links.gbps, flows.rate_gbps)
    util = np.where(links.gbps > 0, res.link_load / np.where(links.gbps > 0, links.gbps, 1), 0.0)
    lat = link_latency(links, latency)
    tx, rx = flow_nic_ns(links, routes, latency)
    flow_lat = flow_latency_ns(links, routes, np.where(np.isfinite(lat.total), lat.total, 0.0), (tx, rx))
    z = np.zeros(links.n)
    return Frame.make(0.0, util, z, lat.total, z.astype(bool), z, res.rate, flow_lat)


def simulate(fabric: Fabric, flows: Flows, routing: str | None = None, model: str = "maxmin",
             duration_s: float = 10e-3, seed: int = 0, same_seed: bool = False,
             fluid: FluidParams | None = None, provider: PathProvider | None = None,
             progress: Callable[[float], None] | None = None, reach: Reach | None = None) -> SimResult:
    """Route ``flows`` and share the fabric out (see module doc).

    ``maxmin`` keeps only the flows that run together at t=0 (the first step of
    a ring, flows with start 0); ``fluid`` runs every flow in time. ``reach``: who
    the run can reach (default :func:`~.reach.host_reach` of the fabric); flows
    touching a host left out are dropped and counted.
    """
    tech = fabric_tech(fabric)
    routing = routing or ("static" if tech == "ib" else "ecmp")
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
        from .partitioned import RefusedFlow
        bad = scope.refuse(fabric, flows.src, flows.dst)
        why = f"both limited members of {scope.label}"
        refused = tuple(RefusedFlow(int(s), int(d), why) for s, d in zip(flows.src[bad].tolist(),
                                                                            flows.dst[bad].tolist()))
        if bad.all():
            raise FabricError(f"no flows to simulate: all {len(flows):,} are between limited members of "
                              f"partition {scope.label} (a limited member talks only to full members)")
        flows = flows.select(~bad)
    part = scope.label if scope is not None else ""
    if model == "maxmin":        # steady state: only the flows running together at t=0
        flows = flows.concurrent()
    links = link_table(fabric)
    routes = route(fabric, links, flows, routing, seed=seed, same_seed=same_seed, provider=provider)
    if model == "maxmin":
        return SimResult(tech, routing, model, links, flows, routes,
                         (steady_state(links, flows, routes),), None, reach.left_out, dropped, refused, part)
    prm = fluid or FluidParams(cc="none" if tech == "ib" else "dcqcn",
                               flow_control="credit" if tech == "ib" else "pfc")
    prm = replace(prm, duration_s=duration_s)
    res = simulate_fluid(links, flows, routes, prm, progress)
    return SimResult(tech, routing, model, links, flows, routes, res.frames, res, reach.left_out, dropped,
                     refused, part)
