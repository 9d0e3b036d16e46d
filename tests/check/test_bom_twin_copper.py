"""Twin-port copper between switch cages and twin-to-single-port optics (model.cage_cables, check.bom).

Switch to switch within copper reach, NVIDIA joins a Quantum-2 twin-port cage to one far cage with one
twin-port cable, both ports (MCP4Y10-N00x passive to 2 m, MCA4J80 active to 5 m; MCA4K50 for XDR's
Q3400): NDR-TWIN-DAC, NDR-TWIN-ACC, XDR-TWIN-ACC, one per cage pair. A cage whose two links go to two
far cages cannot take it (the cable's legs are fixed), so it keeps twin-port optics. Beyond copper reach a
switch cage feeding two single-port NIC cages takes a twin-port module, two single-port modules and a
straight fibre per link (NDR-SPLIT-SR4/-DR4, XDR-SPLIT-DR4). Every part round-trips through a save (the
NDR200 ones in test_bom_ndr200).
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.check.bom import bill_of_materials
from fabricviz.check.lint import lint
from fabricviz.formats.native import dumps, loads
from fabricviz.model import Fabric, FabricError
from fabricviz.model.cage_cables import PAIRED, TWIN, TWIN_SW, link_classes, paired, port_share


def parts(f):
    ct = f.cables_t
    ids, n = np.unique(ct.part[ct.live_ids()], return_counts=True)
    return {f.parts.id_of(int(i)): int(k) for i, k in zip(ids, n, strict=True)}


def lines(bom, category):
    return {(x.part, x.length_m): x.count for x in bom.lines if x.category == category}


def two_switches(part="QM9700"):
    f = Fabric()
    f.add_device("ib_switch", part, "leaf", tier=1)
    f.add_device("ib_switch", part, "spine", tier=2)
    return f


def join(f, pairs, length):
    """One batch of links ``leaf:a – spine:b`` for (a, b) in ``pairs``."""
    pa = np.array([f.port_id(f"leaf:{a}") for a, _ in pairs])
    pb = np.array([f.port_id(f"spine:{b}") for _, b in pairs])
    return f.add_cables(pa, pb, length)


@pytest.mark.parametrize("length, part, order_m", [(0.5, "NDR-TWIN-DAC", 0.5), (2.0, "NDR-TWIN-DAC", 2.0),
                                                   (2.5, "NDR-TWIN-ACC", 3.0), (5.0, "NDR-TWIN-ACC", 5.0)])
def test_a_cage_pair_joined_by_both_links_takes_one_twin_copper_cable(length, part, order_m):
    f = two_switches()
    join(f, [(1, 1), (2, 2), (3, 3), (4, 4)], length)           # leaf cages 1, 2 to spine cages 1, 2
    assert parts(f) == {part: 4}
    bom = bill_of_materials(f)
    assert lines(bom, "cable") == {(part, order_m): 2}          # one per cage pair
    assert lines(bom, "transceiver") == {} and lines(bom, "fibre") == {}
    (line,) = [x for x in bom.lines if x.category == "cable"]
    assert line.name.endswith(f", {order_m:g} m (one per cage pair: both ports of a cage to one far cage)")
    assert lint(f, rules=["cage-plug"]).findings == []


def test_beyond_copper_reach_a_cage_pair_keeps_twin_optics():
    f = two_switches()
    join(f, [(1, 1), (2, 2)], 6.0)
    assert parts(f) == {"NDR-TWIN-SR4": 2}
    bom = bill_of_materials(f)
    assert lines(bom, "transceiver") == {("NDR-TWIN-SR4", None): 2} and lines(bom, "fibre") == {("NDR-TWIN-SR4", 10.0): 2}


def test_a_cage_whose_links_part_ways_keeps_twin_optics():
    f = two_switches()
    join(f, [(1, 1), (2, 3)], 1.0)                               # leaf cage 1 to spine cages 1 and 2
    assert parts(f) == {"NDR-TWIN-SR4": 2}
    # 3 modules (leaf cage 1, spine cages 1 and 2), a fibre per link
    assert lines(bill_of_materials(f), "transceiver") == {("NDR-TWIN-SR4", None): 3}


def test_links_added_one_at_a_time_keep_optics_and_a_hand_set_twin_cable_is_linted():
    f = two_switches()
    a, b = f.add_cable("leaf:1", "spine:1", 1.0), f.add_cable("leaf:2", "spine:2", 1.0)
    assert parts(f) == {"NDR-TWIN-SR4": 2}                      # each batch joins only half the cage pair
    f.set_cable(a, part="NDR-TWIN-DAC")                          # allowed on a switch cage to switch cage link
    (x,) = lint(f, rules=["cage-plug"]).findings
    assert x.message == ("2 links share one cage on NDR-TWIN-DAC and NDR-TWIN-SR4: a twin-port copper cable fills "
                         "the cage, its other ports can only be its far cage's (use optics, or a cage of its own)")
    f.set_cable(b, part="NDR-TWIN-DAC")
    assert lint(f, rules=["cage-plug"]).findings == [] and parts(f) == {"NDR-TWIN-DAC": 2}
    assert lines(bill_of_materials(f), "cable") == {("NDR-TWIN-DAC", 1.0): 1}


def test_a_twin_copper_cable_whose_cage_goes_to_two_far_cages_is_linted():
    f = two_switches()
    join(f, [(1, 1), (2, 3)], 1.0)
    for c in f.cables_t.live_ids().tolist():
        f.set_cable(c, part="NDR-TWIN-DAC")
    findings = [x.message for x in lint(f, rules=["cage-plug"]).findings]
    assert findings == ["2 links of one cage on NDR-TWIN-DAC go to 2 far cages: a twin-port copper cable joins its "
                        "cage to one far cage (use optics)"]


def test_twin_copper_is_refused_where_a_far_end_is_not_a_switch_cage_and_nothing_changes():
    f = Fabric()
    f.add_device("ib_switch", "QM9700", "leaf", tier=1)
    f.add_device("server", "DGX-H100", "dgx")
    c = f.add_cable("leaf:1", "dgx/mlx5_0:1", 1.0)              # a DGX H100 cage: twin-port optics
    before = f.signature()
    with pytest.raises(FabricError, match=r"^leaf:1 – dgx/mlx5_0:1: NDR-TWIN-DAC is a breakout cable for a 2x4xNDR "
                                          r"cage \(twin far ends\); this link's ends do not share such cages$"):
        f.set_cable(c, part="NDR-TWIN-DAC")
    assert f.signature() == before


def test_link_classes_and_pairing():
    f = two_switches()
    f.add_device("server", "DGX-H100", "dgx")
    pa = np.array([f.port_id(p) for p in ("leaf:1", "leaf:2", "leaf:3", "leaf:5")])
    pb = np.array([f.port_id(p) for p in ("spine:1", "spine:2", "spine:3", "dgx/mlx5_0:1")])
    ca, cb = port_share(f, pa), port_share(f, pb)
    cls = link_classes(ca, cb)
    assert cls.tolist() == [TWIN_SW, TWIN_SW, TWIN_SW, TWIN]
    assert paired(ca, cb, cls).tolist() == [PAIRED, PAIRED, TWIN_SW, TWIN]   # leaf:3 – spine:3 is alone in its cages


def test_xdr_cage_pair_within_3_m_takes_one_mca4k50():
    f = two_switches("Q3400")
    join(f, [(1, 1), (2, 2)], 3.0)
    assert parts(f) == {"XDR-TWIN-ACC": 2}
    assert lines(bill_of_materials(f), "cable") == {("XDR-TWIN-ACC", 3.0): 1}


def test_every_new_cage_part_round_trips_through_a_save():
    f = Fabric()
    for name, part in (("q1", "QM9700"), ("q2", "QM9700"), ("x1", "Q3400"), ("x2", "Q3400")):
        f.add_device("ib_switch", part, name, tier=1 if name.endswith("1") else 2)
    for k in range(1, 4):
        f.add_device("server", "NODE-1G-NDR", f"n{k}")
    f.add_device("server", "DGX-B300", "b300")
    f.add_cables(np.array([f.port_id("q1:1"), f.port_id("q1:2")]), np.array([f.port_id("q2:1"), f.port_id("q2:2")]),
                 1.0)                                                                   # NDR-TWIN-DAC
    f.add_cables(np.array([f.port_id("q1:3"), f.port_id("q1:4")]), np.array([f.port_id("q2:3"), f.port_id("q2:4")]),
                 4.0)                                                                   # NDR-TWIN-ACC
    f.add_cables(np.array([f.port_id("x1:1"), f.port_id("x1:2")]), np.array([f.port_id("x2:1"), f.port_id("x2:2")]),
                 2.5)                                                                   # XDR-TWIN-ACC
    f.add_cable("q1:5", "n1/mlx5_0:1", 20.0)                                            # NDR-SPLIT-SR4
    f.add_cable("q1:6", "n2/mlx5_0:1", 20.0)
    f.add_cable("q1:7", "n3/mlx5_0:1", 80.0)                                            # NDR-SPLIT-DR4
    f.add_cable("x1:3", "b300/mlx5_0:1", 10.0)                                          # XDR-SPLIT-DR4
    want = {"NDR-TWIN-DAC": 2, "NDR-TWIN-ACC": 2, "XDR-TWIN-ACC": 2, "NDR-SPLIT-SR4": 2, "NDR-SPLIT-DR4": 1,
            "XDR-SPLIT-DR4": 1}
    assert parts(f) == want
    g = loads(dumps(f))
    assert parts(g) == want and dumps(g) == dumps(f)
    bom = {(x.category, x.part, x.name.rsplit(": ", 1)[-1]): x.count for x in bill_of_materials(g).lines
           if x.category == "transceiver"}
    assert bom == {("transceiver", "NDR-SPLIT-SR4", "twin-port transceivers, one per occupied switch cage"): 1,
                   ("transceiver", "NDR-SPLIT-SR4", "single-port transceivers, one per NIC cage"): 2,
                   ("transceiver", "NDR-SPLIT-DR4", "twin-port transceivers, one per occupied switch cage"): 1,
                   ("transceiver", "NDR-SPLIT-DR4", "single-port transceivers, one per NIC cage"): 1,
                   ("transceiver", "XDR-SPLIT-DR4", "twin-port transceivers, one per occupied switch cage"): 1,
                   ("transceiver", "XDR-SPLIT-DR4", "single-port transceivers, one per NIC cage"): 1}
