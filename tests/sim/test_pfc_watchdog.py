"""A PFC deadlock in the fluid model and the PFC watchdog that breaks it.

Leaf-spine 4 leaves × 3 spines, 2 hosts per leaf (leafNN:1-2 hosts, :3/4/5 to spine01/02/03).
Failing spine02–leaf03 and leaf04–spine01 closes leaf01 → spine01 → leaf02 → spine02 → leaf01;
every host of each closing flow's source leaf sends along that flow's path (``cycle_load``),
PFC only (cc none): each buffer of the cycle fills past XOFF and pauses the next, for good.
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.ethernet.pfc import PfcParams, dynamic_xoff
from fabricviz.ethernet.pfc_watchdog import PfcWatchdog, WatchdogParams, cycle_load, deadlocked
from fabricviz.formats.native import save_fabric
from fabricviz.generate import leaf_spine
from fabricviz.model import FabricError
from fabricviz.sim.engine import roce_fluid, simulate
from fabricviz.sim.workloads import Flows

FAIL = ("spine02:3", "leaf04:3")
DUR = 1.5e-3


@pytest.fixture(scope="module")
def fab():
    return leaf_spine(4, 3, 2)


@pytest.fixture(scope="module")
def load(fab):
    return cycle_load(fab, failed=FAIL)


def run(fab, load, **kw):
    cyc, cf = load
    prm = replace(roce_fluid(fab, cc="none"), **kw)
    return simulate(fab, Flows(cf.src, cf.dst), None, "fluid", DUR, provider=cf.provider(), fluid=prm)


@pytest.fixture(scope="module")
def stuck(fab, load):
    return run(fab, load)


def test_cycle_load_sends_from_every_host_along_the_closing_paths(fab, load):
    cyc, cf = load
    assert cyc.ring() == "leaf01 → spine01 → leaf02 → spine02 → leaf01"
    assert len(cf) == 8                      # 4 closing paths × the 2 hosts of their source leaf
    assert len(set(zip(cf.src_port.tolist(), cf.dst_port.tolist(), strict=True))) == 8
    for k in range(0, 8, 2):                 # both hosts of a leaf: the same switch hops
        assert cf.paths[k][1:-1].tolist() == cf.paths[k + 1][1:-1].tolist()
        assert cf.src[k] != cf.src[k + 1]
    with pytest.raises(FabricError, match="no PFC cycle to load"):
        cycle_load(fab)


def test_the_cycle_deadlocks_and_stays_deadlocked(fab, load, stuck):
    cyc, _cf = load
    fl = stuck.fluid
    ring = list(cyc.links)
    assert fl.deadlocked and 0 < fl.deadlock_s < DUR and np.isnan(fl.deadlock_cleared_s)
    assert fl.deadlock_flows.all()
    # the four cycle links and the four host uplinks behind them are paused for good
    dead = np.flatnonzero(fl.deadlock_links)
    assert set(ring) <= set(dead.tolist()) and len(dead) == 8
    after = [f for f in stuck.frames if f.time_s > fl.deadlock_s + 10e-6]
    assert len(after) > 30                    # the last ~0.3 ms of the run (7.5 µs frames)
    for f in after:                           # nothing moves on the cycle, nothing arrives
        assert np.all(f.link_util[ring] == 0) and np.all(f.flow_rate_gbps == 0)
        assert f.link_paused[dead].all()
    # frozen: the queues on the cycle hold the same bytes from then on, megabytes of them
    np.testing.assert_array_equal(after[0].link_queue[ring], after[-1].link_queue[ring])
    assert after[-1].link_queue[ring].min() > 3e6
    assert fl.lost_bytes == 0.0               # lossless: injected = delivered + in flight
    np.testing.assert_allclose(fl.injected_bytes, fl.delivered_bytes + fl.in_flight_bytes, rtol=1e-12)


def test_dcqcn_keeps_the_same_load_out_of_deadlock(fab, load):
    cyc, cf = load
    res = simulate(fab, Flows(cf.src, cf.dst), None, "fluid", DUR, provider=cf.provider(),
                   fluid=roce_fluid(fab, "nvidia"))
    assert not res.fluid.deadlocked and not res.fluid.deadlock_links.any()


@pytest.mark.slow
def test_watchdog_drop_breaks_the_deadlock(fab, load, stuck):
    cyc, _cf = load
    det = 100e-6
    res = run(fab, load, pfc_watchdog_s=det)
    fl, ref = res.fluid, stuck.fluid
    assert fl.deadlock_s == ref.deadlock_s            # the same run until the first storm
    before = [i for i, f in enumerate(res.frames) if f.time_s <= ref.deadlock_s]
    for i in before:
        np.testing.assert_array_equal(res.frames[i].link_queue, stuck.frames[i].link_queue)
    storms = np.flatnonzero(fl.watchdog_storms)
    assert len(storms) and set(storms.tolist()) <= set(cyc.links)       # storms only on the cycle
    # broken within one detection time of setting in (every cycle queue is paused with bytes): the
    # cycle carries traffic again in the frame after that
    ring = list(cyc.links)
    every = res.frames[1].time_s - res.frames[0].time_s
    moving = [f.time_s for f in res.frames if f.time_s > ref.deadlock_s and f.link_util[ring].sum() > 0]
    assert fl.deadlock_cleared_s > ref.deadlock_s and moving[0] <= ref.deadlock_s + det + 2 * every
    # throughput comes back: flows deliver again after the deadlock set in (the deadlocked run: 0)
    late = sum(f.flow_rate_gbps.sum() for f in res.frames if f.time_s > ref.deadlock_s + det + every)
    assert late > 0 and fl.delivered_bytes.sum() > ref.delivered_bytes.sum()
    # drops counted, bytes conserved: injected = delivered + in flight + dropped by the watchdog
    assert fl.watchdog_dropped_bytes.sum() > 0
    assert fl.link_watchdog_dropped_bytes.sum() == pytest.approx(fl.watchdog_dropped_bytes.sum(), rel=1e-12)
    assert set(np.flatnonzero(fl.link_watchdog_dropped_bytes).tolist()) <= set(storms.tolist())
    np.testing.assert_allclose(fl.injected_bytes, fl.delivered_bytes + fl.in_flight_bytes
                               + fl.watchdog_dropped_bytes, rtol=1e-12)
    assert fl.lost_bytes == 0.0


def test_watchdog_forward_ignores_pauses_and_drops_nothing(fab, load, stuck):
    fl = run(fab, load, pfc_watchdog_s=100e-6, pfc_watchdog_action="forward").fluid
    assert fl.watchdog_storms.sum() >= 1 and fl.watchdog_dropped_bytes.sum() == 0.0
    assert fl.deadlock_cleared_s > fl.deadlock_s
    assert fl.delivered_bytes.sum() > stuck.fluid.delivered_bytes.sum()
    assert fl.lost_bytes == 0.0


def test_watchdog_timing_detection_and_restoration():
    wd = PfcWatchdog(WatchdogParams(3.0, 2.0), np.array([True, True, False]))
    paused, queued = np.array([True, True, True]), np.array([True, False, True])
    seen = []
    for k in range(1, 9):
        asserted = paused if k <= 4 else np.zeros(3, bool)      # pauses stop after tick 4
        wd.update(asserted, queued, float(k), 1.0)
        seen.append(wd.storm.tolist())
    # link 0: storm once paused 3 ticks with bytes; ends 2 quiet ticks after the pauses stopped;
    # link 1 has nothing queued, link 2 is not watched (a NIC's transmitter)
    assert [s[0] for s in seen] == [False, False, True, True, True, False, False, False]
    assert not any(s[1] or s[2] for s in seen)
    assert wd.storms.tolist() == [1, 0, 0] and wd.first_s == 3.0
    assert wd.dropping.tolist() == [False, False, False]
    with pytest.raises(ValueError, match="action 'reset'"):
        WatchdogParams(1.0, 1.0, "reset")


def test_deadlocked_is_the_closed_set_of_stuck_links():
    # links 0 → 1 → 0 form a ring (each entry's bytes wait on the other link); link 2 feeds link 0
    e_link = np.array([2, 0, 1, 0])
    prev = np.array([-1, 2, 0, 1])
    has_prev = prev >= 0
    dst = np.array([0, 1, 0])
    xoff, xon = np.full(3, 100.0), np.full(3, 90.0)
    static = lambda x, h: dynamic_xoff(x, h, PfcParams(shared_buffer=None))    # noqa: E731
    held = np.array([0.0, 95.0, 95.0, 95.0])
    both = np.array([True, True, True])
    # link 2's ingress (bytes on 0) and the ring 0 ↔ 1 (bytes on each other) hold > XON: all stuck
    assert deadlocked(both, e_link, prev, has_prev, held, xoff, xon, dst, static).tolist() == [True, True, True]
    # link 1 not paused: what waits on it drains, so link 0 resumes and then link 2
    assert deadlocked(np.array([True, False, True]), e_link, prev, has_prev, held, xoff, xon, dst,
                      static).tolist() == [False, False, False]
    # too few bytes frozen on the ring: 85 < XON
    held2 = np.array([0.0, 95.0, 85.0, 95.0])
    assert deadlocked(both, e_link, prev, has_prev, held2, xoff, xon, dst, static).tolist() == [False, False, False]


@pytest.mark.slow
def test_cli_pfc_cycle_workload_and_watchdog(fab, load, stuck, tmp_path, capsys):
    path = tmp_path / "ls.json"
    save_fabric(fab, path)
    base = ["simulate", str(path), "--workload", "pfc-cycle", "--fail", FAIL[0], "--fail", FAIL[1],
            "--model", "fluid", "--cc", "none", "--duration", "1.5ms"]
    assert main(base + ["--json"]) == 0
    out = capsys.readouterr()
    s = json.loads(out.out)
    assert "loading leaf01 → spine01 → leaf02 → spine02 → leaf01 with 8 flows" in out.err
    fl = stuck.fluid
    assert s["deadlock"] == {"since_s": fl.deadlock_s, "cleared_s": None,
                             "links": [" -> ".join(stuck.links.name(fab, int(x)))
                                       for x in np.flatnonzero(fl.deadlock_links)], "flows": 8}
    assert main(base + ["--pfc-watchdog", "100us"]) == 0
    text = capsys.readouterr().out
    wd = run(fab, load, pfc_watchdog_s=100e-6).fluid
    assert (f"PFC watchdog: {int(wd.watchdog_storms.sum())} storm(s) on {int((wd.watchdog_storms > 0).sum())} "
            f"link(s), {wd.watchdog_dropped_bytes.sum():,.0f} bytes dropped") in text
    assert f"broken at {wd.deadlock_cleared_s * 1e3:.3f} ms" in text
    # what the watchdog dropped is lost: on the summary's line, never "(lossless)"; the JSON agrees
    lost = wd.watchdog_dropped_bytes.sum()
    assert lost > 1e6 and f"bytes lost: {lost:,.0f} (dropped by the PFC watchdog)\n" in text
    assert "lossless" not in text
    assert main(base + ["--pfc-watchdog", "100us", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["lost_bytes"] == round(lost, 3) and s["pfc_watchdog"]["dropped_bytes"] == lost
    assert main(base[:8] + ["--model", "fluid", "--pfc-watchdog", "soon"]) == 2
    assert "--pfc-watchdog 'soon'" in capsys.readouterr().err
    assert main(["simulate", str(path), "--workload", "incast:2", "--fail", FAIL[0]]) == 2
    assert "--fail 'spine02:3': applies to --workload pfc-cycle" in capsys.readouterr().err
