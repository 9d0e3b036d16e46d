"""One traffic run as the GUI's Traffic dock and ``fabricviz simulate`` run it (no Qt).

:func:`run_traffic` makes the workload from its spec (``incast:8``, ``permutation``…) over
the hosts the run can reach, then routes and shares it out with
:func:`~fabricviz.sim.compare.run_workload`: on InfiniBand with static routing the
subnet manager's LFTs of ``engine`` (``dmodk``: the built-in D-mod-k walk), elsewhere
the routing mode asked for (``None``: the technology's default).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..model import Fabric
from .compare import run_workload
from .engine import SimResult
from .partitioned import partition_scope, plane_scope, scoped_reach, split_refused
from .reach import Reach, host_reach
from .transports.params import NEW_TRANSPORTS, ROUTING
from .workloads import make_workload


def run_traffic(fabric: Fabric, spec: str, model: str, routing: str | None, engine: str,
                duration_s: float, seed: int, progress: Callable[[float], None] | None = None,
                sm: Any = None, partition: str | int | None = None, sl: int | None = None,
                transport: str | None = None, cc: str | None = None) -> SimResult:
    """Workload ``spec`` + routes + ``model`` (maxmin | fluid) on ``fabric``: a pure function of
    its arguments (``seed`` makes the permutation and the ECMP hashes; ``progress(fraction)``
    is called by the fluid model; ``sm``: the SM's routing of ``fabric`` already computed;
    ``partition``: the InfiniBand partition the run goes in, see :mod:`.partitioned`; ``sl``:
    the service level of every flow, None: SL 0 or the routing engine's path SL; ``transport``: ib |
    roce-gbn | roce-ooo | eqds | ndp | hpcc (the last three run their own routing), None: the
    design's; ``cc``: a RoCE fluid run's congestion control, dcqcn |
    none — PFC only, as ``simulate --transport`` / ``--cc``). A multi-plane design runs every plane alone
    and gives the merged run (:class:`~.plane_merge.PlaneRun`, each plane's run in it); a partition there
    is every plane's (each plane its own subnet with the design's partitions, :func:`_plane_run`)."""
    planes = bool(fabric.settings.planes)   # one SM per plane: each plane run alone, then merged
    reach = None if planes else partition_reach(fabric, partition, sm.subnet if sm is not None else None)
    fluid = None
    if cc is not None and model == "fluid":          # as simulate's fluid_params for --cc
        from .engine import roce_fluid
        from .reach import fabric_tech
        from .units import ParamError
        if fabric_tech(fabric) == "ib":
            raise ParamError("cc", cc, "applies to RoCE (Ethernet) designs")
        fluid = roce_fluid(fabric, None, "pfc", cc)
    if transport in NEW_TRANSPORTS:                  # the dock always names a routing: the transport's own wins
        routing = ROUTING[transport]
    if planes:                                       # sim.planes + sim.plane_merge: per plane and merged
        return _plane_run(fabric, spec, model, routing, engine, duration_s, seed, progress, partition, sl,
                          transport, fluid)
    return run_workload(fabric, make_workload(fabric, spec, seed=seed, reach=reach, sl=sl), model, duration_s,
                        seed, routing, engine, progress, sm=sm, reach=reach, fluid=fluid, transport=transport,
                        stop_when_done=True)     # as simulate: sized flows end the run when all have finished


def _plane_run(fabric: Fabric, spec: str, model: str, routing: str | None, engine: str, duration_s: float,
               seed: int, progress: Callable[[float], None] | None, partition: str | int | None,
               sl: int | None, transport: str | None, fluid: Any) -> SimResult:
    """A multi-plane run of workload ``spec`` over the hosts of ``partition`` (:func:`run_planes`)."""
    reach = plane_partition_reach(fabric, partition)
    flows = make_workload(fabric, spec, seed=seed, reach=reach, sl=sl)
    return run_planes(fabric, flows, reach, engine, routing, seed, model, duration_s, fluid, progress, transport)[1]


def run_planes(fabric: Fabric, flows: Any, reach: Reach | None, engine: str, routing: str | None, seed: int,
               model: str, duration_s: float, fluid: Any, progress: Callable[[float], None] | None,
               transport: str | None) -> tuple[Any, Any]:
    """``flows`` on a multi-plane design (the Traffic dock's run and ``simulate``'s): in ``reach``'s
    partition (the same members on every plane, :func:`~.partitioned.plane_scope`) its flows between
    two limited members refused, the rest spread over the planes (:func:`~.planes.plane_traffic`) and
    merged (:func:`~.plane_merge.merge_planes`, with the refused flows and the hosts outside the
    partition). Returns (the per-plane traffic, the merged run)."""
    from .plane_merge import merge_planes
    from .planes import plane_traffic
    scope = reach.scope if reach is not None else None
    flows, refused = split_refused(flows, scope, fabric)
    pt = plane_traffic(fabric, flows, engine, routing, seed, model=model, duration_s=duration_s, fluid=fluid,
                       progress=progress, transport=transport)
    merged = merge_planes(fabric, pt)
    if reach is None or scope is None:
        return pt, merged
    outside = [u for u in reach.left_out if u.reason == f"not in partition {scope.label}"]
    left = tuple(sorted(outside + list(merged.left_out), key=lambda u: u.device))
    return pt, replace(merged, refused=refused, partition=scope.label, left_out=left)


def plane_partition_reach(fabric: Fabric, partition: str | int | None) -> Reach | None:
    """Who a run in ``partition`` reaches on a multi-plane design (its members on every plane,
    :func:`~.partitioned.plane_scope`); None: no partition asked for, or none applies."""
    scope = plane_scope(fabric, partition) if partition not in (None, "") else None
    return scoped_reach(fabric, host_reach(fabric), scope) if scope is not None else None


def partition_reach(fabric: Fabric, partition: str | int | None, subnet: Any = None) -> Reach | None:
    """Who a run in ``partition`` reaches (None: no partition applies — the default reach)."""
    scope = partition_scope(fabric, partition, subnet)
    if scope is None:
        return None
    return scoped_reach(fabric, host_reach(fabric, subnet=subnet), scope)


__all__ = ["partition_reach", "plane_partition_reach", "run_planes", "run_traffic"]
