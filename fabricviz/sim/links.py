"""Directed links: the unit every traffic engine works on.

Link-id scheme (stable for a given fabric, so frames stay comparable):

* cable ``c`` gives two directed links: ``2c`` runs port_a → port_b and
  ``2c + 1`` runs port_b → port_a. Removed cables keep their ids with
  capacity 0 (``alive`` False), so ids never shift after an edit.
* after the ``2 · cables_t.n`` cable links come the PCIe hops inside servers,
  two per GPU bound to a NIC (in GPU-id order): ``base + 2i`` is GPU → NIC and
  ``base + 2i + 1`` is NIC → GPU, with the GPU part's ``pcie_gbps`` and
  ``pcie_latency_ns``.

Per link the table holds its ends (device and port, port −1 on PCIe), its
capacity in Gb/s, its propagation delay (5 ns/m of cable plus the cable
part's own latency, e.g. optics) and the pipeline latency of the device it
leaves when that device is a switch (the hop through that switch).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model import Fabric
from ..model.fabric import KIND_CODE
from ..model.tech import rates_gbps

#: Propagation in fibre or copper, ns per metre.
PROP_NS_PER_M = 5.0
SWITCH_CODES = (KIND_CODE["ib_switch"], KIND_CODE["eth_switch"])


@dataclass(frozen=True)
class LinkTable:
    """All directed links of a fabric as numpy columns indexed by link id."""

    src_dev: np.ndarray      # device the link leaves
    dst_dev: np.ndarray      # device it enters
    src_port: np.ndarray     # port id, -1 for PCIe
    dst_port: np.ndarray
    gbps: np.ndarray         # capacity (0 for dead links)
    prop_ns: np.ndarray      # propagation + cable part latency
    switch_ns: np.ndarray    # pipeline of src_dev when it is a switch, else 0
    length_m: np.ndarray
    alive: np.ndarray
    pcie: np.ndarray         # True for PCIe hops
    n_cable_links: int
    pcie_gpu: np.ndarray     # GPU device id of PCIe pair i
    nic_ns: np.ndarray = field(repr=False)  # per device: NIC overhead (0 otherwise)
    #: per link: it leaves a cut-through switch (the part's ``forwarding``); empty: none does
    cut_through: np.ndarray = field(default_factory=lambda: np.zeros(0, bool), repr=False)

    @property
    def n(self) -> int:
        return len(self.gbps)

    def cable_link(self, port: int, fabric: Fabric) -> int:
        """The directed link leaving ``port`` over its cable (-1 if uncabled)."""
        c = int(fabric.ports_t.cable[port])
        if c < 0:
            return -1
        return 2 * c + (0 if int(fabric.cables_t.port_a[c]) == port else 1)

    def pcie_links(self, gpu: int) -> tuple[int, int]:
        """(GPU → NIC, NIC → GPU) link ids of a bound GPU."""
        i = int(np.searchsorted(self.pcie_gpu, gpu))
        if i >= len(self.pcie_gpu) or self.pcie_gpu[i] != gpu:
            return (-1, -1)
        base = self.n_cable_links + 2 * i
        return base, base + 1

    def name(self, fabric: Fabric, link: int) -> tuple[str, str]:
        """(from, to) labels: port names for cables, device names for PCIe."""
        if self.pcie[link]:
            return fabric.name_of(int(self.src_dev[link])), fabric.name_of(int(self.dst_dev[link]))
        return fabric.port_name(int(self.src_port[link])), fabric.port_name(int(self.dst_port[link]))


def link_table(fabric: Fabric) -> LinkTable:
    """Build the directed-link table of ``fabric`` (vectorised over cables)."""
    ct, pt, dt = fabric.cables_t, fabric.ports_t, fabric.devices_t
    nc = ct.n
    pa = ct.port_a.astype(np.int64)
    pb = ct.port_b.astype(np.int64)
    alive_c = ct.alive.copy()
    gbps_c = np.where(alive_c, rates_gbps(ct.tech, ct.speed, ct.width), 0.0)
    part_lat = np.zeros(len(fabric.parts.ids) + 1)
    for pid in np.unique(ct.part[alive_c]):
        part = fabric.catalog.get(fabric.parts.ids[pid]) if pid >= 0 else None
        part_lat[pid] = float(part.latency_ns) if part is not None else 0.0
    part_ns = np.where(alive_c & (ct.part >= 0), part_lat[ct.part], 0.0)
    length = ct.length.astype(np.float64)
    src_port = np.empty(2 * nc, np.int64)
    dst_port = np.empty(2 * nc, np.int64)
    src_port[0::2], src_port[1::2] = pa, pb
    dst_port[0::2], dst_port[1::2] = pb, pa
    src_dev = pt.device[src_port].astype(np.int64) if nc else np.zeros(0, np.int64)
    dst_dev = pt.device[dst_port].astype(np.int64) if nc else np.zeros(0, np.int64)
    gbps = np.repeat(gbps_c, 2)
    prop = np.repeat(length * PROP_NS_PER_M + part_ns, 2)
    lens = np.repeat(length, 2)
    alive = np.repeat(alive_c, 2)

    # device latencies: switch pipeline and NIC overhead from the parts catalog
    dev_lat = np.zeros(dt.n)
    dev_ct = np.ones(dt.n, bool)
    cache: dict[int, float] = {}
    ct_cache: dict[int, bool] = {}
    for d in np.flatnonzero(dt.alive):
        pid = int(dt.part[d])
        if pid not in cache:
            part = fabric.catalog.get(fabric.parts.ids[pid]) if pid >= 0 and \
                fabric.parts.ids[pid] in fabric.catalog else None
            cache[pid] = float(part.latency_ns) if part is not None else 0.0
            ct_cache[pid] = part is None or part.forwarding == "cut-through"
        dev_lat[d] = cache[pid]
        dev_ct[d] = ct_cache[pid]
    is_switch = np.isin(dt.kind, SWITCH_CODES)
    nic_ns = np.where(dt.kind == KIND_CODE["nic"], dev_lat, 0.0)
    switch_ns = np.where(is_switch[src_dev], dev_lat[src_dev], 0.0) if nc else np.zeros(0)

    # PCIe hops of bound GPUs
    gpus = np.flatnonzero(dt.alive & (dt.kind == KIND_CODE["gpu"]) & (dt.bound >= 0))
    nics = dt.bound[gpus].astype(np.int64)
    g_gbps = np.zeros(len(gpus))
    g_ns = np.zeros(len(gpus))
    for i, g in enumerate(gpus):
        part = fabric.part_of(int(g))
        if part is not None:
            g_gbps[i], g_ns[i] = part.pcie_gbps, part.pcie_latency_ns
    np_ = len(gpus)
    p_src = np.empty(2 * np_, np.int64)
    p_dst = np.empty(2 * np_, np.int64)
    p_src[0::2], p_src[1::2] = gpus, nics
    p_dst[0::2], p_dst[1::2] = nics, gpus
    return LinkTable(
        src_dev=np.concatenate([src_dev, p_src]),
        dst_dev=np.concatenate([dst_dev, p_dst]),
        src_port=np.concatenate([src_port, np.full(2 * np_, -1)]),
        dst_port=np.concatenate([dst_port, np.full(2 * np_, -1)]),
        gbps=np.concatenate([np.where(alive, gbps, 0.0), np.repeat(g_gbps, 2)]),
        prop_ns=np.concatenate([prop, np.repeat(g_ns, 2)]),
        switch_ns=np.concatenate([switch_ns, np.zeros(2 * np_)]),
        length_m=np.concatenate([lens, np.zeros(2 * np_)]),
        alive=np.concatenate([alive, np.ones(2 * np_, bool)]),
        pcie=np.concatenate([np.zeros(2 * nc, bool), np.ones(2 * np_, bool)]),
        n_cable_links=2 * nc, pcie_gpu=gpus.astype(np.int64), nic_ns=nic_ns,
        cut_through=np.concatenate([(is_switch & dev_ct)[src_dev] if nc else np.zeros(0, bool),
                                    np.zeros(2 * np_, bool)]))
