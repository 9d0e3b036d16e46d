"""Collective sweeps (issue 17): designs × ops × GPU counts as the cases of one fan-out.

``fabricviz collective A.json B.json --op allreduce,allgather --gpus 8,16,32`` runs one case per
(design, op, GPU set). A case is a pure function of the shared :class:`Sweep` (the designs'
fabrics, the sizes and routing options: scattered to each worker once) and the :class:`Case`
(:func:`run_case`), so :class:`~.fanout.FanOut` runs them serially or on Dask with the same numbers.
:func:`check_case` refuses a case before anything runs (an op, an algorithm, a GPU count or a
transport the design cannot take).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Fabric
from ..model.numbers import is_digits
from .collective import OPS, CollectiveResult, collective, select_gpus
from .collective_hier import ALGO_CHOICES, ALGO_OPS
from .units import ParamError


@dataclass(frozen=True)
class Case:
    """One collective run: the design (an index into :attr:`Sweep.fabrics`), the op, ``--gpus``."""

    design: int
    op: str
    gpus: str


@dataclass(frozen=True)
class Sweep:
    """What every case reads: the designs and the options shared by all cases."""

    fabrics: tuple[Fabric, ...]
    sizes: np.ndarray
    algo: str = "ring"
    routing: str | None = None
    transport: str | None = None
    seed: int = 0
    engine: str = "minhop"             # the InfiniBand SM's routing engine of static routes


def parse_ops(text: str) -> tuple[str, ...]:
    """``allreduce`` or a list ``allreduce,allgather``: the ops, in order given."""
    ops = tuple(p.strip().lower() for p in text.split(","))
    for op in ops:
        if op not in OPS:
            raise ParamError("op", op, f"is not one of {', '.join(OPS)}")
    if len(set(ops)) != len(ops):
        raise ParamError("op", text, "names an op twice")
    return ops


def parse_gpus(text: str) -> tuple[str, ...]:
    """``--gpus`` per case: a list of whole numbers (or ``all``) is a scaling sweep, one case
    each; anything else (``all``, ``N``, ``NAME,NAME,…``: the ranks in order) is one case."""
    parts = [p.strip().lower() for p in str(text).split(",")]
    if len(parts) < 2 or not all(is_digits(p) or p == "all" for p in parts):
        return (str(text),)
    if len(set(parts)) != len(parts):
        raise ParamError("gpus", text, "names a GPU count twice")
    return tuple(parts)


def cases(designs: int, ops: tuple[str, ...], gpus: tuple[str, ...]) -> list[Case]:
    """Designs × ops × GPU sets, in that order."""
    return [Case(d, op, g) for d in range(designs) for op in ops for g in gpus]


def check_case(sweep: Sweep, case: Case) -> None:
    """Refuse a case the engine would refuse (ParamError or FabricError), without running it."""
    from .transport import check_transport
    if sweep.algo not in ALGO_CHOICES:
        raise ParamError("algo", sweep.algo, f"is not one of {', '.join(ALGO_CHOICES)}")
    if sweep.algo == "tree" and case.op != "allreduce":
        raise ParamError("algo", sweep.algo, f"NCCL's tree runs all-reduce only; {case.op} runs ring")
    if case.op not in ALGO_OPS.get(sweep.algo, (case.op,)):
        raise ParamError("algo", sweep.algo, f"runs {', '.join(ALGO_OPS[sweep.algo])} only, not {case.op}")
    fabric = sweep.fabrics[case.design]
    check_transport(fabric, sweep.transport)
    select_gpus(fabric, case.gpus)


def run_case(sweep: Sweep, case: Case) -> CollectiveResult:
    """One case: exactly ``fabricviz collective`` of that design, op and GPUs alone."""
    return collective(sweep.fabrics[case.design], case.op, sweep.sizes, sweep.algo, case.gpus, sweep.routing,
                      sweep.transport, sweep.seed, engine=sweep.engine)


def busbw_at(result: CollectiveResult, size: float) -> float | None:
    """busbw (GB/s) at buffer ``size`` when the sweep has it, else None."""
    for r in result.rows:
        if r.size == size:
            return r.busbw
    return None


__all__ = ["Case", "Sweep", "busbw_at", "cases", "check_case", "parse_gpus", "parse_ops", "run_case"]
