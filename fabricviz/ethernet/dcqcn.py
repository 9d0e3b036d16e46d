"""DCQCN at the senders, in the fluid form of Zhu et al. (SIGCOMM'15 §5).

State per flow: current rate Rc, target rate Rt and α. With p the marking
probability seen τ* ago and R = Rc(t − τ*) (rates in packets/s):

    dα/dt  = g/τ′ · ((1 − (1−p)^{τ′R}) − α)
    dRt/dt = −(Rt − Rc)/τ · a + R_AI·R·(c + e)
    dRc/dt = −Rc·α/(2τ) · a + (Rt − Rc)/2 · R·(b + d)

with a = 1 − (1−p)^{τR}, b = p/((1−p)^{−B} − 1), c = b(1−p)^{FB},
d = p/((1−p)^{−TR} − 1), e = d(1−p)^{FTR}. Defaults are the paper's
(g 1/256, τ 50 µs, τ′ 55 µs, T 55 µs, B 10 MB, F 5, R_AI 40 Mb/s, 1 KB packets).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DcqcnParams:
    g: float = 1 / 256
    tau: float = 50e-6          # CNP interval
    tau_prime: float = 55e-6    # α update period
    timer: float = 55e-6        # rate-increase timer T
    byte_counter: float = 10e6  # B, bytes
    fast_recovery: int = 5      # F
    rai_gbps: float = 0.04      # additive increase, 40 Mb/s
    feedback_s: float = 4e-6    # τ*: marking → CNP → sender
    packet_bytes: float = 1000.0
    min_gbps: float = 0.01
    alpha0: float = 1.0


def _pow(one_minus_p_log: np.ndarray, n: np.ndarray | float) -> np.ndarray:
    """(1 − p)^n from log1p(−p)."""
    return np.exp(n * one_minus_p_log)


def dcqcn_step(rc: np.ndarray, rt: np.ndarray, alpha: np.ndarray, rc_late: np.ndarray,
               p_late: np.ndarray, line_gbps: np.ndarray, dt: float,
               prm: DcqcnParams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One Euler step; rates in Gb/s in and out. Returns new (rc, rt, alpha)."""
    pkt = prm.packet_bytes * 8 / 1e9                # Gb per packet
    R = np.maximum(rc_late, prm.min_gbps) / pkt      # packets/s
    Rai = prm.rai_gbps / pkt
    B = prm.byte_counter / prm.packet_bytes
    F, T = prm.fast_recovery, prm.timer
    # p ≥ 1e-15 keeps every term finite and gives the p → 0 limits (b = c = 1/B, d = e = 1/(TR))
    p = np.minimum(np.maximum(p_late, 1e-15), 1.0 - 1e-12)
    lg = np.log1p(-p)                                # < 0
    with np.errstate(over="ignore"):
        a = -np.expm1(prm.tau * R * lg)
        b = p / np.expm1(-B * lg)
        c = b * _pow(lg, F * B)
        d = p / np.expm1(-T * R * lg)
        e = d * _pow(lg, F * T * R)
    rc_p, rt_p = rc / pkt, rt / pkt
    d_alpha = prm.g / prm.tau_prime * ((-np.expm1(prm.tau_prime * R * lg)) - alpha)
    d_rt = -(rt_p - rc_p) / prm.tau * a + Rai * R * (c + e)
    d_rc = -rc_p * alpha / (2 * prm.tau) * a + (rt_p - rc_p) / 2 * R * (b + d)
    line = line_gbps / pkt
    lo = prm.min_gbps / pkt
    rc_n = np.minimum(np.maximum(rc_p + dt * d_rc, lo), line)
    rt_n = np.minimum(np.maximum(rt_p + dt * d_rt, lo), line)
    al_n = np.minimum(np.maximum(alpha + dt * d_alpha, 0.0), 1.0)
    return rc_n * pkt, rt_n * pkt, al_n
