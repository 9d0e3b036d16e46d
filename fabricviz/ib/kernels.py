"""Compiled inner loops of the subnet manager (numba): all-pairs switch hops and minhop's stage 2.

Imported on first use (numba loads LLVM, ~0.3 s), compiled once and cached on disk
(``cache=True``); every kernel releases the GIL (``nogil``) so a GUI routing in a worker
thread never freezes the UI. The Python callers in :mod:`.subnet` and :mod:`.ucast` say
what is computed; these say how, in loops numpy cannot express without a Python step per
destination LID.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
import time
from collections.abc import Callable, Iterator

import numpy as np
from numba import njit
from numba.core import event
from numba.core.dispatcher import Dispatcher

from .kernel_progress import KERNEL_MODULES, Compiled, Progress

NO_PATH = 255

# index of a single set bit b of a uint64 x: _BIT_INDEX[(x * _DE_BRUIJN) >> 58] (a de Bruijn sequence)
_DE_BRUIJN = np.uint64(0x03F79D71B4CB0A89)
_BIT_INDEX = np.zeros(64, np.int64)
for _b in range(64):
    _BIT_INDEX[((1 << _b) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _b


@njit(cache=True, nogil=True)
def all_pairs_hops(indptr: np.ndarray, indices: np.ndarray, n: int) -> np.ndarray:
    """Hop counts between all nodes of an undirected graph (CSR), [n, n] uint8, 255 = none.

    One breadth-first search for all sources at once: each node holds the set of sources
    that have reached it as a bitset, and a level ORs the neighbours' frontier bits in
    (64 sources per machine word). Distances stop at 254 (255 means no path).
    """
    words = (n + 63) // 64
    seen = np.zeros((n, words), np.uint64)
    front = np.zeros((n, words), np.uint64)
    nxt = np.zeros((n, words), np.uint64)
    dist = np.full((n, n), NO_PATH, np.uint8)
    for v in range(n):
        bit = np.uint64(1) << np.uint64(v & 63)
        seen[v, v >> 6] |= bit
        front[v, v >> 6] |= bit
        dist[v, v] = 0
    level = 0
    while level < NO_PATH - 1:
        level += 1
        grew = False
        for v in range(n):
            for w in range(words):
                nxt[v, w] = 0
            for e in range(indptr[v], indptr[v + 1]):
                u = indices[e]
                for w in range(words):
                    nxt[v, w] |= front[u, w]
            for w in range(words):
                new = nxt[v, w] & ~seen[v, w]
                nxt[v, w] = new
                if new:
                    grew = True
                    seen[v, w] |= new
                    base = w * 64
                    while new:
                        low = new & (~new + np.uint64(1))          # lowest set bit
                        dist[v, base + _BIT_INDEX[(low * _DE_BRUIJN) >> np.uint64(58)]] = level
                        new ^= low
        if not grew:
            break
        front, nxt = nxt, front
    return dist


@njit(cache=True, nogil=True)
def _least_loaded(counts: np.ndarray, s: int, cand: np.ndarray, nc: int) -> int:
    """The first candidate port of switch s with the fewest counted routes (strict <), -1: none."""
    best = -1
    low = np.iinfo(np.int64).max
    for c in range(nc):
        p = cand[c]
        if counts[s, p] < low:
            low = counts[s, p]
            best = p
    return best


@njit(cache=True, nogil=True, inline="always")
def _least_loaded_run(cand: np.ndarray, cc: np.ndarray, nc: int, i: int, j: int, d_counted: np.ndarray,
                      counts: np.ndarray, cols: np.ndarray, s: int) -> None:
    """Destinations i … j-1 of one run through switch s, each to the first candidate with the
    fewest routes (what :func:`_least_loaded` picks one at a time), in passes: a pass walks the
    candidates in order and gives the next counted destination each one still at the pass's
    least count ``low`` (a destination that is not counted takes the same one as the next).
    Candidates behind the walk are at ``low`` + 1 or more, those ahead unchanged, so the first at
    ``low`` ahead is the least loaded; none left: the next pass. O(nc + destinations) a pass."""
    d = i
    c = nc
    low = 0
    while d < j:
        while c < nc and cc[c] != low:
            c += 1
        if c == nc:                            # a new pass from the least count left
            low = cc[0]
            for k in range(1, nc):
                if cc[k] < low:
                    low = cc[k]
            c = 0
            continue
        out = cand[c]
        cols[d, s] = out
        if d_counted[d]:
            counts[s, out] += 1
            cc[c] += 1
            c += 1
        d += 1


@njit(cache=True, nogil=True)
def minhop_hop_table(to: np.ndarray, legal: np.ndarray, nbr: np.ndarray, step_down: np.ndarray,
                     down_ok: np.ndarray, d_lid: np.ndarray, d_t: np.ndarray, d_counted: np.ndarray,
                     d_own: np.ndarray, counts: np.ndarray, cols: np.ndarray, old: np.ndarray) -> None:
    """Stage 2 of minhop for destinations ``d_*`` (OpenSM port order), candidates from hop tables.

    ``to[t, y]``: hops from switch y to target switch t (255 = none). Port p of switch s leads
    toward t when ``legal[s, p]``, its neighbour y = ``nbr[s, p]`` is one hop nearer t, and
    (up/down) the step is not down onto a switch that cannot go on down (``step_down[s, p]``
    and not ``down_ok[t, y]``; ``down_ok`` may be 1×1 when ``step_down`` is all False). Each
    switch is independent, so a run of destinations to one target switch shares its candidate
    list, and the candidates' route counts are kept in a short contiguous copy while the run
    lasts (what :func:`_least_loaded` reads: the first candidate with the fewest routes).
    ``old`` ([S, W], 255 = unknown; 0×0: none): entries kept while still a candidate.
    Writes ``cols[d, s]`` (destination d's LFT column, contiguous per destination: writing
    ``lft[s, lid]`` straight strides a whole LFT row per switch) and counts CA routes in
    ``counts``; :func:`scatter_columns` puts the columns into the LFTs.
    """
    S, P1 = legal.shape
    n = len(d_lid)
    cand = np.empty(P1, np.int64)
    cc = np.empty(P1, np.int64)             # counts[s, cand[c]] while the run lasts
    pos = np.full(P1, -1, np.int64)         # port -> its index in cand, -1: not a candidate
    has_old = old.shape[0] > 0
    big = np.iinfo(np.int64).max
    i = 0
    while i < n:
        t = d_t[i]
        j = i + 1
        while j < n and d_t[j] == t:
            j += 1
        for s in range(S):
            ls = to[t, s]
            nc = 0
            if ls != NO_PATH and s != t:
                for p in range(1, P1):
                    if legal[s, p]:
                        y = nbr[s, p]
                        hy = to[t, y]
                        if hy != NO_PATH and hy + 1 == ls and (not step_down[s, p] or down_ok[t, y]):
                            cand[nc] = p
                            cc[nc] = counts[s, p]
                            pos[p] = nc
                            nc += 1
            if nc and not has_old:
                _least_loaded_run(cand, cc, nc, i, j, d_counted, counts, cols, s)
            else:
                for d in range(i, j):
                    lid = d_lid[d]
                    if s == t:
                        out = d_own[d]
                    elif ls == NO_PATH:
                        out = NO_PATH
                    else:
                        best = -1
                        low = big
                        for c in range(nc):
                            if cc[c] < low:
                                low = cc[c]
                                best = c
                        out = cand[best] if best >= 0 else -1
                        if has_old and lid < old.shape[1]:
                            prev = old[s, lid]
                            if prev < P1 and pos[prev] >= 0:
                                out = prev
                        if out < 0:
                            out = NO_PATH
                    cols[d, s] = out
                    if d_counted[d] and out != NO_PATH:
                        counts[s, out] += 1
                        if out < P1 and pos[out] >= 0:
                            cc[pos[out]] += 1
            for c in range(nc):
                pos[cand[c]] = -1
        i = j


@njit(cache=True, nogil=True)
def minhop_candidates_given(c: np.ndarray, ls: np.ndarray, t: int, d_lid: np.ndarray,
                            d_counted: np.ndarray, d_own: np.ndarray, counts: np.ndarray,
                            lft: np.ndarray, old: np.ndarray) -> None:
    """The same stage 2 for destinations that all sit on target switch t, with the candidate
    ports given (``c[s, p]``, ``ls[s]`` least hops): for engines that supply ``cand(t)`` only."""
    S, P1 = c.shape
    cand = np.empty(P1, np.int64)
    has_old = old.shape[0] > 0
    for s in range(S):
        nc = 0
        for p in range(P1):
            if c[s, p]:
                cand[nc] = p
                nc += 1
        for d in range(len(d_lid)):
            lid = d_lid[d]
            if s == t:
                out = d_own[d]
            elif ls[s] == NO_PATH:
                out = NO_PATH
            else:
                out = _least_loaded(counts, s, cand, nc)
                if has_old and lid < old.shape[1]:
                    prev = old[s, lid]
                    if prev < P1 and c[s, prev]:
                        out = prev
                if out < 0:
                    out = NO_PATH
            lft[s, lid] = out
            if d_counted[d] and out != NO_PATH:
                counts[s, out] += 1


@njit(cache=True, nogil=True)
def scatter_columns(cols: np.ndarray, col_lid: np.ndarray, out: np.ndarray) -> None:
    """``out[s, col_lid[d]] = cols[d, s]`` for every destination d and switch s: per-destination
    LFT columns into the [S, LIDs] table, in cache-sized tiles."""
    n, S = cols.shape
    B = 64
    for s0 in range(0, S, B):
        s1 = min(s0 + B, S)
        for d0 in range(0, n, B):
            d1 = min(d0 + B, n)
            for s in range(s0, s1):
                for d in range(d0, d1):
                    out[s, col_lid[d]] = cols[d, s]


@njit(cache=True, nogil=True)
def count_port_loads(lft: np.ndarray, d: np.ndarray, width: int) -> np.ndarray:
    """[S, width]: per switch, how many of the LIDs ``d`` its LFT sends out of each port, an
    entry at or past ``width - 1`` (NO_PATH among them) counted in the last column; every LID of
    ``d`` must be a column of ``lft`` (not checked here). One pass over the (switch,
    LID) entries, no copy of them: 172 M at the IB maximum, 0.6 s as numpy's take + bincount
    over blocks of switches, ~0.15 s here."""
    S = lft.shape[0]
    out = np.zeros((S, width), np.int64)
    last = width - 1
    for s in range(S):
        for j in range(d.shape[0]):
            p = lft[s, d[j]]
            out[s, p if p < last else last] += 1
    return out


_WARMED = False


def warm_up() -> None:
    """Load the kernels every engine shares (numba's disk cache; compiled on the very first run)
    with tiny inputs, once per process; :func:`~.engines.warm_up` adds each engine's own."""
    global _WARMED
    if _WARMED:
        return
    _WARMED = True
    i64, u8 = np.zeros(1, np.int64), np.zeros((1, 1), np.uint8)
    all_pairs_hops(np.zeros(2, np.int64), np.zeros(0, np.int64), 1)
    scatter_columns(u8, i64, np.zeros((1, 1), np.uint8))
    count_port_loads(u8, np.zeros(1, np.int64), 2)
    no = np.zeros(0, np.int64)
    yes = np.ones((1, 1), np.bool_)
    minhop_hop_table(u8, yes, np.zeros((1, 1), np.int32), ~yes, yes, no, no, np.zeros(0, np.bool_), no,
                     np.zeros((1, 1), np.int64), np.zeros((0, 1), np.uint8), np.zeros((0, 0), np.uint8))
    minhop_candidates_given(yes, np.zeros(1, np.uint8), 0, no, np.zeros(0, np.bool_), no,
                            np.zeros((1, 1), np.int64), np.zeros((1, 1), np.uint8), np.zeros((0, 0), np.uint8))


def kernel_count() -> int:
    """How many kernels numba compiles separately (``inline="always"`` ones are compiled into
    their callers) in the kernel modules (:data:`.kernel_progress.KERNEL_MODULES`, imported here)."""
    seen = 0
    for name in KERNEL_MODULES:
        mod = importlib.import_module(name)
        seen += sum(1 for v in vars(mod).values()
                    if isinstance(v, Dispatcher) and v.__module__ == name
                    and v.targetoptions.get("inline", "never") != "always")
    return seen


class _Listener(event.Listener):
    """Reports each ``numba:compile`` of a kernel (not numba's own helpers) as it ends. A kernel
    called with other argument types compiles again: counted once, each compile reported."""

    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total = progress, total
        self.kernels: set[str] = set()
        self.compiles = 0
        self.started: dict[int, float] = {}
        self.lock = threading.Lock()

    def on_start(self, ev: event.Event) -> None:
        self.started[id(ev.data["dispatcher"])] = time.perf_counter()

    def on_end(self, ev: event.Event) -> None:
        d = ev.data["dispatcher"]
        t0 = self.started.pop(id(d), None)
        fn = getattr(d, "py_func", None)
        module = getattr(fn, "__module__", "")
        if fn is None or module not in KERNEL_MODULES:
            return
        name = f"{module.rsplit('.', 1)[1]}.{fn.__name__}"
        with self.lock:
            again = name in self.kernels
            self.kernels.add(name)
            self.compiles += 1
            done = len(self.kernels)
        if self.progress is not None:
            secs = time.perf_counter() - t0 if t0 is not None else 0.0
            self.progress(Compiled(done, max(self.total, done), name, secs, again))


@contextlib.contextmanager
def compile_listener(progress: Progress | None) -> Iterator[Callable[[], tuple[int, int]]]:
    """While inside, each kernel numba compiles (a disk-cache miss) is reported to ``progress``;
    yields a function giving how many kernels and compiles (signatures) there have been so far."""
    listener = _Listener(progress, kernel_count())
    with event.install_listener("numba:compile", listener):
        yield lambda: (len(listener.kernels), listener.compiles)

