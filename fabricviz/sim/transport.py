"""Transports and reordering: what multipath routing costs a go-back-N RoCE NIC.

``ib`` (InfiniBand AR with AR-capable HCAs) and ``roce-ooo`` (a RoCE NIC placing
reordered packets, ConnectX-7 / BlueField-3 class with Spectrum-X style AR) take
packets in any order: no cost. ``roce-gbn`` (older RoCE NICs, the transport htsim_roce
models) NAKs the first packet that arrives after a later-sent one and resends the whole
window in flight from there (go-back-N).

The model (per flow, over its sub-paths ``i`` with shares ``f_i``):

* each sub-path's one-way delay is ``D_i = b_i + U_i``: ``b_i`` its unloaded latency (the
  links' :mod:`.latency`), ``U_i`` its queueing delay, taken as independent and uniform on
  ``[0, Q_i]``, ``Q_i = h_i · queue_bytes / rate`` (``h_i`` switch egress hops, each holding up
  to ``queue_bytes``, a lossless queue's level before it pauses). With ``queue_bytes = 0``
  the delays are the base ones.
* ``T(x) = P(U_i − U_j > x)`` (triangular: ``(Q−x)²/2Q²`` for ``0 ≤ x ≤ Q``, ``1 − (Q+x)²/2Q²`` for
  ``−Q ≤ x < 0``; a step at 0 when ``Q = 0``; Q the pair's mean spread).
* **spray** (per-packet): a packet is overtaken when the one sent next (one packet time ``τ``
  later, on another path) arrives first: ``p = Σ_{i≠j} f_i f_j T(τ − (b_i − b_j)) / Σ_{i≠j} f_i f_j``.
  A go-back-N cycle is ``1/p`` packets in order, then a NAK and a resend of the window in flight,
  ``W = rate · 2·d̄ / MTU`` packets (``d̄ = Σ f_i (b_i + Q_i/2)``, the mean one-way delay); one
  NAK per cycle (the receiver ignores further gaps until the resent packet comes). The
  retransmitted fraction is ``r = p·W`` and the goodput efficiency ``η = 1 / (1 + r)``.
* **adaptive** (flowlets): the NIC moves to another path only on an idle gap of
  ``flowlet_gap_s``; a move (chance ``s = 1 − Σ f_i²`` per flowlet) reorders when the old path
  is the slower one, ``q = Σ_{i≠j} f_i f_j T(b_j − b_i) / Σ_{i≠j} f_i f_j`` (the sender's gap does
  not drain the old path's queues: under PFC the gap is the pause that holds them). A flowlet
  lasts about one gap (``rate·flowlet_gap_s`` bytes); each reordering move resends
  ``flowlet_resend`` windows in flight (``rate·2·d̄``): ``r = s·q·flowlet_resend·2·d̄ / flowlet_gap_s``.
  The default ``flowlet_resend`` is fitted to htsim_roce's flowlet AR on the radix-8 fat tree
  (issue 16: 32.8 Gb/s against a perfect 100 Gb/s split, η ≈ 0.33, r ≈ 2.05); it folds in the
  flowlets' coarser balance as well as htsim's ~1× payload resent.
* ``static`` / ``ecmp``: one path, in order, no cost.

Max-min shares links by wire rate (goodput / η: resent bytes load the links) with the demand
caps divided by η (a fluid run given ``FluidParams.eta`` injects the resent bytes again and counts
only η of what arrives as delivered). Adaptive routing and spraying over go-back-N in the fluid model are not this
estimate but the mechanism itself (:mod:`.flowlets`: flowlet moves at idle gaps or a per-switch
round-robin every packet, the reorderings they cause, every NAK and rewind), checked against
htsim_roce (bench/htsim_compare.py; tests/sim/test_htsim_reference.py, test_htsim_shuffle.py); the
max-min figures above stay steady-state estimates (one rate per flow, so no spread of completion
times; for spray −47 % on htsim's mean rate, its FCTs 2.8× htsim's median).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Fabric
from .latency import DEFAULT_LATENCY, LatencyParams, link_latency
from .links import LinkTable
from .paths import Routes
from .reach import fabric_tech
from .transports.params import NEW_TRANSPORTS
from .units import ParamError

TRANSPORTS = ("ib", "roce-gbn", "roce-ooo") + NEW_TRANSPORTS   # the last: :mod:`.transports`
#: Per flow, sub-paths beyond this many are left out of the pair sums (memory guard).
MAX_PAIR_PATHS = 64


@dataclass(frozen=True)
class TransportParams:
    transport: str = "roce-gbn"
    mtu_bytes: float = 4096.0
    queue_bytes: float = 15 * 4096.0     # per switch egress hop: a lossless queue's level (htsim: 15 packets)
    flowlet_gap_s: float = 50e-6         # the NIC's flowlet timeout
    flowlet_resend: float = 7.5          # windows resent per reordering flowlet move (fitted, see module doc)


@dataclass(frozen=True)
class TransportEffect:
    """Per flow: goodput efficiency ``eta`` and retransmitted bytes per delivered byte ``resent``."""
    transport: str
    routing: str
    eta: np.ndarray
    resent: np.ndarray

    @property
    def costly(self) -> bool:
        return bool(np.any(self.eta < 1.0))

    def summary(self, goodput_gbps: np.ndarray, delivered_bytes: float | None = None) -> dict:
        """The ``--json`` entries: transport, efficiency (mean, min), retransmission."""
        out: dict = {"transport": self.transport,
                     "transport_efficiency": {"routing": self.routing,
                                              "mean": float(self.eta.mean()) if len(self.eta) else 1.0,
                                              "min": float(self.eta.min()) if len(self.eta) else 1.0}}
        out["reorder_retransmit_gbps"] = float(np.sum(goodput_gbps * self.resent))
        if delivered_bytes is not None:
            out["reorder_retransmitted_bytes"] = float(delivered_bytes)
        return out


def default_transport(fabric: Fabric) -> str:
    """``ib`` on InfiniBand; on RoCE ``roce-ooo`` when every NIC part places out of order, else ``roce-gbn``."""
    if fabric_tech(fabric) == "ib":
        return "ib"
    t = fabric.devices_t
    nic = np.flatnonzero(t.alive & (t.kind == _nic_code()))
    parts = {fabric.part_id_of(int(d)) for d in nic}
    ooo = [p is not None and fabric.catalog.get(p).ooo_placement for p in parts]
    return "roce-ooo" if ooo and all(ooo) else "roce-gbn"


def _nic_code() -> int:
    from ..model.fabric import KIND_CODE
    return int(KIND_CODE["nic"])


def check_transport(fabric: Fabric, transport: str | None) -> str:
    """The run's transport: ``transport`` (checked against the design's technology) or the default."""
    if transport is None:
        return default_transport(fabric)
    if transport not in TRANSPORTS:
        raise ParamError("transport", transport, f"is not one of {', '.join(TRANSPORTS)}")
    ib = fabric_tech(fabric) == "ib"
    if ib != (transport == "ib"):
        raise ParamError("transport", transport, "is InfiniBand's: this is a RoCE design" if ib is False
                         else "is RoCE's: this is an InfiniBand design")
    return transport


def tail(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``P(U1 − U2 > x)`` for independent ``U ~ Uniform[0, q]`` (a step at 0 when ``q = 0``)."""
    x, q = np.broadcast_arrays(np.asarray(x, float), np.asarray(q, float))
    out = np.where(x < 0, 1.0, 0.0)
    pos = q > 0
    qs = np.where(pos, q, 1.0)
    hi = (qs - x) ** 2 / (2 * qs ** 2)
    lo = 1 - (qs + x) ** 2 / (2 * qs ** 2)
    smooth = np.where(x >= qs, 0.0, np.where(x >= 0, hi, np.where(x >= -qs, lo, 1.0)))
    return np.where(pos, smooth, out)


