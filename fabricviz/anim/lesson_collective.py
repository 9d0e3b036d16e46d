"""The ``collective`` lesson action: nccl-tests style busbw vs message size on the step's fabric.

``op`` (allreduce | allgather | reducescatter | alltoall | broadcast, default allreduce), ``algo``
(ring | tree), ``sizes`` (``8B:8GB:x2``, :func:`~fabricviz.sim.collective.parse_sizes`), ``gpus``
(all | N), ``at`` (the size whose slowest step is named, default the largest) and ``versus``: the
same collective on a second fabric (a fabric spec as the lesson's, or ``"lesson"``: the lesson's
own), so one plot compares two designs. Every number comes from
:func:`~fabricviz.sim.collective.collective` and :func:`~fabricviz.sim.collective.slowest_step`
(the routing ``simulate`` uses: the SM's LFTs on InfiniBand, ECMP on RoCE). Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Fabric, FabricError
from .lesson_spec import build_spec, check_fabric_spec

Fields = dict[str, Any]
DEFAULT_SIZES = "8B:8GiB:x2"
OP_NAMES = {"allreduce": "all-reduce", "allgather": "all-gather", "reducescatter": "reduce-scatter",
            "alltoall": "all-to-all", "broadcast": "broadcast"}
#: The sizes a step's lines quote busbw at (those of the run's sizes present): 8 B, 8 KiB, 8 MiB, 8 GiB.
QUOTED = (8.0, 8.0 * 2 ** 10, 8.0 * 2 ** 20, 8.0 * 2 ** 30)


@dataclass(frozen=True)
class CollectiveCurve:
    """One design's run of a collective step: what the Collectives dock plots as one curve."""

    design: str                       # the fabric's name (the curve's label starts with it)
    fabric: Fabric
    transport: str                    # ib | roce-gbn | roce-ooo (the NICs' own)
    result: Any                       # fabricviz.sim.collective.CollectiveResult
    bottleneck: Any                   # fabricviz.sim.collective.Bottleneck at ``at``
    own: bool                         # run on the step's fabric (the one on the canvas)
    sizes_spec: str = DEFAULT_SIZES   # the step's sizes and GPUs, as the dock's controls take them
    gpus: str = "all"

    @property
    def sizes(self) -> tuple[float, ...]:
        return tuple(r.size for r in self.result.rows)

    @property
    def busbw(self) -> tuple[float, ...]:
        return tuple(r.busbw for r in self.result.rows)

    def row(self, size: float) -> Any:
        """The result's row for buffer ``size`` (bytes)."""
        for r in self.result.rows:
            if abs(r.size - size) <= 1e-9 * size:
                return r
        raise FabricError(f"no size {size:g} B in the run")


def size_text(size: float) -> str:
    """The engine's :func:`~fabricviz.sim.collective.size_label` (``8B``, ``8K``, ``8M``, ``8G``)."""
    from ..sim.collective import size_label
    return size_label(size)


def check_params(p: dict, where: str, at: str) -> None:
    """Refuse a bad op, algorithm, size list, size or versus in one line naming the field."""
    from ..sim.collective import ALGOS, OPS, parse_sizes
    from ..sim.units import ParamError
    from ..sim.workloads import parse_size

    def bad(key: str, msg: str) -> FabricError:
        return FabricError(f"{where}: {at}.{key}: {msg}")
    if p.get("op", "allreduce") not in OPS:
        raise bad("op", f"unknown op {p['op']!r} (use {', '.join(OPS)})")
    if p.get("algo", "ring") not in ALGOS:
        raise bad("algo", f"unknown algorithm {p['algo']!r} (use {', '.join(ALGOS)})")
    try:
        parse_sizes(str(p.get("sizes", DEFAULT_SIZES)))
        if "at" in p:
            parse_size(str(p["at"]))
    except (ParamError, FabricError) as e:
        raise bad("at" if "at" in p and "sizes" not in str(e) else "sizes", str(e)) from None
    v = p.get("versus")
    if v is not None and v != "lesson":
        check_fabric_spec(v, where, f"{at}.versus")


def _curve(fabric: Fabric, p: dict, own: bool) -> CollectiveCurve:
    from ..sim.collective import Solver, collective, parse_sizes, slowest_step
    from ..sim.transport import default_transport
    from ..sim.workloads import parse_size
    solver = Solver(fabric, None, None, 0)              # the SM's routing (IB), ECMP (RoCE), as the dock
    res = collective(fabric, p.get("op", "allreduce"), parse_sizes(str(p.get("sizes", DEFAULT_SIZES))),
                     p.get("algo", "ring"), str(p.get("gpus", "all")), None, None, 0, solver)
    at = parse_size(str(p["at"])) if "at" in p else None
    neck = slowest_step(fabric, res, solver, at)
    return CollectiveCurve(fabric.name, fabric, default_transport(fabric), res, neck, own,
                           str(p.get("sizes", DEFAULT_SIZES)), str(p.get("gpus", "all")))


def _lines(c: CollectiveCurve) -> list[str]:
    r = c.result
    head = (f"{c.design}: {OP_NAMES[r.op]} ({r.algo}) over {r.n} GPUs on {r.servers} servers, "
            f"{r.channels} channel{'s' if r.channels != 1 else ''}")
    rows = [row for s in QUOTED for row in r.rows if abs(row.size - s) <= 1e-9 * s]
    busbw = ", ".join(f"{size_text(row.size)} {row.busbw:.2f}" for row in rows)
    first = r.rows[0]
    return [head, f"  busbw (GB/s): {busbw}",
            f"  time at {size_text(first.size)}: {first.time_us:.1f} µs",
            f"  slowest step at {size_text(c.bottleneck.size)}: {c.bottleneck.describe(c.fabric)}"]


def collective_action(run: Any, p: dict) -> tuple[list[str], Fields]:
    curves = [_curve(run.fabric, p, own=True)]
    v = p.get("versus")
    if v is not None:
        other = run.lesson.build_fabric() if v == "lesson" else build_spec(v, f"{run.lesson.path}: versus")
        curves.append(_curve(other, p, own=False))
    lines = [ln for c in curves for ln in _lines(c)]
    if len(curves) == 2:
        a, b = curves
        big, small = a.result.rows[-1], a.result.rows[0]
        vb, vs = b.row(big.size), b.row(small.size)
        lines.append(f"{a.design} / {b.design}: busbw at {size_text(big.size)} {big.busbw / vb.busbw:.2f}x, "
                     f"time at {size_text(small.size)} {small.time_us / vs.time_us:.2f}x")
    return lines, {"collectives": tuple(curves)}


__all__ = ["CollectiveCurve", "check_params", "collective_action", "size_text"]
