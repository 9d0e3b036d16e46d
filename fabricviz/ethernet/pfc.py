"""Lossless backpressure: PFC XOFF/XON with headroom (RoCE) and credits (InfiniBand).

PFC is counted per (ingress port, priority): the bytes that arrived over a link
and still sit in the next switch's queues. Crossing XOFF pauses the upstream
transmitter of that link; it resumes once the counter falls to XON. Bytes in
flight after XOFF land in the headroom, sized like HPCC-ns3 (3 · C · d / 8 plus
two MTUs) plus what the upstream still sends while it reacts to the pause
(802.1Qbb's response bound, 463,360 bit times at 400G, i.e. ~58 KB; HPCC-ns3's
formula alone gives ~10 KB on a 2 m 400G link). InfiniBand's credit loop instead lets the upstream send only as
much as the downstream buffer has room for (continuous backpressure).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ecn import _per_link


@dataclass(frozen=True)
class PfcParams:
    xoff: float | None = None    # bytes per ingress port (one lossless priority); None: per speed
    xon: float | None = None     # default: XOFF − 2 MTU
    mtu: float = 4096.0
    credit_buffer: float = 256e3  # InfiniBand per-VL input buffer, bytes
    shared_buffer: float | None = 32e6  # switch buffer shared by its ingress ports; None: static XOFF
    alpha: float = 1 / 8          # dynamic threshold: XOFF ≤ α · (shared buffer − bytes held)


def xoff_levels(params: PfcParams, ecn_kmax: np.ndarray) -> np.ndarray:
    """XOFF per ingress link: the given value, or 1.25 × the ECN Kmax of that speed clipped to
    256 KB … 4 MB (4 MB = a 32 MB shared buffer at HPCC-ns3's α = 1/8), so ECN acts before PFC."""
    if params.xoff is not None:
        return np.full(len(ecn_kmax), float(params.xoff))
    return np.clip(1.25 * np.asarray(ecn_kmax, float), 256e3, 4e6)


#: 802.1Qbb upper bound of the pause response delay, in bit times, per speed (Gb/s)
_RESP_GBPS = (10.0, 25.0, 40.0, 100.0, 400.0)
_RESP_BT = (30_720.0, 40_960.0, 60_416.0, 201_728.0, 463_360.0)


def pause_response_s(gbps: np.ndarray) -> np.ndarray:
    """Time a transmitter may take to stop after a pause arrives (802.1Qbb bound; bit times
    linear in speed between the table's points, the 400G figure beyond)."""
    g = np.asarray(gbps, float)
    bt = np.interp(g, _RESP_GBPS, _RESP_BT)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(g > 0, bt / (g * 1e9), 0.0)


def dynamic_xoff(xoff: np.ndarray, held_in_switch: np.ndarray, params: PfcParams,
                 pool: np.ndarray | None = None, alpha: np.ndarray | None = None) -> np.ndarray:
    """Broadcom-style dynamic threshold (HPCC-ns3's MMU): an ingress pauses at
    min(XOFF, α · free shared buffer), so many congested ingress ports of one switch
    share its buffer instead of each holding a full XOFF. ``pool``/``alpha`` per element (the
    switch's own shared pool and α, from the lossless plan) replace ``params``' where given
    (NaN: the params' value)."""
    if pool is not None and alpha is not None:
        base = np.inf if params.shared_buffer is None else params.shared_buffer
        p = np.where(np.isnan(pool), base, pool)
        a = np.where(np.isnan(alpha), params.alpha, alpha)
        return np.minimum(xoff, np.where(np.isfinite(p), a * np.maximum(p - held_in_switch, 0.0), np.inf))
    if params.shared_buffer is None:
        return xoff
    return np.minimum(xoff, params.alpha * np.maximum(params.shared_buffer - held_in_switch, 0.0))


def headroom_bytes(gbps: np.ndarray, prop_ns: np.ndarray, mtu: float = 4096.0,
                   response_s: np.ndarray | float = 0.0) -> np.ndarray:
    """Headroom each ingress needs to absorb what is in flight after XOFF: HPCC-ns3's
    3 · C · d / 8 + 2 MTU, plus C · ``response_s`` / 8 sent while the upstream reacts."""
    g = np.asarray(gbps, float) * 1e9 / 8
    return 3 * g * np.asarray(prop_ns) * 1e-9 + 2 * mtu + g * np.asarray(response_s)


def pfc_update(paused: np.ndarray, ingress_bytes: np.ndarray, xoff: np.ndarray | float,
               params: PfcParams, xon: np.ndarray | float | None = None) -> np.ndarray:
    """New pause state per link from its downstream ingress counter (hysteresis):
    pause at XOFF, resume at XON (``xon`` per link, else ``params.xon``, else XOFF − 2 MTU)."""
    if xon is None:
        xon = xoff - 2 * params.mtu if params.xon is None else params.xon
    return np.where(paused, ingress_bytes > xon, ingress_bytes >= xoff)


def credit_limit(ingress_bytes: np.ndarray, params: PfcParams) -> np.ndarray:
    """Bytes an upstream transmitter may still send: the free space of the downstream buffer."""
    return np.maximum(params.credit_buffer - ingress_bytes, 0.0)


def plan_pfc(plan, ingress_port: np.ndarray, xoff: np.ndarray, xon: np.ndarray,
             headroom: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(XOFF, XON, headroom) per link from a lossless plan (``xoff_bytes``, ``xon_bytes``,
    ``headroom_bytes`` per model port, read at the port each link enters: the ingress that
    counts and pauses); the given defaults where the plan has nothing for that port. With
    no XON in the plan the default gap (2 MTU) below its XOFF is kept."""
    xo, has_xo = _per_link(plan.xoff_bytes, ingress_port)
    xn, has_xn = _per_link(plan.xon_bytes, ingress_port)
    hr, has_hr = _per_link(plan.headroom_bytes, ingress_port)
    new_xoff = np.where(has_xo, xo, xoff)
    new_xon = np.where(has_xn, np.minimum(xn, new_xoff), new_xoff - (xoff - xon))
    return new_xoff, new_xon, np.where(has_hr, hr, headroom)
