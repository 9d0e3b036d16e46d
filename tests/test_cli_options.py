"""Odd option values get one line and exit 2, never a traceback, an unbounded run or a silent
reading (issue 28). Bounds: fabricviz/sim/bounds.py; ASCII numbers: fabricviz/model/numbers.py."""

from __future__ import annotations

import pytest

from fabricviz.cli import main
from fabricviz.commands import COMMANDS
from fabricviz.model.numbers import ascii_float, ascii_int
from fabricviz.sim import bounds
from fabricviz.sim.fluid import FluidParams
from fabricviz.sim.units import parse_duration

DEMO = "assets/demo/demo-fat-tree.json"
LONG = "is longer than the 1s a run may last (1,000,000 fluid ticks)"


def _cli(args, capsys):
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, err


@pytest.mark.parametrize(("args", "line"), [
    (["simulate", DEMO, "--workload", "permutation", "--model", "fluid", "--duration", "3600s"],
     f"--duration '3600s' {LONG}"),
    (["simulate", DEMO, "--workload", "permutation", "--model", "fluid", "--duration", "10"], f"--duration '10' {LONG}"),
    (["simulate", DEMO, "--workload", "permutation", "--model", "fluid", "--duration", "1e6s"],
     f"--duration '1e6s' {LONG}"),
    (["simulate", DEMO, "--workload", "permutation", "--duration", "1e400ms"], f"--duration '1e400ms' {LONG}"),
    (["simulate", DEMO, "--workload", "permutation", "--duration", "0.000001us"],
     "--duration '0.000001us' is shorter than one fluid tick (1us)"),
    (["simulate", DEMO, "--workload", "permutation", "--duration", "１ms"],
     "--duration '１ms': use e.g. 10ms, 250us, 0.5s"),
    (["simulate", DEMO, "--workload", "permutation:x"],
     "--workload 'permutation:x': permutation takes an integer SEED (permutation:3:4MB)"),
    (["collective", DEMO, "--op", "allreduce", "--sizes", "1B:1TB:x1.0000001"],
     "--sizes '1B:1TB:x1.0000001': 276,310,225 sizes, more than the 1,000 a sweep may have: use a larger "
     "factor (e.g. 8B:8GB:x2 or 1MB,1GB)"),
    (["collective", DEMO, "--op", "allreduce", "--sizes", ",".join(["1MB"] * 1001)],
     "--sizes '" + ",".join(["1MB"] * 1001) + "': 1,001 sizes, more than the 1,000 a sweep may have "
     "(e.g. 8B:8GB:x2 or 1MB,1GB)"),
    (["whatif", DEMO, "--fail", "cables:1", "--trials", "10001"], "--trials 10001: must be 1 to 10,000 per K"),
    (["whatif", DEMO, "--fail", "cables:1", "--metric", "permutation:x"],
     "--metric 'permutation:x': permutation takes an integer SEED (permutation:3:4MB)"),
    (["route", DEMO, "--roots", "nope"], "--roots 'nope': only --engine updn takes roots (not minhop)"),
    (["route", DEMO, "--engine", "updn", "--roots", "nope"], f"--roots: no device named 'nope' in {DEMO}"),
    (["generate", "fat-tree", "--radix", "８", "-o", "{tmp}/x.json"],
     "argument --radix: invalid int value: '８'"),
    (["generate", "fat-tree", "--radix", "8", "--blocking", "99999999999999999999:1", "-o", "{tmp}/x.json"],
     "--blocking '99999999999999999999:1': each side must be at most 1024 (a switch's ports)"),
    (["generate", "fat-tree", "--radix", "8", "--blocking", "100:1", "-o", "{tmp}/x.json"],
     "--blocking '100:1': 8 switch ports split at most 7:1 or 1:7"),
    (["simulate", DEMO, "--workload", "permutation", "--seed", "1_0"],
     "argument --seed: invalid int value: '1_0'"),
])
def test_odd_option_is_one_line(args, line, capsys, tmp_path):
    rc, err = _cli([a.replace("{tmp}", str(tmp_path)) for a in args], capsys)
    assert rc == 2 and err == f"fabricviz: error: {line}\n"
    assert not list(tmp_path.glob("*.json"))


def test_bounds_are_the_engines():
    """One fluid tick is the fluid model's own step; the parsers take the bounds themselves."""
    assert bounds.MIN_DURATION_S == FluidParams().dt_s
    assert parse_duration("1us") == 1e-6 and parse_duration("1s") == bounds.MAX_DURATION_S == 1.0
    assert ascii_int(" -12 ") == -12 and ascii_float("1e3") == 1000.0 and ascii_float(".5") == 0.5
    for bad in ("٣", "1_0", "0x10", "", "1" * 31):
        with pytest.raises(ValueError):
            ascii_int(bad)
    for bad in ("١.5", "1_0.5", "0x1p3", "1e"):
        with pytest.raises(ValueError):
            ascii_float(bad)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_help_still_works(command, capsys):
    with pytest.raises(SystemExit) as e:
        main([command, "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith(f"usage: fabricviz {command}")


@pytest.mark.slow
def test_one_case_collective_refuses_a_dead_scheduler(capsys):
    rc, err = _cli(["collective", DEMO, "--op", "allreduce", "--sizes", "1MB", "--scheduler", "tcp://127.0.0.1:1"],
                   capsys)
    assert rc == 2 and err.startswith("fabricviz: error: --scheduler 'tcp://127.0.0.1:1': no Dask scheduler "
                                      "answered within") and err.count("\n") == 1
