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

pytestmark = pytest.mark.slow     # every test here shares runs of lessons 9 and 10 (~3 s idle to set up)


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


# ------------------------------------------------------------------ lesson 9 "RoCE done right"
@pytest.fixture(scope="module")
def results9():
    return run_lesson(find_lesson("9"))


def _lesson9_fabric():
    """Lesson 9's fabric built by hand: the generator's leaf-spine, leaf01:5's uplink re-made as
    100 m of 400G-DR4 single-mode optics."""
    from fabricviz import generate
    f = generate.leaf_spine(leaves=2, spines=2, hosts_per_leaf=4)
    f.set_cable(int(f.port("leaf01:5").cable.id), length_m=100, part="400G-DR4")
    return f


def test_lesson_9_headroom_step_is_the_plans(results9):
    from fabricviz.ethernet.lossless import lossless_plan
    les = find_lesson("roce-done-right")
    assert les.number == 9 and les.title == "RoCE done right" and len(results9) == 4
    step = results9[0]
    f = step.fabric
    plan = lossless_plan(_lesson9_fabric())
    long_, dac = (f.port_id(n) for n in ("leaf01:5", "leaf01:1"))
    assert (plan.cable_m[long_], plan.medium[long_], plan.cable_m[dac], plan.medium[dac]) == (100, "smf", 2, "dac")
    h = step.headroom
    assert h.switch == "leaf01" and h.method == "ieee" and h.mtu == 9216
    assert [p.name for p in h.ports] == ["leaf01:5", "leaf01:1"]
    for row, q in zip(h.ports, (long_, dac), strict=True):
        assert row.port == q and row.headroom == plan.headroom_bytes[q] and dict(row.terms) == plan.terms(q)
        assert (row.xoff, row.xon, row.gbps) == (plan.xoff_bytes[q], plan.xon_bytes[q], plan.gbps[q])
    # only the cable's propagation differs between the long uplink and the copper port
    a, b = plan.terms(long_), plan.terms(dac)
    assert [k for k in a if a[k] != b[k]] == ["cable_propagation"]
    assert plan.headroom_bytes[long_] - plan.headroom_bytes[dac] == 48_000 and round(a["cable_propagation"]) == 48_954
    bud = plan.switches[f.find("leaf01")]
    assert h.budget == bud and bud.fits and not bud.estimated
    assert step.lines[1] == (f"leaf01:5: 400 Gb/s, 100 m smf cable: headroom {plan.headroom_bytes[long_]:,.0f} B "
                             f"(XOFF {plan.xoff_bytes[long_]:,.0f} B, XON {plan.xon_bytes[long_]:,.0f} B)")
    assert step.lines[2] == "  = " + " + ".join(f"{k.replace('_', ' ')} {v:,.0f}" for k, v in a.items())
    assert (f"leaf01 ({bud.part}): buffer {bud.buffer_bytes / 2 ** 20:g} MiB (published); headroom "
            f"{bud.headroom_total:,.0f} B over {bud.ports} lossless ports × 1 priority, reserved {bud.reserved:,.0f} B, "
            f"shared pool {bud.shared_pool:,.0f} B (dynamic threshold α 1)") in step.lines
    assert step.lines[-1] == f"headroom and reserves hold {bud.use:.1%} of the buffer: it fits"
    assert step.paths[0].cables == (int(f.ports_t.cable[long_]),) == (h.cable,)


