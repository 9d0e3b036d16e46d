"""Compiled loops of dfsssp (numba): the Dijkstra runs with their weight updates, the path walk
through the LFTs, and the channel dependency graphs' cycle search and cuts.

Same pattern as :mod:`.kernels`: ``@njit(cache=True, nogil=True)``, loaded by :func:`warm_up`
before routing is timed. The Python callers in :mod:`.dfsssp` and :mod:`.dfsssp_vl` say what
OpenSM computes and in which order; these keep that order step for step over flat arrays.

CDG layout (one flat store for all VLs; node = VL × C + channel, channels numbered in
channel-ID order so comparing numbers compares OpenSM's keys):

* ``N[node]``: status, DFS back-pointer, left, right (binary search tree), first and last
  out-edge, in-tree flag;
* ``E[edge]``: target node, next out-edge, first and last pair segment, pair count, paths
  counted removed;
* ``G[segment]``: start and length of a run of pairs in ``P``, next segment — an edge's pairs
  are its segments in order, so a batch of pairs is stored once however many edges take it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

INF = 0x7FFFFFFF
NO_PATH = 255
UNKNOWN, GRAY, BLACK = 0, 1, 2
N_ST, N_PRE, N_LEFT, N_RIGHT, N_HEAD, N_TAIL, N_IN = 0, 1, 2, 3, 4, 5, 6
E_TO, E_NEXT, E_SH, E_ST, E_CNT, E_REM = 0, 1, 2, 3, 4, 5
G_START, G_LEN, G_NEXT = 0, 1, 2
OK, BROKEN, BAD_CYCLE = 0, 1, 2          # kernel status: ERR AD14 / AD27 in OpenSM's words


# ---------------------------------------------------------------- SSSP
@njit(cache=True, nogil=True)
def sssp_routes(adj_ptr, adj_link, to, frm, to_port, weight, num_hca, ca_link,
                d_src, d_first, d_sw, d_port, d_lid, d_self, lft, i0, i1, stop_at):
    """Destinations i0..i1-1: one Dijkstra each from vertex ``d_src`` (0: the CA source, wired
    to switch ``d_sw``'s port ``d_port`` at weight 1 when ``d_first``: a port's first LID) on
    complib's 4-ary heap, then the weight update, then LFT column ``d_lid`` (``d_self`` >= 0:
    that switch's own LID, port 0). ``weight`` and the CA link carry over between calls.
    Returns -1, or the first run that left a switch v with ``stop_at[v - 1]`` unreached (at
    INF): its LFT hole is for good, and a CA's switch with one dooms dfsssp (ERR AD14)."""
    n = len(adj_ptr) - 1
    dist = np.empty(n, np.int64)
    used = np.empty(n, np.int64)
    done = np.empty(n, np.bool_)
    key = np.empty(n, np.int64)
    ctx = np.empty(n, np.int64)
    pos = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    sub = np.empty(n, np.int64)
    for d in range(i0, i1):
        src = d_src[d]
        if src == 0 and d_first[d]:
            to[ca_link] = d_sw[d] + 1
            to_port[ca_link] = d_port[d]
            weight[ca_link] = 1
        # the heap: vertices 1..n-1 at INF in order, then vertex 0 for a CA source
        size = 0
        for v in range(n):
            dist[v] = INF
            used[v] = -1
            done[v] = False
        for v in range(1, n):
            key[size] = INF
            ctx[size] = v
            pos[v] = size
            size += 1
        if src == 0:
            key[size] = INF
            ctx[size] = 0
            pos[0] = size
            size += 1
        dist[src] = 0
        done[src] = True
        _sift_up(key, ctx, pos, src, 0)
        no = 0
        while size:
            # cl_heap_extract_root: the last element to the root, sifted down; among equal
            # children the last one wins (<=), a parent moves only for a strictly smaller key
            cur = ctx[0]
            if key[0] >= INF:           # the rest are unreachable: no link, no LFT entry
                break
            size -= 1
            if size:
                tk = key[size]
                tc = ctx[size]
                parent = 0
                first = 1
                while first < size:
                    best = first
                    kb = key[first]
                    last = min(first + 4, size)
                    for c in range(first + 1, last):
                        if key[c] <= kb:
                            best = c
                            kb = key[c]
                    if tk > kb:
                        key[parent] = kb
                        mc = ctx[best]
                        ctx[parent] = mc
                        pos[mc] = parent
                        parent = best
                        first = 4 * best + 1
                    else:
                        break
                key[parent] = tk
                ctx[parent] = tc
                pos[tc] = parent
            done[cur] = True
            order[no] = cur
            no += 1
            dc = dist[cur]
            for j in range(adj_ptr[cur], adj_ptr[cur + 1]):
                link = adj_link[j]
                t = to[link]
                if done[t]:
                    continue
                nd = dc + weight[link]
                if nd < dist[t]:
                    used[t] = link
                    dist[t] = nd
                    _sift_up(key, ctx, pos, t, nd)
        # update_weights: children come out of the heap after their parent
        for v in range(n):
            sub[v] = 0
        for i in range(no - 1, -1, -1):
            v = order[i]
            link = used[v]
            if link >= 0:
                sub[v] += num_hca[v]
                weight[link] += sub[v]
                sub[frm[link]] += sub[v]
        lid = d_lid[d]
        hole = False
        for v in range(1, n):
            lft[v - 1, lid] = to_port[used[v]] if used[v] >= 0 else NO_PATH
            hole |= used[v] < 0 and v != src and stop_at[v - 1]
        if d_self[d] >= 0:
            lft[d_self[d], lid] = 0
        if hole:
            return d
    return -1


