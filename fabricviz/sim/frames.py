"""Frames: immutable per-tick snapshots of the fabric's traffic, cheap to keep for scrubbing.

Every array is float32 (flags are bool) and read-only. Link arrays are indexed
by link id (see :mod:`fabricviz.sim.links`), flow arrays by flow id.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np


def _frozen(a: np.ndarray, dtype=np.float32) -> np.ndarray:
    out = np.array(a, dtype=dtype, copy=True)
    out.setflags(write=False)
    return out


def _none() -> np.ndarray:
    return _frozen(np.zeros(0))


#: Packets trimmed per second from which a link counts as trimming where it is drawn (the canvas's
#: trim marks, a lesson's trimming cables): one per 100 µs; a queue chain's tail below it is not shown.
TRIM_MARK_PER_S = 1e4


@dataclass(frozen=True)
class Frame:
    """One instant: ``time_s`` and per-link / per-flow state.

    ``flow_cc_rate_gbps`` is the sender's DCQCN current rate Rc at the frame's
    instant (what the NIC's rate limiter allows, not what arrives); it is empty
    when the run has no rate-based congestion control (max-min, cc none).
    """

    time_s: float
    link_util: np.ndarray        # carried rate / capacity, 0..1
    link_queue: np.ndarray       # bytes queued at the link's egress
    link_latency_ns: np.ndarray  # serialization + propagation + switch + queueing; NaN: no capacity
    link_paused: np.ndarray      # bool: the link's transmitter is paused (PFC XOFF / no credits)
    link_ecn: np.ndarray         # ECN marking probability at the egress queue
    flow_rate_gbps: np.ndarray   # delivered rate
    flow_latency_ns: np.ndarray  # one-way path latency incl. NIC overheads and queueing
    flow_cc_rate_gbps: np.ndarray = field(default_factory=_none)  # DCQCN Rc; empty: no rate CC
    link_ingress: np.ndarray = field(default_factory=_none)  # bytes the link's far end holds (PFC's
    #   ingress counter, what XOFF is compared with); empty: not a fluid run
    link_trims_per_s: np.ndarray = field(default_factory=_none)  # packets trimmed to headers per second
    #   at the link's egress queue (EQDS / NDP); empty: the run's transport does not trim
    link_trimmed_bytes: np.ndarray = field(default_factory=_none)  # payload bytes the link's egress queue
    #   trimmed since the previous frame (EQDS/NDP fluid runs, :mod:`.fluid_transports`); empty: none trims
    link_pulls_per_s: np.ndarray = field(default_factory=_none)  # pull packets per second crossing the
    #   link, receiver → sender (EQDS/NDP fluid runs, :mod:`.fluid_transports`); empty: the run has no pulls

    @staticmethod
    def make(time_s: float, link_util, link_queue, link_latency_ns, link_paused, link_ecn,
             flow_rate_gbps, flow_latency_ns, flow_cc_rate_gbps=None, link_ingress=None) -> Frame:
        cc = _none() if flow_cc_rate_gbps is None else _frozen(flow_cc_rate_gbps)
        ing = _none() if link_ingress is None else _frozen(link_ingress)
        return Frame(float(time_s), _frozen(link_util), _frozen(link_queue), _frozen(link_latency_ns),
                     _frozen(link_paused, bool), _frozen(link_ecn), _frozen(flow_rate_gbps),
                     _frozen(flow_latency_ns), cc, ing)

    @property
    def has_trims(self) -> bool:
        """True when the run's transport trims (the frame carries trims/s per link)."""
        return len(self.link_trims_per_s) > 0

    def with_trims(self, trims_per_s: np.ndarray) -> Frame:
        """This frame with ``link_trims_per_s`` (per link, packets/s)."""
        return replace(self, link_trims_per_s=_frozen(trims_per_s))

    @property
    def has_pulls(self) -> bool:
        """True when the run's receivers pull (EQDS / NDP tick by tick: the frame carries pulls/s per link)."""
        return len(self.link_pulls_per_s) > 0

    def with_pulls(self, pulls_per_s: np.ndarray) -> Frame:
        """This frame with ``link_pulls_per_s`` (per link, pull packets/s)."""
        return replace(self, link_pulls_per_s=_frozen(pulls_per_s))

    @property
    def has_cc_rate(self) -> bool:
        """True when the run carries a per-flow DCQCN rate."""
        return len(self.flow_cc_rate_gbps) > 0

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, f.name).nbytes for f in fields(self) if f.name != "time_s")
