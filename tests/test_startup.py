"""Fast start (issue 16): building the CLI parser loads no engine library.

Behaviour, not timing: a fresh interpreter runs ``fabricviz --help`` (or a subcommand's help)
and reports which heavy packages ended up in ``sys.modules``. bench/startup.py has the times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from fabricviz.commands import COMMANDS

HEAVY = ("numpy", "scipy", "networkx", "PySide6", "numba", "pyqtgraph")

_PROBE = """
import contextlib, io, json, sys
from fabricviz.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        rc = main(sys.argv[1:])
    except SystemExit as e:
        rc = e.code
print(json.dumps({"rc": rc, "help": out.getvalue(),
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in %r)}))
""" % (HEAVY,)


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
