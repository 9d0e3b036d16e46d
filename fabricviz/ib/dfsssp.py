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
  follows that heap exactly (:class:`_Dijkstra`);
* the LFT entry of switch v for the LID is the port of v on the link it was reached by; the
  weight update adds ``num_hca`` of every reached switch to each link between it and the
  destination.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from .lids import Lids
from .subnet import NO_PATH, Subnet

INF = 0x7FFFFFFF          # dfsssp's "infinity" (a distance at or above it is unreachable)
HEAP_D = 4                # dijkstra's heap is 4-ary


@dataclass
class Graph:
    """dfsssp's adjacency list: vertex 0 is the CA source of a run, 1..S the switches."""

    n: int                         # S + 1
    adj: list[list[int]]           # vertex -> link ids in port order
    to: list[int]                  # link -> vertex it leads to
    frm: list[int]                 # link -> vertex it starts at
    to_port: list[int]             # link -> port on the far vertex (its LFT port toward the source)
    weight: list[int]
    num_hca: list[int]             # vertex -> LIDs of the switch and its CAs
    ca_link: int                   # id of vertex 0's one link (rewired per CA source)


def build_graph(sn: Subnet, lids: Lids) -> Graph:
    """dfsssp_build_graph: vertices, links and their first weights (P²)."""
    S = sn.num_switches
    step = 1 << lids.lmc
    total = S + len(sn.ca_ports) * step
    w0 = total * total
    adj: list[list[int]] = [[] for _ in range(S + 1)]
    to: list[int] = []
    frm: list[int] = []
    to_port: list[int] = []
    num_hca = [0] * (S + 1)
    nbr_sw = sn.nbr_sw.tolist()
    nbr_dev = sn.nbr_dev.tolist()
    nbr_port = sn.nbr_port.tolist()
    for s in range(S):
        v = s + 1
        num_hca[v] = 1
        own = int(sn.switches[s])
        for p in range(1, int(sn.sw_nports[s]) + 1):
            d = nbr_dev[s][p]
            if d < 0 or d == own:
                continue
            t = nbr_sw[s][p]
            if t < 0:
                num_hca[v] += step
                continue
            adj[v].append(len(to))
            to.append(t + 1)
            frm.append(v)
            to_port.append(nbr_port[s][p])
    weight = [w0] * len(to)
    ca_link = len(to)
    to.append(0)
    frm.append(0)
    to_port.append(0)
    weight.append(1)
    adj[0].append(ca_link)
    return Graph(S + 1, adj, to, frm, to_port, weight, num_hca, ca_link)


class _Dijkstra:
    """One run of dfsssp's dijkstra() on complib's d-ary heap, tie for tie."""

    def __init__(self, g: Graph):
        self.g = g

    def run(self, src: int) -> tuple[list[int], list[int]]:
        """(used link per vertex (-1: none), vertices in extraction order) from vertex ``src``
        (0: the CA source, wired by the caller to its switch)."""
        g = self.g
        n = g.n
        dist = [INF] * n
        used = [-1] * n
        done = [False] * n
        # heap: vertices 1..n-1 inserted with INF (no moves), then vertex 0 for a CA source
        key = [INF] * (n - 1)
        ctx = list(range(1, n))
        pos = [0] * n
        for i in range(n - 1):
            pos[i + 1] = i
        if src == 0:
            key.append(INF)
            ctx.append(0)
            pos[0] = n - 1
        size = len(key)
        dist[src] = 0
        done[src] = True
        self._up(key, ctx, pos, pos[src], 0)
        order: list[int] = []
        adj, to, weight = g.adj, g.to, g.weight
        while size:
            # cl_heap_extract_root: the last element to the root, sifted down; among equal
            # children the last one wins (<=), a parent moves only for a strictly smaller key
            cur = ctx[0]
            size -= 1
            if size:
                tk = key[size]
                tc = ctx[size]
                parent = 0
                first = 1
                while first < size:
                    best = first
                    kb = key[first]
                    c = first + 1
                    if c < size:
                        if key[c] <= kb:
                            best, kb = c, key[c]
                        c += 1
                        if c < size:
                            if key[c] <= kb:
                                best, kb = c, key[c]
                            c += 1
                            if c < size and key[c] <= kb:
                                best, kb = c, key[c]
                    if tk > kb:
                        key[parent] = kb
                        mc = ctx[best]
                        ctx[parent] = mc
                        pos[mc] = parent
                        parent = best
                        first = 4 * best + 1
                    else:
                        break
                key[parent] = tk
                ctx[parent] = tc
                pos[tc] = parent
            key.pop()
            ctx.pop()
            done[cur] = True
            order.append(cur)
            dc = dist[cur]
            for link in adj[cur]:
                t = to[link]
                if done[t]:
                    continue
                nd = dc + weight[link]
                if nd < dist[t]:
                    used[t] = link
                    dist[t] = nd
                    # cl_heap_modify_key to a smaller key: sift up while strictly smaller
                    child = pos[t]
                    while child:
                        par = (child - 1) >> 2
                        kp = key[par]
                        if nd < kp:
                            key[child] = kp
                            mc = ctx[par]
                            ctx[child] = mc
                            pos[mc] = child
                            child = par
                        else:
                            break
                    key[child] = nd
                    ctx[child] = t
                    pos[t] = child
        return used, order

    def route(self, src: int) -> list[int]:
        """One destination: :meth:`run`, then update_weights — every reached switch adds its
        ``num_hca`` to each link between it and the destination. The used link per vertex."""
        g = self.g
        used, ext = self.run(src)
        weight, frm, num_hca = g.weight, g.frm, g.num_hca
        sub = [0] * g.n
        for v in reversed(ext):          # children come out of the heap after their parent
            link = used[v]
            if link >= 0:
                sub[v] += num_hca[v]
                weight[link] += sub[v]
                sub[frm[link]] += sub[v]
        return used

    def set_ca_source(self, switch: int, port: int) -> None:
        """Wire vertex 0 (the CA source) to switch index ``switch``'s ``port``, weight 1."""
        g = self.g
        g.to[g.ca_link] = switch + 1
        g.to_port[g.ca_link] = port
        g.weight[g.ca_link] = 1

    @staticmethod
    def _up(key: list[int], ctx: list[int], pos: list[int], index: int, new: int) -> None:
        """cl_heap_modify_key with a smaller key: sift up (strict <)."""
        key[index] = new
        if index == 0:
            return
        tc = ctx[index]
        child = index
        moved = False
        while True:
            parent = (child - 1) // HEAP_D
            if new < key[parent]:
                key[child], ctx[child] = key[parent], ctx[parent]
                pos[ctx[child]] = child
                child = parent
                moved = True
                if parent > 0:
                    continue
            break
        if moved:
            key[child], ctx[child] = new, tc
            pos[tc] = child


