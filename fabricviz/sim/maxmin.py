"""Max-min fair rates by progressive filling, exact and vectorised over a sparse matrix.

Classic progressive filling raises every unfrozen flow together and freezes the
flows of the first link to fill; with random traffic that needs one round per
distinct bottleneck level (≈15k rounds for 100k flows, see perf.md §3b). Here a
round freezes *every* link whose fair share ``s_l = remaining_l / Σ_active w·a``
is the smallest among the links its flows cross (a local bottleneck), at its own
level. That is exact: shares only grow when flows freeze below them, so nothing
can push a local bottleneck's flows below ``s_l`` and its own capacity stops
them at ``s_l`` — the same fixed point as filling globally, in far fewer rounds.

Inputs: ``A`` (flows × links, CSR) holds the share of a flow's rate each link
carries (1 on its path, a split fraction under adaptive routing), ``cap`` the
link capacities, ``demand`` per-flow caps (NIC rate, application rate; ``inf``
for none) and optional weights (weighted max-min: rate_f = w_f · level). :func:`maxmin_paths` is
the same over one path per flow given as the routes' CSR arrays, without building ``A``. A round
works a chunk of rows at a time (:data:`CHUNK`) and sums per link in entry order, so a run of a
million flows holds no per-entry temporaries and its rates are those of one pass, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

#: Relative tolerance when comparing fair-share levels.
TOL = 1e-12


#: Entries of the flow × link matrix one step of a round works on (rows whole): bounds the
#: water-filling's temporaries on a big run; sums stay in entry order, so the result does not depend on it.
CHUNK = 1 << 16


@dataclass(frozen=True)
class MaxMinResult:
    rate: np.ndarray           # per flow, same unit as cap
    link_load: np.ndarray      # per link
    bottleneck: np.ndarray     # per flow: the link that froze it (-1: its own demand)
    rounds: int


def _segment_min(values: np.ndarray, indptr: np.ndarray, empty: float = np.inf) -> np.ndarray:
    """Minimum of ``values[indptr[i]:indptr[i+1]]`` per row (``empty`` for empty rows)."""
    n = len(indptr) - 1
    out = np.full(n, empty, dtype=np.result_type(values.dtype, np.asarray(empty).dtype))
    nonempty = indptr[1:] > indptr[:-1]
    if values.size and nonempty.any():
        out[nonempty] = np.minimum.reduceat(values, indptr[:-1][nonempty])
    return out


def _chunks(indptr: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges of about :data:`CHUNK` entries each."""
    nnz, rows = int(indptr[-1]), len(indptr) - 1
    cut = np.searchsorted(indptr, np.arange(CHUNK, nnz, CHUNK), side="left")
    bounds = np.unique(np.concatenate([[0], np.minimum(cut, rows), [rows]])).tolist()
    return list(zip(bounds[:-1], bounds[1:], strict=True)) or [(0, 0)]


class _Rows:
    """The working set: CSR rows (``data`` None: every entry 1) of the flows ``ids`` (None: all)."""

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray | None,
                 ids: np.ndarray | None) -> None:
        self.indptr, self.indices, self.data, self.ids = indptr, indices, data, ids
        self.parts = _chunks(indptr)

    def part(self, r0: int, r1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray]:
        """(row ids, local indptr, link per entry, data per entry or None, entries per row) of rows r0..r1-1."""
        s, e = int(self.indptr[r0]), int(self.indptr[r1])
        ptr = self.indptr[r0:r1 + 1] - s
        ids = np.arange(r0, r1) if self.ids is None else self.ids[r0:r1]
        return ids, ptr, self.indices[s:e], None if self.data is None else self.data[s:e], np.diff(ptr)

    def keep(self, rows: np.ndarray) -> _Rows:
        """The rows where ``rows`` is True (copied out a chunk at a time)."""
        lens = np.diff(self.indptr)[rows]
        indptr = np.concatenate([[0], np.cumsum(lens)]).astype(self.indptr.dtype)
        ind = np.empty(int(indptr[-1]), self.indices.dtype)
        data = None if self.data is None else np.empty(len(ind), self.data.dtype)
        at = 0
        for r0, r1 in self.parts:
            _, _, i_c, d_c, l_c = self.part(r0, r1)
            m = np.repeat(rows[r0:r1], l_c)
            k = int(m.sum())
            ind[at: at + k] = i_c[m]
            if data is not None and d_c is not None:
                data[at: at + k] = d_c[m]
            at += k
        ids = np.flatnonzero(rows) if self.ids is None else self.ids[rows]
        return _Rows(indptr, ind, data, ids)


def _weighted(d_c: np.ndarray | None, w: np.ndarray | None, ids: np.ndarray, lens: np.ndarray) -> np.ndarray | float:
    """w·a per entry of a chunk (1.0 when both are 1)."""
    if w is None:
        return 1.0 if d_c is None else d_c
    rep = np.repeat(w[ids], lens)
    return rep if d_c is None else d_c * rep


