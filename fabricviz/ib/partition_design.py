"""A design's partitions resolved on its subnet, and who the members are (pure: no Qt).

What the Partitions dock and the canvas's partition marks show: :func:`resolve_design` runs
OpenSM's partition manager (:func:`~.partitions.resolve`) on the design's own partitions.conf
and the subnet its SM discovers; the helpers name the end ports and find a host's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..model import Fabric
from ..model.fabric import KIND_CODE
from .partitions import Resolution, design_partitions, resolve
from .routing import default_sm
from .subnet import discover


def resolve_design(f: Fabric, progress: Callable[[int, int], None] | None = None) -> Resolution:
    """The design's partitions on its discovered subnet (the routing cache's engine)."""
    return resolve(design_partitions(f), discover(f, default_sm(f)))


def end_port_names(f: Fabric) -> dict[int, str]:
    """End-port GUID → what the members table shows: ``node01/mlx5_0:1`` for a CA port, the switch's name
    for its port 0."""
    t, pt = f.devices_t, f.ports_t
    out: dict[int, str] = {}
    ca = np.flatnonzero((pt.cable >= 0) & (t.kind[pt.device] == KIND_CODE["nic"]))
    for p, g in zip(ca.tolist(), pt.guid[ca].tolist(), strict=True):
        out.setdefault(int(g), f.port_name(p))
    sw = np.flatnonzero(t.alive & (t.kind == KIND_CODE["ib_switch"]))
    for d, g in zip(sw.tolist(), t.guid[sw].tolist(), strict=True):
        out.setdefault(int(g), f.name_of(d))
    return out


def host_port_guids(f: Fabric, ids: Sequence[int], end_ports: dict[int, Any]) -> dict[int, list[int]]:
    """Selected device id → the GUIDs of its IB NIC ports that are end ports of the subnet
    (a server: its NICs' ports; a NIC: its own); devices with none are left out."""
    t, pt = f.devices_t, f.ports_t
    out: dict[int, list[int]] = {}
    for d in ids:
        kind = int(t.kind[d])
        nics = [d] if kind == KIND_CODE["nic"] else \
            [int(c) for c in f.children_ids(d) if int(t.kind[c]) == KIND_CODE["nic"]] if kind == KIND_CODE["server"] \
            else []
        ports = (np.flatnonzero(np.isin(pt.device, np.asarray(nics, np.int64)) & (pt.cable >= 0)) if nics
                 else np.zeros(0, np.int64))
        guids = [int(g) for g in pt.guid[ports].tolist() if int(g) in end_ports]
        if guids:
            out[d] = guids
    return out
