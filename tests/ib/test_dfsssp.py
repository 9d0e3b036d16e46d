"""dfsssp's parts on their own: the heap's tie-breaks, the weight update, the CDG cut, the
VL balancing and the refusal, with numbers taken from OpenSM 3.3.23's own log and source."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.ib import dfsssp_kernels as K
from fabricviz.ib import qos_meta
from fabricviz.ib.dfsssp import build_graph, destinations, port_order, route_sssp, run_dijkstra
from fabricviz.ib.dfsssp_vl import subnet_vls
from fabricviz.ib.qos import QosOptions
from fabricviz.ib.routing import route, subnet_and_lids
from fabricviz.ib.subnet import switch_distances
from tests.ib import topologies as T


def _fabric(net: T.Net, max_op_vls: int | None = None):
    text = net.text()
    f = loads(text, "topology.net", dialect=sniff(text))
    if max_op_vls is not None:
        f.meta[qos_meta.META_KEY] = qos_meta.to_meta(QosOptions(max_op_vls=max_op_vls))
    return f


def test_first_tree_follows_the_4ary_heap():
    """ring4, first destination (the host on sw2): OpenSM's DEBUG graph dump after it shows
    the links sw2->sw3 68, sw2->sw1 66, sw3->sw4 66, every other link 64 = P² (P = 8 LIDs).
    sw4 is two hops from sw2 either way; complib's heap hands out sw3 before sw1 (the last
    of equal children wins), so sw4 hangs off sw3 — a lowest-index-first queue picks sw1."""
    sn, lids = subnet_and_lids(_fabric(T.ring(4)))
    g = build_graph(sn, lids)
    names = [sn.switch_name(s) for s in range(sn.num_switches)]
    assert names == ["sw2", "sw1", "sw4", "sw3"]              # OpenSM's adj_list[1..4]
    assert g.num_hca[1:].tolist() == [2, 2, 2, 2] and set(g.weight[:-1].tolist()) == {64}
    d = destinations(sn, lids, port_order(sn))
    assert d.src[0] == 0 and d.sw[0] == 0                     # "Processing Hca" on sw2 first
    lft = np.full((4, lids.max_lid + 1), 255, np.uint8)
    run_dijkstra(g, d, lft, 0, 1)
    weights = [g.weight[g.adj_link[g.adj_ptr[v]:g.adj_ptr[v + 1]]].tolist() for v in range(1, 5)]
    assert weights == [[68, 66], [64, 64], [64, 64], [66, 64]]
    lid = int(d.lid[0])
    toward = [int(sn.nbr_sw[s, lft[s, lid]]) for s in range(4)]
    assert [names[t] if t >= 0 else "host" for t in toward] == ["host", "sw2", "sw3", "sw2"]


class _Cdg:
    """One VL's CDG in the kernels' arrays, channels 0..9, for driving them by hand."""

    def __init__(self) -> None:
        self.N = K.new_nodes(1, 10)
        self.root = np.full(1, -1, np.int64)
        self.E = np.empty((64, 6), np.int64)
        self.G = np.empty((64, 3), np.int64)
        self.tops = np.zeros(2, np.int64)
        self.P: list[int] = []
        self.scan = np.zeros(1, np.int64)

    def add_path(self, chans: list[int], pairs: list[int]) -> None:
        c = np.array(chans, np.int64)
        K.add_path(self.N, self.root, self.E, self.G, self.tops, 0, 10, c, 0, len(c), len(self.P), len(pairs))
        self.P += pairs

    def remove_path(self, chans: list[int]) -> None:
        c = np.array(chans, np.int64)
        K.remove_path(self.N, self.E, 0, c, 0, len(c))

    def find_cycle(self, start: int) -> int:
        order, self.place = K.pre_order(self.N, int(self.root[0]))
        return K.find_cycle(self.N, self.E, start, order, self.scan)

    def cut(self, cycle: int) -> int:
        return K.cut_weakest(self.N, self.E, cycle, self.place, self.scan)

    def edges(self, node: int) -> list[int]:
        out, e = [], self.N[node, K.N_HEAD]
        while e >= 0:
            out.append(int(e))
            e = self.E[e, K.E_NEXT]
        return out

    def pairs(self, e: int) -> list[int]:
        out, g = [], self.E[e, K.E_SH]
        while g >= 0:
            out += self.P[self.G[g, K.G_START]:self.G[g, K.G_START] + self.G[g, K.G_LEN]]
            g = self.G[g, K.G_NEXT]
        return out


def test_cdg_cuts_the_edge_with_fewest_pairs():
    """A 3-cycle of channels 1->2->3->1 carrying 3, 1 and 2 paths: the 2->3 edge goes."""
    g = _Cdg()
    g.add_path([1, 2], [10, 11, 12])
    g.add_path([2, 3], [20])
    g.add_path([3, 1], [30, 31])
    cycle = g.find_cycle(int(g.root[0]))
    assert cycle == 1
    weak = g.cut(cycle)
    assert g.E[weak, K.E_TO] == 3 and g.pairs(weak) == [20]
    assert g.edges(2) == []
    assert g.find_cycle(1) == -1


def test_removed_paths_count_against_an_edge():
    """remove_path marks pairs removed, so a heavier edge whose paths moved away is weaker."""
    g = _Cdg()
    g.add_path([1, 2, 3], [1, 2, 3])
    g.add_path([3, 1], [4, 5])
    g.remove_path([1, 2, 3])
    g.remove_path([1, 2, 3])
    (e12,), (e23,) = g.edges(1), g.edges(2)
    assert (len(g.pairs(e12)), g.E[e12, K.E_REM], len(g.pairs(e23)), g.E[e23, K.E_REM]) == (3, 2, 3, 2)
    weak = g.cut(g.find_cycle(int(g.root[0])))
    assert weak == e12                       # 1 left; the first of the equal edges met


@pytest.mark.parametrize("mop,vls", [(1, 1), (2, 2), (3, 4), (4, 8), (5, 8)])
def test_vls_available_from_max_op_vls(mop, vls):
    """ibsim / fabricviz ports have VLCap VL0-7: max_op_vls 5 (VL0-14) still gives 8."""
    sn, _ = subnet_and_lids(_fabric(T.ring(4), mop))
    assert subnet_vls(sn) == vls


def test_balancing_spreads_the_busiest_lane():
    """ring8: 224 paths on VL0, 16 moved to VL1; 8 VLs: VL0 is split 7 ways (SLs 0-6) and the
    VL1 paths are renumbered to SL 7 — OpenSM's "Approx. #paths per VL" 32 ×7, then 16."""
    r = route(_fabric(T.ring(8)), "dfsssp")
    assert r.routed_by == "dfsssp" and r.info.vls_used == 2
    assert r.info.paths_per_vl == [224, 16, 0, 0, 0, 0, 0, 0]
    assert r.info.vl_split == [7, 0, 0, 0, 0, 0, 0, 1]
    assert r.info.paths_after == [32] * 7 + [16]
    psl = r.info.path_sl
    assert psl.counts() == {0: 224, 7: 16}
    h1 = int(r.lids.ca_lid[0])
    others = [int(x) for x in r.lids.ca_lid[1:]]
    assert {psl.sl(h1, d) for d in others} <= {0, 7}
    assert psl.sl_choices(h1, h1) == range(0, 7)               # no path: default SL 0's range
    on7 = [(s, d) for s in r.lids.ca_lid.tolist() for d in r.lids.ca_lid.tolist() if psl.sl(s, d) == 7]
    assert on7 and all(psl.sl_choices(s, d) == range(7, 8) for s, d in on7)


