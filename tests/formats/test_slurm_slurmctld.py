"""Slurm ``topology.conf`` exports read by the real slurmctld (topology/tree).

Each test starts slurmctld in the foreground (``-D -c``: no daemon, no old state) on a minimal
``slurm.conf`` in a temp dir — the design's hosts as nodes, ``TopologyPlugin=topology/tree``,
auth/none, free ports — asks ``scontrol show topology`` and stops it again. Slurm must list
every switch of the export with its nodes and child switches, and log no error about them; a
broken export
(a switch naming a switch that does not exist, a node that does not exist) must be refused.
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from fabricviz.formats import slurm
from fabricviz.generate import fat_tree, leaf_spine, rail_optimized
from fabricviz.loaders import load_any
from fabricviz.model import Fabric
from fabricviz.model.fabric import ETH_SWITCH, IB_SWITCH

ROOT = Path(__file__).resolve().parents[2]
SLURMCTLD, SCONTROL = shutil.which("slurmctld"), shutil.which("scontrol")
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(SLURMCTLD is None or SCONTROL is None, reason="slurm-wlm not installed")]

DESIGNS = {
    "demo": lambda: load_any(ROOT / "assets" / "demo" / "demo-fat-tree.json"),
    "leaf-spine": lambda: leaf_spine(2, 2, 2),
    "fat-tree-2l": lambda: fat_tree(levels=2, radix=8),
    "rail": lambda: rail_optimized(units=1, nodes_per_unit=4),
    "rail-2su-roce": lambda: rail_optimized(units=2, fabric="roce", nodes_per_unit=4),
    "topograph-nvl72-model": lambda: _nvl72_model(),
}


def _nvl72_model() -> Fabric:
    """topograph's tests/models/nvl72.yaml (tests/formats/test_slurm_block.py): its tree, written
    from the root down as topograph writes it, read by slurmctld."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_slurm_block import nvl72_model
    return nvl72_model()


@dataclass
class Verdict:
    topology: str          # `scontrol show topology` (empty if slurmctld never came up)
    log: str               # slurmctld's own output
    running: bool          # slurmctld answered a ping


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hosts(f: Fabric) -> list[str]:
    """The Slurm names of the design's top-level non-switch devices."""
    out = []
    for d in f.devices():
        if d.kind not in (IB_SWITCH, ETH_SWITCH) and "/" not in d.name:
            out.append(slurm.slurm_name(d.name))
    return sorted(set(out))


def run_slurmctld(tmp: Path, nodes: list[str], topology: str, wait_s: float = 10.0) -> Verdict:
    """Start slurmctld on ``topology`` with ``nodes``, read the topology back, stop it."""
    (tmp / "state").mkdir()
    (tmp / "topology.conf").write_text(topology)
    conf = "\n".join([
        "ClusterName=fabricviz",
        f"SlurmctldHost={socket.gethostname().split('.')[0]}(127.0.0.1)",
        f"SlurmctldPort={_free_port()}", f"SlurmdPort={_free_port()}",
        f"SlurmUser={getpass.getuser()}",
        "AuthType=auth/none", "CredType=cred/none", "MpiDefault=none", "MailProg=/bin/true",
        f"StateSaveLocation={tmp / 'state'}", f"SlurmdSpoolDir={tmp / 'spool'}",
        f"SlurmctldPidFile={tmp / 'slurmctld.pid'}",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
        "TopologyPlugin=topology/tree",
        f"NodeName={slurm.hostlist(nodes)} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN",
        "PartitionName=all Nodes=ALL Default=YES", ""])
    (tmp / "slurm.conf").write_text(conf)
    env = dict(os.environ, SLURM_CONF=str(tmp / "slurm.conf"))
    log = tmp / "slurmctld.out"
    with open(log, "wb") as out:
        proc = subprocess.Popen([SLURMCTLD, "-D", "-c"], stdout=out, stderr=subprocess.STDOUT, env=env,
                                cwd=tmp)
    try:
        running = False
        deadline = time.monotonic() + wait_s
        while proc.poll() is None and time.monotonic() < deadline:
            ping = subprocess.run([SCONTROL, "ping"], capture_output=True, text=True, env=env, timeout=10)
            if "is UP" in ping.stdout:
                running = True
                break
            time.sleep(0.05)
        topo = ""
        if running:
            topo = subprocess.run([SCONTROL, "show", "topology"], capture_output=True, text=True, env=env,
                                  timeout=10).stdout
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return Verdict(topo, log.read_text(errors="replace"), running)


