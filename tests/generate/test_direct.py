"""Direct networks: torus / mesh / ring and dragonfly counts, ports, refusals, groups, layout,
file round trips and the CLI (minhop on a torus has a credit loop)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from fabricviz.anim.lessons import parse_lesson
from fabricviz.cli import main
from fabricviz.formats.ibnetdiscover import loads as load_ibnetdiscover
from fabricviz.formats.ibnetdiscover_export import export_ibnetdiscover
from fabricviz.formats.native import fabric_from_dict, fabric_to_dict, save_fabric
from fabricviz.generate import dragonfly, ring, torus
from fabricviz.generate.direct import plan_dragonfly, plan_torus
from fabricviz.generate.geometry import device_rects
from fabricviz.generate.groups import find_groups
from fabricviz.ib.tiers import switch_mask
from fabricviz.model import FabricError


def switch_links(f):
    """(a, b) switch device ids of every switch-to-switch cable."""
    ct, pt = f.cables_t, f.ports_t
    c = f.cable_ids()
    a, b = pt.device[ct.port_a[c]].astype(np.int64), pt.device[ct.port_b[c]].astype(np.int64)
    sw = switch_mask(f)
    keep = sw[a] & sw[b]
    return a[keep], b[keep]


def degrees(f):
    a, b = switch_links(f)
    deg = np.bincount(np.concatenate([a, b]), minlength=f.devices_t.n)
    return Counter(deg[switch_mask(f)].tolist())


def peer_name(f, switch, num):
    p = f.port_id(switch, num)
    return f.name_of(int(f.ports_t.device[f._peer(p)]))


@pytest.mark.parametrize("build,switches,links,degree", [
    (lambda: torus((4, 4)), 16, 32, {4: 16}),
    (lambda: torus("4x4", wrap=False), 16, 24, {2: 4, 3: 8, 4: 4}),      # corners, edges, inside
    (lambda: torus((3, 3, 3)), 27, 81, {6: 27}),
    (lambda: ring(8), 8, 8, {2: 8}),
    (lambda: torus((2, 4)), 8, 12, {3: 8}),         # size-2 rule: the x pair cabled once, not twice
    (lambda: torus((4, 4), links_per_neighbour=2, hosts_per_switch=3), 16, 64, {8: 16}),
])
def test_torus_counts_and_degrees(build, switches, links, degree):
    f = build()
    c = f.counts()
    hosts = c["nic"]
    assert c["ib_switch"] == switches
    assert c["cables"] == links + hosts
    assert len(switch_links(f)[0]) == links
    assert dict(degrees(f)) == degree
    assert f.meta["generator"] == "torus"


def test_torus_ports_names_and_meta():
    f = torus((4, 4))
    # torus ports first: x−, x+, y−, y+; then the host port
    assert [peer_name(f, "sw-1-2", n) for n in (1, 2, 3, 4)] == ["sw-0-2", "sw-2-2", "sw-1-1", "sw-1-3"]
    assert [peer_name(f, "sw-0-0", n) for n in (1, 3)] == ["sw-3-0", "sw-0-3"]       # wrap-around
    assert f.device("node01").kind == "server"
    assert f.name_of(int(f.devices_t.parent[f.ports_t.device[f._peer(f.port_id("sw-0-0", 5))]])) == "node01"
    assert f.device("sw-0-0").part_id == "QM9700"
    assert f.meta["params"] == {"dims": [4, 4], "hosts_per_switch": 1, "links_per_neighbour": 1, "wrap": True,
                                "speed": "4xNDR", "switch": "QM9700", "servers": "node"}
    assert f.name == "torus-4x4" and ring(8).name == "ring-8" and torus((4, 4), wrap=False).name == "mesh-4x4"
    big = torus((12, 3))
    assert big.find("sw-11-2") is not None and big.find("sw-03-1") is not None   # padded per dimension
    # a mesh's edge switch leaves its missing neighbours' ports free
    m = torus((4, 4), wrap=False)
    assert m.ports_t.cable[m.port_id("sw-0-0", 1)] < 0 and peer_name(m, "sw-0-0", 2) == "sw-1-0"
    roce = torus((3, 3), fabric="roce")
    assert roce.device("sw-0-0").part_id == "SN5400" and str(roce.cable_rate(int(roce.cable_ids()[-1]))) == "400GbE"


def test_dragonfly_counts_global_arrangement_and_groups():
    f = dragonfly(9, 4, 2, 2)
    assert f.counts() == {"server": 72, "gpu": 72, "nic": 72, "ib_switch": 36, "eth_switch": 0, "cables": 162}
    a, b = switch_links(f)
    group_of = {int(d): int(f.name_of(int(d)).split("-")[0][1:]) for d in np.flatnonzero(switch_mask(f))}
    ga, gb = np.array([group_of[int(x)] for x in a]), np.array([group_of[int(x)] for x in b])
    assert int((ga == gb).sum()) == 54 and int((ga != gb).sum()) == 36
    pairs = Counter(tuple(sorted(p)) for p in zip(ga[ga != gb].tolist(), gb[ga != gb].tolist(), strict=True))
    assert set(pairs) == set(itertools.combinations(range(1, 10), 2)) and set(pairs.values()) == {1}
    assert dict(degrees(f)) == {5: 36}                           # 3 in the group + 2 global
    # consecutive arrangement: group 1's global ports, router by router, go to groups 2, 3, ... 9
    assert [peer_name(f, f"g1-r{r}", n)[:2] for r in (1, 2, 3, 4) for n in (6, 7)] == [
        f"g{k}" for k in range(2, 10)]
    assert f.meta["balanced"] is True and f.meta["arrangement"] == "consecutive"
    g = find_groups(f)
    assert g.names == tuple(f"group {i}" for i in range(1, 10)) and set(g.kinds) == {"pod"}
    members = [g.members(i) for i in range(9)]
    assert [len(m) for m in members] == [4 + 8] * 9             # 4 routers, 8 servers
    assert {f.name_of(int(d)) for d in members[1] if switch_mask(f)[d]} == {"g2-r1", "g2-r2", "g2-r3", "g2-r4"}
    # fewer groups: the 8 global ports of a group go round the 4 others twice
    small = dragonfly(5, 4, 2, 2)
    a, b = switch_links(small)
    gs = {int(d): small.name_of(int(d))[:2] for d in np.flatnonzero(switch_mask(small))}
    glob = Counter(tuple(sorted((gs[int(x)], gs[int(y)]))) for x, y in zip(a, b, strict=True) if gs[int(x)] != gs[int(y)])
    assert len(glob) == 10 and set(glob.values()) == {2}
    assert plan_dragonfly(5, 4, 2, 2).links_per_group_pair == 2 and not plan_dragonfly(5, 4, 1, 1).balanced


def test_stored_groups_give_way_to_the_graph_when_the_design_changes():
    f = torus((3, 3, 3))
    assert find_groups(f).names == ("plane z=0", "plane z=1", "plane z=2")
    f.rename(f.find("sw-1-1-1"), "middle")
    assert find_groups(f).names == ("pod 1",)                   # inferred again: one component
    assert find_groups(torus((4, 4))).names == ("pod 1",)


@pytest.mark.parametrize("call,message", [
    (lambda: plan_torus((4, 1)), "dims 4x1: every dimension needs at least 2 switches"),
    (lambda: plan_torus((2, 2, 2, 2)), "dims 2x2x2x2: 1 to 3 dimensions (a ring, a 2-D or a 3-D torus)"),
    (lambda: plan_torus("4 by 4"), "dims '4 by 4': switches per dimension, e.g. 8, 4x4 or 4x4x4"),
    (lambda: plan_torus((4, 4), hosts_per_switch=0), "hosts per switch 0: must be at least 1"),
    (lambda: plan_torus((4, 4), links_per_neighbour=0), "links per neighbour 0: must be at least 1"),
    (lambda: torus((4, 4), hosts_per_switch=40, switch="SB7800"),
     "switch part SB7800: SB7800 has 36 ports, a switch here needs 44 (40 host + 4 torus ports)"),
    (lambda: torus((4, 4), hosts_per_switch=141), "no ib switch in the catalog has 145 ports at 4xNDR"),
    (lambda: torus((4, 4), fabric="roce", speed="4xNDR"), "speed 4xNDR is not a RoCE/Ethernet speed"),
    (lambda: torus((4, 4), servers="dgx", hosts_per_switch=4), "it must be a multiple of 8"),
    (lambda: torus((200, 200), hosts_per_switch=2), "49,151 unicast LIDs"),
    (lambda: dragonfly(9, 4, 2, 1), "groups 9: a group of 4 routers × 1 global link reaches at most 5 groups"),
    (lambda: dragonfly(4, 4, 2, 2), "groups 4: the 8 global links of a group cannot be spread evenly over "
                                    "the 3 other groups; with 4 routers × 2 global links use 2, 3, 5, 9 groups"),
    (lambda: dragonfly(9, 4, 1, 2, balanced=True), "a balanced dragonfly has a = 2p = 2h (for 4 routers: "
                                                   "2 hosts and 2 global links)"),
    (lambda: dragonfly(1, 4, 2, 2), "groups 1: must be at least 2"),
])
def test_refusals_say_why(call, message):
    with pytest.raises(FabricError) as e:
        call()
    assert message in str(e.value)


def rects(f):
    t = f.devices_t
    tops = np.flatnonzero(t.alive & (t.parent < 0))
    return tops, device_rects(f, tops)


@pytest.mark.parametrize("build", [lambda: torus((4, 4)), lambda: torus((4, 4), wrap=False),
                                   lambda: torus((3, 3, 3)), lambda: ring(8), lambda: ring(3),
                                   lambda: torus((4, 4), hosts_per_switch=5), lambda: dragonfly(9, 4, 2, 2),
                                   lambda: torus((2, 2, 2), servers="dgx", hosts_per_switch=8)])
def test_layout_is_screen_shaped_and_nothing_overlaps(build):
    f = build()
    _, r = rects(f)
    w, h = r[2].max() - r[0].min(), r[3].max() - r[1].min()
    assert 0.5 <= w / h <= 3.0
    lo = np.maximum(r[:2, :, None], r[:2, None, :])              # intersection of every pair
    hi = np.minimum(r[2:, :, None], r[2:, None, :])
    overlap = (hi[0] - lo[0] > 0) & (hi[1] - lo[1] > 0)
    np.fill_diagonal(overlap, False)
    assert not overlap.any()


def test_round_trip_native_and_ibnetdiscover():
    f = dragonfly(5, 4, 2, 2)
    back = fabric_from_dict(fabric_to_dict(f))
    assert back == f and back.meta["groups"] == f.meta["groups"]
    assert find_groups(back).names == tuple(f"group {i}" for i in range(1, 6))
    t = torus((4, 4))
    imported = load_ibnetdiscover(export_ibnetdiscover(t))
    assert imported.counts()["ib_switch"] == 16 and imported.counts()["nic"] == 16
    assert imported.counts()["cables"] == 48
    assert dict(degrees(imported)) == {4: 16}
    assert sorted(imported.name_of(int(d)) for d in imported.device_ids("ib_switch")) == sorted(
        t.name_of(int(d)) for d in t.device_ids("ib_switch"))


def test_cli_generate_route_and_credit_loop(tmp_path, capsys):
    out = tmp_path / "t.json"
    assert main(["generate", "torus", "--dims", "4x4", "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip().endswith("16 servers, 16 GPUs, 16 NICs, 16 switches, 48 cables")
    assert main(["route", str(out), "--engine", "minhop"]) == 0
    assert "routed by minhop" in capsys.readouterr().out
    assert main(["check-loops", str(out), "--engine", "minhop"]) == 1     # minhop on a torus: a credit loop
    assert "credit loop over" in capsys.readouterr().out
    assert main(["info", str(out)]) == 0
    assert "16 ib_switch" in capsys.readouterr().out
    for args, counts in ((["ring", "--switches", "8", "--mesh"], "8 switches, 15 cables"),
                         (["dragonfly", "--groups", "9", "--routers", "4", "--hosts", "2", "--global-links", "2"],
                          "36 switches, 162 cables"),
                         (["torus", "--dims", "3x3x3", "--fabric", "roce"], "27 switches, 108 cables")):
        assert main(["generate", *args, "-o", str(out)]) == 0
        assert capsys.readouterr().out.strip().endswith(counts)
    assert main(["generate", "dragonfly", "--groups", "9", "--routers", "4", "--hosts", "2", "-o", str(out)]) == 2
    assert "g ≤ a·h + 1" in capsys.readouterr().err


def test_lessons_can_name_the_direct_generators(tmp_path):
    lesson = parse_lesson({"format": "fabricviz-lesson", "version": 1, "name": "torus", "title": "A torus",
                           "fabric": {"generator": "torus", "args": {"dims": [4, 4]}},
                           "steps": [{"action": "route", "title": "Route", "say": "minhop"}]})
    f = lesson.build_fabric()
    assert f.counts()["ib_switch"] == 16 and lesson.build_fabric("roce").counts()["eth_switch"] == 16
    save_fabric(f, tmp_path / "l.json")
