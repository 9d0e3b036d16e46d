"""ECN marking at a switch egress: RED on the instantaneous queue (DCQCN style).

``p(q) = 0`` for ``q ≤ Kmin``, ``Pmax·(q−Kmin)/(Kmax−Kmin)`` up to ``Kmax``,
then 1. Defaults per link speed: the DCQCN paper's 5 KB / 200 KB / 1 % up to
40 Gb/s; above, the HPCC-ns3 lineage's per-speed map with Pmax 0.2 (25G 100/400 KB,
100G 400/1600 KB, 200G 600/2400 KB, 400G and faster 800/3200 KB, as in the
ASTRA-sim ns-3 backend's config), linear between those points. The map grows
sub-linearly above 100G on purpose: scaling 100G's thresholds by speed would put
Kmax at 6.4 MB on 400G, above the 4 MB PFC XOFF cap, so PFC would act before ECN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class EcnParams:
    kmin: float | None = None     # bytes; None = per-speed default
    kmax: float | None = None
    pmax: float | None = None


#: (Gb/s, bytes) points of the default map above 40G; flat beyond the last point
_MAP_GBPS = (25.0, 100.0, 200.0, 400.0)
_MAP_KMIN = (100e3, 400e3, 600e3, 800e3)
_MAP_KMAX = (400e3, 1600e3, 2400e3, 3200e3)


def _interp(g: np.ndarray, ys: tuple[float, ...]) -> np.ndarray:
    """Piecewise-linear in speed through the map (linear through 0 below 25G)."""
    return np.interp(g, (0.0,) + _MAP_GBPS, (0.0,) + ys)


def ecn_thresholds(gbps: np.ndarray, params: EcnParams = EcnParams()
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Kmin, Kmax, Pmax) per link."""
    g = np.asarray(gbps, float)
    slow = g <= 40
    kmin = np.where(slow, 5e3, _interp(g, _MAP_KMIN))
    kmax = np.where(slow, 200e3, _interp(g, _MAP_KMAX))
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


def _per_link(values, port: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A per-port plan array read at each link's port: (values, set) — set where the port
    exists and the plan gives a positive finite value."""
    v = np.asarray(values, float)
    ok = (port >= 0) & (port < len(v))
    out = np.full(len(port), np.nan)
    out[ok] = v[port[ok]]
    has = np.isfinite(out) & (out > 0)
    return np.where(has, out, 0.0), has


def plan_ecn(plan, egress_port: np.ndarray, kmin: np.ndarray, kmax: np.ndarray,
             pmax: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Kmin, Kmax, Pmax) per link from a lossless plan (``ecn_kmin_bytes`` … per model port,
    read at the port each link leaves: the egress queue that marks); the given defaults
    where the plan has nothing for that port."""
    out = []
    for name, dflt in (("ecn_kmin_bytes", kmin), ("ecn_kmax_bytes", kmax), ("ecn_pmax", pmax)):
        v, has = _per_link(getattr(plan, name), egress_port)
        out.append(np.where(has, v, dflt))
    return out[0], out[1], out[2]
