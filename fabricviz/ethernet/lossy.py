"""Lossy RoCE (no PFC): tail drop at full egress queues and go-back-N retransmission.

Without PFC a switch egress queue that is full drops what arrives (tail drop). The queue
limit is the given bytes per egress queue, or the switch's dynamic threshold α · (free
shared buffer), the same α and buffer as PFC's XOFF. RoCE NICs recover with go-back-N:

* the receiver takes bytes in order; once a byte is lost, everything behind it that
  arrives is out of sequence and thrown away (``discarded``);
* the receiver NAKs the first packet after the gap; the NAK reaches the sender after the
  queueing delay at the dropping hop plus the feedback delay τ* (``nak_delay_s`` overrides);
  a tail loss, with nothing behind it to trigger a NAK, is taken as NAKed the same way;
* the sender then rewinds to the first lost byte and sends everything from there again:
  those bytes are counted as retransmitted and count against goodput.

Bytes behind the loss that were already ahead of it (queued at or past the dropping hop)
still arrive in order, so the rewind point is what has arrived in order plus those bytes.
Per flow, ``injected = delivered + discarded + dropped + in flight`` holds throughout.
"""

from __future__ import annotations

import numpy as np


def tail_drop(q_link: np.ndarray, arr: np.ndarray, e_link: np.ndarray, droppable: np.ndarray,
              limit: np.ndarray) -> np.ndarray:
    """Bytes dropped per entry: what arrives at an egress queue beyond ``limit`` (per link),
    taken from this tick's arrivals in proportion (``q_link``: queue before they arrive)."""
    n = len(q_link)
    a = np.where(droppable, arr, 0.0)
    arr_link = np.bincount(e_link, weights=a, minlength=n)
    drop_link = np.minimum(np.maximum(q_link + arr_link - limit, 0.0), arr_link)
    frac = np.divide(drop_link, arr_link, out=np.zeros(n), where=arr_link > 0)
    return a * frac[e_link]


