"""DCQCN at the senders, in the fluid form of Zhu et al. (SIGCOMM'15 §5), with presets.

State per flow: current rate Rc, target rate Rt and α. With p the marking
probability seen τ* ago and R = Rc(t − τ*) (rates in packets/s):

    dα/dt  = g/τ′ · (a′ − α)
    dRt/dt = −(Rt − Rc)/τd · a · w + R_AI·R·(c + e) + (R_HAI − R_AI)·R·(b + d)·h
    dRc/dt = −Rc·α/(2τd) · a + (Rt − Rc)/2 · R·(b + d)

with τd = max(CNP interval τ, rate-reduce monitor period) the shortest time between two
decreases, a = 1 − (1−p)^{τd·R} (≥ 1 mark in τd), a′ the chance of a CNP within one α
period (1 − (1−p)^{τ′R} when τ′ ≥ τ, else τ′/τ · (1 − (1−p)^{τR}): at most one CNP per τ),
b = p/((1−p)^{−B} − 1), c = b(1−p)^{FB}, d = p/((1−p)^{−TR} − 1), e = d(1−p)^{FTR}.
w weighs the clamp Rt ← Rc on a CNP: 1 with ``clamp_target``; with only
``clamp_after_timer`` (ConnectX) the chance the increase timer fired since the last
decrease, exp(−T·a/τd). h = (1−p)^{(F+1)·max(B, T·R)} is the hyper-increase stage (both
counters past F); the HAI term is off when ``hai_gbps`` is 0 (the paper's model has none).

Presets: ``paper`` — the paper's (g 1/256, τ 50 µs, τ′ 55 µs, T 55 µs, B 10 MB, F 5,
R_AI 40 Mb/s, clamp on every CNP), kept for the textbook validation cases; ``nvidia`` —
ConnectX firmware defaults (reference congestion.md §2.2–2.3): no target-rate clamp on a CNP,
rate-reduce monitor period 4 µs, T 300 µs, B 32767 B, F 1, AI 5 Mb/s, HAI 50 Mb/s, α period
1 µs, CNP interval 4 µs, min rate 1 Mb/s, α₀ 1023/1024, g = (1024 − 1019)/1024 (DCE_TCP_G
1019 read as a fraction of 1024, like INITIAL_ALPHA_VALUE).

``nvidia`` steps the equations exactly for coefficients frozen over the step (Rc relaxes
towards k₂Rt/(k₁+k₂) at rate k₁+k₂), so the fast ConnectX byte counter (an increase every
32 KB, i.e. every 0.1 µs at 400G) stays stable at a 1–5 µs tick; ``paper`` keeps the Euler
step its validation numbers were checked with.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DcqcnParams:
    g: float = 1 / 256
    tau: float = 50e-6          # CNP interval (at most one CNP per flow per τ)
    tau_prime: float = 55e-6    # α update period
    timer: float = 55e-6        # rate-increase timer T
    byte_counter: float = 10e6  # B, bytes
    fast_recovery: int = 5      # F
    rai_gbps: float = 0.04      # additive increase, 40 Mb/s
    feedback_s: float = 4e-6    # τ*: marking → CNP → sender
    packet_bytes: float = 1000.0
    min_gbps: float = 0.01
    alpha0: float = 1.0
    hai_gbps: float = 0.0       # hyper increase (0: none, as in the paper's fluid model)
    decrease_period: float = 0.0   # rate-reduce monitor period: at most one cut per period
    clamp_target: bool = True      # Rt ← Rc on every CNP (CLAMP_TGT_RATE)
    clamp_after_timer: bool = False  # Rt ← Rc only if the timer raised the rate since (…_AFTER_TIME_INC)
    exact_step: bool = False       # integrate exactly per step (else Euler, as the paper checks used)
    preset: str = "paper"


PAPER = DcqcnParams()
NVIDIA = DcqcnParams(g=(1024 - 1019) / 1024, tau=4e-6, tau_prime=1e-6, timer=300e-6,
                     byte_counter=32767.0, fast_recovery=1, rai_gbps=0.005, hai_gbps=0.05,
                     min_gbps=0.001, alpha0=1023 / 1024, decrease_period=4e-6, clamp_target=False,
                     clamp_after_timer=True, exact_step=True, preset="nvidia")
PRESETS = {"paper": PAPER, "nvidia": NVIDIA}


def dcqcn_preset(name: str) -> DcqcnParams:
    """The parameters of preset ``name`` (paper | nvidia)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"DCQCN preset {name!r}: not one of {', '.join(PRESETS)}") from None


