"""fabricviz route / trace / check-loops on files."""

import json

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree
from fabricviz.model import Fabric


@pytest.fixture
def tree(tmp_path):
    p = tmp_path / "t.fabric.json"
    save_fabric(fat_tree(levels=3, radix=4), p)
    return p


@pytest.fixture
def ring_file(tmp_path):
    f = Fabric(name="ring5")
    for i in range(5):
        f.add_device("ib_switch", "QM9700", name=f"sw{i}")
    for i in range(5):
        f.add_cable(f"sw{i}:1", f"sw{(i + 1) % 5}:2")
        f.add_device("nic", "CX7-1P", name=f"h{i}")
        f.add_cable(f"h{i}:1", f"sw{i}:3")
    p = tmp_path / "ring.fabric.json"
    save_fabric(f, p)
    return p


def test_route_json(tree, capsys):
    assert main(["route", str(tree), "--engine", "updn", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["routed_by"] == "updn" and s["fallback_reason"] is None
    assert (s["switches"], s["ca_ports"], s["lids"], s["max_lid"]) == (20, 16, 36, 36)
    assert isinstance(s["route_seconds"], float) and s["route_seconds"] >= 0
    assert s["sm"] == "node01/mlx5_0:1"


def test_route_fallback_reported(ring_file, capsys):
    assert main(["route", str(ring_file), "--engine", "updn", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["routed_by"] == "minhop"
    assert s["fallback_reason"].startswith("updn: no root switches found")
    assert s["warnings"][0].endswith("routed with minhop instead")


def test_trace_cli(tree, capsys):
    assert main(["trace", str(tree), "node01", "node16"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("From node01/mlx5_0:1 (LID 1) to node16/mlx5_0:1")
    assert out[1].startswith("  [1] leaf01 [")
    assert out[-1] == "5 switch hop(s)"


def test_check_loops_exit_codes(tree, ring_file, capsys):
    assert main(["check-loops", str(tree)]) == 0
    assert "no credit loops" in capsys.readouterr().out
    assert main(["check-loops", str(ring_file)]) == 1
    out = capsys.readouterr().out
    assert "credit loop over 5 channels" in out and out.strip().endswith("2 credit loop(s)")
    assert main(["check-loops", str(ring_file), "--engine", "updn", "--roots", "sw0"]) == 0


def test_errors_are_one_line(tree, capsys):
    assert main(["trace", str(tree), "node01", "nobody"]) == 2
    assert capsys.readouterr().err == "fabricviz: error: no device named 'nobody'\n"
    assert main(["route", str(tree), "--sm", "ghost"]) == 2
    assert capsys.readouterr().err == "fabricviz: error: no device named 'ghost'\n"
