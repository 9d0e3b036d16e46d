"""InfiniBand cages in cabling and the BOM (model.cage_cables): a QM9700 carries its 64 NDR ports in 32
twin-port OSFP cages, a Q3400 its 144 XDR ports in 72, a DGX H100/B200 its 8 ConnectX-7 ports in 4
(catalog ``nic_cages``; the DGX H100/H200 user guide's Table 6 pairs them). Each occupied cage holds one
plug: a twin-port transceiver (MMA4Z00-NS, NDR-TWIN-SR4; MMS4A00, XDR-TWIN-DR4) whatever number of its
ports is used, a single-port one (MMA4Z00-NS400, MMS4A20: NDR-SPLIT-SR4, XDR-SPLIT-DR4) in a single-port
HCA's cage, or a splitter DAC (MCP7Y00, NDR-SPLIT-DAC; MCA7K10, XDR-SPLIT-ACC) from a switch cage to two
single-port cages within copper reach. Fibres are one per link (straight MPO: MFP7E10, MFP7E30).

Reference counts (the RA's, tests/data/superpod/ra_tables.json, kept by the generator): an H100 SU has
31 DGX + the UFM's 4 links = 252 node–leaf links and 256 leaf–spine links on 8 leaves and 4 spines.
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.check.bom import bill_of_materials
from fabricviz.generate import superpod
from fabricviz.model import Catalog, CatalogError, Fabric, FabricError, Part
from fabricviz.model.cage_cables import port_share


def lines(bom, category):
    return {(x.part, x.length_m): x.count for x in bom.lines if x.category == category}


def parts(f):
    ct = f.cables_t
    ids, n = np.unique(ct.part[ct.live_ids()], return_counts=True)
    return {f.parts.id_of(int(i)): int(k) for i, k in zip(ids, n, strict=True)}


def modules(bom):
    """Transceiver lines by (part, what their count is)."""
    return {(x.part, x.name.rsplit(": ", 1)[1]): x.count for x in bom.lines if x.category == "transceiver"}


TWIN_EACH, SWITCH, NIC = ("twin-port transceivers, one per occupied cage at each end",
                          "twin-port transceivers, one per occupied switch cage", "single-port transceivers, one per NIC cage")


def test_h100_su_counts_a_transceiver_per_occupied_cage_and_a_fibre_per_link():
    f = superpod("dgx-h100", 1)
    # every DGX link and every leaf–spine link has twin-port cages at both ends; the UFM's 4 single-port
    # HCAs take a twin-to-single-port part (a twin-port module at the leaf, a single-port one in the HCA)
    assert parts(f) == {"NDR-TWIN-SR4": 248 + 256, "NDR-SPLIT-SR4": 4}
    bom = bill_of_materials(f)
    # leaf–spine: 8 leaves × 16 uplink cages + 4 spines × 32 cages = 256 modules for 256 links;
    # node–leaf: 31 DGX × 4 cages + 8 leaves × 16 down cages (rails 0–3: 31 DGX + the UFM on 32 ports;
    # rails 4–7: 31 ports, the 16th cage half used) = 252 modules for 252 links, plus 4 single-port
    # modules in the UFM's HCAs. The UFM's leaf cages are the last DGX's (ports 31, 32): counted once,
    # on the twin-port optics, so the UFM's part adds no twin-port module.
    assert modules(bom) == {("NDR-TWIN-SR4", TWIN_EACH): 256 + 124 + 128, ("NDR-SPLIT-SR4", NIC): 4}
    # node–leaf runs are laid at the RA rack layout's 10 m (superpod.NODE_LEAF_M), the UFM's in its rack at 2 m
    assert lines(bom, "fibre") == {("NDR-TWIN-SR4", 10.0): 248, ("NDR-TWIN-SR4", 15.0): 256,
                                   ("NDR-SPLIT-SR4", 3.0): 4}
    assert lines(bom, "cable") == {}                       # no copper: a DGX cage's two ports go to two leaves
    twin = next(x for x in bom.lines if x.part == "NDR-TWIN-SR4" and x.category == "transceiver")
    assert (twin.unit_price, twin.unit_power, twin.estimate) == (1400.0, 15.0, True)
    single = next(x for x in bom.lines if x.part == "NDR-SPLIT-SR4" and x.category == "transceiver")
    assert (single.unit_price, single.unit_power, single.estimate) == (700.0, 7.5, True)   # a quarter of the part
    assert bom.network_price == 12 * 35_000 + 508 * 1_400 + 4 * 700 == 1_134_000


def test_b200_su_every_cage_twin_port():
    bom = bill_of_materials(superpod("dgx-b200", 1))
    # 32 DGX × 4 cages + 8 leaves × 16 down + 8 × 16 up + 4 spines × 32 = 512 modules for 512 links
    assert lines(bom, "transceiver") == {("NDR-TWIN-SR4", None): 512}
    assert lines(bom, "fibre") == {("NDR-TWIN-SR4", 10.0): 256, ("NDR-TWIN-SR4", 15.0): 256}


@pytest.mark.parametrize("system, split, twin, leaf_cages, nics, up, fibres", [
    # 72 DGX B300 × 8 ConnectX-8s, each in an 800G cage of its own, two to a Q3400 leaf cage, 10 m away in the
    # network rack: per leaf cage a 1.6T twin-port module (8 leaves × 36 cages = 288), per ConnectX-8 an 800G
    # single-port module (576), a straight single-mode fibre per link; no MCA7K10 copper splitter (288 at 2 m
    # before). Up: 8 × 36 leaf cages + 4 spines × 72 = 576 twin-port modules, 576 fibres at 30 m.
    ("dgx-b300-xdr", "XDR-SPLIT-DR4", "XDR-TWIN-DR4", 288, 576, 576, {10.0: 576, 30.0: 576}),
    # 64 DGX B300 × 8 ConnectX-8s at NDR on 16 QM9700 leaves (two per rail): 16 × 16 down cages hold an
    # MMA4Z00-NS each, each ConnectX-8 cage an MMA4Z00-NS400, a straight MFP7E10 per link (no MCP7Y00: 256 at
    # 2 m before); up: 16 × 16 leaf cages + 8 spines × 32 = 512 twin-port modules, 512 fibres at 15 m.
    ("dgx-b300", "NDR-SPLIT-SR4", "NDR-TWIN-SR4", 256, 512, 512, {10.0: 512, 15.0: 512}),
])
def test_b300_su_optics_from_the_leaf_cage_to_the_connectx8_cages(system, split, twin, leaf_cages, nics, up, fibres):
    f = superpod(system, 1)
    assert parts(f) == {split: nics, twin: up}
    bom = bill_of_materials(f)
    assert lines(bom, "cable") == {}
    assert modules(bom) == {(split, SWITCH): leaf_cages, (split, NIC): nics, (twin, TWIN_EACH): up}
    (down_m, up_m), (n_down, n_up) = fibres.keys(), fibres.values()
    assert lines(bom, "fibre") == {(split, down_m): n_down, (twin, up_m): n_up}
    price = {(x.part, x.name.rsplit(": ", 1)[1]): x.unit_price for x in bom.lines if x.category == "transceiver"}
    module = f.catalog.get(twin).price_usd / 2                        # a twin-port module, both parts alike
    assert price == {(split, SWITCH): module, (split, NIC): module / 2, (twin, TWIN_EACH): module}


def test_ndr_b300_su_network_price():
    bom = bill_of_materials(superpod("dgx-b300", 1))
    assert bom.network_price == 24 * 35_000 + 256 * 1_400 + 512 * 700 + 512 * 1_400 == 2_273_600


def pair(links, length, **kw):
    """Two QM9700s joined by ``links`` links (leaf ports 1…, spine ports 1…)."""
    f = Fabric()
    f.add_device("ib_switch", "QM9700", "leaf", tier=1)
    f.add_device("ib_switch", "QM9700", "spine", tier=2)
    for k in range(1, links + 1):
        f.add_cable(f"leaf:{k}", f"spine:{k}", length, **kw)
    return f


@pytest.mark.parametrize("links, modules", [(1, 2), (2, 2), (3, 4)])
def test_a_half_used_twin_port_cage_still_takes_one_transceiver(links, modules):
    bom = bill_of_materials(pair(links, 15.0))
    assert lines(bom, "transceiver") == {("NDR-TWIN-SR4", None): modules}
    assert lines(bom, "fibre") == {("NDR-TWIN-SR4", 15.0): links}


def test_one_splitter_per_switch_cage_and_one_module_per_dgx_cage():
    f = Fabric()
    f.add_device("ib_switch", "QM9700", "leaf", tier=1)
    f.add_device("server", "NODE-1G-NDR", "n1")
    f.add_device("server", "NODE-1G-NDR", "n2")
    f.add_device("server", "NODE-1G-NDR", "n3")
    for k, n in enumerate(("n1", "n2", "n3"), start=1):      # ports 1, 2 share cage 1; port 3 is cage 2's
        f.add_cable(f"leaf:{k}", f"{n}/mlx5_0:1", 2.0)
    f.add_device("server", "DGX-H100", "dgx")
    f.add_cable("leaf:9", "dgx/mlx5_0:1", 10.0)               # NIC 0 is in the DGX's OSFP cage 4 with NIC 3
    f.add_cable("leaf:11", "dgx/mlx5_3:1", 10.0)
    bom = bill_of_materials(f)
    assert parts(f) == {"NDR-SPLIT-DAC": 3, "NDR-TWIN-SR4": 2}
    assert lines(bom, "cable") == {("NDR-SPLIT-DAC", 2.0): 2}
    # the DGX's one cage + the leaf's cages 5 and 6 (ports 9, 11): 3 modules for 2 links
    assert lines(bom, "transceiver") == {("NDR-TWIN-SR4", None): 3}
    share = port_share(f, np.array([f.port_id("dgx/mlx5_0:1"), f.port_id("dgx/mlx5_3:1"), f.port_id("dgx/mlx5_1:1")]))
    assert share.share.tolist() == [2, 2, 2] and share.key[0] == share.key[1] != share.key[2]


def test_a_splitter_on_a_switch_to_switch_link_is_refused_and_changes_nothing():
    f = pair(1, 2.0)
    assert parts(f) == {"NDR-TWIN-SR4": 1}                    # no copper plug joins two twin-port cages' links
    before = (f.counts(), f.cable(int(f.cables_t.live_ids()[0])).part_id)
    with pytest.raises(FabricError, match=r"^leaf:2 – spine:2: NDR-SPLIT-DAC is a breakout cable for a 2x4xNDR "
                                          r"cage \(single far ends\); this link's ends do not share such cages$"):
        f.add_cable("leaf:2", "spine:2", 2.0, part="NDR-SPLIT-DAC")
    assert (f.counts(), f.cable(int(f.cables_t.live_ids()[0])).part_id) == before
    f.add_cable("leaf:2", "spine:2", 2.0, part="NDR-DAC")    # a per-link part may still be chosen by hand
    assert parts(f) == {"NDR-TWIN-SR4": 1, "NDR-DAC": 1}


def test_the_bundled_dgx_parts_carry_their_cages_with_a_source():
    cat = Catalog.default()
    assert cat.get("DGX-H100").nic_cages == (4, 3, 3, 4, 1, 2, 2, 1)       # user guide Table 6, per GPU
    assert cat.get("DGX-B200").nic_cages == (1, 1, 2, 2, 3, 3, 4, 4)
    assert cat.get("DGX-B300").nic_cages == ()                              # a cage per ConnectX-8
    for pid in ("DGX-H100", "DGX-H200", "DGX-B200"):
        assert "OSFP" in cat.get(pid).nic_cages_source
    for pid in ("NDR-TWIN-SR4", "NDR-TWIN-DR4", "NDR-SPLIT-DAC", "NDR-SPLIT-ACC", "XDR-TWIN-DR4", "XDR-SPLIT-ACC",
                "NDR-SPLIT-SR4", "NDR-SPLIT-DR4", "XDR-SPLIT-DR4", "NDR-TWIN-DAC", "NDR-TWIN-ACC", "XDR-TWIN-ACC"):
        p = cat.get(pid)
        assert p.source and p.price_estimate and p.breakout in ("2x4xNDR", "2x4xXDR")


@pytest.mark.parametrize("cages, message", [
    ([1, 2], r"^x\.nic_cages: cages of 2 NICs for 8 NICs$"),
    ([1, 2, 3, 4, 5, 6, 7, 9], r"^x\.nic_cages: must be a list of cage numbers \(1, 2, …\), one per NIC, got "),
    ("1,1", r"^x\.nic_cages: must be a list of cage numbers"),
])
def test_a_bad_nic_cages_field_is_refused(cages, message):
    d = Catalog.default().get("DGX-H100").to_dict() | {"id": "x", "nic_cages": cages}
    with pytest.raises(CatalogError, match=message):
        Part.from_dict(d, "x")


def test_a_cage_with_a_splitter_and_another_plug_is_a_lint_error():
    from fabricviz.check.lint import lint
    f = superpod("dgx-h100", 1)
    assert lint(f, rules=["cage-plug"]).findings == []       # the UFM's links are optics: no splitter
    ufm = f.port("su1-ufm/mlx5_0:1").cable
    f.set_cable(ufm.id, part="NDR-SPLIT-DAC")                 # a splitter where the last DGX's module sits
    (x,) = lint(f, rules=["cage-plug"]).findings
    assert x.format() == ("error  cage-plug  su1-dgx31/mlx5_0:1 – su1-rail0:31, su1-ufm/mlx5_0:1 – su1-rail0:32: "
                          "2 links share one cage on NDR-SPLIT-DAC and NDR-TWIN-SR4: a splitter fills the cage, its "
                          "other ports can only be the splitter's legs (use optics, or a cage of its own)")
