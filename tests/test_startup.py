"""Fast start (issue 16): building the CLI parser loads no engine library; a small run loads only
what its work needs.

Behaviour, not timing: a fresh interpreter runs ``fabricviz --help`` (or a subcommand's help, a
small ``simulate``, a loop check) and reports which heavy packages ended up in ``sys.modules``.
bench/startup.py has the times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from fabricviz.commands import COMMANDS

pytestmark = pytest.mark.slow     # each test starts a fresh interpreter and counts what it imports

HEAVY = ("numpy", "scipy", "networkx", "PySide6", "numba", "pyqtgraph")

_PROBE = f"HEAVY = {HEAVY!r}\n" + """
import contextlib, io, json, sys
from fabricviz.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        rc = main(sys.argv[1:])
    except SystemExit as e:
        rc = e.code
print(json.dumps({"rc": rc, "help": out.getvalue(),
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)}))
"""


def _probe(*argv: str) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, env=env,
                          check=True)
    return json.loads(proc.stdout)


def test_top_level_help_lists_every_command_without_heavy_imports():
    got = _probe("--help")
    assert got["rc"] == 0
    assert got["loaded"] == []
    listed = got["help"].split("{", 1)[1].split("}", 1)[0].split(",")
    assert listed == list(COMMANDS)


@pytest.mark.parametrize("command", ["simulate", "lint"])
def test_subcommand_help_without_heavy_imports(command):
    got = _probe(command, "--help")
    assert got["rc"] == 0
    assert got["help"].startswith(f"usage: fabricviz {command} ")
    assert got["loaded"] == []


def test_model_package_loads_its_parts_on_first_use():
    code = ("import sys, fabricviz.model as m\n"
            "before = 'numpy' in sys.modules\n"
            "from fabricviz.model import Fabric, IB\n"
            "from fabricviz.model.fabric import Fabric as F\n"
            "print(before, Fabric is F, IB is m.IB, 'Fabric' in dir(m), 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True", "True", "True"]


def test_model_package_refuses_an_unknown_name():
    import fabricviz.model as m
    with pytest.raises(AttributeError, match="has no attribute 'Fabrik'"):
        m.Fabrik  # noqa: B018


# ----------------------------------------------------------------------------- small runs
def _generate(tmp_path, name: str, *argv: str) -> str:
    from fabricviz.cli import main
    out = str(tmp_path / name)
    assert main(["generate", *argv, "-o", out]) == 0
    return out


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The small designs of bench/startup.py: RoCE leaf-spine 2×1, 2 hosts a leaf; IB k=4 fat tree."""
    d = tmp_path_factory.mktemp("small")
    return {"roce": _generate(d, "s.json", "leaf-spine", "--leaves", "2", "--spines", "1", "--hosts-per-leaf", "2"),
            "ib": _generate(d, "ft.json", "fat-tree", "--radix", "4", "--fabric", "ib")}


def _loaded_top(got: dict) -> list[str]:
    return sorted({m.split(".")[0] for m in got["loaded"]})


#: scipy is still the computation's: maxmin's sparse flow × link matrix (sim/maxmin.py, fct.py,
#: latency.py), the RoCE island search (sim/reach.py) and the SM's BFS (ib/subnet.py).
SMALL_RUN_LOADS = ["numpy", "scipy"]


@pytest.mark.parametrize("design, argv", [
    ("roce", ["--workload", "permutation", "--model", "maxmin"]),
    ("ib", ["--workload", "permutation", "--routing", "static"]),
])
def test_small_simulate_loads_no_graph_gui_or_jit_library(small, design, argv, capsys):
    from fabricviz.cli import main
    cmd = ["simulate", small[design], *argv, "--json"]
    got = _probe(*cmd)
    assert got["rc"] == 0
    assert _loaded_top(got) == SMALL_RUN_LOADS
    assert "scipy.sparse" in got["loaded"]
    assert main(cmd) == 0                                  # the same run in this process
    here = json.loads(capsys.readouterr().out)
    assert json.loads(got["help"]) == here
    assert (here["fabric"], here["flows"], here["rate_share"]["mean"]) == \
        {"roce": ("eth", 4, 0.5), "ib": ("ib", 8, 0.875)}[design]


@pytest.mark.parametrize("design, argv, rc", [
    ("roce", ["check-pfc-deadlock"], 0),
    ("ib", ["check-loops"], 0),
    ("roce", ["lint"], 1),                                 # its findings: two single-uplink leaves
])
def test_loop_free_checks_do_not_load_networkx(small, design, argv, rc):
    got = _probe(*argv, small[design])
    assert got["rc"] == rc
    assert _loaded_top(got) == SMALL_RUN_LOADS


def test_routing_a_small_design_loads_no_scipy(small):
    code = ("import sys\n"
            "from fabricviz.loaders import load_any\n"
            "from fabricviz.sim.links import link_table\n"
            "from fabricviz.sim.paths import route\n"
            "from fabricviz.sim.workloads import endpoints, permutation\n"
            f"f = load_any({small['roce']!r})\n"
            "r = route(f, link_table(f), permutation(endpoints(f, 'nic'), seed=1), 'ecmp')\n"
            "print(r.n_paths, sorted(set(r.hops().tolist())), 'scipy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["4", "[2,", "4]", "False"]


# ----------------------------------------------------------------------------- numpy hop search
def test_numpy_hop_search_counts_directed_hops_and_no_path():
    from fabricviz.sim.paths import SwitchGraph
    nbr_sw = np.array([[1, -1], [2, -1], [0, -1], [-1, -1], [3, 0]])   # 0→1→2→0, 4→3, 4→0
    g = SwitchGraph(np.arange(5), np.arange(5), np.where(nbr_sw >= 0, 0, -1), nbr_sw)
    assert g.hops_to(np.array([0, 3])).tolist() == [[0, 2, 1, -1, 1], [-1, -1, -1, 0, 1]]
    assert g.hops_to(np.array([0, 3])).dtype == np.int32


@pytest.mark.parametrize("build", ["ring", "mesh", "torus", "fat_tree", "leaf_spine"])
def test_numpy_hop_search_equals_scipys(build, monkeypatch):
    from fabricviz.generate import k_ary_fat_tree, leaf_spine, ring, torus
    from fabricviz.sim import paths
    from fabricviz.sim.links import link_table
    f = {"ring": lambda: ring(9, fabric="roce"), "mesh": lambda: ring(5, wrap=False, fabric="roce"),
         "torus": lambda: torus("3x4", fabric="roce"), "fat_tree": lambda: k_ary_fat_tree(6, fabric="roce"),
         "leaf_spine": lambda: leaf_spine(4, 2, 2)}[build]()
    g = paths.switch_graph(f, link_table(f))
    targets = np.arange(len(g.devices))[::-1]
    monkeypatch.setattr(paths, "NUMPY_BFS_CELLS", 1 << 40)
    by_numpy = g.hops_to(targets)
    monkeypatch.setattr(paths, "NUMPY_BFS_CELLS", 0)
    by_scipy = g.hops_to(targets)
    assert by_numpy.dtype == by_scipy.dtype == np.int32
    assert np.array_equal(by_numpy, by_scipy)
    diameter = {"ring": 4, "mesh": 4, "torus": 3, "fat_tree": 4, "leaf_spine": 2}[build]
    assert int(by_numpy.max()) == diameter
