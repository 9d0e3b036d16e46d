"""The switch-to-switch paths LASH routes: OpenSM's breadth-first trees and the paths along them.

Compiled (numba) for :mod:`.lash`: :func:`tree_routes` is ``shortest_path`` +
``generate_routing_func_for_mst`` for every root, :func:`build_paths` lays each pair's path out
as channels for the layer kernels (:mod:`.lash_kernels`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def build_paths(nxt: np.ndarray, chan: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All switch paths along nxt as CSR: (ptr [S*S+1], channels), a channel (switch a to its
    neighbour b: OpenSM's cdg_vertex_matrix[lane][a][b]) numbered ``chan[a, b]``."""
    S = nxt.shape[0]
    ptr = np.zeros(S * S + 1, np.int64)
    for s in range(S):
        for d in range(S):
            n = 0
            a = s
            while a != d:
                a = nxt[a, d]
                n += 1
            ptr[s * S + d + 1] = ptr[s * S + d] + n
    pc = np.empty(ptr[-1], np.int32)
    for s in range(S):
        for d in range(S):
            k = ptr[s * S + d]
            a = s
            while a != d:
                b = nxt[a, d]
                pc[k] = chan[a, b]
                k += 1
                a = b
    return ptr, pc


@njit(cache=True, nogil=True)
def tree_routes(lk_ptr: np.ndarray, lk_to: np.ndarray, first: np.ndarray) -> np.ndarray:
    """:func:`.lash.tree_routes` compiled: for each root r a breadth-first tree over switch r's
    links ``lk_to[lk_ptr[r]:lk_ptr[r + 1]]`` (port order); every switch on the tree path from
    r to d without an entry for d takes ``first[p, child]`` (out_link [S, S], -1: none)."""
    S = len(lk_ptr) - 1
    out = np.full((S, S), -1, np.int32)
    parent = np.empty(S, np.int32)
    seen = np.zeros(S, np.int32)
    queue = np.empty(S, np.int32)
    for r in range(S):
        stamp = r + 1
        seen[r] = stamp
        queue[0] = r
        head, tail = 0, 1
        while head < tail:
            u = queue[head]
            head += 1
            for j in range(lk_ptr[u], lk_ptr[u + 1]):
                t = lk_to[j]
                if seen[t] != stamp:
                    seen[t] = stamp
                    parent[t] = u
                    queue[tail] = t
                    tail += 1
        for i in range(1, tail):
            d = queue[i]
            cur = d
            while cur != r:
                p = parent[cur]
                if out[p, d] < 0:
                    out[p, d] = first[p, cur]
                cur = p
    return out
