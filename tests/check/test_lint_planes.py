"""Lint rules of multi-plane designs (fabricviz.check.lint_planes) on ``fat_tree(radix=8, planes=2)``."""

from __future__ import annotations

import pytest

from fabricviz.check.lint import lint
from fabricviz.generate import fat_tree


@pytest.fixture()
def two():
    return fat_tree(radix=8, planes=2)


def plane_findings(f) -> list[tuple[str, str, str]]:
    return [(x.rule, x.message, x.where) for x in lint(f).findings if x.rule.startswith("plane")]


def test_a_generated_multi_plane_design_is_clean(two):
    assert lint(two).findings == []


def test_nic_ports_in_the_wrong_plane(two):
    nic = two.find("node01/mlx5_0")
    p1 = int(two.devices_t.first_port[nic])
    c1, c2 = int(two.ports_t.cable[p1]), int(two.ports_t.cable[p1 + 1])
    a, b = int(two.cables_t.port_b[c1]), int(two.cables_t.port_b[c2])
    assert (two.port_name(a), two.port_name(b)) == ("leaf01-p1:1", "leaf01-p2:1")
    two.remove_cables([c1, c2])
    two.add_cable(p1, b)
    two.add_cable(p1 + 1, a)
    assert plane_findings(two) == [("plane-nic-port", "2 split NIC port(s) cabled into another plane than their own "
                                    "(port k+1 is plane k)", "node01/mlx5_0:1, node01/mlx5_0:2")]


def test_a_switch_in_the_wrong_plane_crosses_planes(two):
    planes = two.meta["planes"]
    two.set_meta("planes", [{"name": "plane1", "switches": [*planes[0]["switches"], "spine01-p2"]},
                            {"name": "plane2", "switches": [s for s in planes[1]["switches"] if s != "spine01-p2"]}])
    (rule, msg, _where), = plane_findings(two)
    assert (rule, msg) == ("plane-crossed", "8 cable(s) join switches of two planes (first: plane2 and plane1): "
                                            "each plane is its own subnet")


def test_unknown_and_unlisted_switches(two):
    planes = two.meta["planes"]
    two.set_meta("planes", [planes[0], {"name": "plane2", "switches": ["nope", *planes[1]["switches"][1:]]}])
    assert plane_findings(two) == [
        ("plane-unknown-switch", "plane2 names 1 switch(es) the design does not have: nope", "meta.planes.plane2"),
        ("plane-missing-switch", "1 switch(es) cabled into a plane but listed in no plane (meta.planes)", "leaf01-p2")]


def test_planes_that_cannot_be_read(two):
    two.set_meta("planes", "x")
    assert plane_findings(two)[0] == (
        "plane-refused", 'meta.planes: expected a list of {"name": NAME, "switches": [NAMES]}', "meta.planes")
