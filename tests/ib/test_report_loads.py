"""cable_loads: routes per cable from the LFTs, the busier direction."""

import numpy as np

from fabricviz.generate import fat_tree
from fabricviz.ib.report import cable_loads, port_loads
from fabricviz.ib.routing import route


def test_fat_tree_cable_loads_are_the_busier_direction():
    f = fat_tree(levels=2, radix=8, hosts=16)          # 4 leaves x 4 hosts, 4 spines
    r = route(f, "minhop")
    cables, vals = cable_loads(r)
    assert len(cables) == 32 and np.array_equal(cables, np.sort(f.cable_ids()))
    loads = port_loads(r)
    sn = r.subnet
    leaf = sn.sw_index[f.find("leaf01")]
    up = [p for p in range(1, 9) if sn.nbr_sw[leaf, p] >= 0]
    assert sorted(loads[leaf, up].tolist()) == [3, 3, 3, 3]       # 12 remote hosts over 4 uplinks
    by = dict(zip(cables.tolist(), vals.tolist(), strict=True))
    for p in up:                                                  # a spine sends leaf01's 4 hosts down it
        assert by[int(f.ports_t.cable[f.port_id("leaf01", p)])] == 4
    host = int(f.port("node01/mlx5_0:1").cable.id)
    assert by[host] == 1                                          # only node01's own LID goes down to it
