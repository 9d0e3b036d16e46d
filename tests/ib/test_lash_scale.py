"""LASH at cluster scale: the breadth-first trees compiled, and the layer kernel's tables sized by
channels (OpenSM's cdg_vertex_matrix[lane][a][b] exists for neighbours a, b only), not by
switch pairs. The radix-56 timing is in bench/scale.py."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.ib import lash as L
from fabricviz.ib import lash_kernels as LK
from fabricviz.ib.routing import subnet_and_lids
from tests.ib import topologies as T


def _subnet(net: T.Net):
    text = net.text()
    return subnet_and_lids(loads(text, "topology.net", dialect=sniff(text)))


@pytest.mark.parametrize("net, switches", [(T.torus_2d(8, 8), 64), (T.k_ary_fat_tree(8), 80),
                                           (T.random_fabric(60, 40), 60)])
def test_compiled_trees_equal_the_python_trees(net, switches):
    """From SMALL_TREES switches up the trees run compiled: every first hop equals the plain
    walk's (every switch reaches every other: only the S diagonal entries are -1)."""
    sn, _ = _subnet(net)
    S = sn.num_switches
    assert S == switches >= L.SMALL_TREES
    links = L.switch_links(sn)
    first = [[-1] * S for _ in range(S)]
    for s in range(S):
        for k in range(len(links[s]) - 1, -1, -1):
            first[s][links[s][k][0]] = k
    got = L.tree_routes(S, links)
    assert np.array_equal(got, L._tree_routes_small(S, links, first))
    assert int((got < 0).sum()) == S


def test_layer_tables_count_channels(monkeypatch: pytest.MonkeyPatch):
    """k=8 fat tree: 80 switches, 256 switch cables, so 512 channels; the kernel's vertex table
    is layers × 512 entries (8 × 80 × 80 = 51,200 before) and every path's hops are channel
    numbers below 512 (paths: 80 × 79 ordered pairs)."""
    sn, lids = _subnet(T.k_ary_fat_tree(8))
    seen = {}
    real = LK.run_layers

    def spy(S, avail, ptr, pc, C, *rest):
        seen.update(S=S, avail=avail, C=C, pairs=int((np.diff(ptr) > 0).sum()), top=int(pc.max()))
        return real(S, avail, ptr, pc, C, *rest)
    monkeypatch.setattr(LK, "run_layers", spy)
    _, info = L.route_lash(sn, lids)
    assert seen == {"S": 80, "avail": 8, "C": 512, "pairs": 80 * 79, "top": 511}
    assert info.vls_used >= 1
