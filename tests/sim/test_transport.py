"""Transports: go-back-N RoCE pays for reordering under adaptive routing and spraying; ib/roce-ooo do not."""

import numpy as np
import pytest

from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.model import FabricError
from fabricviz.sim.engine import simulate
from fabricviz.sim.links import link_table
from fabricviz.sim.paths import route
from fabricviz.sim.transport import TransportParams, default_transport, path_delays, tail, transport_effect
from fabricviz.sim.workloads import make_workload


@pytest.fixture(scope="module")
def tree():
    f = fat_tree(2, 8, fabric="roce", speed="100GbE", switch="SN4700")     # 32 hosts, 4 spines
    return f, make_workload(f, "permutation", seed=1, over="nic")


def test_defaults_follow_the_nic_part(tree):
    f, _ = tree
    assert default_transport(f) == "roce-gbn"                         # ConnectX-6: go-back-N
    assert default_transport(leaf_spine(2, 2, 4)) == "roce-ooo"       # ConnectX-7: out-of-order placement
    assert default_transport(fat_tree(2, 8)) == "ib"


def test_tail_of_the_queueing_difference():
    assert tail(np.array([-1.0, 0.0, 1.0]), 0.0).tolist() == [1.0, 0.0, 0.0]   # base delays only: a step
    assert tail(0.25, 1.0) == pytest.approx(0.75 ** 2 / 2)
    assert tail(-0.25, 1.0) == pytest.approx(1 - 0.75 ** 2 / 2)
    assert tail(2.0, 1.0) == 0.0


def test_spray_over_four_paths_loses_goodput_by_the_formula(tree):
    f, flows = tree
    L = link_table(f)
    r = route(f, L, flows, "spray")
    prm = TransportParams()
    eff = transport_effect(L, r, "spray", "roce-gbn", prm)
    base, Q, rate = path_delays(L, r, prm)
    i = int(np.flatnonzero(np.bincount(r.flow) == 4)[0])                # a flow across the spines
    sub = r.flow == i
    b, q, g = base[sub][0], Q[sub][0], rate[sub][0]
    assert np.allclose(base[sub], b) and np.allclose(Q[sub], q) and q == pytest.approx(3 * 15 * 4096 * 8 / 100e9)
    tau = 4096 * 8 / (g * 1e9)
    p = (q - tau) ** 2 / (2 * q ** 2)                                   # the next packet overtakes
    w = g * 1e9 * 2 * (b + q / 2) / (4096 * 8)                          # window in flight, packets
    assert eff.eta[i] == pytest.approx(1 / (1 + p * w), rel=1e-12)
    res = simulate(f, flows, "spray", "maxmin", transport="roce-gbn")
    ooo = simulate(f, flows, "spray", "maxmin", transport="roce-ooo")
    np.testing.assert_allclose(res.flow_rates(), ooo.flow_rates() * eff.eta, rtol=1e-6)   # frames are float32
    # the links carry the resent bytes too: same wire load as without the cost
    np.testing.assert_allclose(res.last.link_util, ooo.last.link_util, rtol=1e-6)


def test_ranking_under_go_back_n_matches_htsim(tree):
    f, flows = tree
    mean = {m: simulate(f, flows, m, "maxmin", transport="roce-gbn").summary(f) for m in ("ecmp", "adaptive", "spray")}
    g = {m: s["rate_gbps"]["mean"] for m, s in mean.items()}
    assert g["ecmp"] > g["adaptive"] > g["spray"]                       # htsim_roce: 40.9 > 32.8 > 7.9
    assert mean["adaptive"]["transport_efficiency"]["mean"] > mean["spray"]["transport_efficiency"]["mean"]
    assert mean["ecmp"]["transport"] == "roce-gbn" and mean["ecmp"]["transport_efficiency"]["min"] == 1.0
    ooo = {m: simulate(f, flows, m, "maxmin", transport="roce-ooo").summary(f)["rate_gbps"]["mean"]
           for m in ("ecmp", "adaptive")}
    assert ooo["adaptive"] >= ooo["ecmp"] and ooo["ecmp"] == g["ecmp"]


@pytest.mark.slow
def test_fluid_resends_and_counts_only_goodput(tree):
    """Spraying over go-back-N in the fluid model is the mechanism (:mod:`fabricviz.sim.flowlets`):
    every packet round-robin per switch, the reorderings it causes NAKed and resent; the run's own
    goodput share is its transport effect. A fluid run given the estimate's η injects 1/η bytes per
    byte delivered instead (``FluidParams.eta``)."""
    f, flows = tree
    from dataclasses import replace

    from fabricviz.sim.engine import roce_fluid
    from fabricviz.sim.fluid import simulate_fluid
    from fabricviz.sim.workloads import Flows
    sized = Flows(flows.src[:4], flows.dst[:4], np.full(4, 200e3))
    res = simulate(f, sized, "spray", "fluid", 2e-3, transport="roce-gbn")
    fl = res.fluid
    assert np.all(np.isfinite(fl.finish_s)) and fl.lost_bytes == 0.0 and fl.reorder_resent_bytes is None
    np.testing.assert_allclose(fl.delivered_bytes, 200e3, rtol=1e-9)
    np.testing.assert_allclose(fl.injected_bytes, fl.delivered_bytes + fl.discarded_bytes + fl.in_flight_bytes,
                               rtol=1e-9)
    assert np.all(fl.retransmitted_bytes > 0)
    np.testing.assert_allclose(res.transport.eta, fl.delivered_bytes / (fl.delivered_bytes + fl.discarded_bytes))
    ooo = simulate(f, sized, "spray", "fluid", 2e-3, transport="roce-ooo").fluid
    assert ooo.reorder_resent_bytes is None and fl.finish_s.max() > ooo.finish_s.max()
    # the estimate's η, given to the fluid model
    links = link_table(f)
    routes = route(f, links, sized, "spray")
    eta = transport_effect(links, routes, "spray", "roce-gbn").eta
    prm = replace(roce_fluid(f), duration_s=2e-3, eta=eta, stop_when_done=True)
    est = simulate_fluid(links, sized, routes, prm)
    np.testing.assert_allclose(est.delivered_bytes, 200e3, rtol=1e-9)
    np.testing.assert_allclose(est.reorder_resent_bytes, 200e3 * (1 / eta - 1), rtol=1e-6)
    np.testing.assert_allclose(est.injected_bytes, 200e3 / eta, rtol=1e-6)


def test_transport_of_the_other_technology_is_refused(tree):
    f, flows = tree
    with pytest.raises(Exception, match="InfiniBand"):
        simulate(f, flows, "ecmp", "maxmin", transport="ib")
    lossy = __import__("fabricviz.sim.engine", fromlist=["roce_fluid"]).roce_fluid(f, None, "lossy")
    for routing in ("spray", "adaptive"):        # go-back-N on reordering and on loss together: not modelled
        with pytest.raises(FabricError, match="lossy flow control is not modelled"):
            simulate(f, flows, routing, "fluid", 1e-5, transport="roce-gbn", fluid=lossy)
