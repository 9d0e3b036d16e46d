"""A collective step's fabric transfers run NIC to NIC, their PCIe hops added back to α after.

Why: an all-to-all over n GPUs is n(n−1) flows; every hop of every flow is a row of the routes,
the flow × link matrix, the VL table and the max-min working set. When each rank has a NIC of its
own and its PCIe links are at least as fast as that NIC's links, the GPU → NIC hop carries exactly
the flows the NIC → switch hop carries (and NIC → GPU those of switch → NIC), with no less
capacity: it never freezes a flow below the NIC link's share, so max-min gives the same rates
without it. Two hops fewer a flow (a quarter of a 3-level fat tree's eight). α is the path's sum
of link latencies, so the PCIe hops' own latency and the speed change at each NIC (the
cut-through ingress term) are added back per flow.
"""

from __future__ import annotations

import numpy as np

from ..model import Fabric
from ..model.fabric import KIND_CODE
from .latency import LinkLatency, ingress_fix
from .links import LinkTable
from .paths import Routes
from .reach import nic_ports


def nic_ends(fabric: Fabric, links: LinkTable, src: np.ndarray,
             dst: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(src NIC, dst NIC, GPU → NIC link, NIC → GPU link) of GPU transfers when dropping the PCIe
    hops leaves the max-min rates as they are (see the module doc), else None."""
    t = fabric.devices_t
    if len(src) and min(int(src.min()), int(dst.min())) >= 0 and max(int(src.max()), int(dst.max())) < t.n:
        seen = np.zeros(t.n, bool)                     # by device id: no sorted copy of n(n−1) ends
        seen[src] = True
        seen[dst] = True
        gpus = np.flatnonzero(seen)
    else:
        gpus = np.unique(np.concatenate([src, dst]))
    if not len(gpus) or not bool((t.kind[gpus] == KIND_CODE["gpu"]).all()):
        return None
    nic = t.bound[gpus].astype(np.int64)
    if (nic < 0).any() or len(np.unique(nic)) != len(nic):
        return None
    port = nic_ports(fabric)[nic]
    if (port < 0).any():
        return None
    out = np.array([links.cable_link(int(p), fabric) for p in port.tolist()], np.int64)
    if (out < 0).any():
        return None
    i = np.searchsorted(links.pcie_gpu, gpus)
    if (i >= len(links.pcie_gpu)).any() or (links.pcie_gpu[np.minimum(i, len(links.pcie_gpu) - 1)] != gpus).any():
        return None
    up, down = links.n_cable_links + 2 * i, links.n_cable_links + 2 * i + 1
    back = out ^ 1                                     # a cable's two directed links are 2c, 2c + 1
    if (links.gbps[up] < links.gbps[out]).any() or (links.gbps[down] < links.gbps[back]).any() or \
            (links.gbps[out] <= 0).any():
        return None
    nic_of = np.full(t.n, -1, np.int64)               # per device id; link ids fit int32
    up_of, down_of = np.full(t.n, -1, np.int32), np.full(t.n, -1, np.int32)
    nic_of[gpus], up_of[gpus], down_of[gpus] = nic, up, down
    return nic_of[src], nic_of[dst], up_of[src], down_of[dst]


def pcie_ns(links: LinkTable, routes: Routes, ll: LinkLatency, total: np.ndarray, pre: np.ndarray,
            post: np.ndarray) -> np.ndarray:
    """Per flow of a NIC-to-NIC run: what its GPU → NIC hop ``pre`` and NIC → GPU hop ``post`` add
    to its one-way latency (their link latency and the speed change into and out of the NIC); a
    piece of flows at a time (:meth:`~.paths.Routes.split`)."""
    parts = routes.split()
    if len(parts) > 1:
        whole = np.empty(routes.n_flows)
        for lo, hi, sub in parts:
            whole[lo:hi] = pcie_ns(links, sub, ll, total, pre[lo:hi], post[lo:hi])
        return whole
    first = np.searchsorted(routes.flow, np.arange(routes.n_flows))
    head = routes.links[routes.indptr[first]]                  # a single-port NIC: every sub-path's
    tail = routes.links[routes.indptr[first + 1] - 1]
    extra = total[pre] + total[post]
    if len(ll.cut_through):
        fix_in, _ = ingress_fix(links, ll, pre, head)
        fix_out, _ = ingress_fix(links, ll, tail, post)
        extra = extra + np.nan_to_num(fix_in) + np.nan_to_num(fix_out)
    return extra
