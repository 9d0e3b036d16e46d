"""EQDS, NDP and HPCC in the tick-based fluid model (fabricviz/sim/fluid_transports): the mechanisms on a
small tree — trims where the incast meets its receiver, every trimmed payload pulled and sent again, pauses
and no trims for HPCC, bytes accounted for, per-frame trims adding up to the run's."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.model import FabricError
from fabricviz.sim.engine import simulate
from fabricviz.sim.fct import flow_times
from fabricviz.sim.fluid_transports import simulate_transport_fluid
from fabricviz.sim.fluid_transports.spray import spray_sequences
from fabricviz.sim.links import link_table
from fabricviz.sim.paths import route
from fabricviz.sim.transports.params import EQDS_PARAMS, NDP_PARAMS
from fabricviz.sim.units import ParamError
from fabricviz.sim.workloads import Flows


@pytest.fixture(scope="module")
def tree():
    return fat_tree(levels=2, radix=4, fabric="roce", speed="100GbE", switch="SN4700")


def hosts(f) -> list[int]:
    return [f.find(f"node{i:02d}/mlx5_0") for i in range(1, 9)]


def incast(f) -> Flows:
    h = hosts(f)
    return Flows(np.array(h[1:]), np.array([h[0]] * 7), np.full(7, 1e6))


@pytest.fixture(scope="module")
def runs(tree):
    return {t: simulate(tree, incast(tree), model="fluid", transport=t, duration_s=5e-3, stop_when_done=True)
            for t in ("eqds", "ndp", "hpcc")}


def test_incast_trims_at_the_receiver_and_resends_what_it_trimmed(tree, runs):
    """7 → 1 of 1 MB: the first windows (EQDS up to 50 × 4160 B until the first pull or NACK comes
    back, NDP 15 × 9000 B per sender) overrun the receiver's downlink queue (35 / 15 packets) and it trims; every trimmed payload is pulled and sent
    again exactly once; nothing else trims; every flow finishes; no byte unaccounted for."""
    links = runs["eqds"].links
    down = int(np.flatnonzero(links.dst_dev == hosts(tree)[0])[0])
    for t in ("eqds", "ndp"):
        fl = runs[t].fluid
        assert fl is not None and fl.link_trimmed_bytes is not None and fl.retransmitted_bytes is not None
        assert fl.flow_control == "trim" and fl.transport == t
        assert np.isfinite(fl.finish_s).all()
        assert fl.lost_bytes == 0.0
        trims = np.flatnonzero(fl.link_trimmed_bytes)
        assert down in trims
        assert fl.link_trimmed_bytes[down] / fl.link_trimmed_bytes.sum() > 0.5
        assert fl.retransmitted_bytes.sum() == pytest.approx(fl.link_trimmed_bytes.sum(), rel=1e-9)
        assert fl.trimmed_bytes is not None and fl.trimmed_bytes.sum() == pytest.approx(fl.link_trimmed_bytes.sum())
        per_frame = np.sum([fr.link_trimmed_bytes for fr in runs[t].frames], axis=0, dtype=float)
        assert per_frame == pytest.approx(fl.link_trimmed_bytes, rel=1e-5, abs=1.0)
    assert runs["eqds"].fluid.link_trimmed_bytes.sum() == pytest.approx(156244.396, rel=1e-6)
    assert runs["ndp"].fluid.link_trimmed_bytes.sum() == pytest.approx(735446.98, rel=1e-6)


def test_incast_fcts(runs):
    """EQDS / NDP: the receiver pulls at its line rate, shared by its 7 senders: the one on its leaf
    first (its packets cross one switch), the 6 behind the spines together ~7 MB / 100 Gb/s later.
    HPCC: the receiver's leaf serves its 3 ingress ports round-robin (the sender on the leaf, the two
    spines): the sender on the leaf has a third of the link, ~1 MB / 33 Gb/s."""
    got = {t: np.round(flow_times(r).fct_s * 1e6, 1).tolist() for t, r in runs.items()}
    assert got["eqds"] == [548.8] + [570.0] * 6
    assert got["ndp"] == [516.4] + [566.4] * 6
    assert got["hpcc"] == [237.2] + [562.0] * 6


def test_hpcc_is_lossless(runs):
    """HPCC over PFC: its first windows (one T × line rate each) pause links, nothing is trimmed or lost."""
    fl = runs["hpcc"].fluid
    assert fl.flow_control == "pfc" and fl.link_trimmed_bytes is None and fl.transport == "hpcc"
    assert fl.lost_bytes == 0.0 and np.isfinite(fl.finish_s).all()
    assert fl.paused_fraction.max() == pytest.approx(0.2284697509, rel=1e-6)
    assert all(len(fr.link_trimmed_bytes) == 0 for fr in runs["hpcc"].frames)


def test_summary_names_the_model(tree, runs):
    s = runs["eqds"].summary(tree)
    assert s["transport"] == "eqds" and s["model"] == "fluid" and s["routing"] == "spray"
    assert s["transport_model"]["model"] == "fluid (tick by tick)"
    assert s["transport_model"]["trimmed_bytes"] == pytest.approx(156244.396, rel=1e-6)
    assert s["lost_bytes"] == 0.0 and s["finished_flows"] == 7


def test_spraying_sequences(tree):
    """EQDS: 64 path ids per flow, each one of the flow's equal-cost sub-paths; NDP: a permutation of them."""
    links = link_table(tree)
    h = hosts(tree)
    fl = Flows(np.array([h[0]]), np.array([h[7]]), np.array([1e6]))
    routes = route(tree, links, fl, "spray", seed=0)
    n = routes.n_paths
    assert n == 2                                   # radix 4, two levels: two spines
    seq, count = spray_sequences(routes, EQDS_PARAMS, 0)
    assert count.tolist() == [64] and set(seq[0].tolist()) <= set(range(n))
    seq, count = spray_sequences(routes, NDP_PARAMS, 0)
    assert count.tolist() == [n] and sorted(seq[0, :n].tolist()) == list(range(n))


