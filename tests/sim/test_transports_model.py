"""The transport models' pieces on cases small enough to work out by hand (:mod:`fabricviz.sim.transports`)."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.model import FabricError
from fabricviz.sim.engine import simulate
from fabricviz.sim.fct import flow_times
from fabricviz.sim.paths import Routes
from fabricviz.sim.transports.params import EQDS_PARAMS, HPCC_PARAMS, NDP_PARAMS
from fabricviz.sim.transports.trimming import collision_trim, delivery, feeders, path_shares
from fabricviz.sim.units import ParamError
from fabricviz.sim.workloads import Flows


def test_collision_trim_by_hand():
    # 2 inputs, each a packet with chance 1/2 per packet time; queue of 1: from empty, two arrivals
    # (chance 1/4) lose one, and the queue is empty again after the packet time: loss 1/4 of 1 arrival
    assert collision_trim(2, 1.0, 1) == pytest.approx(0.25, abs=1e-12)
    # queue of 2: states 0 and 1 each go to 1 with chance 1/4 (0: two arrive) or 3/4 (1: one or two
    # arrive), so π = (1/2, 1/2); only state 1 with two arrivals loses one: 1/2 · 1/4 = 1/8
    assert collision_trim(2, 1.0, 2) == pytest.approx(0.125, abs=1e-12)
    assert collision_trim(1, 0.5, 35) == 0.0               # one input below line rate never queues
    assert collision_trim(1, 2.0, 35) == pytest.approx(0.5)  # offered twice the capacity: half trimmed
    # htsim's queues at full load over 4 feeding links: NDP's 15 packets trim more than EQDS's 35
    assert collision_trim(4, 1.0, NDP_PARAMS.queue_pkts) > collision_trim(4, 1.0, EQDS_PARAMS.queue_pkts) > 0.0


def test_constants_are_htsims():
    assert (EQDS_PARAMS.mtu, EQDS_PARAMS.payload, EQDS_PARAMS.queue_pkts, EQDS_PARAMS.entropies,
            EQDS_PARAMS.window_pkts) == (4160, 4096, 35, 64, 50)
    assert (NDP_PARAMS.mtu, NDP_PARAMS.queue_pkts, NDP_PARAMS.window_pkts, NDP_PARAMS.entropies) == (9000, 15, 15, 0)
    assert (HPCC_PARAMS.eta, HPCC_PARAMS.mtu) == (0.95, 9000)


def _routes() -> Routes:
    # flow 0 over paths [0, 1] and [0, 2]; flow 1 over [3]
    return Routes(np.array([0, 0, 1]), np.array([0.5, 0.5, 1.0]), np.array([0, 2, 4, 5]),
                  np.array([0, 1, 0, 2, 3]), 2, 4)


def test_path_shares_and_delivery():
    r = _routes()
    assert path_shares(r, 0, 0).tolist() == [0.5, 0.5, 1.0]
    s = path_shares(r, 64, 7)
    assert np.allclose(np.bincount(r.flow, s), 1.0) and np.allclose(s * 64, np.round(s * 64))
    trim = np.array([0.0, 0.5, 0.0, 0.0])
    assert delivery(r, np.array([0.5, 0.5, 1.0]), trim).tolist() == pytest.approx([0.75, 1.0])
    assert feeders(r, 4).tolist() == [0, 1, 1, 0]


@pytest.fixture(scope="module")
def small():
    f = fat_tree(levels=2, radix=4, fabric="roce", speed="100GbE", switch="SN4700")
    nic = lambda i: f.find(f"node{i:02d}/mlx5_0")  # noqa: E731
    return f, nic


def test_incast_shares_the_receivers_line(small):
    f, nic = small
    flows = Flows(np.array([nic(3), nic(5), nic(7)]), np.array([nic(1)] * 3), np.full(3, 1e6))
    for t, payload in (("eqds", 4096 / 4160), ("ndp", 8936 / 9000)):
        res = simulate(f, flows, transport=t)
        run = res.transport
        assert run.wire_gbps == pytest.approx([100 / 3] * 3)        # the receiver's pulls, line rate, split
        # 3 flows of 33 Gb/s on 4 uplinks of their leaves: no link at full load trims but the last hop
        # is exempt, so every packet arrives
        assert run.delivery == pytest.approx([1.0] * 3, abs=1e-4)
        assert run.goodput_gbps == pytest.approx(np.array([100 / 3] * 3) * payload * run.delivery)
    hp = simulate(f, flows, transport="hpcc").transport
    assert hp.goodput_gbps == pytest.approx([95 / 3] * 3)           # η = 0.95 of the receiver's link


def test_permutation_completion_exact(small):
    f, nic = small
    flows = Flows(np.array([nic(1), nic(2)]), np.array([nic(8), nic(7)]), np.full(2, 4e6))
    res = simulate(f, flows, transport="eqds", seed=1)
    ft = flow_times(res)
    assert ft is not None and np.isfinite(ft.fct_s).all()
    assert res.routing == "spray" and res.transport.routing == "spray"
    assert (ft.fct_s * 1e6).tolist() == pytest.approx(FCT_EQDS, rel=1e-6)
    # the frame's queues are the trimming queues' mean level: up to 35 packets of 4160 B, filled where a
    # link is offered more than it carries, empty where nothing goes
    run, q = res.transport, res.last.link_queue
    over = run.link_load_gbps > res.links.gbps * (1 + 1e-9)
    assert over.sum() == 2 and (q[over] > 0).all() and q.max() == 35 * 4160
    assert (q[run.link_load_gbps == 0] == 0).all()


#: 4,000,000 B at 100 Gb/s × 4096/4160 is 325.0 µs; the rest is the packets trimmed where a flow's 64 path
#: entropies, hashed onto the 2 spines (seed 1), load one spine uplink above line rate, plus the base latency
FCT_EQDS = [334.00433849911525, 332.89179470035447]


def test_refusals(small):
    f, nic = small
    flows = Flows(np.array([nic(1)]), np.array([nic(8)]), np.full(1, 1e6))
    with pytest.raises(ParamError, match="routes spray"):
        simulate(f, flows, "adaptive", transport="eqds")
    with pytest.raises(ParamError, match="routes spray"):       # the fluid model (fluid_transports) as well
        simulate(f, flows, "ecmp", model="fluid", transport="ndp")
    ib = fat_tree(levels=2, radix=4, fabric="ib")
    ibf = Flows(np.array([ib.find("node01/mlx5_0")]), np.array([ib.find("node08/mlx5_0")]), np.full(1, 1e6))
    with pytest.raises((ParamError, FabricError), match="InfiniBand"):
        simulate(ib, ibf, transport="eqds")
