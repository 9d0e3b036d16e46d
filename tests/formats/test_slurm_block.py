"""Slurm topology/block (``topology.conf`` with BlockName/BlockSizes) and ``topology.yaml`` exports,
checked against what NVIDIA/topograph writes for the same cluster.

Reference: NVIDIA/topograph at commit e2b625071e327ee5c3bb119d8a31289a818c30fc —
``tests/models/nvl72.yaml`` (a core, 2 spines, 4 leaves of 18 nodes, each leaf's nodes one NVL72
domain; "Supported block sizes: 18, 36, 72"), ``pkg/translate/block_test.go`` (the
``# block001=<domain>`` / ``BlockName=… Nodes=…`` / ``BlockSizes=…`` lines and the default block
sizes), ``pkg/translate/topology_test.go`` (the tree from the root down) and
``pkg/translate/yaml_test.go`` (the ``topology.yaml`` units). slurmctld 22.05, the one Debian
ships here, has no topology/block plugin (added in Slurm 23.11), so the block format is checked
against those expected outputs; the tree of the same model is read by the real slurmctld in
tests/formats/test_slurm_slurmctld.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml

from fabricviz.cli import main
from fabricviz.formats import slurm, slurm_block, slurm_yaml
from fabricviz.formats.slurm_block import SlurmBlock, block_sizes
from fabricviz.generate import rail_optimized
from fabricviz.generate.nvl72 import nvl72
from fabricviz.model import Catalog, Fabric, FabricError
from fabricviz.model.nvlink import DOMAINS_KEY, rack_meta


def nvl72_model() -> Fabric:
    """topograph's tests/models/nvl72.yaml as a design: core → spine-1, spine-2; spine-s →
    leaf-s-1, leaf-s-2; leaf-s-l → node<s><l>01 … node<s><l>18, those 18 nodes the accelerator
    (NVLink) domain nvl-s-l (``meta["nvlink_domains"]``)."""
    f = Fabric(Catalog.default(), name="nvl72")
    domains = []
    for n in ("core", "spine-1", "spine-2"):
        f.add_device("ib_switch", "QM9700", name=n)
    for s in (1, 2):
        f.add_cable(f"core:{s}", f"spine-{s}:1", 10.0)
        for leaf_i in (1, 2):
            leaf = f"leaf-{s}-{leaf_i}"
            f.add_device("ib_switch", "QM9700", name=leaf)
            f.add_cable(f"spine-{s}:{leaf_i + 1}", f"{leaf}:64", 10.0)
            for k in range(1, 19):
                name = f"node{s}{leaf_i}{k:02d}"
                f.add_device("server", "NODE-1G-NDR", name=name)
                f.add_cable(f"{name}/mlx5_0:1", f"{leaf}:{k}", 2.0)
            domains.append(rack_meta(f"nvl-{s}-{leaf_i}", "GB200-NVL72",
                                     [f"node{s}{leaf_i}{k:02d}" for k in range(1, 19)]))
    f.meta[DOMAINS_KEY] = domains
    return f


def test_nvl72_model_blocks_as_topograph_writes_them():
    assert slurm_block.dumps(nvl72_model()).splitlines() == [
        "# block001=nvl-1-1",                       # topograph: the accelerator domain's name
        "BlockName=block001 Nodes=node[1101-1118]",
        "# block002=nvl-1-2",
        "BlockName=block002 Nodes=node[1201-1218]",
        "# block003=nvl-2-1",
        "BlockName=block003 Nodes=node[2101-2118]",
        "# block004=nvl-2-2",
        "BlockName=block004 Nodes=node[2201-2218]",
        "BlockSizes=18,36,72"]                      # the model's "Supported block sizes: 18, 36, 72"


def test_without_the_domains_the_blocks_are_the_leaves_hosts():
    """The check can fail: the same cluster without its NVLink domains names leaves, not racks."""
    f = nvl72_model()
    del f.meta[DOMAINS_KEY]
    assert slurm_block.dumps(f).splitlines()[0] == "# block001=leaf-1-1"


def test_generated_nvl72_racks_are_the_blocks():
    """``generate nvl72``: one block per rack (NVLink domain) of its 18 compute trays."""
    assert slurm_block.dumps(nvl72(4, "gb200")).splitlines() == [
        line for r in range(1, 5) for line in (f"# block{r:03d}=rack{r:02d}",
                                               f"BlockName=block{r:03d} Nodes=rack{r:02d}-ct[01-18]")
    ] + ["BlockSizes=18,36,72"]


def test_gb300_racks_sharing_leaves_are_still_one_block_each():
    """On Q3400 four racks share each rail leaf: the leaves' host block would be 72 trays of four
    NVLink domains (what Slurm must not place one job's block on); the export keeps the racks."""
    f = nvl72(4, "gb300")
    assert slurm_block.dumps(f).splitlines()[-1] == "BlockSizes=18,36,72"
    del f.meta[DOMAINS_KEY]
    assert slurm_block.dumps(f).splitlines() == [
        "# block001=su1", "BlockName=block001 Nodes=rack01-ct[01-18],rack02-ct[01-18],rack03-ct[01-18],"
        "rack04-ct[01-18]", "BlockSizes=72"]


@pytest.mark.oracle
@pytest.mark.skipif(shutil.which("scontrol") is None, reason="slurm-wlm not installed")
def test_scontrol_expands_the_block_nodes_to_the_racks_trays(tmp_path):
    """Slurm's own hostlist expansion of every ``Nodes=`` written (a padded range across 09/10)."""
    f = nvl72(2, "gb200")
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=x\nSlurmctldHost=localhost\nNodeName=n1\nPartitionName=p Nodes=n1\n")
    for b in slurm_block.blocks(f):
        expr = slurm.hostlist(list(b.nodes))
        out = subprocess.run([shutil.which("scontrol") or "", "show", "hostnames", expr], capture_output=True,
                             text=True, timeout=60, env={**os.environ, "SLURM_CONF": str(conf)}, check=True)
        assert out.stdout.split() == list(b.nodes) and expr == f"{b.domain}-ct[01-18]"
    broken = "rack01-ct[01-09],rack01-ct[1-18]"          # what an unpadded second run would mean
    out = subprocess.run([shutil.which("scontrol") or "", "show", "hostnames", broken], capture_output=True,
                         text=True, timeout=60, env={**os.environ, "SLURM_CONF": str(conf)}, check=True)
    assert out.stdout.split() != [f"rack01-ct{k:02d}" for k in range(1, 19)]


def test_nvl72_model_tree_from_the_root_down():
    assert slurm.dumps(nvl72_model()).splitlines()[1:] == [
        "SwitchName=core Switches=spine-[1-2]",
        "SwitchName=spine-1 Switches=leaf-1-[1-2]",
        "SwitchName=spine-2 Switches=leaf-2-[1-2]",
        "SwitchName=leaf-1-1 Nodes=node[1101-1118]",
        "SwitchName=leaf-1-2 Nodes=node[1201-1218]",
        "SwitchName=leaf-2-1 Nodes=node[2101-2118]",
        "SwitchName=leaf-2-2 Nodes=node[2201-2218]"]


def _blocks(*sizes: int) -> list[SlurmBlock]:
    return [SlurmBlock(f"b{i}", "", tuple(f"n{i}-{k}" for k in range(n))) for i, n in enumerate(sizes)]


@pytest.mark.parametrize(("sizes", "want"), [
    ((2, 2), [2, 4]),          # block_test.go TestGetBlockSizes case 1
    ((2, 3), [2, 4]),          # case 2
    ((2, 2, 2), [2, 4]),       # case 3: 3 blocks, ⌊log2 3⌋ = 1
    ((2, 1), [1, 2]),          # TestBlockTopology case 4: BlockSizes=1,2
    ((18,) * 4, [18, 36, 72]),
])
def test_default_block_sizes_are_topographs(sizes, want):
    assert block_sizes(_blocks(*sizes)) == want


def test_a_rail_design_has_one_block_per_scalable_unit():
    f = rail_optimized(units=2, nodes_per_unit=4)
    assert slurm_block.dumps(f).splitlines() == [
        "# block001=su1", "BlockName=block001 Nodes=su1-dgx[01-04]",
        "# block002=su2", "BlockName=block002 Nodes=su2-dgx[01-04]",
        "BlockSizes=4,8"]


def test_no_hosts_no_blocks():
    f = Fabric(Catalog.default(), name="bare")
    f.add_device("ib_switch", "QM9700", name="s1")
    with pytest.raises(FabricError, match="cannot determine blockSizes: topology contains no blocks"):
        slurm_block.dumps(f)
    assert yaml.safe_load(slurm_yaml.dumps(f)) == [                          # topograph: an empty tree is flat
        {"topology": "tree", "cluster_default": True, "flat": True}]


def test_topology_yaml_units_as_topograph_writes_them():
    """Keys and values as topograph's yaml.go (TestMixedYamlTopology's tree and block units)."""
    doc = yaml.safe_load(slurm_yaml.dumps(nvl72_model()))
    assert doc == [
        {"topology": "tree", "cluster_default": True, "tree": {"switches": [
            {"switch": "core", "children": "spine-[1-2]"},
            {"switch": "spine-1", "children": "leaf-1-[1-2]"},
            {"switch": "spine-2", "children": "leaf-2-[1-2]"},
            {"switch": "leaf-1-1", "nodes": "node[1101-1118]"},
            {"switch": "leaf-1-2", "nodes": "node[1201-1218]"},
            {"switch": "leaf-2-1", "nodes": "node[2101-2118]"},
            {"switch": "leaf-2-2", "nodes": "node[2201-2218]"}]}},
        {"topology": "block", "cluster_default": False, "block": {
            "block_sizes": [18, 36, 72],
            "blocks": [{"block": "block1", "nodes": "node[1101-1118]"},
                       {"block": "block2", "nodes": "node[1201-1218]"},
                       {"block": "block3", "nodes": "node[2101-2118]"},
                       {"block": "block4", "nodes": "node[2201-2218]"}]}}]
    assert [list(u) for u in doc] == [["topology", "cluster_default", "tree"],
                                      ["topology", "cluster_default", "block"]]


def test_convert_writes_block_conf_and_topology_yaml(tmp_path, capsys):
    src = tmp_path / "rail.json"
    from fabricviz.formats.native import save_fabric
    save_fabric(rail_optimized(units=2, nodes_per_unit=4), src)
    assert main(["convert", str(src), str(tmp_path / "topology.block.conf")]) == 0
    assert "BlockName=block002 Nodes=su2-dgx[01-04]" in (tmp_path / "topology.block.conf").read_text()
    assert main(["convert", str(src), str(tmp_path / "topology.yaml")]) == 0
    assert yaml.safe_load((tmp_path / "topology.yaml").read_text())[1]["block"]["block_sizes"] == [4, 8]
    assert "(slurm-yaml)" in capsys.readouterr().out
