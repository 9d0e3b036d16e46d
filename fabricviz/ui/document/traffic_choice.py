"""What a Traffic dock run is asked for (:class:`RunChoice`) and the dock's choice lists.

Kept apart from the dock so the lesson stage, the compare dialog and tests can name a run
without building the widget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fabricviz.model import Fabric

WORKLOADS = ("permutation", "incast", "ring", "alltoall", "shift")
ROUTINGS = ("default", "static", "adaptive", "ecmp", "spray")
IB_ENGINES = ("minhop", "updn", "ftree", "dfsssp", "lash", "sssp", "dmodk")
#: Playback frame interval (ms): 30 fps.
PLAY_MS = 33
#: Left-out hosts listed one per row (past it a last row says how many more).
LEFT_OUT_ROWS = 200


@dataclass(frozen=True)
class RunChoice:
    """What a run was asked for: ``run_traffic``'s arguments without the design."""

    spec: str
    model: str
    routing: str          # a ROUTINGS entry ("default" included)
    engine: str
    duration_s: float
    seed: int
    partition: str = ""   # InfiniBand partition name ("": the Default partition)
    sl: int | None = None  # every flow's SL (None: the SM's path SL)
    transport: str | None = None  # ib | roce-gbn | roce-ooo (None: the NICs' default)
    cc: str | None = None  # a RoCE fluid run's congestion control, dcqcn | none (None: the default, DCQCN)

    def args(self, fabric: Fabric) -> tuple[Fabric, str, str, str | None, str, float, int]:
        """``run_traffic``'s positional arguments; :meth:`kwargs` has the rest (the partition)."""
        return (fabric, self.spec, self.model, None if self.routing == "default" else self.routing,
                self.engine, self.duration_s, self.seed)

    def kwargs(self) -> dict[str, Any]:
        """``run_traffic``'s keyword arguments of the choice: InfiniBand partition and SL, transport, CC."""
        return {"partition": self.partition or None, "sl": self.sl, "transport": self.transport, "cc": self.cc}

    def route_label(self, tech: str) -> str:
        """The routing that runs: default resolved; on InfiniBand static routes, the SM engine."""
        r = self.routing if self.routing != "default" else ("static" if tech == "ib" else "ecmp")
        return f"static ({self.engine})" if tech == "ib" and r == "static" else r
