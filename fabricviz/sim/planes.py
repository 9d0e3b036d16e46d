"""Traffic over a multi-plane design: every flow spread across the planes, max-min per plane.

A multi-plane NIC (:mod:`fabricviz.model.planes`) sends a flow over all its planes at once (NCCL
and the NIC's plane load balancing stripe a transfer over them), and the planes share no link: each
plane is its own subnet, routed by its own SM (InfiniBand: that plane's LFTs,
:func:`fabricviz.ib.planes.route_plane`) or by ECMP over that plane's graph (RoCE). So the
max-min share of the whole design is the max-min share of each plane on its own, and a flow's rate
is the sum of its rates on the planes (:class:`PlaneTraffic`). A flow's demand, when it has one,
is spread evenly over the planes (an elastic flow, ``inf``, takes what each plane gives).

A plane that is down (``down``: ``whatif --fail plane:K``) or that a host has lost (its leaf in that
plane failed) carries none of that host's traffic, and nothing moves to the other planes: what
crossed the lost plane is lost, so with two planes a failed plane halves every flow and a failed
plane leaf halves the flows of the hosts on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..model import Fabric, FabricError
from ..model.planes import cable_planes, plane_fabric
from .compare import run_workload
from .reach import fabric_tech, host_reach
from .workloads import Flows


@dataclass(frozen=True)
class PlaneShare:
    """One plane's part of a run: its name, each flow's max-min rate on it (Gb/s; 0 where the plane
    is down or cannot reach an end of the flow) and how many flows it could not carry."""

    name: str
    rate: np.ndarray
    cut_flows: int
    down: bool = False


@dataclass(frozen=True)
class PlaneTraffic:
    """A run over every plane: the flows and each plane's share of them."""

    flows: Flows
    planes: tuple[PlaneShare, ...]

    @property
    def rate(self) -> np.ndarray:
        """Each flow's rate (Gb/s): the sum over the planes."""
        return np.sum([p.rate for p in self.planes], axis=0) if self.planes else np.zeros(len(self.flows))

    @property
    def mean_gbps(self) -> float:
        return float(self.rate.mean()) if len(self.flows) else 0.0


def plane_traffic(fabric: Fabric, flows: Flows, engine: str = "minhop", routing: str | None = None,
                  seed: int = 0, down: Iterable[int | str] = ()) -> PlaneTraffic:
    """Max-min rates of ``flows`` (GPU or NIC ends of ``fabric``) spread over its planes (module
    doc); ``down``: planes that carry nothing (indices or names). FabricError on a design without planes."""
    ps = fabric.settings.planes
    if not ps:
        raise FabricError(f"{fabric.name}: the design has one plane (no meta.planes)")
    off = {ps.index(k) for k in down}
    n = len(flows)
    spread = np.where(np.isfinite(flows.rate_gbps), flows.rate_gbps / len(ps), np.inf)
    shares = []
    for p in ps.planes:
        rate = np.zeros(n)
        if p.index in off:
            shares.append(PlaneShare(p.name, rate, n, True))
            continue
        pf = plane_fabric(fabric, p.index)
        sm = None
        if fabric_tech(pf) == "ib" and routing in (None, "static"):
            from ..ib.routing import route
            try:
                sm = route(pf, engine)
            except FabricError:             # a plane whose switches all failed: nothing to route
                shares.append(PlaneShare(p.name, rate, n))
                continue
        reach = host_reach(pf, subnet=sm.subnet if sm is not None else None)
        keep = reach.keep(flows.src) & reach.keep(flows.dst)
        if keep.any():
            sub = Flows(flows.src[keep], flows.dst[keep], rate_gbps=spread[keep])
            res = run_workload(pf, sub, "maxmin", 1e-3, seed, routing, engine, sm=sm, reach=reach)
            rate[keep] = res.flow_rates()
        shares.append(PlaneShare(p.name, rate, int(n - keep.sum())))
    return PlaneTraffic(flows, tuple(shares))


def plane_summary(pt: PlaneTraffic) -> dict:
    """``simulate --json`` of a multi-plane run: the mean per-flow rate and each plane's part."""
    return {"flows": len(pt.flows), "mean_gbps": round(pt.mean_gbps, 6),
            "planes": [{"name": p.name, "mean_gbps": round(float(p.rate.mean()) if len(p.rate) else 0.0, 6),
                        "cut_flows": p.cut_flows, "down": p.down} for p in pt.planes]}


def plane_elements(fabric: Fabric) -> tuple[np.ndarray, tuple[str, ...], tuple[np.ndarray, ...]]:
    """``whatif --fail plane:K``'s elements: the plane indices, their names and each plane's cables."""
    ps = fabric.settings.planes
    cp = cable_planes(fabric)
    live = fabric.cable_ids().astype(np.int64)
    return (np.arange(len(ps), dtype=np.int64), tuple(p.name for p in ps.planes),
            tuple(live[cp[live] == p.index] for p in ps.planes))


__all__ = ["PlaneShare", "PlaneTraffic", "plane_elements", "plane_summary", "plane_traffic"]
