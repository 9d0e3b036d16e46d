"""Lossless RoCE plan of a design: PFC headroom, XOFF/XON, ECN thresholds and buffer budgets.

One source of truth for everything that makes a RoCE fabric lossless: the fluid model
(``sim/fluid.py``), the switch-config export and ``fabricviz headroom`` all read the
same :class:`LosslessPlan`. Arrays are indexed by model port id (``fabric.ports_t.n`` rows);
entries of ports that are not cabled Ethernet switch ports are 0 (``lossless`` False).

* headroom per (ingress port, lossless priority): :mod:`.headroom` (IEEE worst case or
  the NVIDIA rule of thumb), rounded up to whole bytes;
* XOFF: the pause threshold of the ingress (bytes held before it pauses its upstream),
  ``min(1.25 · Kmax, α · shared / (1 + α))`` — ECN marks before PFC pauses, and one
  congested ingress never claims more than the dynamic threshold gives it;
  XON = XOFF − 2 · MTU (the fluid model's hysteresis);
* ECN (RED) Kmin/Kmax/Pmax per egress queue from :func:`fabricviz.ethernet.ecn.ecn_thresholds`
  (per-speed map, or the design's override in ``meta["roce"]["ecn"]``);
* per switch a :class:`~fabricviz.ethernet.buffers.SwitchBudget` (:mod:`.buffers`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..model.fabric import ETH_SWITCH, KIND_CODE
from ..model.tech import TECH_ETH_CODE, rates_gbps
from .buffers import SwitchBudget, switch_budget
from .ecn import EcnParams, ecn_thresholds
from .headroom import METHODS, cable_media, headroom_terms
from .roce_meta import roce_settings

if TYPE_CHECKING:  # pragma: no cover
    from ..model.fabric import Fabric

__all__ = ["LosslessPlan", "SwitchBudget", "lossless_plan", "lossless_ports", "METHODS"]


@dataclass(frozen=True)
class LosslessPlan:
    """PFC/ECN settings per port and the buffer budget per switch (see the module docstring)."""

    mtu: int
    method: str
    priorities: tuple[int, ...]
    lossless: np.ndarray          # bool per port: a cabled Ethernet switch port
    gbps: np.ndarray              # link rate of the port's cable (Gb/s), 0 elsewhere
    cable_m: np.ndarray           # cable length (m), 0 elsewhere
    medium: np.ndarray            # "dac" | "mmf" | "smf" | "" per port
    headroom_bytes: np.ndarray    # per port and lossless priority
    xoff_bytes: np.ndarray
    xon_bytes: np.ndarray
    ecn_kmin_bytes: np.ndarray
    ecn_kmax_bytes: np.ndarray
    ecn_pmax: np.ndarray
    switches: dict[int, SwitchBudget] = field(default_factory=dict)
    term_arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    fixed_pfc: bool = False       # XOFF/XON fixed by the design (meta.roce.pfc): no dynamic threshold

    def terms(self, port: int) -> dict[str, float]:
        """Every term (bytes) of port ``port``'s headroom sum, in the order they add up."""
        return {k: float(v[port]) for k, v in self.term_arrays.items()}

    @property
    def ports(self) -> np.ndarray:
        """Ids of the lossless ports, ascending."""
        return np.flatnonzero(self.lossless)

    @property
    def overflowing(self) -> list[int]:
        """Switches whose headroom and reserves do not fit their buffer."""
        return [d for d, b in self.switches.items() if not b.fits]


def lossless_ports(fabric: Fabric) -> np.ndarray:
    """Bool per port: cabled, Ethernet, on an Ethernet switch."""
    pt, dt = fabric.ports_t, fabric.devices_t
    if pt.n == 0:
        return np.zeros(0, bool)
    on_sw = dt.kind[pt.device.astype(np.int64)] == KIND_CODE[ETH_SWITCH]
    return pt.alive & on_sw & (pt.tech == TECH_ETH_CODE) & (pt.cable >= 0)


def lossless_plan(fabric: Fabric, *, mtu: int | None = None, method: str | None = None,
                  priorities: tuple[int, ...] | None = None) -> LosslessPlan:
    """The lossless plan of ``fabric``; arguments left None come from ``meta["roce"]``
    (defaults: MTU 9216, method ``ieee``, priorities (3,)). Raises ``ValueError`` for a bad
    method, MTU or priority."""
    s = roce_settings(fabric, mtu=mtu, method=method, priorities=priorities)
    pt, ct = fabric.ports_t, fabric.cables_t
    n = pt.n
    mask = lossless_ports(fabric)
    ids = np.flatnonzero(mask)
    gbps = np.zeros(n)
    cable_m = np.zeros(n)
    medium = np.full(n, "", dtype=object)
    if len(ids):
        cab = pt.cable[ids].astype(np.int64)
        # the link's rate (what both ends negotiated, as the cable carries it and the sim uses),
        # not the port's top speed: an 800G port cabled to a 400G NIC runs, and fills, at 400G
        gbps[ids] = rates_gbps(ct.tech[cab], ct.speed[cab], ct.width[cab])
        cable_m[ids] = ct.length[cab].astype(float)
        medium[ids] = cable_media(fabric, cab)
    parts = headroom_terms(s.method, gbps[ids], cable_m[ids], medium[ids].astype(str), s.mtu)
    term_arrays: dict[str, np.ndarray] = {}
    for k, v in parts.items():
        full = np.zeros(n)
        full[ids] = v
        term_arrays[k] = full
    head = np.zeros(n)
    if len(ids):
        head[ids] = np.ceil(sum(parts.values()) - 1e-9)
    ecn = EcnParams(**s.ecn) if s.ecn else EcnParams()
    kmin, kmax, pmax = (np.zeros(n) for _ in range(3))
    if len(ids):
        kmin[ids], kmax[ids], pmax[ids] = ecn_thresholds(gbps[ids], ecn)
    switches: dict[int, SwitchBudget] = {}
    dev = pt.device.astype(np.int64)
    xoff = np.zeros(n)
    by_dev = ids[np.argsort(dev[ids], kind="stable")]
    cuts = np.flatnonzero(np.diff(dev[by_dev])) + 1
    for sel in np.split(by_dev, cuts) if len(by_dev) else ():
        d = int(dev[sel[0]])
        b = switch_budget(fabric, d, head[sel], len(s.priorities))
        switches[d] = b
        share = b.alpha * max(b.shared_pool, 0.0) / (1 + b.alpha) if b.known else np.inf
        xoff[sel] = np.minimum(1.25 * kmax[sel], share)
    xon = np.where(mask, np.maximum(xoff - 2 * s.mtu, 0.0), 0.0)
    if s.pfc:                                  # the design's fixed thresholds (meta.roce.pfc)
        xoff = np.where(mask, s.pfc["xoff"], 0.0)
        xon = np.where(mask, s.pfc.get("xon", max(s.pfc["xoff"] - 2 * s.mtu, 0.0)), 0.0)
    return LosslessPlan(mtu=s.mtu, method=s.method, priorities=s.priorities, lossless=mask,
                        gbps=gbps, cable_m=cable_m, medium=medium, headroom_bytes=head,
                        xoff_bytes=xoff, xon_bytes=xon, ecn_kmin_bytes=kmin, ecn_kmax_bytes=kmax,
                        ecn_pmax=pmax, switches=switches, term_arrays=term_arrays, fixed_pfc=bool(s.pfc))
