"""Subnet manager placement and election.

A design may list several SM-capable nodes in ``fabric.meta["sms"]`` as
``[{"node": NAME, "priority": 0..15}, ...]`` (a CA runs the SM on its first
cabled port, a switch on port 0). When they meet on one subnet they elect a
master by SMInfo: the higher priority wins, and on a tie the lower port GUID
(OpenSM's ``osm_sm_is_greater_than``); the others go STANDBY and poll it.
Without a list the SM sits where :func:`~fabricviz.ib.subnet.default_sm_port`
puts it (an imported file's first node, as ibsim does).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Fabric, FabricError
from .subnet import default_sm_port, discover, sm_port_of


@dataclass(frozen=True)
class SmCandidate:
    node: str
    priority: int
    port: int              # model port id the SM runs on
    guid: int              # its port GUID (a switch: the node GUID)


@dataclass(frozen=True)
class Election:
    master: SmCandidate
    standby: tuple[SmCandidate, ...]
    unreachable: tuple[SmCandidate, ...]

    def describe(self) -> str:
        m = self.master
        text = f"{m.node} (priority {m.priority}, GUID 0x{m.guid:016x}) is MASTER"
        if self.standby:
            why = []
            for s in self.standby:
                rule = "lower priority" if s.priority < m.priority else "higher GUID"
                why.append(f"{s.node} ({rule}) STANDBY")
            text += "; " + ", ".join(why)
        if self.unreachable:
            text += "; not on this subnet: " + ", ".join(s.node for s in self.unreachable)
        return text


def candidates(fabric: Fabric) -> list[SmCandidate]:
    """The SM-capable nodes the design lists (or the default SM alone)."""
    sms = fabric.settings.sms
    out: list[SmCandidate] = []
    if not sms:
        p = default_sm_port(fabric)
        d = int(fabric.ports_t.device[p])
        return [SmCandidate(fabric.name_of(d), 0, p, _port_guid(fabric, p))]
    for sm in sms:
        d = fabric.device_id(sm.node)
        p = sm_port_of(fabric, d)
        out.append(SmCandidate(fabric.name_of(d), sm.priority, p, _port_guid(fabric, p)))
    return out


def _port_guid(fabric: Fabric, p: int) -> int:
    d = fabric.device(int(fabric.ports_t.device[p]))
    return d.guid if d.is_switch else int(fabric.ports_t.guid[p])


def elect(fabric: Fabric, cands: list[SmCandidate] | None = None) -> Election:
    """OpenSM's election among the candidates that share a subnet with the winner."""
    cands = cands if cands is not None else candidates(fabric)
    if not cands:
        raise FabricError("no subnet manager in the design")
    ranked = sorted(cands, key=lambda c: (-c.priority, c.guid))
    master = ranked[0]
    sn = discover(fabric, master.node)
    reach = set(sn.switches.tolist()) | {int(fabric.ports_t.device[p]) for p in sn.ca_ports.tolist()}
    standby: list[SmCandidate] = []
    away: list[SmCandidate] = []
    for c in ranked[1:]:
        (standby if int(fabric.ports_t.device[c.port]) in reach else away).append(c)
    return Election(master, tuple(standby), tuple(away))
