"""Generator counts against the fat-tree formulas, refusals, tiers and positions."""

import numpy as np
import pytest

from fabricviz.check.info import fabric_info
from fabricviz.generate import fat_tree, k_ary_fat_tree, leaf_spine, plan_fat_tree, rail_optimized
from fabricviz.model import FabricError


def switches(f):
    c = f.counts()
    return c["ib_switch"] + c["eth_switch"]


def tier_counts(f):
    t = f.devices_t
    sw = np.isin(t.kind, [3, 4]) & t.alive
    return np.bincount(t.tier[sw], minlength=4)[1:].tolist()


def test_k8_fat_tree_128_hosts_80_switches():
    f = k_ary_fat_tree(8)
    c = f.counts()
    assert (c["nic"], c["gpu"], c["server"]) == (128, 128, 128)
    assert switches(f) == 80
    assert tier_counts(f) == [32, 32, 16]               # edge, aggregation, core
    assert c["cables"] == 128 * 3                       # hosts, edge-agg, agg-core
    info = fabric_info(f)
    assert info["diameter_switch_hops"] == 5
    assert info["oversubscription"] == {"leaf": "1:1", "spine": "1:1"}
    assert info["bisection_gbps"] == 64 * 400.0         # hosts/2 × 400 Gb/s
    # every switch uses exactly its radix of ports: 8
    pt = f.ports_t
    sw_ports = np.isin(f.devices_t.kind[pt.device], [3])
    used = np.bincount(pt.device[sw_ports & (pt.cable >= 0)])
    assert set(used[used > 0].tolist()) == {8}


def test_radix64_two_levels_2048_hosts():
    plan = plan_fat_tree(2, 64)
    assert (plan.hosts, plan.leaves, plan.spines, plan.switches) == (2048, 64, 32, 96)
    f = fat_tree(levels=2, radix=64)
    assert f.counts()["nic"] == 2048 and switches(f) == 96
    assert tier_counts(f) == [64, 32, 0]
    assert f.device("leaf01").part_id == "QM9700"


def test_radix64_three_levels_counts_and_ib_refusal():
    plan = plan_fat_tree(3, 64)
    assert (plan.hosts, plan.switches) == (65536, 5120)
    assert (plan.leaves, plan.spines, plan.cores) == (2048, 2048, 1024)
    with pytest.raises(FabricError) as e:
        fat_tree(levels=3, radix=64, fabric="ib")
    assert "49,151 unicast LIDs" in str(e.value) and "70,656 LIDs" in str(e.value)


@pytest.mark.slow
def test_radix64_three_levels_roce_builds():
    f = fat_tree(levels=3, radix=64, fabric="roce")
    assert f.counts()["nic"] == 65536 and switches(f) == 5120
    assert f.counts()["cables"] == 65536 * 3


def test_hosts_over_radix_refused():
    with pytest.raises(FabricError) as e:
        fat_tree(levels=2, radix=64, hosts=2049)
    assert str(e.value) == ("2,049 hosts exceed the 2,048 that a 2-level fat tree of radix-64 switches "
                            "at 32:32 with 1 parallel link(s) (64 leaves × 32 host ports) allows")


def test_blocking_and_parallel_links():
    plan = plan_fat_tree(2, 64, blocking="3:1")
    assert (plan.down, plan.up, plan.hosts, plan.spines) == (48, 16, 3072, 16)
    plan = plan_fat_tree(2, 64, blocking="2:1")             # 42 down / 22 up as in the reference
    assert (plan.down, plan.up, plan.hosts) == (42, 22, 2688)
    plan = plan_fat_tree(2, 36, hosts=18 * 4, parallel=2)   # PGFT: 2 links per leaf-spine pair
    assert (plan.leaves, plan.spines, plan.max_hosts) == (4, 9, 18 * 18)
    f = fat_tree(levels=2, radix=36, hosts=72, parallel=2, speed="4xNDR")
    leaf = f.device("leaf01")
    peers = [p.peer.device.name for p in leaf.ports[18:36]]
    assert peers == [f"spine{j:02d}" for j in range(1, 10) for _ in range(2)]
    info = fabric_info(f)
    assert info["oversubscription"]["leaf"] == "1:1"
    with pytest.raises(FabricError, match="groups of 4"):
        plan_fat_tree(2, 36, parallel=4)


