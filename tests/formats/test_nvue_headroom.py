"""Cumulus NVUE PFC sizes read the way NVIDIA's QoS page defines them give back the headroom
engine's numbers; the ConnectX scripts agree with the switch side of each cable.

NVIDIA (nvue_config.QOS_PAGE): ``port-buffer`` = the buffer reserved for the priority group;
``xoff-threshold`` = the part of it filled before PFC is sent; what is left takes the bytes that
arrive after PFC (the headroom). The numbers below are `fabricviz headroom --json`'s.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.formats.nvue_config import QOS_PAGE
from fabricviz.formats.switch_config import render
from fabricviz.generate import leaf_spine, rail_optimized

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_switch_config import design  # noqa: E402

DESIGNS = {"sn4700-leaf-spine": design, "generated-leaf-spine": lambda: leaf_spine(2, 2, 2),
           "rail-roce": lambda: rail_optimized(units=1, fabric="roce", nodes_per_unit=4)}


def headroom_nvidia(pfc: dict) -> int:
    """The headroom a PFC profile leaves, by NVIDIA's definition."""
    return pfc["port-buffer"] - pfc["xoff-threshold"]


def engine(tmp_path: Path, f, capsys) -> dict:
    save_fabric(f, tmp_path / "d.json")
    assert main(["headroom", str(tmp_path / "d.json"), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_nvue_headroom_is_the_engines(name, tmp_path, capsys):
    """Every profile leaves exactly the largest headroom the engine computed for its ports."""
    f = DESIGNS[name]()
    doc = engine(tmp_path, f, capsys)
    files = render(f, "cumulus")
    want: dict[tuple[str, str], int] = {}
    for row in doc["ports"]:
        (tree,) = yaml.safe_load(files[f"{row['switch']}.nvue.yaml"])
        profile = tree["set"]["interface"][f"swp{row['port'].rsplit(':', 1)[1]}"]["qos"]["pfc"]["profile"]
        key = (row["switch"], profile)
        want[key] = max(want.get(key, 0), row["headroom_bytes"])
        assert row["xoff_bytes"] - row["xon_bytes"] == 2 * doc["mtu"]
    got = {}
    for sw, _ in want:
        (tree,) = yaml.safe_load(files[f"{sw}.nvue.yaml"])
        for profile, pfc in tree["set"]["qos"]["pfc"].items():
            got[(sw, profile)] = headroom_nvidia(pfc)
            assert pfc["xoff-threshold"] == 2 * doc["mtu"]
            assert 0 < pfc["xon-threshold"] < pfc["xoff-threshold"] < pfc["port-buffer"]
    assert got == want and want


def test_the_issue_numbers(tmp_path, capsys):
    """SN4700 leaf: 3 m DAC headroom 139,346 B, 100 m fibre 186,870 B (the engine's, tests/ethernet);
    before, NVUE read 139,346 + 4,000,000 reserved with XOFF beyond the reservation."""
    (tree,) = yaml.safe_load(render(design(), "cumulus")["leaf.nvue.yaml"])
    pfc = tree["set"]["qos"]["pfc"]
    assert {k: (v["port-buffer"], v["xoff-threshold"], v["xon-threshold"], headroom_nvidia(v))
            for k, v in pfc.items()} == {"roce-pfc-400g-3m": (157778, 18432, 9216, 139346),
                                         "roce-pfc-400g-100m": (205302, 18432, 9216, 186870)}
    assert QOS_PAGE.startswith("https://docs.nvidia.com/networking-ethernet-software/cumulus-linux/")


def test_a_broken_profile_is_caught():
    """The check fails on the old values (XOFF as the shared-pool threshold, port-buffer = headroom)."""
    (tree,) = yaml.safe_load(render(design(), "cumulus")["leaf.nvue.yaml"])
    pfc = tree["set"]["qos"]["pfc"]["roce-pfc-400g-3m"]
    old = dict(pfc, **{"port-buffer": 139346, "xoff-threshold": 4000000})
    assert headroom_nvidia(pfc) == 139346 != headroom_nvidia(old)
    assert headroom_nvidia(old) < 0                       # XOFF beyond the reservation: no headroom at all


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_nic_scripts_match_the_switch_side(name):
    """Each ConnectX block: the same cable length (metres, rounded up) as the switch port's PFC
    profile, PFC on the same priorities, the same DSCP → priority map and CNP DSCP/priority."""
    files = render(DESIGNS[name](), "cumulus")
    trees = {n.split(".")[0]: yaml.safe_load(t)[0]["set"] for n, t in files.items() if n.endswith(".nvue.yaml")}
    blocks = 0
    for fname, text in files.items():
        if not fname.endswith(".nic.sh"):
            continue
        for dev, sw, port, body in re.findall(r"# (\S+) -> ([^:\n]+):(\d+)\n(.*?)(?=\n# |\Z)", text, re.S):
            tree = trees[sw]
            prof = tree["qos"]["pfc"][tree["interface"][f"swp{port}"]["qos"]["pfc"]["profile"]]
            assert f'--cable_len {prof["cable-length"]}' in body, (fname, dev)
            prios = sorted(int(p) for p in prof["switch-priority"])
            assert f'--pfc {",".join("1" if i in prios else "0" for i in range(8))}' in body
            for d, v in tree["qos"]["mapping"]["default-global"]["dscp"].items():
                assert f'--dscp2prio set,{d},{v["switch-priority"]}' in body
            blocks += 1
    assert blocks > 0
