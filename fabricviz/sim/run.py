"""One traffic run as the GUI's Traffic dock and ``fabricviz simulate`` run it (no Qt).

:func:`run_traffic` makes the workload from its spec (``incast:8``, ``permutation``…) over
the hosts the run can reach, then routes and shares it out with
:func:`~fabricviz.sim.compare.run_workload`: on InfiniBand with static routing the
subnet manager's LFTs of ``engine`` (``dmodk``: the built-in D-mod-k walk), elsewhere
the routing mode asked for (``None``: the technology's default).
"""

from __future__ import annotations

from typing import Any, Callable

from ..model import Fabric
from .compare import run_workload
from .engine import SimResult
from .workloads import make_workload


def run_traffic(fabric: Fabric, spec: str, model: str, routing: str | None, engine: str,
                duration_s: float, seed: int, progress: Callable[[float], None] | None = None,
                sm: Any = None) -> SimResult:
    """Workload ``spec`` + routes + ``model`` (maxmin | fluid) on ``fabric``: a pure function of
    its arguments (``seed`` makes the permutation and the ECMP hashes; ``progress(fraction)``
    is called by the fluid model; ``sm``: the SM's routing of ``fabric`` already computed)."""
    return run_workload(fabric, make_workload(fabric, spec, seed=seed), model, duration_s, seed, routing,
                        engine, progress, sm=sm)


__all__ = ["run_traffic"]
