"""What-if (issue 17): hosts vs NICs cut off, and batches of designs (`fabricviz whatif A.json B.json`).

Rail-optimised SU of 4 DGX (8 NICs each, NIC r on rail leaf r): a leaf down cuts one NIC of every
DGX off, so no host is disconnected, all 4 are degraded and 4 NICs are cut. On the 2×2 leaf-spine
(one NIC per host) a host cable down disconnects that host: 1 host, 1 NIC, nothing degraded.
"""

from __future__ import annotations

import csv
import json

import imageio.v3 as iio
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate.leafspine import leaf_spine
from fabricviz.generate.rail import rail_optimized
from fabricviz.sim.fanout import FanOut
from fabricviz.sim.whatif import CSV_COLUMNS, Batch, csv_text, parse_fail, per_k, prepare, run_batch_trial, run_trials

DGX = ("su1-dgx01", "su1-dgx02", "su1-dgx03", "su1-dgx04")


@pytest.mark.parametrize("tech", ["roce", "ib"])
def test_losing_a_rail_leaf_degrades_every_dgx_and_disconnects_none(tech):
    sh = prepare(rail_optimized(1, tech, nodes_per_unit=4), parse_fail("switches:1"), worst=True)
    res = run_trials(sh)
    leaves, spines = res[:8], res[8:]
    assert [r.failed[0] for r in leaves] == [f"su1-rail{i}" for i in range(8)]
    assert all((r.disconnected, r.degraded, r.nics_cut) == ((), DGX, 4) for r in leaves)
    assert all((r.disconnected, r.degraded, r.nics_cut) == ((), (), 0) for r in spines)
    assert per_k(res)[0]["degraded_hosts"] == {"mean": 8 * 4 / 12, "max": 4}
    assert per_k(res)[0]["disconnected_hosts"] == {"mean": 0.0, "max": 0}
    d = leaves[0].to_dict()
    assert (d["disconnected_hosts"], d["degraded_hosts"], d["nics_cut"]) == ([], list(DGX), 4)


def test_a_host_cable_disconnects_its_single_nic_host_and_csv_gains_columns_at_the_end():
    sh = prepare(leaf_spine(2, 2, 2), parse_fail("links-of:host:1"), worst=True)
    res = run_trials(sh)
    assert [(r.disconnected, r.degraded, r.nics_cut) for r in res] == [
        (("node01",), (), 1), (("node02",), (), 1), (("node03",), (), 1), (("node04",), (), 1)]
    assert CSV_COLUMNS[:9] == ("k", "trial", "failed", "metric_gbps", "relative", "delivered", "disconnected",
                               "dropped_flows", "disconnected_hosts")
    assert CSV_COLUMNS[9:] == ("degraded", "nics_cut", "degraded_hosts")
    rows = list(csv.DictReader(csv_text(res, False).splitlines()))
    assert [(r["disconnected_hosts"], r["degraded"], r["nics_cut"], r["degraded_hosts"]) for r in rows] == [
        (f"node0{i}", "0", "1", "") for i in range(1, 5)]


@pytest.fixture(scope="module")
def designs(tmp_path_factory):
    d = tmp_path_factory.mktemp("batch")
    a, b = d / "ls.json", d / "rail.json"
    save_fabric(leaf_spine(2, 2, 2), a)
    save_fabric(rail_optimized(1, "roce", nodes_per_unit=4), b)
    return str(a), str(b)


def test_a_batch_gives_each_design_its_own_trials():
    spec = parse_fail("switches:1,2")
    alone = [prepare(f, spec, trials=3, seed=7) for f in (leaf_spine(2, 2, 2), rail_optimized(1, "roce",
                                                                                               nodes_per_unit=4))]
    batch = Batch(tuple(alone))
    assert batch.items() == [(0, j) for j in range(6)] + [(1, j) for j in range(6)]
    got = FanOut(1).map(run_batch_trial, batch, batch.items())
    assert got == run_trials(alone[0]) + run_trials(alone[1])


@pytest.mark.slow
def test_cli_batch_tables_json_csv_plot_equal_each_design_run_alone(designs, tmp_path, capsys):
    a, b = designs
    flags = ["--fail", "switches:1,2", "--trials", "3", "--seed", "7", "--quiet"]
    one = []
    for f in designs:
        assert main(["whatif", f, *flags, "--json"]) == 0
        one.append(json.loads(capsys.readouterr().out))
    assert main(["whatif", a, b, *flags, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == one            # a list, each design as run alone
    out_csv, png = tmp_path / "b.csv", tmp_path / "b.png"
    assert main(["whatif", a, b, *flags, "--csv", str(out_csv), "--plot", str(png)]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith("leaf-spine-2x2: fail switches") and text[5] == ""
    assert text[6].startswith("rail-1su: fail switches, metric permutation (32 flows)")
    at = text.index("comparison of 2 designs:")
    k = {(d["design"], s["k"]): s for d in one for s in d["per_k"]}
    want = [f"{n:<14}  {kk:>4}  {s['relative']['median']:>6.3f}  {s['relative']['p5']:>6.3f}  "
            f"{s['disconnected_hosts']['mean']:>12.2f}  {s['degraded_hosts']['mean']:>8.2f}"
            for (n, kk), s in k.items()]
    assert text[at + 1].split() == ["design", "K", "median", "p5", "disconnected", "degraded"]
    assert text[at + 2:at + 6] == want
    assert k["rail-1su", 1]["disconnected_hosts"]["max"] == 0 and k["rail-1su", 1]["degraded_hosts"]["max"] == 4
    rows = list(csv.DictReader(out_csv.open()))
    assert list(rows[0])[:2] == ["design", "k"] and len(rows) == 12
    assert [r["design"] for r in rows] == ["leaf-spine-2x2"] * 6 + ["rail-1su"] * 6
    assert [r["relative"] for r in rows] == [repr(t["relative"]) for d in one for t in d["trials"]]
    img = iio.imread(png)
    colours = {tuple(p) for p in img.reshape(-1, 3).tolist()}
    assert img.shape == (500, 800, 3) and {(20, 50, 150), (200, 90, 20)} <= colours   # one curve each


def test_cli_batch_refuses_a_bad_design_in_one_line_before_any_trial(designs, tmp_path, capsys, monkeypatch):
    import fabricviz.sim.whatif as whatif

    def never(*a):
        raise AssertionError("a trial ran")
    monkeypatch.setattr(whatif, "run_batch_trial", never)
    a, b = designs
    missing = str(tmp_path / "nope.json")
    assert main(["whatif", a, missing, "--fail", "cables:1"]) == 2
    assert capsys.readouterr().err.splitlines() == [f"fabricviz: error: {missing}: no such file"]
    assert main(["whatif", b, a, "--fail", "cables:9"]) == 2       # the leaf-spine has 8 cables
    assert capsys.readouterr().err.splitlines() == [
        f"fabricviz: error: {a}: --fail 'cables:9': K=9 but the design has 8 cables"]
