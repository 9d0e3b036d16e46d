"""LID assignment as OpenSM's LID manager does it on a fresh subnet.

The SM's own port is served first, then every port in the port-GUID map
(switch port 0s and CA ports, byte-swapped GUID order, see
:func:`~fabricviz.ib.subnet.osm_order`). Each CA port takes ``2^LMC``
consecutive LIDs aligned to ``2^LMC`` from the lowest free range; a switch's
base port 0 takes one LID. Unicast LIDs run from 1 to 0xBFFF (49,151).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model import FabricError
from .subnet import Subnet, osm_order

MAX_UCAST_LID = 0xBFFF
MAX_LMC = 7


class LidSpaceError(FabricError):
    """The subnet needs more unicast LIDs than there are: refused before any routing work."""


@dataclass
class Lids:
    """Base LIDs of every switch (port 0) and every discovered CA port (0 = none)."""

    lmc: int
    sw_lid: np.ndarray
    ca_lid: np.ndarray
    max_lid: int
    warnings: list[str] = field(default_factory=list)

    @property
    def lids_per_ca_port(self) -> int:
        return 1 << self.lmc

    def count(self) -> int:
        """LIDs in use (switches one each, CA ports 2^LMC each)."""
        return int(np.count_nonzero(self.sw_lid) + np.count_nonzero(self.ca_lid) * self.lids_per_ca_port)


def assign_lids(sn: Subnet, lmc: int = 0, previous: dict[int, int] | None = None) -> Lids:
    """LID assignment in OpenSM's order.

    ``previous`` (port GUID → base LID: OpenSM's guid2lid, or the LIDs the ports
    already carry, e.g. from an ibnetdiscover file — OpenSM keeps a port's LID
    when it is free and aligned) keeps those ports on their LIDs; the others
    then take the lowest free ranges.
    """
    if not 0 <= lmc <= MAX_LMC:
        raise FabricError(f"LMC {lmc}: LMC is 0..{MAX_LMC}")
    S, C = sn.num_switches, len(sn.ca_ports)
    # one list of (is_switch, index) in port-GUID map order
    guids = np.concatenate([sn.sw_guid, sn.ca_guid]).astype(np.uint64)
    order = osm_order(guids)
    sm_is_sw = sn.sm_node in sn.sw_index
    if sm_is_sw:
        sm_key = sn.sw_index[sn.sm_node]
    else:
        hits = np.flatnonzero(sn.ca_ports == sn.sm_port)
        sm_key = S + int(hits[0]) if len(hits) else -1
    seq = [sm_key] + [int(k) for k in order.tolist() if int(k) != sm_key] if sm_key >= 0 else order.tolist()
    sw_lid = np.zeros(S, np.int64)
    ca_lid = np.zeros(C, np.int64)
    step = 1 << lmc
    nxt = 1
    warnings: list[str] = []
    short = 0
    if previous:
        used = np.zeros(MAX_UCAST_LID + 2, bool)
        for k in seq:
            g = int(guids[k])
            lid = previous.get(g, 0)
            width = 1 if k < S else step
            if lid and lid % width == 0 and lid + width - 1 <= MAX_UCAST_LID and not used[lid:lid + width].any():
                used[lid:lid + width] = True
                if k < S:
                    sw_lid[k] = lid
                else:
                    ca_lid[k - S] = lid
        # the lowest free aligned block of each width: LIDs are only ever taken, so the search
        # for a width resumes where the last one of that width stopped (linear, not quadratic)
        cursor: dict[int, int] = {}
        for k in seq:
            if (k < S and sw_lid[k]) or (k >= S and ca_lid[k - S]):
                continue
            width = 1 if k < S else step
            lid = cursor.get(width, width)
            while lid + width - 1 <= MAX_UCAST_LID and used[lid:lid + width].any():
                lid += width
            cursor[width] = lid
            if lid + width - 1 > MAX_UCAST_LID:
                short += 1
                continue
            used[lid:lid + width] = True
            if k < S:
                sw_lid[k] = lid
            else:
                ca_lid[k - S] = lid
        seq = []
    for k in seq:
        if k < S:
            lid, width = nxt, 1
        else:
            lid = (nxt + step - 1) & ~(step - 1)
            width = step
        if lid + width - 1 > MAX_UCAST_LID:
            short += 1
            continue
        if k < S:
            sw_lid[k] = lid
        else:
            ca_lid[k - S] = lid
        # OpenSM moves the free range's start past the aligned block: LIDs skipped
        # for alignment are not handed out later (lid_mgr_find_free_lid_range)
        nxt = lid + width
    if short:
        # the counts fit (routing checks them first) but alignment or LIDs kept from a file leave
        # no free aligned block: the SM cannot give every port a LID, so this is refused too
        raise LidSpaceError(f"LID space exhausted: {short:,} port(s) would get no LID (unicast LIDs "
                          f"1-{MAX_UCAST_LID:,}; LMC {lmc} takes aligned blocks of {step} per CA port); "
                          "lower the LMC or split the fabric into subnets")
    max_lid = int(max(sw_lid.max(initial=0), (ca_lid.max(initial=0) + step - 1) if C else 0))
    return Lids(lmc, sw_lid, ca_lid, max_lid, warnings)


def lid_of_ports(sn: Subnet, lids: Lids) -> dict[int, int]:
    """Model port id → base LID for CA ports and switch ports (switch ports share port 0's LID)."""
    out: dict[int, int] = {}
    for p, lid in zip(sn.ca_ports.tolist(), lids.ca_lid.tolist()):
        out[p] = lid
    t = sn.fabric.devices_t
    for s, d in enumerate(sn.switches.tolist()):
        first, n = int(t.first_port[d]), int(t.nports[d])
        for p in range(first, first + n):
            out[p] = int(lids.sw_lid[s])
    return out