def switches(text: str) -> dict[str, dict[str, str]]:
    """``SwitchName=x Level=0 … Nodes=… Switches=…`` lines as {name: {field: value}}."""
    out = {}
    for line in text.splitlines():
        fields = dict(re.findall(r"(\w+)=(\S+)", line))
        if "SwitchName" in fields:
            out[fields.pop("SwitchName")] = fields
    return out


def errors(log: str) -> list[str]:
    """slurmctld's fatal lines and its errors about the topology, its switches or nodes (a cold
    start also logs missing state files, and the MPI plugins it cannot load here)."""
    return [line for line in log.splitlines() if re.search(r"\bfatal\b", line) or (
        re.search(r"\berror\b", line) and re.search(r"switch|topolog|node|hostname", line, re.I))]


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_slurmctld_reads_every_switch(name, tmp_path):
    f = DESIGNS[name]()
    text = slurm.dumps(f)
    v = run_slurmctld(tmp_path, hosts(f), text)
    assert v.running and errors(v.log) == [], v.log[-2000:]
    ours = switches(text)
    theirs = switches(v.topology)
    assert sorted(theirs) == sorted(ours) and ours
    for sw, fields in ours.items():
        for key in ("Nodes", "Switches"):
            if key in fields:
                assert theirs[sw][key] == fields[key], (sw, key)
    levels = {sw: int(v["Level"]) for sw, v in theirs.items()}
    assert {levels[s] for s, v in ours.items() if "Switches" not in v} == {0}      # leaves
    assert all(levels[s] > 0 for s, v in ours.items() if "Switches" in v)


def test_slurmctld_refuses_a_switch_naming_an_unknown_switch(tmp_path):
    f = leaf_spine(2, 2, 2)
    text = slurm.dumps(f)
    bad = text.replace("Switches=leaf[01-02]", "Switches=leaf[01-03]", 1)
    assert bad != text
    v = run_slurmctld(tmp_path, hosts(f), bad)
    assert not v.running and v.topology == ""
    assert "fatal: Switch configuration spine01 has invalid child (leaf03)" in v.log


def test_slurmctld_flags_a_node_it_does_not_know(tmp_path):
    f = leaf_spine(2, 2, 2)
    text = slurm.dumps(f)
    bad = text.replace("Nodes=node[03-04]", "Nodes=node[03-05]", 1)
    assert bad != text
    v = run_slurmctld(tmp_path, hosts(f), bad)
    assert 'lookup failure for node "node05"' in v.log
    assert "Invalid hostnames in switch configuration: node05" in v.log


def test_a_rail_server_sits_under_one_leaf(tmp_path):
    """A DGX has a NIC on each of its unit's 8 rail leaves; Slurm's tree takes one leaf per node.
    The export lists the unit under rail 0; listing a node under a second leaf is flagged."""
    f = rail_optimized(units=2, nodes_per_unit=4)
    text = slurm.dumps(f)
    assert text.splitlines()[-2:] == ["SwitchName=su1-rail0 Nodes=su1-dgx[01-04]",     # leaves last,
                                      "SwitchName=su2-rail0 Nodes=su2-dgx[01-04]"]     # as topograph
    assert text.splitlines()[1] == "SwitchName=spine01 Switches=su1-rail0,su2-rail0"
    assert "rail1" not in text and text.count("Switches=su1-rail0,su2-rail0") == 8
    bad = text + "SwitchName=su1-rail1 Nodes=su1-dgx[01-04]\n"
    v = run_slurmctld(tmp_path, hosts(f), bad)
    assert errors(v.log) == ["slurmctld: error: WARNING: Multiple leaf switches contain nodes: su1-dgx[01-04]"]
