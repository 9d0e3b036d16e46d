"""The DOT export rendered by Graphviz itself: no warnings (every cable end is a record port of
its node), and our reader still reads it back to the same design.

Before, every host cable drew ``Warning: node node01, port mlx5_0 unrecognized`` (an Air-style
``"node":"port"`` edge on a node without ports); the last test puts that export back and shows
the check catching it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from fabricviz.formats import dot
from fabricviz.generate import fat_tree, leaf_spine, rail_optimized
from fabricviz.loaders import load_any
from fabricviz.model import Fabric

ROOT = Path(__file__).resolve().parents[2]
DOT = shutil.which("dot")
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(DOT is None, reason="Graphviz (dot) not installed")]

DESIGNS = {
    "demo": lambda: load_any(ROOT / "assets" / "demo" / "demo-fat-tree.json"),
    "rail": lambda: rail_optimized(units=1, nodes_per_unit=4),
    "leaf-spine": lambda: leaf_spine(2, 2, 2),
    "roce-rail": lambda: rail_optimized(units=1, fabric="roce", nodes_per_unit=4),
    "fat-tree-blocking": lambda: fat_tree(levels=2, radix=8, blocking="3:1"),
}


def graphviz(text: str) -> str:
    """dot's stderr for ``text`` rendered to SVG (it must also exit 0)."""
    r = subprocess.run([DOT, "-Tsvg", "-o", "/dev/null"], input=text, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stderr


def _key(f: Fabric):
    devs = sorted((d.name, d.kind, d.part.id if d.part else None) for d in f.devices())
    cables = sorted(tuple(sorted([(c.port_a.device.name, c.port_a.num), (c.port_b.device.name, c.port_b.num)]))
                    for c in f.cables())
    return devs, cables


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_graphviz_renders_the_export_without_warnings(name):
    f = DESIGNS[name]()
    text = dot.dumps(f)
    assert graphviz(text) == ""
    ends = re.findall(r'^  "[^"]*":"([^"]*)" -- "[^"]*":"([^"]*)"', text, re.M)
    assert len(ends) == len(list(f.cables())) > 0
    assert len(re.findall(r"[{|]<", text)) == 2 * len(ends)     # one record port per cable end
    assert _key(dot.loads(text, "x.dot")) == _key(f)


def test_names_with_record_characters_still_render_clean():
    f = Fabric(name="odd")
    f.add_device("eth_switch", "SN4700", name="sw {a|b} <x>")
    f.add_device("server", "NODE-1G-NDR", name="h o|st", mode="400GbE")
    nic = next(d.name for d in f.devices() if d.kind == "nic")
    f.add_cable(f"{nic}:1", "sw {a|b} <x>:3", 2.0)
    text = dot.dumps(f)
    assert r'"label"="{sw\ \{a\|b\}\ \<x\>|{<swp3> swp3}}"' in text
    assert graphviz(text) == ""
    assert _key(dot.loads(text, "x.dot")) == _key(f)


def test_graphviz_warns_on_the_old_export():
    """The export as it was (no record ports): one warning per host cable end; the check fails."""
    f = leaf_spine(2, 2, 2)
    old = re.sub(r' "shape"="record" "label"="(?:[^"\\]|\\.)*"', "", dot.dumps(f))
    assert '"shape"' not in old
    warnings = graphviz(old).splitlines()
    assert warnings == [f"Warning: node node0{i}, port mlx5_0 unrecognized" for i in range(1, 5)]
    assert _key(dot.loads(old, "x.dot")) == _key(f)          # and it is still read (Air's dialect)
