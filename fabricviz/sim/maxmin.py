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
for none) and optional weights (weighted max-min: rate_f = w_f · level).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

#: Relative tolerance when comparing fair-share levels.
TOL = 1e-12


@dataclass(frozen=True)
class MaxMinResult:
    rate: np.ndarray           # per flow, same unit as cap
    link_load: np.ndarray      # per link
    bottleneck: np.ndarray     # per flow: the link that froze it (-1: its own demand)
    rounds: int


def _segment_min(values: np.ndarray, indptr: np.ndarray, empty: float = np.inf) -> np.ndarray:
    """Minimum of ``values[indptr[i]:indptr[i+1]]`` per row (``empty`` for empty rows)."""
    n = len(indptr) - 1
    out = np.full(n, empty)
    nonempty = indptr[1:] > indptr[:-1]
    if values.size and nonempty.any():
        out[nonempty] = np.minimum.reduceat(values, indptr[:-1][nonempty])
    return out


def maxmin(A: sp.csr_matrix, cap: np.ndarray, demand: np.ndarray | None = None,
           weight: np.ndarray | None = None) -> MaxMinResult:
    """Exact (weighted) max-min fair rates; see module doc."""
    import scipy.sparse as sp
    A = sp.csr_matrix(A, dtype=float)
    A.sum_duplicates()
    F, L = A.shape
    cap = np.asarray(cap, float)
    demand = np.full(F, np.inf) if demand is None else np.asarray(demand, float)
    w = np.ones(F) if weight is None else np.asarray(weight, float)
    rate = np.zeros(F)
    bott = np.full(F, -1, np.int64)
    remaining = cap.copy()
    # working set: raw CSR arrays of the rows not yet compacted away (data = w·a)
    indptr, indices = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    data = A.data * np.repeat(w, np.diff(indptr))
    rows = np.repeat(np.arange(F), np.diff(indptr))
    ids = np.arange(F)
    active = np.ones(F, bool)
    load_w = np.bincount(indices, weights=data, minlength=L)          # Σ_active w·a per link
    own = demand / w
    nnz0, dropped, rounds = len(indices), 0, 0
    while active.any():
        rounds += 1
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(load_w > 1e-12, np.maximum(remaining, 0.0) / load_w, np.inf)
        rs = share[indices]
        fmin = _segment_min(rs, indptr)
        lev = np.minimum(fmin, own[ids])
        lev[~active] = np.inf
        if np.any(active & ~np.isfinite(lev)):
            bad = ids[active & ~np.isfinite(lev)][0]
            raise ValueError(f"flow {bad} has no link and no demand cap: its rate is unbounded")
        lv = lev[rows]
        # a link is a local bottleneck unless some active flow on it sits at a lower level
        is_bott = load_w > 1e-12
        is_bott[indices[lv < rs]] = False          # lv ≤ rs always; equal on the flow's own minimum
        on_bott = is_bott[indices]
        hit = np.zeros(len(ids), bool)
        nonempty = indptr[1:] > indptr[:-1]
        if on_bott.any():
            hit[nonempty] = np.logical_or.reduceat(on_bott, indptr[:-1][nonempty])
        by_demand = own[ids] <= fmin * (1 + TOL)
        frz = active & (hit | by_demand)
        fr = ids[frz]
        rate[fr] = lev[frz] * w[fr]
        m = frz[rows]
        remaining -= np.bincount(indices[m], weights=data[m] * lv[m], minlength=L)
        load_w -= np.bincount(indices[m], weights=data[m], minlength=L)
        # the link that froze each flow (first local bottleneck on its path), for reporting
        sel = m & on_bott
        if sel.any():
            r_u, first = np.unique(rows[sel], return_index=True)
            bott[ids[r_u]] = indices[sel][first]
        active &= ~frz
        dropped += int(m.sum())
        if dropped > 0.15 * nnz0 and active.any():         # compact the working set
            keep = active
            lens = np.diff(indptr)[keep]
            mk = keep[rows]
            indices, data = indices[mk], data[mk]
            ids, active = ids[keep], np.ones(int(keep.sum()), bool)
            indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
            rows = np.repeat(np.arange(len(ids)), lens)
            nnz0, dropped = len(indices), 0
    link_load = np.asarray(A.T @ rate).ravel()
    return MaxMinResult(rate, link_load, bott, rounds)
