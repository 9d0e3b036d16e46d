"""Failure what-if (issue 17): trials re-route a failed copy and measure max-min as simulate does.

The small design throughout: a RoCE leaf-spine of 2 leaves × 2 spines × 2 hosts per leaf, every link
400G. The permutation (seed 0) sends node01→node04, node02→node03, node03→node02, node04→node01: all
four flows cross between the leaves. Intact, ECMP puts leaf01's two flows on one spine (200 Gb/s
each) and spreads leaf02's (400 each): mean 300. With one spine (or one leaf-spine cable) down, each
leaf's two flows share one 400G uplink: 200 each, metric exactly 200 = 2/3 of intact. A host cable
down cuts that host off: its two flows are left out, the other two run alone at 400 each.
"""

from __future__ import annotations

import csv
import json
import random

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate.fattree import fat_tree
from fabricviz.generate.leafspine import leaf_spine
from fabricviz.sim.compare import run_workload
from fabricviz.sim.whatif import (
    elements,
    failed_fabric,
    parse_fail,
    per_k,
    prepare,
    ranked,
    run_trial,
    run_trials,
    stats,
)


@pytest.fixture(scope="module")
def ls():
    return leaf_spine(2, 2, 2)


def test_spine_failure_halves_cross_leaf_capacity_as_a_direct_simulate(ls):
    sh = prepare(ls, parse_fail("switches:1"), worst=True)
    assert sh.names == ("leaf01", "leaf02", "spine01", "spine02")
    direct = ls.copy()
    direct.remove_devices([direct.device_id("spine01")])
    res = run_workload(direct, sh.flows, "maxmin", 1e-3, 0)
    assert res.flow_rates().tolist() == [200.0, 200.0, 200.0, 200.0]
    assert sh.intact_gbps == run_workload(ls, sh.flows, "maxmin", 1e-3, 0).flow_rates().mean() == 300.0
    r = run_trial(sh, 2)
    assert (r.failed, r.metric_gbps, r.relative, r.disconnected, r.dropped_flows) == (("spine01",), 200.0,
                                                                                      2 / 3, (), 0)
    assert len(ls.cable_ids()) == 8 and ls.cables_t.alive.sum() == 8     # the user's design is untouched
    # a leaf down cuts both its hosts off: every flow touches one, none is left to run
    r = run_trial(sh, 0)
    assert (r.metric_gbps, r.disconnected, r.dropped_flows, r.delivered) == (0.0, ("node01", "node02"), 4, 0.0)


def test_worst_ranks_spine_links_above_host_links_and_counts_cut_off_hosts(ls):
    """A leaf-spine cable: 200 × 4 flows, delivered 800/1200; a host cable: 400 × 2, delivered 800/1200
    as well, so the tie goes to the lower mean per-flow rate (2/3 against 4/3): spine links first."""
    sh = prepare(ls, parse_fail("cables:1"), worst=True)
    rows = ranked(run_trials(sh))
    assert [r.failed[0] for r in rows] == [
        "leaf01:3 – spine01:1", "leaf01:4 – spine02:1", "leaf02:3 – spine01:2", "leaf02:4 – spine02:2",
        "node01/mlx5_0:1 – leaf01:1", "node02/mlx5_0:1 – leaf01:2", "node03/mlx5_0:1 – leaf02:1",
        "node04/mlx5_0:1 – leaf02:2"]
    assert [r.metric_gbps for r in rows] == [200.0] * 4 + [400.0] * 4
    assert [r.disconnected for r in rows[4:]] == [("node01",), ("node02",), ("node03",), ("node04",)]
    assert [r.dropped_flows for r in rows] == [0] * 4 + [2] * 4
    assert [r.delivered for r in rows] == pytest.approx([2 / 3] * 8, abs=0)


def test_tiers_pick_their_cables(ls):
    names = lambda t: elements(ls, parse_fail(f"links-of:{t}:1"))[1]   # noqa: E731
    assert names("host") == ("node01/mlx5_0:1 – leaf01:1", "node02/mlx5_0:1 – leaf01:2",
                             "node03/mlx5_0:1 – leaf02:1", "node04/mlx5_0:1 – leaf02:2")
    assert len(names("leaf-spine")) == 4 and names("spine-core") == ()


def test_same_seed_same_trials_in_any_order(ls):
    sh = prepare(ls, parse_fail("cables:1,2,3"), trials=6, seed=5)
    base = run_trials(sh)
    order = list(range(len(sh.trials)))
    random.Random(1).shuffle(order)
    assert run_trials(sh, order=order) == base
    assert run_trials(prepare(ls, parse_fail("cables:1,2,3"), trials=6, seed=5)) == base
    # K=2's draws do not depend on which other K values were asked for
    assert [r for r in base if r.k == 2] == run_trials(prepare(ls, parse_fail("cables:2"), trials=6, seed=5))
    assert {len(r.failed) for r in base} == {1, 2, 3}


