"""The other-technology twin: same devices, names, positions and port pairs; parts of the
other technology at the same speed class; back again to the original parts; refusals."""

from collections import Counter

import numpy as np
import pytest

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.model import FabricError, LinkRate
from fabricviz.sim.twin import equivalent_rate, twin


def switch_parts(f):
    return Counter(d.part_id for d in f.devices(("ib_switch", "eth_switch")))


def cable_parts(f):
    return Counter(c.part_id for c in f.cables())


def names(f):
    return [f.name_of(int(d)) for d in f.device_ids()]


def live_port_tech(f):
    pt, t = f.ports_t, f.devices_t
    return set(pt.tech[t.alive[pt.device] & (pt.tech > 0)].tolist())


@pytest.mark.parametrize("src, dst", [("4xNDR", "400GbE"), ("4xHDR", "200GbE"), ("4xXDR", "800GbE"),
                                      ("4xEDR", "100GbE"), ("HDR100", "100GbE"), ("4xFDR", "50GbE"),
                                      ("400GbE", "4xNDR"), ("200GbE", "4xHDR"), ("800GbE", "4xXDR"),
                                      ("100GbE", "4xEDR"), ("40GbE", "4xFDR10")])
def test_equivalent_rate_is_the_same_speed_class(src, dst):
    r = LinkRate.parse(src)
    assert equivalent_rate(r, "eth" if r.tech == "ib" else "ib") == LinkRate.parse(dst)


@pytest.fixture(scope="module")
def ib_tree():
    return fat_tree(levels=2, radix=64, hosts=128)         # 4 leaves, 32 spines of QM9700


def test_ib_fat_tree_to_roce_keeps_devices_names_positions_and_port_pairs(ib_tree):
    f = ib_tree
    g = twin(f, "roce")
    assert g.counts() == {"server": 128, "gpu": 128, "nic": 128, "ib_switch": 0, "eth_switch": 36,
                          "cables": 256}
    assert f.counts()["ib_switch"] == 36 and f.counts()["eth_switch"] == 0       # the source is untouched
    assert names(g) == names(f)
    np.testing.assert_array_equal(g.device_ids(), f.device_ids())
    ft, gt = f.devices_t, g.devices_t
    for col in ("x", "y", "tier", "parent", "local", "bound", "nports", "first_port"):
        np.testing.assert_array_equal(getattr(gt, col), getattr(ft, col), err_msg=col)
    for col in ("port_a", "port_b", "length"):
        np.testing.assert_array_equal(getattr(g.cables_t, col), getattr(f.cables_t, col), err_msg=col)
    # Ethernet everywhere: ports, cables, parts; no GUIDs left
    assert live_port_tech(g) == {2} and set(g.cables_t.tech.tolist()) == {2}
    assert switch_parts(g) == {"SN5400": 36}                 # 64 × 400GbE for 64 × NDR
    assert Counter(str(c.rate) for c in g.cables()) == {"400GbE": 256}
    # 2 m host DACs stay DACs; 15 m NDR optics become 400G optics. A QM9700's ports share twin-port
    # cages two by two: its host links ride MCP7Y00 splitters, its uplinks twin-port optics; an SN5400's
    # 400GbE ports have a cage each
    assert cable_parts(f) == {"NDR-SPLIT-DAC": 128, "NDR-TWIN-SR4": 128}
    assert cable_parts(g) == {"400G-DAC": 128, "400G-SR8": 128}
    assert not gt.guid.any() and not g.ports_t.guid.any()
    assert g.meta["fabric"] == "roce" and g.meta["params"]["switch"] == "SN5400"
    assert g.meta["params"]["speed"] == "400GbE" and g.meta["twin"]["of"] == f.name
    assert g.meta["twin"]["changed_rate_cables"] == 0
    # and back: the original parts, rates and cables
    h = twin(g, "ib")
    assert switch_parts(h) == {"QM9700": 36} and cable_parts(h) == cable_parts(f)
    assert names(h) == names(f) and live_port_tech(h) == {1}
    for col in ("speed", "width", "tech"):
        np.testing.assert_array_equal(getattr(h.ports_t, col), getattr(f.ports_t, col), err_msg=col)
    np.testing.assert_array_equal(h.cables_t.port_a, f.cables_t.port_a)
    assert np.all(h.devices_t.guid[h.device_ids("ib_switch")] > 0)      # an SM can sweep it again