def test_lesson_9_runs_are_roce_fluids(results9):
    f = results9[1].fabric
    src = np.array([f.find(f"node0{i}/mlx5_0") for i in (2, 3, 4, 5, 6, 7, 8)])
    dst = np.array([f.find("node01/mlx5_0")] * 6 + [f.find("node02/mlx5_0")])
    ref = {}
    for k, (cc, preset, ms) in enumerate((("none", None, 2), ("dcqcn", "nvidia", 4), ("dcqcn", "paper", 4)), 1):
        r = simulate(f, Flows(src, dst), None, "fluid", ms * 1e-3, fluid=roce_fluid(f, preset, "pfc", cc))
        got = results9[k].traffic.result
        np.testing.assert_array_equal(got.flow_rates(), r.flow_rates())
        np.testing.assert_array_equal(got.fluid.max_queue_bytes, r.fluid.max_queue_bytes)
        ref[k] = r.summary(f)
        assert dict(results9[k].traffic.summary) == ref[k]
    pfc, nv, paper = ref[1], ref[2], ref[3]
    # PFC alone: pauses spread back to the NICs and the victim (last flow) gets the incast's slice
    assert pfc["paused_link_count"] == 9 and pfc["lost_bytes"] == 0
    victim = results9[1].traffic.flows[-1]
    assert (victim.src, victim.dst) == ("node08/mlx5_0", "node02/mlx5_0") and victim.gbps < 0.1 * victim.line_gbps
    assert len(results9[1].traffic.paused_cables) == 9
    # ECN + DCQCN (nvidia): no pauses, the queues come down, the victim gets most of its line
    assert nv["dcqcn_preset"] == "nvidia" and nv["paused_link_count"] == 0 and results9[2].traffic.paused_cables == ()
    assert nv["max_queue"]["bytes"] < 0.5 * pfc["max_queue"]["bytes"]
    assert nv["max_queue"]["steady_bytes"] < 0.25 * pfc["max_queue"]["steady_bytes"]
    assert results9[2].traffic.flows[-1].gbps > 0.85 * victim.line_gbps
    assert results9[2].lines[0] == "7 flows, ecmp routing, fluid model on eth, 4 ms, cc dcqcn, DCQCN nvidia preset"
    assert results9[1].lines[0] == "7 flows, ecmp routing, fluid model on eth, 2 ms, cc none"
    # the paper's parameters: every sender far below its share
    assert paper["dcqcn_preset"] == "paper" and paper["rate_share"]["max"] < 0.02
    assert f"max queue: {nv['max_queue']['bytes'] / 1e3:.1f} KB at {nv['max_queue']['link']} (peak at " \
           f"{nv['max_queue']['at_s'] * 1e3:.3f} ms; {nv['max_queue']['steady_bytes'] / 1e3:.1f} KB mean over the " \
           f"steady part)" in results9[2].lines


def test_lesson_9_text_carries_no_numbers():
    les = find_lesson("9")
    for s in (les.summary, *(st.say for st in les.steps)):
        assert not any(ch.isdigit() for ch in s)


def test_lesson_fabric_cables_are_checked(tmp_path):
    from fabricviz.anim.lessons import parse_lesson
    from fabricviz.model import FabricError
    base = {"format": "fabricviz-lesson", "version": 1, "name": "x", "title": "x",
            "steps": [{"action": "headroom", "ports": ["leaf01:3"], "title": "t", "say": "s"}]}
    gen = {"generator": "leaf_spine", "args": {"leaves": 2, "spines": 2, "hosts_per_leaf": 2}}
    for cables, msg in (({"port": "leaf01:3"}, "fabric.cables: must be a list"),
                        ([{"port": "leaf01:3"}], r"fabric.cables\[0\]: give length_m, type or part"),
                        ([{"port": "leaf01:3", "length": 9}], r"fabric.cables\[0\].length: not a cable field"),
                        ([{"port": "leaf01:3", "length_m": -1}], r"fabric.cables\[0\].length_m: -1: a length")):
        with pytest.raises(FabricError, match=msg):
            parse_lesson({**base, "fabric": {**gen, "cables": cables}}, "l.json")
    les = parse_lesson({**base, "fabric": {**gen, "cables": [{"port": "leaf01:3", "length_m": 3, "type": "dac"}]}},
                       "l.json")
    with pytest.raises(FabricError, match=r"l.json: fabric.cables\[0\]: .*too long"):
        les.build_fabric()
    les = parse_lesson({**base, "fabric": {**gen, "cables": [{"port": "leaf01:3", "length_m": 30}]}}, "l.json")
    f = les.build_fabric()
    c = f.port("leaf01:3").cable
    assert (c.length_m, c.type) == (30, "aoc")
    with pytest.raises(FabricError, match="steps\\[0\\].*ports: 'leaf09:1'"):
        run_lesson(parse_lesson({**base, "fabric": gen, "steps": [{**base["steps"][0], "ports": ["leaf09:1"]}]}))