def test_ndp_is_window_limited_on_long_links(tree):
    """NDP pulls once per packet that arrives, 15 packets of 9000 B per round trip: on 20 µs cables (a
    round trip ~ 80 µs + the hops) one flow gets ~ 15 × 9000 × 8 / RTT, far under its 100 Gb/s; EQDS's
    receiver pulls at line rate to the sender's pull target (only the credit in flight is bounded)."""
    links = link_table(tree)
    from dataclasses import replace
    links = replace(links, prop_ns=np.where(links.pcie, links.prop_ns, 20_000.0))
    h = hosts(tree)
    fl = Flows(np.array([h[0]]), np.array([h[7]]), np.array([4e6]))
    routes = route(tree, links, fl, "spray", seed=0)
    rate = {}
    for t in ("ndp", "eqds"):
        res, _ = simulate_transport_fluid(links, fl, routes, t, 5e-3)
        rate[t] = float(4e6 * 8 / (res.finish_s[0] - res.begin_s[0]) / 1e9)
    rtt = 2 * 4 * 20e-6                              # four cables each way (NIC, leaf, spine, leaf)
    assert rate["ndp"] == pytest.approx(15 * 9000 * 8 / rtt / 1e9, rel=0.15)
    assert rate["eqds"] > 1.4 * rate["ndp"]


def test_routing_and_fabric_refusals(tree):
    with pytest.raises(ParamError, match="routes spray"):
        simulate(tree, incast(tree), model="fluid", transport="eqds", routing="ecmp")
    ib = fat_tree(levels=2, radix=4)
    with pytest.raises((ParamError, FabricError), match="Ethernet"):
        simulate(ib, incast(ib), model="fluid", transport="hpcc")


def test_entropy_order_and_penalties():
    """htsim's nextEntropy: every path id once a pass (in index XOR x order); a penalized id is skipped
    once, on the next pass; an mtu of NACKed bytes on a sub-path penalizes one id hashing there."""
    from fabricviz.sim.fluid_transports.entropy import Entropies
    seq = np.array([[10, 11, 12, 13]])
    e = Entropies(seq, np.random.default_rng(0), mtu=1000)
    one_pass = [int(e.next(np.array([0]))[0]) for _ in range(4)]
    assert sorted(one_pass) == [10, 11, 12, 13]
    e.penalize(np.zeros(14, np.int64), np.array([0.0] * 12 + [999.0, 0.0]))
    assert e.skip.sum() == 0                       # less than a packet: nothing yet
    e.penalize(np.zeros(14, np.int64), np.array([0.0] * 12 + [1.0, 0.0]))
    assert e.skip[0].tolist() == [0, 0, 1, 0]
    nxt = [int(e.next(np.array([0]))[0]) for _ in range(3)]
    assert sorted(nxt) == [10, 11, 13] and e.skip.sum() == 0
    with pytest.raises(ValueError, match="power of 2"):
        Entropies(np.zeros((1, 6), np.int64), np.random.default_rng(0), 1000)
    # the run's last sub-paths may have no path id hashed onto them (the 432-host tree: 546 sub-paths, the
    # highest hashed onto 544): NACKs come per sub-path of the run
    e = Entropies(seq, np.random.default_rng(0), mtu=1000, n_paths=16)
    e.penalize(np.zeros(16, np.int64), np.array([0.0] * 11 + [1000.0] + [0.0] * 4))
    assert e.skip[0].tolist() == [0, 1, 0, 0]


@pytest.mark.parametrize("transport", ["eqds", "ndp", "hpcc"])
def test_a_flows_own_rate_paces_it(tree, transport):
    """A workload's rate (10 Gb/s here) paces the sender: 1 MB in ~800 µs + the path."""
    h = hosts(tree)
    fl = Flows(np.array([h[0]]), np.array([h[7]]), np.array([1e6]), np.array([10.0]))
    res = simulate(tree, fl, model="fluid", transport=transport, duration_s=2e-3, stop_when_done=True)
    fct = float(flow_times(res).fct_s[0])
    wire = {"eqds": 4160 / 4096, "ndp": 9000 / 8936, "hpcc": 1.0}[transport]
    assert fct == pytest.approx(1e6 * 8 * wire / 10e9, rel=0.02)
