"""``route`` / ``trace`` on a RoCE design: ECMP per plane of the Spectrum-X twin-plane DGX B300 (1 SU).

Per plane: 8 leaves (SN5600 at 128 × 400GbE, 64 GPUs down, 64 up), 4 spines; each leaf runs 16
parallel links to every spine, so towards another leaf a leaf has 4 × 16 = 64 ECMP members and a
spine 16 (its parallel links to that leaf)."""

from __future__ import annotations

import json

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import superpod
from fabricviz.model.planes import plane_fabric
from fabricviz.sim.ecmp_route import ecmp_summary, ecmp_trace


@pytest.fixture(scope="module")
def b300r():
    return superpod("dgx-b300", 1, fabric="roce", planes=2)


def test_ecmp_members_per_plane(b300r):
    for k in (0, 1):
        s = ecmp_summary(plane_fabric(b300r, k))
        assert (s.switches, s.host_ports, s.members) == (12, 512, {"leaf": (64, 64), "spine": (16, 16)})
    whole = ecmp_summary(b300r)
    assert (whole.switches, whole.host_ports) == (24, 1024)


def test_trace_stays_in_its_plane_and_hashes_per_plane(b300r):
    one = ecmp_trace(plane_fabric(b300r, 0), "su1-dgx01/mlx5_0", "su1-dgx33/mlx5_3")
    two = ecmp_trace(plane_fabric(b300r, 1), "su1-dgx01/mlx5_0", "su1-dgx33/mlx5_3")
    assert one == ["  1  su1-dgx01/mlx5_0:1 -> su1-rail0-p1:1", "  2  su1-rail0-p1:85 -> spine02-p1:5",
                   "  3  spine02-p1:57 -> su1-rail3-p1:89", "  4  su1-rail3-p1:33 -> su1-dgx33/mlx5_3:1"]
    assert two == ["  1  su1-dgx01/mlx5_0:2 -> su1-rail0-p2:1", "  2  su1-rail0-p2:70 -> spine01-p2:6",
                   "  3  spine01-p2:61 -> su1-rail3-p2:77", "  4  su1-rail3-p2:33 -> su1-dgx33/mlx5_3:2"]


def test_route_and_trace_cli_on_a_roce_plane(b300r, tmp_path, capsys):
    path = tmp_path / "b300r.fabric.json"
    save_fabric(b300r, path)
    assert main(["route", str(path), "--plane", "1"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "12 switches, 512 host ports, routed by ECMP (equal-cost next hops)",
        "ECMP members towards a leaf, leaf: 64", "ECMP members towards a leaf, spine: 16"]
    assert main(["route", str(path), "--plane", "plane1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ecmp_members"] == {"leaf": [64, 64], "spine": [16, 16]}
    assert main(["trace", str(path), "su1-dgx01/mlx5_0", "su1-dgx33/mlx5_3", "--plane", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "  2  su1-rail0-p2:70 -> spine01-p2:6"
    assert main(["route", str(path), "--dump-lfts", str(tmp_path / "x.dump")]) == 2
    assert capsys.readouterr().err.strip() == (f"fabricviz: error: --dump-lfts: {path} is an Ethernet design, "
                                               "routed by ECMP (no subnet manager)")
    assert not (tmp_path / "x.dump").exists()


def test_simulate_twin_plane_roce_per_plane(b300r, tmp_path, capsys):
    path = tmp_path / "b300r.fabric.json"
    save_fabric(b300r, path)
    assert main(["simulate", str(path), "--workload", "permutation"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "512 flows over 2 planes (maxmin): mean 365.82 Gb/s per flow",
        "  plane1: mean 183.06 Gb/s, 0 flows it cannot carry",
        "  plane2: mean 182.76 Gb/s, 0 flows it cannot carry"]
