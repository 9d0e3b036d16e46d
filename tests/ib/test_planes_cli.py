"""``route --plane K`` / ``convert --plane K`` and the sweep per plane: each plane of a multi-plane
design is its own subnet (own SM, LIDs and LFTs)."""

from __future__ import annotations

import json

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import rail_optimized
from fabricviz.ib.planes import route_plane, routings, sweep_planes


@pytest.fixture(scope="module")
def design():
    return rail_optimized(1, planes=2)       # per plane 8 leaves + 4 spines, 256 CA ports


@pytest.fixture()
def path(design, tmp_path):
    p = tmp_path / "rail2.fabric.json"
    save_fabric(design, p)
    return p


def test_route_plane_is_that_plane_alone(design, path, capsys):
    for k, tag in ((0, "p1"), ("plane2", "p2")):
        assert main(["route", str(path), "--plane", str(k), "--engine", "ftree", "--json"]) == 0
        s = json.loads(capsys.readouterr().out)
        assert (s["routed_by"], s["switches"], s["ca_ports"], s["lids"]) == ("ftree", 12, 256, 268)
        assert s["roots"] == [f"spine0{i}-{tag}" for i in range(1, 5)]
        assert s["sm"] == f"su1-dgx01/mlx5_0:{1 if tag == 'p1' else 2}" and s["warnings"] == []


def test_route_plane_refuses_a_plane_the_design_has_not(path, capsys):
    assert main(["route", str(path), "--plane", "2"]) == 2
    assert capsys.readouterr().err.strip() == (
        "fabricviz: error: plane '2': no such plane (planes: 0 (plane1), 1 (plane2))")


def test_each_plane_has_its_own_lids_and_lfts(design):
    rs = routings(design, "minhop")
    assert [(r.plane, r.name, r.routing.subnet.num_switches) for r in rs] == [(0, "plane1", 12), (1, "plane2", 12)]
    a, b = rs[0].routing, rs[1].routing
    assert a.lft.shape == b.lft.shape == (12, 269)
    # two subnets of the same shape: as many routes each, on switches of their own
    assert int((a.lft != 255).sum()) == int((b.lft != 255).sum()) == 12 * 268
    assert set(a.subnet.sw_guid.tolist()).isdisjoint(b.subnet.sw_guid.tolist())
    assert route_plane(design, 1).routing.subnet.sm_node == a.subnet.sm_node


def test_the_sweep_runs_per_plane(design):
    sweeps = sweep_planes(design, "minhop")
    assert [name for name, _ in sweeps] == ["plane1", "plane2"]
    for _, sw in sweeps:
        assert sw.routing.subnet.num_switches == 12 and "lft" in sw.phases()


def test_convert_writes_one_plane_as_ibnetdiscover(path, tmp_path, capsys):
    out = tmp_path / "plane2.ibnetdiscover"
    assert main(["convert", str(path), str(out), "--to", "ibnetdiscover", "--plane", "1"]) == 0
    text = out.read_text()
    assert text.count("\nSwitch\t") == 12 and text.count("\nCa\t") == 256
    assert '"su1-rail0-p2"' in text and '"su1-rail0-p1"' not in text
