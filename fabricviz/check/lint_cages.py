"""Lint rule for shared cages (:mod:`fabricviz.model.cage_cables`): one plug per cage.

* ``cage-plug``: a shared cage (a QM9700's twin-port OSFP, a broken-out SN5600 cage) whose links
  ride a splitter cable (``far_end: single``: MCP7Y00, MCA7K10) and also another part. The splitter's
  twin-port end fills the cage, so the cage's other ports can only be the splitter's other legs: a
  link of the cage on twin-port optics or on another splitter has no plug to go in. The cabling picks
  each link's part on its own (a UFM's single-port HCA on the port beside a DGX's twin-optics link
  would get the splitter), so such a cage is found here; the fix is optics for the odd link (a
  twin-port module takes any mix of far ends) or moving it to a cage of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..model.cage_cables import port_share
from .lint_core import Finding, LintContext, rule


@rule("cage-plug", "error", "a shared cage's links need two plugs (a splitter and another part)")
def cage_plug(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    if not len(ctx.cids):
        return
    ct = f.cables_t
    part_idx = ct.part[ctx.cids].astype(np.int64)
    splitter = np.zeros(len(ctx.cids), bool)
    for idx in np.unique(part_idx).tolist():
        part = ctx.cable_part(int(ctx.cids[np.flatnonzero(part_idx == idx)[0]]))
        splitter[part_idx == idx] = part is not None and bool(part.breakout) and part.far_end == "single"
    ends = [port_share(f, ctx.pa), port_share(f, ctx.pb)]
    rows = np.concatenate([np.flatnonzero(c.share > 1) for c in ends])
    keys = np.concatenate([c.key[c.share > 1] for c in ends])
    if not len(rows):
        return
    order = np.lexsort((rows, keys))
    rows, keys = rows[order], keys[order]
    bounds = np.flatnonzero(np.diff(keys)) + 1
    for grp in np.split(np.arange(len(keys)), bounds):
        r = rows[grp]
        if not splitter[r].any() or len(np.unique(part_idx[r])) < 2:
            continue
        names = sorted({str(f.parts.id_of(int(i))) for i in part_idx[r]})
        yield ctx.finding("cage-plug", "error",
                          f"{len(r)} links share one cage on {' and '.join(names)}: a splitter fills the cage, "
                          "its other ports can only be the splitter's legs (use optics, or a cage of its own)",
                          cables=ctx.cids[r].tolist())


__all__ = ["cage_plug"]
