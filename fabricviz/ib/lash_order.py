"""The topological order :mod:`.lash_kernels` keeps per layer, searched from both ends.

A layer's channel dependency graph is acyclic between trials, so a new dependency x → y with
y placed before x closes a cycle exactly when y reaches x, and every vertex on such a path
lies between y and x in the order. Two bounded breadth-first searches answer that: forward
from y over dependencies (vertices before x) and backward from x over predecessors (vertices
after y), one vertex each in turn. Meeting is a cycle; the first search to run out proves
there is none, and the order is repaired with what it found: the forward set moves right
behind x (Marchetti-Spaccamela et al., what :class:`~.lash_cdg.Layers` does), or the backward
set right in front of y (its mirror image); both keep every dependency pointing forward.
Which valid order is kept changes no answer: only whether a cycle exists is read from it.
The holes are used up where moves land; once the hunt for holes has passed more slots than the
order is long (``sc[7]``), :mod:`.lash_kernels` spreads the layer's order out again (one hole
behind each vertex). At radix 56 that cut the slots passed from 2.87 G to 0.1 G (plus 52 M
slots of respreading) and the layer work from 42 s to 27 s CPU.

Why: almost all the search work is in failing trials (a pair that does not fit the layer).
Depth-first from y alone, as before, wandered through a tenth of the layer before it met x;
breadth-first from both ends meets in the middle of the short cycle. On a radix-32 3-level
fat tree (1,280 switches) the searches expand 25 M vertices instead of 311 M.

Vertex rows of ``V`` and ``H`` hold the fields below; ``pr[v, :V[v, NPRED]]`` lists the vertices whose
live dependency slots name v (kept wherever ``INDEG`` changes). A layer that holds a zombie
uses OpenSM's literal search instead, and neither order nor predecessors are read there.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba.core import cpu as _cpu

#: numba option for the layer kernels: compiled without reference counts (see :mod:`.lash_kernels`).
#: ``_nrt`` is numba's private target option (numba 0.68 has it); a numba without it compiles the
#: same kernels with reference counts: the same answers, slower.
NO_REFCOUNTS: dict[str, Any] = {"_nrt": False} if hasattr(_cpu.CPUTargetOptions, "_nrt") else {}

# per-vertex fields of V (one row per vertex id)
TEMP = 0
NTEMP = 1
USING = 2
ND = 3
FREED = 4
INDEG = 5
VISIT = 6
SEEN = 7
EPOCH = 8
NPRED = 9
NFIELDS = 10
# ... and of H, what the searches and the order moves read (kept apart: a smaller row to fetch)
ORD = 0
STAMP = 1       # forward search mark
BSTAMP = 2      # backward search mark
HFIELDS = 4

# sc (counters): 0 next new id, 1 free stack size, 2 epoch, 3 stamp, 4 zombies, 5 zombie events,
# 6 overflow, 7 order slots passed looking for holes since the layer was last spread out,
# 8 vertices listed for make_permanent in this trial (lash_kernels)


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def pred_add(V: np.ndarray, pr: np.ndarray, literal: np.ndarray, lane_i: int, v: int, u: int) -> None:
    """u's new slot names v. A full list (only possible once zombies are about) turns the
    layer to the literal search, which needs no predecessors."""
    n = V[v, NPRED]
    if n >= pr.shape[1]:
        literal[lane_i] = True
        return
    pr[v, n] = u
    V[v, NPRED] = n + 1


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def pred_del(V: np.ndarray, pr: np.ndarray, v: int, u: int) -> None:
    """u's slot naming v is gone."""
    n = V[v, NPRED]
    for i in range(n):
        if pr[v, i] == u:
            pr[v, i] = pr[v, n - 1]
            V[v, NPRED] = n - 1
            return


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def reorder(V, H, dv, pr, order, olen, lane_i, sc, ffound, bfound, x, y, sc_sort, par):
    """New dependency x -> y with y before x: True if y reaches x (a cycle); else the order is
    repaired (see the module text). ``par`` [2, cap + 1]: each found vertex's parent in the
    forward (row 0) and backward (row 1) search; on a cycle the last column holds the
    dependency a -> b where they met: y reaches a along row 0, b reaches x along row 1
    (:func:`cycle_path`)."""
    sc[3] += 1
    stp = sc[3]
    lb = H[y, ORD]
    ub = H[x, ORD]
    H[y, STAMP] = stp
    H[x, BSTAMP] = stp
    last = par.shape[1] - 1
    par[0, y] = -1
    par[1, x] = -1
    ffound[0] = y
    bfound[0] = x
    nf = nb = 1
    fh = bh = 0                    # breadth-first: the found lists are the queues
    while fh < nf and bh < nb:
        n = ffound[fh]
        fh += 1
        for j in range(V[n, ND]):
            w = dv[n, j]
            if w == x or H[w, BSTAMP] == stp:
                par[0, last] = n
                par[1, last] = w
                return True
            if H[w, ORD] < ub and H[w, STAMP] != stp:
                H[w, STAMP] = stp
                par[0, w] = n
                ffound[nf] = w
                nf += 1
        if fh == nf:
            break
        n = bfound[bh]
        bh += 1
        for j in range(V[n, NPRED]):
            u = pr[n, j]
            if u == y or H[u, STAMP] == stp:
                par[0, last] = u
                par[1, last] = n
                return True
            if H[u, ORD] > lb and H[u, BSTAMP] != stp:
                H[u, BSTAMP] = stp
                par[1, u] = n
                bfound[nb] = u
                nb += 1
    if fh == nf:
        _move(H, order, olen, lane_i, ffound, nf, STAMP, stp, lb, ub, False, sc, sc_sort)
    else:
        _move(H, order, olen, lane_i, bfound, nb, BSTAMP, stp, lb, ub, True, sc, sc_sort)
    return False


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _heapsort(a, n):
    """a[:n] ascending, in place (no allocation: the kernels run without numba's reference counts)."""
    for start in range(n // 2 - 1, -1, -1):
        _sift(a, start, n)
    for end in range(n - 1, 0, -1):
        a[0], a[end] = a[end], a[0]
        _sift(a, 0, end)


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _sift(a, root, n):
    while True:
        child = 2 * root + 1
        if child >= n:
            return
        if child + 1 < n and a[child + 1] > a[child]:
            child += 1
        if a[root] >= a[child]:
            return
        a[root], a[child] = a[child], a[root]
        root = child


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _move(H, order, olen, lane_i, found, nf, field, stp, lo, ub, front, sc, sc_sort):
    """The found vertices (marked ``field == stp``), in their order, right behind x at ub
    (forward set) or right in front of y at lo (backward set): into the nearest holes there
    (:func:`_near_holes`), else within the places lo..ub behind the rest (the rest packed from
    lo, holes last) or in front of it (the rest packed toward ub, holes between)."""
    keys = sc_sort
    for i in range(nf):
        keys[i] = (np.int64(H[found[i], ORD]) << 32) | found[i]
    _heapsort(keys, nf)
    fs = found
    for i in range(nf):
        fs[i] = keys[i] & 0xFFFFFFFF
        keys[i] >>= 32
    row = order[lane_i]
    if _near_holes(H, row, olen, lane_i, fs, keys, nf, lo, ub, front, sc):
        return
    if front:
        k = ub
        for i in range(ub, lo - 1, -1):
            v = row[i]
            if v >= 0 and H[v, field] != stp:
                row[k] = v
                k -= 1
        for i in range(nf):
            row[lo + i] = fs[i]
        for i in range(lo + nf, k + 1):
            row[i] = -1
    else:
        k = lo
        for i in range(lo, ub + 1):
            v = row[i]
            if v >= 0 and H[v, field] != stp:
                row[k] = v
                k += 1
        for i in range(nf):
            row[k] = fs[i]
            k += 1
        for i in range(k, ub + 1):
            row[i] = -1
    for i in range(lo, ub + 1):
        v = row[i]
        if v >= 0:
            H[v, ORD] = i


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def _near_holes(H, row, olen, lane_i, fs, keys, nf, lo, ub, front, sc):
    """Make room for the nf found vertices right behind ub (or in front of lo) by sliding the
    vertices up to the nf-th hole beyond it one way, then put them there. False (nothing done)
    when those holes are farther than the places lo..ub the other way round would pass."""
    span = ub - lo
    cnt = 0
    if front:
        i = lo - 1
        while i >= 0 and cnt < nf and lo - 1 - i < span:
            if row[i] < 0:
                cnt += 1
            i -= 1
        sc[7] += lo - 1 - i
        if cnt < nf:
            return False
        k = i + 1
        for j in range(i + 1, lo):
            v = row[j]
            if v >= 0:
                if k != j:
                    row[k] = v
                    H[v, ORD] = k
                k += 1
        at = lo - nf
    else:
        i = ub + 1
        n = row.shape[0]
        while i < n and cnt < nf and i - ub - 1 < span:
            if row[i] < 0:
                cnt += 1
            i += 1
        sc[7] += i - ub - 1
        if cnt < nf:
            return False
        k = i - 1
        for j in range(i - 1, ub, -1):
            v = row[j]
            if v >= 0:
                if k != j:
                    row[k] = v
                    H[v, ORD] = k
                k -= 1
        at = ub + 1
        olen[lane_i] = max(olen[lane_i], i)
    for j in range(nf):
        row[keys[j]] = -1
    for j in range(nf):
        row[at + j] = fs[j]
        H[fs[j], ORD] = at + j
    return True


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def cycle_path(par, out):
    """After :func:`reorder` found a cycle: the vertices y ... x of the path that closes it, into
    ``out``; returns their count."""
    last = par.shape[1] - 1
    a, b = par[0, last], par[1, last]
    n = 0
    while a >= 0:                  # a back to y, reversed below
        out[n] = a
        n += 1
        a = par[0, a]
    for i in range(n // 2):
        out[i], out[n - 1 - i] = out[n - 1 - i], out[i]
    while b >= 0:
        out[n] = b
        n += 1
        b = par[1, b]
    return n


@njit(cache=True, nogil=True, **NO_REFCOUNTS)
def compact(H, order, olen, sc, lane_i):
    """The layer's order without its holes, then spread out with one hole behind each vertex
    (room for a single vertex moved next to it, :func:`reorder`)."""
    row = order[lane_i]
    n = 0
    for i in range(olen[lane_i]):
        v = row[i]
        if v >= 0:
            row[n] = v
            n += 1
    for i in range(n, olen[lane_i]):
        row[i] = -1
    gap = 2 if 2 * n + 2 <= row.shape[0] else 1
    for j in range(n - 1, -1, -1):
        v = row[j]
        row[j] = -1
        row[gap * j] = v
        H[v, ORD] = gap * j
    olen[lane_i] = gap * n
    sc[7] = 0
