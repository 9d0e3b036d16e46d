"""The transports run: rates, trims and completion of every flow (:func:`simulate_transport`).

* **EQDS / NDP** (receiver-driven, sprayed, trimming): the receiver pulls at its line rate and a
  sender sends as its pulls (and its NIC) allow, so a flow's wire rate is the max-min share of the
  *host links* — its sender's NIC and its receiver's downlink — the fabric in between is not a
  bottleneck but a place where payloads get trimmed (:mod:`.trimming`). The window also caps a
  flow at ``window × MTU / RTT`` (binding for NDP's 15 packets on long links): the round trip is the
  packet and its pull at every hop (:func:`round_trip_s`) plus the pull's wait behind the data packet
  already on each link of the way back (:meth:`_Spray._header_wait_s`). Goodput = wire rate ×
  share of packets that arrive whole × payload / MTU.
* **HPCC** (lossless, one ECMP path per flow): each flow's window keeps its bottleneck at η of the
  capacity and the flows on it share it equally: max-min over the ECMP paths with every link's
  capacity × η; payload / MTU of it is goodput.

Flows that finish hand their share to the rest (progressive max-min, :func:`~..fct.completion_times`,
trims recomputed at each completion); FCT = completion + the path's base latency (:mod:`..fct`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...ib.tiers import switch_mask
from ...model import Fabric
from ..fct import Completion, completion_times
from ..links import LinkTable, link_table
from ..maxmin import maxmin, maxmin_paths
from ..paths import Routes, route
from ..reach import fabric_tech
from ..units import ParamError
from ..workloads import Flows
from . import trimming
from .params import EQDS_PARAMS, HPCC, HPCC_PARAMS, NDP_PARAMS, ROUTING, HpccParams, SprayParams

SPRAY = {"eqds": EQDS_PARAMS, "ndp": NDP_PARAMS}
#: rounds of the round trip ↔ rate fixed point (header waits depend on the rates)
WAIT_ROUNDS = 3


@dataclass(frozen=True)
class TransportRun:
    """What a transport run found, per flow and per link: the wire and goodput rates at t = 0, the
    share of packets that arrive whole, each link's trimmed share; the finish times (s, from 0)."""

    transport: str
    routing: str
    wire_gbps: np.ndarray
    goodput_gbps: np.ndarray
    delivery: np.ndarray
    link_trim: np.ndarray          # per link: share of offered packets trimmed (0 for HPCC)
    link_load_gbps: np.ndarray     # per link: offered wire rate at t = 0
    link_queue_bytes: np.ndarray   # per link: mean bytes its egress queue holds at t = 0 (trimming queues)
    completion: Completion | None
    source: str
    mtu_bytes: int = 0             # the packets trimmed (0: the transport does not trim)

    @property
    def trims_per_s(self) -> np.ndarray:
        """Per link: packets trimmed to headers per second at t = 0 (its egress queue's trims; all 0
        for a transport that does not trim)."""
        if not self.mtu_bytes:
            return np.zeros(len(self.link_trim))
        return self.trimmed_gbps * 1e9 / (8 * self.mtu_bytes)

    @property
    def trimmed_gbps(self) -> np.ndarray:
        """Per link: payloads trimmed (Gb/s) at t = 0."""
        return self.link_trim * self.link_load_gbps

    def summary(self, goodput_gbps: np.ndarray | None = None, resent: float | None = None) -> dict:
        """The ``--json`` entries (the arguments match :meth:`~..transport.TransportEffect.summary`)."""
        return {"transport": self.transport, "transport_model": {
            "routing": self.routing, "delivery_mean": float(self.delivery.mean()) if len(self.delivery) else 1.0,
            "delivery_min": float(self.delivery.min()) if len(self.delivery) else 1.0,
            "trimmed_gbps": float(self.trimmed_gbps.sum()), "trimming_links": int((self.link_trim > 1e-6).sum()),
            "trims_per_s": float(self.trims_per_s.sum()),
            "constants": self.source}}


