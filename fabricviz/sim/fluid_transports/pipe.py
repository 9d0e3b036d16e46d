"""The data path the transports of :mod:`fabricviz.sim.fluid_transports` send over, tick by tick.

Every hop of a sub-path past the sender's NIC is an *entry*: the bytes of that sub-path waiting in
the egress queue of that link. Per tick of ``dt``:

1. what left the previous hop ``delay`` ticks ago arrives (a hop's delay: propagation + the switch's
   pipeline + one packet's serialization, store and forward, at least one tick);
2. every link not paused serves ``capacity · dt``: round-robin over the ingress ports feeding it
   (water-filling, as :mod:`..fluid`), then in proportion to the bytes each entry holds (FIFO);
3. with a trimming limit, a queue holding more than its limit after service trims the excess off
   what just arrived (payload cut, the header goes on: the caller is told which entry trimmed what);
4. what a hop serves goes into the delay line of the next hop, or to the receiver after the last.

The sender's NIC is not an entry: the caller hands in what each sub-path put on its NIC link this
tick (:meth:`Pipe.tick`), already paced by the NIC's capacity.
"""

from __future__ import annotations

import numpy as np

from ..fluid import _waterfill
from ..links import LinkTable
from ..paths import Routes


def hop_ticks(links: LinkTable, dt_s: float, packet_bytes: float) -> np.ndarray:
    """Per link: ticks for a packet of ``packet_bytes`` to cross it and its far switch's pipeline
    (propagation + switch latency + serialization), at least one."""
    gbps = np.where(links.gbps > 0, links.gbps, np.inf)
    ns = links.prop_ns + links.switch_ns + packet_bytes * 8 / gbps
    return np.maximum(np.rint(ns * 1e-9 / dt_s), 1).astype(np.int64)


