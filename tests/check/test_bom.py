"""Bill of materials on generated fabrics against hand-computed counts, costs and power.

Catalog figures used (bundled catalog): QM9700 $35,000 / 747 W (the k=8 tree uses its
8-port model QM9700-R8: hypothetical, so unpriced and out of the totals, at 747 W); NODE-1G-NDR $50,000 / 1,275 W; DGX-H100
$400,000 / 10,200 W (GPUs and NICs priced inside the servers); NDR-DAC $350 / 0.2 W per
link; NDR-SR4 $1,500 / 16 W per link = 2 transceivers at $750 / 8 W; NDR-TWIN-SR4 $2,800 / 30 W per
cage cable = 2 twin-port modules at $1,400 / 15 W (a DGX H100's and a QM9700's cages). Generators: host
cables 2 m, leaf-spine 15 m, spine-core 30 m.
"""

import csv
import json

import pytest

from fabricviz.check.bom import CSV_HEADER, bill_of_materials, load_prices
from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate.fattree import k_ary_fat_tree
from fabricviz.generate.leafspine import leaf_spine
from fabricviz.generate.nvlink_racks import nvl72_racks
from fabricviz.generate.rail import rail_optimized
from fabricviz.model import FabricError


def rows(bom):
    return [(x.category, x.part, x.count, x.unit_price, x.unit_power, x.estimate, x.length_m)
            + (("unpriced",) if x.unpriced else ()) for x in bom.lines]


@pytest.fixture(scope="module")
def k8_bom():
    return bill_of_materials(k_ary_fat_tree(8))


def test_k8_fat_tree(k8_bom):
    # k=8: k³/4 = 128 hosts, 5k²/4 = 80 switches; 128 host cables (2 m DAC),
    # 128 leaf-spine (15 m) + 128 spine-core (30 m) links on optics
    assert rows(k8_bom) == [
        ("server", "NODE-1G-NDR", 128, 50000.0, 1275.0, True, None),
        ("gpu", "H100-SXM5", 128, 0.0, 0.0, False, None),
        ("nic", "CX7-1P", 128, 0.0, 0.0, False, None),
        ("switch", "QM9700-R8", 80, 0.0, 747.0, False, None, "unpriced"),
        ("cable", "NDR-DAC", 128, 350.0, 0.2, True, 2.0),
        ("transceiver", "NDR-SR4", 512, 750.0, 8.0, True, None),
        ("fibre", "NDR-SR4", 128, 0.0, 0.0, False, 15.0),
        ("fibre", "NDR-SR4", 128, 0.0, 0.0, False, 30.0),
    ]
    # 128·50,000 + 128·350 + 512·750 (the 80 hypothetical switches are not priced)
    assert k8_bom.total_price == 6_828_800 and k8_bom.unpriced_items == 80
    # 128·1,275 + 80·747 + 128·0.2 + 512·8
    assert k8_bom.total_power == pytest.approx(227_081.6, abs=1e-6)
    assert k8_bom.network_price == 428_800
    assert (k8_bom.host_ports, k8_bom.gpus) == (128, 128)
    per = k8_bom.per_host_port()
    assert per["price_usd"] == 53_350 and per["network_price_usd"] == 3_350
    assert per["power_w"] == pytest.approx(227_081.6 / 128)
    assert k8_bom.includes_estimates
    assert k8_bom.count("switch") == 80 and k8_bom.count("transceiver", "NDR-SR4") == 512


def test_rail_optimized_one_su():
    # 1 SU: 32 DGX-H100 (256 GPUs, 256 NICs, 32 HGX baseboards of 4 NVSwitch chips), 8 rail leaves +
    # 4 spines. Every cage is twin-port: a DGX's 8 ConnectX-7 ports sit behind 4 OSFP cages, a
    # QM9700's 64 ports behind 32, so every link takes twin-port optics (NDR-TWIN-SR4, MMA4Z00-NS at
    # $1,400 / 15 W a module, estimate): one module per occupied cage at each end — 32 × 4 DGX cages +
    # 8 × 16 leaf down cages (node–leaf) + 8 × 16 leaf up cages + 4 × 32 spine cages (leaf–spine) = 512 —
    # and one fibre per link: 256 at 3 m (2 m links) and 256 at 15 m. No DGX cage takes copper: its two
    # ports go to two rails' leaves.
    bom = bill_of_materials(rail_optimized(1))
    assert rows(bom) == [
        ("server", "DGX-H100", 32, 400000.0, 10200.0, True, None),
        ("gpu", "H100-SXM5", 256, 0.0, 0.0, False, None),
        ("nic", "CX7-1P", 256, 0.0, 0.0, False, None),
        ("switch", "QM9700", 12, 35000.0, 747.0, True, None),
        ("nvlink", "HGX-H100-8", 128, 0.0, 0.0, False, None),
        ("transceiver", "NDR-TWIN-SR4", 512, 1400.0, 15.0, True, None),
        ("fibre", "NDR-TWIN-SR4", 256, 0.0, 0.0, False, 3.0),
        ("fibre", "NDR-TWIN-SR4", 256, 0.0, 0.0, False, 15.0),
    ]
    assert bom.total_price == 32 * 400_000 + 12 * 35_000 + 512 * 1_400 == 13_936_800
    assert bom.total_power == pytest.approx(32 * 10_200 + 12 * 747 + 512 * 15)   # 343,044
    assert (bom.host_ports, bom.gpus) == (256, 256)


