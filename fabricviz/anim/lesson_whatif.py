"""The ``whatif`` lesson action: what losing K cables or switches costs the step's fabric.

``fail`` (``switches-of:spine:1,2,3,4``, ``switches:K``, ``cables:K``, ``links-of:TIER:K``:
:func:`~fabricviz.sim.whatif.parse_fail`), ``metric`` (permutation | alltoall | allreduce:SIZE),
``trials`` per K (default 20), ``seed`` and ``worst`` (fail each element alone and rank them by
cost; K and trials unused). The trials are :func:`~fabricviz.sim.whatif.run_trials`' on
:func:`~fabricviz.sim.whatif.prepare`'s input, so the numbers are those of ``fabricviz whatif``
and the What-if dock. Qt-free.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..model import FabricError

Fields = dict[str, Any]
#: Ranked single failures a worst step's lines name.
NAMED = 3


@dataclass(frozen=True)
class WhatifStep:
    """A whatif step's engine input and trials, as the What-if dock shows them."""

    shared: Any                        # fabricviz.sim.whatif.Shared
    results: tuple[Any, ...]           # TrialResult per trial, in trial order
    worst: bool
    per_k: tuple[dict[str, Any], ...] = ()   # per_k(results) (trials)
    ranked: tuple[Any, ...] = ()       # ranked(results) (worst)
    cables: tuple[int, ...] = ()       # worst: the cables the worst single failure takes down

    @property
    def what(self) -> str:
        """``spine switches``, ``switches``, ``cables``, ``leaf-spine links``."""
        return str(self.shared.spec.noun)


def check_params(p: dict, where: str, at: str) -> None:
    """Refuse a bad failure spec (kind, tier, K), metric, trial count or seed in one line naming the field."""
    from ..sim.whatif import parse_fail, parse_metric

    def bad(key: str, msg: str) -> FabricError:
        return FabricError(f"{where}: {at}.{key}: {msg}")
    try:
        parse_fail(str(p["fail"]))
    except FabricError as e:
        raise bad("fail", str(e)) from None
    try:
        parse_metric(str(p.get("metric", "permutation")))
    except FabricError as e:
        raise bad("metric", str(e)) from None
    for key, lo in (("trials", 1), ("seed", 0)):
        v = p.get(key, lo)
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise bad(key, f"{v!r}: a whole number, at least {lo}")
    if not isinstance(p.get("worst", False), bool):
        raise bad("worst", "true or false")


def trial_cables(shared: Any, index: int) -> tuple[int, ...]:
    """The cables trial ``index`` (into ``shared.trials``) takes down, sorted."""
    from ..sim.whatif import failed_cables
    return failed_cables(shared, index)


def whatif_action(run: Any, p: dict) -> tuple[list[str], Fields]:
    from ..sim.whatif import parse_fail, parse_metric, per_k, prepare, ranked, run_trials
    worst = bool(p.get("worst", False))
    spec = parse_fail(str(p["fail"]))
    metric = parse_metric(str(p.get("metric", "permutation")))
    shared = prepare(run.fabric, spec, metric, int(p.get("trials", 20)), int(p.get("seed", 0)), "minhop", worst)
    results = tuple(run_trials(shared))
    unit = "GB/s busbw" if metric.startswith("allreduce:") else "Gb/s per flow"
    step = WhatifStep(shared, results, worst)
    lines = [f"intact design: {metric} {shared.intact_gbps:.4g} {unit}"]
    if worst:
        order = tuple(ranked(results))
        top = order[0]
        step = replace(step, ranked=order, cables=trial_cables(shared, top.index))
        lines.append(f"{len(order)} single failures of {step.what} ranked by the share of the intact rate lost:")
        for i, r in enumerate(order[:NAMED], 1):
            lines.append(f"  #{i} {', '.join(r.failed)} down: delivered {r.delivered:.3f}, per-flow "
                         f"{r.relative:.3f}, {len(r.disconnected)} hosts cut off")
        same = sum(1 for r in order if (r.delivered, r.relative) == (top.delivered, top.relative))
        lines.append(f"worst: {', '.join(top.failed)} down (drawn dashed)"
                     + (f"; {same - 1} more cost the same" if same > 1 else ""))
    else:
        rows = tuple(per_k(results))
        step = replace(step, per_k=rows)
        for row in rows:
            rel, cut = row["relative"], row["disconnected_hosts"]
            lines.append(f"K={row['k']} {step.what}: median {rel['median']:.3f} of intact (min {rel['min']:.3f}, "
                         f"max {rel['max']:.3f}) over {row['trials']} trials; hosts cut off mean {cut['mean']:.1f}, "
                         f"max {cut['max']}")
    return lines, {"whatif": step}


def median_relative(step: WhatifStep) -> dict[int, float]:
    """K → the median relative metric of its trials (what a lesson's text quotes)."""
    return {int(r["k"]): float(r["relative"]["median"]) for r in step.per_k}


__all__ = ["NAMED", "WhatifStep", "check_params", "median_relative", "trial_cables", "whatif_action"]
