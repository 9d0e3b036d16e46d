"""Per-link trims/s of the trimming transports (a typed field of the run and of its frame)."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim.engine import simulate
from fabricviz.sim.transports.params import EQDS_PARAMS, NDP_PARAMS
from fabricviz.sim.workloads import Flows, make_workload


@pytest.fixture(scope="module")
def tree():
    f = fat_tree(2, 8, fabric="roce", speed="100GbE", switch="SN4700", hosts=16)
    return f, make_workload(f, "permutation", 0)


@pytest.mark.parametrize("transport,mtu", [("eqds", EQDS_PARAMS.mtu), ("ndp", NDP_PARAMS.mtu)])
def test_trims_per_s_are_trimmed_packets_of_the_links(tree, transport, mtu):
    f, flows = tree
    res = simulate(f, flows, None, "maxmin", transport=transport)
    run = res.transport
    assert run.mtu_bytes == mtu
    want = run.link_trim * run.link_load_gbps * 1e9 / (8 * mtu)     # share trimmed × packets offered
    np.testing.assert_allclose(run.trims_per_s, want, rtol=1e-12)
    fr = res.frames[0]
    assert fr.has_trims and len(fr.link_trims_per_s) == res.links.n
    np.testing.assert_allclose(fr.link_trims_per_s, want, rtol=1e-6)            # float32 in the frame
    assert res.summary(f)["transport_model"]["trims_per_s"] == pytest.approx(float(want.sum()), rel=1e-12)


def test_eqds_permutation_trims_on_eleven_links(tree):
    """11 links trim ≥ 10⁴ packets/s (the canvas marks them); 12 more carry the queue chain's tail,
    under 137/s each."""
    f, flows = tree
    t = simulate(f, flows, None, "maxmin", transport="eqds").frames[0].link_trims_per_s
    assert int((t >= 1e4).sum()) == 11 and int((t > 0).sum()) == 23 and float(t[t < 1e4].max()) < 137
    assert float(t.sum()) == pytest.approx(1_467_079, abs=1)
    assert float(t.max()) == pytest.approx(468_851, abs=1)


@pytest.mark.parametrize("transport", ["hpcc", "roce-gbn"])
def test_a_transport_that_does_not_trim_has_no_trims(tree, transport):
    f, flows = tree
    res = simulate(f, flows, None, "maxmin", transport=transport)
    assert not res.frames[0].has_trims and len(res.frames[0].link_trims_per_s) == 0
    if transport == "hpcc":
        assert res.transport.mtu_bytes == 0 and not res.transport.trims_per_s.any()


@pytest.mark.parametrize("transport,payload", [("eqds", EQDS_PARAMS.payload), ("ndp", NDP_PARAMS.payload)])
def test_a_fluid_runs_frames_carry_trims_per_s_too(transport, payload):
    """The tick-based fluid model's frames (sim/fluid_transports) give their trimmed payload bytes per
    frame as packets per second as well: the field the canvas's trim marks and the trims chart read."""
    f = fat_tree(levels=2, radix=4, fabric="roce", speed="100GbE", switch="SN4700")
    h = [f.find(f"node{i:02d}/mlx5_0") for i in range(1, 9)]
    flows = Flows(np.array(h[1:]), np.array([h[0]] * 7), np.full(7, 1e6))
    res = simulate(f, flows, model="fluid", transport=transport, duration_s=5e-3, stop_when_done=True)
    frames = res.frames
    assert all(fr.has_trims for fr in frames)
    span = np.diff([0.0] + [fr.time_s for fr in frames])
    got = sum(float(fr.link_trims_per_s.sum()) * dt for fr, dt in zip(frames, span, strict=True))
    want = sum(float(fr.link_trimmed_bytes.sum()) for fr in frames) / payload
    assert want > 0 and got == pytest.approx(want, rel=1e-3)
