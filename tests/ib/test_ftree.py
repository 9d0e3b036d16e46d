"""ftree routing: identical LFTs to OpenSM 3.3's ``ftree``, its refusals, up*/down* property.

Fixtures: ``tests/data/opensm/ftree-<case>/`` (this file's cases, OpenSM run on our
generated fabrics) and the oracle's own ``<case>-ftree/`` fixtures. Regenerate mine
with ``.venv/bin/python tests/ib/test_ftree.py`` (needs opensm + ibsim-utils).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

if __name__ == "__main__":                      # run as a script to regenerate fixtures
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.generate import fat_tree, k_ary_fat_tree, plan_fat_tree, rail_optimized
from fabricviz.ib.routing import route
from fabricviz.ib.subnet import NO_PATH
from fabricviz.model import Fabric, FabricError
from tests.ib import oracle
from tests.ib.topologies import Net

DATA = Path(__file__).resolve().parents[1] / "data" / "opensm"


def net_text(f: Fabric, drop: tuple[str, int] | None = None) -> str:
    """Our fabric as ibsim text with explicit (scrambled) GUIDs, same port numbers.
    ``drop`` = (switch name, port): leave that cable out (a failed link)."""
    net = Net()
    t, pt, ct = f.devices_t, f.ports_t, f.cables_t
    name: dict[int, str] = {}
    for kind, add in (("ib_switch", net.switch), ("nic", net.ca)):
        for d in f.device_ids(kind).tolist():
            name[d] = add(f.name_of(d).replace("/", "_"), int(t.nports[d]))
    for c in f.cable_ids().tolist():
        a, b = int(ct.port_a[c]), int(ct.port_b[c])
        da, db = int(pt.device[a]), int(pt.device[b])
        if da in name and db in name:
            net.link(name[da], int(pt.num[a]), name[db], int(pt.num[b]))
    if drop:
        net.unlink(*drop)
    return net.text()


def dual_port(leaves: int = 4, spines: int = 3, hosts: int = 3) -> str:
    """Leaf/spine tree of 2-port HCAs: port 1 on its leaf, port 2 on the next leaf."""
    net = Net()
    leaf = [net.switch(f"leaf{i + 1}", 2 * hosts + spines) for i in range(leaves)]
    spine = [net.switch(f"spine{j + 1}", leaves) for j in range(spines)]
    n = 0
    for i, lf in enumerate(leaf):
        for h in range(hosts):
            n += 1
            ca = net.ca(f"h{n}", 2)
            net.link(lf, h + 1, ca, 1)
            net.link(leaf[(i + 1) % leaves], hosts + h + 1, ca, 2)
        for j, sp in enumerate(spine):
            net.link(lf, 2 * hosts + j + 1, sp, i + 1)
    return net.text()


#: case -> (topology text builder, extra OpenSM args, LMC for our side)
CASES = {
    "fat2-r8-h16": (lambda: net_text(fat_tree(levels=2, radix=8, hosts=16)), (), 0),
    "fat2-r8-h11": (lambda: net_text(fat_tree(levels=2, radix=8, hosts=11)), (), 0),     # partly filled
    "fat2-r8-h16-par2": (lambda: net_text(fat_tree(levels=2, radix=8, hosts=16, parallel=2)), (), 0),
    "fat2-r8-block": (lambda: net_text(fat_tree(levels=2, radix=8, blocking="3:1")), (), 0),
    "k4": (lambda: net_text(k_ary_fat_tree(4)), (), 0),
    "fat3-r4-par2": (lambda: net_text(fat_tree(levels=3, radix=4, parallel=2)), (), 0),
    "fat2-missing-link": (lambda: net_text(fat_tree(levels=2, radix=8, hosts=16), drop=("leaf01", 5)), (), 0),
    "fat3-r8-h50": (lambda: net_text(fat_tree(levels=3, radix=8, hosts=50)), (), 0),      # refused (AB0A)
    "fat2-lmc1": (lambda: net_text(fat_tree(levels=2, radix=8, hosts=16)), ("-l", "1"), 1),
    "dual-port": (dual_port, (), 0),
}
#: compared live only (too big for a fixture)
LIVE_ONLY = {
    "k8": (lambda: net_text(k_ary_fat_tree(8)), (), 0),
    "rail1": (lambda: net_text(rail_optimized(1)), (), 0),
}
#: the oracle engineer's fixtures that ran ftree
ORACLE_CASES = ["fat2", "k4", "parallel", "parallel-failed", "fat2-failed", "ring4",
                "sample-2sw2path4hca", "sample-net-example", "sample-manpage"]


def fixture_dirs() -> list[Path]:
    mine = [DATA / f"ftree-{c}" for c in CASES]
    theirs = [DATA / f"{c}-ftree" for c in ORACLE_CASES]
    return [d for d in mine + theirs if d.is_dir()]


def _without_names(reason: str | None) -> str | None:
    """Our reasons add "(switch name)" after each GUID; OpenSM's log has only the GUID."""
    return None if reason is None else re.sub(r"(0x[0-9a-f]+) \([^)]*\)", r"\1", reason)


