"""Per-link and per-path one-way latency.

For a packet of ``S`` bytes every hop costs

    serialization S·8 / rate  +  propagation (5 ns/m + the cable part's own latency)
    +  switch pipeline (the part's ``latency_ns`` when the hop leaves a switch)
    +  queueing  queue_bytes·8 / rate

(store-and-forward), and the path adds the NIC overhead (its part's
``latency_ns``) once at each end. PCIe hops use the GPU part's ``pcie_gbps``
and ``pcie_latency_ns``. All figures come from the editable parts catalog;
:class:`LatencyParams` overrides them (e.g. the HPCC-style "1 µs per link").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..model import Fabric
from .links import PROP_NS_PER_M, LinkTable
from .paths import Routes


@dataclass(frozen=True)
class LatencyParams:
    bytes: float = 4096.0                 # packet size for serialization
    link_delay_ns: float | None = None    # replaces every cable's propagation
    switch_ns: float | None = None        # replaces every switch pipeline
    nic_ns: float | None = None           # replaces every NIC's one-way overhead


@dataclass(frozen=True)
class LinkLatency:
    """Components per link id, ns."""

    serialization: np.ndarray
    propagation: np.ndarray
    switch: np.ndarray
    queueing: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.serialization + self.propagation + self.switch + self.queueing


def link_latency(links: LinkTable, params: LatencyParams = LatencyParams(),
                 queue_bytes: np.ndarray | None = None) -> LinkLatency:
    """Latency components of every directed link for one packet of ``params.bytes``, with
    ``queue_bytes`` (per link, at its egress) waiting ahead of it.

    A link without capacity (a removed cable) carries nothing and has no latency: its
    serialization, and so its total, is NaN (never inf, which would swamp a colour scale's
    maximum); its queueing is 0.
    """
    live = links.gbps > 0
    per_byte = np.full(links.n, np.nan)                                  # ns per byte
    np.divide(8.0, links.gbps, out=per_byte, where=live)
    ser = params.bytes * per_byte
    prop = links.prop_ns.copy()
    if params.link_delay_ns is not None:
        prop = np.where(links.pcie, prop, params.link_delay_ns)
    sw = links.switch_ns.copy() if params.switch_ns is None else \
        np.where(links.switch_ns > 0, params.switch_ns, 0.0)
    q = np.zeros(links.n)
    if queue_bytes is not None:
        np.multiply(np.asarray(queue_bytes, float), per_byte, out=q, where=live)
    return LinkLatency(ser, prop, sw, q)


def nic_overheads(fabric: Fabric, links: LinkTable, path: np.ndarray,
                  params: LatencyParams = LatencyParams()) -> tuple[float, float]:
    """(tx, rx) NIC overhead of a path: the NIC its first fabric link leaves and the one its last enters."""
    fab = path[~links.pcie[path]]
    if not len(fab):
        return 0.0, 0.0
    tx_dev, rx_dev = int(links.src_dev[fab[0]]), int(links.dst_dev[fab[-1]])
    if params.nic_ns is not None:
        return float(params.nic_ns), float(params.nic_ns)
    return float(links.nic_ns[tx_dev]), float(links.nic_ns[rx_dev])


def path_hops(fabric: Fabric, links: LinkTable, path: np.ndarray,
              params: LatencyParams = LatencyParams(),
              queue_bytes: np.ndarray | None = None) -> tuple[list[dict], float]:
    """One row per hop (from, to, rate, components, total) and the one-way total in ns."""
    lat = link_latency(links, params, queue_bytes)
    tx, rx = nic_overheads(fabric, links, path, params)
    rows: list[dict[str, Any]] = []
    for l in path:
        a, b = links.name(fabric, int(l))
        rows.append({"link": int(l), "from": a, "to": b, "gbps": float(links.gbps[l]),
                     "pcie": bool(links.pcie[l]),
                     "serialization_ns": float(lat.serialization[l]),
                     "propagation_ns": float(lat.propagation[l]), "switch_ns": float(lat.switch[l]),
                     "queueing_ns": float(lat.queueing[l]), "total_ns": float(lat.total[l])})
    total = tx + rx + float(sum(r["total_ns"] for r in rows))
    return rows, total


def base_rtt_ns(links: LinkTable, path: np.ndarray, params: LatencyParams = LatencyParams()) -> float:
    """HPCC-ns3 base RTT: 2·Σ propagation + Σ data-direction serialization (+ switches both ways)."""
    lat = link_latency(links, params)
    fab = path[~links.pcie[path]]
    return float(2 * lat.propagation[fab].sum() + lat.serialization[fab].sum()
                 + 2 * lat.switch[fab].sum())


def bdp_bytes(links: LinkTable, path: np.ndarray, params: LatencyParams = LatencyParams()) -> float:
    """Bandwidth-delay product of a path: base RTT × the first fabric link's rate."""
    fab = path[~links.pcie[path]]
    return base_rtt_ns(links, path, params) * 1e-9 * float(links.gbps[fab[0]]) * 1e9 / 8


def flow_latency_ns(links: LinkTable, routes: Routes, link_total_ns: np.ndarray,
                    nic_ns: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Per-flow one-way latency: share-weighted mean over its sub-paths, plus NIC overheads."""
    per_path = routes.path_incidence() @ link_total_ns
    out = np.bincount(routes.flow, weights=per_path * routes.frac, minlength=routes.n_flows)
    if nic_ns is not None:
        out = out + nic_ns[0] + nic_ns[1]
    return out


def flow_nic_ns(links: LinkTable, routes: Routes, params: LatencyParams = LatencyParams()
                ) -> tuple[np.ndarray, np.ndarray]:
    """(tx, rx) NIC overhead of every flow (from its first sub-path)."""
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


__all__ = ["LatencyParams", "LinkLatency", "link_latency", "path_hops", "base_rtt_ns", "bdp_bytes",
           "flow_latency_ns", "flow_nic_ns", "nic_overheads", "PROP_NS_PER_M"]
