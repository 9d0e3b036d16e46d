"""Memberships as arrays (issue 28: 32,767 ``ALL`` statements are 786,384 memberships on the demo)
give what the per-membership walk gave: :func:`resolve` and :func:`compute_tables` are checked here
against that walk (OpenSM's ``osm_prtn_make_partitions`` / ``osm_pkey_mgr`` step by step, kept
below as the reference) on seeded random partitions.conf files that use every member form,
repeated P_Keys, later mentions that change a membership, ``indx0`` and full tables."""

from __future__ import annotations

import random

import numpy as np
import pytest

from fabricviz.formats.partitions_conf import loads
from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.partitions import (
    DEFAULT_PKEY,
    FULL_BIT,
    PKEY_MASK,
    Resolution,
    end_ports,
    osm_pkey_order,
    resolve,
    sm_port_guid,
)
from fabricviz.ib.pkeys import FACTORY_TABLE, HARDWARE, IBSIM, _fresh_table, compute_tables, port_table
from fabricviz.ib.subnet import discover


def reference(conf, subnet):
    """The walk one port at a time: {pkey: (name, ipoib, full set, limited set)} in OpenSM's
    order, and the indx0 requests."""
    ports = end_ports(subnet)
    sm = sm_port_guid(subnet)
    order = sorted(ports, key=lambda g: int.from_bytes(g.to_bytes(8, "big"), "little"))
    with_file = conf.applies_default
    table = {DEFAULT_PKEY: ["Default", not with_file, {}]}
    for g in order:
        table[DEFAULT_PKEY][2][g] = not with_file
    if sm in ports:
        table[DEFAULT_PKEY][2][sm] = True
    indx0: dict[int, int] = {}
    for s in conf.statements:
        p = table.setdefault(s.pkey, [s.name, s.ipoib, {}])
        p[1] = p[1] or s.ipoib
        for m in s.members:
            if isinstance(m.target, int):
                gs = [m.target] if m.target in ports else []
            elif m.target == "SELF":
                gs = [sm] if sm in ports else []
            else:
                kind = {"ALL": None, "ALL_CAS": "ca", "ALL_SWITCHES": "switch", "ALL_ROUTERS": "router"}[m.target]
                gs = [g for g in order if kind is None or ports[g] == kind]
            for g in gs:
                if s.indx0:
                    indx0[g] = s.pkey | (FULL_BIT if m.full else 0)
                elif indx0.get(g, 0) & PKEY_MASK == s.pkey:
                    del indx0[g]
                p[2][g] = m.full
    out = {k: (v[0], v[1], {g for g, f in v[2].items() if f}, {g for g, f in v[2].items() if not f})
           for k, v in sorted(table.items(), key=lambda kv: osm_pkey_order(kv[0])) if v[2]}
    return out, indx0


def random_conf(rng: random.Random, guids: list[int], statements: int) -> str:
    lines = []
    for _ in range(statements):
        pkey = rng.choice([rng.randrange(1, 40), DEFAULT_PKEY, 0x100 * rng.randrange(1, 4)])
        flags = ",ipoib" * (rng.random() < 0.2) + ",indx0" * (rng.random() < 0.15) \
            + ",defmember=full" * (rng.random() < 0.3)
        members = []
        for _ in range(rng.randrange(0, 4)):
            target = rng.choice(["ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF",
                                 f"0x{rng.choice(guids):x}", f"0x{rng.choice(guids):x}", "0x1234"])
            members.append(target + rng.choice(["", "=full", "=limited", "=both"]))
        lines.append(f"p{pkey}=0x{pkey:04x}{flags} : {', '.join(members) or 'NONE'} ;")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def subnet():
    return discover(k_ary_fat_tree(4))


@pytest.mark.parametrize("seed", range(12))
def test_arrays_resolve_and_program_as_the_walk(subnet, seed):
    rng = random.Random(seed)
    guids = sorted(end_ports(subnet))
    conf = loads(random_conf(rng, guids, rng.randrange(1, 60)), f"seed{seed}")
    res = resolve(conf, subnet)
    want, want0 = reference(conf, subnet)
    assert [(p.pkey, p.name, p.ipoib, p.full, p.limited) for p in res.partitions] \
        == [(k, *v) for k, v in want.items()]
    assert [(p.n_full, p.n_limited, p.members) for p in res.partitions] \
        == [(len(v[2]), len(v[3]), len(v[2]) + len(v[3])) for v in want.values()]
    assert res.indx0 == want0
    # every end port's table as port_table programs it from the walk's members, one port at a time
    for caps in (IBSIM, None):
        t = compute_tables(subnet, res, caps) if caps else compute_tables(subnet, res)
        for g, kind in res.end_ports.items():
            pending = [k | (FULL_BIT if g in v[2] else 0) for k, v in want.items() if g in v[2] | v[3]]
            cap = (caps or HARDWARE).ca if kind == "ca" else (caps or HARDWARE).switch_port0
            tbl, dropped = port_table(pending, cap, FACTORY_TABLE, want0.get(g, 0))
            assert (t.ca if kind == "ca" else t.switch0)[g] == tbl and t.dropped.get(g, []) == dropped
    # the tables from the arrays and from the sets (a Resolution without them) are the same
    bare = Resolution(res.partitions, res.end_ports, res.sm_guid, res.unknown, res.indx0)
    for caps in (IBSIM, None):
        a = compute_tables(subnet, res, caps) if caps else compute_tables(subnet, res)
        b = compute_tables(subnet, bare, caps) if caps else compute_tables(subnet, bare)
        assert (a.ca, a.switch0, a.switch_ext, a.enforce, a.dropped) == (b.ca, b.switch0, b.switch_ext,
                                                                          b.enforce, b.dropped)


def test_a_seeded_file_exercises_every_case(subnet):
    """The random files above do reach indx0, dropped P_Keys and empty partitions."""
    seen = set()
    for seed in range(12):
        rng = random.Random(seed)
        conf = loads(random_conf(rng, sorted(end_ports(subnet)), rng.randrange(1, 60)), "s")
        res = resolve(conf, subnet)
        t = compute_tables(subnet, res, IBSIM)
        seen |= {"indx0"} if res.indx0 else set()
        seen |= {"dropped"} if t.dropped else set()
        seen |= {"emptied"} if len({s.pkey for s in conf.statements} | {DEFAULT_PKEY}) > len(res.partitions) else set()
    assert seen == {"indx0", "dropped", "emptied"}


@pytest.mark.parametrize("capacity", [1, 2, 8, 32, 64, 100, 128])
def test_a_fresh_port_is_programmed_as_port_table_does(capacity):
    rng = random.Random(capacity)
    for _ in range(40):
        keys = rng.sample(range(1, PKEY_MASK + 1), rng.randrange(0, 3 * capacity + 2))
        pending = [k | (FULL_BIT if rng.random() < 0.5 else 0) for k in keys]
        assert _fresh_table(np.asarray(pending, np.int64), capacity) == port_table(pending, capacity, FACTORY_TABLE)
