"""EQDS and NDP tick by tick: receiver-driven, every packet sprayed, switch queues that trim.

Per flow, in wire bytes (payload + header per packet, :class:`~..transports.params.SprayParams`):

* **first window**: a sender starts with ``window_pkts × mtu`` of credit (EQDS's speculative
  window, htsim eqds.cpp ``_maxwnd``; NDP's ``cwnd`` of 15 packets) and sends while it has credit,
  at its NIC's line rate shared round-robin with the host's other flows;
* **spraying**: for EQDS each packet takes the flow's next path id of ``entropies``, each hashed
  onto one of its equal-cost sub-paths, in htsim's order, skipping once an id a NACK penalized
  (:mod:`.entropy`); for NDP packet *k* takes ``seq[k mod n]``, a permutation of its sub-paths
  (``-strat perm``). A tick's bytes are split over the packets they belong to;
* **trimming**: a switch egress queue holding more than ``queue_pkts × mtu`` after a tick's service
  cuts the payloads of what just arrived (:class:`~.pipe.Pipe`); the header goes on to the receiver
  at priority (no queueing: the links' delays only) and the receiver asks for the packet again —
  the NACK reaches the sender a header's round trip later and the packet waits there for credit;
* **pull pacing**: the receiver's pacer sends pulls at its line rate, shared round-robin over its
  flows, each reaching the sender a header's trip later as credit; a receiver stops pulling once
  its flow has the credit for every byte. NDP (its pull queue): a pull for every packet that
  arrives, whole or trimmed. EQDS (eqds.cpp): the sender speculates with its first window only
  until its first pull or NACK (``stopSpeculating``: what is left goes back to the pull target),
  spends pulled credit first, and every data packet (or RTS, when it has backlog and no credit)
  carries its pull target — pulls had + min(backlog, ``_maxwnd``) − unspent credit
  (``computePullTarget``); the receiver pulls up to the highest target it has seen. Only the
  credit in flight is bounded, not the data: an EQDS flow is paced, not window-limited, until
  its round trip reaches ``_maxwnd`` / line rate.

Pulls are counted as packets (one pull credits one ``mtu`` of wire bytes: htsim's EqdsPullPacer /
NdpPull send a pull per packet) on every directed link they cross (``link_pulled``), in the tick the
receiver sends them. The model has no return route: a pull takes the reverse of its flow's data
sub-paths (each directed cable link ``l``'s twin ``l ^ 1``), split over the sub-paths as the flow's
``frac`` — what htsim's pulls take on a fat tree up to its ECMP choice of one of them.

Goodput is what arrives whole × payload / mtu.
"""

from __future__ import annotations

import numpy as np

from ..fluid import _waterfill
from ..paths import Routes
from ..transports.params import EQDS, SprayParams
from .entropy import Entropies
from .pipe import Pipe


