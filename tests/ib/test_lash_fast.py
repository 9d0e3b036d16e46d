"""LASH's short cuts against its reference steps, answer for answer (LFTs, every path's SL, the
logged layer counts, rand() calls, zombies):

* one step (:mod:`fabricviz.ib.lash_fast`): when the channel dependency graph of all switch
  paths together is acyclic, every pair is on layer 0 without a trial;
* the order search from both ends (:mod:`fabricviz.ib.lash_order`) in the compiled layers
  against the Python layers (:mod:`fabricviz.ib.lash_cdg`), on fabrics of up to 180 switches
  where thousands of trials fail and balancing frees zombie vertices.

The radix-56 timing is in bench/scale.py; the OpenSM answers are in test_lash.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.generate import fat_tree
from fabricviz.ib import lash as L
from fabricviz.ib import lash_kernels as LK
from fabricviz.ib.lash_fast import union_cdg_acyclic
from fabricviz.ib.routing import subnet_and_lids
from tests.ib import topologies as T

KEYS = ("log", "rand_calls", "zombies", "zombie_events", "lanes_before_balancing", "lanes_in_layer", "vls_used")


def _subnet(net: T.Net):
    text = net.text()
    return subnet_and_lids(loads(text, "topology.net", dialect=sniff(text)))


def _assert_same(a, b) -> None:
    (lft_a, info_a), (lft_b, info_b) = a, b
    assert np.array_equal(lft_a, lft_b)
    assert np.array_equal(info_a.path_sl.table, info_b.path_sl.table)
    for key in KEYS:
        assert getattr(info_a, key) == getattr(info_b, key), key


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    runs: list[int] = []
    real = LK.run_layers

    def spy(S, *rest):
        runs.append(S)
        return real(S, *rest)
    monkeypatch.setattr(LK, "run_layers", spy)
    return runs


def test_union_check_on_a_three_switch_ring():
    """Switches 0-1-2 in a ring; paths two hops clockwise chain 0→1→2→0 into a dependency
    cycle, while sending 0 → 2 and 2 → 1 the other way round leaves none."""
    chan = np.array([[-1, 0, 1], [2, -1, 3], [4, 5, -1]], np.int32)     # a's neighbours ascending
    base = np.array([0, 2, 4, 6], np.int64)
    head = np.array([1, 2, 0, 2, 0, 1], np.int32)
    clockwise = np.array([[-1, 1, 1], [2, -1, 2], [0, 0, -1]], np.int32)
    assert not union_cdg_acyclic(clockwise, chan, base, head)
    mixed = np.array([[-1, 1, 2], [2, -1, 2], [0, 1, -1]], np.int32)
    assert union_cdg_acyclic(mixed, chan, base, head)


@pytest.mark.parametrize("name, sn_lids, switches", [
    ("leaf/spine 32x16", lambda: _subnet(T.two_level(32, 16, 1)), 48),
    ("leaf/spine 24x12, 2 cables each", lambda: _subnet(T.two_level(24, 12, 1, parallel=2)), 36),
    ("generated 2-level radix 56", lambda: subnet_and_lids(fat_tree(levels=2, radix=56)), 84),
])
def test_one_step_equals_pair_by_pair(name, sn_lids, switches, monkeypatch: pytest.MonkeyPatch):
    """Leaf/spine: every path is up/down, the union is acyclic, and the one step gives what the
    pair-by-pair trials give — without running them; SLs are the start VL throughout."""
    sn, lids = sn_lids()
    S = sn.num_switches
    assert S == switches
    for start_vl in (0, 3):
        slow = L.route_lash(sn, lids, start_vl=start_vl, one_step=False)
        runs = _spy(monkeypatch)
        fast = L.route_lash(sn, lids, start_vl=start_vl)
        assert runs == []
        monkeypatch.undo()
        _assert_same(fast, slow)
        info = fast[1]
        assert info.log == [f"min operational vl({8 - start_vl}) start vl({start_vl}) max_switches({S})",
                            f"Lanes in layer 0: {S * (S - 1)}", "Lanes needed: 1, Balancing",
                            f"Lanes in layer 0: {S * (S - 1)}"]
        assert info.vls_used == 1 and info.rand_calls == 0
        assert set(np.unique(info.path_sl.table).tolist()) == {start_vl}


@pytest.mark.parametrize("net, layers", [(T.k_ary_fat_tree(4), 3), (T.k_ary_fat_tree(8), 5), (T.ring(6), 3),
                                         (T.torus_2d(4, 4), 3)])
def test_a_cyclic_union_runs_the_trials(net, layers, monkeypatch: pytest.MonkeyPatch):
    """A 3-level fat tree's switch paths turn down then up (core → aggregation → core), so the
    union has cycles and the pair-by-pair trials run, giving several layers."""
    sn, lids = _subnet(net)
    runs = _spy(monkeypatch)
    got = L.route_lash(sn, lids)
    assert runs == [sn.num_switches]
    assert got[1].vls_used == layers
    monkeypatch.undo()
    _assert_same(got, L.route_lash(sn, lids, one_step=False))


@pytest.mark.parametrize("net, before, after, zombies", [
    (T.k_ary_fat_tree(8), [4864, 1032, 362, 58, 4], [1268, 1264, 1264, 1262, 1262], 4),
    (T.k_ary_fat_tree(12), [27832, 3540, 586, 262], [8058, 8054, 8054, 8054], 15),
    (T.random_fabric(100, 150, seed=3), [5034, 2474, 1282, 738, 292, 76, 4],
     [1418, 1420, 1414, 1412, 1412, 1412, 1412], 12),
    (T.torus_2d(8, 8), None, None, None),
])
def test_order_search_equals_the_python_layers(net, before, after, zombies):
    """The compiled layers (order searched from both ends) answer every trial as the Python
    layers do: same layers, same balancing, same zombies."""
    sn, lids = _subnet(net)
    fast = L.route_lash(sn, lids)
    _assert_same(fast, L.route_lash(sn, lids, compiled=False))
    if before is not None:
        info = fast[1]
        assert (info.lanes_before_balancing, info.lanes_in_layer, info.zombies) == (before, after, zombies)


def test_order_search_keeps_a_topological_order():
    """The order search alone, against networkx: 3,000 random dependencies offered to 150
    vertices placed with holes; each is refused exactly when it would close a cycle (1,245 do),
    with the path that closes it (what :mod:`fabricviz.ib.lash_memo` keeps), and after every
    accepted one the order is a topological order of the graph again."""
    nx = pytest.importorskip("networkx")
    from fabricviz.ib import lash_order as O
    n, cap = 150, 40
    rng = np.random.default_rng(5)
    V = np.zeros((n, O.NFIELDS), np.int64)
    H = np.zeros((n, O.HFIELDS), np.int64)
    dv = np.zeros((n, cap), np.int32)
    pr = np.zeros((n, cap), np.int32)
    order = np.full((1, 3 * n), -1, np.int32)
    places = np.sort(rng.choice(3 * n, n, replace=False))
    perm = rng.permutation(n)
    order[0, places] = perm
    H[perm, O.ORD] = places
    olen = np.array([3 * n], np.int64)
    sc = np.zeros(8, np.int64)
    ffound, bfound = np.zeros(n, np.int32), np.zeros(n, np.int32)
    scratch = np.zeros(n, np.int64)                 # the moved set's sort
    par, path = np.zeros((2, n + 1), np.int32), np.zeros(n, np.int32)
    literal = np.zeros(1, np.bool_)
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    refused = 0
    for _ in range(3000):
        x, y = (int(v) for v in rng.choice(n, 2, replace=False))
        if g.has_edge(x, y) or V[x, O.ND] >= cap or V[y, O.NPRED] >= cap:
            continue
        closes = nx.has_path(g, y, x)
        dv[x, V[x, O.ND]] = y
        V[x, O.ND] += 1
        O.pred_add(V, pr, literal, 0, y, x)
        cyc = H[x, O.ORD] > H[y, O.ORD] and O.reorder(V, H, dv, pr, order, olen, 0, sc, ffound, bfound, x, y,
                                                               scratch, par)
        assert cyc == closes
        if cyc:                                     # the path that closes it, y ... x
            got = path[:O.cycle_path(par, path)].tolist()
            assert got[0] == y and got[-1] == x and all(g.has_edge(a, b) for a, b in zip(got, got[1:], strict=False))
            V[x, O.ND] -= 1
            O.pred_del(V, pr, y, x)
            refused += 1
            continue
        g.add_edge(x, y)
        row = order[0, :olen[0]]
        assert sorted(row[row >= 0].tolist()) == list(range(n))
        assert all(order[0, H[v, O.ORD]] == v for v in range(n))
        assert all(H[a, O.ORD] < H[b, O.ORD] for a, b in g.edges)
    assert (g.number_of_edges(), refused) == (1643, 1245)
    assert nx.is_directed_acyclic_graph(g)


def test_a_kept_cycle_answers_while_all_its_dependencies_live():
    """lash_memo: the path y -> a -> x kept for the refused x -> y answers "cycle" for the same
    turn in the same layer while every dependency on it is a live slot; once a -> x is gone
    (or a's channel has no vertex) it does not answer, and another layer or turn has none kept."""
    from fabricviz.ib import lash_memo as M
    from fabricviz.ib import lash_order as O
    cap, C = 8, 6
    V = np.zeros((cap, O.NFIELDS), np.int32)
    dv = np.full((cap, 4), -1, np.int32)
    vid = np.full((2, C), -1, np.int32)
    vch = np.full(cap, -1, np.int32)
    for v, c in [(0, 5), (1, 2), (2, 3)]:          # x = 0 on channel 5, y = 1 on 2, a = 2 on 3
        vid[0, c], vch[v] = v, c
    for u, w in [(0, 1), (1, 2), (2, 0)]:          # x -> y (just added), y -> a, a -> x
        dv[u, V[u, O.ND]] = w
        V[u, O.ND] += 1
    memo = (np.zeros(16, np.int64), np.zeros(16, np.int64), np.zeros(64, np.int32), vch, np.zeros(3, np.int64))
    assert not M.memo_cycle(memo, vid, V, dv, 0, 0, 1)
    M.memo_keep(memo, vid, 0, 0, 1, np.array([1, 2, 0], np.int32), 3)
    assert memo[2][:4].tolist() == [3, 2, 3, 5] and memo[4].tolist() == [0, 4, 1]
    assert M.memo_cycle(memo, vid, V, dv, 0, 0, 1)
    assert not M.memo_cycle(memo, vid, V, dv, 1, 0, 1)     # layer 1: nothing kept
    assert not M.memo_cycle(memo, vid, V, dv, 0, 1, 2)     # another turn: nothing kept
    V[2, O.ND] = 0                                         # a -> x gone
    assert not M.memo_cycle(memo, vid, V, dv, 0, 0, 1)
    V[2, O.ND] = 1
    vid[0, 3] = -1                                         # a's channel has no vertex in the layer
    assert not M.memo_cycle(memo, vid, V, dv, 0, 0, 1)
    vid[0, 3] = 2
    assert M.memo_cycle(memo, vid, V, dv, 0, 0, 1) and memo[4][0] == 2
