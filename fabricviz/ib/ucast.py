"""OpenSM's generic LFT builder (stage 2 of minhop, also used by updn and dnup).

For every switch, destinations are taken in OpenSM's *port order* — first the
CA ports grouped by the switch they hang off, switches with the most end-port
links first (a stable qsort of the GUID-ordered switch list), then every other
port (switch port 0s included) in port-GUID order — and each destination LID
goes out of the least-hop port that has carried the fewest CA routes so far,
the lowest port number winning ties (``osm_switch_recommend_path``: strict <).
Routes to switch LIDs are chosen the same way but not counted.

Each switch's choices depend only on its own counters, so at LMC 0 the compiled
kernels (:mod:`.kernels`) take the destinations to one target switch as a run and
reuse its candidate ports for every switch; LMC > 0 keeps the vectorised numpy
walk (one step per destination LID for all switches at once).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .kernel_progress import warming
from .lids import Lids
from .subnet import NO_PATH, Subnet, numba_loaded, osm_order

#: cand(t) -> bool [S, P+1]: least-hop ports toward target switch t on every switch
CandidateFn = Callable[[int], np.ndarray]


def port_order(sn: Subnet) -> list[tuple[str, int]]:
    """Destinations in OpenSM's order: ("ca", j) for CA port j, ("sw", s) for switch port 0."""
    S = sn.num_switches
    endport_links = np.zeros(S, np.int64)
    ca_at: dict[tuple[int, int], int] = {}
    for k, (s, q) in enumerate(zip(sn.ca_sw.tolist(), sn.ca_sw_port.tolist(), strict=True)):
        if s >= 0:
            ca_at[(s, q)] = k
    not_sw = (sn.nbr_dev >= 0) & (sn.nbr_sw < 0)
    not_sw[:, 0] = False
    endport_links = not_sw.sum(axis=1)
    by_load = sorted(range(S), key=lambda s: -int(endport_links[s]))   # stable, like glibc's msort
    order: list[tuple[str, int]] = []
    flagged: set[int] = set()
    for s in by_load:
        for p in range(1, int(sn.sw_nports[s]) + 1):
            j = ca_at.get((s, p))
            if j is not None and j not in flagged:
                flagged.add(j)
                order.append(("ca", j))
    guids = np.concatenate([sn.sw_guid, sn.ca_guid]).astype(np.uint64)
    for k in osm_order(guids).tolist():
        if k < S:
            order.append(("sw", k))
        elif (k - S) not in flagged:
            order.append(("ca", k - S))
    return order


def build_lfts(sn: Subnet, lids: Lids, least: Callable[[int], np.ndarray], cand: CandidateFn,
               progress: Callable[[int, int], None] | None = None,
               old_lft: np.ndarray | None = None) -> np.ndarray:
    """LFTs [S, max_lid+1] (uint8, NO_PATH = 255) from per-target least hops and candidates.

    ``least(t)`` gives each switch's least hop count to switch t (255 = none).
    ``old_lft`` (same shape or narrower, 255 where unknown): the tables the switches
    already hold; an old entry is kept while its port is still a least-hop port
    with a live link, as OpenSM does on a re-sweep, so only what changed moves.
    LMC 0 on a subnet big enough to pay for loading numba (:func:`compiled`) runs compiled
    (:mod:`.kernels`; with ``cand`` a :class:`HopCandidates`, straight from its hop matrix);
    otherwise the vectorised numpy walk (LMC-aware), which gives the same tables.
    """
    if lids.lmc == 0 and compiled(sn, lids):
        return _build_lfts_lmc0(sn, lids, least, cand, progress, old_lft)
    return _build_lfts_lmc(sn, lids, least, cand, progress, old_lft)


#: LFT entries (switches × (max LID + 1)) from which the compiled kernels route: below it the
#: numpy walk finishes before numba would have loaded (~0.3–0.5 s once per process; k=8 fat tree:
#: 17 k entries, 3 ms by numpy), so small designs and one-shot CLI calls never load it.
COMPILED_FROM_ENTRIES = 100_000