def spray_sequences(routes: Routes, prm: SprayParams, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per flow: the sub-paths its packets cycle through (rows padded with -1) and how many."""
    F = routes.n_flows
    n = np.bincount(routes.flow, minlength=F)
    first = np.searchsorted(routes.flow, np.arange(F))
    rng = np.random.default_rng(seed)
    if prm.entropies > 0:
        width = prm.entropies
        seq = first[:, None] + np.floor(rng.random((F, width)) * n[:, None]).astype(np.int64)
        return seq, np.full(F, width, np.int64)
    width = int(n.max(initial=1))
    seq = np.full((F, width), -1, np.int64)
    for f in range(F):                       # a permutation of each flow's sub-paths
        seq[f, :n[f]] = first[f] + rng.permutation(int(n[f]))
    return seq, n.astype(np.int64)


class Spray:
    """The EQDS / NDP endpoints of a run (module doc)."""

    def __init__(self, pipe: Pipe, need_wire: np.ndarray, prm: SprayParams, seed: int,
                 pace: np.ndarray | float = np.inf) -> None:
        r = pipe.routes
        self.pipe, self.prm = pipe, prm
        F = r.n_flows
        self.F = F
        self.seq, self.n_seq = spray_sequences(r, prm, seed)
        # EQDS: path ids in htsim's order with its NACK penalties; NDP: its permutation in turn
        self.ent = Entropies(self.seq, np.random.default_rng(seed + 1), prm.mtu, pipe.P) if prm.entropies > 0 else None
        self.pkt = np.full(F, -1, np.int64)                # the packet each flow is sending, and its sub-path
        self.pkt_path = np.zeros(F, np.int64)
        lead = pipe.first[np.searchsorted(r.flow, np.arange(F))]
        self.nic = pipe.e_link[lead]                        # the sender's NIC link
        self.dst = pipe.e_link[pipe.last[np.searchsorted(r.flow, np.arange(F))]]   # into the receiver
        self.need = need_wire.astype(float)
        self.pace = pace                                    # per flow: bytes a tick its rate allows
        self.window = float(prm.window_pkts * prm.mtu)
        self.spec = np.minimum(self.window, self.need)      # the first window, unsolicited
        self.credit = np.zeros(F)                           # pulled credit not yet spent
        self.granted = self.spec.copy()
        # EQDS: the receiver pulls to the sender's pull target and the sender speculates until its
        # first feedback; NDP: a pull for every packet that arrives
        self.eqds = prm.name == EQDS
        self.speculating = np.ones(F, bool)
        self.pull_in = np.zeros(F)                          # pulls the sender has had, and the receiver sent
        self.pull_out = np.zeros(F)
        self.seen_target = np.zeros(F)                      # the highest pull target a packet brought
        self.new_left = self.need.copy()
        self.rtx = np.zeros(F)
        self.sent = np.zeros(F)                             # wire bytes put on the NIC, resends included
        self.resent = np.zeros(F)                           # of which resends (trimmed payloads pulled again)
        self.recv = np.zeros(F)                             # wire bytes arrived whole
        self.trimmed = np.zeros(F)
        self.pend = np.zeros(F)                             # NDP: pulls the receiver owes
        self.R = int(max(pipe.to_rx.max(initial=1) + pipe.back.max(initial=1), pipe.fwd_f.max(initial=1))) + 2
        self.pull_ring = np.zeros((self.R, F))
        self.target_ring = np.zeros((self.R, F))           # EQDS: pull targets on their way to the receiver
        self.hdr_ring = np.zeros((self.R, F))
        self.nack_ring = np.zeros((self.R, F))
        self.nack_path = np.zeros((self.R, pipe.P)) if self.ent is not None else None   # for the penalties
        self.limit = np.full(pipe.L, float(prm.queue_pkts * prm.mtu))
        self.link_trimmed = np.zeros(pipe.L)
        self.link_pulled = np.zeros(pipe.L)                 # pull packets sent over each link (module doc)
        frac = np.asarray(r.frac, float) * np.ones(pipe.P)
        share = frac / np.maximum(np.bincount(r.flow, weights=frac, minlength=F), 1e-300)[r.flow]
        self.pull_link = pipe.e_link ^ 1                    # the reverse of every data hop
        self.pull_share = share[pipe.e_path]                # ... and the share of the flow's pulls on it

    def _spray(self, s: np.ndarray) -> np.ndarray:
        """Bytes per sub-path of what each flow sends now (``s``), packet by packet."""
        mtu = float(self.prm.mtu)
        out = np.zeros(self.pipe.P)
        f = np.flatnonzero(s > 0)
        if not len(f):
            return out
        lo, hi = self.sent[f], self.sent[f] + s[f]
        k0 = np.floor(lo / mtu).astype(np.int64)
        for j in range(int(np.ceil(s[f].max() / mtu)) + 1):
            k = k0 + j
            part = np.minimum(hi, (k + 1) * mtu) - np.maximum(lo, k * mtu)
            ok = part > 0
            if not ok.any():
                break
            fo, ko = f[ok], k[ok]
            if self.ent is None:
                path = self.seq[fo, ko % self.n_seq[fo]]
            else:
                start = ko > self.pkt[fo]                  # a new packet: the next path id
                if start.any():
                    self.pkt_path[fo[start]] = self.ent.next(fo[start])
                    self.pkt[fo[start]] = ko[start]
                path = self.pkt_path[fo]
            out[path] += part[ok]                          # one packet per flow: no sub-path twice
        return out

    def tick(self) -> tuple[np.ndarray, np.ndarray]:
        """One tick of senders, the pipe and receivers; returns (whole bytes arrived, bytes trimmed)
        per flow."""
        p, t = self.pipe, self.pipe.t
        slot = t % self.R
        pulled, nacked = self.pull_ring[slot], self.nack_ring[slot]
        self.credit += pulled
        self.pull_in += pulled
        self.rtx += nacked
        if self.eqds:                       # eqds.cpp stopSpeculating: what is left of the window goes
            stop = self.speculating & ((pulled > 0) | (nacked > 0))      # back to the pull target
            self.granted[stop] -= self.spec[stop]
            self.spec[stop] = 0.0
            self.speculating &= ~stop
        hdr = self.hdr_ring[slot].copy()
        self.pull_ring[slot] = self.nack_ring[slot] = self.hdr_ring[slot] = 0.0
        if self.ent is not None and self.nack_path is not None and self.nack_path[slot].any():
            self.ent.penalize(p.routes.flow, self.nack_path[slot])
            self.nack_path[slot] = 0.0
        elig = np.clip(np.minimum(self.credit + self.spec, self.new_left + self.rtx), 0.0, self.pace)
        s = _waterfill(self.nic, elig, p.cap, p.L) if elig.any() else elig
        again = np.minimum(s, self.rtx)
        self.rtx -= again
        self.resent += again
        self.new_left -= s - again
        from_pull = np.minimum(s, self.credit)              # eqds.cpp spendCredit: pulled credit first
        self.credit -= from_pull
        self.spec -= s - from_pull
        inj = self._spray(s)
        self.sent += s
        if self.eqds:                       # eqds.cpp computePullTarget, carried by the data packets
            backlog = self.new_left + self.rtx          # (or an RTS, when the sender has backlog and no credit)
            target = self.pull_in + np.minimum(backlog, self.window) - self.credit - self.spec
            go = np.flatnonzero((s > 0) | (backlog > 0))
            rows = (t + p.fwd_f[go]) % self.R
            self.target_ring[rows, go] = np.maximum(self.target_ring[rows, go], target[go])
        rx, trim = p.tick(inj, trim_limit=self.limit)
        got = np.bincount(p.routes.flow, weights=rx, minlength=self.F)
        hit = np.flatnonzero(trim > 0)
        trimmed = np.zeros(self.F)
        if len(hit):
            f = p.e_flow[hit]
            np.add.at(trimmed, f, trim[hit])
            self.link_trimmed += np.bincount(p.e_link[hit], weights=trim[hit], minlength=p.L)
            at_rx = t + p.to_rx[hit]
            np.add.at(self.hdr_ring, (at_rx % self.R, f), trim[hit])          # the header, at priority
            np.add.at(self.nack_ring, ((at_rx + p.back[f]) % self.R, f), trim[hit])   # the NACK back
            if self.nack_path is not None:
                np.add.at(self.nack_path, ((at_rx + p.back[f]) % self.R, p.e_path[hit]), trim[hit])
        self.trimmed += trimmed
        self.recv += got
        if not self.eqds:
            self.pend += got + hdr
        owed = np.maximum(self.need + self.trimmed - self.granted, 0.0)
        if self.eqds:                       # the receiver pulls up to the target its packets brought
            self.seen_target = np.maximum(self.seen_target, self.target_ring[slot])
            self.target_ring[slot] = 0.0
            want = np.minimum(np.maximum(self.seen_target - self.pull_out, 0.0), owed)
        else:
            want = np.minimum(self.pend, owed)
        pull = _waterfill(self.dst, want, p.cap, p.L) if want.any() else want
        if not self.eqds:
            self.pend -= pull
        self.pull_out += pull
        self.granted += pull
        go = np.flatnonzero(pull > 0)
        if len(go):
            self.link_pulled += np.bincount(self.pull_link, weights=(pull / self.prm.mtu)[p.e_flow] * self.pull_share,
                                            minlength=p.L)
        np.add.at(self.pull_ring, ((t + p.back[go]) % self.R, go), pull[go])
        return got, trimmed

    def in_flight(self) -> np.ndarray:
        return self.pipe.in_flight()