def round_trip_s(links: LinkTable, routes: Routes, mtu: int, hdr: int) -> np.ndarray:
    """Per flow, over its first sub-path: a packet of ``mtu`` bytes stored and forwarded at every hop,
    and its ack or pull (``hdr`` bytes) back over the same hops: propagation and switch latency both
    ways plus each hop's serialization of the packet and of the header (NIC overheads left out)."""
    lead = np.searchsorted(routes.flow, np.arange(routes.n_flows))
    per_hop = 2 * (links.prop_ns + links.switch_ns) + np.where(links.gbps > 0, (mtu + hdr) * 8 / np.where(
        links.gbps > 0, links.gbps, 1.0), 0.0)
    sums = np.add.reduceat(per_hop[routes.links], routes.indptr[:-1]) if len(routes.links) else np.zeros(0)
    return sums[lead] * 1e-9


class _Spray:
    """Rates of a receiver-driven sprayer for any set of running flows."""

    def __init__(self, fabric: Fabric, links: LinkTable, routes: Routes, prm: SprayParams, seed: int):
        self.links, self.routes, self.prm = links, routes, prm
        self.share = trimming.path_shares(routes, prm.entropies, seed)
        sw = switch_mask(fabric)
        self.into_host = ~sw[links.dst_dev]
        self.held = np.zeros(links.n)           # per link: mean packets queued, of the last solve
        self.n_in = trimming.feeders(routes, links.n)
        # the links a flow's rate is shared on: every link of its paths with an end that is no switch
        # (its NICs' cables, PCIe) — the sender's NIC and the receiver's pull pacer
        edge = ~(sw[links.src_dev] & sw[links.dst_dev])
        at = np.flatnonzero(edge[routes.links])
        pairs = np.unique(np.stack([np.repeat(routes.flow, routes.hops())[at], routes.links[at]]), axis=1)
        self.edge_ptr = np.searchsorted(pairs[0], np.arange(routes.n_flows + 1)).astype(np.int64)
        self.edge_links = pairs[1].astype(np.int64)
        self.rtt_s = round_trip_s(links, routes, prm.mtu, prm.hdr)
        self.lead = np.searchsorted(routes.flow, np.arange(routes.n_flows))
        ids = np.arange(links.n)
        self.back = np.where(ids < 2 * links.n_cable_links, ids ^ 1, -1)      # the cable's other direction

    def _cap(self, wait_s: np.ndarray) -> np.ndarray:
        rtt = self.rtt_s + wait_s
        return np.where(rtt > 0, self.prm.window_pkts * self.prm.mtu * 8 / np.maximum(rtt, 1e-12) / 1e9, np.inf)

    def _header_wait_s(self, wire: np.ndarray) -> np.ndarray:
        """Per flow: what its acks and pulls wait on the way back. They go first in every queue but not
        before the packet already on the wire (no preemption): half a packet time on each link of the
        way back, times how busy that link is (the cables of its first sub-path, other direction)."""
        r = self.routes
        load = np.bincount(r.links, np.repeat(self.share * wire[r.flow], r.hops()), minlength=self.links.n)
        gbps = self.links.gbps
        busy = np.divide(load, gbps, out=np.zeros_like(load), where=gbps > 0)
        half = np.divide(self.prm.mtu * 8 / 2, gbps, out=np.zeros_like(load), where=gbps > 0) * 1e-9
        per_link = np.zeros(self.links.n)
        ok = self.back >= 0
        per_link[ok] = np.minimum(busy[self.back[ok]], 1.0) * half[self.back[ok]]
        sums = np.add.reduceat(per_link[r.links], r.indptr[:-1]) if len(r.links) else np.zeros(0)
        return sums[self.lead]

    def wire(self, running: np.ndarray) -> np.ndarray:
        """Max-min over the host links, each flow capped at its window per round trip; the round trip
        with the header waits the rates give (:data:`WAIT_ROUNDS` rounds of the fixed point)."""
        wait = np.zeros(self.routes.n_flows)
        for _ in range(WAIT_ROUNDS):
            rate = maxmin_paths(self.edge_ptr, self.edge_links, self.links.gbps, self._cap(wait), rows=running).rate
            wait = self._header_wait_s(rate)
        return maxmin_paths(self.edge_ptr, self.edge_links, self.links.gbps, self._cap(wait), rows=running).rate

    def solve(self, running: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        wire = np.where(running, self.wire(running), 0.0)
        trim, self.held = trimming.link_trim(self.links, self.routes, self.share, wire, self.prm.queue_pkts,
                                             self.into_host, self.n_in)
        d = trimming.delivery(self.routes, self.share, trim)
        good = wire * d * self.prm.payload / self.prm.mtu
        return wire, good, d, trim


def _spray_run(fabric: Fabric, links: LinkTable, flows: Flows, routes: Routes, transport: str,
               seed: int) -> TransportRun:
    prm = SPRAY[transport]
    sp = _Spray(fabric, links, routes, prm, seed)
    allrun = np.ones(len(flows), bool)
    wire, good, d, trim = sp.solve(allrun)
    queue = sp.held * prm.mtu
    load = np.bincount(routes.links, np.repeat(sp.share * wire[routes.flow], routes.hops()), minlength=links.n)
    done = completion_times(lambda run: sp.solve(run)[1], flows.bytes, good, len(routes.links)) \
        if np.isfinite(flows.bytes).any() else None
    return TransportRun(transport, ROUTING[transport], wire, good, d, trim, load, queue, done, prm.source, prm.mtu)


def _hpcc_run(links: LinkTable, flows: Flows, routes: Routes, prm: HpccParams = HPCC_PARAMS) -> TransportRun:
    cap = links.gbps * prm.eta
    A = routes.incidence()
    demand = flows.rate_gbps
    res = maxmin(A, cap, demand)
    eff = 1.0                     # htsim's HPCC counts whole MSS payloads, no header bytes

    def solve(run: np.ndarray) -> np.ndarray:
        out = np.zeros(len(run))
        out[run] = maxmin(A[run], cap, demand[run]).rate * eff
        return out
    done = completion_times(solve, flows.bytes, res.rate * eff, len(routes.links)) \
        if np.isfinite(flows.bytes).any() else None
    n = len(flows)
    return TransportRun(HPCC, ROUTING[HPCC], res.rate, res.rate * eff, np.ones(n), np.zeros(links.n),
                        res.link_load, np.zeros(links.n), done, prm.source)


def route_transport(fabric: Fabric, flows: Flows, transport: str, seed: int = 0, links: LinkTable | None = None,
                    routing: str | None = None) -> tuple[LinkTable, Routes]:
    """Route ``flows`` as ``transport`` does. ``routing``: None or the transport's own (ParamError
    otherwise); Ethernet designs only."""
    own = ROUTING[transport]
    if routing not in (None, own):
        how = "every equal-cost path" if own == "spray" else "one ECMP path per flow"
        raise ParamError("routing", routing, f"--transport {transport} routes {own}: its packets take {how}")
    if fabric_tech(fabric) == "ib":
        raise ParamError("transport", transport, "is Ethernet's: this is an InfiniBand design")
    links = links if links is not None else link_table(fabric)
    return links, route(fabric, links, flows, own, seed=seed)


def run_transport(fabric: Fabric, flows: Flows, transport: str, seed: int = 0, links: LinkTable | None = None,
                  routing: str | None = None) -> tuple[LinkTable, Routes, TransportRun]:
    """Route ``flows`` as ``transport`` does and run it (module doc, :func:`route_transport`)."""
    links, routes = route_transport(fabric, flows, transport, seed, links, routing)
    if transport == HPCC:
        return links, routes, _hpcc_run(links, flows, routes)
    return links, routes, _spray_run(fabric, links, flows, routes, transport, seed)