def _fill(rows: _Rows, cap: np.ndarray, demand: np.ndarray, w: np.ndarray | None,
          F: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(rate, bottleneck, rounds) of the water-filling (module doc) over ``rows``."""
    L = len(cap)
    rate = np.zeros(F)
    bott = np.full(F, -1, np.int64)
    remaining = cap.copy()
    own = demand if w is None else demand / w
    load_w = np.zeros(L)                                             # Σ_active w·a per link
    for r0, r1 in rows.parts:
        ids, _, i_c, d_c, l_c = rows.part(r0, r1)
        np.add.at(load_w, i_c, np.broadcast_to(_weighted(d_c, w, ids, l_c), i_c.shape))
    active = np.ones(len(rows.indptr) - 1, bool)
    nnz0, dropped, rounds = len(rows.indices), 0, 0
    big = np.iinfo(rows.indices.dtype).max
    while active.any():
        rounds += 1
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(load_w > 1e-12, np.maximum(remaining, 0.0) / load_w, np.inf)
        by_demand, lev = np.empty(len(active), bool), np.empty(len(active))
        is_bott = load_w > 1e-12
        for r0, r1 in rows.parts:           # levels; a link is a local bottleneck unless some active
            ids, ptr, i_c, _, l_c = rows.part(r0, r1)   # flow on it sits at a lower level
            rs = share[i_c]
            fmin = _segment_min(rs, ptr)
            own_c = own[ids]
            by_demand[r0:r1] = own_c <= fmin * (1 + TOL)
            lev_c = np.minimum(fmin, own_c)
            lev_c[~active[r0:r1]] = np.inf
            lev[r0:r1] = lev_c
            is_bott[i_c[np.repeat(lev_c, l_c) < rs]] = False     # lv ≤ rs always; equal on the flow's own minimum
        if np.any(active & ~np.isfinite(lev)):
            ids = np.flatnonzero(active & ~np.isfinite(lev))
            bad = ids[0] if rows.ids is None else rows.ids[ids[0]]
            raise ValueError(f"flow {bad} has no link and no demand cap: its rate is unbounded")
        d_rem, d_load = np.zeros(L), np.zeros(L)
        frz = np.zeros(len(active), bool)
        for r0, r1 in rows.parts:
            ids, ptr, i_c, d_c, l_c = rows.part(r0, r1)
            on_bott = is_bott[i_c]
            hit = np.zeros(r1 - r0, bool)
            nonempty = ptr[1:] > ptr[:-1]
            if on_bott.any():
                hit[nonempty] = np.logical_or.reduceat(on_bott, ptr[:-1][nonempty])
            frz_c = active[r0:r1] & (hit | by_demand[r0:r1])
            frz[r0:r1] = frz_c
            m = np.repeat(frz_c, l_c)
            if not m.any():
                continue
            im = i_c[m]
            wa = np.broadcast_to(_weighted(d_c, w, ids, l_c), i_c.shape)[m]
            np.add.at(d_rem, im, wa * np.repeat(lev[r0:r1], l_c)[m])
            np.add.at(d_load, im, wa)
            dropped += len(im)
            # the link that froze each flow (its first local bottleneck by link id), for reporting
            sel = m & on_bott
            if sel.any():
                first = _segment_min(np.where(sel, i_c, big), ptr, big)
                got = first < big
                bott[ids[got]] = first[got]
        if rows.ids is None:                                  # rows are the flows: no index arrays
            if w is None:
                np.copyto(rate, lev, where=frz)
            else:
                np.multiply(lev, w, out=rate, where=frz)
        else:
            fr = rows.ids[frz]
            rate[fr] = lev[frz] if w is None else lev[frz] * w[fr]
        remaining -= d_rem
        load_w -= d_load
        active &= ~frz
        if dropped > 0.15 * nnz0 and active.any():         # compact the working set
            rows = rows.keep(active)
            active = np.ones(len(rows.indptr) - 1, bool)
            nnz0, dropped = len(rows.indices), 0
    return rate, bott, rounds


def _link_sum(rows: _Rows, rate: np.ndarray, n_links: int) -> np.ndarray:
    """Σ rate over each link's rows, rows in order (what ``A.T @ rate`` sums for 0/1 ``A``)."""
    out = np.zeros(n_links)
    for r0, r1 in rows.parts:
        ids, _, i_c, _, l_c = rows.part(r0, r1)
        np.add.at(out, i_c, np.repeat(rate[ids], l_c))
    return out


def maxmin(A: sp.csr_matrix, cap: np.ndarray, demand: np.ndarray | None = None,
           weight: np.ndarray | None = None) -> MaxMinResult:
    """Exact (weighted) max-min fair rates; see module doc."""
    import scipy.sparse as sp
    A = sp.csr_matrix(A, dtype=float)
    A.sum_duplicates()
    F = A.shape[0]
    cap = np.asarray(cap, float)
    demand = np.full(F, np.inf) if demand is None else np.asarray(demand, float)
    w = None if weight is None else np.asarray(weight, float)
    rate, bott, rounds = _fill(_Rows(A.indptr, A.indices, A.data, None), cap, demand, w, F)
    link_load = np.asarray(A.T @ rate).ravel()
    return MaxMinResult(rate, link_load, bott, rounds)


def maxmin_paths(indptr: np.ndarray, links: np.ndarray, cap: np.ndarray, demand: np.ndarray | None = None,
                 rows: np.ndarray | None = None) -> MaxMinResult:
    """:func:`maxmin` of the 0/1 flow × link matrix whose row ``f`` is ``links[indptr[f]:indptr[f+1]]``
    (one path per flow, no link twice on it, any order), without building the matrix: the same
    rates, loads and bottlenecks as ``maxmin`` of that matrix, bit for bit. ``rows`` (bool per
    flow): only those flows run, as ``maxmin`` of the matrix's rows ``rows`` (the others get 0)."""
    cap = np.asarray(cap, float)
    F = len(indptr) - 1
    demand = np.full(F, np.inf) if demand is None else np.asarray(demand, float)
    work = _Rows(indptr, links, None, None)
    if rows is not None:
        work = work.keep(np.asarray(rows, bool))
    rate, bott, rounds = _fill(work, cap, demand, None, F)
    return MaxMinResult(rate, _link_sum(work, rate, len(cap)), bott, rounds)
