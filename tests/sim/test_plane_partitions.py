"""An InfiniBand partition on a multi-plane design: each plane its own subnet with the design's
partitions.conf, so a partition holds the same hosts on every plane (sim.partitioned.plane_scope).

``fat_tree(radix=8, planes=2)``: 32 one-GPU nodes, each ConnectX-8 split into 2 planes of 400 Gb/s.
``storage``: node01 a full member (named by its plane-1 port GUID), node02 a limited member (its
plane-1 port) and node03 a limited member named by its *plane-2* port GUID. An all-to-all in storage:
3 members, 6 ordered pairs, node02 ↔ node03 refused (two limited members), 4 flows left; node01's
two flows share its GPU's PCIe link (440 Gb/s, each plane running on half): 220 Gb/s per flow,
110 on each plane."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.formats.partitions_conf import loads as conf_loads
from fabricviz.generate import fat_tree
from fabricviz.ib.partitions import to_meta
from fabricviz.model import FabricError
from fabricviz.sim.partitioned import plane_scope
from fabricviz.sim.plane_merge import PlaneRun
from fabricviz.sim.run import run_traffic


def _port_guid(f, node: str, plane: int) -> int:
    """The GUID of ``node``'s NIC port on ``plane`` (0-based): the NIC's port ``plane + 1``."""
    nic = int(f.children_ids(f.find(node))[-1])
    return int(f.ports_t.guid[int(f.devices_t.first_port[nic]) + plane])


def planes_partitioned():
    f = fat_tree(radix=8, planes=2)
    g1, g2, g3 = _port_guid(f, "node01", 0), _port_guid(f, "node02", 0), _port_guid(f, "node03", 1)
    text = ("Default=0x7fff : ALL=full ;\n"
            f"storage=0x8002 : 0x{g1:x}=full, 0x{g2:x}, 0x{g3:x} ;\n")
    f.meta["partitions"] = to_meta(conf_loads(text, "p"))
    return f


@pytest.fixture(scope="module")
def design():
    return planes_partitioned()


def test_a_partition_holds_the_same_hosts_on_every_plane(design):
    f = design
    scope = plane_scope(f, "storage")
    nics = [int(f.children_ids(f.find(f"node{i:02d}"))[-1]) for i in (1, 2, 3, 4)]
    assert scope is not None and scope.label == "storage (0x8002)"
    assert scope.member[nics].tolist() == [True, True, True, False]
    assert scope.full[nics].tolist() == [True, False, False, False]


@pytest.mark.parametrize("model", ["maxmin", "fluid"])
def test_a_run_in_a_partition_goes_per_plane(design, model):
    f = design
    res = run_traffic(f, "alltoall", model, None, "minhop", 100e-6, 0, partition="storage")
    assert isinstance(res, PlaneRun) and res.partition == "storage (0x8002)"
    name = lambda d: f.name_of(int(d)).split("/")[0]       # noqa: E731
    assert sorted({name(d) for d in np.concatenate([res.flows.src, res.flows.dst])}) == ["node01", "node02",
                                                                                       "node03"]
    assert len(res.flows) == 4
    assert [(name(r.src), name(r.dst), r.reason) for r in res.refused] == [
        ("node02", "node03", "both limited members of storage (0x8002)"),
        ("node03", "node02", "both limited members of storage (0x8002)")]
    assert len(res.left_out) == 29 and {u.reason for u in res.left_out} == {"not in partition storage (0x8002)"}
    assert [len(p.flows) for p in res.plane_results] == [4, 4]     # both planes carry every member's flows
    assert np.round(res.flow_rates(), 3).tolist() == [220.0] * 4
    assert [np.round(p.flow_rates(), 3).tolist() for p in res.plane_results] == [[110.0] * 4] * 2
    s = res.summary(f)
    assert s["partition"] == "storage (0x8002)" and len(s["refused_flows"]) == 2


def test_partitions_on_planes_are_refused_where_the_engines_have_none(design):
    with pytest.raises(FabricError, match=r"^partition 'nope': the design has no such partition \(it has "
                                          r"storage \(0x8002\), Default \(0x7fff\)\)$"):
        run_traffic(design, "alltoall", "maxmin", None, "minhop", 1e-3, 0, partition="nope")
    with pytest.raises(FabricError, match=r"^partition 'storage': partitions \(P_Keys\) are InfiniBand's; "
                                          r"this is an Ethernet design$"):
        run_traffic(fat_tree(radix=8, planes=2, fabric="roce"), "alltoall", "maxmin", None, "minhop", 1e-3, 0,
                    partition="storage")


def test_simulate_in_a_partition_on_planes(design, tmp_path, capsys):
    from fabricviz.cli import main
    from fabricviz.formats.native import save_fabric
    path = tmp_path / "two.fabric.json"
    save_fabric(design, path)
    assert main(["simulate", str(path), "--workload", "alltoall", "--partition", "storage"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == ["4 flows over 2 planes (maxmin): mean 220.00 Gb/s per flow",
                                "  plane1: mean 110.00 Gb/s, 0 flows it cannot carry",
                                "  plane2: mean 110.00 Gb/s, 0 flows it cannot carry"]
    assert "warning: 2 flows refused by the partition: node02/gpu0 → node03/gpu0 (both limited members of " \
           "storage (0x8002))" in err
