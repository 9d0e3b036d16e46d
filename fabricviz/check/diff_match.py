"""Which device of a discovered fabric is which device of the design: the matching half of
:mod:`fabricviz.check.diff`.

Devices are matched in three passes, each only among devices still unmatched:

1. by node GUID, where both have one (a design exported to ibsim/OpenSM, or one imported from the
   fabric it is compared with, keeps its GUIDs);
2. by the NodeDescription the device reports (:mod:`fabricviz.model.descriptions`), then by name,
   where exactly one device on each side carries it;
3. through the cabling, like ``ibtopodiff -e``'s edge-first match: from every matched pair, port
   ``n`` of the design device and port ``n`` of the discovered device lead to two unmatched devices
   of the same class, entering them through the same port number; a pair proposed by exactly one
   such path on each side is matched, and the pass repeats from the new pairs until none is found.

Only the devices that are nodes of a fabric (switches and NICs with ports) take part; the design's
Ethernet part is left out when the discovered fabric has no Ethernet device (ibnetdiscover and
OpenSM see InfiniBand only).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ..model import Fabric
from ..model.descriptions import node_description
from ..model.kinds import ETH_SWITCH, IB_SWITCH, KIND_CODE, NIC
from ..model.tech import TECH_ETH_CODE


class MatchedBy(Enum):
    """How a design device was found in the discovered fabric."""
    GUID = "GUID"
    DESCRIPTION = "name"
    CABLING = "cabling"


@dataclass
class Side:
    """One fabric as flat arrays: which devices take part, each port's peer port and device."""
    fabric: Fabric
    nodes: np.ndarray                 # device ids taking part, ascending
    peer: np.ndarray                  # port id -> peer port id (-1: no cable)
    port_dev: np.ndarray              # port id -> device id
    is_switch: np.ndarray             # device id -> switch (True) or NIC

    @staticmethod
    def of(fabric: Fabric, with_eth: bool) -> Side:
        t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
        kinds = [KIND_CODE[IB_SWITCH], KIND_CODE[NIC]] + ([KIND_CODE[ETH_SWITCH]] if with_eth else [])
        mask = t.alive & np.isin(t.kind, kinds) & (t.nports > 0)
        nodes = np.flatnonzero(mask)
        if not with_eth and len(nodes):
            first = t.first_port[nodes].astype(np.int64)
            nodes = nodes[pt.tech[first] != TECH_ETH_CODE]
        peer = np.full(pt.n, -1, dtype=np.int64)
        cids = ct.live_ids()
        a, b = ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)
        peer[a], peer[b] = b, a
        keep = np.zeros(t.n, dtype=bool)
        keep[nodes] = True
        port_dev = pt.device[: pt.n].astype(np.int64)
        # a cable to a device that does not take part (a GPU has no ports; Ethernet left out) is no link here
        outside = (peer >= 0) & ~keep[np.clip(port_dev[np.clip(peer, 0, None)], 0, None)]
        peer[outside] = -1
        is_switch = t.kind[: t.n] != KIND_CODE[NIC]
        return Side(fabric, nodes, peer, port_dev, is_switch)

    def port(self, d: int, num: int) -> int:
        """Port id of port ``num`` of device ``d``, or -1 when it has no such port."""
        t = self.fabric.devices_t
        if not 1 <= num <= int(t.nports[d]):
            return -1
        return int(t.first_port[d]) + num - 1

    def num(self, p: int) -> int:
        return int(self.fabric.ports_t.num[p])


def has_eth(fabric: Fabric) -> bool:
    """The fabric has an Ethernet switch or NIC port."""
    t, pt = fabric.devices_t, fabric.ports_t
    if (t.alive & (t.kind == KIND_CODE[ETH_SWITCH])).any():
        return True
    return bool((pt.tech[: pt.n] == TECH_ETH_CODE).any())


@dataclass
class Matching:
    """design device id -> discovered device id (and back), and how each pair was found."""
    to_found: dict[int, int] = field(default_factory=dict)
    to_design: dict[int, int] = field(default_factory=dict)
    how: dict[int, MatchedBy] = field(default_factory=dict)
    steps: int = 0                    # ports looked at: the work done, for tests and the bench

    def add(self, d: int, x: int, how: MatchedBy) -> None:
        self.to_found[d] = x
        self.to_design[x] = d
        self.how[d] = how


def match(design: Side, found: Side) -> Matching:
    """Match the devices of ``design`` with those of ``found`` (see the module docstring)."""
    m = Matching()
    _by_guid(design, found, m)
    _by_key(design, found, m, lambda s, d: node_description(s.fabric, d))
    _by_key(design, found, m, lambda s, d: s.fabric.name_of(d))
    _by_cabling(design, found, m)
    return m


def _by_guid(design: Side, found: Side, m: Matching) -> None:
    ft = found.fabric.devices_t
    guids = {int(ft.guid[x]): int(x) for x in found.nodes if ft.guid[x]}
    dt = design.fabric.devices_t
    for d in design.nodes.tolist():
        x = guids.get(int(dt.guid[d]), -1) if dt.guid[d] else -1
        if x >= 0 and x not in m.to_design and design.is_switch[d] == found.is_switch[x]:
            m.add(d, x, MatchedBy.GUID)


def _by_key(design: Side, found: Side, m: Matching, key) -> None:
    def unique(side: Side, taken: dict[int, int]) -> dict[str, int]:
        seen: dict[str, list[int]] = defaultdict(list)
        for d in side.nodes.tolist():
            if d not in taken:
                seen[key(side, d)].append(d)
        return {k: v[0] for k, v in seen.items() if len(v) == 1}
    ours, theirs = unique(design, m.to_found), unique(found, m.to_design)
    for k in sorted(ours.keys() & theirs.keys()):
        d, x = ours[k], theirs[k]
        if design.is_switch[d] == found.is_switch[x]:
            m.add(d, x, MatchedBy.DESCRIPTION)


def _by_cabling(design: Side, found: Side, m: Matching) -> None:
    frontier = sorted(m.to_found)
    while frontier:
        proposals: dict[int, set[int]] = defaultdict(set)     # design device -> discovered candidates
        back: dict[int, set[int]] = defaultdict(set)
        dt = design.fabric.devices_t
        for d in frontier:
            x = m.to_found[d]
            first = int(dt.first_port[d])
            for k in range(int(dt.nports[d])):
                m.steps += 1
                p = first + k
                q = int(design.peer[p])
                if q < 0:
                    continue
                e = int(design.port_dev[q])
                if e in m.to_found:
                    continue
                px = found.port(x, k + 1)
                qx = int(found.peer[px]) if px >= 0 else -1
                if qx < 0:
                    continue
                y = int(found.port_dev[qx])
                if y in m.to_design or found.num(qx) != design.num(q) or design.is_switch[e] != found.is_switch[y]:
                    continue
                proposals[e].add(y)
                back[y].add(e)
        new = []
        for e in sorted(proposals):
            ys = proposals[e]
            if len(ys) == 1:
                y = next(iter(ys))
                if len(back[y]) == 1 and y not in m.to_design:
                    m.add(e, y, MatchedBy.CABLING)
                    new.append(e)
        frontier = new
