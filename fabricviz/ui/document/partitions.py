"""The design's partitions as the routing cache keeps them: one resolution per design state,
shared by the Partitions dock and the canvas's partition marks."""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from fabricviz.ib.partitions import Resolution, design_partitions, resolve
from fabricviz.ib.routing import default_sm
from fabricviz.ib.subnet import discover
from fabricviz.model import Fabric
from fabricviz.model.fabric import KIND_CODE

#: Routing-cache key of the resolved partitions (one per design state).
CACHE_KEY = "partitions"
#: Above this many devices the resolution runs off the UI thread.
BACKGROUND_DEVICES = 5_000


def resolve_design(f: Fabric, progress: Callable[[int, int], None] | None = None) -> Resolution:
    """The design's partitions on its discovered subnet (the routing cache's engine)."""
    return resolve(design_partitions(f), discover(f, default_sm(f)))


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
        ports = np.flatnonzero(np.isin(pt.device, np.asarray(nics, np.int64)) & (pt.cable >= 0)) if nics \
            else np.zeros(0, np.int64)
        guids = [int(g) for g in pt.guid[ports].tolist() if int(g) in end_ports]
        if guids:
            out[d] = guids
    return out


__all__ = ["BACKGROUND_DEVICES", "CACHE_KEY", "host_port_guids", "resolve_design"]
