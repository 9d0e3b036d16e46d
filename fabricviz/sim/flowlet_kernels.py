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


@njit(cache=True, nogil=True)
def round_robin(h: int, flows: np.ndarray, cand: np.ndarray, loc: np.ndarray, pl: np.ndarray, cur: np.ndarray,
                rr: np.ndarray, perm: np.ndarray, order: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per deciding flow, taken in ``order`` (as their packets reach the switch): the first candidate
    on the next egress of its hop-``h`` switch's round-robin, htsim's ``FatTreeSwitch`` RR: one
    counter per switch (``rr``, the switch named by its lowest egress among the candidates: every
    flow through it has the same set) over its egresses in the order ``perm`` holds, shuffled
    afresh (uniforms ``u[i]``) at the first packet and after every 5 × egresses packets; -1: the
    same egress as now."""
    m = len(flows)
    chosen = np.full(m, -1, np.int64)
    first = np.full(m + 1, len(cand), np.int64)       # each flow's candidates: cand[first[i]:first[i + 1]]
    for j in range(len(cand) - 1, -1, -1):
        first[loc[j]] = j
    for i in range(m - 1, -1, -1):
        if first[i] > first[i + 1]:
            first[i] = first[i + 1]
    for n in range(m):
        i = order[n]
        a, b = first[i], first[i + 1]
        egress = np.unique(pl[cand[a:b], h])           # the distinct egresses at hop h, ascending
        k = len(egress)
        if k < 2:
            continue
        sw = egress[0]
        if perm[sw, 0] < 0 or rr[sw] >= 5 * k:          # htsim's permute_paths: a Fisher-Yates shuffle
            rr[sw] = 0
            perm[sw, :k] = egress
            for t in range(k - 1):
                x = t + int(u[i, t] * (k - t))
                perm[sw, t], perm[sw, x] = perm[sw, x], perm[sw, t]
        pick = perm[sw, rr[sw] % k]
        rr[sw] += 1
        if pick == pl[cur[flows[i]], h]:
            continue
        for j in range(a, b):
            if pl[cand[j], h] == pick:
                chosen[i] = cand[j]
                break
    return chosen


@njit(cache=True, nogil=True)
def waterfill(gid_link: np.ndarray, demand: np.ndarray, cap: np.ndarray, n_links: int) -> np.ndarray:
    """:func:`fabricviz.sim.waterfill.waterfill` loop by loop (the sums in the same order: the same
    allocation to the byte), for the flowlet runs that have numba loaded already."""
    G = len(demand)
    alloc = np.zeros(G)
    open_ = demand > 0
    rem = cap.copy()
    level = np.zeros(n_links)
    cnt = np.zeros(n_links, np.int64)
    took = np.zeros(n_links)
    for _ in range(64):
        cnt[:] = 0
        for g in range(G):
            if open_[g]:
                cnt[gid_link[g]] += 1
        for k in range(n_links):
            level[k] = rem[k] / cnt[k] if cnt[k] > 0 else 0.0
        took[:] = 0.0
        any_done = False
        any_open = False
        for g in range(G):
            if open_[g] and demand[g] <= level[gid_link[g]]:
                any_done = True
                alloc[g] = demand[g]
                took[gid_link[g]] += demand[g]
                open_[g] = False
        if not any_done:
            for g in range(G):
                if open_[g]:
                    alloc[g] = level[gid_link[g]]
            return alloc
        for k in range(n_links):
            rem[k] = rem[k] - took[k]
        for g in range(G):
            if open_[g]:
                any_open = True
                break
        if not any_open:
            return alloc
    for g in range(G):
        if open_[g]:
            alloc[g] = max(level[gid_link[g]], 0.0)
    return alloc


@njit(cache=True, nogil=True)
def carry(po: np.ndarray, pn: np.ndarray, at: np.ndarray, first: np.ndarray, start: np.ndarray,
          q: np.ndarray, arrive: np.ndarray) -> None:
    """Each moved flow's bytes on the entries before its deciding switch (hops < ``at``, with its
    leading PCIe hop) go from the old sub-path ``po`` to the same entries of the new one ``pn``."""
    for i in range(len(po)):
        so, sn = start[po[i]], start[pn[i]]
        for k in range(first[po[i]] - so + at[i]):
            q[sn + k] += q[so + k]
            q[so + k] = 0.0
            arrive[sn + k] += arrive[so + k]
            arrive[so + k] = 0.0


@njit(cache=True, nogil=True)
def held_on(p: int, first: np.ndarray, pl: np.ndarray, q_link: np.ndarray, rate: np.ndarray, hop_s: float,
            q: np.ndarray, arrive: np.ndarray, fh: np.ndarray, a: float, r: float) -> tuple[float, float]:
    """Sub-path ``p``'s bytes still in flight added to ``a``, and ``r`` raised to the time from the
    farthest-back of them to the receiver (each hop a tick plus the queue ahead; ``fh``: scratch)."""
    H = pl.shape[1]
    s = 0.0
    for k in range(H - 1, -1, -1):
        lk = pl[p, k]
        s += q_link[lk] / rate[lk] + hop_s if lk >= 0 else 0.0
        fh[k] = s
    for k in range(H):
        b = q[first[p] + k] + arrive[first[p] + k] if pl[p, k] >= 0 else 0.0
        if b > 0 and fh[k] > r:
            r = fh[k]
        a += b
    return a, r


@njit(cache=True, nogil=True)
def move_times(po: np.ndarray, pn: np.ndarray, at: np.ndarray, first: np.ndarray, pl: np.ndarray,
               rl: np.ndarray, q_link: np.ndarray, rate: np.ndarray, hop_s: float, q: np.ndarray,
               arrive: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per moved flow (old sub-path ``po``, new ``pn``, deciding hop ``at``): (bytes still on the old
    sub-path, the time from the farthest-back of them to the receiver, the new first byte's time
    from the deciding switch on, a NAK's time back over the new sub-path) — each hop a tick plus
    the queue ahead; sums in hop order, as numpy's over the rows."""
    m, H = len(po), pl.shape[1]
    ahead, remain, onward, back = np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m)
    fh = np.empty(H)
    for i in range(m):
        ahead[i], remain[i] = held_on(po[i], first, pl, q_link, rate, hop_s, q, arrive, fh, 0.0, 0.0)
        p = pn[i]
        s, w, c = 0.0, 0.0, 0
        for k in range(H):
            lk = pl[p, k]
            s += q_link[lk] / rate[lk] + hop_s if lk >= 0 and k >= at[i] else 0.0
            if lk >= 0:
                c += 1
            lk = rl[p, k]
            w += q_link[lk] / rate[lk] if lk >= 0 else 0.0
        onward[i], back[i] = s, c * hop_s + w
    return ahead, remain, onward, back


