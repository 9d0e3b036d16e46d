"""A multi-plane run as one run over the whole design (:class:`PlaneRun`), for the heatmap and ``--out-*``.

:func:`~.planes.plane_traffic` runs every plane alone; each plane's fabric (:func:`~fabricviz.model.
planes.plane_fabric`) keeps the design's device, port and cable ids, so each plane's run already
speaks the design's link ids (the other planes' cables dead in it). :func:`merge_planes` folds them:

* per link, the plane that owns it gives its utilisation, queue, latency, pause and ECN; the PCIe
  links every plane's run crosses (GPU ↔ NIC) add up their loads (each plane ran on its share of the
  link, :func:`~.planes.plane_traffic`), so their utilisation is the planes' mean;
* per flow, the rate is the sum over the planes, the latency and the finish the slowest plane's
  (a striped transfer is done when its last plane is), the first byte the earliest plane's;
* in time, the merged frame at ``t`` takes each plane's last frame at or before ``t`` (a plane whose
  run ended, its flows all done, is idle).

A flow's line rate is the sum of its planes' (800 Gb/s for 2 × 400G, :meth:`PlaneRun.line_rates`; also
when a lost plane carries none of it), so
``rate_share`` is a share of the whole NIC port and the FCT ``slowdown`` is against a transfer striped
over every plane at line rate (each plane's own run keeps its own, against its plane's line rate).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..model import Fabric, FabricError
from .engine import SimResult
from .fct import Completion
from .fluid_result import FluidResult
from .frames import Frame
from .links import link_table
from .paths import Routes, line_gbps
from .planes import PlaneTraffic
from .reach import Unreachable


@dataclass(frozen=True)
class PlaneRun(SimResult):
    """The merged run (module doc) with each plane's own run beside it."""

    plane_names: tuple[str, ...] = ()
    plane_results: tuple[SimResult | None, ...] = ()     # None: the plane is down or carried nothing
    line: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)   # per flow, over its planes

    def line_rates(self) -> np.ndarray:
        """Per flow: its line rate over all its planes (800 Gb/s for 2 × 400G), so the rate share and
        the FCT slowdown of the merged run are against the whole NIC port."""
        return self.line

    def summary(self, fabric: Fabric, top: int = 5) -> dict:
        out = super().summary(fabric, top)
        out["planes"] = [{"name": n, "down": r is None,
                          "rate_gbps": {"mean": float(r.flow_rates().mean()) if r is not None else 0.0}}
                         for n, r in zip(self.plane_names, self.plane_results, strict=True)]
        return out

    def plane(self, k: int) -> SimResult | None:
        """Plane ``k``'s own run (its heatmap): None when it carried nothing."""
        return self.plane_results[k]


def merge_planes(fabric: Fabric, pt: PlaneTraffic) -> PlaneRun:
    """Fold the per-plane runs of ``pt`` (over ``fabric``, the whole design) into one (module doc)."""
    runs = [(p.result, p.carried) for p in pt.planes if p.result is not None and p.carried is not None]
    if not runs:
        raise FabricError(f"{fabric.name}: no plane carried any flow")
    first = runs[0][0]
    links = link_table(fabric)
    n, L = len(pt.flows), links.n
    for r, _ in runs:
        if r.links.n != L:
            raise FabricError(f"{fabric.name}: a plane's links do not match the design's")
    routes = _routes(runs, n, L)
    frames = _frames(runs, n, L, links.pcie, len(pt.planes))
    fluid = _fluid(runs, frames, n, L) if first.fluid is not None else None
    completion = None
    if first.completion is not None:
        fin = np.full(n, np.nan)
        for r, idx in runs:
            if r.completion is not None:
                fin[idx] = np.fmax(fin[idx], r.completion.finish_s)
        completion = Completion(fin, sum(r.completion.solves for r, _ in runs if r.completion is not None),
                                first.completion.batch)
    transport = first.transport
    if transport is not None:
        eta, resent = np.ones(n), np.zeros(n)
        for r, idx in runs:
            if r.transport is not None:
                eta[idx], resent[idx] = r.transport.eta, r.transport.resent
        transport = replace(transport, eta=eta, resent=resent)
    vl = [r.link_vl_gbps for r, _ in runs if r.link_vl_gbps is not None]
    link_vl = np.sum(vl, axis=0) if len(vl) == len(runs) else None
    # a flow's line: its NIC port over every plane (the planes split it evenly), also where a lost
    # plane (or plane leaf) carries none of it — so the rate share and slowdown show the loss
    line, carried = np.zeros(n), np.zeros(n)
    for r, idx in runs:
        line[idx] += line_gbps(r.links, r.routes)
        carried[idx] += 1
    line = np.where(carried > 0, line / np.maximum(carried, 1) * len(pt.planes), 0.0)
    left = tuple(Unreachable(u.device, u.name, f"{name}: {u.reason}")
                 for p, name in zip(pt.planes, [p.name for p in pt.planes], strict=True)
                 if p.result is not None for u in p.result.left_out)
    results = tuple(p.result for p in pt.planes)
    return PlaneRun(first.fabric_tech, first.routing, first.model, links, pt.flows, routes, frames, fluid,
                    left, 0, (), "", link_vl, None, completion, transport,
                    plane_names=tuple(p.name for p in pt.planes), plane_results=results, line=line)


