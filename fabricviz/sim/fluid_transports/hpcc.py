"""HPCC tick by tick: a window from in-band telemetry over lossless per-flow ECMP (htsim hpcc.cpp).

Per flow (one ECMP sub-path; constants :class:`~..transports.params.HpccParams`):

* the sender starts with ``W = T × line rate`` (hpcc.cpp: ``_cwnd = _T * rate``), paces at ``W / T``
  and keeps no more than ``W`` unacknowledged (``_cwnd >= _flightsize + _mss``);
* every byte reaching the receiver is acknowledged, the ack reaching the sender a header's trip
  later carrying each hop's telemetry (its bytes sent so far, queue and time as the data reached the
  receiver). htsim's ``measureInFlight`` compares it with the telemetry it keeps of the hop,
  ``_link_info``, which it sets on the flow's *first* ack only (hpcc.cpp sets it in the branch
  that resets the path state, never after), so per hop ``u = min(qlen, qlen₀) / (B·T) + txRate / B``
  with ``txRate`` the hop's mean rate since that first ack and ``qlen₀`` its queue then; the flow
  keeps the largest, ``U = (1 − τ/T) U + τ/T · u`` with τ the time since that first ack (≤ T);
* each ack sets the window as htsim's ``computeWind`` does on *every* ack: ``W ← W / (U/η) + W_AI``
  when ``U ≥ η`` or after ``maxStage`` rounds of increase, else ``W ← W + W_AI`` (W_AI one MSS);
  once per round trip (an ack beyond the highest byte sent at the last update) the stage counter
  resets on a decrease or counts one more increase. A tick's acks apply as many steps at once
  (closed form of the repeated affine step);
* switches are lossless: an ingress port holding more than ``pfc_high_pkts`` packets pauses the link
  feeding it until it holds fewer than ``pfc_low_pkts`` (main_hpcc.cpp's LosslessInputQueue
  thresholds), the pause reaching the upstream transmitter a header's hop later.
"""

from __future__ import annotations

import numpy as np

from ..fluid import _waterfill
from ..transports.params import HpccParams
from .pipe import Pipe

#: no window grows beyond this (bytes): a guard against overflow, far past any window a run reaches
W_GUARD = 1e15


