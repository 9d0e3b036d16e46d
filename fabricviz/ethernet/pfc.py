"""Lossless backpressure: PFC XOFF/XON with headroom (RoCE) and credits (InfiniBand).

PFC is counted per (ingress port, priority): the bytes that arrived over a link
and still sit in the next switch's queues. Crossing XOFF pauses the upstream
transmitter of that link; it resumes once the counter falls to XON. Bytes in
flight after XOFF land in the headroom, sized like HPCC-ns3: 3 · C · d / 8
plus two MTUs. InfiniBand's credit loop instead lets the upstream send only as
much as the downstream buffer has room for (continuous backpressure).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PfcParams:
    xoff: float | None = None    # bytes per ingress port (one lossless priority); None: per speed
    xon: float | None = None     # default: XOFF − 2 MTU
    mtu: float = 4096.0
    credit_buffer: float = 256e3  # InfiniBand per-VL input buffer, bytes


def xoff_levels(params: PfcParams, ecn_kmax: np.ndarray) -> np.ndarray:
    """XOFF per ingress link: the given value, or 1.25 × the ECN Kmax of that speed clipped to
    256 KB … 4 MB (4 MB = a 32 MB shared buffer at HPCC-ns3's α = 1/8), so ECN acts before PFC."""
    if params.xoff is not None:
        return np.full(len(ecn_kmax), float(params.xoff))
    return np.clip(1.25 * np.asarray(ecn_kmax, float), 256e3, 4e6)


def headroom_bytes(gbps: np.ndarray, prop_ns: np.ndarray, mtu: float = 4096.0) -> np.ndarray:
    """Headroom each ingress needs to absorb what is in flight after XOFF."""
    return 3 * np.asarray(gbps) * 1e9 * np.asarray(prop_ns) * 1e-9 / 8 + 2 * mtu


def pfc_update(paused: np.ndarray, ingress_bytes: np.ndarray, xoff: np.ndarray | float,
               params: PfcParams) -> np.ndarray:
    """New pause state per link from its downstream ingress counter (hysteresis):
    pause at XOFF, resume at XON (default XOFF − 2 MTU)."""
    xon = xoff - 2 * params.mtu if params.xon is None else params.xon
    return np.where(paused, ingress_bytes > xon, ingress_bytes >= xoff)


def credit_limit(ingress_bytes: np.ndarray, params: PfcParams) -> np.ndarray:
    """Bytes an upstream transmitter may still send: the free space of the downstream buffer."""
    return np.maximum(params.credit_buffer - ingress_bytes, 0.0)
