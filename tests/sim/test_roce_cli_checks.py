"""RoCE runs: a PFC deadlock found under DCQCN, and ``simulate`` refusing the other technology's options.

The deadlock: leaf-spine 4 leaves × 2 spines × 8 hosts with spine01:1 and spine02:2 down closes
leaf03 → spine01 → leaf04 → spine02 → leaf03; ``cycle_load`` puts 16 flows on it. With DCQCN on, the
senders slow to a trickle but the four cycle links stay paused with megabytes frozen on them.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.ethernet.pfc import PfcParams, dynamic_xoff
from fabricviz.ethernet.pfc_watchdog import cycle_load, deadlocked
from fabricviz.formats.native import save_fabric
from fabricviz.generate import leaf_spine
from fabricviz.sim.engine import roce_fluid, simulate
from fabricviz.sim.workloads import Flows

FAIL = ("spine01:1", "spine02:2")


@pytest.fixture(scope="module")
def designs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tech")
    roce, ib = str(d / "ls.json"), str(d / "lsib.json")
    save_fabric(leaf_spine(2, 2, 2), roce)
    save_fabric(leaf_spine(2, 2, 2, fabric="ib"), ib)
    return d, roce, ib


def test_dcqcn_run_reports_the_pfc_deadlock():
    fab = leaf_spine(4, 2, 8)
    cyc, cf = cycle_load(fab, failed=FAIL)
    assert cyc.ring() == "leaf03 → spine01 → leaf04 → spine02 → leaf03" and len(cf) == 16
    prm = roce_fluid(fab)
    assert prm.cc == "dcqcn"
    res = simulate(fab, Flows(cf.src, cf.dst), None, "fluid", 1e-3, provider=cf.provider(), fluid=prm)
    fl = res.fluid
    ring = list(cyc.links)
    # (each leaf's own shared pool and α from the plan: the cycle's buffers fill by 450 µs)
    assert fl.deadlocked and fl.deadlock_s == pytest.approx(450e-6, abs=1e-9) and np.isnan(fl.deadlock_cleared_s)
    assert sorted(np.flatnonzero(fl.deadlock_links).tolist()) == sorted(ring) and fl.deadlock_flows.sum() == 16
    after = [f for f in res.frames if f.time_s > fl.deadlock_s + 50e-6]
    assert len(after) == 101                     # 5 µs frames to 1 ms
    for f in after:                                  # nothing moves while the senders still offer a trickle
        assert np.all(f.link_util[ring] == 0) and np.all(f.flow_rate_gbps == 0) and f.link_paused[ring].all()
        assert 0 < f.flow_cc_rate_gbps.max() < 1.0
    s = res.summary(fab)
    assert s["deadlock"]["since_s"] == fl.deadlock_s and len(s["deadlock"]["links"]) == 4


def test_bytes_queued_from_unpaused_senders_count_against_the_xon():
    # ring 0: A → B, 1: B → A; host links 2 → A, 3 → B (not paused) each feed the ring with 200 bytes
    # waiting on a paused ring egress; each ring ingress holds 300 bytes for the other ring link
    e_link = np.array([2, 0, 0, 1, 3, 1])
    prev = np.array([-1, 2, 1, 0, -1, 3])
    dst = np.array([1, 0, 0, 1])
    xoff, xon = np.full(4, 400.0), np.full(4, 390.0)
    shared = lambda x, h: dynamic_xoff(x, h, PfcParams(shared_buffer=1000.0, alpha=0.5))    # noqa: E731
    paused = np.array([True, True, False, False])
    held = np.array([0.0, 200.0, 300.0, 300.0, 0.0, 200.0])
    # each switch holds 500 frozen bytes: XON ≤ 0.5 · 500 − 10 = 240 < 300, paused for good
    assert deadlocked(paused, e_link, prev, prev >= 0, held, xoff, xon, dst, shared).tolist() == \
        [True, True, False, False]
    # without the hosts' bytes the switches hold 300: XON could reach 340 > 300, the ring may drain
    held[[1, 5]] = 0.0
    assert deadlocked(paused, e_link, prev, prev >= 0, held, xoff, xon, dst, shared).tolist() == [False] * 4


@pytest.mark.parametrize("opt, flag", [
    (["--pfc-watchdog", "100us"], "--pfc-watchdog"),
    (["--pfc-watchdog-restore", "1ms"], "--pfc-watchdog-restore"),
    (["--pfc-watchdog-action", "forward"], "--pfc-watchdog-action"),
    (["--cc", "none"], "--cc"),
    (["--dcqcn", "nvidia"], "--dcqcn"),
    (["--flow-control", "lossy"], "--flow-control lossy"),
])
def test_roce_options_refused_on_an_infiniband_design(designs, capsys, opt, flag):
    _d, _roce, ib = designs
    assert main(["simulate", ib, "--workload", "ring", "--model", "fluid"] + opt) == 2
    assert capsys.readouterr().err == \
        f"fabricviz: error: {flag}: applies to RoCE (Ethernet) designs; {ib} is InfiniBand\n"


@pytest.mark.parametrize("opt, flag, what", [
    (["--sl", "3"], "--sl", "service levels are InfiniBand's"),
    (["--engine", "dfsssp"], "--engine", "subnet manager routing engines are InfiniBand's"),
    (["--engine", "minhop"], "--engine", "subnet manager routing engines are InfiniBand's"),
    (["--partition", "storage"], "--partition", "partitions (P_Keys) are InfiniBand's"),
])
def test_infiniband_options_refused_on_a_roce_design(designs, capsys, opt, flag, what):
    _d, roce, _ib = designs
    assert main(["simulate", roce, "--workload", "ring"] + opt) == 2
    assert capsys.readouterr().err == f"fabricviz: error: {flag}: {what}; {roce} is a RoCE design\n"


def test_credits_and_a_lone_watchdog_restore_refused_on_roce(designs, capsys):
    _d, roce, _ib = designs
    assert main(["simulate", roce, "--workload", "ring", "--flow-control", "credit"]) == 2
    assert capsys.readouterr().err == ("fabricviz: error: --flow-control credit: credits are InfiniBand's; "
                                       f"{roce} is a RoCE design (use pfc or lossy)\n")
    assert main(["simulate", roce, "--workload", "ring", "--model", "fluid", "--pfc-watchdog-restore", "1ms"]) == 2
    assert capsys.readouterr().err == "fabricviz: error: --pfc-watchdog-restore: needs --pfc-watchdog (the detection time)\n"


def test_flow_csv_sl_column_refused_on_roce_at_its_line(designs, capsys):
    d, roce, ib = designs
    csv = d / "flows.csv"
    csv.write_text("src,dst,bytes,sl\n# first\nnode01/mlx5_0,node02/mlx5_0,1e6,\nnode02/mlx5_0,node03/mlx5_0,1e6,3\n")
    assert main(["simulate", roce, "--flows", str(csv)]) == 2
    assert capsys.readouterr().err == \
        f"fabricviz: error: {csv}:4: sl '3': service levels are InfiniBand's; {roce} is a RoCE design\n"
    blank = d / "blank.csv"                         # an sl column with no SL in it gives nothing to refuse
    blank.write_text("src,dst,bytes,sl\nnode01/mlx5_0,node02/mlx5_0,1e6,\n")
    assert main(["simulate", roce, "--flows", str(blank), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["flows"] == 1
    assert main(["simulate", ib, "--flows", str(csv), "--json"]) == 0        # InfiniBand: SLs are its own
    assert json.loads(capsys.readouterr().out)["sl_flows"] == {"0": {"flows": 1, "rate_gbps": 400.0},
                                                               "3": {"flows": 1, "rate_gbps": 400.0}}


def test_infiniband_fluid_ring_summary_counts_every_flow_per_sl(designs, capsys):
    # a ring's later steps have not sent by the end: the per-SL counts still cover all its flows
    _d, _roce, ib = designs
    assert main(["simulate", ib, "--workload", "ring", "--model", "fluid", "--duration", "0.05ms", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["flows"] == 24 and s["active_flows"] == 4          # 6 steps × 4 ranks; step 0 sending
    assert s["sl_flows"] == {"0": {"flows": 24, "rate_gbps": 1600.0}}


def test_a_bad_design_roce_setting_names_the_file_and_the_field(tmp_path, capsys):
    f = leaf_spine(2, 1, 2)
    f.meta["roce"] = {"priorities": [9]}
    path = tmp_path / "bad.json"
    save_fabric(f, path)
    assert main(["simulate", str(path), "--workload", "ring", "--model", "fluid", "--duration", "0.1ms"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"fabricviz: error: {path}: meta.roce.priorities: priority 9: an 802.1p priority 0 … 7"]