def compiled(sn: Subnet, lids: Lids) -> bool:
    """Whether routing this subnet runs the compiled kernels: when it is big enough to pay for
    loading numba (:data:`COMPILED_FROM_ENTRIES`), or once numba is loaded anyway (a GUI session
    after a big route, dfsssp/lash, a benchmark) — both paths give the same tables. Never while
    the kernels compile in the background (:func:`.kernel_progress.warming`)."""
    return (sn.num_switches * (lids.max_lid + 1) >= COMPILED_FROM_ENTRIES or numba_loaded()) and not warming()



#: Destinations per compiled call of :func:`build_lfts`: progress is reported between calls.
LFT_CHUNK = 4096


def destinations(sn: Subnet, lids: Lids) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The LMC-0 destinations in OpenSM's port order as arrays: (LID, target switch, counted
    (a CA port: its routes load the ports), egress port on the target switch itself). CA
    ports without a LID or a switch are left out (their LFT column stays NO_PATH)."""
    order = port_order(sn)
    kind = np.fromiter((k == "ca" for k, _ in order), bool, len(order))
    idx = np.fromiter((i for _, i in order), np.int64, len(order))
    ca = np.where(kind, idx, 0)
    sw = np.where(kind, 0, idx)
    lid = np.where(kind, lids.ca_lid[ca] if len(lids.ca_lid) else 0, lids.sw_lid[sw]).astype(np.int64)
    t = np.where(kind, sn.ca_sw[ca] if len(sn.ca_sw) else -1, sw).astype(np.int64)
    own = np.where(kind, sn.ca_sw_port[ca] if len(sn.ca_sw_port) else 0, 0).astype(np.int64)
    keep = (lid > 0) & (t >= 0)
    return lid[keep], t[keep], kind[keep], own[keep]


def _build_lfts_lmc0(sn: Subnet, lids: Lids, least: Callable[[int], np.ndarray], cand: CandidateFn,
                     progress: Callable[[int, int], None] | None,
                     old_lft: np.ndarray | None) -> np.ndarray:
    from . import kernels
    S = sn.num_switches
    P1 = sn.nbr_dev.shape[1]
    lft = np.full((S, lids.max_lid + 1), NO_PATH, np.uint8)
    counts = np.zeros((S, P1), np.int64)
    old = np.zeros((0, 0), np.uint8) if old_lft is None else np.ascontiguousarray(old_lft, np.uint8)
    d_lid, d_t, d_counted, d_own = destinations(sn, lids)
    n = len(d_lid)
    if isinstance(cand, HopCandidates):
        cols = np.empty((min(n, LFT_CHUNK), S), np.uint8)
        for lo in range(0, n, LFT_CHUNK):
            hi = min(lo + LFT_CHUNK, n)
            kernels.minhop_hop_table(cand.to, cand.legal, cand.nbr, cand.step_down, cand.down_ok,
                                     d_lid[lo:hi], d_t[lo:hi], d_counted[lo:hi], d_own[lo:hi],
                                     counts, cols[:hi - lo], old)
            kernels.scatter_columns(cols[:hi - lo], d_lid[lo:hi], lft)
            if progress is not None:
                progress(hi, n)
        return lft
    runs = np.flatnonzero(np.diff(d_t)) + 1
    starts = np.concatenate([[0], runs]).tolist()
    ends = np.concatenate([runs, [n]]).tolist()
    done = 0
    for lo, hi in zip(starts, ends, strict=True):
        t = int(d_t[lo])
        c = np.ascontiguousarray(cand(t), np.bool_)
        ls = np.ascontiguousarray(least(t), np.uint8)
        kernels.minhop_candidates_given(c, ls, t, d_lid[lo:hi], d_counted[lo:hi], d_own[lo:hi],
                                        counts, lft, old)
        if progress is not None and hi - done >= 512:
            done = hi
            progress(hi, n)
    return lft


def _build_lfts_lmc(sn: Subnet, lids: Lids, least: Callable[[int], np.ndarray], cand: CandidateFn,
                    progress: Callable[[int, int], None] | None = None,
                    old_lft: np.ndarray | None = None) -> np.ndarray:
    """:func:`build_lfts` for LMC > 0: one vectorised step per destination LID across all
    switches, with OpenSM's LMC-aware port choice (:func:`_lmc_pick`)."""
    S = sn.num_switches
    P1 = sn.nbr_dev.shape[1]
    lft = np.full((S, lids.max_lid + 1), NO_PATH, np.uint8)
    counts = np.zeros((S, P1), np.int64)
    rows = np.arange(S)
    big = np.iinfo(np.int64).max
    order = port_order(sn)
    offsets = range(1 << lids.lmc)
    cache_t = -1
    cache: tuple[np.ndarray, np.ndarray] | None = None
    no_start = np.zeros(S, np.int64)             # offset 0: no rotation
    total = len(order) * len(offsets)
    lmc_mode = lids.lmc > 0
    if lmc_mode:   # per (switch, CA port): remote nodes its LIDs already go to, and how often
        width = 1 << lids.lmc
        used = np.full((S, len(sn.ca_ports), width), -1, np.int64)
        fwd = np.zeros((S, len(sn.ca_ports), width), np.int64)
        node_of = sn.nbr_dev
    done = 0
    for off in offsets:
        for kind, idx in order:
            done += 1
            if progress is not None and done % 512 == 0:
                progress(done, total)
            if kind == "sw":
                if off:
                    continue                    # base switch port 0 has one LID
                t = idx
                lid = int(lids.sw_lid[t])
                counted = False
            else:
                base = int(lids.ca_lid[idx])
                if base == 0:
                    continue
                lid = base + off
                t = int(sn.ca_sw[idx])
                counted = True
                if t < 0:
                    continue                     # CA not on a switch: NO_PATH, not counted
            if lid == 0:
                continue
            if t != cache_t:
                cache_t = t
                c = cand(t)
                ls = least(t)
                cache = (c, ls)
            assert cache is not None             # set on the first destination (t >= 0)
            c, ls = cache
            start = (lft[:, lid - 1].astype(np.int64) + 1) % (sn.sw_nports + 1) if off else no_start
            if lmc_mode and counted:
                rot = (lambda a, start=start: _rotate_rows(a, start)) if off else (lambda a: a)
                best, ok = _lmc_pick(rot(c), rot(counts), rot(node_of), used[:, idx], fwd[:, idx])
            else:
                score = np.where(c, counts, big)
                if off:   # scan starts after the port used for the previous LID of this port
                    score = _rotate_rows(score, start)
                best = score.argmin(axis=1)
                ok = score[rows, best] < big
            if off:
                best = (best + start) % P1
            if old_lft is not None and lid < old_lft.shape[1]:
                prev = old_lft[:, lid].astype(np.int64)
                keep = (prev != NO_PATH) & (prev < P1)
                keep &= c[rows, np.where(keep, prev, 0)]
                best = np.where(keep, prev, best)
                ok = ok | keep
            out = np.where(ok & (ls != NO_PATH), best, NO_PATH)
            if kind == "sw":
                out[t] = 0
            else:
                out[t] = int(sn.ca_sw_port[idx])
            lft[:, lid] = out
            if counted:
                hit = out != NO_PATH
                counts[rows[hit], out[hit]] += 1
                if lmc_mode:
                    _track_remote(used[:, idx], fwd[:, idx], node_of, out)
    return lft


