"""Tree all-reduce as NCCL's double binary tree per NIC channel, and broadcast per channel
(fabricviz.sim.collective_plan), with hand-derived numbers.

Designs: single-GPU NDR nodes or DGX H100s on one QM9700 (2 m cables). A 4 KiB packet's α over
GPU → NIC → switch → NIC → GPU: PCIe 2·400 + NIC 2·300 + cables 2·10 + switch 200 = 1620 ns, plus
4 KiB serialized on both PCIe hops (440 Gb/s) and the NIC's 400 Gb/s link, plus a 64 B header
through the cut-through switch. NVLink (a DGX H100's HGX-H100-8 domain: 18 links at NCCL's usable
20.6 GB/s, 2966.4 Gb/s a direction): 500 ns + 4 KiB at that rate.
β: a fabric transfer's payload at its max-min rate × EFF (4096 payload bytes a 4122-byte InfiniBand
packet), an NVLink transfer's at its rate; the bottleneck's rate is the wire's.
A DGX H100 carries its compute NICs two to a twin-port OSFP cage, whose two ports go to different
switch cages: those links take twin-port optics (``NDR-TWIN-SR4``), whose catalog latency adds to
both fabric links of a hop (``ALPHA_DGX``); the single-port nodes' links take copper (no latency).
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.generate.common import add_hosts, add_switches, finish, pick_switch, switch_ports
from fabricviz.model import Catalog, Fabric, LinkRate
from fabricviz.sim.collective import Solver, collective, parse_sizes, slowest_step, wire_efficiency
from fabricviz.sim.collective_plan import btree_parents, dtree_parents, plan, tree_depth

O = 1000.0                                                       # STEP_OVERHEAD_NS
ALPHA = 1620 + 2 * 4096 * 8 / 440 + 4096 * 8 / 400 + 64 * 8 / 400   # 1852.145 ns
NVL = 18 * 20.6 * 8                                             # Gb/s: usable_gbytes(HGX-H100-8)
ALPHA_NVL = 500 + 4096 * 8 / NVL
EFF = wire_efficiency("ib")                                      # 4096 / 4122


def _one_switch(hosts: int, servers: str = "node") -> Fabric:
    f = Fabric(name=f"one-switch-{servers}")
    sw = pick_switch(f.catalog, "ib", 64, None, "4xNDR")
    h = add_hosts(f, hosts, LinkRate.parse("4xNDR"), servers)
    s = add_switches(f, sw, ["sw"], 1)
    f.add_cables(h.nic_ports, switch_ports(f, s, 1, hosts).ravel(), 2.0, emit=False)
    finish(f)
    return f


@pytest.fixture(scope="module")
def nodes4():
    return _one_switch(4)


@pytest.fixture(scope="module")
def dgx4():
    f = _one_switch(32, "dgx")
    ct = f.cables_t
    assert {f.parts.ids[int(p)] for p in ct.part[ct.alive]} == {"NDR-TWIN-SR4"}
    return f


#: α of a hop between DGX servers: ALPHA plus the twin-port optics of its two fabric links.
ALPHA_DGX = ALPHA + 2 * Catalog.default().get("NDR-TWIN-SR4").latency_ns


def test_double_binary_tree_mirrors_even_and_shifts_odd_counts():
    """Tree 0 hangs r off (r ^ b) | 2b (b: r's lowest set bit), else r ^ b; tree 1 is its mirror
    (even) or its shift by one (odd): no rank has more than two children over both trees, and with
    an even count none is interior in both (odd: only rank 0, tree 0's root with one child)."""
    assert btree_parents(13).tolist() == [-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8]
    p0, p1 = dtree_parents(4)
    assert (p0.tolist(), p1.tolist()) == ([-1, 2, 0, 2], [1, 3, 1, -1])
    p0, p1 = dtree_parents(3)
    assert (p0.tolist(), p1.tolist()) == ([-1, 2, 0], [1, -1, 0])
    assert dtree_parents(2)[1].tolist() == [1, -1]
    for m in (2, 3, 4, 12, 13, 32, 33):
        trees = dtree_parents(m)
        kids = sum(np.bincount(p[p >= 0], minlength=m) for p in trees)
        inner = [np.isin(np.arange(m), p[p >= 0]) for p in trees]
        assert kids.max() <= 2
        assert np.flatnonzero(inner[0] & inner[1]).tolist() == ([] if m % 2 == 0 else [0])
    assert [tree_depth(btree_parents(m)) for m in (1, 2, 3, 4, 13, 32)] == [0, 1, 2, 2, 4, 5]


def test_tree_on_four_single_gpu_servers_by_hand(nodes4):
    """Trees 0 ← 2 ← {1, 3} and 3 ← 1 ← {0, 2}; every edge carries half the buffer each way.
    Servers 1 and 2 each send four halves (up and two down in the tree they are inner in, up in
    the other): 100 Gb/s a transfer, and the leaves' transfers meet them at 100 too. β = 0.5 GB · 8 /
    (100 · EFF) = 40.25 ms; depth 2, so 4 hops: t = 4 · (1 µs + α) + β. busbw = 1e9/t · 6/4 =
    37.2529 GB/s, B · (n−1)/n of the NIC's 50 · EFF = 49.68 GB/s of payload (the ring: 49.6565,
    that less latency)."""
    step = plan(nodes4, "allreduce", "tree", collective(nodes4, "allreduce", [8.0]).ranks)[0]
    assert (len(step.src), step.hops, step.frac.tolist()) == (12, 4, [0.5] * 12)
    s = Solver(nodes4)
    r = collective(nodes4, "allreduce", [1e9], algo="tree", solver=s)
    t = 4 * (O + ALPHA) + 0.5e9 * 8 / (100 * EFF)
    assert r.rows[0].time_us == pytest.approx(t / 1e3, rel=1e-12)
    assert round(r.rows[0].busbw, 4) == 37.2529
    ring = collective(nodes4, "allreduce", [1e9], solver=s).rows[0]        # 6 steps of 1 GB/4
    assert ring.time_us == pytest.approx(6 * (O + ALPHA + 1e9 / 4 * 8 / (400 * EFF)) / 1e3, rel=1e-12)
    assert round(ring.busbw, 4) == 49.6565
    b = slowest_step(nodes4, r, s)                        # NIC-bound at the two inner servers
    assert (b.kind, b.rate_gbps, len(b.src)) == ("tree edge", 100.0, 12)
    assert sorted(b.link_names) == [("node02/mlx5_0", "sw"), ("node03/mlx5_0", "sw"), ("sw", "node02/mlx5_0"),
                                    ("sw", "node03/mlx5_0")]


@pytest.mark.parametrize("gpus, rate, hops, busbw", [
    ("2", 200.0, 2, 49.6705),          # each server sends two halves: the ring's 50 · EFF GB/s
    ("3", 400 / 3, 4, 44.1474),        # the shifted tree: servers 0 and 2 send three halves
])
def test_tree_on_two_and_three_servers(nodes4, gpus, rate, hops, busbw):
    r = collective(nodes4, "allreduce", [1e9], algo="tree", gpus=gpus)
    t = hops * (O + ALPHA) + 0.5e9 * 8 / (rate * EFF)
    assert r.rows[0].time_us == pytest.approx(t / 1e3, rel=1e-7)      # the water-filling's rounding at 400/3
    assert round(r.rows[0].busbw, 4) == busbw


def test_tree_on_four_dgx_runs_a_double_tree_per_nic(dgx4):
    """8 channels; channel c's trees join the servers' GPU c over NIC c, each tree carrying 1/16 of
    the buffer; inside a server a chain from GPU c. NIC c of an inner server sends four 1/16 shares:
    β = 62.5 MB · 8 / (100 · EFF) = 5.03 ms. NVLink: edge j → j±1 is in 7 of the 8 chains (7/8 of
    the buffer) and a GPU sends two of them, 1483.2 Gb/s each: 4.72 ms, not the bound. Depth 2 + a
    7-GPU chain: 18 hops. busbw = 1e9/t · 62/32 = 381.00 GB/s, by the NICs' 8 · 50 GB/s · EFF ·
    31/32 = 385.06 GB/s. The ring is bound by NVLink instead (a GPU's 18 × 20.6 GB/s: 364.27)."""
    s = Solver(dgx4)
    r = collective(dgx4, "allreduce", [1e9], algo="tree", solver=s)
    assert r.channels == 8
    t = 18 * (O + ALPHA_DGX) + 1e9 / 16 * 8 / (100 * EFF)
    assert r.rows[0].time_us == pytest.approx(t / 1e3, rel=1e-9)
    assert round(r.rows[0].busbw, 2) == 381.00
    ring = collective(dgx4, "allreduce", [1e9], solver=s).rows[0].busbw
    assert round(ring, 2) == 364.27 < r.rows[0].busbw


def test_tree_on_two_dgx_is_bound_by_the_nvlink_chain(dgx4):
    """Two servers: NIC c sends two 1/16 shares (200 Gb/s each, 2.52 ms of payload), the chains 7/8 of the
    buffer over NVLink at half a GPU's 2966.4 Gb/s: 4.72 ms, the bound. 16 hops (depth 1 + 7)."""
    r = collective(dgx4, "allreduce", [1e9], algo="tree", gpus="16")
    t = 15 * (O + ALPHA_DGX) + O + ALPHA_NVL + 7 / 8 * 1e9 * 8 / (NVL / 2)
    assert r.rows[0].time_us == pytest.approx(t / 1e3, rel=1e-9)


def test_tree_on_one_server_is_the_chain(dgx4):
    """No tree between servers: one chain over the 8 GPUs carrying the buffer both ways, half of a
    GPU's NVLink a transfer (inner GPUs send two), 14 hops of NVLink."""
    r = collective(dgx4, "allreduce", [1e9], algo="tree", gpus="8")
    assert (r.servers, r.channels) == (1, 1)
    t = 14 * (O + ALPHA_NVL) + 1e9 * 8 / (NVL / 2)
    assert r.rows[0].time_us == pytest.approx(t / 1e3, rel=1e-9)


def test_tree_beats_ring_at_small_sizes_on_32_servers_and_loses_at_large():
    """32 single-GPU servers: the tree's 10 hops (depth 5, up and down) against the ring's 62
    steps; at 1 GB both are NIC-bound and the ring moves (n−1)/n more per byte of busbw. The
    tree is faster up to 128 MiB, the ring from 256 MiB."""
    f = fat_tree(levels=2, radix=8, fabric="ib")
    s = Solver(f)
    sizes = parse_sizes("8B:1GB:x2")
    ring = np.array([x.time_us for x in collective(f, "allreduce", sizes, solver=s).rows])
    tree = np.array([x.time_us for x in collective(f, "allreduce", sizes, algo="tree", solver=s).rows])
    faster = tree < ring
    k = int(np.argmin(faster))
    assert faster[:k].all() and not faster[k:].any()
    assert (sizes[k - 1], sizes[k]) == (2 ** 27, 2 ** 28)
    assert ring[0] / tree[0] > 6


def test_broadcast_runs_a_chain_per_nic_channel(dgx4):
    """4 DGX, 8 channels of 1/8: channel c goes GPU c → GPU c between servers (one transfer on each
    NIC: 400 Gb/s, 2.52 ms for 125 MB at 400 · EFF); inside a server a chain from where it enters. NVLink edge
    j → j+1 carries all 8 channels in the root's server (the buffer at 2966.4 Gb/s: 2.70 ms, the
    bound) and 7 elsewhere. Hops: 7 in the root's server + 3 between servers + 7 in the last = 17."""
    r = collective(dgx4, "broadcast", [1e9])
    assert r.channels == 8
    t = 16 * (O + ALPHA_DGX) + O + ALPHA_NVL + 1e9 * 8 / NVL
    assert r.rows[0].time_us == pytest.approx(t / 1e3, rel=1e-9)
    step = plan(dgx4, "broadcast", "ring", r.ranks)[0]
    assert (step.hops, len(step.src)) == (17, 7 + 3 * 8 + 3 * 8)


def test_single_nic_broadcast_is_one_chain(nodes4):
    """One channel: the chain through the ranks, the whole buffer on each hop, n − 1 hops."""
    r = collective(nodes4, "broadcast", [1e9])
    t = 3 * (O + ALPHA) + 1e9 * 8 / (400 * EFF)
    assert r.rows[0].time_us == pytest.approx(t / 1e3, rel=1e-12)
