"""Lint rule ``pfc-deadlock``: a cyclic buffer dependency on a lossless priority of a RoCE design.

Runs :func:`fabricviz.ethernet.pfc_deadlock.check_pfc_deadlock` on the design as it is: ECMP over
min-hop routes, ports the design disables taken as failed links (bounce routes around them). A
warning, not an error: the cycle deadlocks only when every buffer on it fills at once, but then
nothing drains until a PFC watchdog drops. Skipped above :data:`PFC_LIMIT` link pairs × destination
switches (a few seconds of work), like the routing rules above their limit.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..ethernet.pfc_deadlock import check_pfc_deadlock
from ..model import FabricError
from ..model.fabric import KIND_CODE
from .lint_core import Finding, LintContext, rule

#: Work (switch-to-switch link pairs × destination switches) above which lint skips the rule.
PFC_LIMIT = 50_000_000


@rule("pfc-deadlock", "warning", "a cycle of PFC buffer dependencies on a lossless priority (RoCE)")
def pfc_deadlock(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    eth = ctx.alive & (ctx.kind == KIND_CODE["eth_switch"])
    if not eth.any():
        return
    if not ctx.full and _work(ctx, eth) > PFC_LIMIT:
        yield ctx.finding("pfc-deadlock", "info", "PFC deadlocks not checked: the fabric is too large to "
                          "check quickly (lint --full, or fabricviz check-pfc-deadlock)", where=f.name)
        return
    try:
        check = check_pfc_deadlock(f)
    except FabricError as exc:
        yield ctx.finding("pfc-deadlock", "info", f"PFC deadlocks not checked: {exc}", where=f.name)
        return
    after = f" {check.after_text()}" if check.failed else ""
    for c in check.cycles:
        yield ctx.finding("pfc-deadlock", "warning",
                          f"PFC deadlock possible on priority {c.priority}: {c.ring()}{after}; closed by "
                          f"{len(c.flows)} flow(s), e.g. {c.flows_text()}",
                          ports=c.ports, where=c.hops[0])


def _work(ctx: LintContext, eth: np.ndarray) -> int:
    """Link pairs at the switches × switches with hosts: what the check's dependency pass costs."""
    both = eth[ctx.da] & eth[ctx.db]
    deg = np.bincount(np.concatenate([ctx.da[both], ctx.db[both]]), minlength=len(eth))
    dests = np.unique(np.concatenate([ctx.db[eth[ctx.db] & ctx.host_nic[ctx.da]],
                                      ctx.da[eth[ctx.da] & ctx.host_nic[ctx.db]]]))
    return int((deg.astype(np.int64) ** 2).sum()) * max(len(dests), 1)