def test_roce_leaf_spine_uses_ethernet_parts():
    # 4 leaves × 8 hosts, 2 spines, 2 uplinks per leaf (10-port and 4-port hypothetical models of
    # the SN4700: unpriced, 630 W): 32 host DACs (400G-DAC $300), 8 leaf-spine 15 m AOCs ($1,500)
    bom = bill_of_materials(leaf_spine(4, 2, 8))
    assert rows(bom) == [
        ("server", "NODE-1G-NDR", 32, 50000.0, 1275.0, True, None),
        ("gpu", "H100-SXM5", 32, 0.0, 0.0, False, None),
        ("nic", "CX7-1P", 32, 0.0, 0.0, False, None),
        ("switch", "SN4700-R10", 4, 0.0, 630.0, False, None, "unpriced"),
        ("switch", "SN4700-R4", 2, 0.0, 630.0, False, None, "unpriced"),
        ("cable", "400G-AOC", 8, 1500.0, 16.0, True, 15.0),
        ("cable", "400G-DAC", 32, 300.0, 0.2, True, 2.0),
    ]
    assert bom.total_price == 32 * 50_000 + 8 * 1_500 + 32 * 300 == 1_621_600 and bom.unpriced_items == 6
    assert bom.count("transceiver") == 0                 # AOCs carry their own optics


def test_price_overrides_remove_the_estimate_flag(tmp_path, k8_bom):
    p = tmp_path / "prices.json"
    p.write_text(json.dumps({"QM9700-R8": 30000, "NDR-SR4": {"price_usd": 1400, "power_w": 14}}))
    prices = load_prices(p)
    bom = bill_of_materials(k_ary_fat_tree(8), prices)
    sw = [x for x in bom.lines if x.category == "switch"][0]
    opt = [x for x in bom.lines if x.category == "transceiver"][0]
    assert (sw.unit_price, sw.estimate, sw.unpriced) == (30000.0, False, False)
    assert (opt.unit_price, opt.unit_power, opt.estimate) == (700.0, 7.0, False)
    # the hypothetical switches now priced: 6,828,800 + 80·30,000 − 512·50
    assert bom.total_price == 6_828_800 + 80 * 30_000 - 512 * 50 == 9_203_200 and bom.unpriced_items == 0
    assert bom.overridden == ["NDR-SR4", "QM9700-R8"]


def test_estimates_only_when_some_priced_line_is_an_estimate(k8_bom):
    prices = {x.part: {"price_usd": x.unit_price * (2 if x.category == "transceiver" else 1)}
              for x in k8_bom.lines if x.estimate}
    bom = bill_of_materials(k_ary_fat_tree(8), prices)
    assert not bom.includes_estimates and bom.total_price == k8_bom.total_price
    assert "(includes estimates)" not in bom.format() and "(includes estimates)" in k8_bom.format()


@pytest.mark.parametrize("doc,msg", [
    ({"QM9700": -1}, "QM9700: price_usd must be a non-negative number, got -1"),
    ({"QM9700": {"cost": 1}}, "QM9700.cost: unknown field (use price_usd, power_w)"),
    ([1, 2], "a prices file is an object mapping part id to price"),
])
def test_bad_prices_file(tmp_path, doc, msg):
    p = tmp_path / "p.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(FabricError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        load_prices(p)


def test_unknown_part_in_prices():
    with pytest.raises(FabricError, match="prices: NOPE: not a part of the design's catalog"):
        bill_of_materials(rail_optimized(1), {"NOPE": {"price_usd": 1.0}})


