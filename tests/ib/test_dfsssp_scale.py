"""dfsssp at the LID space's end: OpenSM 3.3.23's Dijkstra starts every switch at
``INF`` = 0x7FFFFFFF and every link at P² (P = end-port LIDs), so a switch whose distance
would reach INF is never reached (osm_ucast_dfsssp.c: ``distance + weight < distance[to]``).
From P = 46,341 (the radix-56 3-level fat tree has 47,824) not even one switch-to-switch
link is taken; the deadlock removal then meets a switch with no LFT entry and stops with
ERR AD14 (OpenSM routes with minhop). fabricviz gives that verdict after the first such run,
before anything per path or per pair is stored."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.ib import dfsssp as D
from fabricviz.ib import dfsssp_kernels as K
from fabricviz.ib.dfsssp_vl import AD14, assign_vls
from fabricviz.ib.engine_types import EngineRefused
from fabricviz.ib.routing import route, subnet_and_lids
from tests.ib import topologies as T

HALF_INF = 1 << 30          # one hop past a CA's switch stays below INF, two hops do not


def _fat_tree4():
    text = T.k_ary_fat_tree(4).text()
    return loads(text, "topology.net", dialect=sniff(text))


def _big_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    """Links as heavy as on a fabric of ~32,768 end ports (2^30 = 32,768²)."""
    build = D.build_graph

    def heavy(sn, lids):
        g = build(sn, lids)
        g.weight[:-1] = HALF_INF
        return g
    monkeypatch.setattr(D, "build_graph", heavy)


def test_a_switch_at_inf_is_never_reached():
    """k=4 fat tree (20 switches, 16 hosts), first destination a host on edge1-2: with links
    at 2^30 its edge switch (distance 1) and the two aggregation switches above (1 + 2^30) are
    reached, the rest (1 + 2^31 > INF) are not, as in OpenSM; those 17 switches keep NO_PATH."""
    sn, lids = subnet_and_lids(_fat_tree4())
    g = D.build_graph(sn, lids)
    g.weight[:-1] = HALF_INF
    d = D.destinations(sn, lids, D.port_order(sn))
    lid = int(d.lid[0])
    lft = np.full((sn.num_switches, lids.max_lid + 1), K.NO_PATH, np.uint8)
    assert D.run_dijkstra(g, d, lft, 0, 1) == -1            # no switch to watch: runs on
    reached = sorted(sn.switch_name(s) for s in np.flatnonzero(lft[:, lid] != K.NO_PATH))
    assert sn.switch_name(int(d.sw[0])) == "edge1-2"
    assert reached == ["agg1-1", "agg1-2", "edge1-2"]
    lft[:] = K.NO_PATH
    g = D.build_graph(sn, lids)
    g.weight[:-1] = HALF_INF
    edges = np.array([sn.switch_name(s).startswith("edge") for s in range(sn.num_switches)])
    assert D.run_dijkstra(g, d, lft, 0, len(d.lid), edges) == 0   # stops after run 0


def test_dfsssp_refuses_after_one_run(monkeypatch: pytest.MonkeyPatch):
    """The same weights through the engine: ERR AD14 and minhop's routes, after 1 of the 36
    Dijkstra runs (16 hosts + 20 switch LIDs); sssp, which has no deadlock removal, runs all
    of them and keeps the holes, as OpenSM's sssp does."""
    _big_weights(monkeypatch)
    seen: list[int] = []
    real = K.sssp_routes

    def spy(*args):
        got = real(*args)
        if args[14].shape[0] == 20:                 # the fabric's LFTs, not the warm-up's
            seen.append(int(got))
        return got
    monkeypatch.setattr(K, "sssp_routes", spy)
    r = route(_fat_tree4(), "dfsssp")
    assert r.routed_by == "minhop" and r.fallback_reason == f"dfsssp: {AD14}"
    assert seen == [0]
    seen.clear()
    s = route(_fat_tree4(), "sssp")
    assert s.routed_by == "sssp" and seen == [-1]
    assert int((s.lft == K.NO_PATH).sum()) > 0


def test_a_hole_is_found_before_the_pairs_are_stored():
    """A path of the deadlock removal that meets a switch without an LFT entry: AD14 before
    the VL table is filled (it keeps what it held) and before the pair store is built."""
    sn, lids = subnet_and_lids(_fat_tree4())
    lft, d = D.sssp_lfts(sn, lids)
    far = int(d.lid[0])                                  # a host on edge1-2
    other = int(np.flatnonzero([sn.switch_name(s) == "edge2-1" for s in range(sn.num_switches)])[0])
    lft[other, far] = K.NO_PATH
    with pytest.raises(EngineRefused, match="ERR AD14"):
        assign_vls(sn, lids, lft, d, 8)
    n = len(d.lid)
    all_lids = np.sort(d.lid)
    idx = np.full(lids.max_lid + 1, -1, np.int64)
    idx[all_lids] = np.arange(n)
    end_lid = idx[d.lid]
    ca = d.src == 0
    starts = np.unique(d.sw[ca])
    row = np.full(sn.num_switches, -1, np.int64)
    row[starts] = np.arange(len(starts))
    row_of = np.full(n, -1, np.int64)
    row_of[end_lid[ca]] = row[d.sw[ca]]
    port_of = np.empty(n, np.int64)
    port_of[end_lid] = np.cumsum(d.first) - 1
    first = np.flatnonzero(d.first)
    vl = np.full((n, n), 7, np.uint8)
    status, _ = K.remove_deadlocks(lft, sn.nbr_sw, sn.nbr_port, lids.sw_lid, starts, all_lids, row_of,
                                   port_of, np.append(first, n).astype(np.int64), end_lid,
                                   d.src[first] == 0, vl, np.zeros(8, np.int64), np.empty(0, np.int32))
    assert status == K.BROKEN and int(vl.min()) == 7
