"""Flowlet adaptive routing over a go-back-N RoCE transport, tick by tick in the fluid model.

What htsim_roce's ``ecmp_ar`` does, and a RoCE NIC without out-of-order placement pays for
(the mechanism, nothing fitted):

* a flow sends on **one** of its equal-cost sub-paths at a time; the first is a random pick
  (every queue is empty at the start: the least-loaded choice is a tie);
* each switch where the flow's sub-paths part decides on its own. A **flowlet** boundary there
  is an idle gap — none of the flow's bytes arrived at that switch for ``gap_s`` (under PFC
  without congestion control, mostly a pause upstream). At a boundary the switch re-routes
  with chance ``move_chance`` (htsim: one in two), to the egress whose queue is in the lowest
  **grade** — grades at ``grades`` × the queue's size, what it holds before the ingress it feeds
  pauses (XOFF less the packet that crosses it; htsim: 5 %, 10 %, 20 % of its 15-packet queues;
  a switch's AR likewise compares coarse port-load grades) — if strictly lower than the
  current egress's, ties broken at random; the switches after it pick their egress the same
  way, as a new flowlet;
* a move **reorders** when the new path's first byte — the one at the deciding switch, so its
  way from there on — would reach the receiver before the last byte still queued on the old
  path (each hop takes a tick here, plus its queue ahead), and the old path still holds bytes in
  order: overtaking only stale bytes and duplicates puts nothing out of order.
  The go-back-N receiver throws away what overtook and NAKs
  (:class:`fabricviz.ethernet.lossy.GoBackNEveryNak`: htsim's receiver NAKs every
  out-of-sequence packet, each NAK rewinds the sender to the cumulative ack it carries);
* a NAK goes back a tick per hop plus the queue ahead of it at each switch egress of the way
  back: htsim's switch output queues are one FIFO for data and control packets alike (its
  host's ``PriorityQueue`` serves ACKs and NAKs first, so the receiver's own NIC queue does not
  hold it up). Without that wait the model resent 63 % of htsim's bytes on the radix-8
  permutation of tests/sim/test_htsim_reference.py; with it, and with each NAK going back to the
  ack it carries, 92.5 %.

**Spraying** (``FlowletParams.spray``: htsim_roce's ``ecmp_rr``) is the same machinery with every
tick a boundary: each switch keeps **one** round-robin counter over its equal-cost egresses for all
the packets of all flows through it (htsim's ``FatTreeSwitch`` RR, its egress order shuffled again
every 5 × egresses packets), the flows' packets reaching it in a random order each tick, so a flow's
consecutive packets leave on paths the other flows' packets set. A sprayed flow's earlier packets
are on all its sub-paths, so a move reorders when the new path's first byte would arrive before the
farthest-back byte on *any* other sub-path its NIC sent on since its sender last went back (what an
older sub-path still holds was sent past the gap before the rewind: stale, thrown away anyway; left
in, the packets held up in a paused queue there make nearly every tick a reordering and the model
3× slower than htsim). On htsim's five radix-8 permutations: +12…+19 % on mean rate, −17…−20 %
on median FCT, −3…−15 % on the slowest (tests/data/htsim/README.md).

InfiniBand and RoCE NICs that place packets out of order take adaptive routing per packet
(the even split over the equal-cost paths the max-min and fluid models use without this
module); it runs only for ``--transport roce-gbn`` with ``--routing adaptive`` or ``spray``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .paths import Routes


@dataclass(frozen=True)
class FlowletParams:
    gap_s: float = 10e-6          # idle gap that opens a flowlet (htsim's ar_sticky_delta, 10 µs)
    move_chance: float = 0.5      # chance a flowlet boundary re-routes at all (htsim: random() % 2)
    seed: int = 0
    grades: tuple[float, ...] = (0.05, 0.1, 0.2)
    mtu_bytes: float = 9000.0     # a packet: less than this arriving over a gap is an idle gap
    spray: bool = False           # per-packet spraying (htsim's ecmp_rr): every tick, one round-robin per switch


def reverse_links(src_port: np.ndarray, dst_port: np.ndarray) -> np.ndarray:
    """Per directed link, the link of the same cable the other way (-1: none, e.g. PCIe)."""
    n = int(max(src_port.max(initial=-1), dst_port.max(initial=-1))) + 2
    key = (src_port.astype(np.int64) + 1) * n + dst_port + 1
    order = np.argsort(key, kind="stable")
    want = (dst_port.astype(np.int64) + 1) * n + src_port + 1
    pos = np.minimum(np.searchsorted(key[order], want), len(key) - 1)
    hit = (key[order][pos] == want) & (src_port >= 0) & (dst_port >= 0)
    return np.where(hit, order[pos], -1)


class Flowlets:
    """Per flow: the sub-path it sends on; flowlet moves and the reorderings they cause."""

    def __init__(self, routes: Routes, first_fabric: np.ndarray, hop_s: float, rate_bytes_s: np.ndarray,
                 queue_bytes: np.ndarray, prm: FlowletParams, reverse: np.ndarray | None = None,
                 rewound_at: np.ndarray | None = None) -> None:
        """``first_fabric``: per sub-path, the entry of its NIC link (decisions start at the switch
        it enters); ``hop_s``: the model's time per hop; ``rate_bytes_s``: per link, bytes/s;
        ``queue_bytes``: per link, the queue size its grades are fractions of; ``rewound_at``: per
        flow, when its go-back-N sender last went back (kept up to date by the transport; spraying
        reads it)."""
        self.routes, self.prm, self.hop_s = routes, prm, hop_s
        self.rng = np.random.default_rng(prm.seed)
        F, P = routes.n_flows, routes.n_paths
        self.start = np.searchsorted(routes.flow, np.arange(F))
        self.count = np.bincount(routes.flow, minlength=F)
        self.cur = self.start + np.minimum((self.rng.random(F) * self.count).astype(np.int64),
                                           np.maximum(self.count - 1, 0))
        hops = routes.hops()
        self.rate = np.where(rate_bytes_s > 0, rate_bytes_s, np.inf)
        self.thresholds = np.asarray(queue_bytes, float)[:, None] * np.asarray(prm.grades, float)[None, :]
        # the sub-paths as a dense [P, H] table of links (-1 past the end), from the NIC link on
        skip = (first_fabric - routes.indptr[:-1]).astype(np.int64)
        self.H = int((hops - skip).max(initial=0))
        self.PL = np.full((P, self.H), -1, np.int64)
        for h in range(self.H):
            has = hops - skip > h
            self.PL[has, h] = routes.links[routes.indptr[:-1][has] + skip[has] + h]
        self.first = first_fabric
        # per sub-path and hop h: an id of its first h links (equal ids: the same links so far)
        self.prefix = np.zeros((P, max(self.H, 1)), np.int64)
        for h in range(1, self.H):
            pair = np.stack([self.prefix[:, h - 1], self.PL[:, h - 1]], axis=1)
            self.prefix[:, h] = np.unique(pair, axis=0, return_inverse=True)[1].ravel()
        # bytes of the flow reaching hop h's switch in each of the last gap_s / dt ticks
        self.G = max(1, int(round(prm.gap_s / hop_s)))
        self.window = np.zeros((self.G, F, self.H), np.float32)
        self.recent = np.zeros((F, self.H))               # Σ window: what arrived over the last gap_s
        self.seen = np.zeros((F, self.H), bool)          # bytes of the flow ever reached hop h's switch
        self.k = 0
        self.moves = np.zeros(F, np.int64)
        self.boundaries = np.zeros(self.H, np.int64)      # flowlet boundaries seen per hop
        self.reorders = np.zeros(F, np.int64)
        self.multi = self.count > 1
        self._graded: np.ndarray | None = None
        # spray: per switch (named by its lowest egress) a counter and its egresses in round-robin
        # order; per sub-path when the NIC last sent on it; per flow when its sender last went back
        self.rr = np.zeros(int(self.PL.max(initial=0)) + 1, np.int64)
        self.perm = np.full((len(self.rr) if prm.spray else 0, int(self.count.max(initial=1))), -1, np.int64)
        self.sent_at = np.full(P, -np.inf)
        self.rewound_at = np.full(F, -np.inf) if rewound_at is None else rewound_at
        self._grades = np.zeros(len(self.thresholds), np.int64)
        # per hop of each sub-path, the link a NAK takes back (-1: none known; then a tick, unqueued)
        self.RL = np.full_like(self.PL, -1)
        if reverse is not None:
            self.RL = np.where(self.PL >= 0, np.asarray(reverse)[np.maximum(self.PL, 0)], -1)
            # the receiver's own NIC sends its NAK ahead of its data (htsim's host PriorityQueue
            # serves ACKs and NAKs first): the reverse of the last cabled hop does not queue it
            has = self.RL >= 0
            last = self.H - 1 - np.argmax(has[:, ::-1], axis=1)
            rows = np.flatnonzero(has.any(axis=1))
            self.RL[rows, last[rows]] = -1

    def weights(self) -> np.ndarray:
        """Per sub-path: 1 on the one its flow sends on, else 0 (the injection split)."""
        w = np.zeros(self.routes.n_paths)
        w[self.cur] = 1.0
        return w

    def _grade(self, q_link: np.ndarray, links: np.ndarray) -> np.ndarray:
        if self._graded is not q_link:             # every link's grade, once per tick's queues
            self._graded, self._grades = q_link, (q_link[:, None] >= self.thresholds).sum(axis=1)
        return np.where(links >= 0, self._grades[np.maximum(links, 0)], 0)

    def back_s(self, q_link: np.ndarray, paths: np.ndarray) -> np.ndarray:
        """Per sub-path of ``paths``: the time a NAK takes back to the sender — a tick per hop, plus
        the queue ahead of it at each reverse link's egress (a NAK waits in the same FIFO as the data
        going that way: htsim's switch output queues have no priority for control packets)."""
        from .flowlet_kernels import back_times
        return back_times(np.asarray(paths, np.int64), self.PL, self.RL, q_link, self.rate, self.hop_s)

    def back_ticks(self, q_link: np.ndarray, flows: np.ndarray) -> np.ndarray:
        """Per flow of ``flows``: ticks a NAK takes back to the sender over its current path."""
        return np.maximum(np.round(self.back_s(q_link, self.cur[flows]) / self.hop_s), 1).astype(np.int64)

    def _arrivals(self, serve: np.ndarray, paths: np.ndarray) -> np.ndarray:
        """[len(paths), H]: per hop h ≥ 1, the bytes reaching the sub-path's hop-h switch this tick —
        what its hop h-1 link sent (column 0: no switch before the NIC)."""
        ok = self.PL[paths, :-1] >= 0
        idx = np.where(ok, self.first[paths][:, None] + np.arange(self.H - 1)[None, :], 0)
        out = np.zeros((len(paths), self.H), np.float32)
        out[:, 1:] = np.where(ok, serve[idx], 0.0)
        return out

    def _pick(self, flows: np.ndarray, h: int, q_link: np.ndarray) -> np.ndarray:
        """New sub-path per flow in ``flows`` re-routed at its hop-``h`` switch: among its sub-paths
        sharing the current one's first ``h`` links, the lowest grade at hop h, then at each later
        hop in turn, ties at random; -1 where nothing is strictly better at hop h."""
        from .flowlet_kernels import candidates, choose
        cand, loc = candidates(h, flows, self.count, self.start, self.cur, self.prefix, self.PL)
        u = self.rng.random(len(cand))
        self._grade(q_link, self.cur[:0])                     # every link's grade for these queues
        return choose(h, flows, cand, loc, u, self.PL, self._grades, float(len(self.prm.grades) + 1), self.cur)

    def _spray(self, flows: np.ndarray, h: int) -> np.ndarray:
        """Per flow in ``flows``: the next egress of its hop-``h`` switch in that switch's one
        round-robin over its equal-cost egresses, shared by every flow through it (htsim's
        ``FatTreeSwitch`` RR, re-shuffled every 5 × egresses packets); -1 where it stays on its
        current egress. The flows' packets reach the switch in a random order each tick: packets
        from different hosts, and the ACKs that share the counter in htsim, keep no fixed turn."""
        from .flowlet_kernels import candidates, round_robin
        cand, loc = candidates(h, flows, self.count, self.start, self.cur, self.prefix, self.PL)
        order = self.rng.permutation(len(flows))
        u = self.rng.random((len(flows), self.perm.shape[1]))
        return round_robin(h, flows, cand, loc, self.PL, self.cur, self.rr, self.perm, order, u)

    def tick(self, t: float, serve: np.ndarray, held: np.ndarray | None, q_link: np.ndarray,
             state: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """After a tick ending at ``t``: ``serve`` bytes each entry sent, ``held`` bytes each entry
        still holds, ``q_link`` queued bytes per link; ``state``: the model's per-entry (queued,
        arriving) arrays — a flow re-routed at its hop-h switch takes the bytes still before that
        switch (its PCIe hop, its NIC queue, hops < h: the links both sub-paths share) to the new
        sub-path, as the switch will send them the new way. Moves the flows at a flowlet boundary;
        returns (reordered flows, their old paths' bytes still in flight, when their NAK reaches
        the sender)."""
        F = self.routes.n_flows
        old = self.cur.copy()
        recent = self.recent.copy()                       # [F, H] over the last gap_s
        slot = self.k % self.G
        self.k += 1
        self.recent -= self.window[slot]
        at = np.full(F, self.H)                           # the hop at which each flow moved first
        got = self._arrivals(serve, self.cur)
        if self.prm.spray:
            self.sent_at[serve[self.first] > 0] = t
        # a packet arriving after less than a packet came in gap_s: an idle gap before it
        edge = self.seen & (recent < self.prm.mtu_bytes) & self.multi[:, None]
        from .flowlet_kernels import deciders  # numba: loaded by a flowlet run only
        if self.prm.spray:
            busy = np.asarray((got > 0).any(axis=1))
            sending = np.repeat(busy[:, None], self.H, axis=1).astype(np.float32)
        for h in range(1, self.H):           # the NIC has one link: no choice before the first switch
            if self.prm.spray:               # every packet of a sending flow, at every switch on its way
                nb, flows = deciders(h, sending, self.multi[:, None] | edge, self.PL, self.cur, np.zeros(F), 1.0)
            else:
                nb, flows = deciders(h, got, edge, self.PL, self.cur, self.rng.random(F), self.prm.move_chance)
            self.boundaries[h] += nb
            if not len(flows):
                continue
            new = self._spray(flows, h) if self.prm.spray else self._pick(flows, h, q_link)
            moved = flows[new >= 0]
            self.cur[moved] = new[new >= 0]
            at[moved] = np.minimum(at[moved], h)
            if len(moved) and h + 1 < self.H:        # the later switches see them on the new sub-path
                got[moved, h + 1:] = self._arrivals(serve, self.cur[moved])[:, h + 1:]
        self.window[slot] = got
        self.recent += got
        self.seen |= got > 0
        better = self.cur != old
        if not better.any():
            return np.zeros(F, bool), np.zeros(F), np.zeros(F)
        self.moves += better
        mv = np.flatnonzero(better)
        po = old[mv]
        from .flowlet_kernels import carry, move_times
        pn = self.cur[mv]
        if state is not None:
            carry(po, pn, at[mv], self.first, self.routes.indptr, state[0], state[1])
            q, arrive = state
        else:
            assert held is not None
            q, arrive = held, np.zeros_like(held)
        # the old path: its bytes still held, and the time from the farthest-back of them to the end;
        # the new path's first byte is the one at the deciding switch: its way on from there (the
        # links before it, the NIC's queue among them, hold bytes that now follow it)
        a_mv, remain, onward, back_mv = move_times(po, pn, at[mv], self.first, self.PL, self.RL, q_link,
                                                   self.rate, self.hop_s, q, arrive)
        if self.prm.spray:     # its earlier packets are on all its sub-paths, not one: any of them may be overtaken
            from .flowlet_kernels import in_flight_all
            a_mv, remain = in_flight_all(mv, pn, self.start, self.count, self.first, self.PL, q_link, self.rate,
                                         self.hop_s, q, arrive, self.sent_at, self.rewound_at[mv])
        ahead, new_delay, back = np.zeros(F), np.full(F, np.inf), np.zeros(F)
        ahead[mv], new_delay[mv], back[mv] = a_mv, onward, back_mv
        reorder = np.zeros(F, bool)
        reorder[mv] = (a_mv > 0) & (onward < remain)
        self.reorders += reorder
        return reorder, ahead, t + new_delay + back
