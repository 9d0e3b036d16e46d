"""`simulate --transport eqds|ndp|hpcc`, `compare-tech --transport` and `export-htsim --transport`: the
flags end to end, and the run.sh each export writes (htsim_eqds / htsim_ndp / htsim_hpcc with the flags
the model assumes). With HTSIM set to a built csg-htsim sim/datacenter, the oracle test runs them."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree

FIXTIME = Path(__file__).resolve().parents[1] / "data" / "htsim" / "fixtime.c"


@pytest.fixture(scope="module")
def designs(tmp_path_factory):
    d = tmp_path_factory.mktemp("designs")
    out = {}
    for key, f in (("roce", fat_tree(levels=2, radix=4, fabric="roce", speed="100GbE", switch="SN4700")),
                   ("ft3", fat_tree(levels=3, radix=4, fabric="roce", speed="100GbE", switch="SN4700")),
                   ("ib", fat_tree(levels=2, radix=4, fabric="ib"))):
        out[key] = str(d / f"{key}.json")
        save_fabric(f, out[key])
    return out


def cli(capsys, *argv):
    rc = main([*map(str, argv)])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("transport,routing", [("eqds", "spray"), ("ndp", "spray"), ("hpcc", "ecmp")])
def test_simulate_transport_json(designs, capsys, transport, routing):
    rc, out, err = cli(capsys, "simulate", designs["roce"], "--workload", "permutation:1:4MB", "--over", "nic",
                       "--transport", transport, "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["transport"] == transport and d["transport_model"]["routing"] == routing
    assert d["fct"]["finished"] == 8
    assert "htsim" in d["transport_model"]["constants"]


def test_simulate_transport_refusals(designs, capsys):
    rc, _, err = cli(capsys, "simulate", designs["ib"], "--workload", "permutation", "--transport", "eqds")
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "InfiniBand" in err
    rc, _, err = cli(capsys, "simulate", designs["roce"], "--workload", "permutation", "--routing", "adaptive",
                     "--transport", "ndp")
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "routes spray" in err


def test_compare_tech_takes_the_transport(designs, capsys, tmp_path):
    rc, out, err = cli(capsys, "compare-tech", designs["roce"], "--workload", "permutation:1:1MB", "--transport",
                       "eqds", "--model", "maxmin", "--json")
    assert rc == 0, err
    assert "eqds" in out
    # the fluid model (compare-tech's default) runs EQDS tick by tick (fabricviz/sim/fluid_transports)
    rc, out, err = cli(capsys, "compare-tech", designs["roce"], "--workload", "incast:4:1MB", "--transport", "eqds",
                       "--json")
    assert rc == 0, err
    assert '"fluid (tick by tick)"' in out and '"eqds"' in out


def run_args(run_sh: str) -> dict[str, str]:
    block = run_sh.split("args=(\n", 1)[1].split("\n)\n", 1)[0]
    out = {}
    for line in block.splitlines():
        m = re.match(r"  (-\w+) (.+?)\s+# (.+)$", line)
        assert m, line
        out[m[1]] = m[2]
    return out


@pytest.mark.parametrize("transport,binary,strat", [("eqds", "htsim_eqds", None), ("ndp", "htsim_ndp", "perm"),
                                                    ("hpcc", "htsim_hpcc", "ecmp_host")])
def test_export_transport_run_sh(designs, capsys, tmp_path, transport, binary, strat):
    rc, _, err = cli(capsys, "export-htsim", designs["ft3"], "--workload", "permutation:1:1MB", "--over", "nic",
                     "--transport", transport, "-o", tmp_path / "run")
    assert rc == 0, err
    run_sh = (tmp_path / "run" / "run.sh").read_text()
    args = run_args(run_sh)
    assert f'"$HTSIM/{binary}" "${{args[@]}}" "$@" > "$here/{binary}.out"' in run_sh
    assert args.get("-strat") == strat
    assert ("-tiers" in args) == (transport != "hpcc")           # htsim_hpcc has no -tiers
    assert args["-nodes"] == "16" and args["-linkspeed"] == "100000"
    assert not {"-q", "-mtu", "-pfc_thresholds", "-queue_type"} & set(args)   # the simulator's own defaults
    assert ("FIXTIME" in run_sh) == (transport == "hpcc")
    assert (tmp_path / "run" / "README.txt").read_text().startswith(f"run.sh runs htsim's {transport}")


@pytest.mark.oracle
@pytest.mark.parametrize("transport", ["eqds", "ndp", "hpcc"])
def test_export_runs_in_htsim(designs, capsys, tmp_path, transport):
    """htsim itself reads the export: every flow finishes (HTSIM: a built csg-htsim sim/datacenter)."""
    htsim = os.environ.get("HTSIM")
    binary = Path(htsim or "/nonexistent") / f"htsim_{transport}"
    if not binary.exists():
        pytest.skip(f"no {binary.name}: set HTSIM to a built csg-htsim sim/datacenter")
    shim = tmp_path / "fixtime.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(shim), str(FIXTIME)], check=True)
    rc, _, err = cli(capsys, "export-htsim", designs["ft3"], "--workload", "permutation:1:1MB", "--over", "nic",
                     "--transport", transport, "-o", tmp_path / "run")
    assert rc == 0, err
    done = subprocess.run(["bash", str(tmp_path / "run" / "run.sh")], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HTSIM": htsim or "", "FIXTIME": str(shim)}, cwd=tmp_path, check=True)
    assert done.stdout.startswith("16 of 16 sized flows finished"), done.stdout
    # a broken export is caught: htsim refuses a matrix naming more hosts than -nodes
    cm = tmp_path / "run" / "connections.cm"
    cm.write_text(cm.read_text().replace("Nodes 16", "Nodes 17"))
    bad = subprocess.run(["bash", str(tmp_path / "run" / "run.sh")], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "HTSIM": htsim or "", "FIXTIME": str(shim)}, cwd=tmp_path)
    assert not bad.stdout.startswith("16 of 16"), bad.stdout


def test_export_hpcc_needs_three_levels(designs, capsys, tmp_path):
    rc, _, err = cli(capsys, "export-htsim", designs["roce"], "--workload", "permutation", "--over", "nic",
                     "--transport", "hpcc", "-o", tmp_path / "run")
    assert rc == 2 and "3 levels only" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()
