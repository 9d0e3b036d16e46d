"""Fabric.copy(): same ids, names and GUIDs; edits to either side never reach the other."""

import numpy as np

from fabricviz.generate import fat_tree


def test_copy_is_independent_and_keeps_ids():
    f = fat_tree(levels=2, radix=8, hosts=16)
    seen = []
    f.subscribe(seen.append)
    g = f.copy()
    assert g.catalog is f.catalog
    assert g.counts() == f.counts()
    assert np.array_equal(g.cable_ids(), f.cable_ids())
    assert [g.name_of(int(i)) for i in g.device_ids()] == [f.name_of(int(i)) for i in f.device_ids()]
    assert np.array_equal(g.ports_t.guid, f.ports_t.guid)
    c = int(f.port("leaf01:8").cable.id)
    g.remove_cables([c])
    assert not g.cables_t.exists(c) and f.cables_t.exists(c)
    assert f.port("leaf01:8").cable is not None and g.port("leaf01:8").cable is None
    assert seen == []                       # the copy has its own (empty) listener list
    g.rename(g.find("node01"), "hostA")
    assert f.find("node01") is not None and f.find("hostA") is None
