"""The partition lint rules read the memberships as arrays (issue 28: 32,767 ``ALL`` statements are
786,384 memberships on the demo): they find what the per-member walk over the partitions' sets
found (kept below as the reference), on the repo's partitions.conf and seeded random ones, and
their work no longer grows with partitions x members."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from fabricviz.check import lint_partitions as lp
from fabricviz.check.lint_core import LintContext
from fabricviz.formats.native import load_fabric
from fabricviz.formats.partitions_conf import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import DEFAULT_PKEY, Resolution, end_ports, to_meta
from fabricviz.ib.pkeys import CONNECTX_PKEYS
from fabricviz.ib.subnet import discover
from fabricviz.resources import asset_path
from tests.work import calls

K4_CONF = Path(__file__).parents[1] / "ib" / "pkeys_k4_partitions.conf"
RULES = [lp.default_only, lp.limited_only, lp.pkey_capacity]


# ------------------------------------------------------------------ the walk, one member at a time
def old_default_only(ctx):
    res, ports, _ = lp._state(ctx)
    if res is None:
        return
    member: set[int] = set()
    for p in res.partitions:
        if p.pkey != DEFAULT_PKEY:
            member |= p.full | p.limited
    pt = ctx.f.ports_t
    lonely = [p for g, p in ports.items() if g not in member and ctx.host_nic[int(pt.device[p])]]
    if lonely:
        yield ctx.finding("partition-default-only", "warning",
                          f"{len(lonely)} host port(s) in no partition but the default 0x7fff",
                          ports=np.array(sorted(lonely)))


def old_limited_only(ctx):
    res, _, _ = lp._state(ctx)
    if res is None:
        return
    for p in res.partitions:
        if p.limited and not p.full:
            yield ctx.finding("partition-limited-only", "warning",
                              f"all {len(p.limited)} members are limited: no two of them can talk",
                              where=f"partition {p.name} (0x{p.pkey:04x})")


def old_pkey_capacity(ctx):
    res, ports, _ = lp._state(ctx)
    if res is None:
        return
    count: dict[int, int] = {}
    for p in res.partitions:
        for g in p.full | p.limited:
            count[g] = count.get(g, 0) + 1
    over = sorted(ports[g] for g, n in count.items() if g in ports and n > CONNECTX_PKEYS)
    if over:
        worst = max(count[g] for g in ports if ports[g] in set(over))
        yield ctx.finding("partition-pkey-capacity", "error",
                          f"in up to {worst} partitions; a ConnectX port holds {CONNECTX_PKEYS} P_Keys "
                          "(OpenSM drops the rest, ERR 0512)", ports=np.array(over))


OLD = [old_default_only, old_limited_only, old_pkey_capacity]


def random_conf(rng: random.Random, guids: list[int], statements: int) -> str:
    """Many P_Keys (so some ports pass 128), every member form, limited-only partitions."""
    lines = []
    for _ in range(statements):
        pkey = rng.choice([rng.randrange(1, 400), DEFAULT_PKEY])
        flags = ",defmember=full" * (rng.random() < 0.3)
        members = []
        for _ in range(rng.randrange(0, 4)):
            target = rng.choice(["ALL", "ALL_CAS", "ALL_SWITCHES", "SELF", f"0x{rng.choice(guids):x}",
                                 f"0x{rng.choice(guids):x}", f"0x{rng.choice(guids):x}", "0x1234"])
            members.append(target + rng.choice(["", "=full", "=limited", "=limited", "=both"]))
        lines.append(f"p{pkey}=0x{pkey:04x}{flags} : {', '.join(members) or 'NONE'} ;")
    return "\n".join(lines) + "\n"


def _ctx(fabric, text: str) -> LintContext:
    fabric.meta["partitions"] = to_meta(loads(text, "p.conf"))
    return LintContext(fabric)


def _found(rule, ctx):
    return [(x.severity, x.rule, x.message, x.where, tuple(int(p) for p in x.ports)) for x in rule(ctx)]


def _designs():
    k4 = k_ary_fat_tree(4)
    yield "k4 + pkeys_k4_partitions.conf", k4, K4_CONF.read_text()
    guids = sorted(end_ports(discover(k4)))
    yield "k4 + two hosts", k_ary_fat_tree(4), f"two=0x0010 : 0x{guids[3]:x}=full, 0x{guids[5]:x} ;\n"
    for seed in range(8):
        rng = random.Random(seed)
        yield f"k4 + random seed {seed}", k_ary_fat_tree(4), random_conf(rng, guids, rng.randrange(60, 400))
    demo = load_fabric(asset_path("demo", "demo-fat-tree.json"))
    yield "demo + 300 ALL", demo, "".join(f"p{i}=0x{i:04x} : ALL=full ;\n" for i in range(1, 301))


@pytest.mark.parametrize("name,fabric,text", list(_designs()), ids=lambda v: v if isinstance(v, str) else "")
def test_rules_find_what_the_walk_found(name, fabric, text):
    ctx = _ctx(fabric, text)
    for new, old in zip(RULES, OLD, strict=True):
        assert _found(new, ctx) == _found(old, ctx), (name, new.__name__)
    # a Resolution without its memberships (made by hand) is read from its partitions' arrays
    res, ports, problem = lp._state(ctx)
    bare = Resolution(res.partitions, res.end_ports, res.sm_guid, res.unknown, res.indx0)
    ctx2 = LintContext(fabric)
    ctx2._partitions_state = (bare, ports, problem)
    for new, old in zip(RULES, OLD, strict=True):
        assert _found(new, ctx2) == _found(old, ctx), (name, new.__name__)


def test_the_designs_reach_every_finding():
    """Each rule finds something on some design above and nothing on another."""
    seen: dict[str, set[bool]] = {r.__name__: set() for r in RULES}
    for _name, fabric, text in _designs():
        ctx = _ctx(fabric, text)
        for r in RULES:
            seen[r.__name__].add(bool(_found(r, ctx)))
    assert seen == {r.__name__: {True, False} for r in RULES}


def test_the_pkeys_k4_file_exactly():
    ctx = _ctx(k_ary_fat_tree(4), K4_CONF.read_text())
    assert _found(lp.limited_only, ctx) == [("warning", "partition-limited-only",
                                             "all 2 members are limited: no two of them can talk",
                                             "partition lonely (0x0300)", ())]
    assert _found(lp.pkey_capacity, ctx) == []
    assert _found(lp.default_only, ctx) == []       # compute=0x0010 holds ALL_CAS


def _run(rule, ctx):
    return list(rule(ctx))


def test_rule_work_does_not_grow_with_memberships():
    """The demo under n and 4n partitions of everyone (24 memberships a statement): the capacity
    rule costs the same calls whatever n (one bincount), the other two a few calls a partition;
    the walk paid about one call per membership."""
    demo = load_fabric(asset_path("demo", "demo-fat-tree.json"))
    work = {}
    for n in (500, 2000):
        ctx = _ctx(demo, "".join(f"p{i}=0x{i:04x} : ALL=full ;\n" for i in range(1, n + 1)))
        res, _ports, _ = lp._state(ctx)                    # resolved once per lint run, not counted here
        assert res.memberships is not None and len(res.memberships.part) == 24 * (n + 1)
        work[n] = {r.__name__: calls(_run, r, ctx)[1] for r in RULES}
        work[n]["old"] = calls(_run, old_pkey_capacity, ctx)[1]
        assert [f[2] for f in _found(lp.pkey_capacity, ctx)] == \
            [f"in up to {n + 1} partitions; a ConnectX port holds 128 P_Keys (OpenSM drops the rest, ERR 0512)"]
    small, big = work[500], work[2000]
    assert big["pkey_capacity"] == small["pkey_capacity"], work
    for r in ("default_only", "limited_only"):
        assert big[r] - small[r] < 4 * 1500 < 24 * 1500, work
    assert big["old"] - small["old"] > 24 * 1500, work          # the walk: a call per membership
