"""The lossless plan's numbers drive the fluid model: PFC XOFF/XON/headroom per ingress port
and ECN thresholds per egress queue (one source of truth with the switch-config export)."""

from dataclasses import replace

import numpy as np
import pytest

from fabricviz.ethernet.ecn import red_probability
from fabricviz.ethernet.lossless import lossless_plan
from fabricviz.sim.engine import roce_fluid
from fabricviz.sim.fluid import FluidParams, FluidSim
from fabricviz.sim.links import link_table
from fabricviz.sim.paths import route
from fabricviz.sim.testbeds import dumbbell

XOFF, XON = 100e3, 60e3


@pytest.fixture(scope="module")
def bed():
    f, flows = dumbbell(2, 40)                  # h1, h2 → s1 → r
    L = link_table(f)
    return f, flows, L, route(f, L, flows, "static")


def _custom(plan, port):
    xoff, xon = plan.xoff_bytes.copy(), plan.xon_bytes.copy()
    xoff[port], xon[port] = XOFF, XON
    kmin, kmax, pmax = (np.where(plan.lossless, v, 0.0) for v in (20e3, 120e3, 0.05))
    return replace(plan, xoff_bytes=xoff, xon_bytes=xon, ecn_kmin_bytes=kmin, ecn_kmax_bytes=kmax,
                   ecn_pmax=pmax)


def test_plan_thresholds_reach_every_link(bed):
    f, flows, L, r = bed
    plan = lossless_plan(f)
    assert roce_fluid(f).plan is not None          # the engine's RoCE default carries the plan
    sim = FluidSim(L, flows, r, FluidParams(plan=plan))
    into_switch = L.dst_port >= 0
    into_switch &= plan.lossless[np.maximum(L.dst_port, 0)]
    np.testing.assert_array_equal(sim.xoff[into_switch], plan.xoff_bytes[L.dst_port[into_switch]])
    np.testing.assert_array_equal(sim.xon[into_switch], plan.xon_bytes[L.dst_port[into_switch]])
    np.testing.assert_array_equal(sim.headroom[into_switch], plan.headroom_bytes[L.dst_port[into_switch]])
    out_of_switch = plan.lossless[np.maximum(L.src_port, 0)] & (L.src_port >= 0)
    np.testing.assert_array_equal(sim.kmax[out_of_switch], plan.ecn_kmax_bytes[L.src_port[out_of_switch]])
    # links into a NIC have no plan entry: the defaults stay (40G: XOFF 256 KB, XON XOFF − 2 MTU)
    assert np.all(sim.xoff[~into_switch & ~L.pcie] == 256e3)


def test_a_custom_xoff_pauses_at_exactly_it_and_resumes_at_its_xon(bed):
    f, flows, L, r = bed
    h1_in = int(L.dst_port[r.path(0)[0]])          # s1's port facing h1: the ingress that counts
    plan = _custom(lossless_plan(f), h1_in)
    sim = FluidSim(L, flows, r, FluidParams(duration_s=0.5e-3, cc="none", flow_control="pfc", plan=plan))
    link = int(r.path(0)[0])                       # h1 → s1, paused by that ingress
    other = int(r.path(1)[0])
    pauses = resumes = 0
    for _ in range(500):
        sent = sim.pfc_sent.copy()
        sim.step()
        ingress = np.bincount(sim.prev_has, weights=sim.q[sim.has_prev] + sim.arrive[sim.has_prev],
                              minlength=L.n)
        # the downstream decides from its ingress counter; its pause frame reaches the upstream
        # transmitter a tick later (it crosses the link like data)
        assert np.array_equal(sim.paused, sent)
        for l, xoff, xon in ((link, XOFF, XON), (other, plan.xoff_bytes[int(L.dst_port[other])],
                                                   plan.xon_bytes[int(L.dst_port[other])])):
            if not sent[l]:
                assert sim.pfc_sent[l] == (ingress[l] >= xoff)
                pauses += sim.pfc_sent[l] and l == link
            else:
                assert sim.pfc_sent[l] == (ingress[l] > xon)
                resumes += (not sim.pfc_sent[l]) and l == link
    assert pauses > 1 and resumes > 1
    assert sim.max_ingress[link] < XOFF + 10e3 + 1e-6      # + two 1 µs ticks of 40G arrivals
    # ECN per egress queue from the plan: s1 → r marks with the plan's 20 KB / 120 KB / 5 %
    rx = int(r.path(0)[-1])
    q = np.array([60e3])
    assert (sim.kmin[rx], sim.kmax[rx], sim.pmax[rx]) == (20e3, 120e3, 0.05)
    assert red_probability(q, sim.kmin[rx:rx + 1], sim.kmax[rx:rx + 1], sim.pmax[rx:rx + 1])[0] == \
        pytest.approx(0.05 * 40 / 100)


def test_frames_carry_the_ingress_counter_pfc_compares_with_xoff():
    """Each fluid frame keeps the bytes held downstream of every link at its instant (what XOFF is
    compared with); the run's peak is their maximum over every tick, so no frame exceeds it."""
    import numpy as np

    from fabricviz.generate import leaf_spine
    from fabricviz.sim.run import run_traffic
    f = leaf_spine(4, 2, 8)
    res = run_traffic(f, "incast:8", "fluid", None, "minhop", 0.5e-3, 0)
    ing = np.array([fr.link_ingress for fr in res.frames])
    assert ing.shape == (len(res.frames), len(res.frames[0].link_queue))
    assert (ing >= 0).all() and ing.max() > 0
    assert (ing <= res.fluid.max_ingress_bytes[None, :] * (1 + 1e-6) + 1).all()    # float32 frames
