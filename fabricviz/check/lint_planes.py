"""Lint rules for multi-plane designs (``meta.planes``, :mod:`fabricviz.model.planes`).

* ``plane-refused``: ``meta.planes`` cannot be read (the one-line reason);
* ``plane-unknown-switch``: a plane names a switch the design does not have;
* ``plane-crossed``: a cable joins switches of two planes (planes share no link: each is its own
  subnet, so such a cable merges two SMs' subnets);
* ``plane-missing-switch``: a switch cabled into a plane's fabric but listed in no plane (its
  cables count for no plane: traffic and ``route --plane`` leave it out);
* ``plane-nic-port``: a split NIC's port k cabled to a switch of another plane than k (a plane's
  cable in the wrong NIC port; the NIC's plane load balancing stripes by port).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..model import FabricError
from ..model.fabric import KIND_CODE, NIC
from .lint_core import Finding, LintContext, rule


@rule("plane-refused", "error", "the design's planes (meta.planes) cannot be read")
def plane_refused(ctx: LintContext) -> Iterator[Finding]:
    try:
        _ = ctx.f.settings.planes
    except FabricError as e:
        yield ctx.finding("plane-refused", "error", str(e), where="meta.planes")


@rule("plane-unknown-switch", "warning", "a plane names a switch the design does not have")
def plane_unknown_switch(ctx: LintContext) -> Iterator[Finding]:
    ps = ctx.planes
    for p in ps.planes if ps else ():
        missing = [s for s in p.switches if ctx.f.find(s) is None]
        if missing:
            more = " …" if len(missing) > 5 else ""
            yield ctx.finding("plane-unknown-switch", "warning",
                              f"{p.name} names {len(missing)} switch(es) the design does not have: "
                              f"{', '.join(missing[:5])}{more}", where=f"meta.planes.{p.name}")


@rule("plane-crossed", "error", "a cable joins switches of two planes")
def plane_crossed(ctx: LintContext) -> Iterator[Finding]:
    ps = ctx.planes
    if not ps:
        return
    dp = ctx.device_planes
    pa, pb = dp[ctx.da], dp[ctx.db]
    bad = np.flatnonzero((pa >= 0) & (pb >= 0) & (pa != pb))
    if len(bad):
        names = [p.name for p in ps.planes]
        i = int(bad[0])
        yield ctx.finding("plane-crossed", "error",
                          f"{len(bad)} cable(s) join switches of two planes (first: {names[pa[i]]} and "
                          f"{names[pb[i]]}): each plane is its own subnet", cables=ctx.cids[bad].tolist())


@rule("plane-missing-switch", "warning", "a switch cabled to a plane's switches but in no plane")
def plane_missing_switch(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.planes:
        return
    dp = ctx.device_planes
    sw_a, sw_b = ctx.sw[ctx.da], ctx.sw[ctx.db]
    pa, pb = dp[ctx.da], dp[ctx.db]
    loose = np.unique(np.concatenate([ctx.da[sw_a & (pa < 0) & (pb >= 0)], ctx.db[sw_b & (pb < 0) & (pa >= 0)]]))
    if len(loose):
        yield ctx.finding("plane-missing-switch", "warning",
                          f"{len(loose)} switch(es) cabled into a plane but listed in no plane (meta.planes)",
                          devices=loose.tolist())


@rule("plane-nic-port", "warning", "a split NIC's port cabled into another plane than its own")
def plane_nic_port(ctx: LintContext) -> Iterator[Finding]:
    ps = ctx.planes
    if not ps:
        return
    f = ctx.f
    t, pt = f.devices_t, f.ports_t
    dp = ctx.device_planes
    codes = np.unique(t.part[t.alive & (t.kind == KIND_CODE[NIC])])
    ports_of = np.zeros(int(codes.max()) + 1 if len(codes) else 1, np.int64)   # NIC part code -> its ports
    for c in codes.tolist():
        pid = f.parts.id_of(int(c))
        ports_of[c] = f.catalog.get(pid).ports if pid is not None and pid in f.catalog else 0
    wrong = []
    for ends, other in ((ctx.pa, ctx.db), (ctx.pb, ctx.da)):
        dev = pt.device[ends].astype(np.int64)
        nic = t.kind[dev] == KIND_CODE[NIC]
        part_ports = np.where(nic, ports_of[np.clip(t.part[dev], 0, len(ports_of) - 1)], 0)
        n = t.nports[dev].astype(np.int64)
        split = (part_ports > 0) & (n > part_ports)
        planes = np.where(split, n // np.maximum(part_ports, 1), 1)
        k = (pt.num[ends].astype(np.int64) - 1) % planes
        wrong.append(ends[split & (dp[other] >= 0) & (dp[other] != k)])
    bad = np.concatenate(wrong)
    if len(bad):
        yield ctx.finding("plane-nic-port", "warning",
                          f"{len(bad)} split NIC port(s) cabled into another plane than their own (port k+1 is "
                          "plane k)", ports=bad.tolist())
