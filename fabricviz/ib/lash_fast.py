"""LASH's layers in one step when every path fits layer 0: the union's channel dependency graph.

OpenSM's lash_core puts each switch pair (both paths) on the first layer whose channel
dependency graph (CDG) stays acyclic with the pair added. Layer 0 only ever gains
dependencies while every pair fits it (nothing is removed: no failed trial, no balancing), so
after the k-th pair it holds exactly the dependencies of the first k pairs' paths — a subgraph
of the CDG of ALL paths together. When that union CDG is acyclic, every subgraph is, every
trial succeeds, every pair lands in layer 0 and one layer is needed; balance_virtual_lanes then
stops at once (``lanes_needed == 1``: no ``rand()`` call), and OpenSM's cycle search, run on an
acyclic graph with nothing freed, finds no cycle either. So one acyclicity test of the union
gives the incremental assignment's answer exactly, without its per-pair trials. That holds on
leaf/spine (2-level) fabrics, whose switch-pair paths never turn down then up; on a 3-level fat
tree LASH also routes spine to spine and aggregation to aggregation pairs (down, then up), the
union has cycles and the incremental assignment (:mod:`.lash_kernels`) runs (radix 56: 7 layers).

The union needs no path list: the paths follow a next-hop table ``nxt[a, d]``, so the path
from s to d meets the dependency (a → b, b → c) exactly when it passes a with b = nxt[a, d],
c = nxt[b, d] — one dependency per (switch, destination), each the first of path a → d.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def union_cdg_acyclic(nxt: np.ndarray, chan: np.ndarray, base: np.ndarray, head: np.ndarray) -> bool:
    """True when the CDG of all paths along ``nxt`` [S, S] (next switch toward d, -1 on the
    diagonal) has no cycle. Channel a → b is ``chan[a, b]``; switch b's outgoing channels are
    ``base[b]:base[b + 1]``, channel x ends at switch ``head[x]``. False also when some
    switch has no next hop toward some other (then the incremental assignment decides)."""
    S = nxt.shape[0]
    C = base[S]
    dcap = 1
    for b in range(S):
        dcap = max(dcap, base[b + 1] - base[b])
    # dependency x -> y (y leaving x's head b) is bit x * dcap + (y - base[b])
    dep = np.zeros(C * dcap, np.uint8)
    for a in range(S):
        for d in range(S):
            if d == a:
                continue
            b = nxt[a, d]
            if b < 0:
                return False
            if b == d:
                continue
            c = nxt[b, d]
            if c < 0:
                return False
            dep[chan[a, b] * dcap + (chan[b, c] - base[b])] = 1
    # Kahn's topological sort: every channel is taken iff there is no cycle
    indeg = np.zeros(C, np.int32)
    for x in range(C):
        b = head[x]
        for j in range(base[b + 1] - base[b]):
            if dep[x * dcap + j]:
                indeg[base[b] + j] += 1
    queue = np.empty(C, np.int32)
    tail = 0
    for x in range(C):
        if indeg[x] == 0:
            queue[tail] = x
            tail += 1
    head_i = 0
    while head_i < tail:
        x = queue[head_i]
        head_i += 1
        b = head[x]
        for j in range(base[b + 1] - base[b]):
            if dep[x * dcap + j]:
                y = base[b] + j
                indeg[y] -= 1
                if indeg[y] == 0:
                    queue[tail] = y
                    tail += 1
    return tail == C


def warm_up() -> None:
    """Load (first run: compile) the kernel with a two-switch fabric."""
    union_cdg_acyclic(np.array([[-1, 1], [0, -1]], np.int32), np.array([[-1, 0], [1, -1]], np.int32),
                      np.array([0, 1, 2], np.int64), np.array([1, 0], np.int32))
