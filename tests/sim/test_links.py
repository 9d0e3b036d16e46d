"""The directed-link table: id scheme, rates, PCIe hops, removed cables."""

import numpy as np

from fabricviz.generate import k_ary_fat_tree
from fabricviz.sim.links import link_table


def test_link_ids_rates_and_pcie():
    f = k_ary_fat_tree(4)
    L = link_table(f)
    ct = f.cables_t
    assert L.n_cable_links == 2 * ct.n
    for c in (0, 5, ct.n - 1):
        assert L.src_port[2 * c] == ct.port_a[c] and L.dst_port[2 * c] == ct.port_b[c]
        assert L.src_port[2 * c + 1] == ct.port_b[c] and L.dst_port[2 * c + 1] == ct.port_a[c]
        assert L.gbps[2 * c] == L.gbps[2 * c + 1] == f.cable_rate(c).gbps
        assert L.prop_ns[2 * c] == ct.length[c] * 5.0 + f.cable(c).part.latency_ns
    gpus = f.device_ids("gpu")
    assert len(L.pcie_gpu) == len(gpus) and L.n == 2 * ct.n + 2 * len(gpus)
    up, down = L.pcie_links(int(gpus[3]))
    nic = int(f.devices_t.bound[gpus[3]])
    assert (L.src_dev[up], L.dst_dev[up], L.src_dev[down], L.dst_dev[down]) == (gpus[3], nic, nic, gpus[3])
    assert L.gbps[up] == f.device(int(gpus[3])).part.pcie_gbps
    assert L.prop_ns[up] == f.device(int(gpus[3])).part.pcie_latency_ns


def test_removed_cable_keeps_ids_with_zero_capacity():
    f = k_ary_fat_tree(4)
    before = link_table(f)
    f.remove_cables([7])
    after = link_table(f)
    assert after.n == before.n
    assert after.gbps[14] == after.gbps[15] == 0 and not after.alive[14]
    keep = np.r_[0:14, 16:after.n]
    assert np.array_equal(after.gbps[keep], before.gbps[keep])
