"""Up*/down* routing (OpenSM ``updn`` and ``dnup``), as osm_ucast_updn.c does it.

* Roots: given, or found from the min-hop tables: a switch is a root when one
  single hop distance holds more than 90 % of the CAs (and only that one bar
  is above 5 %) — i.e. it sees every host at the same distance, a spine.
  No roots: the engine refuses and OpenSM falls back to minhop.
* Ranks: BFS depth from the roots (``dnup``: switches with CAs rank 1, the
  rest 1 + their lowest-ranked neighbour).
* Hop tables: for every destination switch a BFS outwards that never takes a
  step DOWN followed by a step UP, tracking each switch's direction state the
  way OpenSM does (state set when a switch is queued; a switch is queued again
  after it was processed when one more of its ports gets a hop count).
* LFTs: the common minhop stage 2 on these hop tables.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from .lids import Lids
from .subnet import NO_PATH, Subnet

UP, DOWN = 0, 1


def find_roots(sn: Subnet, lids: Lids, dist: np.ndarray) -> np.ndarray:
    """Switch indices OpenSM's updn would take as roots (histogram rule)."""
    S = sn.num_switches
    cas = np.zeros(S, np.int64)
    on_sw = sn.ca_sw[(sn.ca_sw >= 0) & (lids.ca_lid > 0)]
    np.add.at(cas, on_sw, 1)
    n = int(cas.sum())
    thd1, thd2 = n * 0.9, n * 0.05
    roots = []
    for s in range(S):
        hist = np.zeros(256, np.int64)
        d = dist[s]
        ok = (cas > 0) & (d < 64)
        np.add.at(hist, d[ok].astype(np.int64), cas[ok])
        if int((hist > thd1).sum()) == 1 and int((hist > thd2).sum()) == 1:
            roots.append(s)
    return np.array(roots, np.int64)


def rank_from_roots(sn: Subnet, roots: np.ndarray) -> np.ndarray:
    """BFS depth from the roots over switch links (unreached: a huge rank)."""
    S = sn.num_switches
    rank = np.full(S, 0xFFFFFFFF, np.int64)
    rank[roots] = 0
    q = deque(sorted(roots.tolist()))
    adj = _adjacency(sn)
    while q:
        u = q.popleft()
        for _pn, rem, _rp in adj[u]:
            if rank[rem] > rank[u] + 1:
                rank[rem] = rank[u] + 1
                q.append(rem)
    return rank


def rank_dnup(sn: Subnet) -> np.ndarray:
    """dnup ranking: switches with CAs are rank 1 (counting from the hosts)."""
    S = sn.num_switches
    rank = np.full(S, 0xFFFFFFFF, np.int64)
    has_ca = np.zeros(S, bool)
    has_ca[sn.ca_sw[sn.ca_sw >= 0]] = True
    rank[has_ca] = 1
    q = deque(np.flatnonzero(has_ca).tolist())
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
