"""Latency: V7 base RTT / BDP exactly, per-hop components, IB vs RoCE unloaded ranges."""

import numpy as np
import pytest

from fabricviz.generate import fat_tree, k_ary_fat_tree, leaf_spine
from fabricviz.sim.latency import LatencyParams, base_rtt_ns, bdp_bytes, link_latency, path_hops
from fabricviz.sim.links import link_table
from fabricviz.sim.paths import route
from fabricviz.sim.workloads import Flows, endpoints

HPCC = LatencyParams(bytes=1000, link_delay_ns=1000, switch_ns=0, nic_ns=0)


def _far_path(f, over="nic", mode="static"):
    L = link_table(f)
    e = endpoints(f, over)
    return L, route(f, L, Flows(e[:1], e[-1:]), mode).path(0)


@pytest.mark.parametrize("build,rtt,bdp", [
    (lambda: leaf_spine(2, 2, 2, speed="100GbE", switch="SN4700"), 8320, 104_000),
    (lambda: fat_tree(levels=3, radix=8, fabric="roce", speed="100GbE", switch="SN4700"), 12_480, 156_000),
    (lambda: leaf_spine(2, 2, 2, speed="400GbE"), 8080, 404_000),
])
def test_v7_base_rtt_and_bdp(build, rtt, bdp):
    L, p = _far_path(build())
    assert base_rtt_ns(L, p, HPCC) == pytest.approx(rtt, abs=1e-6)
    assert bdp_bytes(L, p, HPCC) == pytest.approx(bdp, abs=1e-3)


def test_link_components_follow_catalog_and_cable_length():
    f = k_ary_fat_tree(4)
    L = link_table(f)
    lat = link_latency(L, LatencyParams(bytes=4096), queue_bytes=np.where(L.gbps > 0, 8192.0, 0.0))
    c = 0                                   # host cable (2 m NDR DAC, 0 ns part latency)
    assert lat.serialization[2 * c] == pytest.approx(4096 * 8 / 400)
    assert lat.propagation[2 * c] == pytest.approx(2 * 5.0)
    assert lat.queueing[2 * c] == pytest.approx(8192 * 8 / 400)
    # a link leaving a QM9700-class switch carries its 200 ns pipeline
    sw_links = np.flatnonzero(L.switch_ns > 0)
    assert len(sw_links) and np.all(lat.switch[sw_links] == 200.0)


def test_unloaded_ib_hop_under_a_microsecond_and_roce_several():
    ib = k_ary_fat_tree(8)
    roce = k_ary_fat_tree(8, fabric="roce")
    L, p = _far_path(ib, "gpu")
    rows, total_ib = path_hops(ib, L, p)
    fabric_hops = [r for r in rows if not r["pcie"]]
    assert all(r["total_ns"] < 1000 for r in fabric_hops)            # IB: well under 1 µs per hop
    L2, p2 = _far_path(roce, "gpu")
    rows2, total_roce = path_hops(roce, L2, p2)
    assert 2000 < total_roce < 10_000                                 # RoCE: several µs end to end
    assert total_roce > total_ib
    # total = NIC tx + hops + NIC rx
    assert total_ib == pytest.approx(sum(r["total_ns"] for r in rows) + 2 * 300.0)


@pytest.mark.parametrize("pulled", [False, True])
def test_fluid_frames_carry_queueing_in_link_and_flow_latency(pulled):
    """2-to-1 incast on one leaf of the demo (credits, no CC). Each ingress port may hold the
    credit buffer, 256,000 B, of which one tick at 400 Gb/s (50,000 B) is still arriving, so
    the receiver's egress queue settles at 2 × 206,000 = 412,000 B; each sender's own egress
    holds its NIC queue, 16,000 B. Per link: 4096·8/400 = 81.92 ns serialization, 2 m · 5 ns/m
    = 10 ns propagation, 200 ns through the QM9700 leaf, plus queue·8/400 ns. A pulled cable
    elsewhere (a link without capacity) must not change a number, and has no latency (NaN)."""
    from fabricviz.sim.engine import simulate
    from fabricviz.sim.fluid import FluidParams
    f = fat_tree(levels=2, radix=8, hosts=16)
    if pulled:
        f.remove_cables([int(f.ports_t.cable[f.port_id("leaf04:8")])])
    n1, n2, n3 = (f.find(f"node0{i}/mlx5_0") for i in (1, 2, 3))
    res = simulate(f, Flows([n2, n3], [n1, n1]), None, "fluid", 100e-6,
                   fluid=FluidParams(cc="none", flow_control="credit"))
    fr = res.last
    L = res.links
    rx = int(res.routes.path(0)[-1])                          # leaf01 → node01
    tx = [int(res.routes.path(i)[0]) for i in (0, 1)]         # node02/03 → leaf01
    assert fr.link_queue[rx] == 412_000.0 and fr.link_queue[tx].tolist() == [16_000.0, 16_000.0]
    assert fr.link_latency_ns[rx] == pytest.approx(81.92 + 10 + 200 + 412_000 * 8 / 400, abs=1e-3)  # 8531.92
    assert fr.link_latency_ns[tx] == pytest.approx(81.92 + 10 + 16_000 * 8 / 400, abs=1e-3)        # 411.92
    # flow: NIC tx 300 + both hops + NIC rx 300
    assert fr.flow_latency_ns == pytest.approx([300 + 411.92 + 8531.92 + 300] * 2, abs=1e-2)
    # an idle live link carries its bare hop; a dead one nothing, so the colour scale's top is
    # the queued link (an inf there used to make the scale 92–93 ns)
    idle = np.flatnonzero(L.alive & ~L.pcie & (L.switch_ns == 0) & (fr.link_queue == 0))
    assert np.allclose(fr.link_latency_ns[idle], 91.92)
    dead = np.flatnonzero(L.gbps == 0)
    assert len(dead) == (2 if pulled else 0) and np.all(np.isnan(fr.link_latency_ns[dead]))
    assert not np.isinf(fr.link_latency_ns).any()
    assert max(np.nanmax(x.link_latency_ns) for x in res.frames) == pytest.approx(8531.92, abs=1e-3)
