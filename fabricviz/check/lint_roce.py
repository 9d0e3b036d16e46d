"""Lint rules for lossless RoCE, run on designs with cabled Ethernet switch ports.

* ``roce-headroom``: a switch whose PFC headroom (every lossless port × priority, sized by
  :func:`fabricviz.ethernet.lossless.lossless_plan` with the design's ``meta["roce"]``) plus
  the per-port reserves does not fit its packet buffer is an error — a pause can come too
  late and a lossless frame is dropped (long optical runs on a shallow-buffer switch);
  above :data:`fabricviz.ethernet.buffers.WARN_USE` (80 %) of the buffer a warning, since
  the shared pool left for queues is then small. A bad ``meta["roce"]`` is a warning.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ethernet.buffers import WARN_USE
from ..ethernet.lossless import lossless_plan
from .lint_core import Finding, LintContext, rule


def _mib(v: float) -> str:
    return f"{v / 2**20:.1f} MiB"


@rule("roce-headroom", "error", "PFC headroom of a switch does not fit (or nearly fills) its buffer")
def roce_headroom(ctx: LintContext) -> Iterator[Finding]:
    try:
        plan = lossless_plan(ctx.f)
    except ValueError as e:
        yield ctx.finding("roce-headroom", "warning", f"headroom not checked: {e}", where="meta.roce")
        return
    for d, b in sorted(plan.switches.items()):
        if not b.known:
            continue
        what = (f"headroom {_mib(b.headroom_total)} ({b.ports} ports × {len(plan.priorities)} lossless "
                f"priorities, {plan.method}, MTU {plan.mtu}) + reserved {_mib(b.reserved)}")
        size = f"{_mib(b.buffer_bytes)} buffer of {b.part}" + (" (estimate)" if b.estimated else "")
        ports = plan.ports[ctx.f.ports_t.device[plan.ports] == d]
        where = ctx.f.name_of(d)
        if not b.fits:
            yield ctx.finding("roce-headroom", "error",
                              f"{what} exceed the {size} by {_mib(-b.shared_pool)}: shorten the longest "
                              "runs, use fewer lossless priorities or a smaller MTU", devices=[d], ports=ports,
                              where=where)
        elif b.use > WARN_USE:
            yield ctx.finding("roce-headroom", "warning",
                              f"{what} take {100 * b.use:.0f} % of the {size}; only "
                              f"{_mib(b.shared_pool)} stay shared", devices=[d], ports=ports, where=where)
