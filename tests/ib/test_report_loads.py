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


def test_port_loads_equal_the_direct_count():
    """The compiled count (one pass over every (switch, CA LID) entry, no copy of the LFTs: a
    dense int64 one took 7 GB at the IB maximum) is the count a Python loop over the entries
    gives, NO_PATH entries left out."""
    r = route(fat_tree(levels=3, radix=8), "minhop")             # 128 hosts, 80 switches
    d = r.lids.ca_lid[r.lids.ca_lid > 0]
    direct = np.zeros((r.subnet.num_switches, r.subnet.nbr_dev.shape[1]), np.int64)
    for s in range(r.subnet.num_switches):
        for port in r.lft[s, d].tolist():
            if port != 255:
                direct[s, port] += 1
    assert np.array_equal(port_loads(r), direct)
    assert int(direct.sum()) == 80 * 128 and int(direct[r.subnet.sw_index[r.subnet.fabric.find("leaf01")], 1]) == 1


def test_port_loads_leave_no_path_entries_out():
    """A switch with no route to a LID (NO_PATH, 255) counts nothing for it."""
    r = route(fat_tree(levels=2, radix=8, hosts=16), "minhop")
    d = r.lids.ca_lid[r.lids.ca_lid > 0]
    before = port_loads(r)
    r.lft[0, d[0]] = 255
    after = port_loads(r)
    assert int(before[0].sum()) == 16 and int(after[0].sum()) == 15


def test_port_loads_count_nothing_for_a_lid_past_the_lft():
    """A CA LID the LFT has no column for (a table cut short) is routed nowhere: counted on no
    port, where the compiled pass would otherwise read past the table."""
    import dataclasses
    r = route(fat_tree(levels=2, radix=8, hosts=16), "minhop")
    d = np.sort(r.lids.ca_lid[r.lids.ca_lid > 0])
    short = dataclasses.replace(r, lft=np.ascontiguousarray(r.lft[:, :int(d[-1])]))   # the last LID's column gone
    assert int(port_loads(short).sum()) == int(port_loads(r).sum()) - r.subnet.num_switches
