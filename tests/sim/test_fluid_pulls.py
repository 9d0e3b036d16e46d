"""Pull packets per link in the tick-based EQDS / NDP runs (``Frame.link_pulls_per_s``): the receiver's
pacer sends one pull per packet at its line rate, each crossing the reverse of its flow's data path
(receiver → sender, split over the sub-paths as the flow's ``frac``); every other model has none.

Expected numbers are the transports' constants (htsim's, :mod:`fabricviz.sim.transports.params`): a flow
at line rate on 100 GbE is pulled at 100e9 / 8 / mtu per second — 3,004,807.7/s at EQDS's 4160 B and
1,388,888.9/s at NDP's 9000 B."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.sim.engine import simulate
from fabricviz.sim.transports.params import EQDS_PARAMS, NDP_PARAMS
from fabricviz.sim.workloads import Flows

PRM = {"eqds": EQDS_PARAMS, "ndp": NDP_PARAMS}


@pytest.fixture(scope="module")
def tree():
    return fat_tree(levels=2, radix=4, fabric="roce", speed="100GbE", switch="SN4700")


def hosts(f) -> list[int]:
    return [f.find(f"node{i:02d}/mlx5_0") for i in range(1, 9)]


def pair_run(f, transport: str):
    h = hosts(f)                                   # node01 (leaf01) → node08 (leaf04): over both spines
    return simulate(f, Flows(np.array([h[0]]), np.array([h[7]]), np.array([1e8])), model="fluid",
                    transport=transport, duration_s=1e-3, stop_when_done=False)


@pytest.mark.parametrize("transport", ["eqds", "ndp"])
def test_a_flow_at_line_rate_is_pulled_at_its_packet_rate(tree, transport):
    res = pair_run(tree, transport)
    fr = res.frames[-1]                            # steady state: the flow runs at line rate
    assert fr.has_pulls and len(fr.link_pulls_per_s) == res.links.n
    rate = 100e9 / 8 / PRM[transport].mtu
    assert rate == pytest.approx({"eqds": 3_004_807.7, "ndp": 1_388_888.9}[transport], abs=0.1)
    pulls = fr.link_pulls_per_s.astype(float)
    data = np.flatnonzero(fr.link_util > 0)        # node01 → leaf01 → spine01|02 → leaf04 → node08
    assert len(data) == 6
    # the pulls take exactly the reverse of the data links: the twin (l ^ 1) of each
    assert np.flatnonzero(pulls).tolist() == sorted((data ^ 1).tolist())
    name = {res.links.name(tree, int(l)): pulls[l] for l in np.flatnonzero(pulls)}
    # both NICs' links carry every pull, each spine half of them (the flow's two equal-cost sub-paths)
    assert name[("node08/mlx5_0:1", "leaf04:2")] == pytest.approx(rate, rel=1e-6)
    assert name[("leaf01:1", "node01/mlx5_0:1")] == pytest.approx(rate, rel=1e-6)
    for spine in ("spine01", "spine02"):
        assert name[(f"{spine}:1", "leaf01:3" if spine == "spine01" else "leaf01:4")] == pytest.approx(rate / 2, rel=1e-6)
    assert name[("leaf04:3", "spine01:4")] == pytest.approx(rate / 2, rel=1e-6)
    assert name[("leaf04:4", "spine02:4")] == pytest.approx(rate / 2, rel=1e-6)


def test_ndp_pulls_every_packet_but_its_first_window_trimmed_ones_included(tree):
    """7 → 1 of 1 MB: NDP's receiver pulls once per packet that arrives, whole or trimmed, up to what
    the flow still needs (its first window of 15 packets went unsolicited): the pulls leaving the
    receiver over the run are (payload + trimmed) / mtu − 15 per flow, 760.65 packets in all."""
    h = hosts(tree)
    res = simulate(tree, Flows(np.array(h[1:]), np.array([h[0]] * 7), np.full(7, 1e6)), model="fluid",
                   transport="ndp", duration_s=5e-3, stop_when_done=True)
    fl = res.fluid
    assert fl is not None and fl.trimmed_bytes is not None
    spans = np.diff([0.0] + [fr.time_s for fr in res.frames])
    total = np.sum([fr.link_pulls_per_s.astype(float) * s for fr, s in zip(res.frames, spans, strict=True)], axis=0)
    up = int(np.flatnonzero(res.links.src_dev == h[0])[0])         # node01's NIC → leaf01: every pull
    wire = NDP_PARAMS.mtu / NDP_PARAMS.payload
    want = float(np.sum((1e6 + fl.trimmed_bytes) * wire / NDP_PARAMS.mtu - NDP_PARAMS.window_pkts))
    assert want == pytest.approx(760.65, abs=0.01)
    assert total[up] == pytest.approx(want, rel=1e-6)
    # node02 shares leaf01: its pulls go down to it; the 6 others' cross the two spines, half each
    down2 = int(np.flatnonzero(res.links.dst_dev == h[1])[0])
    spines = [int(l) for l in np.flatnonzero(total > 0) if res.links.name(tree, int(l))[0].startswith("leaf01")
              and res.links.name(tree, int(l))[1].startswith("spine")]
    assert len(spines) == 2 and total[spines[0]] == pytest.approx(total[spines[1]], rel=1e-9)
    assert total[down2] + total[spines].sum() == pytest.approx(total[up], rel=1e-6)


@pytest.mark.parametrize("model, transport", [("maxmin", None), ("maxmin", "eqds"), ("fluid", None),
                                              ("fluid", "hpcc")])
def test_no_pulls_elsewhere(tree, model, transport):
    """ECMP max-min, the flow-level EQDS model, RoCE's fluid model and HPCC carry no pulls."""
    h = hosts(tree)
    res = simulate(tree, Flows(np.array([h[0]]), np.array([h[7]]), np.array([1e5])), model=model,
                   transport=transport, duration_s=2e-4)
    assert res.frames and not any(fr.has_pulls for fr in res.frames)
