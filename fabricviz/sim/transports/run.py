"""A transport run as a :class:`~..engine.SimResult` (what ``simulate --transport eqds|ndp|hpcc`` and
the Traffic dock show): one frame of the t = 0 rates, the completion of every sized flow."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...model import Fabric
from ..engine import SimResult, _frame
from ..reach import fabric_tech
from ..units import ParamError
from ..workloads import Flows
from .model import run_transport
from .params import ROUTING


def simulate_transport(fabric: Fabric, flows: Flows, transport: str, routing: str | None, model: str, seed: int,
                       left_out: tuple = (), dropped: int = 0, refused: tuple[Any, ...] = (),
                       part: str = "") -> SimResult:
    """Run ``flows`` with ``transport`` (:mod:`.model`); ``routing`` must be the transport's own or None."""
    own = ROUTING[transport]
    if routing not in (None, own):
        how = "every equal-cost path" if own == "spray" else "one ECMP path per flow"
        raise ParamError("routing", routing, f"--transport {transport} routes {own}: its packets take {how}")
    if fabric_tech(fabric) == "ib":
        raise ParamError("transport", transport, "is Ethernet's: this is an InfiniBand design")
    links, routes, run = run_transport(fabric, flows, transport, seed)
    frame = _frame(links, routes, run.goodput_gbps, np.minimum(run.link_load_gbps, links.gbps))   # carried
    return SimResult("eth", own, model, links, flows, routes, (frame,), None, left_out, dropped, refused, part,
                     completion=run.completion, transport=run)