@njit(cache=True, nogil=True, inline="always")
def _sift_up(key, ctx, pos, t, nd):
    """cl_heap_modify_key to a smaller key: vertex t sifts up while strictly smaller."""
    child = pos[t]
    while child:
        par = (child - 1) >> 2
        kp = key[par]
        if nd < kp:
            key[child] = kp
            mc = ctx[par]
            ctx[child] = mc
            pos[mc] = child
            child = par
        else:
            break
    key[child] = nd
    ctx[child] = t
    pos[t] = child


# ---------------------------------------------------------------- paths through the LFTs
@njit(cache=True, nogil=True)
def channel_numbers(nbr_sw, nbr_port, sw_lid):
    """(C, [S, ports] channel of each switch-to-switch port, -1: none): OpenSM's channelID
    (local LID, local port, remote LID, remote port, 16 bits each) ranked, so the numbers
    sort as the IDs do (equal IDs, one channel)."""
    S, P1 = nbr_sw.shape
    key = np.empty(S * P1, np.uint64)
    at = np.empty(S * P1, np.int64)
    m = 0
    for s in range(S):
        for p in range(1, P1):
            t = nbr_sw[s, p]
            if t >= 0:
                key[m] = ((np.uint64(sw_lid[s]) << np.uint64(48)) | (np.uint64(p) << np.uint64(32))
                          | (np.uint64(sw_lid[t]) << np.uint64(16)) | np.uint64(nbr_port[s, p]))
                at[m] = s * P1 + p
                m += 1
    chan = np.full((S, P1), -1, np.int64)
    idx = np.argsort(key[:m])
    r = -1
    for i in range(m):
        if i == 0 or key[idx[i]] != key[idx[i - 1]]:
            r += 1
        sp = at[idx[i]]
        chan[sp // P1, sp % P1] = r
    return r + 1, chan


@njit(cache=True, nogil=True)
def channel_paths(lft, nbr_sw, chan, starts, dlids):
    """Path k = start row × len(dlids) + column: the channels (``chan[s, p]``) it takes from
    switch ``starts[row]`` to LID ``dlids[col]``, as CSR (ptr, channels), and whether a hop had
    no LFT entry. At most S + 1 hops are walked, as OpenSM bounds it."""
    S = lft.shape[0]
    L = len(dlids)
    K = len(starts) * L
    ptr = np.zeros(K + 1, np.int64)
    broken = np.zeros(K, np.bool_)
    for rep in range(2):
        if rep == 1:
            for k in range(K):
                ptr[k + 1] += ptr[k]
            out = np.empty(ptr[K], np.int64)
        else:
            out = np.empty(0, np.int64)
        for r in range(len(starts)):
            for c in range(L):
                k = r * L + c
                cur = starts[r]
                dl = dlids[c]
                m = 0
                w = ptr[k]
                for _ in range(S + 1):
                    p = lft[cur, dl]
                    if p == NO_PATH:
                        broken[k] = True
                        break
                    if p == 0:
                        break
                    t = nbr_sw[cur, p]
                    if t < 0:
                        break
                    if rep == 1:
                        out[w + m] = chan[cur, p]
                    m += 1
                    cur = t
                if rep == 0:
                    ptr[k + 1] = m
    return ptr, out, broken


# ---------------------------------------------------------------- the CDGs
@njit(cache=True, nogil=True, inline="always")
def _grow(a, need):
    """2-D ``a`` with room for ``need`` rows (doubling), old rows kept."""
    if need <= a.shape[0]:
        return a
    b = np.empty((max(need, 2 * a.shape[0]), a.shape[1]), a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def new_nodes(vls, C):
    """The node store for ``vls`` CDGs of ``C`` channels each: all UNKNOWN, unlinked."""
    N = np.full((vls * C, 7), -1, np.int64)
    N[:, N_ST] = UNKNOWN
    N[:, N_IN] = 0
    return N


@njit(cache=True, nogil=True, inline="always")
def find_edge(N, E, u, node):
    """u's out-edge to ``node`` (-1: none)."""
    e = N[u, N_HEAD]
    while e >= 0:
        if E[e, E_TO] == node:
            return e
        e = E[e, E_NEXT]
    return -1


@njit(cache=True, nogil=True, inline="always")
def add_path(N, root, E, G, tops, tree, C, chans, lo, hi, start, length):
    """update_channel_dep_graph: channels chans[lo:hi] into VL ``tree``'s CDG (node ids
    tree × C + channel), and pairs P[start:start+length] onto the edge between each two
    consecutive channels (a new edge at the end of the out-edge list). ``tops`` = [next edge,
    next segment]; E and G must have room for hi - lo more rows."""
    last = -1
    base = tree * C
    for i in range(lo, hi):
        node = base + chans[i]
        if N[node, N_IN] == 0:
            _insert(N, root, tree, node)
        if last >= 0:
            e = find_edge(N, E, last, node)
            g = tops[1]
            tops[1] += 1
            G[g, G_START] = start
            G[g, G_LEN] = length
            G[g, G_NEXT] = -1
            if e < 0:
                e = tops[0]
                tops[0] += 1
                E[e, E_TO] = node
                E[e, E_NEXT] = -1
                E[e, E_SH] = g
                E[e, E_ST] = g
                E[e, E_CNT] = length
                E[e, E_REM] = 0
                if N[last, N_TAIL] < 0:
                    N[last, N_HEAD] = e
                else:
                    E[N[last, N_TAIL], E_NEXT] = e
                N[last, N_TAIL] = e
            elif E[e, E_CNT] > 0:
                G[E[e, E_ST], G_NEXT] = g
                E[e, E_ST] = g
                E[e, E_CNT] += length
            else:                       # emptied when its node turned BLACK
                E[e, E_SH] = g
                E[e, E_ST] = g
                E[e, E_CNT] = length
                E[e, E_REM] = 0
        last = node


@njit(cache=True, nogil=True, inline="always")
def _insert(N, root, tree, node):
    """A new node into the unbalanced search tree root[tree] (keyed by node number)."""
    N[node, N_IN] = 1
    cur = root[tree]
    if cur < 0:
        root[tree] = node
        return
    while True:
        side = N_LEFT if node < cur else N_RIGHT
        nxt = N[cur, side]
        if nxt < 0:
            N[cur, side] = node
            return
        cur = nxt


@njit(cache=True, nogil=True, inline="always")
def remove_path(N, E, base, chans, lo, hi):
    """remove_path_from_cdg: count the path removed on each of its edges still there."""
    last = -1
    for i in range(lo, hi):
        node = base + chans[i]
        if last >= 0:
            e = find_edge(N, E, last, node)
            if e >= 0:
                E[e, E_REM] += 1
        last = node


@njit(cache=True, nogil=True)
def pre_order(N, top):
    """The tree's nodes in pre-order (get_next_cdg_node's scan), and each node's place in it."""
    out = np.empty(N.shape[0], np.int64)
    place = np.full(N.shape[0], -1, np.int64)
    m = 0
    stack = np.empty(N.shape[0] + 1, np.int64)
    sp = 0
    if top >= 0:
        stack[0] = top
        sp = 1
    while sp:
        sp -= 1
        node = stack[sp]
        place[node] = m
        out[m] = node
        m += 1
        if N[node, N_RIGHT] >= 0:
            stack[sp] = N[node, N_RIGHT]
            sp += 1
        if N[node, N_LEFT] >= 0:
            stack[sp] = N[node, N_LEFT]
            sp += 1
    return out[:m], place


@njit(cache=True, nogil=True)
def find_cycle(N, E, start, order, scan):
    """search_cycle_in_channel_dep_graph from ``start``: the GRAY node closing a cycle, -1: none.
    ``order`` is the tree's pre-order; ``scan[0]``: no node before it there is UNKNOWN."""
    cur = start
    while cur >= 0:
        N[cur, N_ST] = GRAY
        nxt = -1
        e = N[cur, N_HEAD]
        while e >= 0:
            t = E[e, E_TO]
            st = N[t, N_ST]
            if st == UNKNOWN:
                nxt = t
                break
            if st == GRAY:
                return t
            e = E[e, E_NEXT]
        if nxt >= 0:
            N[nxt, N_PRE] = cur
            cur = nxt
            continue
        N[cur, N_ST] = BLACK
        e = N[cur, N_HEAD]
        while e >= 0:                   # a sink's pairs no longer matter
            E[e, E_SH] = -1
            E[e, E_ST] = -1
            E[e, E_CNT] = 0
            E[e, E_REM] = 0
            e = E[e, E_NEXT]
        back = N[cur, N_PRE]
        if back >= 0:
            N[cur, N_PRE] = -1
            cur = back
        else:                           # get_next_cdg_node
            i = scan[0]
            while i < len(order) and N[order[i], N_ST] != UNKNOWN:
                i += 1
            scan[0] = i
            cur = order[i] if i < len(order) else -1
    return -1


@njit(cache=True, nogil=True)
def _first_gray(N, E, node):
    e = N[node, N_HEAD]
    while e >= 0 and N[E[e, E_TO], N_ST] != GRAY:
        e = E[e, E_NEXT]
    return e


@njit(cache=True, nogil=True)
def cut_weakest(N, E, cycle, place, scan):
    """get_weakest_link_in_cycle: walk the GRAY nodes from ``cycle`` back to it, resetting
    them, and unhook the edge with the fewest remaining pairs (the first such); -1: AD27."""
    e = _first_gray(N, E, cycle)
    if e < 0:
        return -1
    weakest, owner, cur = e, cycle, E[e, E_TO]
    while True:
        N[cur, N_ST] = UNKNOWN
        scan[0] = min(scan[0], place[cur])
        e = _first_gray(N, E, cur)
        if e >= 0:
            if E[e, E_CNT] - E[e, E_REM] < E[weakest, E_CNT] - E[weakest, E_REM]:
                weakest, owner = e, cur
            cur = E[e, E_TO]
        elif cur != cycle:
            return -1
        if cur == cycle:
            N[cur, N_ST] = UNKNOWN
            scan[0] = min(scan[0], place[cur])
            break
    prev = -1
    e = N[owner, N_HEAD]
    while e != weakest:
        prev = e
        e = E[e, E_NEXT]
    nxt = E[weakest, E_NEXT]
    if prev < 0:
        N[owner, N_HEAD] = nxt
    else:
        E[prev, E_NEXT] = nxt
    if N[owner, N_TAIL] == weakest:
        N[owner, N_TAIL] = prev
    return weakest


@njit(cache=True, nogil=True)
def remove_deadlocks(lft, nbr_sw, nbr_port, sw_lid, starts, dlids, row_of, port_of, end_ptr, end_lid,
                     end_ca, vl, paths, idx):
    """dfsssp_remove_deadlocks up to "Virtual Lanes needed". Every pair of LIDs (indices a, b
    into ``dlids``) of different ports (``port_of``) on VL 0 (``vl[a, b]``, else 255); every
    CA-sourced pair into VL 0's CDG, destinations outer and sources inner in port order
    (``end_*``: each port's LID indices and whether it is a CA's), along the path from switch
    ``starts[row_of[a]]``; then VL by VL, cycles cut and their pairs moved to the next VL
    (``paths`` per VL counted). (status, VLs needed)."""
    n = len(dlids)
    C, chan = channel_numbers(nbr_sw, nbr_port, sw_lid)
    ptr, chans, broken = channel_paths(lft, nbr_sw, chan, starts, dlids)
    # AD14 if a used path (row r to b: r has a CA port not b's) met a hole; before any pair store
    cnt = np.zeros(len(starts), np.int64)          # CA ports starting at each row
    for x in range(len(end_ca)):
        if end_ca[x]:
            cnt[row_of[end_lid[end_ptr[x]]]] += 1
    for k in np.flatnonzero(broken):
        b = k % n
        if cnt[k // n] > (1 if end_ca[port_of[b]] and row_of[b] == k // n else 0):
            return BROKEN, 0
    for a in range(n):
        for b in range(n):
            if port_of[a] != port_of[b]:
                vl[a, b] = 0
                paths[0] += 1
            else:
                vl[a, b] = 255
    vls = len(paths)
    N = new_nodes(vls, C)
    root = np.full(vls, -1, np.int64)
    tops = np.zeros(2, np.int64)
    E = np.empty((1024, 6), idx.dtype)
    G = np.empty((1024, 3), idx.dtype)
    nends = len(end_ca)
    ca_lids = 0
    for x in range(nends):
        if end_ca[x]:
            ca_lids += end_ptr[x + 1] - end_ptr[x]
    total = 0
    for x in range(nends):
        nl = end_ptr[x + 1] - end_ptr[x]
        total += (ca_lids - (nl if end_ca[x] else 0)) * nl
    P = np.empty(total + 1, idx.dtype)
    run_k = np.empty(total + 1, idx.dtype)           # runs of consecutive pairs on one path
    run_at = np.empty(total + 1, idx.dtype)
    ptop = 0
    nrun = 0
    for xd in range(nends):
        for xs in range(nends):
            if not end_ca[xs] or xs == xd:
                continue
            for ia in range(end_ptr[xs], end_ptr[xs + 1]):
                a = end_lid[ia]
                for ib in range(end_ptr[xd], end_ptr[xd + 1]):
                    b = end_lid[ib]
                    k = row_of[a] * n + b
                    if nrun == 0 or run_k[nrun - 1] != k:
                        run_k[nrun] = k
                        run_at[nrun] = ptop
                        nrun += 1
                    P[ptop] = a * n + b
                    ptop += 1
    run_at[nrun] = ptop
    for r in range(nrun):
        k = run_k[r]
        lo, hi = ptr[k], ptr[k + 1]
        E = _grow(E, tops[0] + hi - lo)
        G = _grow(G, tops[1] + hi - lo)
        add_path(N, root, E, G, tops, 0, C, chans, lo, hi, run_at[r], run_at[r + 1] - run_at[r])
    needed = 1
    for test in range(vls - 1):
        order, place = pre_order(N, root[test])
        scan = np.zeros(1, np.int64)
        start = root[test]
        while start >= 0:
            cycle = find_cycle(N, E, start, order, scan)
            if cycle >= 0:
                needed = test + 2
                weak = cut_weakest(N, E, cycle, place, scan)
                if weak < 0:
                    return BAD_CYCLE, 0
                cnt = E[weak, E_CNT]
                paths[test] -= cnt
                paths[test + 1] += cnt
                g = E[weak, E_SH]
                while g >= 0:
                    for q in range(G[g, G_START], G[g, G_START] + G[g, G_LEN]):
                        pair = P[q]
                        a = pair // n
                        b = pair - a * n
                        if vl[a, b] != test:          # moved before: not counted twice
                            paths[test] += 1
                            paths[test + 1] -= 1
                            continue
                        k = row_of[a] * n + b
                        lo, hi = ptr[k], ptr[k + 1]
                        remove_path(N, E, test * C, chans, lo, hi)
                        E = _grow(E, tops[0] + hi - lo)
                        G = _grow(G, tops[1] + hi - lo)
                        if ptop == len(P):
                            P2 = np.empty(2 * len(P), idx.dtype)
                            P2[:ptop] = P
                            P = P2
                        P[ptop] = pair
                        add_path(N, root, E, G, tops, test + 1, C, chans, lo, hi, ptop, 1)
                        ptop += 1
                        vl[a, b] = test + 1
                    g = G[g, G_NEXT]
            start = cycle
    last = vls - 1
    if root[last] >= 0:
        order, place = pre_order(N, root[last])
        if find_cycle(N, E, root[last], order, np.zeros(1, np.int64)) >= 0:
            needed = vls + 1
    return OK, needed


@njit(cache=True, nogil=True)
def change_vl(vl, frm, to, count):
    """vltable_change_vl: the first ``count`` paths on VL ``frm`` (source outer, destination
    inner, a LID to itself skipped) to VL ``to``."""
    n = vl.shape[0]
    for a in range(n):
        for b in range(n):
            if count <= 0:
                return
            if a != b and vl[a, b] == frm:
                vl[a, b] = to
                count -= 1


def warm_up() -> None:
    """Load the compiled kernels with tiny inputs (see :func:`.kernels.warm_up`)."""
    z1 = np.zeros(1, np.int64)
    lft = np.zeros((1, 1), np.uint8)
    sssp_routes(np.array([0, 1, 1], np.int64), np.zeros(1, np.int64), np.ones(1, np.int64), z1.copy(),
                z1.copy(), z1.copy(), np.zeros(2, np.int64), 0, z1, np.ones(1, np.bool_), z1, z1, z1,
                np.full(1, -1, np.int64), lft, 0, 1, np.zeros(1, np.bool_))
    vl = np.zeros((1, 1), np.uint8)
    remove_deadlocks(lft, np.full((1, 1), -1, np.int64), z1.reshape(1, 1), z1, z1, z1, z1, z1, np.array(
        [0, 1], np.int64), z1, np.ones(1, np.bool_), vl, np.zeros(2, np.int64), np.empty(0, np.int32))
    change_vl(vl, 0, 1, 0)