def path_delays(links: LinkTable, routes: Routes, prm: TransportParams,
                latency: LatencyParams = DEFAULT_LATENCY) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per sub-path: base one-way delay (s), queueing spread ``Q`` (s) and its rate (Gb/s)."""
    lat = link_latency(links, latency).total
    lat = np.where(np.isfinite(lat), lat, 0.0) * 1e-9
    hop_path = np.repeat(np.arange(routes.n_paths), routes.hops())
    base = np.bincount(hop_path, weights=lat[routes.links], minlength=routes.n_paths)
    fabric_hop = ~links.pcie[routes.links]
    hops = np.maximum(np.bincount(hop_path, weights=fabric_hop, minlength=routes.n_paths) - 1, 0)
    gbps = np.where(fabric_hop, links.gbps[routes.links], np.inf)
    rate = np.full(routes.n_paths, np.inf)
    np.minimum.at(rate, hop_path, gbps)
    rate = np.where(np.isfinite(rate) & (rate > 0), rate, 1.0)
    return base, hops * prm.queue_bytes * 8 / (rate * 1e9), rate


def _pairs(routes: Routes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All ordered pairs (i, j), i ≠ j, of sub-paths of one flow, and that flow."""
    start = np.searchsorted(routes.flow, np.arange(routes.n_flows))
    count = np.minimum(np.bincount(routes.flow, minlength=routes.n_flows), MAX_PAIR_PATHS)
    n2 = count * count
    f = np.repeat(np.arange(routes.n_flows), n2)
    k = np.arange(int(n2.sum())) - np.repeat(np.cumsum(n2) - n2, n2)
    c = count[f]
    i, j = start[f] + k // np.maximum(c, 1), start[f] + k % np.maximum(c, 1)
    keep = i != j
    return i[keep], j[keep], f[keep]


