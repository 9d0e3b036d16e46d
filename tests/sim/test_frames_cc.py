"""Frames carry the senders' DCQCN rate Rc (Gb/s) at the frame instant; empty without rate CC."""

import numpy as np
import pytest

from fabricviz.generate import leaf_spine
from fabricviz.sim.engine import simulate
from fabricviz.sim.fluid import FluidParams, FluidSim
from fabricviz.sim.frames import Frame
from fabricviz.sim.links import link_table
from fabricviz.sim.paths import route
from fabricviz.sim.workloads import make_workload


@pytest.fixture(scope="module")
def incast():
    """4-to-1 incast on a 2-leaf RoCE leaf-spine (400GbE NICs): the receiver's port marks ECN."""
    f = leaf_spine(2, 2, 4)
    flows = make_workload(f, "incast:4", seed=0)
    links = link_table(f)
    return f, flows, links, route(f, links, flows, "ecmp", seed=0)


def test_frame_cc_rate_is_dcqcn_rc_at_the_frame_instant(incast):
    f, flows, links, routes = incast
    sim = FluidSim(links, flows, routes, FluidParams(duration_s=200e-6, dt_s=1e-6, cc="dcqcn"))
    assert sim.line_gbps.tolist() == [400.0] * 4
    frames, rc, marked_at = [], [], None
    for _ in range(200):
        sim.step()
        if marked_at is None and sim.p_flow.max() > 0:
            marked_at = sim.t
        if sim.ticks % 10 == 0:
            rc.append(sim.rc.copy())          # Rc after this tick: the frame's instant
            frames.append(sim.frame())
    assert marked_at is not None
    for fr, want in zip(frames, rc, strict=True):
        assert fr.flow_cc_rate_gbps.dtype == np.float32 and not fr.flow_cc_rate_gbps.flags.writeable
        assert fr.has_cc_rate
        np.testing.assert_array_equal(fr.flow_cc_rate_gbps, want.astype(np.float32))
    cc = np.array([fr.flow_cc_rate_gbps for fr in frames])
    t = np.array([fr.time_s for fr in frames])
    feedback = FluidParams().dcqcn.feedback_s
    # line rate until the first CNP can arrive (marking + τ*), then cut below line rate and falling
    # while the receiver's queue keeps marking
    assert np.all(cc[t <= marked_at + feedback] == 400.0)
    late = cc[t > marked_at + 2 * feedback]
    assert len(late) >= 15 and np.all(late < 400.0)
    assert np.all(np.diff(late, axis=0) < 0)
    # the delivered rate is the receiver's share (400/4), not Rc
    np.testing.assert_allclose(frames[-1].flow_rate_gbps, [100.0] * 4, rtol=1e-6)
    assert frames[-1].flow_cc_rate_gbps[0] != frames[-1].flow_rate_gbps[0]


def test_frames_without_rate_cc_have_an_empty_cc_rate(incast):
    f, flows, links, routes = incast
    sim = FluidSim(links, flows, routes, FluidParams(duration_s=20e-6, dt_s=1e-6, cc="none"))
    res = sim.run()
    assert all(len(fr.flow_cc_rate_gbps) == 0 and not fr.has_cc_rate for fr in res.frames)
    mm = simulate(f, flows, "ecmp", "maxmin", seed=0)
    assert len(mm.frames) == 1 and mm.frames[0].flow_cc_rate_gbps.shape == (0,)
    fl = simulate(f, flows, "ecmp", "fluid", duration_s=20e-6, seed=0)     # RoCE default: DCQCN
    assert all(fr.flow_cc_rate_gbps.shape == (4,) for fr in fl.frames)


def test_frame_make_default_and_nbytes():
    old = Frame.make(0.0, np.ones(6), np.zeros(6), np.ones(6), np.zeros(6), np.zeros(6),
                     np.ones(3), np.ones(3))
    assert old.flow_cc_rate_gbps.shape == (0,) and not old.flow_cc_rate_gbps.flags.writeable
    assert old.nbytes == 6 * 4 * 4 + 6 + 3 * 4 * 2
    new = Frame.make(0.0, np.ones(6), np.zeros(6), np.ones(6), np.zeros(6), np.zeros(6),
                     np.ones(3), np.ones(3), [400, 200.5, 10])
    assert new.flow_cc_rate_gbps.tolist() == [400.0, 200.5, 10.0]
    assert new.nbytes == old.nbytes + 3 * 4
    with pytest.raises(ValueError):
        new.flow_cc_rate_gbps[0] = 1.0
