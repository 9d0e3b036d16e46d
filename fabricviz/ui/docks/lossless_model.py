"""What the Lossless dock shows, as plain data: the design's two lossless plans (the method it
uses and the other, side by side), one row per port of a switch, and the live buffer use of a
fluid traffic run at one frame. No widgets here, so the numbers are testable on their own.

Live use reads only what a fluid run keeps: each frame's ``link_queue`` (bytes at every
egress) and ``link_paused`` (a transmitter held by PFC), and the run's per-link peak
``max_ingress_bytes`` (bytes held downstream of an ingress — what PFC compares with XOFF).
Frames carry no per-ingress occupancy, so at the shown frame a port says whether it has its
upstream paused (it is over XOFF) and the peak over the whole run is set against XOFF.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fabricviz.model import Fabric

#: Routing-cache key of the plans (one per design state: the cache forgets on every edit).
CACHE_KEY = "lossless"
#: Above this many ports the plans are computed by the job runner (k=16 RoCE: 6,144 ports, ~8 ms).
BACKGROUND_PORTS = 10_000
#: Terms as the dock names them (``fabricviz headroom`` shortens the same keys).
TERM_NAMES = {"receiver_max_frame": "receiver max frame", "pause_frame": "pause frame",
              "interface_delay": "interface delay", "response_delay": "response delay",
              "cable_propagation": "2 × cable propagation", "sender_max_frame": "sender max frame",
              "sender_mtu": "sender MTU", "receiver_mtu": "receiver MTU", "fixed": "fixed (3,840 B)"}


@dataclass(frozen=True)
class Plans:
    """The design's lossless plan (its method) and the same settings under the other method."""

    plan: Any          # LosslessPlan
    other: Any         # LosslessPlan, method ieee ↔ nvidia

    @property
    def by_method(self) -> dict[str, Any]:
        return {self.plan.method: self.plan, self.other.method: self.other}


def design_plans(f: Fabric, progress: Callable[[int, int], None] | None = None) -> Plans | str:
    """Both plans of ``f`` with the settings of ``meta["roce"]``; the reason (one line) when
    those settings are refused. The routing cache's engine."""
    from fabricviz.ethernet.lossless import lossless_plan
    try:
        plan = lossless_plan(f)
        other = lossless_plan(f, mtu=plan.mtu, method="nvidia" if plan.method == "ieee" else "ieee",
                              priorities=plan.priorities)
    except ValueError as e:
        return f"meta roce: {e}"
    if progress is not None:
        progress(1, 1)
    return Plans(plan, other)


@dataclass(frozen=True)
class PortRow:
    """One lossless port of a switch, as the table shows it (bytes unless named)."""

    port: int
    name: str
    gbps: float
    cable_m: float
    cable: str            # cable type / medium, e.g. ``transceiver/smf``
    ieee: int
    nvidia: int
    xoff: float
    xon: float
    kmin: float
    kmax: float
    pmax: float
    ieee_terms: dict[str, float]
    nvidia_terms: dict[str, float]


def switch_ports(plan: Any, f: Fabric, switch: int) -> np.ndarray:
    """The lossless port ids of ``switch``, by port number."""
    ids = plan.ports
    return ids[f.ports_t.device[ids] == switch]


def port_rows(f: Fabric, plans: Plans, switch: int) -> list[PortRow]:
    """The rows of ``switch``'s lossless ports."""
    plan, by = plans.plan, plans.by_method
    ieee, nv = by["ieee"], by["nvidia"]
    rows = []
    for p in switch_ports(plan, f, switch).tolist():
        cab = f.cable(int(f.ports_t.cable[p]))
        rows.append(PortRow(p, f.port_name(p), float(plan.gbps[p]), float(plan.cable_m[p]),
                            f"{cab.type}/{plan.medium[p]}", int(ieee.headroom_bytes[p]), int(nv.headroom_bytes[p]),
                            float(plan.xoff_bytes[p]), float(plan.xon_bytes[p]), float(plan.ecn_kmin_bytes[p]),
                            float(plan.ecn_kmax_bytes[p]), float(plan.ecn_pmax[p]), ieee.terms(p), nv.terms(p)))
    return rows


def terms_text(row: PortRow, method: str) -> str:
    """Every term of both methods' headroom sums of ``row`` (the tooltip and the details line)."""
    lines = [f"{row.name}: {row.gbps:g} Gb/s, {row.cable_m:g} m {row.cable}"]
    for m, terms, total in (("ieee", row.ieee_terms, row.ieee), ("nvidia", row.nvidia_terms, row.nvidia)):
        mark = " (used)" if m == method else ""
        parts = " + ".join(f"{TERM_NAMES.get(k, k)} {v:,.0f}" for k, v in terms.items())
        lines.append(f"{'IEEE 802.1Qbb' if m == 'ieee' else 'NVIDIA rule'}{mark}: {parts} = {total:,} B")
    return "\n".join(lines)


@dataclass(frozen=True)
class LiveUse:
    """A fluid run's use of one switch's buffer at one frame."""

    time_s: float
    queue_bytes: float                 # Σ egress queue bytes of the switch's links
    port_queue: dict[int, float]       # port → egress queue bytes at the frame
    port_pausing: dict[int, bool]      # port → it holds its upstream paused (over XOFF) at the frame
    port_peak_ingress: dict[int, float]  # port → peak bytes held downstream of it over the run
    port_ingress: dict[int, float] = field(default_factory=dict)  # port → bytes held at the frame


def fluid_run(result: Any, result_fabric: Any, fabric: Fabric) -> bool:
    """True when ``result`` is a fluid run on this very design (and so has queues in bytes)."""
    return (result is not None and getattr(result, "fluid", None) is not None and result_fabric is fabric
            and getattr(result, "fabric_tech", "") == "eth")


def live_use(f: Fabric, result: Any, k: int, switch: int, ports: np.ndarray) -> LiveUse:
    """Buffer use of ``switch`` at frame ``k`` of the fluid run ``result`` (see the module doc)."""
    links = result.links
    fr = result.frames[k]
    n = min(len(fr.link_queue), links.n)
    out = np.flatnonzero((links.src_dev[:n] == switch) & ~links.pcie[:n])
    queue = float(np.asarray(fr.link_queue, float)[out].sum())
    pq, paused, peak = {}, {}, {}
    ct = f.cables_t
    max_in = result.fluid.max_ingress_bytes
    now = np.asarray(getattr(fr, "link_ingress", ()), float)
    held: dict[int, float] = {}
    for p in ports.tolist():
        c = int(f.ports_t.cable[p])
        leave = 2 * c + (0 if int(ct.port_a[c]) == p else 1)
        enter = leave ^ 1
        if leave < n:
            pq[p] = float(fr.link_queue[leave])
        if enter < n:
            paused[p] = bool(fr.link_paused[enter])
            peak[p] = float(max_in[enter]) if enter < len(max_in) else 0.0
            if enter < len(now):
                held[p] = float(now[enter])
    return LiveUse(fr.time_s, queue, pq, paused, peak, held)


def mib(v: float) -> str:
    """Bytes as ``1.25 MiB`` (buffers are binary megabytes in the catalog)."""
    return f"{v / 2**20:,.2f} MiB"


__all__ = ["BACKGROUND_PORTS", "CACHE_KEY", "LiveUse", "Plans", "PortRow", "design_plans", "fluid_run",
           "live_use", "mib", "port_rows", "switch_ports", "terms_text"]