def _pow(one_minus_p_log: np.ndarray, n: np.ndarray | float) -> np.ndarray:
    """(1 − p)^n from log1p(−p)."""
    return np.exp(n * one_minus_p_log)


def _relax(x: np.ndarray, k_out: np.ndarray, k_in: np.ndarray, target: np.ndarray,
           add: np.ndarray, dt: float) -> np.ndarray:
    """Exact step of dx/dt = −k_out·x + k_in·(target − x) + add with frozen coefficients."""
    k = k_out + k_in
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        fix = np.where(k > 0, (k_in * target + add) / k, 0.0)
        decay = np.exp(-k * dt)
        return np.where(k * dt > 1e-12, fix + (x - fix) * decay, x + dt * (add - k_out * x + k_in * (target - x)))


def dcqcn_step(rc: np.ndarray, rt: np.ndarray, alpha: np.ndarray, rc_late: np.ndarray,
               p_late: np.ndarray, line_gbps: np.ndarray, dt: float,
               prm: DcqcnParams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step; rates in Gb/s in and out. Returns new (rc, rt, alpha)."""
    pkt = prm.packet_bytes * 8 / 1e9                # Gb per packet
    R = np.maximum(rc_late, prm.min_gbps) / pkt      # packets/s
    Rai = prm.rai_gbps / pkt
    B = prm.byte_counter / prm.packet_bytes
    F, T = prm.fast_recovery, prm.timer
    tau_d = max(prm.tau, prm.decrease_period)
    # p ≥ 1e-15 keeps every term finite and gives the p → 0 limits (b = c = 1/B, d = e = 1/(TR))
    p = np.minimum(np.maximum(p_late, 1e-15), 1.0 - 1e-12)
    lg = np.log1p(-p)                                # < 0
    with np.errstate(over="ignore"):
        a = -np.expm1(tau_d * R * lg)
        b = p / np.expm1(-B * lg)
        c = b * _pow(lg, F * B)
        d = p / np.expm1(-T * R * lg)
        e = d * _pow(lg, F * T * R)
    if prm.tau_prime >= prm.tau:
        a_alpha = -np.expm1(prm.tau_prime * R * lg)
    else:
        a_alpha = prm.tau_prime / prm.tau * -np.expm1(prm.tau * R * lg)
    if prm.clamp_target:
        w: np.ndarray | float = 1.0
    elif prm.clamp_after_timer:
        w = np.exp(-T * a / tau_d)
    else:
        w = 0.0
    rc_p, rt_p = rc / pkt, rt / pkt
    inc = Rai * R * (c + e)
    if prm.hai_gbps > 0:
        h = _pow(lg, (F + 1) * np.maximum(B, T * R))
        inc = inc + (prm.hai_gbps / pkt - Rai) * R * (b + d) * h
    if not prm.exact_step:
        d_alpha = prm.g / prm.tau_prime * (a_alpha - alpha)
        d_rt = -(rt_p - rc_p) / tau_d * a * w + inc
        d_rc = -rc_p * alpha / (2 * tau_d) * a + (rt_p - rc_p) / 2 * R * (b + d)
        return _clip(rc_p + dt * d_rc, rt_p + dt * d_rt, alpha + dt * d_alpha, line_gbps, pkt, prm)
    zero = np.zeros_like(rc_p)
    al_n = _relax(alpha, zero, prm.g / prm.tau_prime + zero, a_alpha, zero, dt)
    rt_n = _relax(rt_p, zero, w * a / tau_d + zero, rc_p, inc, dt)
    rc_n = _relax(rc_p, alpha * a / (2 * tau_d), R * (b + d) / 2, rt_p, zero, dt)
    return _clip(rc_n, rt_n, al_n, line_gbps, pkt, prm)


def _clip(rc_n: np.ndarray, rt_n: np.ndarray, al_n: np.ndarray, line_gbps: np.ndarray, pkt: float,
          prm: DcqcnParams) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rates (packets/s) into [min rate, line rate] as Gb/s, α into [0, 1]."""
    line = line_gbps / pkt
    lo = prm.min_gbps / pkt
    rc_n = np.minimum(np.maximum(rc_n, lo), line)
    rt_n = np.minimum(np.maximum(rt_n, lo), line)
    al_n = np.minimum(np.maximum(al_n, 0.0), 1.0)
    return rc_n * pkt, rt_n * pkt, al_n