class Pipe:
    """Entries, delay lines and service of a run's sub-paths (module doc)."""

    def __init__(self, links: LinkTable, routes: Routes, dt_s: float, mtu: int, hdr: int) -> None:
        self.links, self.routes, self.dt = links, routes, dt_s
        L, P = links.n, routes.n_paths
        self.L, self.P = L, P
        hops = routes.hops()
        self.e_path = np.repeat(np.arange(P), hops)
        self.e_link = routes.links.astype(np.int64)
        self.e_flow = routes.flow[self.e_path]
        self.first = routes.indptr[:-1].astype(np.int64)
        self.last = (routes.indptr[1:] - 1).astype(np.int64)
        E = len(self.e_link)
        self.E = E
        hop = np.arange(E) - np.repeat(self.first, hops)
        self.queued = hop > 0                         # the NIC link's own hop is the sender's
        self.prev_link = np.where(self.queued, np.roll(self.e_link, 1), -1)
        ingress = np.where(self.queued, self.prev_link, L + self.e_path)
        key = self.e_link * (L + P + 1) + ingress
        ukey, self.gid = np.unique(key, return_inverse=True)
        self.g_link = (ukey // (L + P + 1)).astype(np.int64)
        self.cap = links.gbps * 1e9 / 8 * dt_s        # bytes per tick
        self.d_data = hop_ticks(links, dt_s, mtu)
        d_hdr = hop_ticks(links, dt_s, hdr)
        self.d_hdr = d_hdr
        # a header from the egress queue of entry e to the receiver: the links from e on
        rev = np.cumsum(d_hdr[self.e_link][::-1])[::-1]
        end = np.repeat(rev[self.last] - d_hdr[self.e_link[self.last]], hops)
        self.to_rx = rev - end                       # ticks, entry e's link included
        lead = np.searchsorted(routes.flow, np.arange(routes.n_flows))
        self.back = self.to_rx[self.first[lead]].astype(np.int64)  # per flow: receiver → sender, a header
        d = self.d_data[self.e_link]
        self.fwd_f = np.add.reduceat(d, self.first)[lead].astype(np.int64) if E else np.zeros(0, np.int64)
        #            per flow: a data packet's trip sender → receiver over its first sub-path, no queueing
        self.nic_link = self.e_link[self.first]       # per sub-path
        self.R = int(self.d_data.max(initial=1)) + 2
        self.ring = np.zeros((self.R, E))
        self.rx_ring = np.zeros((self.R, P))
        self.q = np.zeros(E)
        self.t = 0
        self.nxt = np.flatnonzero(self.queued)        # entries that receive from the entry before them
        self.not_last = np.ones(E, bool)
        self.not_last[self.last] = False
        self.served_link: np.ndarray = np.zeros(L)
        self.q_link: np.ndarray = np.zeros(L)
        # where what an entry serves goes: (delay, entries) groups, each a row of the ring at once
        d = self.d_data[self.e_link]
        mid = np.flatnonzero(self.not_last)
        self.fwd = [(int(v), mid[d[mid] == v]) for v in np.unique(d[mid])]
        self.end = [(int(v), self.last[d[self.last] == v]) for v in np.unique(d[self.last])]
        dn = self.d_data[self.nic_link]
        self.inj = [(int(v), np.flatnonzero(dn == v)) for v in np.unique(dn)]
        self.one_hop = bool((self.last == self.first).any())

    def in_flight(self) -> np.ndarray:
        """Per flow: bytes queued or on the wire."""
        held = self.q + self.ring.sum(0)
        f = np.bincount(self.e_flow, weights=held, minlength=self.routes.n_flows)
        return f + np.bincount(self.routes.flow, weights=self.rx_ring.sum(0), minlength=self.routes.n_flows)

    def queue_link(self) -> np.ndarray:
        """Per link: bytes its egress queue holds (after the last tick)."""
        return self.q_link

    def ingress_held(self) -> np.ndarray:
        """Per link: bytes its far end holds that came in on it (PFC's ingress counter)."""
        src = np.where(self.queued, self.prev_link, self.L)
        return np.bincount(src, weights=self.q, minlength=self.L + 1)[:self.L]

    def tick(self, inj_path: np.ndarray, paused: np.ndarray | None = None,
             trim_limit: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """One tick (module doc): ``inj_path`` bytes each sub-path puts on its NIC link now;
        ``paused`` links serve nothing; ``trim_limit`` per link (None: nothing trimmed).
        Returns (bytes reaching each sub-path's receiver now, bytes each entry trimmed)."""
        slot = self.t % self.R
        arr = self.ring[slot].copy()
        self.ring[slot] = 0.0
        rx = self.rx_ring[slot].copy()
        self.rx_ring[slot] = 0.0
        avail = self.q + arr
        cap = self.cap if paused is None else np.where(paused, 0.0, self.cap)
        gdem = np.bincount(self.gid, weights=avail, minlength=len(self.g_link))
        gserve = _waterfill(self.g_link, gdem, cap, self.L)
        gfrac = np.minimum(np.divide(gserve, gdem, out=np.zeros_like(gdem), where=gdem > 0), 1.0)
        serve = avail * gfrac[self.gid]
        q = avail - serve
        trim = np.zeros(self.E)
        q_link = np.bincount(self.e_link, weights=q, minlength=self.L)
        if trim_limit is not None and (q_link > trim_limit).any():
            a_link = np.bincount(self.e_link, weights=arr, minlength=self.L)
            over = np.maximum(q_link - trim_limit, 0.0)
            ratio = np.minimum(np.divide(over, a_link, out=np.zeros(self.L), where=a_link > 0), 1.0)
            trim = np.minimum(arr * ratio[self.e_link], q)
            q = q - trim
            q_link = np.bincount(self.e_link, weights=q, minlength=self.L)
        self.q = np.maximum(q, 0.0)
        self.q_link = q_link
        # onwards: the next entry after this link's delay, or the receiver after the last hop (each
        # entry feeds one entry and each sub-path one receiver slot: no index twice in a write)
        for v, idx in self.fwd:
            self.ring[(self.t + v) % self.R, idx + 1] += serve[idx]
        for v, idx in self.end:
            self.rx_ring[(self.t + v) % self.R, self.e_path[idx]] += serve[idx]
        # the senders' NIC links: into the second hop (or straight to the receiver on a one-hop path)
        for v, paths in self.inj:
            row = (self.t + v) % self.R
            if self.one_hop:
                one = self.last[paths] == self.first[paths]
                self.rx_ring[row, paths[one]] += inj_path[paths[one]]
                paths = paths[~one]
            self.ring[row, self.first[paths] + 1] += inj_path[paths]
        self.served_link = np.bincount(self.e_link, weights=serve, minlength=self.L) + \
            np.bincount(self.nic_link, weights=inj_path, minlength=self.L)
        self.t += 1
        return rx, trim
