"""Lint rule for shared cages (:mod:`fabricviz.model.cage_cables`): one plug per cage.

* ``cage-plug``: a shared cage (a QM9700's twin-port OSFP, a broken-out SN5600 cage) whose links
  ride a copper breakout cable — a splitter (``far_end: single``: MCP7Y00, MCA7K10) or a twin-port
  copper cable (``far_end: twin``: MCP4Y10, MCA4K50) — and also another part, or a twin-port copper
  cable whose cage's links go to two far cages. The copper plug fills the cage and its legs are
  fixed: a splitter's go to two single-port cages, a twin-port cable's both to one far cage, so a
  link of the cage on optics or on another cable has no plug to go in. The cabling picks each link's
  part on its own (a UFM's single-port HCA on the port beside a DGX's twin-optics link would get the
  splitter), so such a cage is found here; the fix is optics for the odd link (a twin-port module
  takes any mix of far ends, twin-port or single-port) or moving it to a cage of its own.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..model.cage_cables import port_share, twin_copper
from .lint_core import Finding, LintContext, rule


@rule("cage-plug", "error", "a shared cage's links need two plugs (a copper breakout cable and another part)")
def cage_plug(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    if not len(ctx.cids):
        return
    ct = f.cables_t
    part_idx = ct.part[ctx.cids].astype(np.int64)
    copper = np.zeros(len(ctx.cids), bool)             # a copper breakout cable: fills its cage
    twin = np.zeros(len(ctx.cids), bool)               # … joining it to one far cage
    for idx in np.unique(part_idx).tolist():
        part = ctx.cable_part(int(ctx.cids[np.flatnonzero(part_idx == idx)[0]]))
        fixed = part is not None and bool(part.breakout) and part.cable_type != "transceiver"
        copper[part_idx == idx] = fixed
        twin[part_idx == idx] = part is not None and twin_copper(part)
    ends = [port_share(f, ctx.pa), port_share(f, ctx.pb)]
    rows = np.concatenate([np.flatnonzero(c.share > 1) for c in ends])
    keys = np.concatenate([c.key[c.share > 1] for c in ends])
    far = np.concatenate([ends[1].key[ends[0].share > 1], ends[0].key[ends[1].share > 1]])
    if not len(rows):
        return
    order = np.lexsort((rows, keys))
    rows, keys, far = rows[order], keys[order], far[order]
    bounds = np.flatnonzero(np.diff(keys)) + 1
    seen: set[tuple[int, ...]] = set()                 # a cage pair's links, found at both its cages once
    for grp in np.split(np.arange(len(keys)), bounds):
        r = rows[grp]
        if not copper[r].any() or tuple(r.tolist()) in seen:
            continue
        seen.add(tuple(r.tolist()))
        names = sorted({str(f.parts.id_of(int(i))) for i in part_idx[r]})
        plug = "a twin-port copper cable" if twin[r].any() else "a splitter"
        legs = "its far cage's" if twin[r].any() else "the splitter's legs"
        if len(np.unique(part_idx[r])) >= 2:
            yield ctx.finding("cage-plug", "error",
                              f"{len(r)} links share one cage on {' and '.join(names)}: {plug} fills the cage, "
                              f"its other ports can only be {legs} (use optics, or a cage of its own)",
                              cables=ctx.cids[r].tolist())
        elif twin[r].any() and len(np.unique(far[grp])) >= 2:
            yield ctx.finding("cage-plug", "error",
                              f"{len(r)} links of one cage on {names[0]} go to {len(np.unique(far[grp]))} far cages: "
                              "a twin-port copper cable joins its cage to one far cage (use optics)",
                              cables=ctx.cids[r].tolist())


__all__ = ["cage_plug"]