def test_cli_csv_export(tmp_path, capsys):
    design, out = tmp_path / "rail.json", tmp_path / "bom.csv"
    save_fabric(rail_optimized(1), design)
    assert main(["bom", str(design), "--csv", str(out)]) == 0
    text = capsys.readouterr().out
    assert "total: $13,936,800, 343.044 kW (includes estimates)" in text
    table = list(csv.reader(out.open()))
    assert tuple(table[0]) == CSV_HEADER
    assert table[1] == ["server", "DGX-H100", "NVIDIA DGX H100", "32", "400000", "12800000", "10200", "326400", "est."]
    assert sum(float(r[5]) for r in table[1:]) == 13_936_800
    assert main(["bom", str(design), "--prices", str(tmp_path / "missing.json")]) == 2
    assert capsys.readouterr().err.endswith("missing.json: no such file\n")


def test_cli_csv_export_that_fails_keeps_the_old_csv_whole(tmp_path, capsys, monkeypatch):
    import os
    design, out = tmp_path / "rail.json", tmp_path / "bom.csv"
    save_fabric(rail_optimized(1), design)
    out.write_text("old,csv\n", encoding="utf-8")

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", full_disk)
    assert main(["bom", str(design), "--csv", str(out)]) == 2
    assert capsys.readouterr().err == f"fabricviz: error: {out}: cannot save: No space left on device\n"
    assert out.read_text(encoding="utf-8") == "old,csv\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bom.csv", "rail.json"]


def test_cli_bom_of_a_radix_16_tree_leaves_the_hypothetical_switches_unpriced(tmp_path, capsys):
    # radix 16: no catalog switch has 16 ports, so the 24 switches are QM9700-R16, a hypothetical
    # model; before it was priced as the real $35,000 QM9700 (24 × 35,000 = $840,000 too much)
    design, out = tmp_path / "r16.json", tmp_path / "bom.csv"
    assert main(["generate", "fat-tree", "--levels", "2", "--radix", "16", "-o", str(design)]) == 0
    capsys.readouterr()
    assert main(["bom", str(design), "--csv", str(out)]) == 0
    text = capsys.readouterr().out.splitlines()
    switch = next(x for x in text if x.startswith("switch"))
    assert switch.split() == ["switch", "QM9700-R16", "hypothetical", "16-port", "model", "of", "the", "QM9700",
                              "(Quantum-2)", "24", "—", "—", "17928", "W", "hypothetical", "—", "set", "a",
                              "price"]
    # 128 nodes × 50,000 + 128 DACs × 350 + 256 optics × 750
    assert "total: $6,636,800, 183.202 kW (includes estimates)" in text
    assert ("not in the total: 24 unpriced item(s) of hypothetical parts (give them a price in a prices file)"
            in text)
    row = next(r for r in csv.reader(out.open()) if r[0] == "switch")
    assert row == ["switch", "QM9700-R16", "hypothetical 16-port model of the QM9700 (Quantum-2)", "24", "", "",
                   "747", "17928", "hypothetical — set a price"]
    prices = tmp_path / "p.json"
    prices.write_text(json.dumps({"QM9700-R16": 9000}))
    assert main(["bom", str(design), "--prices", str(prices)]) == 0
    text = capsys.readouterr().out
    assert "total: $6,852,800, 183.202 kW (includes estimates)" in text and "unpriced" not in text


def test_nvl72_racks_buy_their_nvlink_switch_trays():
    """2 GB200 NVL72 racks: 36 compute trays (servers) and 2 × 9 NVLink switch trays (the catalog's
    NVL5-SWITCH-TRAY, estimated $60,000 and 1,500 W each)."""
    bom = bill_of_materials(nvl72_racks(2))
    assert bom.count("server", "GB200-TRAY") == 36 and bom.count("gpu") == 144
    (tray,) = [x for x in bom.lines if x.category == "nvlink"]
    assert (tray.part, tray.count, tray.unit_price, tray.unit_power, tray.estimate) == \
        ("NVL5-SWITCH-TRAY", 18, 60000.0, 1500.0, True)
    # 144 tray NICs two to a leaf's twin-port cage: 72 MCP7Y00 splitters (NDR-SPLIT-DAC, $600 estimate); 64
    # leaf–spine links: 32 leaf + 32 spine cages, one twin-port module each ($1,400 estimate)
    assert bom.count("cable", "NDR-SPLIT-DAC") == 72 and bom.count("transceiver", "NDR-TWIN-SR4") == 64
    assert bom.network_price == 5 * 35000 + 18 * 60000 + 72 * 600 + 64 * 1400
