"""dfsssp and sssp routing as OpenSM 3.3.23 does them (``osm_ucast_dfsssp.c``).

SSSP routes every destination LID with one Dijkstra run over the switch graph, from the
destination outwards, and after each run adds to every link the end ports whose traffic the
new tree sends over it: later destinations avoid loaded links, so paths spread. dfsssp then
makes the routes deadlock-free by giving paths virtual lanes (:mod:`.dfsssp_vl`).

What decides OpenSM's answer, reproduced here:

* the graph: switches in switch-map order (vertex 1..S, vertex 0 = a CA source), their
  switch-to-switch links in port order (parallel cables stay separate), every link weighing
  P² at first (P = all end ports' LIDs, switch port 0s included) so the first trees are
  shortest paths; ``num_hca`` of a switch = its own LID plus its CAs' LIDs;
* the destinations: CA ports grouped by switch, switches with the most end ports first (a
  stable sort), then every switch's port 0 in that same switch order; each LID of a port
  (LMC) gets its own run;
* Dijkstra on complib's 4-ary heap (``cl_heap``): which of two equally distant switches
  comes out first, and so which link a switch is reached by (strict <: the first offer wins),
  follows that heap exactly (:func:`.dfsssp_kernels.sssp_routes`);
* the LFT entry of switch v for the LID is the port of v on the link it was reached by; the
  weight update adds ``num_hca`` of every reached switch to each link between it and the
  destination;
* every switch starts at ``INF`` = 0x7FFFFFFF and a switch is reached only at a distance below
  it, so with links at P² a path of h switch links needs h·P² < 2^31: a 3-level fat tree's
  4-link paths stop at P = 23,170 and from P = 46,341 (radix 56: 47,824) no link is taken at
  all. The LFT keeps a hole there and dfsssp's deadlock removal stops with ERR AD14 (OpenSM then
  routes with minhop): refused after the first run that leaves a CA's switch unreached.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .dfsssp_vl import AD14, assign_vls, subnet_vls
from .engine_types import EngineRefused, RoutingInfo
from .lids import Lids
from .subnet import NO_PATH, Subnet

CHUNK = 512               # destination LIDs per compiled call (progress in between)


@dataclass
class Graph:
    """dfsssp's adjacency list as arrays: vertex 0 is the CA source of a run, 1..S the switches."""

    n: int                         # S + 1
    adj_ptr: np.ndarray            # vertex v's links are adj_link[adj_ptr[v]:adj_ptr[v + 1]], port order
    adj_link: np.ndarray
    to: np.ndarray                 # link -> vertex it leads to
    frm: np.ndarray                # link -> vertex it starts at
    to_port: np.ndarray            # link -> port on the far vertex (its LFT port toward the source)
    weight: np.ndarray
    num_hca: np.ndarray            # vertex -> LIDs of the switch and its CAs
    ca_link: int                   # id of vertex 0's one link (rewired per CA source)


def build_graph(sn: Subnet, lids: Lids) -> Graph:
    """dfsssp_build_graph: vertices, links and their first weights (P²)."""
    S = sn.num_switches
    step = 1 << lids.lmc
    w0 = (S + len(sn.ca_ports) * step) ** 2
    port = np.arange(sn.nbr_dev.shape[1])
    real = ((port >= 1) & (port <= sn.sw_nports[:, None]) & (sn.nbr_dev >= 0)
            & (sn.nbr_dev != sn.switches[:, None]))
    is_link = real & (sn.nbr_sw >= 0)
    s_of, p_of = np.nonzero(is_link)                   # row-major: switch order, then port order
    m = len(s_of)
    num_hca = np.zeros(S + 1, np.int64)
    num_hca[1:] = 1 + step * (real & (sn.nbr_sw < 0)).sum(axis=1)
    adj_ptr = np.zeros(S + 2, np.int64)
    adj_ptr[1] = 1                                     # vertex 0: the CA link (last id)
    adj_ptr[2:] = 1 + np.cumsum(np.bincount(s_of, minlength=S))
    adj_link = np.concatenate(([m], np.arange(m))).astype(np.int64)
    to = np.append(sn.nbr_sw[s_of, p_of] + 1, 0).astype(np.int64)
    frm = np.append(s_of + 1, 0).astype(np.int64)
    to_port = np.append(sn.nbr_port[s_of, p_of], 0).astype(np.int64)
    weight = np.full(m + 1, w0, np.int64)
    weight[m] = 1
    return Graph(S + 1, adj_ptr, adj_link, to, frm, to_port, weight, num_hca, m)


@dataclass
class Destinations:
    """One Dijkstra run per entry (a LID), in dfsssp's order: the source vertex (0: a CA),
    whether it is its port's first LID (the CA link is rewired then), the CA's switch and
    port, the LID, and the switch whose own LID it is (-1: a CA's)."""

    src: np.ndarray
    first: np.ndarray
    sw: np.ndarray
    port: np.ndarray
    lid: np.ndarray
    self_sw: np.ndarray


def run_dijkstra(g: Graph, d: Destinations, lft: np.ndarray, i0: int, i1: int,
                 stop_at: np.ndarray | None = None) -> int:
    """Runs i0..i1-1 (:func:`.dfsssp_kernels.sssp_routes`): Dijkstra on complib's 4-ary heap
    tie for tie, update_weights into ``g.weight``, each LID's column of ``lft``. Returns -1, or
    the run that left a switch of ``stop_at`` (bool per switch) unreached, and stops there."""
    from .dfsssp_kernels import sssp_routes
    if stop_at is None:
        stop_at = np.zeros(g.n - 1, np.bool_)
    return int(sssp_routes(g.adj_ptr, g.adj_link, g.to, g.frm, g.to_port, g.weight, g.num_hca,
                           g.ca_link, d.src, d.first, d.sw, d.port, d.lid, d.self_sw, lft, i0, i1,
                           stop_at))


