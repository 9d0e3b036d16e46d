"""Port breakout: cages and breakout modes as catalog data; generators, cabling, BOM and exports
use them (an SN5600 is 64 × 800GbE or 128 × 400GbE; a QM9700's 32 cages carry 64 NDR ports)."""

from __future__ import annotations

import pytest

from fabricviz.check.bom import bill_of_materials
from fabricviz.check.info import fabric_info
from fabricviz.formats.switch_config import cumulus_port, render
from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.generate.common import pick_switch, use_part
from fabricviz.model import Catalog, Fabric, FabricError
from fabricviz.model.breakout import Breakout, broken_out, cage_of, cages_of, fitting_breakout, used_cages
from fabricviz.model.catalog import Part
from fabricviz.model.errors import CatalogError
from fabricviz.model.tech import ETH, IB, LinkRate


def test_catalog_cages_and_breakouts_with_sources():
    cat = Catalog.default()
    got = {p.id: (p.cages, p.breakouts) for p in cat if p.cages or p.breakouts}
    assert got == {"QM9700": (32, ("2x2xNDR",)), "Q3400": (72, ()), "Q3450": (72, ()),
                   "SN5400": (64, ("2x200GbE", "4x100GbE")),
                   "SN5600": (64, ("2x400GbE", "4x200GbE", "4x100GbE"))}
    assert "x86_64-nvidia_sn5600-r0/platform.json" in cat.get("SN5600").breakout_source
    assert all(cat.get(p).breakout_source for p in ("QM9700", "SN5400", "SN5600"))


def test_sn5600_breaks_out_to_128_ports_with_sonic_lane_shares():
    sn = Catalog.default().get("SN5600")
    p = broken_out(sn, "2x400GbE")
    assert (p.id, p.ports, p.port, p.cages, p.breakout_of, p.price_usd) == (
        "SN5600-2x400GbE", 128, "400GbE", 64, "SN5600", sn.price_usd)
    # SONiC's Mellanox-SN5600-O128 port_config.ini: Ethernet0 0-3 etp1a, Ethernet4 4-7 etp1b, … Ethernet508
    assert p.lanes(1) == (0, 1, 2, 3) and p.lanes(2) == (4, 5, 6, 7) and p.lanes(128) == (508, 509, 510, 511)
    assert cage_of(p, 1) == (1, 0) and cage_of(p, 2) == (1, 1) and cage_of(p, 128) == (64, 1)
    assert cumulus_port(p, 4) == "swp2s1" and cumulus_port(sn, 4) == "swp4"
    q = broken_out(sn, "4x200GbE")
    assert q.ports == 256 and q.lanes(3) == (4, 5) and cage_of(q, 5) == (2, 0)
    assert Part.from_dict(p.to_dict(), "t", user=True) == p                 # a design saves it
    with pytest.raises(FabricError, match="SN5600 has no breakout 8x100GbE"):
        broken_out(sn, "8x100GbE")


def test_breakouts_are_checked():
    base = {"id": "X", "kind": "eth_switch", "name": "x", "ports": 4, "port": "400GbE"}
    assert Part.from_dict(dict(base, cages=2, breakouts=["2x200GbE"]), "t").cages == 2
    for extra, msg in (({"breakouts": ["2x400GbE"]}, "t.breakouts[0]: 2x400GbE does not fit one 400GbE port"),
                       ({"breakouts": ["3x100GbE"]}, "t.breakouts[0]: '3x100GbE' is not a breakout"),
                       ({"breakouts": ["2x2xNDR"]}, "t.breakouts[0]: 2x2xNDR does not fit"),
                       ({"cages": 0}, "t.cages: must be a positive integer, got 0")):
        with pytest.raises(CatalogError, match=msg.replace("[", r"\[").replace("]", r"\]")):
            Part.from_dict(dict(base, **extra), "t")
    assert Breakout.parse("2x2xNDR") == Breakout(2, LinkRate.parse("2xNDR"))
    odd = Part.from_dict(dict(base, ports=5, cages=2), "t")   # a derived part's port count: one per port
    assert cages_of(odd) == 5 and cage_of(odd, 5) == (5, 0)


