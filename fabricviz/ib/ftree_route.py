"""The ftree routing walk (OpenSM ``do_routing``), compiled: one destination LID at a time.

For each destination the walk starts at the switch that owns it (a CN's leaf,
or the switch itself) and climbs: at every switch it first gives the switches
below it (other subtrees) an up-going route toward itself ("upgoing by going
down"), then picks ONE up group — least down-going load, then lowest remote
index — and its least-loaded port as the main down-going path, and also
routes the other up groups' switches (secondary paths, no load counted).
Destinations go in this order: CNs per leaf in leaf-index order, each leaf
topped up with "dummy" CNs to the largest CN count of any leaf (they only
move the load counters), then non-CN CA ports, then every switch's own LID.

:func:`~.ftree.route_tree_reference` is that walk as OpenSM writes it (two mutually
recursive functions on Python lists); :func:`route_tree` runs the same steps in the
same order on flat arrays, compiled (numba), with the recursion as an explicit stack
of frames. Exactness notes (OpenSM 3.3, same code since 2019):

* port-group arrays are re-sorted in place by bubble sorts; with the keys
  (counter, remote index) those equal a stable sort of the current order, done
  here as an insertion sort on one integer per group, ``counter * K + index rank``.
  The down groups of a switch are re-sorted only after one of their up-going
  counters moved (``counter_up_changed``), so leaf switches keep port order.
* the "least loaded remote switch" step of ``port_group_compare_load_down``
  always compares 0 with 0 (only up groups' down counters ever move, and it
  reads the remote switch's *down* groups), so it is left out.
* per destination the hop and LFT columns start empty (LID 0, used by the
  dummies, is cleared after each one).
* the arrays are sorted in place while a walk iterates them by position, as
  OpenSM's (and the reference's) do; the reference's one copy (down groups
  followed by siblings, for a real LID) is never re-sorted during its loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from .kernels import scatter_columns
from .lids import Lids
from .subnet import NO_PATH

if TYPE_CHECKING:
    from .ftree import FatTree

_UP, _DOWN = 0, 1          # frame kinds: upgoing (routes below s toward it), downgoing (climbs)


def _csr(lists: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, flat values) of a list of int lists."""
    ptr = np.zeros(len(lists) + 1, np.int64)
    ptr[1:] = np.cumsum([len(x) for x in lists])
    flat = np.fromiter((v for x in lists for v in x), np.int64, int(ptr[-1]))
    return ptr, flat


def route_tree(ft: FatTree, lids: Lids) -> tuple[np.ndarray, list]:
    """LFTs [S, max_lid+1] (255 = none) and the CN order (LID, or None for a dummy) per leaf:
    :func:`~.ftree.route_tree_reference`'s result, compiled. ``ft``'s group lists are
    not changed (the walk sorts its own copies)."""
    S = len(ft.rank)
    none_key = (0xFF,) * 8
    keys = sorted(set(ft.tuples) | {none_key})
    rank_of = {k: i for i, k in enumerate(keys)}
    kr = np.array([rank_of[ft.tuples[r]] if r >= 0 else rank_of[none_key] for r in ft.g_remote], np.int64)
    down_ptr, down_g = _csr(ft.down)
    up_ptr, up_g = _csr(ft.up)
    sib_ptr, sib_g = _csr(ft.sib)
    gp_ptr, gp_e = _csr(ft.g_ports)
    g_remote = np.asarray(ft.g_remote, np.int64)
    cone, has_ca = _cones(ft)
    n_cn = sum(1 for s in ft.leaf_switches for g in ft.down[s] if ft.g_remote[g] < 0)
    n_dummy = len(ft.leaf_switches) * ft.max_cn_per_leaf - n_cn
    cols = np.empty((n_cn + S, S), np.uint8)
    col_lid = np.empty(n_cn + S, np.int64)
    ca_order = np.empty(n_cn + n_dummy, np.int64)
    _walk_all(np.asarray(ft.rank, np.int64), np.asarray(ft.sw_lid, np.int64),
              down_ptr, down_g, up_ptr, up_g, sib_ptr, sib_g, g_remote,
              np.asarray(ft.g_rlid, np.int64), gp_ptr, gp_e,
              np.asarray(ft.e_num, np.int64), np.asarray(ft.e_rnum, np.int64), kr, len(keys) + 1,
              np.asarray(ft.leaf_switches, np.int64), ft.max_cn_per_leaf, cone, has_ca,
              cols, col_lid, ca_order)
    out = np.full((S, lids.max_lid + 1), NO_PATH, np.uint8)
    scatter_columns(cols, col_lid, out)
    return out, [None if x < 0 else int(x) for x in ca_order.tolist()]