def port_order(sn: Subnet) -> list[tuple[str, int]]:
    """dfsssp's destination order: ("ca", j) CA ports by switch (most end ports first, stable),
    then ("sw", s) every switch's port 0 in that same switch order."""
    S = sn.num_switches
    ca_at: dict[tuple[int, int], int] = {}
    for k, (s, q) in enumerate(zip(sn.ca_sw.tolist(), sn.ca_sw_port.tolist())):
        if s >= 0:
            ca_at[(s, q)] = k
    own = sn.switches[:, None]
    is_ca = (sn.nbr_dev >= 0) & (sn.nbr_sw < 0) & (sn.nbr_dev != own)
    is_ca[:, 0] = False
    n_ca = is_ca.sum(axis=1).tolist()
    by_load = sorted(range(S), key=lambda s: -n_ca[s])
    order: list[tuple[str, int]] = []
    seen: set[int] = set()
    for s in by_load:
        for p in range(1, int(sn.sw_nports[s]) + 1):
            j = ca_at.get((s, p))
            if j is not None and j not in seen:
                seen.add(j)
                order.append(("ca", j))
    order += [("sw", s) for s in by_load]
    return order


def port_lids(sn: Subnet, lids: Lids, kind: str, idx: int) -> range:
    """The LIDs of one destination of :func:`port_order`."""
    if kind == "sw":
        lid = int(lids.sw_lid[idx])
        return range(lid, lid + 1)
    base = int(lids.ca_lid[idx])
    return range(base, base + (1 << lids.lmc)) if base else range(0)


def sssp_lfts(sn: Subnet, lids: Lids, progress: Callable[[int, int], None] | None = None
              ) -> tuple[np.ndarray, list[tuple[str, int]]]:
    """dfsssp_do_dijkstra_routing without the deadlock removal: (LFTs, destination order)."""
    S = sn.num_switches
    g = build_graph(sn, lids)
    lft = np.full((S, lids.max_lid + 1), NO_PATH, np.uint8)
    for s in range(S):
        lid = int(lids.sw_lid[s])
        if lid:
            lft[s, lid] = 0
    order = port_order(sn)
    dij = _Dijkstra(g)
    to_port = g.to_port
    total = len(order)
    cols: dict[int, list[int]] = {}
    for done_n, (kind, idx) in enumerate(order):
        if progress is not None and done_n % 64 == 0:
            progress(done_n, total)
        if kind == "ca":
            src = 0
            dij.set_ca_source(int(sn.ca_sw[idx]), int(sn.ca_sw_port[idx]))
        else:
            src = idx + 1
        for lid in port_lids(sn, lids, kind, idx):
            if lid == 0:
                continue
            used = dij.route(src)
            col = [NO_PATH] * S
            for v in range(1, S + 1):
                if used[v] >= 0:
                    col[v - 1] = to_port[used[v]]
            if kind == "sw":
                col[idx] = 0
            cols[lid] = col
    if cols:
        keys = np.fromiter(cols, np.int64, len(cols))
        lft[:, keys] = np.array(list(cols.values()), np.uint8).T
    return lft, order


def route_sssp(sn: Subnet, lids: Lids, dist: np.ndarray,
               progress: Callable[[int, int], None] | None = None) -> tuple[np.ndarray, dict]:
    """OpenSM's ``sssp``: the same routes as dfsssp, every path on VL 0."""
    lft, _ = sssp_lfts(sn, lids, progress)
    log = ["SSSP routing specified -> skipping deadlock removal thru dfsssp_remove_deadlocks(...)"]
    return lft, {"vls_used": 1, "log": log}


def route_dfsssp(sn: Subnet, lids: Lids, dist: np.ndarray,
                 progress: Callable[[int, int], None] | None = None, *,
                 vls_avail: int | None = None) -> tuple[np.ndarray, dict]:
    """OpenSM's ``dfsssp``: SSSP routes, then VLs for deadlock freedom (:mod:`.dfsssp_vl`).

    ``vls_avail``: VLs to use instead of what the switch ports' operational VLs allow.
    Raises :class:`~.routing.EngineRefused` with OpenSM's ERR AD25 line when more are needed.
    """
    from .dfsssp_vl import assign_vls, subnet_vls
    lft, order = sssp_lfts(sn, lids, progress)
    avail = subnet_vls(sn) if vls_avail is None else vls_avail
    res = assign_vls(sn, lids, lft, order, avail)
    return lft, {"path_sl": res.path_sl, "vls_used": res.vls_needed, "vls_avail": avail,
                 "paths_per_vl": res.paths_before, "paths_after": res.paths_after,
                 "vl_split": res.split, "log": res.log}
