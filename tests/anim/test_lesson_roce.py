"""Lesson 10 "A PFC deadlock": the cycle after two failed links, the deadlocked fluid run and the
watchdog, every number equal to the engines' own computed here."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fabricviz.anim.lessons import find_lesson, run_lesson
from fabricviz.ethernet.pfc_deadlock import check_pfc_deadlock
from fabricviz.ethernet.pfc_watchdog import cycle_load
from fabricviz.sim.engine import roce_fluid, simulate
from fabricviz.sim.workloads import Flows


@pytest.fixture(scope="module")
def results():
    return run_lesson(find_lesson("10"))


def test_lesson_10_steps_follow_the_engines(results):
    les = find_lesson("pfc-deadlock")
    assert les.number == 10 and les.title == "A PFC deadlock" and len(results) == 5
    healthy, one, two, stuck, wd = results
    assert (healthy.loops, one.loops, two.loops) == (0, 0, 1)
    fab = two.fabric
    check = check_pfc_deadlock(fab)                 # the step's disabled ports are the failures
    assert check.failed_names == ("leaf03:4 – spine02:3", "leaf04:3 – spine01:4")
    cyc = check.cycles[0]
    assert two.loop_cables == cyc.cables and two.lines == (cyc.format(), check.summary())
    assert one.lines[-1] == check_pfc_deadlock(one.fabric).summary()
    # the deadlocked run is the engine's run of cycle_load's flows
    _c, cf = cycle_load(fab)
    ref = simulate(fab, Flows(cf.src, cf.dst), None, "fluid", 1.5e-3, provider=cf.provider(),
                   fluid=roce_fluid(fab, cc="none")).fluid
    got = stuck.traffic.result.fluid
    assert got.deadlock_s == ref.deadlock_s and np.isnan(got.deadlock_cleared_s)
    np.testing.assert_array_equal(got.delivered_bytes, ref.delivered_bytes)
    assert f"PFC deadlock from {ref.deadlock_s * 1e3:.3f} ms, lasting to the end: 8 links paused for good, " \
           f"8 flows stuck" in stuck.lines
    assert set(cyc.cables) <= set(stuck.traffic.paused_cables) and stuck.loop_cables == cyc.cables
    assert stuck.traffic.result.frames[-1].flow_rate_gbps.sum() == 0
    # the watchdog breaks it: its run equals the engine's with the 100 µs detection time
    wref = simulate(fab, Flows(cf.src, cf.dst), None, "fluid", 1.5e-3, provider=cf.provider(),
                    fluid=replace(roce_fluid(fab, cc="none"), pfc_watchdog_s=100e-6)).fluid
    w = wd.traffic.result.fluid
    assert w.deadlock_cleared_s == wref.deadlock_cleared_s > w.deadlock_s
    assert w.watchdog_dropped_bytes.sum() == wref.watchdog_dropped_bytes.sum() > 0
    assert (f"PFC watchdog: {int(wref.watchdog_storms.sum())} storm(s) on "
            f"{int((wref.watchdog_storms > 0).sum())} link(s), {wref.watchdog_dropped_bytes.sum():,.0f} "
            f"bytes dropped") in wd.lines
    assert w.delivered_bytes.sum() > got.delivered_bytes.sum()


def test_lesson_10_text_carries_no_numbers():
    les = find_lesson("10")
    for s in (les.summary, *(st.say for st in les.steps)):
        assert not any(ch.isdigit() for ch in s)
