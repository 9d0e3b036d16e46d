"""Groups (pods, SUs, racks, the top tier), host blocks and cable bundles found from the graph."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree, k_ary_fat_tree, leaf_spine, rail_optimized
from fabricviz.generate.groups import bundle, cable_gbps, cable_tops, find_groups
from fabricviz.model import Fabric


def _switch_counts(f: Fabric, g) -> list[int]:
    sw = (g.tier >= 1) & g.top_level
    return [int(((g.group == i) & sw).sum()) for i in range(g.n_groups)]


def test_three_level_fat_tree_pods_and_cores():
    f = k_ary_fat_tree(8)                        # 8 pods of 4 leaves + 4 aggregation switches, 16 cores
    g = find_groups(f)
    assert g.top_tier == 3
    assert g.names == tuple(f"pod {i}" for i in range(1, 9)) + ("16 cores",)
    assert g.kinds == ("pod",) * 8 + ("top",)
    assert _switch_counts(f, g) == [8] * 8 + [16]
    # every server is in the pod of its leaf; its block is its leaf (4 hosts a leaf)
    assert g.n_blocks == 32 and g.block_size.tolist() == [4] * 32
    _, a, b = cable_tops(f)
    t = f.devices_t
    host = (t.kind[a] == 0)
    assert (g.group[a[host]] == g.group[b[host]]).all()
    # GPUs and NICs take their server's group
    kids = np.flatnonzero(t.alive & (t.parent >= 0))
    assert (g.group[kids] == g.group[t.parent[kids]]).all()


def test_bundles_between_pods_and_cores_count_and_capacity():
    f = k_ary_fat_tree(8)
    g = find_groups(f)
    bs = bundle(f, g.group)
    assert len(bs) == 8                          # each pod to the core tier; pod-internal cables in none
    assert bs.count.tolist() == [16] * 8         # 4 aggregation switches × 4 uplinks
    assert bs.label(0) == "16 × 400G"
    cids, a, b = cable_tops(f)
    core = g.n_groups - 1
    for k in range(len(bs)):
        pod = int(bs.a[k])
        assert int(bs.b[k]) == core
        direct = cids[((g.group[a] == pod) & (g.group[b] == core)) | ((g.group[b] == pod) & (g.group[a] == core))]
        assert sorted(bs.members(k).tolist()) == sorted(direct.tolist())
        assert bs.gbps[k] == pytest.approx(cable_gbps(f, direct).sum())
    inside = bs.of_cable < 0
    assert int(inside.sum()) == len(cids) - 128   # 128 pod-to-core cables are bundled


def test_switch_level_bundles_merge_parallel_links():
    f = fat_tree(levels=2, radix=8, parallel=2)      # each leaf reaches 2 spines by 2 links each
    g = find_groups(f)
    node = np.where(g.tier >= 1, np.arange(f.devices_t.n), -1)
    bs = bundle(f, node)
    assert set(bs.count.tolist()) == {2}
    assert bs.label(0) == "2 × 400G"


def test_reduce_hottest_and_mean_ignore_missing():
    f = k_ary_fat_tree(4)
    g = find_groups(f)
    bs = bundle(f, g.group)
    values = np.full(len(bs.cable_ids), np.nan)
    m0 = bs.members(0)
    pos = {int(c): i for i, c in enumerate(bs.cable_ids)}
    values[pos[int(m0[0])]] = 0.25
    values[pos[int(m0[1])]] = 0.75
    hot = bs.reduce(values, "max")
    mean = bs.reduce(values, "mean")
    assert hot[0] == 0.75 and mean[0] == 0.5
    assert np.isnan(hot[1:]).all() and np.isnan(mean[1:]).all()
    with pytest.raises(ValueError):
        bs.reduce(values, "median")


def test_rail_optimised_units_are_pods_with_one_block_each():
    f = rail_optimized(4)
    g = find_groups(f)
    assert g.names == ("su1", "su2", "su3", "su4", "16 spines")
    assert _switch_counts(f, g) == [8, 8, 8, 8, 16]
    assert g.n_blocks == 4 and g.block_size.tolist() == [32] * 4
    assert g.block_names == ("su1", "su2", "su3", "su4")
    assert [bundle(f, g.group).label(k) for k in range(4)] == ["256 × 400G"] * 4


def test_leaf_spine_racks_and_super_spine_pods():
    f = leaf_spine(16, 8, 16)
    g = find_groups(f)
    assert g.kinds == ("rack",) * 16 + ("top",)
    assert g.names[0] == "rack leaf01" and g.names[-1] == "8 spines"
    assert g.block_size.tolist() == [16] * 16
    f = leaf_spine(8, 4, 8, super_spines=2, pods=2)
    g = find_groups(f)
    assert g.names == ("pod1", "pod2", "2 superspines")
    assert _switch_counts(f, g) == [12, 12, 2]


def test_empty_and_switchless_designs():
    f = Fabric()
    g = find_groups(f)
    assert g.n_groups == 0 and g.top_tier == 0 and len(bundle(f, g.group)) == 0
    f.add_servers("NODE-1G-NDR", ["lonely"], [0.0], [0.0])
    g = find_groups(f)
    assert g.names == ("hosts (1)",)


def test_imported_adapters_are_hosts_and_a_servers_adapters_one_block():
    from fabricviz.formats.ibnetdiscover import loads
    from fabricviz.formats.ibnetdiscover_export import export_ibnetdiscover
    from fabricviz.generate.groups import MAX_ADAPTERS, host_systems
    f = loads(export_ibnetdiscover(rail_optimized(4)), "rail4.ibnetdiscover")   # CAs "su1-dgx01 mlx5_0"
    # the import groups each DGX's eight HCAs into one server (fabricviz.generate.hosts), as generated
    assert f.counts()["server"] == 128 and f.counts()["nic"] == 1024
    g = find_groups(f)
    assert g.names == ("su1", "su2", "su3", "su4", "16 spines")
    assert g.block_size.tolist() == [32] * 4 and g.block_names == ("su1", "su2", "su3", "su4")
    assert g.block_hosts.tolist() == [32] * 4
    from fabricviz.ui.canvas.items.box_labels import _hosts_text
    assert _hosts_text(g, 0) == "32 hosts"
    # loose adapters named "<host> <adapter>" (a hand-made design) are still one system
    loose = Fabric()
    ids = loose.add_devices("nic", 8, "CX7-1P", [f"su2-dgx05 mlx5_{i}" for i in range(8)], 0.0, 0.0)
    system = host_systems(loose, np.isin(np.arange(loose.devices_t.n), ids))
    assert len(np.unique(system[ids])) == 1
    assert system[loose.find("su2-dgx05 mlx5_7")] == loose.find("su2-dgx05 mlx5_0")
    # one adapter a host (node001 mlx5_0 …): each its own server, a block per leaf
    k8 = loads(export_ibnetdiscover(k_ary_fat_tree(8)), "k8.ibnetdiscover")
    g8 = find_groups(k8)
    assert g8.n_blocks == 32 and g8.block_size.tolist() == [4] * 32 and g8.kinds == ("pod",) * 8 + ("top",)
    assert g8.block_hosts.tolist() == [4] * 32
    # more adapters under one host word than a server has: not one server
    many = Fabric()
    ids = many.add_devices("nic", MAX_ADAPTERS + 1, "CX7-1P", [f"localhost HCA-{i}" for i in range(17)], 0.0, 0.0)
    assert (host_systems(many, np.isin(np.arange(many.devices_t.n), ids))[ids] == ids).all()


def test_default_hca_descriptions_are_not_one_server():
    """Unconfigured HCAs all read "MT4123 ConnectX6 Mellanox Technologies": each is its own host,
    so a 3-level radix-4 tree (16 HCAs) imports as 4 pods, not one."""
    import re

    from fabricviz.formats.ibnetdiscover import loads
    from fabricviz.formats.ibnetdiscover_export import export_ibnetdiscover
    text = export_ibnetdiscover(fat_tree(3, 4))
    text, n = re.subn(r'"node\d+ mlx5_0"', '"MT4123 ConnectX6 Mellanox Technologies"', text)
    assert n == 32                               # each HCA: its switch port line and its own
    f = loads(text, "k4-default.ibnetdiscover")
    g = find_groups(f)
    assert g.names == ("pod 1", "pod 2", "pod 3", "pod 4", "4 cores")
    assert g.n_blocks == 8 and g.block_size.tolist() == [2] * 8


def test_adapters_in_different_switch_islands_are_not_one_server():
    from fabricviz.generate.groups import host_systems, switch_components
    f = Fabric()
    for s in ("swa", "swb"):
        f.add_device("ib_switch", "QM9700", name=s)
    for i, s in enumerate(("swa", "swa", "swb")):
        f.add_device("nic", "CX7-1P", name=f"dgx01 mlx5_{i}")
        f.add_cable(f"dgx01 mlx5_{i}:1", f"{s}:{i + 1}")
    f.add_device("nic", "CX7-1P", name="dgx02 mlx5_0 extra")      # not an adapter name
    f.add_cable("dgx02 mlx5_0 extra:1", "swb:9")
    comp = switch_components(f)
    assert comp[f.find("swa")] != comp[f.find("swb")]
    nics = f.device_ids("nic")
    system = host_systems(f, np.isin(np.arange(f.devices_t.n), nics))
    a0, a1, b2, x = (f.find(n) for n in ("dgx01 mlx5_0", "dgx01 mlx5_1", "dgx01 mlx5_2", "dgx02 mlx5_0 extra"))
    assert system[a1] == a0 and system[a0] == a0
    assert system[b2] == b2 and system[x] == x
