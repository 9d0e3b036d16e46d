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
from fabricviz.ui.canvas.overlays.partitions import group_rows, memberships, reachable
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


def old_reachable(member, src):
    """The walk: for each partition of ``src``, every host's memberships."""
    mine = dict(member.get(src, []))
    peers: set[int] = set()
    through: list[int] = []
    for pkey, full in mine.items():
        got = {d for d, ms in member.items() if d != src and any(k == pkey and (full or f) for k, f in ms)}
        if got:
            through.append(pkey)
        peers |= got
    return peers, through


def old_group_rows(member, hosts, order, names):
    out = []
    for pkey in order:
        ms = [full for d in hosts for k, full in member.get(d, []) if k == pkey]
        if not ms:
            continue
        n, full = len(ms), sum(ms)
        how = "(full)" if full == n else "(limited)" if not full else f"({full} full)"
        out.append((pkey, n, full, f"{n} in {names.get(pkey, hex(pkey))} {how}"))
    return out


def _same_reach(member, order):
    """Whom each host reaches, and each run of hosts' badge rows, as the walk found them."""
    hosts = sorted(member) + [-99]                     # and a host in no partition
    names = {k: f"p{k}" for k in order[::2]}
    for src in hosts:
        assert reachable(member, src) == old_reachable(member, src)
    for a in range(0, len(hosts), 3):
        box = hosts[a:a + 5]
        assert group_rows(member, box, order, names) == old_group_rows(member, box, order, names)
    return [reachable(member, src) for src in hosts]


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
    reach = _same_reach(got, order)
    assert sum(1 for peers, _ in reach if peers) == 16 and reach[-1] == (set(), [])
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
            _same_reach(_same(res, ports, order), order)
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


class Visits(list):
    """A host's memberships that count the entries a function walks through."""
    seen = 0

    def __iter__(self):
        for x in super().__iter__():
            Visits.seen += 1
            yield x


def _visits(fn, member, *args):
    Visits.seen = 0
    fn({d: Visits(ms) for d, ms in member.items()}, *args)
    return Visits.seen


def test_reach_and_badges_work_grows_with_the_memberships_not_their_square():
    """With a host selected (and zoomed out, a badge per box), the 16 demo hosts in n and 4n
    partitions: 4x the memberships, about 4x the calls and each membership looked at once; the
    walk went over every host's memberships once per partition."""
    demo = load_fabric(asset_path("demo", "demo-fat-tree.json"))
    work = {}
    for n in (100, 400):
        res, ports, order = _case(demo, "".join(f"p{i}=0x{i:04x} : ALL=full ;\n" for i in range(1, n + 1)))
        member = memberships(res, ports, order)
        src, hosts = next(iter(member)), list(member)
        (peers, through), reach = calls(reachable, member, src)
        assert len(peers) == len(hosts) - 1 == 15 and len(through) == n
        rows = group_rows(member, hosts, order, {})
        assert [r[1:3] for r in rows] == [(16, 16)] * n
        assert _visits(group_rows, member, hosts, order, {}) == 16 * n
        assert _visits(old_group_rows, member, hosts, order, {}) == 16 * n * n
        assert _visits(reachable, member, src) == 16 * n            # src's own once, then the others
        work[n] = (reach, calls(old_reachable, member, src)[1])
    assert work[400][0] / work[100][0] < 4.5 and work[400][1] / work[100][1] > 12, work
