"""The routing engines by name: what :func:`~.routing.route` runs for ``engine="…"``.

Each :class:`Engine` routes a discovered subnet with its LIDs and returns the LFTs
[S, max_lid+1] (255 = none) and a :class:`~.engine_types.RoutingInfo`, or raises
:class:`~.engine_types.EngineRefused` (the front end then routes with minhop, as OpenSM does).
minhop has no entry function: it is the front end's own stage 2, also its fallback.

``python -m fabricviz.ib.warmup`` compiles (first run, reporting each kernel) or loads every
engine's kernels into numba's disk cache (``make setup`` runs it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .dfsssp import route_dfsssp, route_sssp
from .engine_types import RoutingInfo
from .ftree import route_ftree
from .lash import route_lash
from .lids import Lids
from .subnet import Subnet
from .updn import route_updn

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class RouteRequest:
    """What the caller of :func:`~.routing.route` asks beyond the subnet: root switches (updn),
    a progress callback, the previous sweep's LFTs (kept where still least-hop)."""

    roots: list[str] | None = None
    progress: Progress | None = None
    old: np.ndarray | None = None


EngineFn = Callable[[Subnet, Lids, np.ndarray, RouteRequest], "tuple[np.ndarray, RoutingInfo]"]


@dataclass(frozen=True)
class Engine:
    """A routing engine: ``run`` (None: minhop, the front end's own), whether it finds its own
    paths (no hop table needed), whether it always runs compiled kernels, and the one-off load of
    its kernels (:func:`warm_up`)."""

    name: str
    run: EngineFn | None
    own_paths: bool = False
    always_compiled: bool = False
    warm: Callable[[], None] | None = None


def _updn(sn: Subnet, lids: Lids, dist: np.ndarray, req: RouteRequest) -> tuple[np.ndarray, RoutingInfo]:
    return route_updn(sn, lids, dist, req.roots, req.progress, req.old)


def _ftree(sn: Subnet, lids: Lids, dist: np.ndarray, req: RouteRequest) -> tuple[np.ndarray, RoutingInfo]:
    return route_ftree(sn, lids, dist)


def _dfsssp(sn: Subnet, lids: Lids, dist: np.ndarray, req: RouteRequest) -> tuple[np.ndarray, RoutingInfo]:
    return route_dfsssp(sn, lids, dist, req.progress)


def _sssp(sn: Subnet, lids: Lids, dist: np.ndarray, req: RouteRequest) -> tuple[np.ndarray, RoutingInfo]:
    return route_sssp(sn, lids, dist, req.progress)


def _lash(sn: Subnet, lids: Lids, dist: np.ndarray, req: RouteRequest) -> tuple[np.ndarray, RoutingInfo]:
    return route_lash(sn, lids, dist, req.progress)


# The compiled kernels are imported on first use, never when routing is imported: numba loads
# LLVM (~0.3 s) and a small fabric is routed in Python before it would be ready.
def _warm_ftree() -> None:
    from .ftree_route import warm_up as warm
    warm()


def _warm_dfsssp() -> None:
    from .dfsssp import warm_up as warm
    warm()


def _warm_lash() -> None:
    from .lash_kernels import warm_up as warm
    warm()


REGISTRY: dict[str, Engine] = {e.name: e for e in (
    Engine("minhop", None),
    Engine("updn", _updn),
    Engine("ftree", _ftree, warm=_warm_ftree),
    Engine("dfsssp", _dfsssp, own_paths=True, always_compiled=True, warm=_warm_dfsssp),
    Engine("lash", _lash, own_paths=True, always_compiled=True, warm=_warm_lash),   # its BFS trees
    Engine("sssp", _sssp, own_paths=True, always_compiled=True, warm=_warm_dfsssp),
)}

ENGINES = tuple(REGISTRY)

_WARM: set[str] = set()


def warm_up(engine: str) -> None:
    """Load the compiled kernels ``engine`` uses (numba's disk cache; compiled on the very first
    run) with tiny inputs, once per process: that one-off load (~0.3 s) is program start-up, not
    routing time, so :func:`~.routing.route` calls this before it starts timing."""
    if engine in _WARM:
        return
    _WARM.add(engine)
    from .kernels import warm_up as warm_shared  # numba on use (see above)
    warm_shared()
    warm = REGISTRY[engine].warm
    if warm is not None:
        warm()


def warm_all() -> float:
    """Compile (first run: minutes; :mod:`.warmup` reports each kernel) or load every engine's kernels
    into numba's disk cache; returns the seconds it took. ``make setup`` runs it (``python -m
    fabricviz.ib.warmup``) so no routing, test or GUI session pays the compile."""
    t = time.perf_counter()
    for engine in ("minhop", "ftree", "dfsssp", "lash"):
        warm_up(engine)
    return time.perf_counter() - t