def test_generators_pick_the_breakout_that_fits():
    cat = Catalog.default()
    assert pick_switch(cat, ETH, 128, "SN5600").id == "SN5600-2x400GbE"
    assert pick_switch(cat, ETH, 256, "SN5600", "200GbE").id == "SN5600-4x200GbE"
    assert pick_switch(cat, ETH, 128).id == "SN5600-2x400GbE"            # no native 128 × 400GbE part
    assert pick_switch(cat, ETH, 64).id == "SN5400"                         # native first
    assert pick_switch(cat, IB, 128, "QM9700").id == "QM9700-2x2xNDR"
    assert pick_switch(cat, IB, 64).id == "QM9700"                          # no slower link unasked
    assert fitting_breakout(cat.get("SN5600"), 129, None).id == "SN5600-4x200GbE"
    assert fitting_breakout(cat.get("SN5600"), 257, None) is None
    assert fitting_breakout(cat.get("SN5600"), 129, LinkRate.parse("400GbE")) is None
    with pytest.raises(FabricError, match=r"SN5600 has 64 ports or its breakouts \(2x400GbE, 4x200GbE, "
                                          r"4x100GbE\), fewer than radix 512"):
        pick_switch(cat, ETH, 512, "SN5600")


def test_radix_128_fat_tree_on_sn5600_cables_and_bom_by_cage():
    f = fat_tree(levels=2, radix=128, hosts=128, fabric="roce", switch="SN5600")
    assert f.meta["params"]["switch"] == "SN5600-2x400GbE" and f.meta["params"]["speed"] == "400GbE"
    assert f.counts()["eth_switch"] == 66 and f.counts()["cables"] == 256
    # 2 leaves × (64 host ports + 64 uplinks) = 128 cages; 64 spines × 2 down ports on cage 1
    assert used_cages(f) == {"SN5600-2x400GbE": 2 * 64 + 64}
    # every cage takes its own plug (model.cage_cables): a splitter per leaf cage down to two hosts,
    # twin-port optics per leaf cage up (a module there and at the spine cages), so no unpriced line
    lines = {(ln.category, ln.part): ln.count for ln in bill_of_materials(f).lines}
    assert lines[("switch", "SN5600-2x400GbE")] == 66 and ("cable", "SN5600-2x400GbE-cable") not in lines
    assert lines[("cable", "400G-SPLIT-DAC")] == 64 and lines[("fibre", "400G-TWIN-SR4")] == 64
    assert lines[("transceiver", "400G-TWIN-SR4")] == 128
    # cables to order by tier: a leaf cage's two links ride one cable (to two hosts, or up to two spines)
    info = fabric_info(f)
    assert info["cables_by_tier"] == {"hosts-leaf": 128, "leaf-spine": 128}
    assert info["breakout_cables_by_tier"] == {"hosts-leaf": 64, "leaf-spine": 64}
    assert "breakout_cables_by_tier" not in fabric_info(fat_tree(levels=2, radix=8, fabric="roce"))


def test_leaf_spine_breaks_out_a_named_switch():
    f = leaf_spine(2, 64, 64, switch="SN5600")                 # 128-port leaves
    assert f.part_of(f.find("leaf01")).id == "SN5600-2x400GbE"
    assert f.part_of(f.find("spine01")).id == "SN5600"          # 2 ports: native, running at 400GbE


def test_sonic_export_of_a_broken_out_switch_names_sub_ports():
    f = two_broken_out_sn5600()
    import json
    db = json.loads(render(f, "sonic")["a.config_db.json"])
    assert db["PORT"] == {"Ethernet0": {"lanes": "0,1,2,3", "speed": "400000", "mtu": "9216"},
                          "Ethernet4": {"lanes": "4,5,6,7", "speed": "400000", "mtu": "9216"},
                          "Ethernet508": {"lanes": "508,509,510,511", "speed": "400000", "mtu": "9216"}}


def two_broken_out_sn5600() -> Fabric:
    """Two SN5600 broken out 2 × 400GbE, cabled on sub-ports 1, 2 (cage 1) and 128 (cage 64)."""
    f = Fabric(Catalog.default(), name="s56b")
    part = use_part(f, broken_out(f.catalog.get("SN5600"), "2x400GbE"))
    f.add_device("eth_switch", part.id, name="a")
    f.add_device("eth_switch", part.id, name="b")
    for n in (1, 2, 128):
        f.add_cable(f"a:{n}", f"b:{n}", 2.0)
    return f
