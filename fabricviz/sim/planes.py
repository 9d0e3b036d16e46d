"""Traffic over a multi-plane design: every flow spread across the planes, the model run per plane.

A multi-plane NIC (:mod:`fabricviz.model.planes`) sends a flow over all its planes at once (NCCL
and the NIC's plane load balancing stripe a transfer over them), and the planes share no link: each
plane is its own subnet, routed by its own SM (InfiniBand: that plane's LFTs,
:func:`fabricviz.ib.planes.route_plane`) or by ECMP over that plane's graph (RoCE). So the
max-min share of the whole design is the max-min share of each plane on its own, and a flow's rate
is the sum of its rates on the planes (:class:`PlaneTraffic`). A flow's demand, when it has one,
is spread evenly over the planes (an elastic flow, ``inf``, takes what each plane gives).

The same holds in time: ``model="fluid"`` runs the tick-based fluid model on each plane alone (its
own routes, queues, PFC/credits and DCQCN), each plane carrying its share of every flow; a flow's
rate is the sum over the planes, its completion the last plane's. A sized flow's bytes are striped
over the planes its ends can use (a NIC with a plane port down stripes over the ports that are up),
so every byte arrives. A GPU's PCIe link to its NIC carries every plane, so each plane runs on its
share of it (``pcie_gbps / planes``): a flow over the planes never gets more than the single-plane
design's PCIe allows. Each plane's run is kept (:attr:`PlaneShare.result`: the plane's heatmap) and
:mod:`.plane_merge` folds them into one run over the whole design.

A plane that is down (``down``: ``whatif --fail plane:K``) or that a host has lost (its leaf in that
plane failed) carries none of that host's traffic, and nothing moves to the other planes: what
crossed the lost plane is lost, so with two planes a failed plane halves every flow and a failed
plane leaf halves the flows of the hosts on it. A failed plane spine is routed around by that plane's
SM (or ECMP), and each flow keeps its share on that plane at what the plane's remaining capacity gives
it: nothing moves to the other planes (the NIC stripes evenly; it does not rebalance per plane).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..model import Fabric, FabricError
from ..model.fabric import GPU, KIND_CODE, NIC, SERVER
from ..model.planes import cable_planes, plane_fabric
from .compare import run_workload
from .engine import SimResult
from .reach import Reach, Unreachable, fabric_tech, host_reach
from .workloads import Flows


@dataclass(frozen=True)
class PlaneShare:
    """One plane's part of a run: its name, each flow's max-min rate on it (Gb/s; 0 where the plane
    is down or cannot reach an end of the flow) and how many flows it could not carry."""

    name: str
    rate: np.ndarray
    cut_flows: int
    down: bool = False
    result: SimResult | None = None     # the plane's own run (None: it carried nothing)
    carried: np.ndarray | None = None   # indices of the flows the plane carried (result.flows' order)
    left_out: tuple[Unreachable, ...] | None = ()   # hosts or NICs the plane cannot reach (None: all of them)


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
                  seed: int = 0, down: Iterable[int | str] = (), model: str = "maxmin",
                  duration_s: float = 1e-3, fluid=None, progress: Callable[[float], None] | None = None,
                  transport: str | None = None) -> PlaneTraffic:
    """Rates of ``flows`` (GPU or NIC ends of ``fabric``) spread over its planes (module doc), by
    ``model`` (maxmin | fluid; ``duration_s``, ``fluid`` FluidParams and ``transport`` as
    :func:`~.compare.run_workload`); ``down``: planes that carry nothing (indices or names);
    ``progress(fraction)`` over all the planes. FabricError on a design without planes."""
    ps = fabric.settings.planes
    if not ps:
        raise FabricError(f"{fabric.name}: the design has one plane (no meta.planes)")
    off = {ps.index(k) for k in down}
    if model == "maxmin":                   # the steady state: the flows running together at t=0
        first = (flows.step <= 0) & (flows.start_s <= 0)
        flows = flows if first.all() else flows.concurrent()
    n = len(flows)
    spread = np.where(np.isfinite(flows.rate_gbps), flows.rate_gbps / len(ps), np.inf)
    cuts = []
    for p in ps.planes:
        cuts.append(_plane_cut(fabric, p.index, flows, engine, routing) if p.index not in off else None)
    # a sized flow's bytes go over the planes that can carry it (at least one, or it is cut everywhere)
    usable = np.zeros(n)
    for c in cuts:
        usable += c.keep if c is not None else 0
    size = np.where(np.isfinite(flows.bytes), flows.bytes / np.maximum(usable, 1), np.inf)
    shares = []
    for p, cut in zip(ps.planes, cuts, strict=True):
        rate = np.zeros(n)
        if cut is None:
            shares.append(PlaneShare(p.name, rate, n, True, left_out=None))
            continue
        idx = np.flatnonzero(cut.keep)
        res = None
        if len(idx):
            sub = Flows(flows.src[idx], flows.dst[idx], size[idx], spread[idx], flows.start_s[idx],
                        flows.step[idx], flows.sl[idx] if flows.sl_given else None)
            part = _part(progress, p.index, len(ps))
            res = run_workload(cut.fabric, sub, model, duration_s, seed, routing, engine, part, fluid=fluid,
                               sm=cut.sm, reach=cut.reach, transport=transport, stop_when_done=True)
            rate[idx] = res.flow_rates()
        shares.append(PlaneShare(p.name, rate, int(n - len(idx)), result=res, carried=idx,
                                 left_out=cut.reach.left_out if cut.reach is not None else None))
    return PlaneTraffic(flows, tuple(shares))


@dataclass(frozen=True)
class _Cut:
    """One plane alone (:func:`plane_fabric`), the flows it can carry, its SM routing and reach."""

    fabric: Fabric
    keep: np.ndarray
    sm: Any = None
    reach: Reach | None = None


def _plane_cut(fabric: Fabric, k: int, flows: Flows, engine: str, routing: str | None) -> _Cut:
    """Plane ``k`` alone, which flows it can carry (both ends reached), its SM routing and reach."""
    pf = _pcie_share(plane_fabric(fabric, k), len(fabric.settings.planes))
    sm = None
    if fabric_tech(pf) == "ib" and routing in (None, "static"):
        from ..ib.routing import route
        try:
            sm = route(pf, engine)
        except FabricError:             # a plane whose switches all failed: nothing to route
            return _Cut(pf, np.zeros(len(flows), bool))
    reach = host_reach(pf, subnet=sm.subnet if sm is not None else None)
    return _Cut(pf, reach.keep(flows.src) & reach.keep(flows.dst), sm, reach)


def _pcie_share(pf: Fabric, planes: int) -> Fabric:
    """Plane ``pf`` with each GPU's PCIe link at its plane's share (``pcie_gbps / planes``): the
    planes share one GPU↔NIC PCIe link, which a run per plane would otherwise count once per plane.
    The plane's own copy of the catalog changes (the GPU parts as user parts), the design's does not."""
    t = pf.devices_t
    gpus = np.flatnonzero(t.alive & (t.kind == KIND_CODE[GPU]))
    parts = [pf.catalog.get(pid) for pid in {pf.part_id_of(int(g)) for g in gpus.tolist()} if pid is not None]
    if parts:
        pf.catalog = pf.catalog.with_parts([*(p for p in pf.catalog.user_parts() if p.id not in {q.id for q in parts}),
                                            *(replace(p, pcie_gbps=p.pcie_gbps / planes) for p in parts)])
    return pf


def _part(progress: Callable[[float], None] | None, k: int, planes: int) -> Callable[[float], None] | None:
    """Plane ``k``'s progress as its part of the whole run's."""
    if progress is None:
        return None
    return lambda x: progress((k + x) / planes)


def plane_left_out(fabric: Fabric, pt: PlaneTraffic) -> tuple[Unreachable, ...]:
    """Who the planes of ``pt`` leave out, as one run's left-out list (:mod:`.reach`): a host whole
    only when no plane reaches it; otherwise each NIC some plane does not reach (the host keeps its
    other planes: ``whatif`` counts it degraded). A plane that is down leaves out every server."""
    t = fabric.devices_t
    servers = np.flatnonzero(t.alive & (t.kind == KIND_CODE[SERVER]))
    out_whole: list[dict[int, str]] = []
    nic_out: dict[int, str] = {}
    for p in pt.planes:
        lo = p.left_out
        if lo is None:                      # down, or nothing routes on it
            out_whole.append({int(s): f"{p.name} down" for s in servers.tolist()})
            continue
        out_whole.append({u.device: f"{p.name}: {u.reason}" for u in lo if t.kind[u.device] != KIND_CODE[NIC]})
        nic_out.update({u.device: f"{p.name}: {u.reason}" for u in lo if t.kind[u.device] == KIND_CODE[NIC]})
    everywhere = set.intersection(*(set(w) for w in out_whole)) if out_whole else set()
    for w in out_whole:                     # out whole on some planes only: each of its NICs
        for d, why in w.items():
            if d not in everywhere:
                kids = fabric.children_ids(d) if t.kind[d] == KIND_CODE[SERVER] else np.array([d])
                nic_out.update({int(k): why for k in kids.tolist() if t.kind[k] == KIND_CODE[NIC]})
    name = fabric.name_of
    return tuple([Unreachable(d, name(d), out_whole[0][d]) for d in sorted(everywhere)]
                 + [Unreachable(d, name(d), why) for d, why in sorted(nic_out.items())
                    if int(t.parent[d]) not in everywhere])


def plane_elements(fabric: Fabric) -> tuple[np.ndarray, tuple[str, ...], tuple[np.ndarray, ...]]:
    """``whatif --fail plane:K``'s elements: the plane indices, their names and each plane's cables."""
    ps = fabric.settings.planes
    cp = cable_planes(fabric)
    live = fabric.cable_ids().astype(np.int64)
    return (np.arange(len(ps), dtype=np.int64), tuple(p.name for p in ps.planes),
            tuple(live[cp[live] == p.index] for p in ps.planes))


__all__ = ["PlaneShare", "PlaneTraffic", "plane_elements", "plane_left_out", "plane_traffic"]
