"""Issue 4 regression: 8-to-1 incast into one 400GbE port on a leaf-spine (PFC only, DCQCN)
and on a 2-level InfiniBand fat tree (credits). Conservation checked in every case."""

import numpy as np
import pytest

from fabricviz.ethernet.pfc import PfcParams, headroom_bytes, pause_response_s
from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.sim.engine import simulate
from fabricviz.sim.fluid import FluidParams
from fabricviz.sim.summary import format_summary
from fabricviz.sim.workloads import make_workload

C = 400.0


def _incast(fabric, **fluid):
    flows = make_workload(fabric, "incast:8", seed=0, over="nic")
    dur = fluid.pop("duration_s")
    res = simulate(fabric, flows, None, "fluid", dur, fluid=FluidParams(**fluid))
    rx = int(res.routes.path(0)[-1])                 # receiver's egress (leaf → NIC)
    assert all(int(res.routes.path(i)[-1]) == rx for i in range(8))
    return res, rx


def _conserved(res):
    fl = res.fluid
    for fr in res.frames:
        assert np.all(fr.link_util <= 1 + 1e-6) and np.all(fr.link_queue >= 0)
    assert np.all(fl.in_flight_bytes >= 0)
    np.testing.assert_allclose(fl.injected_bytes, fl.delivered_bytes + fl.in_flight_bytes,
                               rtol=1e-9, atol=1e-3)
    assert fl.lost_bytes == 0.0 and not fl.headroom_exceeded.any()


@pytest.fixture(scope="module")
def ls():
    return leaf_spine(4, 2, 8)                       # 400GbE; node09 sits behind the spines


@pytest.fixture(scope="module")
def pfc_only(ls):
    """The PFC-only incast, 2 ms: shared by the queue-bound and the summary tests."""
    return _incast(ls, duration_s=2e-3, cc="none", flow_control="pfc")


def test_pfc_only_incast_fills_the_port_fairly_and_bounds_the_queue(pfc_only):
    res, rx = pfc_only
    # one sender crosses leaf02 → spine → leaf01, so leaf01's egress round-robins over
    # 8 ingress ports (7 hosts + 1 spine link): C/8 each
    np.testing.assert_allclose(res.flow_rates(), C / 8, rtol=1e-9)
    assert res.steady("link_util")[rx] == pytest.approx(1.0, abs=1e-9)
    fl = res.fluid
    # each ingress stops at XOFF = min(4 MB, α·free buffer) (+ at most its headroom); with 8
    # congested ingress ports of a 32 MB buffer at α = 1/8 that is 2 MB each, 16 MB in total
    hr = headroom_bytes(C, 10.0, 4096, max(pause_response_s(C), 1e-6))
    assert hr == pytest.approx(1500 + 8192 + 57_920, abs=1)
    into_leaf01 = [int(res.routes.path(i)[-2]) for i in range(8)]
    assert np.all(fl.max_ingress_bytes[into_leaf01] <= 2e6 + hr)
    assert np.all(fl.max_ingress_bytes <= 4e6 + hr)
    assert 16e6 <= fl.max_queue_bytes[rx] <= 16e6 + 8 * hr
    # pauses back up to the 7 NICs and the spine link, and a hop further along node09's path
    assert (fl.paused_fraction > 0).sum() == 10
    assert np.all(fl.paused_fraction[into_leaf01] > 0.5)
    _conserved(res)


@pytest.mark.slow
def test_dcqcn_incast_collapses_then_converges_to_c_over_8(ls):
    # dt 5 µs follows the 2 µs trajectory to within 0.15 Gb/s (checked)
    res, rx = _incast(ls, duration_s=85e-3, dt_s=5e-6, cc="dcqcn", flow_control="pfc",
                      frame_every_s=0.5e-3)
    t = np.array([f.time_s for f in res.frames])
    r = np.array([f.flow_rate_gbps for f in res.frames])
    q = np.array([f.link_queue[rx] for f in res.frames])
    fl = res.fluid
    # 8 × 400G at t=0: the queue peaks at ~16 MB within 0.1 ms (PFC pauses briefly), marking
    # stays at p = 1 while it drains, and DCQCN (τ = 50 µs) cuts every sender ~100×
    # (a pause frame takes a tick to reach the sender, so one more 5 µs tick of arrivals lands)
    assert 15e6 < fl.max_queue_bytes[rx] < 17.5e6 and fl.max_queue_s[rx] < 1.1e-4
    assert 0 < fl.paused_fraction.max() < 0.01
    assert r[t.searchsorted(6.5e-3)].max() < 6.0
    # then additive increase (40 Mb/s per 55 µs ≈ 0.73 Gb/s per ms) brings each to C/8 at ~63 ms
    fair = np.all(np.abs(r - C / 8) <= 0.05 * C / 8, axis=1) & (t > 1e-3)   # not the drain
    assert 60e-3 < t[np.argmax(fair)] < 67e-3 and fair[-1]
    np.testing.assert_allclose(r[-1], C / 8, rtol=2e-3)
    # queue at the ECN operating point just above Kmin (800 KB at 400G), no pauses late on
    assert q[t > 80e-3].mean() == pytest.approx(0.8e6, rel=0.03)
    assert not any(f.link_paused.any() for f in res.frames if f.time_s > 1e-3)
    _conserved(res)


def test_ib_fat_tree_incast_with_credits():
    f = fat_tree(levels=2, radix=8, hosts=16)
    res, rx = _incast(f, duration_s=2e-3, cc="none", flow_control="credit")   # static routes
    assert res.fabric_tech == "ib"
    assert res.steady("link_util")[rx] == pytest.approx(1.0, abs=1e-9)
    # D-mod-k sends all 5 remote senders down one spine: the leaf round-robins 4 ingress
    # ports (3 local NICs + that spine link) and the spine its 2 (leaf02 with 4 flows, leaf03
    # with 1) → 100, 100, 100, then 4 × 12.5 and 50 Gb/s
    np.testing.assert_allclose(res.flow_rates(), [100, 100, 100, 12.5, 12.5, 12.5, 12.5, 50], rtol=1e-6)
    assert np.all(res.fluid.max_ingress_bytes <= PfcParams().credit_buffer + 1e-6)
    _conserved(res)


def test_summary_is_consistent_and_prints_plain_zero(ls, pfc_only):
    res, rx = pfc_only
    s = res.summary(ls)
    hot = s["hottest_links"][0]
    assert hot["link"] == rx and hot["utilization"] == pytest.approx(1.0)
    # the rates and the utilisation come from the same steady window
    assert s["rate_gbps"]["total"] == pytest.approx(hot["utilization"] * C, rel=1e-9)
    assert s["lost_bytes"] == 0.0 and str(s["lost_bytes"]) == "0.0"
    assert s["paused_link_count"] == 10 and len(s["paused_links"]) == 5
    text = format_summary(s)
    assert "bytes lost: 0 (lossless)" in text and "-0" not in text
    assert "paused links: 10 (5 most paused shown):" in text
    assert "peak at" in text
    s["paused_link_count"], s["paused_links"] = 0, []
    assert "paused links: none" in format_summary(s)
