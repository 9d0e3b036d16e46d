"""NDR200 breakout (model.cage_cables, check.bom): a QM9700 at 2x2xNDR carries 128 NDR200 ports, four to a
twin-port OSFP cage. A cage feeding four single-port 200G NIC cages takes one 1:4 splitter (MCP7Y50 passive
to 3 m, MCA7J70 active at 4-5 m; MCP7Y40 for QSFP112 NICs) or, beyond copper reach, a twin-port module
(MMA4Z00-NS) with a 1:2 splitter fibre (MFP7E20) from each of its two MPO ports to two 400G single-port
modules (MMA4Z00-NS400) running 2 channels (200G): NVIDIA's MMA4Z00-NS400 connectivity page.
"""

from __future__ import annotations

import numpy as np

from fabricviz.check.bom import bill_of_materials
from fabricviz.formats.native import dumps, loads
from fabricviz.generate import fat_tree
from fabricviz.generate.common import add_switches
from fabricviz.generate.superpod import switch_part
from fabricviz.model import Fabric


def rows(bom, *categories):
    return {(x.category, x.part, x.length_m, x.name.rsplit(": ", 1)[-1]): (x.count, x.unit_price, x.unit_power)
            for x in bom.lines if x.category in categories}


def test_a_radix_128_fat_tree_on_qm9700_takes_one_1_to_4_splitter_per_leaf_cage():
    f = fat_tree(levels=2, radix=128, hosts=256, fabric="ib", switch="QM9700")
    assert f.meta["params"]["switch"] == "QM9700-2x2xNDR" and f.meta["params"]["speed"] == "2xNDR"
    bom = bill_of_materials(f)
    # 256 hosts at 2 m, four to a leaf cage: 64 MCP7Y50 (they took one per-link NDR-DAC each before)
    assert bom.count("cable", "NDR200-SPLIT-DAC") == 64 and bom.count("cable", "NDR-DAC") == 0
    (line,) = [x for x in bom.lines if x.part == "NDR200-SPLIT-DAC"]
    assert (line.length_m, line.unit_price, line.estimate) == (2.0, 700.0, True)


def _leaf_and_hosts(lengths):
    f = Fabric()
    add_switches(f, switch_part(f.catalog, "QM9700-2x2xNDR"), ["leaf"], 1)
    for k in range(1, len(lengths) + 1):
        f.add_device("server", "NODE-1G-NDR", f"n{k}")
        f.set_port_rate(f.port_id(f"n{k}/mlx5_0:1"), "2xNDR")
    pa = np.array([f.port_id(f"leaf:{k}") for k in range(1, len(lengths) + 1)])
    pb = np.array([f.port_id(f"n{k}/mlx5_0:1") for k in range(1, len(lengths) + 1)])
    f.add_cables(pa, pb, np.array(lengths, float))
    return f


def test_beyond_copper_a_cage_takes_a_twin_port_module_four_single_port_ones_and_two_splitter_fibres():
    f = _leaf_and_hosts([10.0, 12.0, 20.0, 10.0, 10.0])       # cage 1: ports 1-4; cage 2: port 5
    bom = bill_of_materials(f)
    twin, nic = "twin-port transceivers, one per occupied switch cage", "single-port transceivers, one per NIC cage"
    fibre = "priced with the transceivers)"
    # a part of $4,200 / 45 W = one twin-port module (a third) + four single-port ones (a sixth each)
    assert rows(bom, "transceiver", "cable") == {
        ("transceiver", "NDR200-SPLIT-SR4", None, twin): (2, 1400.0, 15.0),
        ("transceiver", "NDR200-SPLIT-SR4", None, nic): (5, 700.0, 7.5)}
    # one 1:2 fibre per MPO port in use, as long as its longer link: ports 1-2 (12 m → 15), 3-4 (20), 5 (10)
    got = {(k[2]): v[0] for k, v in rows(bom, "fibre").items()}
    assert got == {15.0: 1, 20.0: 1, 10.0: 1}
    assert all(x.name.endswith("one per two links (a twin-port module's MPO port) (" + fibre)
               for x in bom.lines if x.category == "fibre")


def parts(f):
    ct = f.cables_t
    ids, n = np.unique(ct.part[ct.live_ids()], return_counts=True)
    return {f.parts.id_of(int(i)): int(k) for i, k in zip(ids, n, strict=True)}


def test_ndr200_parts_round_trip_through_a_save():
    f = _leaf_and_hosts([2.0, 2.0, 2.0, 2.0, 4.0, 4.0, 4.0, 4.0, 30.0])
    want = {"NDR200-SPLIT-DAC": 4, "NDR200-SPLIT-ACC": 4, "NDR200-SPLIT-SR4": 1}
    assert parts(f) == want
    g = loads(dumps(f))
    assert parts(g) == want and dumps(g) == dumps(f)
