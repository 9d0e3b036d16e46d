"""ECN marking at a switch egress: RED on the instantaneous queue (DCQCN style).

``p(q) = 0`` for ``q ≤ Kmin``, ``Pmax·(q−Kmin)/(Kmax−Kmin)`` up to ``Kmax``,
then 1. Defaults per link speed: the DCQCN paper's 5 KB / 200 KB / 1 % up to
40 Gb/s; above, HPCC-ns3's config scaled with speed (25G: 100 KB / 400 KB,
100G: 400 KB / 1600 KB, Pmax 0.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class EcnParams:
    kmin: float | None = None     # bytes; None = per-speed default
    kmax: float | None = None
    pmax: float | None = None


def ecn_thresholds(gbps: np.ndarray, params: EcnParams = EcnParams()
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Kmin, Kmax, Pmax) per link."""
    g = np.asarray(gbps, float)
    slow = g <= 40
    kmin = np.where(slow, 5e3, 100e3 * g / 25)
    kmax = np.where(slow, 200e3, 400e3 * g / 25)
    pmax = np.where(slow, 0.01, 0.2)
    if params.kmin is not None:
        kmin = np.full_like(g, params.kmin)
    if params.kmax is not None:
        kmax = np.full_like(g, params.kmax)
    if params.pmax is not None:
        pmax = np.full_like(g, params.pmax)
    return kmin, kmax, pmax


def red_probability(q: np.ndarray, kmin: np.ndarray, kmax: np.ndarray, pmax: np.ndarray) -> np.ndarray:
    """Marking probability for queue lengths ``q`` (bytes)."""
    span = np.maximum(kmax - kmin, 1e-9)
    p = pmax * (q - kmin) / span
    return np.where(q <= kmin, 0.0, np.where(q > kmax, 1.0, p))


def path_marking(path_incidence, p_link: np.ndarray) -> np.ndarray:
    """Probability a packet is marked somewhere on each path: 1 − Π(1 − p_l)."""
    logs = np.log1p(-np.minimum(p_link, 1 - 1e-12))
    return -np.expm1(path_incidence @ logs)
