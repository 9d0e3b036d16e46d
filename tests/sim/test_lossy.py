"""Lossy RoCE (no PFC): a 2:1 incast into a small egress queue drops and resends by go-back-N."""

from dataclasses import replace

import numpy as np
import pytest

from fabricviz.sim.fluid import FluidParams, simulate_fluid
from fabricviz.sim.links import link_table
from fabricviz.sim.paths import route
from fabricviz.sim.testbeds import dumbbell
from fabricviz.sim.workloads import Flows

LIMIT = 64e3
MSG = 2e6


@pytest.fixture(scope="module")
def runs():
    f, fl = dumbbell(2, 40)                          # h1, h2 → s1 → r at 40 Gb/s: 2:1 at s1 → r
    flows = Flows(fl.src, fl.dst, np.full(2, MSG), None, None, None)
    L = link_table(f)
    r = route(f, L, flows, "static")
    out = {fc: simulate_fluid(L, flows, r, FluidParams(duration_s=2e-3, cc="none", flow_control=fc,
                                                       drop_queue_bytes=LIMIT))
           for fc in ("lossy", "pfc")}
    return r, out


def test_full_queue_drops_and_go_back_n_resends(runs):
    r, out = runs
    res = out["lossy"]
    rx = int(r.path(0)[-1])
    assert np.all(res.dropped_bytes > 0) and np.all(res.retransmitted_bytes > 0)
    # only the receiver's egress drops, and tail drop never lets its queue past the limit
    assert np.flatnonzero(res.link_dropped_bytes).tolist() == [rx]
    assert res.link_dropped_bytes[rx] == pytest.approx(res.dropped_bytes.sum(), rel=1e-12)
    assert res.max_queue_bytes[rx] <= LIMIT + 1e-6
    # bytes conserved: injected = delivered + discarded + dropped + in flight
    np.testing.assert_allclose(res.injected_bytes, res.delivered_bytes + res.discarded_bytes
                               + res.dropped_bytes + res.in_flight_bytes, rtol=1e-12)
    assert res.lost_bytes == 0.0
    # both messages arrive whole; everything sent beyond them was a resend, and every byte
    # dropped or discarded out of order had to be sent again
    assert np.all(np.isfinite(res.finish_s))
    np.testing.assert_allclose(res.delivered_bytes, MSG, rtol=1e-9)
    np.testing.assert_allclose(res.injected_bytes, MSG + res.retransmitted_bytes, rtol=1e-9)
    np.testing.assert_allclose(res.retransmitted_bytes, res.dropped_bytes + res.discarded_bytes
                               + res.in_flight_bytes, rtol=1e-9)


def test_lossless_twin_finishes_sooner_without_loss(runs):
    r, out = runs
    pfc, lossy = out["pfc"], out["lossy"]
    assert pfc.dropped_bytes is None and pfc.lost_bytes == 0.0
    # PFC: 2 × 2 MB through one 40G port = 0.8 ms (to the tick); go-back-N wastes the port on resends
    assert pfc.finish_s.max() == pytest.approx(2 * MSG * 8 / 40e9, abs=2e-6)
    assert lossy.finish_s.max() > 1.5 * pfc.finish_s.max()


def test_summary_reports_drops_and_retransmissions():
    from fabricviz.generate import leaf_spine
    from fabricviz.sim.engine import roce_fluid, simulate
    from fabricviz.sim.workloads import make_workload
    f = leaf_spine(2, 2, 4)
    flows = make_workload(f, "incast:4", seed=0, over="nic")
    prm = replace(roce_fluid(f, "nvidia", "lossy"), drop_queue_bytes=256e3)
    res = simulate(f, flows, None, "fluid", 0.3e-3, fluid=prm)
    s = res.summary(f)
    fl = res.fluid
    assert s["flow_control"] == "lossy" and s["dcqcn_preset"] == "nvidia"
    assert s["dropped_bytes"] == float(fl.dropped_bytes.sum()) > 0
    assert s["retransmitted_bytes"] == float(fl.retransmitted_bytes.sum()) > 0
    # tail drops are lost bytes: the summary counts them and never calls the run lossless
    assert s["paused_link_count"] == 0 and s["lost_bytes"] == round(s["dropped_bytes"], 3)
    from fabricviz.sim.summary import format_summary
    text = format_summary(s)
    assert f"bytes lost: {s['dropped_bytes']:,.0f} (dropped at full queues, no PFC)" in text
    assert "lossless" not in text
