"""One subnet manager per plane: routing a multi-plane InfiniBand design plane by plane.

Each plane of a multi-plane design (:mod:`fabricviz.model.planes`) is its own InfiniBand subnet:
its own SM (on a node of that plane), its own LIDs and its own LFTs. :func:`route_plane` routes
plane k as OpenSM on that plane would: on the plane alone (:func:`~fabricviz.model.planes.plane_fabric`,
the same device and port ids as the design), so what it gives equals OpenSM run on that plane's
ibnetdiscover output. A design without planes is its one subnet (:func:`routings` gives one entry).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Fabric
from ..model.planes import plane_fabric
from .routing import Routing, route
from .sweep import Sweep, heavy_sweep


@dataclass(frozen=True)
class PlaneRouting:
    """The routing of one plane: its index (-1: a design without planes), name, fabric and LFTs."""

    plane: int
    name: str
    fabric: Fabric
    routing: Routing


def route_plane(f: Fabric, plane: int | str, engine: str = "minhop", lmc: int = 0,
                sm: int | str | None = None) -> PlaneRouting:
    """Route plane ``plane`` (index or name) of ``f`` alone with ``engine`` (FabricError: no such plane)."""
    ps = f.settings.planes
    k = ps.index(plane)
    pf = plane_fabric(f, k)
    return PlaneRouting(k, ps.planes[k].name, pf, route(pf, engine, sm=sm, lmc=lmc))


def routings(f: Fabric, engine: str = "minhop", lmc: int = 0) -> list[PlaneRouting]:
    """Every subnet of ``f``: one per plane, or the design itself when it has no planes."""
    ps = f.settings.planes
    if not ps:
        return [PlaneRouting(-1, "", f, route(f, engine, lmc=lmc))]
    return [route_plane(f, p.index, engine, lmc) for p in ps.planes]


def sweep_planes(f: Fabric, engine: str = "minhop", lmc: int = 0) -> list[tuple[str, Sweep]]:
    """The SM sweep of every plane (each plane's own SM: discovery, LIDs, LFTs), by plane name; a
    design without planes gives its one sweep (name "")."""
    ps = f.settings.planes
    if not ps:
        return [("", heavy_sweep(f, engine, lmc=lmc))]
    return [(p.name, heavy_sweep(plane_fabric(f, p.index), engine, lmc=lmc)) for p in ps.planes]


__all__ = ["PlaneRouting", "route_plane", "routings", "sweep_planes"]
