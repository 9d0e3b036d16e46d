"""Partition Marks read the memberships as arrays (issue 28: 32,767 partitions of every host froze
the canvas): :func:`memberships` gives what the walk over partitions x hosts with the partitions'
sets gave (kept below as the reference) on the repo's partitions.conf and seeded random ones, on
single- and multi-port hosts, and its work no longer grows with partitions x members."""

from __future__ import annotations

import random
from pathlib import Path

from fabricviz.formats.native import load_fabric
from fabricviz.formats.partitions_conf import loads
from fabricviz.generate import fat_tree, k_ary_fat_tree
from fabricviz.ib.partition_design import host_port_guids
from fabricviz.ib.partitions import DEFAULT_PKEY, Resolution, resolve
from fabricviz.ib.subnet import discover
from fabricviz.model.fabric import KIND_CODE
from fabricviz.resources import asset_path
from fabricviz.ui.canvas.overlays.partitions import memberships
from tests.check.test_lint_partitions_arrays import random_conf
from tests.work import calls

K4_CONF = Path(__file__).parents[2] / "ib" / "pkeys_k4_partitions.conf"


def old_memberships(res, ports, order):
    """The walk: every partition in ``order`` x every host, through the partitions' sets."""
    by_pkey = res.by_pkey()
    out: dict[int, list[tuple[int, bool]]] = {}
    for pkey in order:
        p = by_pkey.get(pkey)
        if p is None or pkey == DEFAULT_PKEY:
            continue
        for d, guids in ports.items():
            if any(g in p.full for g in guids):
                out.setdefault(d, []).append((pkey, True))
            elif any(g in p.limited for g in guids):
                out.setdefault(d, []).append((pkey, False))
    return out


def _hosts(f):
    t = f.devices_t
    host = t.alive & (t.parent < 0) & ((t.kind == KIND_CODE["server"]) | (t.kind == KIND_CODE["nic"]))
    return [int(d) for d in host.nonzero()[0].tolist()]


def _case(f, text):
    conf = loads(text, "p.conf")
    res = resolve(conf, discover(f))
    return res, host_port_guids(f, _hosts(f), res.end_ports), [p.pkey for p in conf.merged()]


def _same(res, ports, order):
    got, want = memberships(res, ports, order), old_memberships(res, ports, order)
    assert got == want and list(got) == list(want)          # the same rows, hosts in the same order
    bare = Resolution(res.partitions, res.end_ports, res.sm_guid, res.unknown, res.indx0)
    assert list(memberships(bare, ports, order).items()) == list(want.items())
    return got


def test_the_pkeys_k4_file():
    f = k_ary_fat_tree(4)
    res, ports, order = _case(f, K4_CONF.read_text())
    got = _same(res, ports, order)
    names = {f.name_of(d): v for d, v in got.items()}
    assert len(names) == 16 and order[:3] == [DEFAULT_PKEY, 0x10, 0x20]
    assert names["node01"] == [(0x10, True), (0x20, False)]      # storage: a bare GUID is limited
    assert names["node04"] == [(0x10, True), (0x20, False), (0x100, True)]
    assert names["node11"] == [(0x10, True)]
    assert names["node16"] == [(0x10, True), (0x20, True), (0x100, False), (0x201, False), (0x1, False)]


def test_seeded_random_files_single_and_multi_port_hosts():
    for f in (k_ary_fat_tree(4), fat_tree(2, 16, servers="dgx")):
        sn = discover(f)
        guids = sorted(int(x) for x in sn.ca_guid.tolist())
        multi = False
        for seed in range(6):
            rng = random.Random(seed)
            res, ports, order = _case(f, random_conf(rng, guids, rng.randrange(5, 200)))
            multi |= any(len(v) > 1 for v in ports.values())
            _same(res, ports, order)
            # a made-up host sharing another's ports and naming a GUID of no end port; an order
            # that leaves partitions out and names one that is not there
            ports2 = {**ports, -5: [*next(iter(ports.values())), 0x1234]}
            order2 = [k for k in reversed(order) if k % 3] + [0x7ABC]
            _same(res, ports2, order2)
        assert multi == (len(guids) > 16)                     # the DGX: 8 IB ports a host


def test_work_does_not_grow_with_memberships():
    """The demo's hosts under n and 4n partitions of everyone: a partition costs a few calls
    (its place in the order), not one per member host; the walk paid several per host."""
    demo = load_fabric(asset_path("demo", "demo-fat-tree.json"))
    work = {}
    for n in (300, 1200):
        res, ports, order = _case(demo, "".join(f"p{i}=0x{i:04x} : ALL=full ;\n" for i in range(1, n + 1)))
        got, work[n] = calls(memberships, res, ports, order)
        assert len(got) == len(ports) and {len(v) for v in got.values()} == {n}
        work[f"old{n}"] = calls(old_memberships, res, ports, order)[1]
    per_partition = (work[1200] - work[300]) / 900
    old_per_partition = (work["old1200"] - work["old300"]) / 900
    assert len(ports) > 10 and per_partition < 3 < len(ports) < old_per_partition, work