def suffix_sums(x: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Per entry: the sum of ``x`` from that entry to its path's last entry."""
    c = np.concatenate([[0.0], np.cumsum(x)])
    ends = np.repeat(indptr[1:], np.diff(indptr))
    return c[ends] - c[:-1]


class GoBackN:
    """Per-flow receiver and sender state of go-back-N (see module doc)."""

    def __init__(self, n_flows: int) -> None:
        self.good_quota = np.zeros(n_flows)    # bytes ahead of the first loss, still in order
        self.discard = np.zeros(n_flows)       # stale bytes in flight the receiver will throw away
        self.recovering = np.zeros(n_flows, bool)
        self.nak_at = np.full(n_flows, np.inf)
        self.dropped = np.zeros(n_flows)
        self.discarded = np.zeros(n_flows)
        self.retransmitted = np.zeros(n_flows)
        self.high = np.zeros(n_flows)          # highest byte sent so far
        self.dup = np.zeros(n_flows)           # resent copies in flight of bytes that arrived (GoBackNEveryNak)
        self.behind = np.zeros(n_flows)        # resent bytes in flight behind the stale ones (GoBackNEveryNak)

    def _split(self, got: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Arriving bytes → (in order ahead of a gap, stale behind it, the rest)."""
        good = np.minimum(got, self.good_quota)
        self.good_quota -= good
        rest = got - good
        stale = np.where(self.recovering, rest, np.minimum(rest, self.discard))
        self.discard = np.maximum(self.discard - np.where(self.recovering, 0.0, stale), 0.0)
        return good, stale, rest - stale

    def deliver(self, got: np.ndarray) -> np.ndarray:
        """Bytes arriving at each receiver → the in-order part (goodput); the rest is discarded."""
        good, stale, rest = self._split(got)
        self.discarded += stale
        return good + rest

    def lose(self, dropped: np.ndarray, ahead: np.ndarray, nak_at: np.ndarray) -> None:
        """Flows that lost ``dropped`` bytes this tick; ``ahead``: their bytes still in flight at or
        past the dropping hop; ``nak_at``: when the sender would hear of it."""
        hit = dropped > 0
        if not hit.any():
            return
        self.dropped += dropped
        from_stale = np.minimum(dropped, self.discard)       # stale bytes lost: fewer to throw away
        self.discard -= np.where(self.recovering, 0.0, from_stale)
        fresh = hit & ~self.recovering & (dropped > from_stale)
        clean = fresh & (self.discard <= 0)                  # nothing stale ahead: trust what is ahead
        self.good_quota = np.where(clean, np.maximum(self.good_quota, ahead), self.good_quota)
        self.good_quota = np.where(hit, np.minimum(self.good_quota, ahead), self.good_quota)
        self.nak_at = np.where(fresh, nak_at, self.nak_at)
        self.recovering |= fresh

    def reorder(self, hit: np.ndarray, ahead: np.ndarray, nak_at: np.ndarray) -> None:
        """Flows whose packets now overtake their own (a multipath move): only ``ahead`` bytes (the
        old path's, still in flight) arrive in order; what overtakes them is thrown away until the
        sender, told at ``nak_at``, goes back. Nothing is lost on the wire."""
        # duplicates and stale bytes still in flight are not in order: thrown away wherever they arrive
        good = np.maximum(ahead - self.dup - self.discard, 0.0)
        # a move that overtakes only those puts nothing out of order (what the new path brings is
        # the resend from the gap, in order); one that overtakes bytes in order does
        fresh = hit & ~self.recovering & (good > 0)
        if not fresh.any():
            return
        self.good_quota = np.where(fresh, good, self.good_quota)
        self.behind[fresh] = 0.0                 # resent bytes landing in order: part of ``ahead`` now
        self.nak_at = np.where(fresh, nak_at, self.nak_at)
        self.recovering |= fresh

    def rewind(self, t: float, delivered: np.ndarray, seq: np.ndarray, in_flight: np.ndarray) -> np.ndarray:
        """Senders whose NAK has arrived go back to the first lost byte; returns the new ``seq``."""
        due = self.recovering & (self.nak_at <= t + 1e-15)
        if not due.any():
            return seq
        self.recovering &= ~due
        self.nak_at[due] = np.inf
        self.discard = np.where(due, np.maximum(in_flight - self.good_quota, 0.0), self.discard)
        return np.where(due, np.minimum(delivered + self.good_quota, seq), seq)

    def sent(self, seq: np.ndarray, pulled: np.ndarray) -> np.ndarray:
        """Count the resent part of ``pulled`` (below the highest byte sent); returns the new ``seq``."""
        self.retransmitted += np.minimum(pulled, np.maximum(self.high - seq, 0.0))
        seq = seq + pulled
        self.high = np.maximum(self.high, seq)
        return seq


class GoBackNEveryNak(GoBackN):
    """Go-back-N whose receiver NAKs every out-of-sequence packet (htsim_roce's RoceSink), where
    :class:`GoBackN`'s NAKs once per sequence error: each NAK that reaches the sender rewinds it
    again, so the resent bytes already in flight become duplicates the receiver throws away.

    Bytes are counted, not numbered, in the order they arrive: what is ahead of the gap
    (``good_quota``), stale bytes (``discard``, sent past the gap before the first rewind: each
    arrival NAKed), bytes resent since then (``behind``: they land — the receiver takes the first
    copy of each packet), duplicates (``dup``: copies of bytes that arrived or are landing, behind
    the receiver's expected sequence number, so thrown away without a NAK, as htsim's RoceSink
    acks them), then new bytes. At a further rewind the sender goes back to what has arrived in
    order plus ``good_quota``: what it sends next repeats ``behind`` (``copies``, counted into
    ``dup`` as they leave). Duplicates stay duplicates at the next reordering: only stale bytes
    NAK, so a flow whose NAKs come every tick still lands its first copies and moves on. (Counting
    every resent byte in flight as a duplicate at each rewind, and every duplicate as stale at the
    next reordering, kept a flow that reordered again before its stale bytes drained from ever
    landing a byte: the starvation of issue 30.) The caller schedules the NAKs (:meth:`schedule`)
    with each flow's delay back to its sender, in ticks; :meth:`rewind_due` applies those due at
    a tick. A NAK carries the receiver's cumulative ack when it left, and the sender goes back to
    it (htsim's ``RoceSrc::processNack``: ``_highest_sent = nack.ackno()``), so what landed while
    the NAK was on its way and what is still landing in order is sent again, as duplicates (the
    first rewind goes back to what has landed when it arrives)."""

    def __init__(self, n_flows: int, ring_ticks: int = 4096) -> None:
        super().__init__(n_flows)
        self.naks = np.zeros(n_flows, bool)             # NAKed this tick
        self.ring = np.zeros((ring_ticks, n_flows), bool)
        self.acks = np.zeros((ring_ticks, n_flows))      # the receiver's cumulative ack when each NAK left
        self.nak_count = np.zeros(n_flows, np.int64)
        self.stale_bytes = np.zeros(n_flows)           # thrown away past a gap (each one NAKed)
        self.dup_bytes = np.zeros(n_flows)             # thrown away as copies of what had arrived
        self.copies = np.zeros(n_flows)      # what the sender sends next that repeats bytes landing: duplicates
        self.received = np.zeros(n_flows)    # in order at the receiver so far
        self.rewound_at = np.full(n_flows, -np.inf)   # when each sender last went back

    def deliver(self, got: np.ndarray) -> np.ndarray:
        """Bytes arriving at each receiver → the in-order part: what is ahead of the gap, then (while a
        reordering is pending) duplicates on the old path, stale bytes (each arrival NAKs), resent
        bytes that land, duplicates behind the receiver's sequence number (thrown away, never NAKed)
        and new bytes — nothing in order past the highest byte sent (counted bytes beyond it are
        copies). Flow by flow in :func:`.lossy_kernels.deliver` (numba: a flowlet run's)."""
        from .lossy_kernels import deliver
        return deliver(np.asarray(got, float), self.good_quota, self.recovering, self.dup, self.discard, self.behind,
                       self.received, self.high, self.discarded, self.stale_bytes, self.dup_bytes, self.naks,
                       self.nak_count)

    def schedule(self, tick: int, flows: np.ndarray, delay_ticks: np.ndarray) -> None:
        """The NAKs of ``flows`` (this tick's, :attr:`naks`) reach their senders ``delay_ticks``
        (≥ 1 each) later."""
        d = np.clip(np.asarray(delay_ticks), 1, len(self.ring) - 1).astype(np.int64)
        slot = (tick + d) % len(self.ring)
        self.ring[slot, flows] = True
        self.acks[slot, flows] = self.received[flows]

    def rewind_due(self, tick: int, t: float, delivered: np.ndarray, seq: np.ndarray,
                   in_flight: np.ndarray) -> np.ndarray:
        """Senders with a NAK arriving now go back (the first rewind: to what arrived in order; a later
        NAK: to the ack it carried); returns the new ``seq``. First the counters are held to what is
        in flight (resent bytes no longer in flight have nothing to repeat; stale bytes go first,
        duplicates last) and a count that comes short — a first copy counted as a duplicate — lands
        those duplicates after all and makes what follows out of order (with nothing in flight the
        sender goes back). At the first rewind what is in flight past the gap is stale (each arrival
        NAKed) but duplicates stay duplicates (htsim's RoceSink acks them); a NAK while resending
        leaves what was resent since the last rewind in flight, landing in order behind the stale
        bytes, and the sender's next bytes repeat it, what landed since the NAK's ack and what is
        still landing in order: those are the copies. Flow by flow in
        :func:`.lossy_kernels.rewind_due` (numba: a flowlet run's)."""
        from .lossy_kernels import rewind_due
        before = np.array(seq, float)
        out = rewind_due(tick % len(self.ring), t, np.asarray(delivered, float), np.asarray(seq, float),
                          np.asarray(in_flight, float), self.good_quota, self.discard, self.dup, self.behind,
                          self.copies, self.recovering, self.nak_at, self.ring, self.acks)
        self.rewound_at[out < before] = t
        return out

    def sent(self, seq: np.ndarray, pulled: np.ndarray) -> np.ndarray:
        """As :meth:`GoBackN.sent`; what repeats bytes still landing goes in flight as duplicates."""
        rep = np.minimum(pulled, self.copies)
        self.copies -= rep
        self.dup += rep
        return super().sent(seq, pulled)
