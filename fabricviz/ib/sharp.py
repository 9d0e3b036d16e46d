"""SHARP aggregation nodes: end ports inside Quantum switches that are not compute hosts.

A Quantum switch reports its in-network reduction engine as one more port (QM8700: 41,
QM9700: 65) cabled to a one-port CA described ``"Mellanox Technologies Aggregation Node"``.
The ibnetdiscover/ibsim importer gives those CAs the part :data:`SHARP_PART`; that part id is
how the model marks them. They take a LID and are routed to like any CA, but ``info``, lint,
the BOM and traffic patterns must not count them as hosts.
"""

from __future__ import annotations

import numpy as np

from ..model import Fabric
from ..model.fabric import KIND_CODE, NIC

#: Part id the importers give aggregation nodes (also read by check.lint and check.bom).
SHARP_PART = "SHARP-AN"


def sharp_mask(fabric: Fabric) -> np.ndarray:
    """Per device id: True for a live NIC whose part is :data:`SHARP_PART`."""
    t = fabric.devices_t
    out = np.zeros(t.n, bool)
    nic = t.alive & (t.kind == KIND_CODE[NIC])
    for idx in np.unique(t.part[nic]).tolist():
        if idx < 0:
            continue
        sel = nic & (t.part == idx)
        if fabric.part_id_of(int(np.flatnonzero(sel)[0])) == SHARP_PART:
            out |= sel
    return out
