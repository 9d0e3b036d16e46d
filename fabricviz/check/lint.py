"""``fabricviz lint``: design checks an architect runs before buying or cabling anything.

Each rule is one small function in :mod:`.lint_rules`, registered with :func:`rule`
under a stable id (``cable-reach``, ``credit-loop`` …). A rule reads the fabric
through a shared :class:`LintContext` (cable ends, device kinds, tiers and, for
InfiniBand, the subnet manager's routing computed once) and yields
:class:`Finding` objects: severity, rule id, the devices/ports/cables involved
(ids, so the GUI can select them, and names, so people can read them) and a
one-line why.

Routing-based rules (ftree refusal, credit loops, unreachable LIDs) run the
subnet manager; above :data:`ROUTE_LIMIT` (switches × LIDs) they are skipped
with an info finding unless asked for (``full=True``). Measured with
``bench/lint.py`` (2 shared cores): the whole lint of k=16 (430k cells) takes
0.25 s, k=24 (3.0M cells) 1.5 s, k=32 (12M cells) about 9 s.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..model import Fabric, FabricError
from . import lint_cages, lint_partitions, lint_pfc, lint_planes, lint_roce, lint_rules
from .lint_core import ROUTE_LIMIT, RULES, SEVERITIES, SHOW_NAMES, Finding, LintContext, Rule, rule

#: The rule modules, imported for what they register in :data:`RULES` (in this order).
RULE_MODULES = (lint_rules, lint_partitions, lint_pfc, lint_roce, lint_planes, lint_cages)

@dataclass
class LintReport:
    findings: list[Finding]
    skipped: list[str] = field(default_factory=list)   # rule ids not run

    def count(self, severity: str) -> int:
        return sum(1 for x in self.findings if x.severity == severity)

    @property
    def errors(self) -> int:
        return self.count("error")

    def by_rule(self, rule_id: str) -> list[Finding]:
        return [x for x in self.findings if x.rule == rule_id]

    def to_dict(self) -> dict[str, Any]:
        return {"counts": {s: self.count(s) for s in SEVERITIES}, "skipped_rules": self.skipped,
                "findings": [x.to_dict() for x in self.findings]}

    def format(self) -> str:
        lines = [x.format() for x in self.findings]
        c = {s: self.count(s) for s in SEVERITIES}
        lines.append(f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info")
        return "\n".join(lines)


def lint(fabric: Fabric, rules: Iterable[str] | None = None, full: bool = False,
         routes: Iterable[Any] = ()) -> LintReport:
    """Run the rules (all by default) and return the findings, errors first. ``routes``: SM
    routings of this very fabric already computed (the GUI's routing cache); the routing
    rules use them instead of routing again when engine and LMC match."""
    ids = list(RULES) if rules is None else list(rules)
    for r in ids:
        if r not in RULES:
            raise FabricError(f"unknown lint rule {r!r} (known: {', '.join(RULES)})")
    ctx = LintContext(fabric, full, route_limit=ROUTE_LIMIT)
    for r in routes:
        if r is not None and r.subnet.fabric is fabric and r.lids.lmc == ctx.lmc:
            ctx.adopt_routing(r)
    out: list[Finding] = []
    skipped: list[str] = []
    routing_rules = [r for r in ids if RULES[r].routing]
    if routing_rules and ctx.is_ib and not ctx.route_ok:
        skipped = routing_rules
        out.append(Finding("info", "routing-skipped",
                           f"{', '.join(routing_rules)} not checked: routing this fabric fills "
                           f"{ctx.route_cells:,} LFT cells, over the {ROUTE_LIMIT:,} lint routes quickly "
                           "(lint --full, or \"Route large fabrics\" in the Findings dock, checks them)", fabric.name))
    for r in ids:
        if r in skipped:
            continue
        out.extend(RULES[r].check(ctx))
    order = {s: i for i, s in enumerate(SEVERITIES)}
    out.sort(key=lambda x: (order[x.severity], ids.index(x.rule) if x.rule in ids else -1))
    return LintReport(out, skipped)


__all__ = ["Finding", "LintContext", "LintReport", "Rule", "RULES", "ROUTE_LIMIT", "SEVERITIES",
           "SHOW_NAMES", "lint", "rule"]
