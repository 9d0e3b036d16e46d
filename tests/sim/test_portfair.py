"""Port-fair max-min (fabricviz/sim/portfair.py): lossless switches serve their input ports in turn."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.sim.maxmin import maxmin_paths
from fabricviz.sim.portfair import portfair_paths, waterfill

#: 8-to-1 incast on a 2-level tree (link ids of fat_tree(levels=2, radix=8, hosts=16) as RoCE):
#: three senders on the receiver's leaf, five over spines; flows 3 and 7 share spine link 35 into
#: the receiver's leaf; links 65.. are PCIe (440 Gb/s), the rest 400 Gb/s.
PATHS = [[66, 2, 1, 65], [68, 4, 1, 65], [70, 6, 1, 65], [72, 8, 42, 35, 1, 65], [74, 10, 40, 33, 1, 65],
         [76, 12, 46, 39, 1, 65], [78, 14, 44, 37, 1, 65], [80, 16, 50, 35, 1, 65]]


def _csr(paths):
    return np.cumsum([0] + [len(p) for p in paths]), np.concatenate(paths)


def test_waterfill_per_segment():
    got = waterfill(np.array([0, 0, 1, 1, 1]), np.array([10.0, 9.0]), np.array([1.0, 20, 1, 2, 20]))
    assert got.tolist() == [1.0, 9.0, 1.0, 2.0, 6.0]


def test_receiver_link_split_over_its_input_ports_not_its_flows():
    indptr, links = _csr(PATHS)
    cap = np.full(81, 400.0)
    cap[65:] = 440.0
    pf = portfair_paths(indptr, links, cap)
    # 7 input ports into link 1 get 400/7 each; the two flows behind port 35 split theirs
    assert pf.rate == pytest.approx([400 / 7] * 3 + [200 / 7] + [400 / 7] * 3 + [200 / 7])
    assert pf.link_load[1] == pytest.approx(400.0)                    # work-conserving
    assert pf.bottleneck.tolist() == [1] * 8
    mm = maxmin_paths(indptr, links, cap)
    assert mm.rate == pytest.approx([50.0] * 8)                       # per flow: 1/8 each


def test_distinct_input_ports_give_per_flow_maxmin():
    rng = np.random.default_rng(3)
    paths = [list(rng.choice(np.arange(i * 10, i * 10 + 10), 2, replace=False)) + [200] for i in range(6)]
    paths += [[300 + i, 201] for i in range(3)]
    indptr, links = _csr(paths)
    cap = rng.uniform(10, 100, 310)
    demand = np.array([np.inf, 5.0, np.inf, np.inf, 1.0, np.inf, np.inf, 2.0, np.inf])
    pf, mm = portfair_paths(indptr, links, cap, demand), maxmin_paths(indptr, links, cap, demand)
    np.testing.assert_allclose(pf.rate, mm.rate, rtol=1e-12)
    rows = np.array([True, False] * 4 + [True])
    np.testing.assert_allclose(portfair_paths(indptr, links, cap, demand, rows=rows).rate,
                               maxmin_paths(indptr, links, cap, demand, rows=rows).rate, rtol=1e-12)
