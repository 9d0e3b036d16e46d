"""``fabricviz counters``: the worst links on real ibsim output, rates, JSON, one-line refusals."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fabricviz.cli import main

DATA = Path(__file__).resolve().parent / "data"
DESIGN = str(DATA / "samples" / "ibsim_net.2sw2path4hca.net")
CNT = DATA / "counters"


def run(capsys, *args):
    rc = main(["counters", DESIGN, *map(str, args)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_text(capsys):
    rc, out, err = run(capsys, CNT / "perfquery_t0.txt")
    assert rc == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "6 links with counted ends (20 ports counted); 3 with errors (counts)"
    assert lines[1] == ("  1. Switch1 port 3 — Switch2 port 3: SymbolErrorCounter 1,234 at Switch1 port 3, "
                        "LinkErrorRecoveryCounter 7 at Switch1 port 3; ends disagree: one-sided errors")
    assert lines[3].startswith("  3. Switch1 port 5 — Switch2 port 5: LinkDownedCounter 3 at Switch1 port 5, "
                               "LinkDownedCounter 1 at Switch2 port 5")
    assert lines[4] == "Ends disagree on 3 links:"


def test_rates_with_interval_and_json(capsys):
    rc, out, _ = run(capsys, CNT / "perfquery_t1.txt", "--since", CNT / "perfquery_t0.txt", "--interval", "60",
                     "--json", "--by", "xmit-wait")
    doc = json.loads(out)
    assert rc == 0 and doc["interval_s"] == 60.0 and doc["by"] == "xmit-wait"
    (w,) = doc["worst"]
    assert (w["a"]["device"], w["a"]["port"], w["b"]["device"], w["xmit-wait"]) == ("Switch2", 1, "Hca2", 10000.0)
    assert w["b"]["counters"]["PortRcvErrors"] == pytest.approx(10 / 60)
    assert [d["kind"] for d in w["disagree"]] == ["one_sided_errors"]


def test_interval_from_mtimes(capsys, tmp_path):
    old, new = tmp_path / "t0.txt", tmp_path / "t1.txt"
    old.write_bytes((CNT / "perfquery_t0.txt").read_bytes())
    new.write_bytes((CNT / "perfquery_t1.txt").read_bytes())
    os.utime(old, (1000, 1000))
    os.utime(new, (1030, 1030))
    rc, out, _ = run(capsys, new, "--since", old)
    assert rc == 0 and "(increase per second, over 30.0 s)" in out.splitlines()[0]
    assert "SymbolErrorCounter 2,184/s at Switch2 port 2 (saturated)" in out
    os.utime(new, (900, 900))
    rc, _out, err = run(capsys, new, "--since", old)
    assert rc == 2 and err.count("\n") == 1 and "give the seconds between the snapshots with --interval S" in err


@pytest.mark.parametrize("text,where", [("garbage\n", ":1: not perfquery"),
                                        ("# Port counters: Lid 1 port 3\nSymbolErrorCounter:...x\n", ":2: ")])
def test_unreadable_exit_2_one_line(capsys, tmp_path, text, where):
    bad = tmp_path / "bad.txt"
    bad.write_text(text)
    rc, out, err = run(capsys, bad)
    assert rc == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"fabricviz: error: {bad}{where}")


def test_missing_file(capsys, tmp_path):
    rc, _out, err = run(capsys, tmp_path / "nope.txt")
    assert rc == 2 and err == f"fabricviz: error: {tmp_path / 'nope.txt'}: cannot read: No such file or directory\n"


def test_top_limits_every_list(capsys):
    rc, out, _ = run(capsys, CNT / "perfquery_t0.txt", "--top", "1")
    lines = out.splitlines()
    assert rc == 0 and lines[1].startswith("  1. Switch1 port 3 — Switch2 port 3:") and not lines[2].startswith("  2.")
    assert lines[2:] == ["Ends disagree on 3 links:",
                         "  Switch1 port 3 — Switch2 port 3: Switch1 port 3 receives errors (1,234 symbol/receive), "
                         "Switch2 port 3 none: suspect the Switch2 → Switch1 direction (that transmitter, its lanes "
                         "or this receiver)",
                         "  … and 2 more (--top 0 lists all)"]