def test_three_level_partial_tree_and_blocking_info():
    f = fat_tree(levels=3, radix=8, hosts=40, blocking="3:1")   # 6 host ports, 2 up per leaf
    assert f.counts()["nic"] == 40
    info = fabric_info(f)
    assert info["oversubscription"]["leaf"] == "3:1"
    assert info["requested_oversubscription"] == {"leaf": "3:1"}


def test_dgx_servers_keep_host_port_count():
    f = fat_tree(levels=2, radix=64, hosts=256, servers="dgx")
    c = f.counts()
    assert (c["server"], c["gpu"], c["nic"]) == (32, 256, 256)
    assert c["cables"] == 256 + 8 * 32
    with pytest.raises(FabricError, match="multiple of the 8 NIC ports"):
        fat_tree(levels=2, radix=64, hosts=250, servers="dgx")


def test_leaf_spine_roce():
    f = leaf_spine(leaves=8, spines=4, hosts_per_leaf=24, uplinks=8)
    c = f.counts()
    assert (c["eth_switch"], c["ib_switch"], c["nic"]) == (12, 0, 192)
    assert c["cables"] == 192 + 8 * 8
    info = fabric_info(f)
    assert info["oversubscription"] == {"leaf": "3:1"}
    assert info["diameter_switch_hops"] == 3
    assert str(f.device("leaf01").ports[0].cable.rate) == "400GbE"
    f2 = leaf_spine(leaves=8, spines=4, hosts_per_leaf=24, oversubscription="3:1")
    assert f2.meta["params"]["uplinks"] == 8
    with pytest.raises(FabricError, match="multiple of 4"):
        leaf_spine(leaves=8, spines=4, hosts_per_leaf=24, uplinks=6)


def test_leaf_spine_super_spine():
    f = leaf_spine(leaves=4, spines=2, hosts_per_leaf=8, uplinks=4, super_spines=4, pods=3)
    c = f.counts()
    assert c["eth_switch"] == 3 * (4 + 2) + 4 and c["nic"] == 96
    assert tier_counts(f) == [12, 6, 4]
    assert fabric_info(f)["oversubscription"] == {"leaf": "2:1", "spine": "2:1"}
    assert fabric_info(f)["diameter_switch_hops"] == 5


def test_rail_optimized_unit():
    f = rail_optimized(units=1)
    c = f.counts()
    assert (c["server"], c["gpu"], c["nic"]) == (32, 256, 256)
    assert (c["ib_switch"]) == 8 + 4
    # NIC i of every node is on rail i
    for node in ("su1-dgx01", "su1-dgx32"):
        for i, nic in enumerate(f.device(node).nics):
            assert nic.ports[0].peer.device.name == f"su1-rail{i}"
    assert c["cables"] == 256 + 8 * 32
    f2 = rail_optimized(units=4)
    assert f2.counts()["ib_switch"] == 32 + 16                  # NVIDIA RA: 4 SU = 32 leaf + 16 spine
    with pytest.raises(FabricError, match="take 1, 2, 4, 8 units"):
        rail_optimized(units=3)


def test_positions_are_the_auto_layout():
    f = fat_tree(levels=3, radix=4)                  # 4 pods of 2 leaves + 2 aggregation switches
    t = f.devices_t
    y_by_tier = {tier: set(t.y[t.tier == tier].tolist()) for tier in (1, 2, 3)}
    # one row per tier: the 4 pods side by side, the cores above them
    assert all(len(v) == 1 for v in y_by_tier.values())
    assert min(y_by_tier[1]) > min(y_by_tier[2]) > min(y_by_tier[3])
    servers = f.device_ids("server")
    assert (t.y[servers] > min(y_by_tier[1])).all()
    # hosts sit under their leaf: a leaf's x is the mean of its hosts'
    leaf = f.device("leaf01")
    hx = [p.peer.device.x for p in leaf.ports[:2]]
    assert leaf.x == pytest.approx(np.mean(hx))
    assert [f.device(f"leaf0{i}").x < f.device(f"leaf0{i + 1}").x for i in range(1, 8)] == [True] * 7


@pytest.mark.parametrize("bad,msg", [
    (dict(levels=4, radix=8), "2 or 3 switch levels"),
    (dict(levels=2, radix=7), "even number"),
    (dict(levels=2, radix=8, blocking="x"), "DOWN:UP"),
    (dict(levels=2, radix=8, hosts=0), "at least one host"),
    (dict(levels=2, radix=8, fabric="fc"), "use ib or roce"),
])
def test_refusals_say_why(bad, msg):
    with pytest.raises(FabricError, match=msg):
        fat_tree(**bad)
