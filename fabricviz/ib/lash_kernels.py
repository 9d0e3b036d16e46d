"""LASH's layer assignment and balancing compiled (numba): :mod:`.lash_cdg` in flat arrays.

The same steps, counters and quirks as :class:`~.lash_cdg.Layers` (which says what each does
and why), with vertices as integer ids: per vertex its dependency slots ``dv``/``dn`` and
counters, per layer a channel -> vertex table and a topological order with holes, searched
and repaired from both ends of a new dependency (:mod:`.lash_order`). A freed
vertex no slot names is recycled; a zombie (still named) keeps its id and data and switches its
layer to OpenSM's literal search. :func:`run_layers` returns status 1 when an array bound is
hit (then the caller uses the Python version) and 2 for ERR 4D02.

Everything :func:`run_layers` calls is compiled with ``_nrt=False`` (no numba reference counts;
such a function cannot allocate, which numba checks when it compiles): with them, every call
and every unpacking of the state tuples did an atomic incref and decref per array, 60% of the
layer work at radix 56 (perf: ``NRT_incref``/``NRT_decref`` under ``_add_temp``); without, the
layer work went from 31 s to 14 s CPU with the same answer.

Two more costs were the memory's and the calls'. Each hop waits on a chain of loads (path
offset, channel, vertex id, vertex row, dependency slots) spread over ~1 GB: the pairs to come
are known early, and :mod:`.lash_prefetch` asks for their rows a few pairs ahead. And a call
passes every array of the state tuples, ~200 words pushed per call: the common hop (the
vertex and the dependency already there, only counts change) runs in :func:`_add_known` and
:func:`_remove_known`, which take the six arrays they read, and only a hop that makes or
frees something calls :func:`_add_temp` / :func:`_remove_path`. At radix 56 the layer work
went from 9.8 s to 4.9 s CPU (prefetching 9.8 → 6.1 s, the short calls → 4.9 s), the same
answer (tests/ib/test_lash_spread.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .lash_fast import warm_up as warm_fast
from .lash_memo import MEMO_POOL, MEMO_SLOTS, memo_cycle, memo_keep
from .lash_order import (
    EPOCH,
    FREED,
    HFIELDS,
    INDEG,
    ND,
    NFIELDS,
    NO_REFCOUNTS,
    NTEMP,
    ORD,
    SEEN,
    TEMP,
    USING,
    VISIT,
    compact,
    cycle_path,
    pred_add,
    pred_del,
    reorder,
)
from .lash_paths import build_paths, tree_routes
from .lash_prefetch import AHEAD, pair_on_layer, warm_channels, warm_moves, warm_offsets, warm_rows, warm_vids

FREED_SEEN = 0x5A5A5A5A
BALANCE_LIMIT = 6
#: a layer's order is spread out again (:func:`.lash_order.compact`) once the searches for holes near a moved
#: set have passed more slots than the order is long, plus this (keeps small layers from respreading)
SPREAD_SLACK = 4096
#: balancing's mark on a pair of layer l that did not fit the least loaded layer (OpenSM's
#: virtual_location 2): ``lane`` holds l + MARKED until l's marks are cleared. One [S, S] int8
#: table instead of OpenSM's [layers, S, S] virtual_location (7 layers at radix 56: 107 MB, and
#: a random pair read from it per trial)
MARKED = 16
#: H's spare column: a vertex's dependency slots from this one on have dn 0 (OpenSM clears
#: num_used up to num_switches - 1 when it drops temp dependencies; clearing only up to here
#: leaves the same counts)
DN_HIGH = 3


@njit(cache=True, nogil=True)
def _rand(st: np.ndarray) -> int:
    """glibc random(): st[0..33] the last 34 words, st[34] the ring head."""
    h = st[34]
    v = (st[(h + 3) % 34] + st[(h + 31) % 34]) & 0xFFFFFFFF
    st[h] = v
    st[34] = (h + 1) % 34
    return v >> 1


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _new_vertex(st, paths, lane_i, c):
    V, dv, dn, vid, order, olen, literal, sc, free, stack_v, stack_i, found, pr, bfound, H = st
    if sc[1] > 0:
        sc[1] -= 1
        v = free[sc[1]]
        dn[v, :H[v, DN_HIGH]] = 0                       # the rest is 0 already
    else:
        if sc[0] >= V.shape[0]:
            sc[6] = 1
            return -1
        v = sc[0]
        sc[0] += 1
        dn[v, :] = 0
    V[v, :] = 0
    H[v, :] = 0
    V[v, TEMP] = 1
    if olen[lane_i] + 2 > order.shape[1]:
        compact(H, order, olen, sc, lane_i)
    H[v, ORD] = olen[lane_i]
    order[lane_i, olen[lane_i]] = v
    olen[lane_i] += 2 if olen[lane_i] + 2 <= order.shape[1] else 1     # a hole behind it
    vid[lane_i, c] = v
    paths[7][3][v] = c                                  # the memo's channel of v
    tl = paths[4]
    tl[sc[8]] = v
    sc[8] += 1
    return v


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _free_vertex(st, lane_i, v):
    V, dv, dn, vid, order, olen, literal, sc, free, stack_v, stack_i, found, pr, bfound, H = st
    V[v, FREED] = 1
    if V[v, EPOCH] != sc[2]:
        V[v, VISIT] = 0
    V[v, SEEN] = FREED_SEEN
    o = H[v, ORD]
    if o < olen[lane_i] and order[lane_i, o] == v:
        order[lane_i, o] = -1
    if V[v, INDEG] > 0:
        sc[4] += 1
        literal[lane_i] = True
    else:
        for i in range(V[v, ND]):
            V[dv[v, i], INDEG] -= 1
            pred_del(V, pr, dv[v, i], v)
        free[sc[1]] = v
        sc[1] += 1


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _add_known(ptr, pc, vid, V, dv, dn, base, lane_i):
    """:func:`_add_temp`'s hops of path ``base`` while each channel has its vertex in the layer and
    each dependency its slot: only counts go up (most hops; 13.4 M of balancing's 14.9 M
    dependencies). Returns (the hop to go on from, the vertex before it, the first vertex);
    the hop is ``ptr[base + 1]`` when the path is done. Its few arrays keep the call cheap
    (:func:`_add_temp` takes every array of the state, ~200 words pushed a call)."""
    prev = -1
    first = -1
    k = ptr[base]
    hi = ptr[base + 1]
    while k < hi:
        v = vid[lane_i, pc[k]]
        if v < 0:
            break
        if prev >= 0:
            j = -1
            for i in range(V[prev, ND]):
                if dv[prev, i] == v:
                    j = i
                    break
            if j < 0:
                break
            dn[prev, j] += 1
        else:
            first = v
        V[v, USING] += 1
        prev = v
        k += 1
    return k, prev, first


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _add_pair_known(ptr, pc, vid, V, dv, dn, sc, S, s, d, lane_i, kp):
    """A trial's two paths (s to d, d to s) as far as :func:`_add_known` goes: ``kp[h]`` = (hop to
    go on from, vertex before it, first vertex) for path h. True when both are done."""
    sc[8] = 0
    done = True
    for h in range(2):
        base = s * S + d if h == 0 else d * S + s
        k, prev, first = _add_known(ptr, pc, vid, V, dv, dn, base, lane_i)
        kp[h, 0] = k
        kp[h, 1] = prev
        kp[h, 2] = first
        done = done and k == ptr[base + 1]
    return done


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _add_pair_rest(st, paths, kp, s, d, lane_i):
    """generate_cdg_for_sp for both paths of the trial, from where :func:`_add_pair_known` left
    each (path 0's rest before path 1's: the known hops only raised counts, which nothing here
    reads, so this is OpenSM's order). Returns (first vertex of each or -1 on overflow, cycle)."""
    ptr, S = paths[0], paths[2]
    cy = False
    for h in range(2):
        base = s * S + d if h == 0 else d * S + s
        if kp[h, 0] < ptr[base + 1]:
            kp[h, 2], cy = _add_temp(st, paths, base, lane_i, cy, kp[h, 0], kp[h, 1], kp[h, 2])
    return kp[0, 2], kp[1, 2], cy


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _add_temp(st, paths, base, lane_i, cyc, k0, prev, first):
    """generate_cdg_for_sp from hop k0 of path ``base`` on (``prev``: the vertex before it, -1 at
    the first hop; ``first``: the path's first vertex so far)."""
    V, dv, dn, vid, order, olen, literal, sc, free, stack_v, stack_i, found, pr, bfound, H = st
    ptr, pc, S, slack, tl, srt, par, memo = paths
    keep = not literal[lane_i]
    for k in range(k0, ptr[base + 1]):
        c = pc[k]
        v = vid[lane_i, c]
        if v < 0:
            v = _new_vertex(st, paths, lane_i, c)
            if v < 0:
                return -1, cyc
        V[v, USING] += 1
        if prev < 0:
            first = v
            prev = v
            continue
        n = V[prev, ND]
        j = -1
        for i in range(n):
            if dv[prev, i] == v:
                j = i
                break
        if j >= 0:
            dn[prev, j] += 1
        else:
            if n >= dv.shape[1]:
                sc[6] = 1
                return -1, cyc
            dv[prev, n] = v
            dn[prev, n] += 1
            V[prev, ND] = n + 1
            if n >= H[prev, DN_HIGH]:
                H[prev, DN_HIGH] = n + 1
            V[v, INDEG] += 1
            pred_add(V, pr, literal, lane_i, v, prev)
            if V[prev, TEMP] == 0:
                V[prev, NTEMP] += 1
                tl[sc[8]] = prev
                sc[8] += 1
            if keep and not cyc and H[prev, ORD] > H[v, ORD]:
                if memo_cycle(memo, vid, V, dv, lane_i, prev, v):
                    cyc = True
                else:
                    cyc = reorder(V, H, dv, pr, order, olen, lane_i, sc, found, bfound, prev, v, srt, par)
                    if cyc:
                        memo_keep(memo, vid, lane_i, prev, v, stack_v, cycle_path(par, stack_v))
                if sc[7] > olen[lane_i] + slack:
                    compact(H, order, olen, sc, lane_i)
        prev = v
    return first, cyc


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _make_permanent(V, sc, tl):
    """set_temp_depend_to_permanent_for_sp for both paths of the trial: OpenSM walks them, but
    only the vertices the trial made (temp) or gave new dependencies (num_temp) change, and
    :func:`_add_temp` listed those (``tl[:sc[8]]``; a temp vertex's num_temp is 0)."""
    for i in range(sc[8]):
        v = tl[i]
        V[v, TEMP] = 0
        V[v, NTEMP] = 0


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _remove_temp(st, paths, s, d, lane_i):
    V, dv, dn, vid, order, olen, literal, sc, free, stack_v, stack_i, found, pr, bfound, H = st
    ptr, pc, S = paths[0], paths[1], paths[2]
    base = s * S + d
    for k in range(ptr[base], ptr[base + 1]):
        v = vid[lane_i, pc[k]]
        if V[v, TEMP] == 1:
            vid[lane_i, pc[k]] = -1
            _free_vertex(st, lane_i, v)
        else:
            new_nd = V[v, ND] - V[v, NTEMP]
            for i in range(new_nd, V[v, ND]):
                V[dv[v, i], INDEG] -= 1
                pred_del(V, pr, dv[v, i], v)
            V[v, ND] = new_nd
            V[v, NTEMP] = 0
            V[v, USING] -= 1
            for i in range(new_nd, H[v, DN_HIGH]):
                dn[v, i] = 0
            H[v, DN_HIGH] = new_nd


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _remove_known(ptr, pc, vid, V, dv, dn, base, lane_i):
    """:func:`_remove_path`'s hops of path ``base`` while each vertex stays used and each
    dependency stays counted: only counts go down (few arrays, a cheap call, as
    :func:`_add_known`). Returns (the hop to go on from, OpenSM's last dependency index). A
    dependency found is below ND, never past the highest slot used (``H[v, DN_HIGH]`` ≥ ND
    always), so :func:`_remove_path`'s raise of that mark for a reused index never applies here."""
    k = ptr[base]
    hi = ptr[base + 1]
    depend = 0
    while k < hi:
        v = vid[lane_i, pc[k]]
        if V[v, USING] == 1:
            break
        if k + 1 < hi:
            w = vid[lane_i, pc[k + 1]]
            j = -1
            for i in range(V[v, ND]):
                if dv[v, i] == w:
                    j = i
                    break
            if j < 0 or dn[v, j] == 1:
                break
            depend = j
            dn[v, j] -= 1
        V[v, USING] -= 1
        k += 1
    return k, depend


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _remove_path(st, paths, base, lane_i, lo, depend):
    """remove_semipermanent_depend_for_sp from hop ``lo`` of path ``base`` on (``depend``: the
    dependency index OpenSM carries from the hop before)."""
    V, dv, dn, vid, order, olen, literal, sc, free, stack_v, stack_i, found, pr, bfound, H = st
    ptr, pc = paths[0], paths[1]
    hi = ptr[base + 1]
    for k in range(lo, hi):
        v = vid[lane_i, pc[k]]
        if V[v, USING] == 1:
            vid[lane_i, pc[k]] = -1
            _free_vertex(st, lane_i, v)
            continue
        V[v, USING] -= 1
        if k + 1 == hi:
            continue
        w = vid[lane_i, pc[k + 1]]
        for i in range(V[v, ND]):           # not found: OpenSM reuses the last index
            if dv[v, i] == w:
                depend = i
                break
        if dn[v, depend] == 1:
            V[dv[v, depend], INDEG] -= 1
            pred_del(V, pr, dv[v, depend], v)
            for i in range(depend, V[v, ND] - 1):
                dv[v, i] = dv[v, i + 1]
                dn[v, i] = dn[v, i + 1]
            V[v, ND] -= 1
        else:
            dn[v, depend] -= 1
            if depend >= H[v, DN_HIGH]:         # OpenSM's reused index past the slots in use
                H[v, DN_HIGH] = depend + 1


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _cycle_from(st, start):
    V, dv, dn, vid, order, olen, literal, sc, free, stack_v, stack_i, found, pr, bfound, H = st
    ep = sc[2]
    if V[start, EPOCH] != ep:
        V[start, EPOCH] = ep
        V[start, SEEN] = 0
    V[start, VISIT] = 1
    stack_v[0] = start
    stack_i[0] = 0
    top = 1
    while top > 0:
        cur = stack_v[top - 1]
        i = stack_i[top - 1]
        if i < V[cur, ND]:
            stack_i[top - 1] = i + 1
            w = dv[cur, i]
            marks = V[w, FREED] == 1 or V[w, EPOCH] == ep
            vw = V[w, VISIT] if marks else 0
            if vw > 0:
                sw = V[w, SEEN] if marks else 0
                if top + 1 > vw and sw == 0:
                    for f in range(top):
                        V[stack_v[f], SEEN] = 1
                    return True
                continue
            if V[w, FREED] == 1:
                sc[5] += 1
            else:
                V[w, EPOCH] = ep
                V[w, SEEN] = 0
            V[w, VISIT] = top + 1
            if top >= stack_v.shape[0]:
                sc[6] = 1
                return False
            stack_v[top] = w
            stack_i[top] = 0
            top += 1
        else:
            V[cur, SEEN] = 1
            top -= 1
    return False


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _literal_cycle(st, a, b):
    """cycle_exists from a trial's two first vertices, OpenSM's search: for a layer that holds a
    zombie (``literal``; elsewhere the order's searches in :func:`_add_temp` answered already)."""
    sc = st[7]
    sc[2] += 1
    c1 = _cycle_from(st, a)
    c2 = _cycle_from(st, b)
    sc[2] += 1
    return c1 or c2



@njit(cache=True, nogil=True)
def run_layers(S: int, avail: int, ptr: np.ndarray, pc: np.ndarray, C: int, state: np.ndarray,
               literal0: bool, cap: int, dcap: int, slack: int = SPREAD_SLACK):
    """assign_layers + balance. Returns (status, lane [S,S], needed, counts before, counts after,
    rand calls, zombies, zombie events). ``slack``: see :data:`SPREAD_SLACK` (the answer does not
    depend on it)."""
    L = max(avail, 1)
    # a vertex's row is cleared when it is made (dv is read below ND only): rows never used
    # are never touched, so the store costs what the layers use, not ``cap``
    V = np.empty((cap, NFIELDS), np.int32)
    # a dependency's vertex and count side by side: a hop reads dn[v, j] right after finding
    # dv[v, j] (balancing's 3.5 M moves: 13.4 M of their 14.9 M dependencies already there)
    dvn = np.empty((cap, dcap, 2), np.int32)
    dv = dvn[:, :, 0]
    dn = dvn[:, :, 1]
    vid = np.full((L, C), -1, np.int32)
    order = np.full((L, 4 * C + 64), -1, np.int32)     # a layer holds one vertex per channel
    olen = np.zeros(L, np.int64)
    literal = np.full(L, literal0)
    sc = np.zeros(9, np.int64)
    sc[2] = 1
    free = np.empty(cap, np.int32)
    stack_v = np.zeros(cap + 1, np.int32)
    stack_i = np.zeros(cap + 1, np.int32)
    found = np.zeros(cap, np.int32)
    pr = np.empty((cap, dcap), np.int32)              # read below NPRED only
    H = np.empty((cap, HFIELDS), np.int32)
    bfound = np.zeros(cap, np.int32)
    st = (V, dv, dn, vid, order, olen, literal, sc, free, stack_v, stack_i, found, pr, bfound, H)
    longest = 0
    for k in range(S * S):
        longest = max(longest, ptr[k + 1] - ptr[k])
    tl = np.empty(4 * longest + 8, np.int32)          # what a trial made or extended
    srt = np.empty(cap, np.int64)                     # reorder's sort, read below its count only
    par = np.empty((2, cap + 1), np.int32)            # the searches' parents (read where stamped)
    memo = (np.zeros(MEMO_SLOTS, np.int64), np.zeros(MEMO_SLOTS, np.int64), np.empty(MEMO_POOL, np.int32),
            np.empty(cap, np.int32), np.zeros(3, np.int64))     # :mod:`.lash_memo`
    paths = (ptr, pc, S, slack, tl, srt, par, memo)
    marked = np.empty((L, S * S), np.int32)           # read below nmarked only: pages as used
    nmarked = np.zeros(L, np.int64)
    lane = np.full((S, S), -1, np.int8)
    counts = np.zeros(L, np.int64)
    kp = np.empty((2, 3), np.int64)                   # a trial's paths: :func:`_add_pair_known`
    # ---- lash_core: first fit
    needed = 1
    before = np.zeros(L, np.int64)
    for i in range(S):
        for d in range(i + 1, S):
            if d + AHEAD < S:
                warm_offsets(ptr, lane, S, i, d + AHEAD)
            if d + 4 < S:
                warm_channels(ptr, pc, S, i, d + 4)
            if d + 2 < S:
                warm_vids(ptr, pc, vid, S, i, d + 2, 0, -1)
            if d + 1 < S:
                warm_rows(ptr, pc, vid, V, dv, S, i, d + 1, 0, -1)
            v = 0
            cycle = False
            while v < needed:
                done = _add_pair_known(ptr, pc, vid, V, dv, dn, sc, S, i, d, v, kp)   # no call passing the state
                a, b, cy = (kp[0, 2], kp[1, 2], False) if done else _add_pair_rest(st, paths, kp, i, d, v)
                if a < 0 or b < 0:
                    return 1, lane, needed, before, counts, 0, sc[4], sc[5]
                cycle = _literal_cycle(st, a, b) if literal[v] else cy
                if cycle:
                    _remove_temp(st, paths, i, d, v)
                    _remove_temp(st, paths, d, i, v)
                    v += 1
                else:
                    _make_permanent(V, sc, tl)
                    counts[v] += 2
                    break
            lane[i, d] = v
            lane[d, i] = v
            if cycle:
                needed += 1
                if needed > avail:
                    return 2, lane, needed, before, counts, 0, sc[4], sc[5]
                _add_pair_known(ptr, pc, vid, V, dv, dn, sc, S, i, d, v, kp)
                a, b, cy = _add_pair_rest(st, paths, kp, i, d, v)
                if a < 0 or b < 0:
                    return 1, lane, needed, before, counts, 0, sc[4], sc[5]
                _make_permanent(V, sc, tl)
                counts[v] += 2
    before[:] = counts
    # ---- balance_virtual_lanes
    calls = 0
    if needed == 1 or sc[6]:
        return int(sc[6]), lane, needed, before, counts, calls, sc[4], sc[5]
    max_l = 0
    min_l = needed - 1
    trials = counts[max_l]
    # the next AHEAD moves' draws (rand() is called twice a move whatever its answer), each with
    # the pair it is expected to land on, for :func:`.lash_prefetch.warm_moves`
    ring = np.empty((AHEAD, 4), np.int64)
    for j in range(AHEAD):
        ring[j, 0] = _rand(state) % S
        ring[j, 1] = _rand(state) % S
        ring[j, 2] = -1
    head = 0
    while True:
        src, dest = pair_on_layer(lane, S, ring[head, 0], ring[head, 1], max_l)
        ring[head, 0] = _rand(state) % S
        ring[head, 1] = _rand(state) % S
        ring[head, 2] = -1
        head = head + 1 if head + 1 < AHEAD else 0
        calls += 2
        warm_moves(ring, head, ptr, pc, lane, vid, V, dv, S, min_l, max_l)
        done = _add_pair_known(ptr, pc, vid, V, dv, dn, sc, S, src, dest, min_l, kp)
        a, b, cy = (kp[0, 2], kp[1, 2], False) if done else _add_pair_rest(st, paths, kp, src, dest, min_l)
        if a < 0 or b < 0:
            return 1, lane, needed, before, counts, calls, sc[4], sc[5]
        if _literal_cycle(st, a, b) if literal[min_l] else cy:
            _remove_temp(st, paths, src, dest, min_l)
            _remove_temp(st, paths, dest, src, min_l)
            lane[src, dest] = max_l + MARKED
            lane[dest, src] = max_l + MARKED
            marked[max_l, nmarked[max_l]] = src * S + dest
            marked[max_l, nmarked[max_l] + 1] = dest * S + src
            nmarked[max_l] += 2
            trials -= 2
        else:
            _make_permanent(V, sc, tl)
            counts[max_l] -= 2
            counts[min_l] += 2
            for base in (src * S + dest, dest * S + src):
                k, depend = _remove_known(ptr, pc, vid, V, dv, dn, base, max_l)
                if k < ptr[base + 1]:
                    _remove_path(st, paths, base, max_l, k, depend)
            lane[src, dest] = min_l
            lane[dest, src] = min_l
        if sc[6]:
            return 1, lane, needed, before, counts, calls, sc[4], sc[5]
        if trials == 0 or counts[max_l] - counts[min_l] < BALANCE_LIMIT:
            for ln in range(needed):                  # the pairs still marked: back to their layer
                for m in range(nmarked[ln]):
                    f = marked[ln, m]
                    if lane[f // S, f % S] == ln + MARKED:
                        lane[f // S, f % S] = ln
            return 0, lane, needed, before, counts, calls, sc[4], sc[5]
        old_min = min_l
        old_max = max_l
        lo = 9999
        hi = 0
        for k in range(needed):
            if counts[k] < lo:
                lo = counts[k]
                min_l = k
            if counts[k] > hi:
                hi = counts[k]
                max_l = k
        for step in range(2):
            ln = max_l if step == 0 else old_max
            if (old_min != min_l) if step == 0 else (old_max != max_l):
                trials = counts[max_l]
                for m in range(nmarked[ln]):
                    f = marked[ln, m]
                    if lane[f // S, f % S] == ln + MARKED:
                        lane[f // S, f % S] = ln
                nmarked[ln] = 0


def warm_up() -> None:
    """Load (first run: compile) the kernels with a two-switch fabric, so that one-off cost is
    not routing time (for :func:`~.kernels.warm_up`'s ``"lash"`` entry)."""
    warm_fast()
    tree_routes(np.array([0, 1, 2], np.int64), np.array([1, 0], np.int32),
                np.array([[-1, 0], [0, -1]], np.int32))
    nxt = np.array([[-1, 1], [0, -1]], np.int64)
    ptr, pc = build_paths(nxt, np.array([[-1, 0], [1, -1]], np.int32))
    run_layers(2, 8, ptr, pc, 2, np.zeros(35, np.int64), False, 64, 2)