def test_textbook_radix_model_maps_like_the_generator():
    f = fat_tree(levels=2, radix=8, hosts=16)              # QM9700-R8: 8-port model switches
    g = twin(f, "roce")
    generated = fat_tree(levels=2, radix=8, hosts=16, fabric="roce")
    assert switch_parts(g) == switch_parts(generated) == {"SN4700-R8": 8}
    assert [d.part_id for d in g.devices("eth_switch")] == [d.part_id for d in generated.devices("eth_switch")]
    assert g.catalog.get("SN4700-R8").ports == 8
    assert switch_parts(twin(g, "ib")) == {"QM9700-R8": 8}


def test_roce_leaf_spine_to_ib():
    f = leaf_spine(4, 2, 8)                                # 400GbE, SN4700 radix models, 15 m AOC uplinks
    g = twin(f, "ib")
    assert g.counts() == {"server": 32, "gpu": 32, "nic": 32, "ib_switch": 6, "eth_switch": 0, "cables": 40}
    assert names(g) == names(f)
    np.testing.assert_array_equal(g.cables_t.port_a, f.cables_t.port_a)
    np.testing.assert_array_equal(g.cables_t.port_b, f.cables_t.port_b)
    assert switch_parts(g) == {"QM9700-R10": 4, "QM9700-R4": 2}
    assert Counter(str(c.rate) for c in g.cables()) == {"4xNDR": 40}
    # no NDR AOC exists: the 15 m uplinks get the catalog's usual choice, NDR optics
    assert cable_parts(f) == {"400G-DAC": 32, "400G-AOC": 8}
    assert cable_parts(g) == {"NDR-DAC": 32, "NDR-SR4": 8}
    ib = np.concatenate([g.device_ids("ib_switch"), g.device_ids("nic")])
    guids = g.devices_t.guid[ib]
    assert np.all(guids > 0) and len(np.unique(guids)) == 38
    assert g.meta["fabric"] == "ib" and g.meta["params"]["speed"] == "4xNDR"
    assert switch_parts(twin(g, "roce")) == switch_parts(f)


def test_no_switch_at_that_speed_runs_a_faster_one_slower_and_comes_back():
    f = fat_tree(levels=2, radix=40, hosts=8, switch="QM8700")        # 40 × HDR (200G)
    g = twin(f, "roce")
    # no 200GbE switch in the catalog: the smallest with ≥ 40 ports, its ports at 200GbE
    assert switch_parts(g) == {"SN5400": 21}
    assert {str(g.port_rate(int(g.devices_t.first_port[d]))) for d in g.device_ids("eth_switch")} == {"200GbE"}
    assert Counter(str(c.rate) for c in g.cables()) == {"200GbE": 28}
    assert switch_parts(twin(g, "ib")) == {"QM8700": 21}             # the twin record brings QM8700 back
    g.meta.pop("twin")                                               # without it: 64 ports at HDR
    assert switch_parts(twin(g, "ib")) == {"QM9700": 21}


def test_edited_design_keeps_its_edits():
    f = fat_tree(levels=2, radix=8, hosts=16)
    f.remove_devices([f.find("node03")])                   # ids now have a hole
    f.rename(f.find("node05/gpu0"), "special-gpu")
    f.set_port_state(f.port_id("leaf02:2"), "disabled")
    f.set_port_rate(f.port_id("leaf02:8"), "4xHDR")
    f.move([f.find("leaf01")], 13.37, 2.2)
    g = twin(f, "roce")
    assert names(g) == names(f) and len(g) == len(f) == 53
    assert g.device("special-gpu").nic.name == "node05/mlx5_0"
    assert g.port("leaf02:2").state == "disabled"
    assert str(g.port("leaf02:8").rate) == "200GbE"
    assert g.device("leaf01").x == f.device("leaf01").x and g.device("leaf01").y == f.device("leaf01").y
    pairs = lambda x: sorted((x.port_name(int(x.cables_t.port_a[c])), x.port_name(int(x.cables_t.port_b[c])))  # noqa: E731
                             for c in x.cable_ids())
    assert pairs(g) == pairs(f) and len(pairs(g)) == 31


def test_refusals_name_the_device_and_build_nothing():
    f = fat_tree(levels=2, radix=144, hosts=8, switch="Q3400")       # 144 × XDR: no Ethernet peer
    before = (f.counts(), dict(f.meta))
    with pytest.raises(FabricError) as e:
        twin(f, "roce")
    assert str(e.value) == "device leaf01: no Ethernet switch with ≥144 ports at 800G in the catalog"
    assert (f.counts(), f.meta) == before
    with pytest.raises(FabricError) as e:
        twin(f, "eth")
    assert str(e.value) == "twin: technology 'eth': use ib or roce"