def compare(text: str, res: oracle.OracleResult, lmc: int = 0):
    """Our route of `text` against OpenSM's result: (ours, entries compared, differing)."""
    f = loads(text, "topology.net", dialect=sniff(text))
    r = route(f, "ftree", lmc=lmc)
    sn = r.subnet
    compared, diff = 0, []
    for s, g in enumerate(sn.sw_guid.tolist()):
        theirs = res.lfts.get(int(g), {})
        for lid in range(1, r.lft.shape[1]):
            a, b = int(r.lft[s, lid]), theirs.get(lid, NO_PATH)
            if a == NO_PATH and b == NO_PATH:
                continue
            compared += 1
            if a != b:
                diff.append((sn.switch_name(s), lid, a, b))
        extra = [lid for lid in theirs if lid >= r.lft.shape[1]]
        compared += len(extra)
        diff += [(sn.switch_name(s), lid, None, theirs[lid]) for lid in extra]
    return r, compared, diff


@pytest.mark.parametrize("fixture", fixture_dirs(), ids=lambda d: d.name)
def test_ftree_matches_opensm_fixture(fixture):
    res = oracle.load_fixture(fixture)
    lmc = 1 if fixture.name.endswith("lmc1") else 0
    r, compared, diff = compare((fixture / "topology.net").read_text(), res, lmc)
    assert r.routed_by == res.routed_by
    assert _without_names(r.fallback_reason) == res.fallback_reason
    if res.lfts:
        assert compared > 0 and diff == [], f"{len(diff)}/{compared} entries differ: {diff[:5]}"


def test_fixtures_cover_the_brief():
    names = {d.name for d in fixture_dirs()}
    assert {f"ftree-{c}" for c in CASES} <= names, "run tests/ib/test_ftree.py to regenerate"


def test_refusal_messages_name_rule_and_switches():
    f = loads(CASES["fat2-missing-link"][0](), "t.net")
    r = route(f, "ftree")
    assert r.routed_by == "minhop"
    # leaf01 lost its cable to spine01: spine01 (first spine in GUID-map order) has one
    # down group fewer than spine04
    assert r.fallback_reason.startswith(
        "ftree: ERR AB0A: Different number of downward port groups on switches: GUID 0x0002c90300a00f41 "
        "(spine01), LID 7, Index 0.0 - 3 port groups GUID 0x0002c90300a00f42 (spine04), LID 9, Index 0.3 - "
        "4 port groups; ERR AB0D")
    r = route(fat_tree(levels=2, radix=8, hosts=16), "ftree", lmc=1)
    assert r.fallback_reason == ("ftree: LMC > 0 is not supported by fat-tree routing. "
                                 "Falling back to default routing")


