"""The parts added for today's clusters (issue 27): each real, each with its source, estimates marked."""

from __future__ import annotations

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import load_fabric
from fabricviz.generate import leaf_spine
from fabricviz.model import Catalog, Part

NEW = ("SN2700", "Q3450", "BF3-B3140H", "B300", "GB200-GPU", "GB300-GPU", "DGX-B300", "HGX-B200", "HGX-B300",
       "GB200-TRAY", "GB300-TRAY", "GB200-NVL72", "GB300-NVL72", "UFM-APPLIANCE-3.1", "NVL5-SWITCH-TRAY",
       "100G-DAC", "100G-SR4")


@pytest.fixture(scope="module")
def cat():
    return Catalog.default()


@pytest.mark.parametrize("pid", NEW)
def test_every_new_part_names_its_source_and_marks_its_estimates(cat, pid):
    p = cat.get(pid)
    assert not p.hypothetical and p.vendor and len(p.source) > 40
    assert p.price_usd > 0 and p.price_estimate          # no list prices are published: all estimates
    if p.latency_ns > 0:
        assert p.latency_estimate
    assert "estimate" in p.notes.lower()                 # the notes say which figures are estimates
    assert Part.from_dict(p.to_dict(), "x") == p         # round-trips (a 0-GPU server keeps gpus: 0)


def test_rack_scale_parts_add_up(cat):
    rack, tray, nvl = cat.get("GB200-NVL72"), cat.get("GB200-TRAY"), cat.get("NVL5-SWITCH-TRAY")
    assert (rack.gpus, rack.nics) == (18 * tray.gpus, 18 * tray.nics) == (72, 72)
    # 9 trays × 144 NVLink ports = 72 GPUs × 18 links; 18 links × 50 GB/s = 900 GB/s a GPU each way
    assert 9 * nvl.ports == 72 * 18 and 18 * nvl.nvlink_gbps == cat.get("GB200-GPU").nvlink_gbps
    assert cat.get("GB300-NVL72").nic_part == "CX8" and cat.get("DGX-B300").nic_part == "CX8"


def test_rack_scale_systems_are_never_the_default_dgx(cat):
    assert cat.dgx("4xNDR").id == "DGX-H100"                  # not a GB200 tray (4 GPUs), nor an OEM HGX
    assert cat.dgx("4xNDR", gpu="B200").id == "DGX-B200"
    assert cat.dgx("4xNDR", gpu="B300").id == "DGX-B300"


def test_leaf_spine_at_100gbe_builds_on_a_100gbe_switch(tmp_path, capsys):
    out = tmp_path / "ls.fvz"
    assert main(["generate", "leaf-spine", "--leaves", "4", "--spines", "2", "--hosts-per-leaf", "8",
                 "--speed", "100GbE", "-o", str(out)]) == 0
    f = load_fabric(out)
    c = f.counts()
    assert (c["server"], c["eth_switch"], c["cables"]) == (32, 6, 40)
    assert {p.id for p in f.catalog.user_parts()} == {"SN2700-R10", "SN2700-R4"}   # models of the SN2700
    assert leaf_spine(4, 2, 8, speed="100GbE", switch="SN2700").counts()["eth_switch"] == 6
