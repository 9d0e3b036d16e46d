"""Breakout cables in the BOM (model.cage_cables): one plug per shared cage, each a real NVIDIA part.

The DGX B300 Spectrum-X RA (tests/data/superpod/ra_tables.json, Table 3): per SU 64 nodes, 16 leaves,
8 spines, 512 node–leaf and 512 leaf–spine cables. fabricviz builds it twin-planar (``--fabric roce
--planes 2``): SN5600s broken out to 128 × 400GbE, each ConnectX-8's one OSFP cage split into
2 × 400GbE, one per plane. Every cage is shared at both ends, so every cable is twin-port optics
(400G-TWIN-SR4: MMA4Z00-NS 2 × SR4 in each cage, a straight MFP7E10 fibre per 400G link), counted
one per cage as the RA counts them: 512 at 3 m (node–leaf, 2 m links) + 512 at 15 m (leaf–spine) per
SU, each priced as two twin-port modules (2 × $1,400, estimate)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabricviz.check.bom import bill_of_materials
from fabricviz.cli import main
from fabricviz.generate import leaf_spine, superpod
from fabricviz.model import Catalog, CatalogError, Fabric, FabricError, Part

B300 = json.loads((Path(__file__).parents[1] / "data" / "superpod" / "ra_tables.json").read_text())[
    "systems"]["dgx-b300"]["rows"]


@pytest.mark.parametrize("row", [r for r in B300 if r["sus"] < 8], ids=lambda r: f"{r['sus']}su")
def test_b300_twin_plane_bom_prices_every_cable_at_the_ra_counts(row):
    f = superpod("dgx-b300", row["sus"], fabric="roce", planes=2)
    bom = bill_of_materials(f)
    lines = [ln for ln in bom.lines if ln.category in ("cable", "transceiver", "fibre")]
    assert {ln.part for ln in lines} == {"400G-TWIN-SR4"}            # no unpriced breakout line left
    assert bom.unpriced_items == 0
    assert all(ln.unit_price > 0 and not ln.unpriced for ln in lines if ln.category != "fibre")
    fibre = {ln.length_m: ln.count for ln in lines if ln.category == "fibre"}
    assert fibre == {10.0: row["node_leaf"], 15.0: row["leaf_spine"]}      # one pair per cage: the RA's cables
    optics = bom.count("transceiver", "400G-TWIN-SR4")
    assert optics == 2 * (row["node_leaf"] + row["leaf_spine"])
    ln = next(x for x in lines if x.category == "transceiver")
    assert (ln.unit_price, ln.unit_power, ln.estimate) == (1400.0, 15.0, True)
    assert ln.total_price == optics * 1400.0


def test_b300_bom_from_the_cli(tmp_path, capsys):
    out = tmp_path / "b300r.fabric.json"
    assert main(["generate", "superpod", "--system", "dgx-b300", "--units", "1", "--fabric", "roce", "--planes", "2",
                 "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["bom", str(out)]) == 0
    text = capsys.readouterr().out
    assert "hypothetical" not in text and "-cable" not in text
    rows = [" ".join(r.split()) for r in text.splitlines()]
    assert any(r.startswith("transceiver 400G-TWIN-SR4 ") and " 2,048 $1,400 $2,867,200 30720 W est." in r
               for r in rows)
    assert "network (switches, cables, optics, NICs not in servers): $4,307,200, 53.28 kW" in text


def test_a_splitter_serves_a_broken_out_cage_to_single_port_nics():
    f = leaf_spine(2, 64, 64, switch="SN5600")                    # 128-port leaves, 64 hosts each
    host = f.cable_ids()[0]
    cab = f.cable(int(host))
    assert cab.part_id == "400G-SPLIT-DAC" and cab.length_m <= 3
    bom = bill_of_materials(f)
    assert bom.count("cable", "400G-SPLIT-DAC") == 64             # 128 hosts, two per leaf cage
    # up: a leaf cage's two links to two native SN5600 spines (an OSFP cage each, a twin-port module with
    # one fibre in use): twin optics, 64 leaf cages + 128 spine cages = 192 modules, 64 fibre pairs
    assert bom.count("transceiver", "400G-TWIN-SR4") == 192 and bom.count("fibre", "400G-TWIN-SR4") == 64
    # twin-port optics need a shared cage at both ends; this NIC has a cage of its own
    with pytest.raises(FabricError, match=r"^node001/mlx5_0:1 – leaf01:1: 400G-TWIN-SR4 is a breakout cable for a "
                                          r"2x400GbE cage \(twin far ends\); this link's ends do not share such cages$"):
        f.set_cable(int(host), part="400G-TWIN-SR4")
    # too long for the splitter: its links fall back to per-link parts and the cage's cable is listed unpriced
    f.set_cable(int(host), length_m=10.0, ctype="aoc")
    assert f.cable(int(host)).part_id == "400G-AOC"
    assert bill_of_materials(f).count("cable", "SN5600-2x400GbE-cable") == 1


def test_per_link_parts_never_pick_a_breakout_cable():
    cat = Catalog.default()
    assert cat.cable_for("400GbE", 2.0).id == "400G-DAC" and cat.cable_for("400GbE", 40.0).id == "400G-AOC"
    f = Fabric(cat, name="two")
    f.add_device("eth_switch", "SN5400", name="a")
    f.add_device("eth_switch", "SN5400", name="b")
    assert f.cable(f.add_cable("a:1", "b:1", 2.0)).part_id == "400G-DAC"
    with pytest.raises(FabricError, match=r"a:2 – b:2: 400G-SPLIT-DAC is a breakout cable for a 2x400GbE cage"):
        f.add_cable("a:2", "b:2", 2.0, part="400G-SPLIT-DAC")


@pytest.mark.parametrize("change, why", [
    ({"far_end": None}, r"x\.far_end: missing \(a breakout cable names both the cage it serves and its far ends\)"),
    ({"far_end": "both"}, r"x\.far_end: unknown far end 'both' \(use single or twin\)"),
    ({"breakout": "4x200GbE"}, r"x\.breakout: 4x200GbE does not run at max_rate 400GbE"),
])
def test_a_breakout_cable_part_is_checked(change, why):
    d = Catalog.default().get("400G-SPLIT-DAC").to_dict()
    for k, v in change.items():
        if v is None:
            d.pop(k)
        else:
            d[k] = v
    with pytest.raises(CatalogError, match=why):
        Part.from_dict(d, "x")


def test_a_split_nic_port_to_single_switch_ports_keeps_per_link_cables():
    # fat_tree(radix=8, planes=2, roce): a ConnectX-8 cage split 2 × 400GbE to two planes' radix-8 leaves
    # (cages of their own, no breakout): a splitter's single ends are for adapters, twin optics need
    # twin-port cages at both ends — so per-link parts, as before
    from fabricviz.generate import fat_tree
    from fabricviz.model.cage_cables import OTHER, link_classes, port_share
    f = fat_tree(radix=8, planes=2, fabric="roce")
    host = [int(c) for c in f.cable_ids() if f.cable(int(c)).port_a.device.kind == "nic"
            or f.cable(int(c)).port_b.device.kind == "nic"]
    assert len(host) == 64 and {f.cable(c).part_id for c in host} == {"400G-DAC"}
    ct = f.cables_t
    cls = link_classes(port_share(f, ct.port_a[host]), port_share(f, ct.port_b[host]))
    assert set(cls.tolist()) == {OTHER}
    assert bill_of_materials(f).count("cable", "400G-DAC") == 64