def port_order(sn: Subnet) -> tuple[np.ndarray, np.ndarray]:
    """dfsssp's destination order: (CA port indices, switch indices). CA ports by switch
    (most end ports first, a stable sort), each switch's in port order; then every switch's
    port 0 in that same switch order."""
    S = sn.num_switches
    is_ca = (sn.nbr_dev >= 0) & (sn.nbr_sw < 0) & (sn.nbr_dev != sn.switches[:, None])
    is_ca[:, 0] = False
    by_load = np.argsort(-is_ca.sum(axis=1), kind="stable")
    rank = np.empty(S, np.int64)
    rank[by_load] = np.arange(S)
    s, q = sn.ca_sw, sn.ca_sw_port
    ok = np.flatnonzero((s >= 0) & (q >= 1) & (q <= sn.sw_nports[np.maximum(s, 0)]))
    ca = ok[np.lexsort((q[ok], rank[s[ok]]))]
    return ca.astype(np.int64), by_load.astype(np.int64)


def destinations(sn: Subnet, lids: Lids, order: tuple[np.ndarray, np.ndarray]) -> Destinations:
    """The runs of :func:`port_order`'s destinations, every LID of a port (LMC) its own run
    (a port without a LID has none)."""
    ca, sw = order
    step = 1 << lids.lmc
    ca = ca[lids.ca_lid[ca] > 0]
    sw = sw[lids.sw_lid[sw] > 0]
    nc = len(ca) * step
    first = np.ones(nc + len(sw), np.bool_)
    first[:nc] = np.arange(nc) % step == 0
    lid = np.concatenate(((lids.ca_lid[ca][:, None] + np.arange(step)).ravel(), lids.sw_lid[sw]))
    zero = np.zeros(len(sw), np.int64)
    return Destinations(
        src=np.concatenate((np.zeros(nc, np.int64), sw + 1)), first=first,
        sw=np.concatenate((np.repeat(sn.ca_sw[ca], step), zero)),
        port=np.concatenate((np.repeat(sn.ca_sw_port[ca], step), zero)),
        lid=lid.astype(np.int64), self_sw=np.concatenate((np.full(nc, -1, np.int64), sw)))


def sssp_lfts(sn: Subnet, lids: Lids, progress: Callable[[int, int], None] | None = None,
              *, stop_on_hole: bool = False) -> tuple[np.ndarray, Destinations]:
    """dfsssp_do_dijkstra_routing without the deadlock removal: (LFTs, the destinations in
    the order they were routed).

    ``stop_on_hole`` (dfsssp): raise OpenSM's ERR AD14 as soon as a run leaves a switch with a
    CA port unreached — the deadlock removal would fail on that (CA, LID) path anyway, and on
    fabrics of 46,341 end ports or more that is the first run (see
    :func:`.dfsssp_kernels.sssp_routes`), so the verdict costs one run, not all of them."""
    S = sn.num_switches
    g = build_graph(sn, lids)
    lft = np.full((S, lids.max_lid + 1), NO_PATH, np.uint8)
    own = lids.sw_lid[lids.sw_lid > 0]
    lft[np.nonzero(lids.sw_lid > 0)[0], own] = 0
    d = destinations(sn, lids, port_order(sn))
    stop_at = np.zeros(S, np.bool_)
    if stop_on_hole:
        stop_at[d.sw[d.src == 0]] = True
    total = len(d.lid)
    for i0 in range(0, total, CHUNK):
        if progress is not None:
            progress(i0, total)
        if run_dijkstra(g, d, lft, i0, min(i0 + CHUNK, total), stop_at) >= 0:
            raise EngineRefused(AD14)
    return lft, d


def route_sssp(sn: Subnet, lids: Lids, dist: np.ndarray,
               progress: Callable[[int, int], None] | None = None) -> tuple[np.ndarray, RoutingInfo]:
    """OpenSM's ``sssp``: the same routes as dfsssp, every path on VL 0 (``dist``: unused,
    dfsssp needs no hop table)."""
    lft, _ = sssp_lfts(sn, lids, progress)
    log = ["SSSP routing specified -> skipping deadlock removal thru dfsssp_remove_deadlocks(...)"]
    return lft, RoutingInfo(vls_used=1, log=log)


def route_dfsssp(sn: Subnet, lids: Lids, dist: np.ndarray,
                 progress: Callable[[int, int], None] | None = None, *,
                 vls_avail: int | None = None) -> tuple[np.ndarray, RoutingInfo]:
    """OpenSM's ``dfsssp``: SSSP routes, then VLs for deadlock freedom (:mod:`.dfsssp_vl`).

    ``vls_avail``: VLs to use instead of what the switch ports' operational VLs allow.
    Raises :class:`~.routing.EngineRefused` with OpenSM's ERR AD25 line when more are needed.
    """
    lft, dests = sssp_lfts(sn, lids, progress, stop_on_hole=True)
    avail = subnet_vls(sn) if vls_avail is None else vls_avail
    res = assign_vls(sn, lids, lft, dests, avail)
    return lft, RoutingInfo(path_sl=res.path_sl, vls_used=res.vls_needed, vls_avail=avail,
                            paths_per_vl=res.paths_before, paths_after=res.paths_after,
                            vl_split=res.split, log=res.log)


def warm_up() -> None:
    """Load what dfsssp runs (its compiled kernels, the VL modules) before routing is timed."""
    from .dfsssp_kernels import warm_up as warm_kernels  # numba on use
    warm_kernels()
