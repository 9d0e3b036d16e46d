"""numba kernels of a flowlet tick's per-hop decisions (:class:`~.flowlets.Flowlets`): the same
arithmetic as the numpy it replaces, loop by loop, so a run gives the same figures to the byte;
the random draws stay with the caller's generator, in the same order and number."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def deciders(h: int, got: np.ndarray, edge: np.ndarray, pl: np.ndarray, cur: np.ndarray, r: np.ndarray,
             chance: float) -> tuple[int, np.ndarray]:
    """Flows at a flowlet boundary at their hop-``h`` switch (bytes arrive after an idle gap, the
    switch has a choice) → (how many, those of them that re-route: ``r`` < ``chance``)."""
    n = got.shape[0]
    out = np.empty(n, np.int64)
    k = 0
    nb = 0
    for f in range(n):
        if got[f, h] > 0 and edge[f, h] and pl[cur[f], h] >= 0:
            nb += 1
            if r[f] < chance:
                out[k] = f
                k += 1
    return nb, out[:k]


@njit(cache=True, nogil=True)
def candidates(h: int, flows: np.ndarray, count: np.ndarray, start: np.ndarray, cur: np.ndarray,
               prefix: np.ndarray, pl: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per deciding flow, its sub-paths through the same links up to the hop-``h`` switch and on
    from it → (sub-paths, index of their flow in ``flows``), in route order."""
    total = 0
    for i in range(len(flows)):
        total += count[flows[i]]
    cand = np.empty(total, np.int64)
    loc = np.empty(total, np.int64)
    k = 0
    for i in range(len(flows)):
        f = flows[i]
        c = cur[f]
        for p in range(start[f], start[f] + count[f]):
            if prefix[p, h] == prefix[c, h] and pl[p, h] >= 0:
                cand[k] = p
                loc[k] = i
                k += 1
    return cand[:k], loc[:k]


@njit(cache=True, nogil=True)
def choose(h: int, flows: np.ndarray, cand: np.ndarray, loc: np.ndarray, u: np.ndarray, pl: np.ndarray,
           grades: np.ndarray, base: float, cur: np.ndarray) -> np.ndarray:
    """Per deciding flow: the candidate with the lowest grades hop by hop from ``h`` on (ties by
    ``u``), or -1 when none is strictly better at hop ``h`` than the current sub-path."""
    m = len(flows)
    best = np.full(m, np.inf)
    top = np.full(m, 10 ** 6)
    score = np.empty(len(cand))
    H = pl.shape[1]
    for j in range(len(cand)):
        s = 0.0
        for k in range(h, H):
            lk = pl[cand[j], k]
            s += (grades[lk] if lk >= 0 else 0) * base ** (H - 1 - k)
        score[j] = s + u[j] * 0.5
        if score[j] < best[loc[j]]:
            best[loc[j]] = score[j]
        lk = pl[cand[j], h]
        g0 = grades[lk] if lk >= 0 else 0
        if g0 < top[loc[j]]:
            top[loc[j]] = g0
    chosen = np.full(m, -1, np.int64)
    for j in range(len(cand)):
        if score[j] == best[loc[j]]:
            chosen[loc[j]] = cand[j]
    for i in range(m):
        lk = pl[cur[flows[i]], h]
        now = grades[lk] if lk >= 0 else 0
        if not top[i] < now:
            chosen[i] = -1
    return chosen
