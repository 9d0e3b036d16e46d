"""Up*/down* routing (OpenSM ``updn``), as osm_ucast_updn.c does it.

* Roots: given, or found from the min-hop tables: a switch is a root when one
  single hop distance holds more than 90 % of the CAs (and only that one bar
  is above 5 %) — i.e. it sees every host at the same distance, a spine.
  No roots: the engine refuses and OpenSM falls back to minhop.
* Ranks: BFS depth from the roots (OpenSM's ``dnup`` variant, ranking from the
  switches with CAs, is not offered).
* Hop tables: for every destination switch a BFS outwards that never takes a
  step DOWN followed by a step UP, tracking each switch's direction state the
  way OpenSM does (state set when a switch is queued; a switch is queued again
  after it was processed when one more of its ports gets a hop count).
* LFTs: the common minhop stage 2 on these hop tables.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

import numpy as np

from ..model import FabricError
from .engine_types import EngineRefused, RoutingInfo
from .lids import Lids
from .subnet import NO_PATH, Subnet
from .ucast import HopCandidates, build_lfts, minhop_candidates, switch_links

UP, DOWN = 0, 1


def find_roots(sn: Subnet, lids: Lids, dist: np.ndarray) -> np.ndarray:
    """Switch indices OpenSM's updn would take as roots (histogram rule)."""
    S = sn.num_switches
    cas = np.zeros(S, np.int64)
    on_sw = sn.ca_sw[(sn.ca_sw >= 0) & (lids.ca_lid > 0)]
    np.add.at(cas, on_sw, 1)
    n = int(cas.sum())
    thd1, thd2 = n * 0.9, n * 0.05
    # per switch, a histogram of the CAs by hop distance (< 64), all switches in one bincount
    on = np.flatnonzero(cas > 0)
    d = dist[:, on].astype(np.int64)
    ok = d < 64
    idx = (np.arange(S)[:, None] * 64 + d)[ok]
    w = np.broadcast_to(cas[on], d.shape)[ok]
    hist = np.bincount(idx, weights=w, minlength=S * 64).reshape(S, 64)
    return np.flatnonzero(((hist > thd1).sum(axis=1) == 1) & ((hist > thd2).sum(axis=1) == 1)).astype(np.int64)


def rank_from_roots(sn: Subnet, roots: np.ndarray) -> np.ndarray:
    """BFS depth from the roots over switch links (unreached: a huge rank)."""
    rank = np.full(sn.num_switches, 0xFFFFFFFF, np.int64)
    rank[roots] = 0
    return _bfs_rank(sn, rank, sorted(roots.tolist()))


def _bfs_rank(sn: Subnet, rank: np.ndarray, start: list[int]) -> np.ndarray:
    """Lower ranks outward from ``start`` one hop at a time (OpenSM's updn_subn_rank)."""
    q = deque(start)
    adj = _adjacency(sn)
    while q:
        u = q.popleft()
        for _pn, rem, _rp in adj[u]:
            if rank[rem] > rank[u] + 1:
                rank[rem] = rank[u] + 1
                q.append(rem)
    return rank


def _adjacency(sn: Subnet) -> list[list[tuple[int, int, int]]]:
    """Per switch: (port, remote switch, remote port) over switch links, port order."""
    adj: list[list[tuple[int, int, int]]] = []
    for s in range(sn.num_switches):
        row = []
        for p in range(1, int(sn.sw_nports[s]) + 1):
            r = int(sn.nbr_sw[s, p])
            if r >= 0 and r != s:
                row.append((p, r, int(sn.nbr_port[s, p])))
        adj.append(row)
    return adj


def _get_dir(cur_rank: int, rem_rank: int, cur_id: int, rem_id: int) -> int:
    if not cur_rank and not rem_rank:
        return UP
    if cur_rank < rem_rank:
        return DOWN
    if cur_rank > rem_rank:
        return UP
    return UP if cur_id > rem_id else DOWN