def test_per_k_distribution():
    assert stats(np.arange(21.0)) == {"min": 0.0, "p5": 1.0, "median": 10.0, "p95": 19.0, "max": 20.0}


def test_ib_minhop_rerouting_after_a_spine_failure_equals_routing_the_failed_design():
    """The trial's copy (spine03's 4 cables down) and the design with spine03 deleted get the same
    minhop LFT paths; the metric is the direct run's (275 Gb/s mean: minhop on the intact k=4 tree
    gives 237.5, the re-sweep after this failure happens to spread the permutation better)."""
    from fabricviz.ib.routing import route
    from fabricviz.sim.links import link_table
    from fabricviz.sim.paths import Routes, sm_paths
    from fabricviz.sim.paths import route as paths_route
    ft = fat_tree(levels=3, radix=4, fabric="ib")           # k=4: 16 hosts, 8 leaves, 8 spines, 4 cores
    sh = prepare(ft, parse_fail("switches:1"), worst=True)
    j = sh.names.index("spine03")
    failed = failed_fabric(sh, j)
    direct = ft.copy()
    direct.remove_devices([direct.device_id("spine03")])

    def paths(fab) -> Routes:
        return paths_route(fab, link_table(fab), sh.flows, "static", provider=sm_paths(route(fab, "minhop")))
    a, b = paths(failed), paths(direct)
    assert np.array_equal(a.links, b.links) and np.array_equal(a.indptr, b.indptr)
    assert len(sh.cables[j]) == 4 and not np.isin(a.links // 2, sh.cables[j]).any()   # no path meets spine03
    r = run_trial(sh, j)
    assert r.metric_gbps == run_workload(direct, sh.flows, "maxmin", 1e-3, 0).flow_rates().mean() == 275.0


@pytest.fixture()
def design(tmp_path, ls):
    p = tmp_path / "ls.json"
    save_fabric(ls, p)
    return p


def test_cli_table_json_csv_plot(design, tmp_path, capsys):
    out_csv, png = tmp_path / "t.csv", tmp_path / "c.png"
    assert main(["whatif", str(design), "--fail", "cables:1,2", "--trials", "4", "--csv", str(out_csv),
                 "--plot", str(png), "--quiet"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0] == ("leaf-spine-2x2: fail cables, metric permutation (4 flows), intact 300.00 Gb/s mean "
                       "per flow, seed 0")
    assert text[1].split() == ["K", "trials", "min", "p5", "median", "p95", "max", "delivered",
                               "disconnected", "hosts", "(mean", "/", "max)", "degraded", "hosts", "(mean", "/",
                               "max)"]
    assert [ln.split()[:2] for ln in text[2:4]] == [["1", "4"], ["2", "4"]]
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 8 and [r["k"] for r in rows] == ["1"] * 4 + ["2"] * 4
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import imageio.v3 as iio
    img = iio.imread(png)
    colours = {tuple(p) for p in img.reshape(-1, 3).tolist()}
    assert img.shape == (500, 800, 3)
    assert {(20, 50, 150), (200, 212, 240)} <= colours and (200, 90, 20) not in colours   # median, filled band
    assert main(["whatif", str(design), "--fail", "cables:1,2", "--trials", "4", "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["whatif", str(design), "--fail", "cables:1,2", "--trials", "4", "--json"]) == 0
    assert capsys.readouterr().out == first
    doc = json.loads(first)
    assert doc["intact"]["metric_gbps"] == 300.0 and len(doc["trials"]) == 8
    sh = prepare(leaf_spine(2, 2, 2), parse_fail("cables:1,2"), trials=4)
    assert doc["per_k"] == json.loads(json.dumps(per_k(run_trials(sh))))
    assert [len(t["failed"]) for t in doc["trials"]] == [1] * 4 + [2] * 4


def test_cli_worst_prints_the_ranking(design, capsys):
    assert main(["whatif", str(design), "--fail", "links-of:leaf-spine:1", "--worst"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    assert lines[0].split() == ["rank", "delivered", "relative", "cut", "off", "degraded", "failed"]
    assert lines[1].split() == ["1", "0.667", "0.667", "0", "0", "leaf01:3", "–", "spine01:1"]
    assert len(lines) == 5


@pytest.mark.parametrize("argv, line", [
    (["--fail", "cables:9"], "--fail 'cables:9': K=9 but the design has 8 cables"),
    (["--fail", "links-of:core:1"], "--fail 'links-of:core:1': unknown tier 'core' (use host, leaf-spine, spine-core)"),
    (["--fail", "switches:1", "--trials", "0"], "--trials 0: must be 1 to 10,000 per K"),
    (["--fail", "switches:1", "--trials", "2000000"], "--trials 2000000: must be 1 to 10,000 per K"),
    (["--fail", "pods:1"], "--fail 'pods:1': use cables:K, switches:K, switches-of:TIER:K, links-of:TIER:K or plane:K"),
    (["--fail", "switches-of:core:1"],
     "--fail 'switches-of:core:1': the design has no core switches (its switch tiers: leaf, spine)"),
    (["--fail", "switches-of:spine:3"], "--fail 'switches-of:spine:3': K=3 but the design has 2 spine switches"),
    (["--fail", "switches-of:pod:1"], "--fail 'switches-of:pod:1': unknown tier 'pod' (use leaf, spine, core)"),
    (["--fail", "cables:1", "--metric", "allreduce:1XB"], "--metric 'allreduce:1XB': bad size '1XB' (use e.g. 4096B, "
     "64MB, 1GiB: B/KB/MB/GB/TB decimal, KiB/MiB/GiB/TiB binary)"),
    (["--fail", "cables:1", "--engine", "ftree"],
     "--engine: subnet manager routing engines are InfiniBand's; {f} is a RoCE design"),
])
def test_cli_refusals(design, capsys, argv, line):
    assert main(["whatif", str(design), *argv]) == 2
    assert capsys.readouterr().err.strip() == "fabricviz: error: " + line.format(f=design)


def test_allreduce_metric_is_the_collectives_busbw_on_the_failed_design(ls):
    """The ring node01→02→03→04→01 crosses between the leaves once each way: one spine carries it,
    so losing a spine costs nothing (relative exactly 1); busbw is fabricviz collective's."""
    from fabricviz.sim.collective import collective
    sh = prepare(ls, parse_fail("switches:1"), metric="allreduce:1e+09", worst=True)
    direct = ls.copy()
    direct.remove_devices([direct.device_id("spine01")])
    want = collective(direct, "allreduce", np.array([1e9])).rows[0].busbw
    r = run_trial(sh, 2)
    assert (r.failed, r.metric_gbps, r.relative, r.dropped_flows) == (("spine01",), want, 1.0, 0)
    assert sh.intact_gbps == collective(ls, "allreduce", np.array([1e9])).rows[0].busbw
    r = run_trial(sh, 0)                  # leaf01 down: the ring runs over node03, node04 only
    assert (r.disconnected, r.dropped_flows) == (("node01", "node02"), 2)


def test_an_allreduce_with_a_rank_cut_off_fails_and_dmodk_routes_it():
    """2-level radix-8 IB tree, one GPU per server, --engine dmodk: losing a spine costs the ring
    nothing (it crosses each leaf once: one uplink of the three left is enough, 49.41 GB/s as intact);
    losing a leaf cuts 4 ranks off and the job fails (0), never the busbw of a smaller collective."""
    from fabricviz.sim.whatif import parse_fail, parse_metric, prepare, ranked, run_trials
    assert parse_metric("allreduce:1GiB") == "allreduce:1073741824"
    sh = prepare(fat_tree(2, 8, fabric="ib"), parse_fail("switches:1"), parse_metric("allreduce:1GB"),
                 engine="dmodk", worst=True)
    res = run_trials(sh)
    spines = [r for r in res if r.failed[0].startswith("spine")]
    leaves = [r for r in res if r.failed[0].startswith("leaf")]
    assert len(spines) == 4 and len(leaves) == 8
    assert all(r.metric_gbps == 0.0 and len(r.disconnected) == 4 for r in leaves)
    assert all(r.relative == 1.0 and r.metric_gbps == pytest.approx(49.4077403, rel=1e-8) for r in spines)
    assert [r.failed[0][:5] for r in ranked(res)[:8]] == ["leaf0"] * 8


# ---------------------------------------------------------------- switches-of:TIER:K
@pytest.fixture(scope="module")
def tree8():
    """Lesson 12's design: a two-level InfiniBand fat tree of radix-8 switches (8 leaves, 4 spines, 32 hosts)."""
    return fat_tree(levels=2, radix=8)


def test_switches_of_a_tier_parse_name_and_count():
    from fabricviz.generate import k_ary_fat_tree
    from fabricviz.sim.whatif import FailSpec, switch_tiers
    spec = parse_fail(" Switches-of:Spine:2,1,2 ")
    assert spec == FailSpec("switches-of", "spine", (1, 2))
    assert (spec.what, spec.label, spec.noun) == ("switches-of:spine", "switches-of:spine:1,2", "spine switches")
    assert parse_fail("links-of:leaf-spine:1").noun == "leaf-spine links" and parse_fail("switches:1").noun == "switches"
    ft = k_ary_fat_tree(4)                                     # three levels: 8 leaves, 8 spines, 4 cores
    assert switch_tiers(ft) == ("leaf", "spine", "core")
    assert elements(ft, parse_fail("switches-of:core:1"))[1] == ("core01", "core02", "core03", "core04")
    assert len(elements(ft, parse_fail("switches-of:spine:1"))[0]) == 8
    assert switch_tiers(leaf_spine(2, 2, 2)) == ("leaf", "spine")      # two levels: the top tier is spine


def test_switches_of_spine_gives_lesson_12s_curve(tree8):
    """One to four of the four spines down, 20 trials each, seed 0 (what lesson 12's first step quotes):
    medians 0.660, 0.562, 0.365 of intact, and 0 with all four gone, 28 of the 32 hosts cut off."""
    sh = prepare(tree8, parse_fail("switches-of:spine:1,2,3,4"), trials=20, seed=0)
    assert sh.names == ("spine01", "spine02", "spine03", "spine04") and round(sh.intact_gbps, 3) == 300.0
    rows = per_k(run_trials(sh))
    assert [round(r["relative"]["median"], 3) for r in rows] == [0.660, 0.562, 0.365, 0.0]
    assert [r["disconnected_hosts"]["max"] for r in rows] == [0, 0, 0, 28]
    assert all(r["relative"]["min"] == r["relative"]["max"] for r in rows)      # symmetric: every draw the same


def test_switches_of_draws_are_those_of_switches_restricted_to_the_tier(tree8):
    """K of the tier's switches in id order, from SeedSequence(seed, spawn_key=(K, trial)): the trials
    of switches:K with its candidates narrowed to the spines, draw for draw."""
    from dataclasses import replace

    from fabricviz.sim.whatif import trial_elements
    sh = prepare(tree8, parse_fail("switches-of:spine:1,3"), trials=3, seed=7)
    every = prepare(tree8, parse_fail("switches:1,3"), trials=3, seed=7)
    keep = [j for j, n in enumerate(every.names) if n.startswith("spine")]
    narrowed = replace(every, ids=every.ids[keep], names=tuple(every.names[j] for j in keep),
                       cables=tuple(every.cables[j] for j in keep))
    assert np.array_equal(sh.ids, narrowed.ids) and sh.trials == narrowed.trials
    assert run_trials(sh) == run_trials(narrowed)
    for j, (k, i) in enumerate(sh.trials):
        rng = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(k, i)))
        assert trial_elements(sh, j).tolist() == sorted(rng.choice(4, size=k, replace=False).tolist())


def test_a_failed_leaf_cuts_its_hosts_off(tree8):
    res = run_trials(prepare(tree8, parse_fail("switches-of:leaf:1"), trials=3, seed=0))
    assert [r.failed for r in res] == [("leaf04",), ("leaf04",), ("leaf06",)]
    for r in res:
        n = int(r.failed[0][4:])
        assert r.disconnected == tuple(f"node{4 * (n - 1) + h:02d}" for h in (1, 2, 3, 4)) and r.dropped_flows == 8


def test_worst_ranks_every_spine(tree8, tmp_path, capsys):
    p = tmp_path / "tree8.json"
    save_fabric(tree8, p)
    assert main(["whatif", str(p), "--fail", "switches-of:spine:1", "--worst", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("fat-tree-2l-r8-32h: fail switches-of:spine, metric permutation")
    assert [ln.split()[-1] for ln in lines[2:]] == ["spine01", "spine02", "spine03", "spine04"]
    assert {tuple(ln.split()[1:5]) for ln in lines[2:]} == {("0.660", "0.660", "0", "0")}


def test_an_allreduce_whose_intact_design_already_cuts_a_gpu_off_is_refused_naming_it(tmp_path, capsys):
    """NCCL needs every rank: the intact design scores 0 then, and the line says why."""
    f = fat_tree(2, 8, fabric="ib")
    nic = f.find("node01/mlx5_0")
    f.remove_cables([int(f.ports_t.cable[int(f.devices_t.first_port[nic])])])
    p = tmp_path / "cut.json"
    save_fabric(f, p)
    assert main(["whatif", str(p), "--fail", "cables:1", "--trials", "2", "--metric", "allreduce"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"fabricviz: error: {f.name}: an all-reduce needs every GPU, and the intact design already cuts some off "
        "(1 host unreachable, left out of the run: node01 (not cabled))")