def test_too_few_vls_falls_back_to_minhop_like_opensm():
    """torus 4×4 needs 3 VLs; max_op_vls 2 leaves 2: ERR AD25, and minhop routes instead."""
    f = _fabric(T.torus_2d(4, 4, 1), max_op_vls=2)
    r = route(f, "dfsssp")
    assert r.routed_by == "minhop"
    assert r.fallback_reason == ("dfsssp: ERR AD25: Not enough VLs available (avail=2, needed=3); "
                                 "Stopping dfsssp routing!")
    assert r.warnings[0].endswith("; routed with minhop instead")
    assert r.info.path_sl is None


def test_sssp_is_dfsssp_without_lanes():
    f = _fabric(T.torus_2d(4, 4, 1))
    sn, lids = subnet_and_lids(f)
    lft, info = route_sssp(sn, lids, switch_distances(sn))
    r = route(f, "dfsssp")
    assert np.array_equal(lft, r.lft) and info.vls_used == 1
    assert r.info.vls_used == 3


def test_every_lid_is_routed_on_every_switch():
    r = route(_fabric(T.dragonfly(4, 4, 2)), "dfsssp")
    sw = r.lids.sw_lid.tolist()
    ca = r.lids.ca_lid.tolist()
    assert r.lft[:, sw + ca].min() >= 0 and (r.lft[:, sw + ca] != 255).all()
    assert [int(r.lft[s, lid]) for s, lid in enumerate(sw)] == [0] * len(sw)
