"""VL arbitration: weighted / hierarchical max-min and the fluid model on one 100G link (a dumbbell:
senders → one switch → one receiver, the switch → receiver link shared), exact numbers."""

import numpy as np
import pytest

from fabricviz.ib.qos import QosOptions, QosSet
from fabricviz.ib.qos_meta import to_meta
from fabricviz.model import FabricError
from fabricviz.sim.engine import simulate
from fabricviz.sim.paths import Routes
from fabricviz.sim.testbeds import dumbbell
from fabricviz.sim.vlarb import LinkArb, arbitrate, entry_vls, vl_maxmin
from fabricviz.sim.workloads import Flows

#: The fluid model's steady delivered rates match the max-min answer within this (Gb/s, of 100).
FLUID_TOL = 0.5


def _routes(paths, n_links):
    indptr = np.concatenate([[0], np.cumsum([len(p) for p in paths])])
    return Routes(np.arange(len(paths)), np.ones(len(paths)), indptr,
                  np.concatenate([np.asarray(p, np.int64) for p in paths]), len(paths), n_links)


def _solve(paths, caps, sls, arb, demand=None):
    r = _routes(paths, len(caps))
    return vl_maxmin(r, np.asarray(caps, float), demand, entry_vls(r, np.asarray(sls), arb.sl2vl), arb)


def test_weighted_vls_share_25_75():
    res = _solve([[0], [0]], [100], [0, 1], LinkArb.uniform(1, low=((0, 1), (1, 3))))
    np.testing.assert_allclose(res.rate, [25, 75], rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.link_vl[0, :2], [25, 75], rtol=0, atol=1e-12)
    assert res.converged and res.starved == ()


def test_vl_held_elsewhere_gives_its_share_back():
    # link 0 is the shared 100G link, link 1 a 10G link only the VL1 flow crosses
    res = _solve([[0], [0, 1]], [100, 10], [0, 1], LinkArb.uniform(2, low=((0, 1), (1, 3))))
    np.testing.assert_allclose(res.rate, [90, 10], rtol=0, atol=1e-12)
    assert res.converged and res.rounds == 2


def test_three_flows_on_one_vl_one_on_another_equal_weights():
    res = _solve([[0]] * 4, [100], [0, 0, 0, 1], LinkArb.uniform(1, low=((0, 1), (1, 1))))
    np.testing.assert_allclose(res.rate, [100 / 6] * 3 + [50], rtol=0, atol=1e-12)


def test_high_priority_limit_255_takes_what_it_needs_first():
    arb = LinkArb.uniform(1, high=((1, 1),), low=((0, 1),), high_limit=255)
    res = _solve([[0], [0]], [100], [0, 1], arb, demand=np.array([np.inf, 60.0]))
    np.testing.assert_allclose(res.rate, [40, 60], rtol=0, atol=1e-12)
    res = _solve([[0], [0]], [100], [0, 1], arb)          # high wants it all: low starves
    np.testing.assert_allclose(res.rate, [0, 100], rtol=0, atol=1e-12)
    assert [(s.link, s.vl, s.flows) for s in res.starved] == [(0, 0, 1)]
    assert "VLHighLimit 255" in res.starved[0].reason


def test_high_limit_bounds_the_high_share():
    # limit 0: one high packet, then one low packet (4 KB MTU) -> 1:1; limit 3: 12 KB high per 4 KB low
    for limit, high in ((0, 50.0), (3, 75.0)):
        arb = LinkArb.uniform(1, high=((1, 1),), low=((0, 1),), high_limit=limit)
        res = _solve([[0], [0]], [100], [0, 1], arb)
        np.testing.assert_allclose(res.rate, [100 - high, high], rtol=0, atol=1e-12)
    got = arbitrate(np.array([[np.inf, 10.0] + [0.0] * 14]), np.array([100.0]),
                    LinkArb.uniform(1, high=((1, 1),), low=((0, 1),), high_limit=0))
    np.testing.assert_allclose(got[0, :2], [90, 10])        # high needs less: low takes the rest


def test_vl_in_no_table_starves_under_congestion_only():
    arb = LinkArb.uniform(2, low=((0, 1),))                  # VL2 is in neither table
    res = _solve([[0], [0]], [100], [0, 2], arb)
    np.testing.assert_allclose(res.rate, [100, 0], rtol=0, atol=1e-12)
    assert [(s.link, s.vl, s.flows) for s in res.starved] == [(0, 2, 1)]
    assert res.starved[0].reason.startswith("in neither VL arbitration table")
    # the listed VL held to 30 elsewhere: the unlisted VL gets what is left, nothing starves
    res = _solve([[0, 1], [0]], [100, 30], [0, 2], arb)
    np.testing.assert_allclose(res.rate, [30, 70], rtol=0, atol=1e-12)
    assert res.starved == ()


