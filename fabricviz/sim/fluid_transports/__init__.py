"""EQDS, NDP and HPCC inside the tick-based fluid model, as mechanisms (``simulate --model fluid
--transport eqds|ndp|hpcc``).

* :mod:`.pipe` — the data path: per sub-path hop queues, delays, round-robin service, trimming;
* :mod:`.spray` — EQDS / NDP: first window, receiver pull pacing at line rate, trimmed payloads
  pulled again, per-packet spraying over every equal-cost path;
* :mod:`.hpcc` — HPCC: INT-based window (η, maxStage, W_AI as htsim's hpcc.cpp) over lossless
  per-flow ECMP, PFC at htsim's input-queue thresholds.

Constants are :mod:`fabricviz.sim.transports.params`'s (htsim source lines there). A run gives a
:class:`~..fluid_result.FluidResult` like the RoCE fluid model's: frames (each with the bytes every
link trimmed since the frame before, ``Frame.link_trimmed_bytes``; EQDS / NDP: the pull packets
per second on every link, ``Frame.link_pulls_per_s``), per-flow finish times, and per link the bytes
trimmed over the run (``FluidResult.link_trimmed_bytes``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..fluid_result import FluidResult
from ..frames import Frame
from ..latency import DEFAULT_LATENCY, flow_latency_ns, flow_nic_ns, link_latency
from ..links import LinkTable
from ..paths import Routes
from ..transports.params import EQDS_PARAMS, HPCC, HPCC_PARAMS, NDP_PARAMS, ROUTING
from ..workloads import Flows
from .hpcc import Hpcc
from .pipe import Pipe
from .spray import Spray

#: the tick: about a packet time at 100 Gb/s (4160 B: 0.33 µs; a hop of the k=8 tree is 2–3 ticks).
#: Against htsim on the k=8 tree 0.2 µs moves no figure by more than 0.6 % for twice the time; at 0.8 µs
#: hops round to whole ticks enough to move NDP's window-limited permutation by 11–14 %.
DT_S = 0.4e-6
SPRAY = {"eqds": EQDS_PARAMS, "ndp": NDP_PARAMS}


@dataclass(frozen=True)
class TransportFluid:
    """What ``--json`` says of a tick-based transport run (as the flow-level model's ``summary``)."""

    transport: str
    routing: str
    trimmed_bytes: float
    trimming_links: int
    source: str
    delivery: np.ndarray          # per flow: share of its payload bytes sent that arrived whole
    duration_s: float

    def summary(self, goodput_gbps: np.ndarray | None = None, resent: float | None = None) -> dict:
        """The keys of :meth:`~..transports.model.TransportRun.summary` (means over the run) and the
        bytes trimmed."""
        d = self.delivery
        return {"transport": self.transport, "transport_model": {
            "routing": self.routing, "model": "fluid (tick by tick)",
            "delivery_mean": float(d.mean()) if len(d) else 1.0, "delivery_min": float(d.min()) if len(d) else 1.0,
            "trimmed_gbps": self.trimmed_bytes * 8 / 1e9 / self.duration_s if self.duration_s > 0 else 0.0,
            "trimmed_bytes": self.trimmed_bytes, "trimming_links": self.trimming_links, "constants": self.source}}


def simulate_transport_fluid(links: LinkTable, flows: Flows, routes: Routes, transport: str,
                             duration_s: float, seed: int = 0, stop_when_done: bool = True,
                             dt_s: float = DT_S, frames: int = 200,
                             progress: Callable[[float], None] | None = None
                             ) -> tuple[FluidResult, TransportFluid]:
    """Run ``transport`` over ``routes`` (its own routing: spray or ECMP) for ``duration_s``, or until
    every sized flow has finished with ``stop_when_done``."""
    F, L = len(flows), links.n
    hpcc = transport == HPCC
    if hpcc:
        prm_h = HPCC_PARAMS
        mtu, hdr, payload = prm_h.mtu, 64, prm_h.mtu       # htsim's HPCC counts whole MSS payloads
        source = prm_h.source
    else:
        prm_s = SPRAY[transport]
        mtu, hdr, payload = prm_s.mtu, prm_s.hdr, prm_s.payload
        source = prm_s.source
    wire = mtu / payload
    pipe = Pipe(links, nic_to_nic(links, routes), dt_s, mtu, hdr)
    sized = np.isfinite(flows.bytes)
    need = np.where(sized, flows.bytes, np.inf) * wire
    pace = flows.rate_gbps * 1e9 / 8 * dt_s * wire      # a flow's own rate (a workload's), on the wire
    ends: Hpcc | Spray = Hpcc(pipe, need, prm_h, pace) if hpcc else Spray(pipe, need, prm_s, seed, pace)
    total = max(int(round(duration_s / dt_s)), 1)
    every = max(1, total // frames)
    finish = np.full(F, np.nan)
    begin = np.full(F, np.nan)
    max_queue, max_queue_s = np.zeros(L), np.zeros(L)
    acc_served, acc_got, acc_trim, acc_paused = np.zeros(L), np.zeros(F), np.zeros(L), np.zeros(L, bool)
    acc_n, pulled_before = 0, np.zeros(L)
    out: list[Frame] = []
    nic = flow_nic_ns(links, routes, DEFAULT_LATENCY)
    recv = np.zeros(F)
    stop = stop_when_done and bool(sized.all())
    for i in range(total):
        before = ends.sent.copy()
        if isinstance(ends, Hpcc):
            got = ends.tick()
            acc_paused |= ends.paused_now
        else:
            trim_before = ends.link_trimmed.copy()
            got, _ = ends.tick()
            acc_trim += (ends.link_trimmed - trim_before) / wire       # payload bytes, as the result's
        t = (i + 1) * dt_s
        begin[np.isnan(begin) & (ends.sent > before)] = i * dt_s
        recv += got
        done = np.isnan(finish) & sized & (recv >= need * (1 - 1e-9))
        finish[done] = t
        q_link = pipe.queue_link()
        peak = q_link > max_queue
        max_queue[peak], max_queue_s[peak] = q_link[peak], t
        acc_served += pipe.served_link
        acc_got += got / wire
        acc_n += 1
        over = stop and not np.isnan(finish).any()
        if (i + 1) % every == 0 or i == total - 1 or over:
            out.append(_frame(links, routes, t, acc_n * dt_s, acc_served, pipe.cap * acc_n, q_link, acc_got,
                              acc_paused, None if hpcc else acc_trim, nic, payload))
            if isinstance(ends, Spray):           # the pulls sent since the frame before, per second
                out[-1] = out[-1].with_pulls((ends.link_pulled - pulled_before) / (acc_n * dt_s))
                pulled_before = ends.link_pulled.copy()
            acc_served, acc_got, acc_trim, acc_paused = np.zeros(L), np.zeros(F), np.zeros(L), np.zeros(L, bool)
            acc_n = 0
            if progress is not None:
                progress(1.0 if over else (i + 1) / total)
        if over:
            break
    ticks = pipe.t
    in_flight = pipe.in_flight() / wire
    if isinstance(ends, Hpcc):
        res = FluidResult(tuple(out), ends.sent / wire, recv / wire, in_flight, finish, max_queue,
                          ends.max_ingress, ends.paused_ticks / max(ticks, 1), np.zeros(L, bool), ticks, begin,
                          ticks * dt_s, max_queue_s, transport=transport)
        return res, TransportFluid(transport, ROUTING[transport], 0.0, 0, source, np.ones(F), ticks * dt_s)
    trimmed = ends.trimmed / wire
    link_trim = ends.link_trimmed / wire
    with np.errstate(invalid="ignore"):   # an unsized flow's need and what is left are both inf
        resent = np.where(sized, np.maximum(ends.sent - ends.need + ends.new_left, 0.0), ends.resent)
    res = FluidResult(tuple(out), ends.sent / wire, recv / wire, in_flight, finish, max_queue,
                      np.zeros(L), np.zeros(L), np.zeros(L, bool), ticks, begin, ticks * dt_s, max_queue_s,
                      trimmed_bytes=trimmed, retransmitted_bytes=resent / wire,
                      flow_control="trim", link_trimmed_bytes=link_trim, transport=transport)
    sent = ends.sent / wire
    whole = np.divide(sent - trimmed, sent, out=np.ones(F), where=sent > 0)
    return res, TransportFluid(transport, ROUTING[transport], float(link_trim.sum()),
                               int((link_trim > 0).sum()), source, whole, ticks * dt_s)


def nic_to_nic(links: LinkTable, routes: Routes) -> Routes:
    """``routes`` without their PCIe hops: the transports' endpoints are the NICs (a GPU's PCIe hop
    to its NIC is faster than the NIC's port and neither queues nor trims)."""
    keep = ~links.pcie[routes.links]
    if keep.all():
        return routes
    hops = np.add.reduceat(keep.astype(np.int64), routes.indptr[:-1]) if len(keep) else np.zeros(0, np.int64)
    indptr = np.concatenate([[0], np.cumsum(hops)]).astype(routes.indptr.dtype)
    return Routes(routes.flow, routes.frac, indptr, routes.links[keep], routes.n_flows, routes.n_links)


def _frame(links: LinkTable, routes: Routes, t: float, span_s: float, served: np.ndarray, cap: np.ndarray,
           q_link: np.ndarray, got: np.ndarray, paused: np.ndarray, trimmed: np.ndarray | None,
           nic: tuple[np.ndarray, np.ndarray], payload: int) -> Frame:
    util = np.divide(served, cap, out=np.zeros_like(served), where=cap > 0)
    lat = link_latency(links, DEFAULT_LATENCY, q_link)
    total = np.where(np.isfinite(lat.total), lat.total, 0.0)
    fr = Frame.make(t, util, q_link, lat.total, paused, np.zeros(links.n), got * 8 / 1e9 / span_s,
                    flow_latency_ns(links, routes, total, nic, latency=lat))
    if trimmed is None:                   # HPCC: lossless, nothing trims
        return fr
    trim = np.array(trimmed, np.float32)
    trim.setflags(write=False)
    # and as packets per second (``Frame.link_trims_per_s``: what the canvas's trim marks read)
    return replace(fr, link_trimmed_bytes=trim).with_trims(np.asarray(trimmed, float) / payload / span_s)