def test_ring_is_refused():
    from tests.ib.test_routing import ring
    r = route(ring(4), "ftree")
    assert r.routed_by == "minhop"
    assert r.fallback_reason == "ftree: ERR AB2B: Found more than one root on fabric with maximum rank 0"


def test_info_ranks_leaves_and_ca_order():
    f = fat_tree(levels=2, radix=8, hosts=11)       # 4 leaves x 4 hosts, last leaf has 3
    r = route(f, "ftree")
    info = r.info
    assert r.routed_by == "ftree" and info.tree_rank == 2
    assert sorted(info.roots) == [f"spine0{i}" for i in range(1, 5)]
    assert len(info.leaf_switches) == 3 and info.max_cn_per_leaf == 4
    assert len(info.ca_order) == 12 and info.ca_order.count(None) == 1
    assert sorted(x for x in info.ca_order if x is not None) == sorted(r.lids.ca_lid.tolist())


# ------------------------------------------------------------------ fast walk = reference walk


def sibling_tree() -> str:
    """4 leaves x 3 spines, two cables per leaf-spine pair (2-port groups), and two
    leaf-leaf cables (sibling groups): the walk's general, unbatched paths."""
    net = Net()
    leaf = [net.switch(f"leaf{i + 1}", 12) for i in range(4)]
    spine = [net.switch(f"spine{j + 1}", 8) for j in range(3)]
    for i, lf in enumerate(leaf):
        for h in range(3):
            net.link(lf, h + 1, net.ca(f"h{3 * i + h + 1}"), 1)
        for j, sp in enumerate(spine):
            for k in range(2):
                net.link(lf, 4 + 2 * j + k, sp, 2 * i + k + 1)
    net.link(leaf[0], 10, leaf[1], 10)
    net.link(leaf[2], 10, leaf[3], 10)
    return net.text()


@pytest.mark.parametrize("build", [
    lambda: k_ary_fat_tree(8),                                     # batched claims, slices
    lambda: fat_tree(levels=2, radix=8, hosts=11),                 # dummy CNs
    lambda: fat_tree(levels=3, radix=4, parallel=2),               # multi-port groups
    lambda: loads(sibling_tree(), "t.net", dialect=sniff(sibling_tree())),
], ids=["k8", "fat2-h11", "fat3-par2", "siblings"])
def test_fast_walk_equals_reference_walk(build):
    from fabricviz.ib import ftree, ftree_route
    from fabricviz.ib.lids import assign_lids
    from fabricviz.ib.subnet import discover, switch_distances
    sn = discover(build())
    lids = assign_lids(sn)
    dist = switch_distances(sn)
    fast, ref = ftree.build_ftree(sn, lids, dist), ftree.build_ftree(sn, lids, dist)
    lft, order = ftree_route.route_tree(fast, lids)
    lft_ref, order_ref = ftree.route_tree_reference(ref, lids)
    assert order == order_ref
    assert np.array_equal(lft, lft_ref)
    assert (lft != NO_PATH).sum() > sn.num_switches * len(order)   # routed, not empty


# ------------------------------------------------------------------ property: up*/down* only


def _check_updown(r) -> int:
    """Every CA LID is reached from every switch, up then down only. Returns routes walked."""
    sn, rank = r.subnet, r.info.ranks
    walked = 0
    for j, lid in enumerate(r.lids.ca_lid.tolist()):
        target = int(sn.ca_sw[j])
        for s in range(sn.num_switches):
            path, cur = [s], s
            while True:
                p = int(r.lft[cur, lid])
                assert p != NO_PATH, f"{sn.switch_name(cur)} has no route to LID {lid}"
                nxt = int(sn.nbr_sw[cur, p])
                if nxt < 0:
                    assert cur == target and int(sn.nbr_port[cur, p]) == int(
                        r.subnet.fabric.ports_t.num[sn.ca_ports[j]])
                    break
                path.append(nxt)
                assert len(path) <= 2 * len(r.info.roots) + 16, "routing loop"
                cur = nxt
            ranks = [int(rank[x]) for x in path]
            down = False
            for a, b in zip(ranks, ranks[1:], strict=False):
                assert a != b, f"sibling hop on {path}"
                down = down or b > a
                assert not (down and b < a), f"down then up: {[sn.switch_name(x) for x in path]}"
            walked += 1
    return walked