def transport_effect(links: LinkTable, routes: Routes, routing: str, transport: str,
                     prm: TransportParams | None = None,
                     latency: LatencyParams = DEFAULT_LATENCY) -> TransportEffect:
    """Per-flow efficiency of ``transport`` under ``routing`` (see module doc)."""
    prm = prm or TransportParams(transport)
    F = routes.n_flows
    one, zero = np.ones(F), np.zeros(F)
    if transport != "roce-gbn" or routing not in ("spray", "adaptive") or F == 0:
        return TransportEffect(transport, routing, one, zero)
    base, spread, rate = path_delays(links, routes, prm, latency)
    fr = routes.frac
    i, j, f = _pairs(routes)
    w = fr[i] * fr[j]
    wsum = np.bincount(f, weights=w, minlength=F)
    q = (spread[i] + spread[j]) / 2
    if routing == "spray":
        tau = prm.mtu_bytes * 8 / (rate[i] * 1e9)
        p = np.bincount(f, weights=w * tail(tau - (base[i] - base[j]), q), minlength=F)
        p = np.divide(p, wsum, out=np.zeros(F), where=wsum > 0)
        dbar = np.bincount(routes.flow, weights=fr * (base + spread / 2), minlength=F)
        frate = np.bincount(routes.flow, weights=fr * rate, minlength=F)
        resent = p * frate * 1e9 * 2 * dbar / (prm.mtu_bytes * 8)
    else:
        move = 1 - np.bincount(routes.flow, weights=fr ** 2, minlength=F)
        qr = np.bincount(f, weights=w * tail(base[j] - base[i], q), minlength=F)
        qr = np.divide(qr, wsum, out=np.zeros(F), where=wsum > 0)
        dbar = np.bincount(routes.flow, weights=fr * (base + spread / 2), minlength=F)
        resent = np.where(wsum > 0, move * qr * prm.flowlet_resend * 2 * dbar / prm.flowlet_gap_s, 0.0)
    return TransportEffect(transport, routing, 1 / (1 + resent), resent)
