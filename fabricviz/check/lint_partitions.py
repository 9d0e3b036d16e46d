"""Lint rules for InfiniBand partitions, run when the design carries them (``meta.partitions``).

* ``partition-unknown-guid``: the partitions name port GUIDs that are no end port of the
  design (OpenSM ignores them silently);
* ``partition-default-only``: hosts in no partition but the default one;
* ``partition-limited-only``: a partition whose members are all limited: no two of them can
  talk (a limited member talks only to full members);
* ``partition-pkey-capacity``: a CA port in more partitions than its P_Key table holds (OpenSM
  drops the rest with ERR 0512). The catalog has no P_Key capacity, so this uses
  :data:`fabricviz.ib.pkeys.CONNECTX_PKEYS` (128, what ConnectX-4 … 7 report).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..ib.partitions import DEFAULT_PKEY, Resolution, design_partitions, resolve
from ..ib.pkeys import CONNECTX_PKEYS
from ..ib.subnet import discover
from ..model import FabricError
from .lint_core import Finding, LintContext, rule


def _state(ctx: LintContext) -> Any:
    """(resolution, CA port GUID -> port id, problem) computed once per lint run."""
    cached = getattr(ctx, "_partitions_state", None)
    if cached is not None:
        return cached
    state: tuple = (None, {}, None)
    try:
        conf = design_partitions(ctx.f)
        if conf is not None:
            sn = discover(ctx.f)
            state = (resolve(conf, sn), {int(g): int(p) for g, p in zip(sn.ca_guid.tolist(),
                                                                         sn.ca_ports.tolist(), strict=True)}, None)
    except FabricError as e:
        state = (None, {}, str(e))
    ctx._partitions_state = state  # type: ignore[attr-defined]
    return state


def _member_guids(res: Resolution, exclude_default: bool) -> np.ndarray:
    """The port GUIDs member of some partition (but the default one if ``exclude_default``)."""
    mem = res.arrays()
    keep = np.ones(len(mem.part), bool)
    if exclude_default:
        pkeys = np.array([p.pkey for p in res.partitions], np.int64)
        keep = pkeys[mem.part] != DEFAULT_PKEY
    return mem.port_guids[np.unique(mem.port[keep])]


def _partitions_per_port(res: Resolution) -> tuple[np.ndarray, np.ndarray]:
    """(port GUIDs, in how many partitions each is): one bincount over the memberships."""
    mem = res.arrays()
    return mem.port_guids, np.bincount(mem.port, minlength=len(mem.port_guids))


@rule("partition-unknown-guid", "warning", "partitions name port GUIDs that are not in the design")
def unknown_guid(ctx: LintContext) -> Iterator[Finding]:
    res, _, problem = _state(ctx)
    if problem:
        yield ctx.finding("partition-unknown-guid", "warning", f"partitions not checked: {problem}",
                          where="meta.partitions")
        return
    if res is None or not res.unknown:
        return
    shown = ", ".join(f"0x{g:016x} (line {ln})" if ln else f"0x{g:016x}" for g, ln in res.unknown[:4])
    more = f" … (+{len(res.unknown) - 4} more)" if len(res.unknown) > 4 else ""
    yield ctx.finding("partition-unknown-guid", "warning",
                      f"{len(res.unknown)} member GUID(s) match no end port; OpenSM ignores them: "
                      f"{shown}{more}", where="partitions")


@rule("partition-default-only", "warning", "hosts in no partition but the default")
def default_only(ctx: LintContext) -> Iterator[Finding]:
    res, ports, _ = _state(ctx)
    if res is None:
        return
    member = set(_member_guids(res, exclude_default=True).tolist())
    pt = ctx.f.ports_t
    lonely = [p for g, p in ports.items() if g not in member and ctx.host_nic[int(pt.device[p])]]
    if lonely:
        yield ctx.finding("partition-default-only", "warning",
                          f"{len(lonely)} host port(s) in no partition but the default 0x7fff",
                          ports=np.array(sorted(lonely)))


@rule("partition-limited-only", "warning", "a partition with only limited members: nobody in it can talk")
def limited_only(ctx: LintContext) -> Iterator[Finding]:
    res, _, _ = _state(ctx)
    if res is None:
        return
    for p in res.partitions:
        if p.n_limited and not p.n_full:
            yield ctx.finding("partition-limited-only", "warning",
                              f"all {p.n_limited} members are limited: no two of them can talk",
                              where=f"partition {p.name} (0x{p.pkey:04x})")


@rule("partition-pkey-capacity", "error", "a CA port in more partitions than its P_Key table holds")
def pkey_capacity(ctx: LintContext) -> Iterator[Finding]:
    res, ports, _ = _state(ctx)
    if res is None:
        return
    guids, counts = _partitions_per_port(res)
    many = counts > CONNECTX_PKEYS                     # the few ports over capacity, then per port
    count = {g: n for g, n in zip(guids[many].tolist(), counts[many].tolist(), strict=True) if g in ports}
    over = sorted(ports[g] for g in count)
    if over:
        worst = max(count.values())
        yield ctx.finding("partition-pkey-capacity", "error",
                          f"in up to {worst} partitions; a ConnectX port holds {CONNECTX_PKEYS} P_Keys "
                          "(OpenSM drops the rest, ERR 0512)", ports=np.array(over))
