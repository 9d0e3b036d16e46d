"""Refused dependencies remembered with the cycle that refused them, per layer.

In the first fit a pair that does not fit a layer is refused because one of its new
dependencies x -> y closes a cycle: y already reaches x. The same turn (channel x, channel y)
is offered to the same layer again and again by later pairs, and the dependencies along the
cycle found the first time are mostly still there (the first fit only ever adds dependencies to
a layer; a failed trial takes away only its own). So the channels of that path y ... x are
kept, keyed by (layer, channel of x, channel of y); the next time, when every one of its
dependencies is a live slot of the layer, y still reaches x and the answer is "cycle" without
:func:`.lash_order.reorder`'s search. Otherwise the search runs as before (and its path, if
it finds one, replaces the kept one). The answer is the search's answer either way: a path
that exists is a cycle, and a refusal leaves nothing behind that the search would have changed.
"""

from __future__ import annotations

from numba import njit

from .lash_order import ND, NO_REFCOUNTS

#: hash slots for kept paths (open addressing; no new path is kept past 3/4 full)
MEMO_SLOTS = 1 << 21
#: channels of kept paths, in all. The memo (:func:`.lash_kernels.run_layers` makes it):
#: (keys, offsets, pool, channel per vertex id, counters [hits, pool used, keys used])
MEMO_POOL = 1 << 24


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _find(keys, key):
    mask = keys.shape[0] - 1
    h = (key * 0x9E3779B97F4A7C15) & mask
    while keys[h] != 0 and keys[h] != key:
        h = (h + 1) & mask
    return h


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def memo_cycle(memo, vid, V, dv, lane_i, x, y):
    """True when the path kept for x -> y in this layer is all live dependencies (a cycle)."""
    keys, offs, pool, vch, cnt = memo
    C = vid.shape[1]
    key = (lane_i * C + vch[x]) * C + vch[y] + 1
    h = _find(keys, key)
    if keys[h] != key:
        return False
    off = offs[h]
    n = pool[off]
    prev = vid[lane_i, pool[off + 1]]
    if prev < 0:
        return False
    for k in range(off + 2, off + 1 + n):
        cur = vid[lane_i, pool[k]]
        if cur < 0:
            return False
        found = False
        for j in range(V[prev, ND]):
            if dv[prev, j] == cur:
                found = True
                break
        if not found:
            return False
        prev = cur
    cnt[0] += 1
    return True


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def memo_keep(memo, vid, lane_i, x, y, path, n):
    """Keep the path y ... x (vertices ``path[:n]``) that refused x -> y, as channels."""
    keys, offs, pool, vch, cnt = memo
    if cnt[1] + n + 1 > pool.shape[0] or 4 * cnt[2] >= 3 * keys.shape[0]:
        return
    C = vid.shape[1]
    key = (lane_i * C + vch[x]) * C + vch[y] + 1
    h = _find(keys, key)
    if keys[h] != key:
        keys[h] = key
        cnt[2] += 1
    off = cnt[1]
    offs[h] = off
    pool[off] = n
    for k in range(n):
        pool[off + 1 + k] = vch[path[k]]
    cnt[1] += n + 1
