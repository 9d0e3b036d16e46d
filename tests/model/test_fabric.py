"""The model's invariants: each refusal, negotiation, GUIDs, events, undo of removals."""

import numpy as np
import pytest

from fabricviz.model import Fabric, FabricError, LinkRate
from fabricviz.model.guid import MELLANOX_OUI


@pytest.fixture
def fab():
    f = Fabric(name="t")
    f.add_device("ib_switch", "QM9700", name="leaf1", x=0, y=-100)
    f.add_device("ib_switch", "QM8700", name="hdrsw")
    f.add_device("eth_switch", "SN5600", name="eth1")
    f.add_device("server", "DGX-H100", name="dgx1")
    return f


def test_ids_and_names_are_stable(fab):
    leaf = fab.device("leaf1")
    assert leaf.id == 0 and leaf.kind == "ib_switch" and len(leaf.ports) == 64
    assert fab.device(leaf.id).name == "leaf1"
    dgx = fab.device("dgx1")
    assert [g.name for g in dgx.gpus] == [f"dgx1/gpu{i}" for i in range(8)]
    assert [n.name for n in dgx.nics] == [f"dgx1/mlx5_{i}" for i in range(8)]
    # each GPU i is bound to NIC i over PCIe
    assert [g.nic.name for g in dgx.gpus] == [f"dgx1/mlx5_{i}" for i in range(8)]
    assert fab.find("dgx1/mlx5_3") == dgx.nics[3].id
    assert fab.find("dgx1/mlx5_9") is None


def test_duplicate_name_refused(fab):
    with pytest.raises(FabricError, match="'leaf1' is already used"):
        fab.add_device("ib_switch", "QM9700", name="leaf1")
    with pytest.raises(FabricError, match="already used"):
        fab.rename(fab.find("hdrsw"), "dgx1/gpu0")


def test_port_takes_one_cable(fab):
    fab.add_cable("dgx1/mlx5_0:1", "leaf1:1", 2.0)
    before = fab.counts()["cables"]
    with pytest.raises(FabricError) as e:
        fab.add_cable("dgx1/mlx5_1:1", "leaf1:1", 2.0)
    assert str(e.value) == "leaf1:1 is already cabled to dgx1/mlx5_0:1"
    assert fab.counts()["cables"] == before
    assert fab.port("dgx1/mlx5_1:1").cable is None


def test_ib_to_ethernet_refused(fab):
    with pytest.raises(FabricError) as e:
        fab.add_cable("leaf1:2", "eth1:1", 1.0)
    assert str(e.value) == "leaf1:2 – eth1:1: cannot cable InfiniBand (4xNDR) to Ethernet (800GbE)"
    assert fab.counts()["cables"] == 0


def test_same_device_and_bad_port_refused(fab):
    with pytest.raises(FabricError, match="two different devices"):
        fab.add_cable("leaf1:1", "leaf1:2")
    with pytest.raises(FabricError, match=r"leaf1:65: no such port \(leaf1 has ports 1-64\)"):
        fab.add_cable("leaf1:65", "hdrsw:1")


def test_negotiates_to_lower_end(fab):
    c = fab.cable(fab.add_cable("leaf1:3", "hdrsw:1", 2.0))
    assert c.rate == LinkRate.parse("4xHDR")          # NDR port to HDR port comes up HDR
    assert c.port_a.rate == LinkRate.parse("4xNDR")    # the ports keep their own capability
    fab.set_port_rate(fab.port_id("leaf1:3"), "1xNDR")
    assert str(fab.cable(c.id).rate) == "1xHDR"        # narrower width and lower speed win


def test_dac_past_reach_refused(fab):
    dac = max((p for p in fab.catalog.by_kind("cable") if p.cable_type == "dac" and p.tech == "ib"
               and p.rate == LinkRate.parse("4xNDR")), key=lambda p: p.reach_m)
    too_long = dac.reach_m + 1
    with pytest.raises(FabricError) as e:
        fab.add_cable("dgx1/mlx5_0:1", "leaf1:1", too_long, ctype="dac")
    msg = str(e.value)
    assert msg.startswith("dgx1/mlx5_0:1 – leaf1:1:") and "too long" in msg and "AOC" in msg
    assert fab.counts()["cables"] == 0
    # without a type the cheapest cable that reaches is chosen (not a DAC)
    c = fab.cable(fab.add_cable("dgx1/mlx5_0:1", "leaf1:1", too_long))
    assert c.type in ("aoc", "transceiver") and c.part.reach_m >= too_long
    with pytest.raises(FabricError, match="too long"):
        fab.set_cable(c.id, ctype="dac")
    assert fab.cable(c.id).type == c.type


