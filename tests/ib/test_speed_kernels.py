"""The compiled routing kernels (issue 14 "Speed") compute exactly what the numpy code did.

Behaviour only: the bit-parallel all-pairs BFS against known distances and scipy's BFS, the
compiled minhop/updn LFT builder against the vectorised numpy walk it replaced (every engine's
candidates, a re-sweep keeping old entries), progress reported to the end. Timing lives in
bench/route.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import shortest_path

from fabricviz.generate import fat_tree, k_ary_fat_tree, leaf_spine
from fabricviz.ib import kernels, ucast
from fabricviz.ib.lids import assign_lids
from fabricviz.ib.routing import route
from fabricviz.ib.subnet import NO_PATH, discover, switch_distances
from fabricviz.ib.updn import LayeredUpDownHops, UpDownHops, find_roots, rank_from_roots


def _csr(n: int, edges: list[tuple[int, int]]):
    a = np.array([u for u, v in edges] + [v for u, v in edges])
    b = np.array([v for u, v in edges] + [u for u, v in edges])
    g = coo_matrix((np.ones(len(a), np.int8), (a, b)), shape=(n, n)).tocsr()
    return g.indptr.astype(np.int64), g.indices.astype(np.int64)


def test_all_pairs_hops_ring_of_70_spans_two_bit_words_and_an_isolated_node():
    n = 71                                   # ring 0..69, node 70 alone
    ptr, idx = _csr(n, [(i, (i + 1) % 70) for i in range(70)])
    d = kernels.all_pairs_hops(ptr, idx, n)
    assert d.dtype == np.uint8 and d.shape == (71, 71)
    assert d[0, 35] == 35 and d[0, 36] == 34 and d[3, 69] == 4 and d[64, 63] == 1 and d[5, 5] == 0
    i, j = np.meshgrid(np.arange(70), np.arange(70), indexing="ij")
    assert np.array_equal(d[:70, :70], np.minimum(abs(i - j), 70 - abs(i - j)))
    assert (d[70, :70] == NO_PATH).all() and (d[:70, 70] == NO_PATH).all() and d[70, 70] == 0


@pytest.fixture(autouse=True)
def compiled_always(monkeypatch):
    """These small fabrics would route by numpy (numba is loaded only for big subnets): force the
    compiled kernels so they are what is checked."""
    from fabricviz.ib import subnet
    monkeypatch.setattr(ucast, "COMPILED_FROM_ENTRIES", 0)
    monkeypatch.setattr(subnet, "COMPILED_FROM_SWITCHES", 0)


@pytest.mark.slow
def test_small_subnets_route_without_loading_numba(tmp_path):
    """A one-shot CLI call on a small design never pays numba's load (~0.3–0.5 s); a big one uses it."""
    import subprocess
    import sys
    code = ("import sys\n"
            "from fabricviz.generate import k_ary_fat_tree\n"
            "from fabricviz.ib.routing import route, subnet_and_lids\n"
            "from fabricviz.ib.ucast import compiled\n"
            "for e in ('minhop', 'updn', 'ftree'):\n"
            "    route(k_ary_fat_tree(8), e)\n"
            "print('numba' in sys.modules)\n"
            "print(compiled(*subnet_and_lids(k_ary_fat_tree(16))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


@pytest.mark.parametrize("build", [
    lambda: k_ary_fat_tree(4),
    lambda: fat_tree(levels=3, radix=4, parallel=2),
    lambda: leaf_spine(leaves=5, spines=3, hosts_per_leaf=2, fabric="ib"),
], ids=["k4", "fat3-par2", "leaf-spine"])
def test_switch_distances_equal_scipy_bfs(build):
    sn = discover(build())
    S = sn.num_switches
    rows, cols = np.nonzero(sn.nbr_sw >= 0)
    dst = sn.nbr_sw[rows, cols]
    keep = dst != rows
    g = coo_matrix((np.ones(int(keep.sum())), (rows[keep], dst[keep])), shape=(S, S)).tocsr()
    ref = shortest_path(g, directed=False, unweighted=True)
    assert np.array_equal(switch_distances(sn), np.where(np.isfinite(ref), ref, NO_PATH).astype(np.uint8))


def _engines(sn, lids, dist):
    """(name, least, cand) of every candidate source build_lfts is given in route()."""
    least, cand = ucast.minhop_candidates(sn, dist)
    yield "minhop", least, cand
    rank = rank_from_roots(sn, find_roots(sn, lids, dist))
    layered = LayeredUpDownHops(sn, rank)
    yield "updn-layered", layered.least, layered.cand
    bfs = UpDownHops(sn, rank)                      # a plain callable: the per-target kernel
    yield "updn-bfs", bfs.least, bfs.cand


@pytest.mark.parametrize("build", [
    lambda: k_ary_fat_tree(4),
    lambda: fat_tree(levels=3, radix=4, parallel=2),
    lambda: fat_tree(levels=2, radix=8, hosts=11),
], ids=["k4", "fat3-par2", "fat2-h11"])
def test_compiled_lfts_equal_the_numpy_walk(build):
    sn = discover(build())
    lids = assign_lids(sn)
    dist = switch_distances(sn)
    for name, least, cand in _engines(sn, lids, dist):
        fast = ucast.build_lfts(sn, lids, least, cand)
        ref = ucast._build_lfts_lmc(sn, lids, least, cand)
        assert np.array_equal(fast, ref), name
        assert (fast[:, lids.ca_lid] != NO_PATH).all(), name


def test_compiled_resweep_keeps_old_entries_like_the_numpy_walk():
    sn = discover(k_ary_fat_tree(4))
    lids = assign_lids(sn)
    least, cand = ucast.minhop_candidates(sn, switch_distances(sn))
    old = ucast.build_lfts(sn, lids, least, cand)
    # an earlier sweep that spread differently: every uplink choice rotated by one port
    old = np.where(old > 2, np.where(old == 4, 3, old + 1), old).astype(np.uint8)
    old[:, -1:] = NO_PATH
    fast = ucast.build_lfts(sn, lids, least, cand, old_lft=old)
    assert np.array_equal(fast, ucast._build_lfts_lmc(sn, lids, least, cand, old_lft=old))
    moved = int((fast != ucast.build_lfts(sn, lids, least, cand)).sum())
    assert moved > 0                         # the old entries were kept, not recomputed


def test_progress_reaches_every_destination():
    seen: list[tuple[int, int]] = []
    r = route(k_ary_fat_tree(4), "minhop", progress=lambda done, total: seen.append((done, total)))
    n = r.subnet.num_switches + len(r.subnet.ca_ports)
    assert seen and seen[-1] == (n, n) == (36, 36)


def test_least_loaded_run_in_passes_picks_what_one_at_a_time_picks():
    """minhop's run of destinations through one switch, given out in passes over the candidates
    (O(candidates + destinations) a pass), is OpenSM's one-at-a-time rule: each destination to
    the first candidate with the fewest routes, a counted one adding a route there."""
    rng = np.random.default_rng(7)
    for trial in range(300):
        nc = int(rng.integers(1, 9))
        P1 = 12
        cand = np.sort(rng.choice(np.arange(1, P1), nc, replace=False)).astype(np.int64)
        counts = np.zeros((2, P1), np.int64)
        counts[1, cand] = rng.integers(0, 4, nc)
        m = int(rng.integers(1, 30))
        counted = rng.random(m) < (0.5 if trial % 3 else 1.0)
        want_counts = counts.copy()
        want = []
        for d in range(m):                         # the reference: _least_loaded, one at a time
            p = int(cand[np.argmin(want_counts[1, cand])])   # argmin: the first of the fewest
            want.append(p)
            if counted[d]:
                want_counts[1, p] += 1
        cols = np.full((m, 2), NO_PATH, np.uint8)
        cc = np.zeros(P1, np.int64)
        cc[:nc] = counts[1, cand]
        kernels._least_loaded_run(cand, cc, nc, 0, m, counted, counts, cols, 1)
        assert cols[:, 1].tolist() == want and np.array_equal(counts, want_counts), trial
        assert np.array_equal(cc[:nc], want_counts[1, cand])