def _cones(ft: FatTree) -> tuple[np.ndarray, np.ndarray]:
    """Per switch: the id of its set of switch children (-1: it has siblings, never bounded)
    and whether it has CA groups. Switches of one pod share their leaves, so a walk that has
    given every leaf of the pod its route can skip the pod's other switches' scans."""
    ids: dict[frozenset[int], int] = {}
    cone = np.full(len(ft.rank), -1, np.int64)
    has_ca = np.zeros(len(ft.rank), np.bool_)
    for s, groups in enumerate(ft.down):
        kids = frozenset(ft.g_remote[g] for g in groups if ft.g_remote[g] >= 0)
        has_ca[s] = any(ft.g_remote[g] < 0 for g in groups)
        if not ft.sib[s]:
            cone[s] = ids.setdefault(kids, len(ids))
    return cone, has_ca


@njit(cache=True, nogil=True)
def _sort_groups(flat: np.ndarray, lo: int, hi: int, count: np.ndarray, kr: np.ndarray, K: int) -> None:
    """Stable sort of flat[lo:hi] (group ids) by (count[g], remote index rank kr[g])."""
    for i in range(lo + 1, hi):
        g = flat[i]
        key = count[g] * K + kr[g]
        j = i - 1
        while j >= lo and count[flat[j]] * K + kr[flat[j]] > key:
            flat[j + 1] = flat[j]
            j -= 1
        flat[j + 1] = g


@njit(cache=True, nogil=True, inline="always")
def _least_port(gp_ptr: np.ndarray, gp_e: np.ndarray, g: int, count: np.ndarray) -> int:
    """The group's first port entry with the lowest counter."""
    p = gp_e[gp_ptr[g]]
    best = count[p]
    for k in range(gp_ptr[g] + 1, gp_ptr[g + 1]):
        q = gp_e[k]
        if count[q] < best:
            p, best = q, count[q]
    return p


