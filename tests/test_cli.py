"""The fabricviz command: generate, info, one-line errors with status 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import load_fabric


def run(args, capsys):
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, out, err


def test_generate_fat_tree_and_info(tmp_path, capsys):
    out_file = tmp_path / "ft.json"
    rc, out, err = run(["generate", "fat-tree", "--levels", "3", "--radix", "8", "-o", str(out_file)], capsys)
    assert rc == 0 and err == ""
    assert out.strip().endswith("128 servers, 128 GPUs, 128 NICs, 80 switches, 384 cables")
    f = load_fabric(out_file)
    assert f.counts()["ib_switch"] == 80
    rc, out, err = run(["info", str(out_file), "--json"], capsys)
    info = json.loads(out)
    assert rc == 0
    assert info["switches"] == 80 and info["host_ports"] == 128
    assert info["tiers"] == {"hosts": {"server": 128, "gpu": 128, "nic": 128}, "leaf": {"ib_switch": 32},
                             "spine": {"ib_switch": 32}, "core": {"ib_switch": 16}}
    assert info["bisection_gbps"] == 25600.0
    assert info["diameter_switch_hops"] == 5
    assert info["cables_by_rate"] == {"4xNDR": 384}
    rc, out, err = run(["info", str(out_file)], capsys)
    assert "bisection bandwidth: 25.6 Tb/s" in out and "diameter: 5 switch hops" in out


def test_generate_leaf_spine_and_rail(tmp_path, capsys):
    ls = tmp_path / "ls.json"
    rc, out, _ = run(["generate", "leaf-spine", "--leaves", "4", "--spines", "2", "--hosts-per-leaf", "16",
                      "--uplinks", "4", "-o", str(ls)], capsys)
    assert rc == 0
    info = json.loads(run(["info", str(ls), "--json"], capsys)[1])
    assert info["oversubscription"] == {"leaf": "4:1"} and info["cables_by_rate"]["400GbE"] == 64 + 16
    rail = tmp_path / "rail.json"
    rc, out, _ = run(["generate", "rail", "--units", "2", "--name", "two SUs", "-o", str(rail)], capsys)
    assert rc == 0 and "two SUs: 64 servers, 512 GPUs, 512 NICs, 24 switches" in out


@pytest.mark.parametrize("args,msg", [
    (["generate", "fat-tree", "--levels", "3", "--radix", "64", "-o", "X"],
     "fabricviz: error: as one InfiniBand subnet, 65,536 host ports + 5,120 switches need 70,656 LIDs, "
     "over the 49,151 unicast LIDs (0x0001-0xBFFF); use RoCE (Ethernet) instead, fewer hosts, or split the fabric "
     "into subnets"),
    (["generate", "fat-tree", "--radix", "64", "--hosts", "3000", "-o", "X"],
     "fabricviz: error: --hosts 3000: exceeds the 2,048 that a 2-level fat tree of radix-64 switches at 32:32 "
     "with 1 parallel link(s) (64 leaves × 32 host ports) allows"),
    (["generate", "fat-tree", "-o", "X"], "fabricviz: error: the following arguments are required: --radix"),
    (["generate", "fat-tree", "--radix", "eight", "-o", "X"],
     "fabricviz: error: argument --radix: invalid int value: 'eight'"),
    (["info", "missing.json"], "fabricviz: error: missing.json: no such file"),
    (["generate", "rail", "--units", "3", "-o", "X"],
     "fabricviz: error: --units 3: 12 spines cannot share the 32 uplinks of a leaf evenly; 2-level "
     "rail-optimized fabrics of 64-port switches take 1, 2, 4, 8 units"),
])
def test_user_errors_one_line_status_2(args, msg, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, err = run(args, capsys)
    assert rc == 2 and out == ""
    assert err == msg + "\n"
    assert not (tmp_path / "X").exists()


def test_corrupt_file_error_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "fabricviz", "version": 1, "devices": [{"kind": "gpu"}]}')
    rc, out, err = run(["info", str(bad)], capsys)
    assert rc == 2 and err == f"fabricviz: error: {bad}: devices[0].name: missing\n"


@pytest.mark.slow
def test_python_dash_m_entry_point(tmp_path):
    out_file = tmp_path / "k4.json"
    r = subprocess.run([sys.executable, "-m", "fabricviz", "generate", "fat-tree", "--levels", "3",
                        "--radix", "4", "-o", str(out_file)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "fabricviz", "info", str(tmp_path / "none.json")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_bundled_demo_matches_generator():
    from fabricviz.generate import fat_tree
    from fabricviz.resources import asset_path
    demo = load_fabric(asset_path("demo", "demo-fat-tree.json"))
    made = fat_tree(levels=2, radix=8, hosts=16, name="demo: 2-level NDR fat tree")
    # the file keeps its own (tiered) positions; opening a file never lays it out again
    ids = made.device_ids()
    assert set(demo.devices_t.y[demo.device_ids("server")].tolist()) == {0.0}
    made.set_positions(ids, demo.devices_t.x[ids], demo.devices_t.y[ids])
    assert demo == made


# ---------------------------------------------------------------------------- refused files
DATA = Path(__file__).resolve().parent / "data"
MANPAGE = (DATA / "samples" / "manpage_example.ibnetdiscover").read_text()
NET = (DATA / "samples" / "ibsim_net.2sw2path4hca.net").read_text()
DUMP = DATA / "opensm" / "fat2-minhop" / "opensm-lfts.dump"
#: name -> (text, the refusal after "in/NAME")
REFUSED = {
    "ca.ibnetdiscover": (MANPAGE.replace('Ca      2 "H-0008f10403960984"', 'Ca      100000000 "H-0008f10403960984"'),
                         ":32: Ca with 100000000 ports (1-254)"),
    "ports.ibnetdiscover": ("".join(f'Switch 254 "S-{0x200000 + i:016x}"\n\n' for i in range(1100)),
                            ":2065: Switch with 254 ports takes the ports declared to 262,382, over the "
                            "262,144 a file of 36,300 characters may declare (the design keeps every port, "
                            "cabled or not: at most one per character, or 262,144 in a small file)"),
    "port.net": (NET.replace('[1]\t"Switch1"[1]', '[1]\t"Switch1"[300]', 1),
                 ':34: bad remote port 300 of "Switch1" (1-254)'),
    "name.json": ('{"format": "fabricviz", "version": 1, "devices": [{"kind": "gpu"}]}', ": devices[0].name: missing"),
}
COMMANDS = {
    "convert": ["convert", "{f}", "out.json"],
    "info": ["info", "{f}"],
    "lint": ["lint", "{f}"],
    "bom": ["bom", "{f}"],
    "route": ["route", "{f}"],
    "replay": ["replay", "{f}", str(DUMP)],
    "simulate": ["simulate", "{f}", "--workload", "ring"],
    "export-switch-config": ["export-switch-config", "{f}", "--os", "sonic", "-o", "out"],
}


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_refuses_a_bad_file_in_one_line(tmp_path, monkeypatch, capsys, command, name):
    monkeypatch.chdir(tmp_path)
    Path("in").mkdir()
    text, why = REFUSED[name]
    Path("in", name).write_text(text)
    rc, out, err = run([a.format(f=f"in/{name}") for a in COMMANDS[command]], capsys)
    assert (rc, out, err) == (2, "", f"fabricviz: error: in/{name}{why}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]     # convert wrote nothing
