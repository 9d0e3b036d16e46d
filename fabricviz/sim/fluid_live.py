"""The route entries a fluid tick has to touch when flows send on one sub-path at a time.

Under flowlet adaptive routing (:mod:`.flowlets`) a flow injects into one of its sub-paths; the
others hold bytes only while what it sent there before a move drains. Every other entry is zero
on every per-entry array of :class:`~.fluid.FluidSim` (queued, arriving), so a tick over the
entries of the *live* sub-paths — the ones in use and the ones still holding bytes — gives the
same figures to the byte as a tick over all of them (bincounts add the same non-zero terms in the
same order; a zero entry serves, queues and passes on zero). On the radix-8 shuffle of issue 30
that is a few thousand of ~60 k entries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class TickView:
    """The entries one tick works on (all of them, or the live sub-paths'), with the per-entry and
    per-sub-path index arrays the tick needs, restricted to them."""

    ent: np.ndarray | slice  # entries (global ids, ascending), or every entry
    paths: np.ndarray | None  # sub-paths (ascending), or None: every one
    first: np.ndarray        # per sub-path of the view: its first entry's position in the view
    last: np.ndarray         # ... its last entry's position
    pflow: np.ndarray        # per sub-path of the view: its flow
    gid: np.ndarray          # per entry of the view: its (link, ingress) service group
    e_link: np.ndarray
    prev_bin: np.ndarray

    def full(self, x: np.ndarray, n: int) -> np.ndarray:
        """``x`` per entry of the view as a per-entry array of all ``n`` entries (zero elsewhere)."""
        if self.paths is None:
            return x
        out = np.zeros(n)
        out[self.ent] = x
        return out


class LiveEntries:
    """Tracks the sub-paths that hold bytes; :meth:`select` adds those in use this tick."""

    def __init__(self, every: TickView, indptr: np.ndarray) -> None:
        self.every = every
        self.indptr = np.asarray(indptr, np.int64)
        self.hops = np.diff(self.indptr)
        self.paths = np.zeros(0, np.int64)
        self.mask = np.zeros(len(self.hops), bool)
        self._all = np.zeros(len(every.gid))
        self._at: np.ndarray | slice = slice(0, 0)

    def select(self, in_use: np.ndarray) -> TickView:
        """The view of a tick whose senders inject into ``in_use`` (sub-path ids)."""
        self.mask[self.paths] = True
        self.mask[in_use] = True
        paths = np.flatnonzero(self.mask)
        self.mask[paths] = False
        n = self.hops[paths]
        off = np.cumsum(n) - n
        ent = np.repeat(self.indptr[paths] - off, n) + np.arange(int(n.sum()))
        e = self.every
        return TickView(ent, paths, off, off + n - 1, e.pflow[paths], e.gid[ent], e.e_link[ent], e.prev_bin[ent])

    def scatter(self, view: TickView, x: np.ndarray) -> np.ndarray:
        """``x`` per entry of ``view`` as a per-entry array of every entry, zero elsewhere — one buffer
        reused each tick (valid until the next call)."""
        self._all[self._at] = 0.0
        self._all[view.ent] = x
        self._at = view.ent
        return self._all

    def keep(self, view: TickView, held: np.ndarray) -> None:
        """After the tick: ``held`` bytes per entry of ``view`` (queued + arriving); the sub-paths
        still holding some stay live."""
        assert view.paths is not None
        per = np.bincount(np.repeat(np.arange(len(view.paths)), view.last - view.first + 1), weights=held,
                          minlength=len(view.paths))
        self.paths = view.paths[per > 0]