@njit(cache=True, nogil=True)
def _walk_all(rank, sw_lid, down_ptr, down_g, up_ptr, up_g, sib_ptr, sib_g, g_remote, g_rlid,
              gp_ptr, gp_e, e_num, e_rnum, kr, K, leaf_switches, max_cn_per_leaf, cone, has_ca,
              cols, col_lid, ca_order):
    """Every destination's walk (see the module notes); column c of ``cols`` is LID ``col_lid[c]``.

    One short cut, exact: hops only fall during a walk (a real LID's: a dummy's start switch
    has no LFT entry and may be routed again, farther), so once an upgoing scan at hops h has
    finished, every child of that switch has hops <= h, and ``cb[cone]`` keeps that bound for
    all switches with the same children. A later upgoing at h' >= bound would skip every
    child: only its sorts (which persist) are done, and it reports "created" iff it has CAs.
    """
    S = len(rank)
    ng, ne = len(g_remote), len(e_rnum)
    g_cup = np.zeros(ng, np.int64)
    g_cdown = np.zeros(ng, np.int64)
    e_cup = np.zeros(ne, np.int64)
    e_cdown = np.zeros(ne, np.int64)
    changed = np.zeros(S, np.bool_)
    ends_here = np.zeros(S, np.bool_)      # only CA groups below and no siblings: upgoing is a no-op
    for s in range(S):
        if down_ptr[s + 1] > down_ptr[s] and sib_ptr[s + 1] == sib_ptr[s]:
            ends_here[s] = True
            for k in range(down_ptr[s], down_ptr[s + 1]):
                if g_remote[down_g[k]] >= 0:
                    ends_here[s] = False
    lft = np.full(S, NO_PATH, np.uint8)
    hops = np.full(S, NO_PATH, np.int64)
    cb = np.full(max(cone.max() + 1, 1), NO_PATH, np.int64)    # per cone: all children have hops <= cb
    D = 4 * S + 16                         # frames: a walk never revisits a switch at fewer hops
    fk = np.zeros(D, np.int64)             # kind (_UP / _DOWN)
    fs = np.zeros(D, np.int64)             # switch
    fprev = np.zeros(D, np.int64)          # the switch the walk came from (-1: none)
    fh = np.zeros(D, np.int64)             # hops at s
    fmain = np.zeros(D, np.bool_)          # downgoing on the main (load-counting) path
    fcre = np.zeros(D, np.bool_)           # a route was created below
    fph = np.zeros(D, np.int64)            # where the frame resumes
    fi = np.zeros(D, np.int64)             # loop position
    fg = np.zeros(D, np.int64)             # group of the pending child (upgoing)
    fp = np.zeros(D, np.int64)             # its port entry
    fgmin = np.zeros(D, np.int64)          # downgoing: the main up group and port
    fpmin = np.zeros(D, np.int64)
    ncol = 0
    nord = 0

    for step in range(2):
        lim = len(leaf_switches) if step == 0 else S
        for li in range(lim):
            s0 = leaf_switches[li] if step == 0 else li
            n_real = 0
            j = 0
            while True:
                # pick this walk's destination: the next CN of leaf s0, a dummy, or switch s0
                if step == 1:
                    if j > 0:
                        break
                    lid, start_port, start_h, main = sw_lid[s0], 0, 0, False
                else:
                    nd = down_ptr[s0 + 1] - down_ptr[s0]
                    while j < nd and g_remote[down_g[down_ptr[s0] + j]] >= 0:
                        j += 1
                    if j < nd:
                        g = down_g[down_ptr[s0] + j]
                        lid, start_port, start_h, main = g_rlid[g], e_num[gp_e[gp_ptr[g]]], 1, True
                        n_real += 1
                    elif n_real < max_cn_per_leaf:
                        lid, start_port, start_h, main = 0, NO_PATH, 1, True
                        n_real += 1
                    else:
                        break
                j += 1
                lft[:] = NO_PATH
                hops[:] = NO_PATH
                cb[:] = NO_PATH
                bounded = lid != 0
                lft[s0] = start_port
                hops[s0] = start_h
                # ---- downgoing(s0, -1, lid, main, h) as an explicit stack
                top = 1
                fk[0], fs[0], fprev[0], fh[0], fmain[0], fph[0] = _DOWN, s0, -1, start_h, main, 0
                ret = False
                while top > 0:
                    if top >= D - 1:
                        raise RuntimeError("ftree walk deeper than its frame stack")
                    k = top - 1
                    s = fs[k]
                    h1 = fh[k] + 1
                    if fk[k] == _UP:
                        if fph[k] == 0:
                            if ends_here[s]:
                                ret = True
                                top -= 1
                                continue
                            if down_ptr[s + 1] == down_ptr[s]:
                                ret = False
                                top -= 1
                                continue
                            if changed[s]:
                                _sort_groups(down_g, down_ptr[s], down_ptr[s + 1], g_cup, kr, K)
                                changed[s] = False
                            if sib_ptr[s + 1] > sib_ptr[s]:
                                _sort_groups(sib_g, sib_ptr[s], sib_ptr[s + 1], g_cup, kr, K)
                            if bounded and cone[s] >= 0 and cb[cone[s]] <= h1:
                                ret = has_ca[s]
                                top -= 1
                                continue
                            fcre[k] = False
                            fi[k] = 0
                            fph[k] = 1
                        elif fph[k] == 2:                  # back from upgoing(r)
                            if ret:
                                fcre[k] = True
                                e_cup[fp[k]] += 1
                                g_cup[fg[k]] += 1
                                changed[s] = True
                            fph[k] = 1
                        nd = down_ptr[s + 1] - down_ptr[s]
                        n = nd + (sib_ptr[s + 1] - sib_ptr[s] if lid != 0 else 0)
                        pushed = False
                        while fi[k] < n:
                            i = fi[k]
                            fi[k] += 1
                            g = down_g[down_ptr[s] + i] if i < nd else sib_g[sib_ptr[s] + i - nd]
                            r = g_remote[g]
                            if r < 0:
                                fcre[k] = True
                                continue
                            if hops[r] <= h1 or r == fprev[k]:
                                continue
                            p = _least_port(gp_ptr, gp_e, g, e_cup)
                            lft[r] = e_rnum[p]
                            hops[r] = h1
                            if ends_here[r]:                # upgoing(r) returns True at once
                                fcre[k] = True
                                e_cup[p] += 1
                                g_cup[g] += 1
                                changed[s] = True
                                continue
                            if bounded and cone[r] >= 0 and cb[cone[r]] <= h1 + 1 and down_ptr[r + 1] > down_ptr[r]:
                                # upgoing(r) would skip every child: its sort, and "created" iff CAs
                                if changed[r]:
                                    _sort_groups(down_g, down_ptr[r], down_ptr[r + 1], g_cup, kr, K)
                                    changed[r] = False
                                if has_ca[r]:
                                    fcre[k] = True
                                    e_cup[p] += 1
                                    g_cup[g] += 1
                                    changed[s] = True
                                continue
                            fg[k], fp[k], fph[k] = g, p, 2
                            fk[top], fs[top], fprev[top], fh[top], fph[top] = _UP, r, -1, h1, 0
                            top += 1
                            pushed = True
                            break
                        if not pushed:
                            ret = fcre[k]
                            top -= 1
                            if bounded and cone[s] >= 0 and cb[cone[s]] > h1:
                                cb[cone[s]] = h1
                        continue
                    # ---- a downgoing frame
                    ph = fph[k]
                    if ph == 0:                             # created = upgoing(s, prev, lid, h)
                        fph[k] = 1
                        fk[top], fs[top], fprev[top], fh[top], fph[top] = _UP, s, fprev[k], fh[k], 0
                        top += 1
                        continue
                    if ph == 1:
                        fcre[k] = ret
                        if rank[s] == 0:
                            top -= 1
                            continue
                        lo, hi = up_ptr[s], up_ptr[s + 1]
                        if hi - lo > 1:
                            _sort_groups(up_g, lo, hi, g_cdown, kr, K)
                        gmin = up_g[lo]
                        pmin = _least_port(gp_ptr, gp_e, gmin, e_cdown)
                        fgmin[k], fpmin[k] = gmin, pmin
                        if fmain[k]:
                            r = g_remote[gmin]
                            g_cdown[gmin] += 1
                            e_cdown[pmin] += 1
                            if lft[r] == NO_PATH or h1 < hops[r]:
                                lft[r] = e_rnum[pmin]
                                hops[r] = h1
                            fph[k] = 2
                            fk[top], fs[top], fprev[top], fh[top], fmain[top], fph[top] = _DOWN, r, s, h1, True, 0
                            top += 1
                            continue
                        fi[k] = 0
                        fph[k] = 3
                    elif ph == 2:                           # back from the main path
                        if ret:
                            fcre[k] = True
                        fi[k] = 1
                        fph[k] = 3
                    elif ph == 4:                           # back from a secondary up path
                        if ret:
                            fcre[k] = True
                        fph[k] = 3
                    elif ph == 6:                           # back from a sibling's downgoing
                        if ret:
                            fcre[k] = True
                            g_cdown[fgmin[k]] += 1
                            e_cdown[fpmin[k]] += 1
                        fph[k] = 5
                    if fph[k] == 3:
                        lo, hi = up_ptr[s], up_ptr[s + 1]
                        pushed = False
                        while fi[k] < hi - lo:
                            g = up_g[lo + fi[k]]
                            fi[k] += 1
                            r = g_remote[g]
                            if lft[r] != NO_PATH and h1 >= hops[r]:
                                continue
                            p = _least_port(gp_ptr, gp_e, g, e_cdown)
                            lft[r] = e_rnum[p]
                            hops[r] = h1
                            fph[k] = 4
                            fk[top], fs[top], fprev[top], fh[top], fmain[top], fph[top] = _DOWN, r, s, h1, False, 0
                            top += 1
                            pushed = True
                            break
                        if pushed:
                            continue
                        lo, hi = sib_ptr[s], sib_ptr[s + 1]
                        if hi - lo > 1:
                            _sort_groups(sib_g, lo, hi, g_cdown, kr, K)
                        fi[k] = 0
                        fph[k] = 5
                    # fph[k] == 5: the sibling loop
                    lo, hi = sib_ptr[s], sib_ptr[s + 1]
                    pushed = False
                    while fi[k] < hi - lo:
                        g = sib_g[lo + fi[k]]
                        fi[k] += 1
                        r = g_remote[g]
                        if lft[r] != NO_PATH and h1 >= hops[r]:
                            continue
                        p = _least_port(gp_ptr, gp_e, g, e_cdown)
                        lft[r] = e_rnum[p]
                        hops[r] = h1
                        fph[k] = 6
                        fk[top], fs[top], fprev[top], fh[top], fmain[top], fph[top] = _DOWN, r, s, h1, False, 0
                        top += 1
                        pushed = True
                        break
                    if not pushed:
                        ret = fcre[k]
                        top -= 1
                if step == 0:
                    ca_order[nord] = lid if lid != 0 else -1
                    nord += 1
                if lid != 0:
                    cols[ncol, :] = lft
                    col_lid[ncol] = lid
                    ncol += 1


def warm_up() -> None:
    """Load the compiled walk with a one-switch fabric (see :func:`.kernels.warm_up`)."""
    z, one = np.zeros(1, np.int64), np.zeros(2, np.int64)
    no = np.zeros(0, np.int64)
    _walk_all(z, z, one, no, one, no, one, no, no, no, z, no, no, no, no, 1, no, 0,
              np.full(1, -1, np.int64), np.zeros(1, np.bool_), np.zeros((1, 1), np.uint8), z, no)