def _lmc_pick(c: np.ndarray, cnt: np.ndarray, node: np.ndarray, used: np.ndarray,
              fwd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """OpenSM's LMC-aware choice (osm_switch_recommend_path with routing_for_lmc), per switch.

    Ports are given in scan order. Prefer the least-loaded least-hop port that leads
    to a system not yet used by this port's other LIDs; failing that, among equally
    loaded ports, the one whose remote system was forwarded to least. A system here
    is the remote node (system image GUID = node GUID, as ibsim reports it).
    """
    S, P1 = c.shape
    big = np.iinfo(np.int64).max
    least = np.full(S, big)
    best = np.full(S, -1, np.int64)
    lft = np.full(S, big)
    os_least = np.full(S, big)
    os_best = np.full(S, -1, np.int64)
    for k in range(P1):
        ck = c[:, k]
        if not ck.any():
            continue
        n = cnt[:, k]
        match = (used == node[:, k][:, None]) & (used >= 0)
        found = match.any(axis=1)
        fw = np.where(found, fwd[np.arange(S), match.argmax(axis=1)], 0)
        upd = ck & ~found & (n < os_least)
        os_least = np.where(upd, n, os_least)
        os_best = np.where(upd, k, os_best)
        lft = np.where(upd, 0, lft)
        lower = ck & (n < least)
        best = np.where(lower, k, best)
        least = np.where(lower, n, least)
        lft = np.where(lower & found & (fw < lft), fw, lft)
        eq = ck & ~lower & (n == least) & found & (fw < lft)
        lft = np.where(eq, fw, lft)
        best = np.where(eq, k, best)
    ok = best >= 0
    best = np.where(ok & (os_best >= 0), os_best, best)
    return np.where(ok, best, 0), ok


def _track_remote(used: np.ndarray, fwd: np.ndarray, node_of: np.ndarray, out: np.ndarray) -> None:
    """find_and_add_remote_sys + forwarded_to++ for the port each switch chose."""
    S = used.shape[0]
    rows = np.arange(S)
    valid = (out != NO_PATH) & (out > 0)
    node = np.where(valid, node_of[rows, np.where(valid, out, 0)], -1)
    match = (used == node[:, None]) & (used >= 0) & valid[:, None]
    found = match.any(axis=1)
    slot = np.where(found, match.argmax(axis=1), (used >= 0).sum(axis=1))
    add = valid & ~found & (slot < used.shape[1])
    used[rows[add], slot[add]] = node[add]
    inc = valid & (found | add)
    fwd[rows[inc], slot[inc]] += 1


def _rotate_rows(a: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Row i rotated left by start[i] (scan order start, start+1, … mod width)."""
    n = a.shape[1]
    idx = (np.arange(n)[None, :] + start[:, None]) % n
    return np.take_along_axis(a, idx, axis=1)


class HopCandidates:
    """``cand(t)`` from a hop matrix: port p of switch s leads toward target switch t when its
    neighbour y is one hop nearer t. ``to[t, y]``: hops from y to t (uint8, 255 = none);
    ``legal[s, p]``: a usable switch link; with up/down rules, a step down (``step_down``)
    also needs ``down_ok[t, y]`` (y reaches t going down only). Callable like any
    :data:`CandidateFn`; :func:`build_lfts` reads the arrays directly (compiled)."""

    def __init__(self, to: np.ndarray, legal: np.ndarray, nbr: np.ndarray,
                 step_down: np.ndarray | None = None, down_ok: np.ndarray | None = None) -> None:
        self.to = np.ascontiguousarray(to, np.uint8)
        self.legal = np.ascontiguousarray(legal, np.bool_)
        self.nbr = np.ascontiguousarray(np.where(self.legal, nbr, 0), np.int32)   # half the bytes streamed per target
        self.step_down = (np.zeros_like(self.legal) if step_down is None
                          else np.ascontiguousarray(step_down & self.legal, np.bool_))
        self.down_ok = (np.ones((1, 1), np.bool_) if down_ok is None
                        else np.ascontiguousarray(down_ok, np.bool_))

    def least(self, t: int) -> np.ndarray:
        """Each switch's least hop count to switch t (255 = none)."""
        return self.to[t]

    def __call__(self, t: int) -> np.ndarray:
        via = self.to[t][self.nbr].astype(np.int64)
        d = self.to[t].astype(np.int64)[:, None]
        ok = self.legal & (via != NO_PATH) & (via + 1 == d) & (d != NO_PATH)
        if self.step_down.any():
            ok &= ~self.step_down | self.down_ok[t][self.nbr]
        return ok


def switch_links(sn: Subnet) -> np.ndarray:
    """[S, P+1] bool: port p of switch s is cabled to another switch (port 0 and loopbacks not)."""
    nbr = sn.nbr_sw
    has = nbr >= 0
    has[:, 0] = False
    has &= nbr != np.arange(sn.num_switches)[:, None]       # loopback cables do not count
    return has


def minhop_candidates(sn: Subnet, dist: np.ndarray) -> tuple[Callable, CandidateFn]:
    """least(t) and cand(t) for plain min-hop over switch distances ``dist`` [S, S] (symmetric)."""
    hc = HopCandidates(dist, switch_links(sn), sn.nbr_sw)
    return hc.least, hc
