"""EQDS's choice of path per packet (htsim eqds.cpp ``nextEntropy`` / ``penalizePath``).

A flow holds ``entropies`` path ids (htsim ``_path_entropy_size``), each hashed onto one of its
equal-cost sub-paths. Packets take them in turn, in the order ``index XOR x`` with a fresh random
``x`` every pass (``_path_xor = rand() & mask`` at each wrap). A NACK — a trimmed packet — penalizes
the path id that packet took: the next pass skips it once (``_ev_skip_bitmap``, at most
``_max_penalty`` = 1). The model knows which sub-path a trimmed packet took, not which of the path
ids that hash there: each ``mtu`` of trimmed bytes on a sub-path penalizes one of its path ids not
already penalized.
"""

from __future__ import annotations

import numpy as np

#: eqds.cpp: _max_penalty = 1
MAX_PENALTY = 1


class Entropies:
    """Path ids per flow, their pass order and penalties (module doc)."""

    def __init__(self, seq: np.ndarray, rng: np.random.Generator, mtu: int, n_paths: int | None = None) -> None:
        self.seq = seq                                   # [flows, entropies]: the sub-path of each path id
        F, n = seq.shape
        if n & (n - 1):
            raise ValueError(f"{n} path entropies: htsim needs a power of 2")
        self.n, self.mask, self.mtu = n, n - 1, float(mtu)
        self.rng = rng
        self.index = np.zeros(F, np.int64)
        self.xor = np.asarray(rng.integers(0, n, size=F), np.int64)
        self.skip = np.zeros((F, n), np.int64)
        # per sub-path (all ``n_paths`` of the run: the last ones may be hashed onto by no path id):
        # trimmed bytes not yet counted
        self.nacked = np.zeros(int(seq.max(initial=-1)) + 1 if n_paths is None else n_paths)

    def _advance(self, fs: np.ndarray) -> None:
        self.index[fs] += 1
        wrap = fs[self.index[fs] == self.n]
        self.index[wrap] = 0
        self.xor[wrap] = self.rng.integers(0, self.n, size=len(wrap))

    def next(self, fs: np.ndarray) -> np.ndarray:
        """The sub-path of the next packet of each flow in ``fs`` (distinct flows)."""
        todo = fs
        for _ in range(2 * self.n + 1):                  # each id skips at most MAX_PENALTY times a pass
            ent = (self.index[todo] ^ self.xor[todo]) & self.mask
            blocked = self.skip[todo, ent] > 0
            if not blocked.any():
                break
            b = todo[blocked]
            self.skip[b, ent[blocked]] -= 1
            self._advance(b)
            todo = b
        ent = (self.index[fs] ^ self.xor[fs]) & self.mask
        self._advance(fs)
        return self.seq[fs, ent]

    def penalize(self, flow_of_path: np.ndarray, path_bytes: np.ndarray) -> None:
        """NACKs in: ``path_bytes`` trimmed bytes per sub-path (module doc)."""
        self.nacked += path_bytes
        for p in np.flatnonzero(self.nacked >= self.mtu):
            f = int(flow_of_path[p])
            while self.nacked[p] >= self.mtu:
                self.nacked[p] -= self.mtu
                ids = np.flatnonzero((self.seq[f] == p) & (self.skip[f] < MAX_PENALTY))
                if len(ids):
                    self.skip[f, ids[0]] += 1