@njit(cache=True, nogil=True)
def in_flight_all(flows: np.ndarray, pn: np.ndarray, start: np.ndarray, count: np.ndarray, first: np.ndarray,
                  pl: np.ndarray, q_link: np.ndarray, rate: np.ndarray, hop_s: float, q: np.ndarray,
                  arrive: np.ndarray, sent_at: np.ndarray, since: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per moved flow of a sprayed run: :func:`move_times`' old-path figures over every sub-path of
    the flow but the new one ``pn`` — its bytes still in flight there and the time from the
    farthest-back of them to the receiver (each hop a tick plus the queue ahead) — leaving out the
    sub-paths its NIC last sent on before the sender last went back (``sent_at`` < ``since``):
    what they hold was sent past the gap before the rewind, stale, and overtaking it puts nothing
    out of order (packets held up in a paused queue there would otherwise count)."""
    m = len(flows)
    ahead, remain = np.zeros(m), np.zeros(m)
    fh = np.empty(pl.shape[1])
    for i in range(m):
        a, r = 0.0, 0.0
        for p in range(start[flows[i]], start[flows[i]] + count[flows[i]]):
            if p != pn[i] and sent_at[p] >= since[i]:
                a, r = held_on(p, first, pl, q_link, rate, hop_s, q, arrive, fh, a, r)
        ahead[i], remain[i] = a, r
    return ahead, remain


@njit(cache=True, nogil=True)
def back_times(paths: np.ndarray, pl: np.ndarray, rl: np.ndarray, q_link: np.ndarray, rate: np.ndarray,
               hop_s: float) -> np.ndarray:
    """Per sub-path: a NAK's time back — a tick per hop plus the queue ahead at each reverse link
    (:meth:`~.flowlets.Flowlets.back_s`), summed in hop order."""
    out = np.empty(len(paths))
    for i in range(len(paths)):
        w, c = 0.0, 0
        for k in range(pl.shape[1]):
            if pl[paths[i], k] >= 0:
                c += 1
            lk = rl[paths[i], k]
            w += q_link[lk] / rate[lk] if lk >= 0 else 0.0
        out[i] = c * hop_s + w
    return out