class UpDownHops:
    """Per-destination up/down hop tables, computed by OpenSM's BFS on demand."""

    def __init__(self, sn: Subnet, rank: np.ndarray) -> None:
        self.sn = sn
        self.rank = rank.tolist()
        self.ids = [int(g) for g in sn.sw_guid.tolist()]
        self.adj = _adjacency(sn)
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def tables(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(hops [S, P+1] uint8, least [S]) toward destination switch t."""
        hit = self._cache.get(t)
        if hit is not None:
            return hit
        S = self.sn.num_switches
        P1 = self.sn.nbr_dev.shape[1]
        hops = [[NO_PATH] * P1 for _ in range(S)]
        least = [NO_PATH] * S
        state = [UP] * S
        queued = [False] * S
        hops[t][0] = 0
        least[t] = 0
        rank, ids, adj = self.rank, self.ids, self.adj
        q = deque([t])
        queued[t] = True
        while q:
            u = q.popleft()
            queued[u] = False
            cur = state[u]
            lu = least[u]
            ru, iu = rank[u], ids[u]
            for _pn, rem, rp in adj[u]:
                nd = _get_dir(ru, rank[rem], iu, ids[rem])
                if cur == DOWN and nd == UP:
                    continue
                h = lu + 1
                row = hops[rem]
                if h < row[rp]:
                    row[rp] = h
                    if h < least[rem]:
                        least[rem] = h
                    if not queued[rem]:
                        state[rem] = nd
                        queued[rem] = True
                        q.append(rem)
        out = (np.array(hops, np.uint8), np.array(least, np.uint8))
        self._cache[t] = out
        return out

    def least(self, t: int) -> np.ndarray:
        return self.tables(t)[1]

    def cand(self, t: int) -> np.ndarray:
        hops, least = self.tables(t)
        c = (hops == least[:, None]) & (least[:, None] != NO_PATH)
        c[:, 0] = False
        c &= self.sn.nbr_sw >= 0
        return c


class LayeredUpDownHops:
    """The same hop tables for fabrics whose switch links all join different ranks.

    There, the BFS state of a switch toward destination t is UP exactly when it
    can reach t by going down only, so the tables follow from two all-pairs
    shortest-path runs (scipy, all destinations at once):
    ``Dn[x, t]`` over down-steps only and ``U[x, t]`` over up*-then-down* paths.
    A port of s toward neighbour y gets ``U[y, t] + 1`` when s→y is a step up,
    or when it is a step down and ``Dn[y, t]`` is finite. ``UpDownHops`` (the
    BFS) stays the reference; tests check both agree.
    """

    def __init__(self, sn: Subnet, rank: np.ndarray) -> None:
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import shortest_path
        self.sn = sn
        S = sn.num_switches
        rows, cols = np.nonzero(sn.nbr_sw >= 0)
        keep = cols > 0
        rows, cols = rows[keep], cols[keep]
        y = sn.nbr_sw[rows, cols]
        keep = y != rows
        rows, cols, y = rows[keep], cols[keep], y[keep]
        down = rank[y] > rank[rows]           # forward step s→y goes down (away from the roots)
        up = rank[y] < rank[rows]
        ones = lambda n: np.ones(n)  # noqa: E731
        gd = coo_matrix((ones(int(down.sum())), (rows[down], y[down])), shape=(S, S)).tocsr()
        dn = shortest_path(gd, directed=True, unweighted=True)
        # two layers: A may still go up, B only down
        src = np.concatenate([rows[up], rows[down], S + rows[down]])
        dst = np.concatenate([y[up], S + y[down], S + y[down]])
        g2 = coo_matrix((ones(len(src)), (src, dst)), shape=(2 * S, 2 * S)).tocsr()
        d2 = shortest_path(g2, directed=True, unweighted=True, indices=np.arange(S))
        u = np.minimum(d2[:, :S], d2[:, S:])
        np.fill_diagonal(u, 0)
        self.dn_ok = np.isfinite(dn)
        np.fill_diagonal(self.dn_ok, True)
        self.u = np.where(np.isfinite(u), np.minimum(u, NO_PATH), NO_PATH).astype(np.int64)
        nbr = sn.nbr_sw
        self.has = switch_links(sn)
        self.safe = np.where(self.has, nbr, 0)
        self.step_down = self.has & (rank[self.safe] > rank[:, None])
        # the compiled LFT builder reads hops *to* each target row by row
        self.cand = HopCandidates(self.u.T, self.has, nbr, self.step_down, self.dn_ok.T)

    def least(self, t: int) -> np.ndarray:
        return self.u[:, t].astype(np.uint8)

    def tables(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        uy = self.u[self.safe, t]
        legal = self.has & (uy != NO_PATH) & (~self.step_down | self.dn_ok[self.safe, t])
        hops = np.where(legal, np.minimum(uy + 1, NO_PATH), NO_PATH).astype(np.uint8)
        hops[t, 0] = 0
        return hops, self.least(t)


def is_layered(sn: Subnet, rank: np.ndarray) -> bool:
    """True when no switch link joins two switches of the same rank."""
    rows, cols = np.nonzero(sn.nbr_sw >= 0)
    keep = cols > 0
    y = sn.nbr_sw[rows[keep], cols[keep]]
    r = rows[keep]
    return bool((rank[y] != rank[r]).all()) and bool((rank < 0xFFFFFFFF).all())


class _AllRoots:
    """Every switch is a root: root-to-root steps are always UP, so nothing is
    illegal and the tables are the min-hop ones (big k-ary trees end up here:
    every switch sees more than 95 % of the CAs at one distance)."""

    def __init__(self, sn: Subnet, dist: np.ndarray) -> None:
        self.least, self.cand = minhop_candidates(sn, dist)


def updown_hops(sn: Subnet, rank: np.ndarray, dist: np.ndarray):
    """The cheapest exact way to get OpenSM's up/down hop tables for this fabric."""
    if (rank == 0).all():
        return _AllRoots(sn, dist)
    return LayeredUpDownHops(sn, rank) if is_layered(sn, rank) else UpDownHops(sn, rank)


def route_updn(sn: Subnet, lids: Lids, dist: np.ndarray, roots: list[str] | None,
               progress: Callable[[int, int], None] | None,
               old: np.ndarray | None = None) -> tuple[np.ndarray, RoutingInfo]:
    """updn LFTs and info (``roots``, ``rank``); roots by name (a CA: its switch), else found
    (:func:`find_roots`). EngineRefused: no roots."""
    if roots:
        idx = []
        for r in roots:
            d = sn.fabric.device_id(r)
            if d not in sn.sw_index:
                # a CA GUID means "its switch", as in OpenSM's root file
                p = sn.fabric.device(d).ports
                peer = p[0].peer if p else None
                if peer is None or peer.device.id not in sn.sw_index:
                    raise FabricError(f"root switch {r}: not a switch of this subnet")
                d = peer.device.id
            idx.append(sn.sw_index[d])
        root_idx = np.array(sorted(set(idx)), np.int64)
    else:
        root_idx = find_roots(sn, lids, dist)
    if len(root_idx) == 0:
        raise EngineRefused("no root switches found (no switch sees more than 90 % of the CAs "
                            "at one hop distance); give roots explicitly")
    rank = rank_from_roots(sn, root_idx)
    hops = updown_hops(sn, rank, dist)
    lft = build_lfts(sn, lids, hops.least, hops.cand, progress, old)
    names = [sn.switch_name(int(s)) for s in root_idx]
    return lft, RoutingInfo(roots=names, rank=rank)