def test_guids_realistic_and_unique(fab):
    leaf, nic = fab.device("leaf1"), fab.device("dgx1/mlx5_0")
    assert leaf.guid >> 40 == MELLANOX_OUI and nic.guid >> 40 == MELLANOX_OUI
    assert nic.ports[0].guid == nic.guid + 1           # CA port GUID = node GUID + port
    assert leaf.ports[0].guid == 0                     # switch external ports have none
    guids = [d.guid for d in fab.devices() if d.is_ib]
    assert len(guids) == len(set(guids)) == 2 + 8
    assert fab.device("eth1").guid == 0 and fab.device("dgx1/gpu0").guid == 0
    with pytest.raises(FabricError, match="already used by leaf1"):
        fab.set_guid(fab.find("hdrsw"), leaf.guid)
    with pytest.raises(FabricError, match="already used by dgx1/mlx5_0"):
        fab.set_guid(fab.find("hdrsw"), nic.guid + 1)   # clashes with a port GUID
    with pytest.raises(FabricError, match="already used"):
        fab.add_device("ib_switch", "QM9700", name="x", guid=leaf.guid)
    assert fab.find("x") is None


def test_events_without_qt(fab):
    seen = []
    unsubscribe = fab.subscribe(seen.append)
    cid = fab.add_cable("leaf1:5", "hdrsw:5")
    fab.rename(fab.find("hdrsw"), "spine1")
    fab.remove_cables([cid])
    unsubscribe()
    fab.rename(fab.find("spine1"), "spine2")
    assert [(e.kind, e.what, e.id) for e in seen] == [
        ("added", "cable", cid), ("changed", "device", 1), ("removed", "cable", cid)]
    assert (seen[1].attr, seen[1].old, seen[1].new) == ("name", "hdrsw", "spine1")


def test_remove_and_restore_same_ids(fab):
    c1 = fab.add_cable("dgx1/mlx5_0:1", "leaf1:1")
    c2 = fab.add_cable("dgx1/mlx5_1:1", "leaf1:2")
    before = fab.signature()
    dgx = fab.find("dgx1")
    removed = fab.remove_devices([dgx])       # takes its 16 children and both cables
    assert fab.counts() == {"server": 0, "gpu": 0, "nic": 0, "ib_switch": 2, "eth_switch": 1, "cables": 0}
    assert fab.port("leaf1:1").cable is None and fab.find("dgx1/gpu0") is None
    assert set(removed.cable_ids.tolist()) == {c1, c2}
    fab.restore(removed)
    assert fab.signature() == before
    assert fab.find("dgx1") == dgx and fab.cable(c1).port_b.name == "leaf1:1"


def test_move_takes_children(fab):
    dgx = fab.device("dgx1")
    gx = dgx.gpus[0].x
    fab.move([dgx.id], 10.0, 5.0)
    assert dgx.x == 10.0 and dgx.gpus[0].x == gx + 10.0


def test_bulk_cables_atomic(fab):
    a = np.array([fab.port_id("leaf1:10"), fab.port_id("leaf1:11")])
    b = np.array([fab.port_id("hdrsw:10"), fab.port_id("eth1:1")])
    with pytest.raises(FabricError, match="InfiniBand"):
        fab.add_cables(a, b, 1.0)
    assert fab.counts()["cables"] == 0 and fab.port("leaf1:10").cable is None


def test_ports_of_nic_modes():
    f = Fabric()
    roce = f.add_device("nic", "CX7-1P", name="n1", mode="400GbE")
    assert str(f.device(roce).ports[0].rate) == "400GbE" and f.device(roce).guid == 0
    with pytest.raises(FabricError, match="cannot run at 800GbE"):
        f.add_device("nic", "CX7-1P", name="n2", mode="800GbE")


def test_cable_choice_keeps_generation():
    f = Fabric()
    f.add_device("ib_switch", "QM8700", name="a")
    f.add_device("ib_switch", "QM8700", name="b")
    c = f.cable(f.add_cable("a:1", "b:1", 2.5))      # longer than the HDR DAC: HDR optics, not NDR copper
    assert c.part.rate == LinkRate.parse("4xHDR") and c.type == "aoc"
    assert str(c.rate) == "4xHDR"