class Hpcc:
    """The HPCC endpoints and the lossless switches of a run (module doc)."""

    def __init__(self, pipe: Pipe, need: np.ndarray, prm: HpccParams, pace: np.ndarray | float = np.inf) -> None:
        r = pipe.routes
        self.pipe, self.prm = pipe, prm
        F = r.n_flows
        self.F = F
        lead = pipe.first[np.searchsorted(r.flow, np.arange(F))]
        self.nic = pipe.e_link[lead]
        self.line = pipe.links.gbps[self.nic] * 1e9 / 8            # bytes/s
        self.T = prm.base_rtt_s
        self.W = self.T * self.line                                  # hpcc.cpp: _cwnd = _T * rate
        self.U = np.full(F, prm.eta)                                 # hpcc.cpp: _U = _eta
        self.stage = np.zeros(F, np.int64)
        self.last_update = np.zeros(F)
        self.need = need.astype(float)
        self.pace = pace                                             # per flow: bytes a tick its rate allows
        self.sent = np.zeros(F)
        self.acked = np.zeros(F)
        self.recv = np.zeros(F)
        self.R = int(pipe.back.max(initial=1)) + 2
        self.ack_ring = np.zeros((self.R, F))
        self.tx_ring = np.zeros((self.R, pipe.L))          # per link: bytes sent so far, a tick at a time
        self.q_ring = np.zeros((self.R, pipe.L))           # per link: its egress queue
        self.tx = np.zeros(pipe.L)
        self.first_ack = np.zeros(F, bool)
        self.tx0 = np.zeros(pipe.E)                         # per hop: the telemetry of the flow's first ack
        self.q0 = np.zeros(pipe.E)
        self.ts0 = np.zeros(F)
        self.pause_ring = np.zeros((int(pipe.d_hdr.max(initial=1)) + 2, pipe.L), bool)
        self.pause_state = np.zeros(pipe.L, bool)
        self.high = float(prm.pfc_high_pkts * prm.mtu)
        self.low = float(prm.pfc_low_pkts * prm.mtu)
        self.ack_lag = pipe.back                                    # ticks
        self.paused_ticks = np.zeros(pipe.L)
        self.paused_now = np.zeros(pipe.L, bool)
        self.max_ingress = np.zeros(pipe.L)

    def _on_acks(self, ack: np.ndarray, now_s: float) -> None:
        p, prm = self.pipe, self.prm
        f = np.flatnonzero(ack > 0)
        if not len(f):
            return
        self.acked[f] += ack[f]
        # telemetry the acks carry: each hop's counters when the data reached the receiver
        lag = self.ack_lag[p.e_flow]
        rows = (p.t - lag) % self.R
        tx_e, q_e = self.tx_ring[rows, p.e_link], self.q_ring[rows, p.e_link]
        ts_e = (p.t - lag) * p.dt
        new = np.zeros(self.F, bool)
        new[f] = ~self.first_ack[f]
        fresh = new[p.e_flow]                                       # the first ack: keep its telemetry
        self.tx0[fresh], self.q0[fresh] = tx_e[fresh], q_e[fresh]
        self.ts0[new] = (p.t - self.ack_lag[new]) * p.dt
        self.first_ack |= new
        old = np.zeros(self.F, bool)
        old[f] = ~new[f]
        if old.any():
            span = ts_e - self.ts0[p.e_flow]
            bw = p.links.gbps[p.e_link] * 1e9 / 8
            use = old[p.e_flow] & (span > 0) & (bw > 0)
            u_e = np.zeros(p.E)
            u_e[use] = np.minimum(q_e[use], self.q0[use]) / (bw[use] * self.T) + \
                (tx_e[use] - self.tx0[use]) / span[use] / bw[use]
            u = np.zeros(self.F)
            np.maximum.at(u, p.e_flow, u_e)
            g = np.flatnonzero(old)
            tau = np.minimum((p.t - self.ack_lag[g]) * p.dt - self.ts0[g], self.T)
            self.U[g] = (1 - tau / self.T) * self.U[g] + tau / self.T * u[g]
        n = ack[f] / prm.mtu                                        # acks this tick (one per packet)
        md = (self.U[f] >= prm.eta) | (self.stage[f] >= prm.max_stages)
        a = prm.eta / np.maximum(self.U[f], 1e-9)
        an = np.exp(np.minimum(n * np.log(a), np.log(W_GUARD)))      # a^n, bounded by the guard
        w_md = np.where(np.abs(a - 1) > 1e-12, an * self.W[f] + prm.mtu * (1 - an) / np.where(
            np.abs(a - 1) > 1e-12, 1 - a, 1.0), self.W[f] + n * prm.mtu)
        self.W[f] = np.minimum(np.where(md, w_md, self.W[f] + n * prm.mtu), W_GUARD)
        upd = self.acked[f] > self.last_update[f]                   # once per round trip
        g = f[upd]
        self.stage[g] = np.where(md[upd], 0, self.stage[g] + 1)
        self.last_update[g] = self.sent[g]

    def tick(self) -> np.ndarray:
        """One tick: acks in, senders, the pipe, receivers, pauses; returns bytes arrived per flow."""
        p, t = self.pipe, self.pipe.t
        dt = p.dt
        slot = t % self.R
        ack = self.ack_ring[slot].copy()
        self.ack_ring[slot] = 0.0
        self._on_acks(ack, t * dt)
        # the pauses each transmitter sees now: sent by the far end a header's hop ago
        prow = (t - p.d_hdr) % len(self.pause_ring)
        paused = self.pause_ring[prow, np.arange(p.L)]
        self.paused_now = paused
        inflight = self.sent - self.acked
        elig = np.clip(np.minimum(np.minimum(self.W / self.T * dt, self.W - inflight), self.pace), 0.0,
                       self.need - self.sent)
        cap = np.where(paused, 0.0, p.cap)
        s = _waterfill(self.nic, elig, cap, p.L) if elig.any() else elig
        self.sent += s
        inj = s[p.routes.flow] * p.routes.frac if p.routes.n_paths != self.F else s[p.routes.flow]
        rx, _ = p.tick(inj, paused=paused)
        got = np.bincount(p.routes.flow, weights=rx, minlength=self.F)
        self.recv += got
        go = np.flatnonzero(got > 0)
        np.add.at(self.ack_ring, ((t + p.back[go]) % self.R, go), got[go])
        # telemetry of this tick and the ingress ports' pauses
        self.tx += p.served_link
        self.tx_ring[(t + 1) % self.R] = self.tx
        self.q_ring[(t + 1) % self.R] = p.queue_link()
        held = p.ingress_held()
        self.max_ingress = np.maximum(self.max_ingress, held)
        self.pause_state = (held > self.high) | (self.pause_state & (held >= self.low))
        self.pause_ring[(t + 1) % len(self.pause_ring)] = self.pause_state
        self.paused_ticks += paused
        return got
