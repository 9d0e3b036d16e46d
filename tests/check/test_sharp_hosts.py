"""SHARP aggregation nodes are not hosts (issue 11): info, lint, BOM and traffic.

tests/data/sharp/qm9700_sharp.ibnetdiscover: 2 leaves + 2 spines (QM9700 reporting 65 ports,
port 65 cabled to its aggregation node), 8 hosts, 1:1 leaves. Before the fix ``info`` counted the
4 aggregation nodes as host ports (12) and the BOM ordered their internal links as 20 cables.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from fabricviz.check.bom import bill_of_materials
from fabricviz.check.info import device_tiers, fabric_info, format_info
from fabricviz.check.lint import lint
from fabricviz.cli import main
from fabricviz.ib.sharp import SHARP_PART, sharp_mask
from fabricviz.loaders import load_any
from fabricviz.sim.workloads import endpoints, make_workload

FILE = Path(__file__).resolve().parents[1] / "data" / "sharp" / "qm9700_sharp.ibnetdiscover"
# each "dgxNN mlx5_0" adapter is its host's one NIC: a server dgxNN holding dgxNN/mlx5_0
HOSTS = [f"dgx{i:02d}/mlx5_0" for i in range(1, 9)]
SERVERS = [f"dgx{i:02d}" for i in range(1, 9)]
TIERS = {"hosts": {"server": 8, "nic": 8}, "leaf": {"ib_switch": 2, "sharp aggregation node": 2},
         "spine": {"ib_switch": 2, "sharp aggregation node": 2}}


@pytest.fixture()
def fab():
    return load_any(FILE)


def aggregation_nodes(f):
    return sorted(d.name for d in f.devices("nic") if d.part_id == SHARP_PART)


def test_importer_marks_aggregation_nodes(fab):
    ans = [d for d in fab.devices("nic") if d.part_id == SHARP_PART]
    assert len(ans) == 4 and {d.port(1).peer.num for d in ans} == {65}
    assert sorted(np.flatnonzero(sharp_mask(fab)).tolist()) == sorted(d.id for d in ans)
    # an aggregation node takes its switch's tier
    assert {(d.tier, d.port(1).peer.device.tier) for d in ans} == {(1, 1), (2, 2)}


def test_info_counts_only_hosts(fab):
    info = fabric_info(fab)
    assert info["host_ports"] == 8 and info["sharp_nodes"] == 4 and info["switches"] == 4
    assert info["tiers"] == TIERS
    assert info["oversubscription"] == {"leaf": "1:1"}
    assert info["diameter_switch_hops"] == 3
    assert "host ports: 8   switches: 4   cables: 20   SHARP aggregation nodes: 4" in format_info(info)


def test_info_with_inferred_tiers(fab):
    # a design whose tiers are not set (edited, or from a format without tiers): inferred, and an
    # aggregation node must neither make its spine a leaf nor count as a port down
    fab.set_tier(fab.device_ids(), -1)
    tiers = device_tiers(fab)
    assert sorted(tiers[sharp_mask(fab)].tolist()) == [1, 1, 2, 2]
    info = fabric_info(fab)
    assert (info["host_ports"], info["tiers"], info["oversubscription"]) == (8, TIERS, {"leaf": "1:1"})
    assert info["diameter_switch_hops"] == 3


def test_info_cli_json(capsys):
    assert main(["info", str(FILE), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["host_ports"], out["oversubscription"]) == (8, {"leaf": "1:1"})


def test_lint_hosts_exclude_aggregation_nodes(fab):
    (spof,) = lint(fab).by_rule("spof-host")
    assert spof.message.startswith("8 host(s) have a single fabric port")
    assert sorted(fab.name_of(d) for d in spof.devices) == SERVERS


def test_bom_lists_neither_aggregation_nodes_nor_their_links(fab):
    bom = bill_of_materials(fab)
    assert [(x.category, x.part, x.count) for x in bom.lines] == [
        ("server", "HOST-1xCX7-1P", 8), ("nic", "CX7-1P", 8), ("switch", "QM9700-65p", 4), ("cable", "NDR-DAC", 16)]
    assert bom.host_ports == 8


def test_no_traffic_to_or_from_aggregation_nodes(fab):
    ranks = endpoints(fab)
    assert sorted(fab.name_of(int(d)) for d in ranks) == HOSTS
    flows = make_workload(fab, "alltoall")
    assert len(flows) == 8 * 7
    an = sharp_mask(fab)
    assert not an[flows.src].any() and not an[flows.dst].any()
    assert len(aggregation_nodes(fab)) == 4
