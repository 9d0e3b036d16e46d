"""Per-link and per-path one-way latency.

For a packet of ``S`` bytes every hop costs

    serialization  +  propagation (5 ns/m + the cable part's own latency)
    +  switch pipeline (the part's ``latency_ns`` when the hop leaves a switch)
    +  queueing  queue_bytes·8 / rate

and the path adds the NIC overhead (its part's ``latency_ns``) once at each end. PCIe hops
use the GPU part's ``pcie_gbps`` and ``pcie_latency_ns``.

Serialization follows the switch's forwarding mode (the part's ``forwarding``). A
store-and-forward hop, and every hop leaving a NIC or GPU, serializes the whole packet,
S·8/C. A cut-through switch starts the egress once the header (``header_bytes``, 64 B:
the amount cut-through Ethernet switches wait for, e.g. HPE's "after it receives the first
64 bytes") is in, so on its hop only the header adds delay, H·8/C; the packet's full
serialization is paid once, on the first link. Cut-through needs an idle egress and an
ingress at least as fast as the egress (the usual ASIC rule, e.g. Microchip's switch
documentation: "the speed of the egress port must be equal to or less than the speed of the
ingress port(s)", "the egress port(s) must be idling"). Otherwise the hop is store-and-forward:
a queued egress (queue > 0) or a slower ingress (slow → fast). Across fast → slow the switch
still cuts through, and the slower egress stretches the packet: the hop adds
H·8/C_in + S·8/C_out − S·8/C_in. The per-link figures (frames, the heatmap) assume an ingress
of the link's own speed; the path and flow figures apply the ingress rule along the path.
All figures come from the editable parts catalog; :class:`LatencyParams` overrides them
(e.g. the HPCC-style "1 µs per link", which is store-and-forward).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..model import Fabric
from .links import PROP_NS_PER_M, LinkTable
from .paths import Routes

#: Bytes a cut-through switch receives before it starts the egress (the forwarding decision).
HEADER_BYTES = 64.0


@dataclass(frozen=True)
class LatencyParams:
    bytes: float = 4096.0                 # packet size for serialization
    link_delay_ns: float | None = None    # replaces every cable's propagation
    switch_ns: float | None = None        # replaces every switch pipeline
    nic_ns: float | None = None           # replaces every NIC's one-way overhead
    header_bytes: float = HEADER_BYTES    # what a cut-through switch waits for
    cut_through: bool = True              # False: every hop store-and-forward (HPCC-ns3)


#: the defaults, shared (frozen) by every function's ``params``/``latency`` default
DEFAULT_LATENCY = LatencyParams()


@dataclass(frozen=True)
class LinkLatency:
    """Components per link id, ns, and how each hop forwards (with a same-speed ingress)."""

    serialization: np.ndarray
    propagation: np.ndarray
    switch: np.ndarray
    queueing: np.ndarray
    cut_through: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  # per link
    bytes_serialized: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per link
    packet_bytes: float = 0.0
    header_bytes: float = 0.0

    @property
    def total(self) -> np.ndarray:
        return self.serialization + self.propagation + self.switch + self.queueing


def link_latency(links: LinkTable, params: LatencyParams = DEFAULT_LATENCY,
                 queue_bytes: np.ndarray | None = None) -> LinkLatency:
    """Latency components of every directed link for one packet of ``params.bytes``, with
    ``queue_bytes`` (per link, at its egress) waiting ahead of it.

    A hop leaving a cut-through switch with an empty egress queue serializes only the header
    (its ingress assumed as fast as the link; :func:`path_hops` and :func:`flow_latency_ns`
    apply speed changes). A link without capacity (a removed cable) carries nothing and has no
    latency: its serialization, and so its total, is NaN (never inf, which would swamp a colour
    scale's maximum); its queueing is 0.
    """
    live = links.gbps > 0
    per_byte = np.full(links.n, np.nan)                                  # ns per byte
    np.divide(8.0, links.gbps, out=per_byte, where=live)
    ct = links.cut_through.copy() if len(links.cut_through) == links.n and params.cut_through \
        else np.zeros(links.n, bool)
    q = np.zeros(links.n)
    if queue_bytes is not None:
        qb = np.asarray(queue_bytes, float)
        np.multiply(qb, per_byte, out=q, where=live)
        ct &= ~(qb > 0)                                   # a queued egress stores the packet
    size = float(params.bytes)
    head = min(float(params.header_bytes), size)
    nbytes = np.where(ct, head, size)
    ser = nbytes * per_byte
    prop = links.prop_ns.copy()
    if params.link_delay_ns is not None:
        prop = np.where(links.pcie, prop, params.link_delay_ns)
    sw = links.switch_ns.copy() if params.switch_ns is None else \
        np.where(links.switch_ns > 0, params.switch_ns, 0.0)
    return LinkLatency(ser, prop, sw, q, ct, nbytes, size, head)


def ingress_fix(links: LinkTable, lat: LinkLatency, prev: np.ndarray, cur: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """For hops ``cur`` entered over ``prev`` (link ids): extra serialization (ns) over the
    same-speed figure of ``lat``, and whether the hop still cuts through.

    Slow → fast is store-and-forward: +(S − H)·8/C_out. Fast → slow cuts through and the slower
    egress stretches the packet: +(S − H)·8·(1/C_out − 1/C_in).
    """
    ct = lat.cut_through[cur] if len(lat.cut_through) else np.zeros(len(cur), bool)
    c_in, c_out = links.gbps[prev], links.gbps[cur]
    rest = (lat.packet_bytes - lat.header_bytes) * 8.0
    with np.errstate(divide="ignore", invalid="ignore"):
        slow_in = ct & (c_in < c_out) & (c_in > 0)
        fast_in = ct & (c_in > c_out) & (c_out > 0)
        fix = np.where(slow_in, rest / np.where(c_out > 0, c_out, 1.0), 0.0)
        fix = np.where(fast_in, rest * (1.0 / np.where(c_out > 0, c_out, 1.0)
                                        - 1.0 / np.where(c_in > 0, c_in, 1.0)), fix)
    return fix, ct & ~slow_in


def nic_overheads(fabric: Fabric, links: LinkTable, path: np.ndarray,
                  params: LatencyParams = DEFAULT_LATENCY) -> tuple[float, float]:
    """(tx, rx) NIC overhead of a path: the NIC its first fabric link leaves and the one its last enters."""
    fab = path[~links.pcie[path]]
    if not len(fab):
        return 0.0, 0.0
    tx_dev, rx_dev = int(links.src_dev[fab[0]]), int(links.dst_dev[fab[-1]])
    if params.nic_ns is not None:
        return float(params.nic_ns), float(params.nic_ns)
    return float(links.nic_ns[tx_dev]), float(links.nic_ns[rx_dev])


def path_hops(fabric: Fabric, links: LinkTable, path: np.ndarray,
              params: LatencyParams = DEFAULT_LATENCY,
              queue_bytes: np.ndarray | None = None) -> tuple[list[dict], float]:
    """One row per hop (from, to, rate, forwarding mode, bytes serialized, components, total)
    and the one-way total in ns. ``bytes_serialized`` is what the hop waits for before the
    next one starts: the header on a cut-through hop, the packet otherwise."""
    path = np.asarray(path, np.int64)
    lat = link_latency(links, params, queue_bytes)
    tx, rx = nic_overheads(fabric, links, path, params)
    fix = np.zeros(len(path))
    ct = lat.cut_through[path].copy()
    if len(path) > 1:
        fix[1:], ct[1:] = ingress_fix(links, lat, path[:-1], path[1:])
    if len(path):
        ct[0] = False                                     # the first hop leaves a NIC or GPU
    rows: list[dict[str, Any]] = []
    for k, l in enumerate(path):
        a, b = links.name(fabric, int(l))
        ser = float(lat.serialization[l] + fix[k])
        comp = (ser, float(lat.propagation[l]), float(lat.switch[l]), float(lat.queueing[l]))
        rows.append({"link": int(l), "from": a, "to": b, "gbps": float(links.gbps[l]),
                     "pcie": bool(links.pcie[l]),
                     "mode": "cut-through" if ct[k] else "store-and-forward",
                     "bytes_serialized": lat.header_bytes if ct[k] else lat.packet_bytes,
                     "serialization_ns": comp[0], "propagation_ns": comp[1], "switch_ns": comp[2],
                     "queueing_ns": comp[3], "total_ns": float(sum(comp))})
    total = tx + rx + float(sum(r["total_ns"] for r in rows))
    return rows, total


def base_rtt_ns(links: LinkTable, path: np.ndarray, params: LatencyParams = DEFAULT_LATENCY) -> float:
    """HPCC-ns3 base RTT: 2·Σ propagation + Σ data-direction serialization (+ switches both ways).

    HPCC-ns3's switches store and forward, so every hop serializes the whole packet here."""
    lat = link_latency(links, replace(params, cut_through=False))
    fab = path[~links.pcie[path]]
    return float(2 * lat.propagation[fab].sum() + lat.serialization[fab].sum()
                 + 2 * lat.switch[fab].sum())


def bdp_bytes(links: LinkTable, path: np.ndarray, params: LatencyParams = DEFAULT_LATENCY) -> float:
    """Bandwidth-delay product of a path: base RTT × the first fabric link's rate."""
    fab = path[~links.pcie[path]]
    return base_rtt_ns(links, path, params) * 1e-9 * float(links.gbps[fab[0]]) * 1e9 / 8


def _piece(x: np.ndarray, lo: int, hi: int) -> np.ndarray:
    return x[lo:hi] if np.ndim(x) else x


def flow_latency_ns(links: LinkTable, routes: Routes, link_total_ns: np.ndarray,
                    nic_ns: tuple[np.ndarray, np.ndarray] | None = None,
                    latency: LinkLatency | None = None) -> np.ndarray:
    """Per-flow one-way latency: share-weighted mean over its sub-paths, plus NIC overheads.

    With ``latency`` (the :func:`link_latency` behind ``link_total_ns``), each cut-through hop
    also pays the speed change from the hop before it (:func:`ingress_fix`). A big run goes a piece
    of flows at a time (:meth:`~.paths.Routes.split`: the same sums, bounded temporaries)."""
    parts = routes.split()
    if len(parts) > 1:
        whole = np.empty(routes.n_flows)
        for lo, hi, sub in parts:
            whole[lo:hi] = flow_latency_ns(links, sub, link_total_ns, None if nic_ns is None else
                                           (_piece(nic_ns[0], lo, hi), _piece(nic_ns[1], lo, hi)), latency)
        return whole
    per_path = routes.path_incidence() @ link_total_ns
    if latency is not None and len(latency.cut_through) and len(routes.links) > 1:
        cur = np.arange(1, len(routes.links))
        inner = np.ones(len(routes.links), bool)
        inner[routes.indptr[:-1][routes.hops() > 0]] = False      # a path's first hop has no ingress
        cur = cur[inner[1:]]
        fix, _ = ingress_fix(links, latency, routes.links[cur - 1], routes.links[cur])
        path_of = np.repeat(np.arange(routes.n_paths), routes.hops())
        per_path = per_path + np.bincount(path_of[cur], weights=np.nan_to_num(fix),
                                          minlength=routes.n_paths)
    out = np.bincount(routes.flow, weights=per_path * routes.frac, minlength=routes.n_flows)
    if nic_ns is not None:
        out = out + nic_ns[0] + nic_ns[1]
    return out


def flow_nic_ns(links: LinkTable, routes: Routes, params: LatencyParams = DEFAULT_LATENCY
                ) -> tuple[np.ndarray, np.ndarray]:
    """(tx, rx) NIC overhead of every flow (from its first sub-path); a piece of flows at a time."""
    parts = routes.split()
    if len(parts) > 1:
        tx, rx = np.empty(routes.n_flows), np.empty(routes.n_flows)
        for lo, hi, sub in parts:
            tx[lo:hi], rx[lo:hi] = flow_nic_ns(links, sub, params)
        return tx, rx
    first = np.searchsorted(routes.flow, np.arange(routes.n_flows))
    tx = np.zeros(routes.n_flows)
    rx = np.zeros(routes.n_flows)
    ok = first < routes.n_paths
    starts, ends = routes.indptr[first[ok]], routes.indptr[first[ok] + 1] - 1
    # skip PCIe hops at either end
    s_link = routes.links[starts]
    s_link = np.where(links.pcie[s_link], routes.links[np.minimum(starts + 1, ends)], s_link)
    e_link = routes.links[ends]
    e_link = np.where(links.pcie[e_link], routes.links[np.maximum(ends - 1, starts)], e_link)
    if params.nic_ns is not None:
        tx[ok] = rx[ok] = params.nic_ns
    else:
        tx[ok] = links.nic_ns[links.src_dev[s_link]]
        rx[ok] = links.nic_ns[links.dst_dev[e_link]]
    return tx, rx


__all__ = ["DEFAULT_LATENCY", "HEADER_BYTES", "LatencyParams", "LinkLatency", "link_latency", "ingress_fix",
           "path_hops", "base_rtt_ns", "bdp_bytes",
           "flow_latency_ns", "flow_nic_ns", "nic_overheads", "PROP_NS_PER_M"]