def _routes(runs: list[tuple[SimResult, np.ndarray]], n: int, L: int) -> Routes:
    """Every plane's sub-paths, on the design's flow numbers; each carries its plane's part of the flow."""
    planes_of = np.zeros(n)
    for _, idx in runs:
        planes_of[idx] += 1
    flow, frac, hops, seq = [], [], [], []
    for r, idx in runs:
        rt = r.routes
        f = idx[rt.flow]
        flow.append(f)
        frac.append(np.asarray(rt.frac, float) / planes_of[f])
        hops.append(rt.hops())
        seq.append(np.split(rt.links, rt.indptr[1:-1]) if rt.n_paths else [])
    all_flow = np.concatenate(flow)
    order = np.argsort(all_flow, kind="stable")
    paths = [p for s in seq for p in s]
    h = np.concatenate(hops)[order]
    indptr = np.concatenate([[0], np.cumsum(h)]).astype(np.int64)
    lk = np.concatenate([paths[i] for i in order.tolist()]) if len(order) else np.zeros(0, np.int64)
    return Routes(all_flow[order], np.concatenate(frac)[order], indptr, lk, n, L)


def _at(frames: tuple[Frame, ...], times: np.ndarray, t: float) -> Frame | None:
    """The last frame at or before ``t`` (None: the run had ended)."""
    if t > times[-1] + 1e-15:
        return None
    return frames[max(int(np.searchsorted(times, t + 1e-15)) - 1, 0)]


def _frames(runs: list[tuple[SimResult, np.ndarray]], n: int, L: int, pcie: np.ndarray,
            planes: int) -> tuple[Frame, ...]:
    longest = max((r for r, _ in runs), key=lambda r: r.frames[-1].time_s)
    times = [np.array([f.time_s for f in r.frames]) for r, _ in runs]
    out = []
    for fr in longest.frames:
        t = fr.time_s
        util, queue, paused, ecn = np.zeros(L), np.zeros(L), np.zeros(L, bool), np.zeros(L)
        lat = np.full(L, np.nan)
        rate, flat = np.zeros(n), np.full(n, np.nan)
        cc, ing = np.zeros(n), np.zeros(L)
        for (r, idx), tt in zip(runs, times, strict=True):
            f = _at(r.frames, tt, t)
            if f is None:                                  # this plane's run ended: idle
                continue
            util += f.link_util
            queue += f.link_queue
            paused |= f.link_paused
            ecn = np.maximum(ecn, f.link_ecn)
            lat = np.fmax(lat, f.link_latency_ns)
            rate[idx] += f.flow_rate_gbps
            flat[idx] = np.fmax(flat[idx], f.flow_latency_ns)
            if len(f.flow_cc_rate_gbps):
                cc[idx] += f.flow_cc_rate_gbps
            if len(f.link_ingress):
                ing += f.link_ingress
        has_cc = any(len(r.frames[0].flow_cc_rate_gbps) for r, _ in runs)
        has_ing = any(len(r.frames[0].link_ingress) for r, _ in runs)
        util[pcie] /= planes                    # each plane ran on its share of the PCIe link
        out.append(Frame.make(t, util, queue, lat, paused, ecn, rate, flat,
                              cc if has_cc else None, ing if has_ing else None))
    return tuple(out)


def _fluid(runs: list[tuple[SimResult, np.ndarray]], frames: tuple[Frame, ...], n: int, L: int) -> FluidResult:
    per_flow = {"injected_bytes": np.zeros(n), "delivered_bytes": np.zeros(n), "in_flight_bytes": np.zeros(n)}
    finish, begin = np.full(n, -np.inf), np.full(n, np.inf)
    mq, mi, pf = np.zeros(L), np.zeros(L), np.zeros(L)
    mq_s, head = np.zeros(L), np.zeros(L, bool)
    ticks, end = 0, 0.0
    for r, idx in runs:
        fl = r.fluid
        assert fl is not None
        for k, v in per_flow.items():
            v[idx] += getattr(fl, k)
        finish[idx] = np.maximum(finish[idx], np.where(np.isnan(fl.finish_s), np.inf, fl.finish_s))
        if fl.begin_s is not None:
            begin[idx] = np.fmin(begin[idx], fl.begin_s)
        higher = fl.max_queue_bytes > mq
        mq_s = np.where(higher, fl.max_queue_s if fl.max_queue_s is not None else 0.0, mq_s)
        mq = np.maximum(mq, fl.max_queue_bytes)
        mi = np.maximum(mi, fl.max_ingress_bytes)
        pf = np.maximum(pf, fl.paused_fraction)
        head |= fl.headroom_exceeded
        ticks, end = max(ticks, fl.ticks), max(end, fl.end_s)
    first = runs[0][0].fluid
    assert first is not None
    fin = np.where(np.isfinite(finish), finish, np.nan)
    return FluidResult(frames, per_flow["injected_bytes"], per_flow["delivered_bytes"], per_flow["in_flight_bytes"],
                       fin, mq, mi, pf, head, ticks, np.where(np.isfinite(begin), begin, np.nan), end, mq_s,
                       dcqcn_preset=first.dcqcn_preset, flow_control=first.flow_control)


__all__ = ["PlaneRun", "merge_planes"]
