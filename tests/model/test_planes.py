"""Planes in the model: NIC split modes from the catalog, ``meta.planes`` typed, derived port and
cable planes, one plane alone, and the native file keeping it all to the byte."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fabricviz.formats.native import fabric_to_dict, load_fabric, save_fabric
from fabricviz.generate import fat_tree
from fabricviz.model import Catalog, Fabric, FabricError
from fabricviz.model.planes import cable_planes, device_planes, parse_planes, plane_fabric, plane_rate, port_planes
from fabricviz.model.tech import LinkRate
from fabricviz.resources import asset_path


def test_connectx8_splits_into_2_or_4_planes_with_its_source():
    cx8 = Catalog.default().get("CX8")
    assert cx8.planes == (2, 4)
    assert "connectx8firmwarev40440208" in cx8.planes_source and "number-of-planes" in cx8.planes_source
    assert Catalog.default().get("CX7-1P").planes == ()
    assert str(plane_rate(LinkRate.parse("4xXDR"), 2)) == "2xXDR"
    assert str(plane_rate(LinkRate.parse("4xXDR"), 4)) == "1xXDR"
    assert str(plane_rate(LinkRate.parse("800GbE"), 2)) == "400GbE"


def test_a_split_nic_has_one_port_per_plane_and_only_where_the_part_allows():
    f = Fabric()
    f.add_servers("DGX-B300", ["n1"], 0, 0, mode="1xXDR*4")
    nics = f.device_ids("nic")
    assert len(nics) == 8 and f.devices_t.nports[nics].tolist() == [4] * 8
    assert str(f.port_rate(int(f.devices_t.first_port[nics[0]]))) == "1xXDR"
    with pytest.raises(FabricError, match=r"CX8: mode '2xXDR\*3': its port splits into 2 or 4 planes"):
        f.add_servers("DGX-B300", ["n2"], 0, 0, mode="2xXDR*3")
    with pytest.raises(FabricError, match="splits into no planes"):
        f.add_servers("DGX-H100", ["n3"], 0, 0, mode="4xNDR*2")
    with pytest.raises(FabricError, match=r"CX8: mode '2xXDR\*4': 4 planes of 2xXDR take 8 lanes, its port has 4"):
        f.add_servers("DGX-B300", ["n4"], 0, 0, mode="2xXDR*4")
    with pytest.raises(FabricError, match=r"CX8: mode '2xXDR\*16': a port splits into 2 to 8 planes"):
        f.add_servers("DGX-B300", ["n5"], 0, 0, mode="2xXDR*16")
    assert [f.find(n) for n in ("n2", "n3", "n4", "n5")] == [None] * 4       # refused: nothing added


@pytest.mark.parametrize("raw,msg", [
    ("x", "meta.planes: expected a list"),
    ([{"name": "a"}], r"meta.planes\[0\].switches: expected a list of switch names"),
    ([{"name": "a", "switches": ["s1"]}, {"name": "a", "switches": []}], r"meta.planes\[1\].name: plane 'a' is named twice"),
    ([{"name": "a", "switches": ["s1"]}, {"name": "b", "switches": ["s1"]}], r"'s1' is also in plane 'a'"),
])
def test_bad_planes_are_refused_naming_the_field(raw, msg):
    with pytest.raises(FabricError, match=msg):
        parse_planes(raw)


@pytest.fixture(scope="module")
def two():
    return fat_tree(radix=8, planes=2)          # 32 one-GPU nodes, per plane 8 leaves + 4 spines


def test_switches_ports_and_cables_take_their_plane(two):
    ps = two.settings.planes
    assert [p.name for p in ps.planes] == ["plane1", "plane2"] and len(ps.planes[0].switches) == 12
    dp = device_planes(two)
    assert np.bincount(dp[dp >= 0]).tolist() == [12, 12]
    cp = cable_planes(two)[two.cable_ids()]
    assert np.bincount(cp).tolist() == [64, 64]                  # 32 node + 32 leaf-spine links per plane
    pp = port_planes(two)
    nic = int(two.device_ids("nic")[0])
    first = int(two.devices_t.first_port[nic])
    assert pp[first:first + 2].tolist() == [0, 1]                 # NIC port k+1 is plane k


def test_one_plane_alone_keeps_ids_and_only_its_switches(two):
    pf = plane_fabric(two, "plane2")
    c = pf.counts()
    assert (c["ib_switch"], c["cables"], c["nic"]) == (12, 64, 32)
    assert pf.find("leaf01-p2") == two.find("leaf01-p2") and pf.find("leaf01-p1") is None
    assert "planes" not in pf.meta and "planes" in two.meta
    with pytest.raises(FabricError, match=r"plane 'plane3': no such plane \(planes: 0 \(plane1\), 1 \(plane2\)\)"):
        plane_fabric(two, "plane3")


def test_native_file_keeps_split_nics_and_planes_to_the_byte(two, tmp_path):
    a, b = tmp_path / "a.fabric.json", tmp_path / "b.fabric.json"
    save_fabric(two, a)
    doc = json.loads(a.read_text())
    nic = next(r for r in doc["devices"] if r["kind"] == "nic")
    assert nic["mode"] == "2xXDR*2"
    assert [p["name"] for p in doc["meta"]["planes"]] == ["plane1", "plane2"]
    back = load_fabric(a)
    save_fabric(back, b)
    assert a.read_bytes() == b.read_bytes()
    assert back.settings.planes == two.settings.planes


def test_a_design_without_planes_loads_unchanged(tmp_path):
    src = asset_path("demo", "demo-fat-tree.json")
    f = load_fabric(src)
    assert not f.settings.planes and (device_planes(f) == -1).all()
    out = tmp_path / "demo.fabric.json"
    save_fabric(f, out)
    with open(src, "rb") as fh:
        assert out.read_bytes() == fh.read()               # the bundled demo, written before planes
    assert "mode" not in json.dumps([r for r in fabric_to_dict(f)["devices"] if r["kind"] == "nic"])
