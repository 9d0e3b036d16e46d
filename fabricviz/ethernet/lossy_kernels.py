"""numba kernels of :class:`~.lossy.GoBackNEveryNak`'s per-tick steps: flow by flow the very
operations, in the same order, of the numpy they replace (the same counters to the byte), for the
flowlet runs of the fluid model that tick them thousands of times."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def deliver(got: np.ndarray, gq: np.ndarray, rec: np.ndarray, dup: np.ndarray, disc: np.ndarray,
            behind: np.ndarray, received: np.ndarray, high: np.ndarray, discarded: np.ndarray,
            stale_bytes: np.ndarray, dup_bytes: np.ndarray, naks: np.ndarray, nak_count: np.ndarray) -> np.ndarray:
    """:meth:`~.lossy.GoBackNEveryNak.deliver`: the in-order part of what arrives (see there)."""
    out = np.empty(len(got))
    for f in range(len(got)):
        good = min(got[f], gq[f])
        gq[f] -= good
        rest = got[f] - good
        early = min(rest, dup[f]) if rec[f] else 0.0
        dup[f] -= early
        rest = rest - early
        stale = rest if rec[f] else min(rest, disc[f])
        disc[f] = max(disc[f] - (0.0 if rec[f] else stale), 0.0)
        rest = rest - stale
        bh = min(rest, behind[f])
        behind[f] -= bh
        rest = rest - bh
        late = min(rest, dup[f])
        dup[f] -= late
        rest = rest - late
        over = max(received[f] + good + bh + rest - high[f], 0.0)
        cut = min(over, rest)
        rest = rest - cut
        cut2 = min(over - cut, bh)
        bh = bh - cut2
        cut3 = min(over - cut - cut2, good)
        good = good - cut3
        received[f] += good + bh + rest
        d = early + late + cut + cut2 + cut3
        discarded[f] += stale + d
        stale_bytes[f] += stale
        dup_bytes[f] += d
        naks[f] = stale > 0
        nak_count[f] += naks[f]
        out[f] = rest + bh + good
    return out


@njit(cache=True, nogil=True)
def rewind_due(slot: int, t: float, delivered: np.ndarray, seq: np.ndarray, in_flight: np.ndarray,
               gq: np.ndarray, disc: np.ndarray, dup: np.ndarray, behind: np.ndarray, copies: np.ndarray,
               rec: np.ndarray, nak_at: np.ndarray, ring: np.ndarray, acks: np.ndarray) -> np.ndarray:
    """:meth:`~.lossy.GoBackNEveryNak.rewind_due`: the counters held to what is in flight, then the
    rewinds of the NAKs arriving now (see there); returns the new ``seq``."""
    out = seq.copy()
    for f in range(len(seq)):
        over = max(gq[f] + disc[f] + dup[f] + behind[f] - in_flight[f], 0.0)
        gone = min(over, behind[f])
        copies[f] = max(copies[f] - gone, 0.0)
        cut = min(over, behind[f])
        behind[f] -= cut
        over -= cut
        cut = min(over, disc[f])
        disc[f] -= cut
        over -= cut
        cut = min(over, dup[f])
        dup[f] -= cut
        over -= cut
        cut = min(over, gq[f])
        gq[f] -= cut
        over -= cut
        short = 0.0 if (rec[f] or copies[f] > 0) else seq[f] - delivered[f] - (in_flight[f] - dup[f] - disc[f])
        bk = min(max(short, 0.0), dup[f])
        dup[f] -= bk
        if short - bk > 1.0:                  # a hole
            disc[f] = max(in_flight[f] - dup[f] - gq[f], 0.0)
            behind[f] = 0.0
            if in_flight[f] <= 1.0:
                out[f] = min(delivered[f] + gq[f], seq[f])
        first = rec[f] and nak_at[f] <= t + 1e-15
        again = ring[slot, f] and not rec[f]
        ring[slot, f] = False
        if not (first or again):
            continue
        if first:
            rec[f] = False
            nak_at[f] = np.inf
        rest = max(in_flight[f] - gq[f], 0.0)
        if first:
            disc[f] = max(rest - dup[f] - behind[f], 0.0)
        fresh = max(rest - disc[f] - dup[f] - behind[f], 0.0)
        if again:
            behind[f] = behind[f] + fresh
        back = min(acks[slot, f], delivered[f]) if again else delivered[f]
        to = min(back, out[f])
        copies[f] = max(delivered[f] - to, 0.0) + gq[f] + behind[f]
        out[f] = to
    return out
