"""Latency: V7 base RTT / BDP exactly, per-hop components, IB vs RoCE unloaded ranges."""

import numpy as np
import pytest

from fabricviz.build import fat_tree, k_ary_fat_tree, leaf_spine
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