@pytest.mark.parametrize("build", [
    lambda: k_ary_fat_tree(4), lambda: k_ary_fat_tree(8),
    lambda: fat_tree(levels=2, radix=8, hosts=14, parallel=2),
    lambda: rail_optimized(1),
])
def test_routes_go_up_then_down(build):
    r = route(build(), "ftree")
    assert r.routed_by == "ftree"
    assert _check_updown(r) == r.subnet.num_switches * len(r.lids.ca_lid)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(levels=st.sampled_from([2, 3]), radix=st.sampled_from([4, 6, 8]),
       fill=st.floats(0.2, 1.0), parallel=st.sampled_from([1, 2]))
def test_property_generated_fat_trees(levels, radix, fill, parallel):
    try:
        plan = plan_fat_tree(levels, radix, parallel=parallel)
    except FabricError:
        return
    f = fat_tree(levels=levels, radix=radix, hosts=max(2, int(plan.max_hosts * fill)), parallel=parallel)
    r = route(f, "ftree")
    if r.routed_by != "ftree":                       # a partly filled 3-level tree may not validate
        assert r.fallback_reason.startswith("ftree: ")
        return
    _check_updown(r)
    own = r.lids.sw_lid
    assert (r.lft[np.arange(len(own)), own] == 0).all()


# ------------------------------------------------------------------ live OpenSM


@pytest.mark.parametrize("case", list(CASES) + list(LIVE_ONLY))
@pytest.mark.oracle
def test_live_opensm_matches_fixture_and_us(case, tmp_path):
    reason = oracle.opensm_available()
    if reason:
        pytest.skip(reason)
    build, args, lmc = {**CASES, **LIVE_ONLY}[case]
    text = build()
    res = oracle.run_opensm(text, "ftree", tmp_path / case, extra_args=args)
    r, compared, diff = compare(text, res, lmc)
    assert r.routed_by == res.routed_by
    assert _without_names(r.fallback_reason) == res.fallback_reason
    assert diff == [], f"{len(diff)}/{compared} entries differ: {diff[:5]}"
    fixture = DATA / f"ftree-{case}"
    if fixture.is_dir():                             # the saved answer is still OpenSM's answer
        saved = oracle.load_fixture(fixture)
        assert (fixture / "topology.net").read_text() == text
        assert saved.fallback_reason == res.fallback_reason
        assert saved.lfts == res.lfts or (not saved.lfts and res.routed_by != "ftree")


def regenerate() -> None:
    """Run OpenSM on every case and save tests/data/opensm/ftree-<case>/."""
    import tempfile
    reason = oracle.opensm_available()
    if reason:
        raise SystemExit(reason)
    with tempfile.TemporaryDirectory() as tmp:
        for case, (build, args, lmc) in CASES.items():
            text = build()
            res = oracle.run_opensm(text, "ftree", Path(tmp) / case, extra_args=args)
            out = DATA / f"ftree-{case}"
            oracle.save_fixture(res, out)
            if res.routed_by != "ftree" and (out / oracle.LFTS_DUMP).exists():
                (out / oracle.LFTS_DUMP).unlink()    # minhop's tables: not what this file tests
            r, compared, diff = compare(text, res, lmc)
            print(f"{case}: OpenSM {res.routed_by}; ours {r.routed_by}; "
                  f"{compared - len(diff)}/{compared} identical; {res.fallback_reason or ''}")


if __name__ == "__main__":
    regenerate()