def _dumbbell(n, high=((0, 0),), low=((0, 1), (1, 3)), limit=0):
    f, flows = dumbbell(n, gbps=100, tech="ib")
    f.meta["qos"] = to_meta(QosOptions(qos=True, default=QosSet(vlarb_high=high, vlarb_low=low,
                                                                high_limit=limit, sl2vl=tuple(range(16)))))
    return f, flows


CASES = [  # (dumbbell senders, tables, SLs, demand, max-min rates)
    (2, {}, [0, 1], None, [25, 75]),
    (2, {}, [0, 1], [np.inf, 10], [90, 10]),
    (4, {"low": ((0, 1), (1, 1))}, [0, 0, 0, 1], None, [100 / 6] * 3 + [50]),
    (2, {"high": ((1, 1),), "low": ((0, 1),), "limit": 255}, [0, 1], [np.inf, 60], [40, 60]),
    (2, {"low": ((0, 1),)}, [0, 2], None, [100, 0]),
]


@pytest.mark.parametrize("n, tables, sls, demand, want", CASES)
def test_engine_max_min_and_fluid_agree(n, tables, sls, demand, want):
    f, base = _dumbbell(n, **tables)
    flows = Flows(base.src, base.dst, rate_gbps=demand, sl=sls)
    mm = simulate(f, flows, model="maxmin")
    np.testing.assert_allclose(mm.flow_rates(), want, rtol=1e-6, atol=0)      # frames are float32
    fl = simulate(f, flows, model="fluid", duration_s=600e-6)
    np.testing.assert_allclose(fl.flow_rates(), want, rtol=0, atol=FLUID_TOL)
    bottleneck = _to_receiver(mm, f)
    for res, tol in ((mm, 1e-9), (fl, FLUID_TOL)):
        assert res.link_vl_gbps.shape == (mm.links.n, 16)
        per_vl = np.bincount(np.asarray(sls), weights=want, minlength=16)
        np.testing.assert_allclose(res.link_vl_gbps[bottleneck], per_vl, rtol=0, atol=tol)
    starved = [(s.vl, s.flows) for s in mm.flow_vl.starved]
    assert starved == ([(2, 1)] if 2 in sls else [])
    assert [(s.vl, s.flows) for s in fl.flow_vl.starved] == starved


def _to_receiver(res, f):
    """The switch -> receiver link (the reverse of the link leaving the receiver's port)."""
    return res.links.cable_link(f.port_id(f.device_id("r"), 1), f) ^ 1


def test_one_sl_is_one_class_with_the_numbers_of_today():
    f, flows = _dumbbell(3)
    plain = simulate(f, flows, model="maxmin")
    on_sl1 = simulate(f, flows.with_sl(1), model="maxmin")
    np.testing.assert_array_equal(plain.flow_rates(), on_sl1.flow_rates())
    assert not on_sl1.flow_vl.arbitrated and on_sl1.flow_vl.source == "flows"
    assert plain.flow_vl.source == "default"
    rx = _to_receiver(plain, f)
    np.testing.assert_allclose(plain.link_vl_gbps[rx, :2], [100, 0])
    np.testing.assert_allclose(on_sl1.link_vl_gbps[rx, :2], [0, 100])
    assert plain.link_vl_gbps[plain.links.pcie].sum() == 0


def test_ethernet_has_no_vls():
    f, flows = dumbbell(2, gbps=100, tech="eth")
    res = simulate(f, flows.with_sl([0, 1]), model="maxmin")
    assert res.link_vl_gbps is None and res.flow_vl is None
    assert "vl_link_gbps" not in res.summary(f)


def test_flow_sl_is_checked():
    with pytest.raises(FabricError, match="SL must be an integer 0..15"):
        Flows([1, 2], [3, 3], sl=[0, 16])
    fl = Flows([1, 2], [3, 3], sl=3)
    assert fl.sl.tolist() == [3, 3] and fl.sl.dtype == np.uint8 and fl.sl_given
    sel = fl.select(np.array([False, True]))
    assert sel.sl.tolist() == [3] and sel.sl_given
    assert not Flows([1], [2]).sl_given and Flows([1], [2]).sl.tolist() == [0]


def test_sl_mapped_to_vl15_is_dropped_and_reported():
    sl2vl = tuple(range(15)) + (15,)                         # SL15 -> VL15, the management lane
    res = _solve([[0], [0]], [100], [0, 15], LinkArb.uniform(1, sl2vl=sl2vl, low=((0, 1),)))
    np.testing.assert_allclose(res.rate, [100, 0], rtol=0, atol=1e-12)
    assert [(s.vl, s.flows) for s in res.starved] == [(15, 1)] and "VL15" in res.starved[0].reason
