"""The P_Key manager's step of the heavy sweep: PKeyTable and PortInfo SMPs, as events to replay.

OpenSM runs ``osm_pkey_mgr_process`` right after discovery ("PKEY setup completed -
STARTING SM LID CONFIG"). It walks the end ports (CA ports, switch port 0) in the order of
its port GUID table and, for each, computes the P_Key table (:mod:`fabricviz.ib.pkeys`) and
sends a PKeyTable Set for each 32-entry block that differs from what the port holds. For a
CA port it then programs the switch port facing it: that port's blocks, then
``pkey_mgr_enforce_partition``: a PortInfo Set turning PartitionEnforcementInbound and
Outbound on (``part_enforce both``, OpenSM's default), or off when the switch port's table
cannot hold the CA port's P_Keys (table full; ERR 0507 "Clearing Enforcement bit" when the
last block overflows PartitionEnforcementCap). The PortInfo goes only when the bits change
(FilterRawInbound/Outbound are left as the port holds them: OpenSM touches bits 0xc only).
Last, enforcement left on a switch port that now faces another switch is cleared.

Before the first sweep a port holds the factory table (0xffff at index 0, the rest empty)
and enforcement off (what ibsim reports), so a design without a partitions.conf sends no
PKeyTable but one PortInfo per switch port facing a CA; a re-sweep compares with the tables
and enforcement of the sweep before and sends only what changed.

Each SMP is one :class:`PKeySmp`, narrated like ``P_Key table block 0 → node07/mlx5_0 port 1:
0xffff 0x8001`` and ``PortInfo → leaf01 port 3: partition enforcement inbound+outbound on``;
enforcement that stays off needs no SMP and is narrated all the same (``smp`` False); enforcement
already on is not mentioned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .partitions import FULL_BIT, PKEY_MASK
from .pkeys import BLOCK, FACTORY_TABLE, PKeyTables

if TYPE_CHECKING:
    from .routing import Routing

#: Entries shown in a narration line before "…".
SHOWN = 8
PKEY_BLOCK, PORT_INFO = "pkey_block", "pkey_enforce"


@dataclass(frozen=True)
class PKeySmp:
    """One step of the P_Key manager: a PKeyTable block or a switch port's enforcement."""

    kind: str                       # pkey_block | pkey_enforce
    device: int
    port: int                       # model port id (-1: switch port 0)
    hops: int                       # directed-route hops (the sweep's clock)
    text: str
    block: int = -1                 # pkey_block: block index
    entries: tuple[int, ...] = ()   # pkey_block: the block's 32 entries
    enforce: bool | None = None     # pkey_enforce: enforcement on after this step
    smp: bool = True                # pkey_enforce: False when the bits already were as wanted
    reason: str = ""                # pkey_enforce off: why

    def data(self) -> dict[str, Any]:
        if self.kind == PKEY_BLOCK:
            return {"block": self.block, "entries": self.entries}
        return {"enforce": self.enforce, "smp": self.smp, "reason": self.reason}


def _blocks(table: list[int]) -> list[list[int]]:
    return [table[i:i + BLOCK] for i in range(0, len(table), BLOCK)]


def _factory(n: int) -> list[int]:
    return list(FACTORY_TABLE) + [0] * (n - len(FACTORY_TABLE))


def _entries_text(block: list[int]) -> str:
    shown = [f"0x{e:04x}" for e in block if e][:SHOWN]
    more = sum(1 for e in block if e) - len(shown)
    return " ".join(shown) + (f" … (+{more})" if more > 0 else "") if shown else "(empty)"


def _osm_key(guid: int) -> int:
    """Sort key of OpenSM's port GUID table: the GUID in network byte order read on x86."""
    return int.from_bytes(int(guid).to_bytes(8, "big"), "little")


def peer_entries(ca_table: list[int]) -> int:
    """How many entries the switch port facing a CA port with ``ca_table`` must hold (as
    :func:`~fabricviz.ib.pkeys.peer_table` packs them: no empty entry, no limited entry whose
    full twin is there)."""
    present = set(ca_table)
    return sum(1 for pk in ca_table if pk & PKEY_MASK and not (not pk & FULL_BIT and (pk | FULL_BIT) in present))


def off_reason(entries: int, capacity: int) -> str:
    """Why OpenSM turns enforcement off on a switch port of ``capacity`` entries asked to hold
    ``entries`` (``pkey_mgr_update_peer_port``)."""
    room = (capacity + BLOCK - 1) // BLOCK * BLOCK
    if entries >= room:
        return f"its P_Key table is full: {capacity} entries for the CA port's {entries} P_Keys"
    return (f"ERR 0507: not enough P_Key entries ({capacity} <= {entries - 1}) on the switch port; "
            "Clearing Enforcement bit")


def send_text(f: Any, dev: int, port: int, block: int, entries: list[int] | tuple[int, ...]) -> str:
    where = f"{f.name_of(dev)} port {int(f.ports_t.num[port]) if port >= 0 else 0}"
    return f"P_Key table block {block} → {where}: {_entries_text(list(entries))}"


def enforce_text(f: Any, port: int, on: bool, smp: bool = True, reason: str = "") -> str:
    where = f"{f.name_of(int(f.ports_t.device[port]))} port {int(f.ports_t.num[port])}"
    if on:
        return f"PortInfo → {where}: partition enforcement inbound+outbound on"
    why = f" ({reason})" if reason else ""
    if smp:
        return f"PortInfo → {where}: partition enforcement off{why}"
    return f"{where}: partition enforcement stays off, no PortInfo sent{why}"


def pkey_smps(routing: Routing, tables: PKeyTables, before: PKeyTables | None = None) -> list[PKeySmp]:
    """Every step of the P_Key manager in OpenSM's order: per end port (port GUID table order)
    its changed PKeyTable blocks; for a CA port then the blocks of the switch port facing it and
    that port's enforcement; last, enforcement cleared on switch ports now facing a switch."""
    sn = routing.subnet
    f = sn.fabric
    t, pt = f.devices_t, f.ports_t
    out: list[PKeySmp] = []

    def blocks(dev: int, port: int, table: list[int], old: list[int] | None, hops: int) -> None:
        old = old if old is not None else _factory(len(table))
        old = old + [0] * (len(table) - len(old))
        for b, (new_b, old_b) in enumerate(zip(_blocks(table), _blocks(old), strict=False)):
            if new_b != old_b:
                out.append(PKeySmp(PKEY_BLOCK, dev, port, hops, send_text(f, dev, port, b, new_b), b,
                                   tuple(new_b)))

    def switch_port(s: int, num: int) -> int:
        d = int(sn.switches[s])
        first, n = int(t.first_port[d]), int(t.nports[d])
        hit = np.flatnonzero(pt.num[first:first + n] == num)
        return first + int(hit[0]) if len(hit) else -1

    index = {int(g): s for s, g in enumerate(sn.sw_guid.tolist())}
    ends: list[tuple[int, str, int]] = [(int(g), "switch", s) for s, g in enumerate(sn.sw_guid.tolist())]
    ends += [(int(g), "ca", j) for j, g in enumerate(sn.ca_guid.tolist())]
    ends.sort(key=lambda e: _osm_key(e[0]))
    was_on = before.enforce if before is not None else {}
    for g, kind, i in ends:
        if kind == "switch":
            if g in tables.switch0:
                blocks(int(sn.switches[i]), -1, tables.switch0[g], before.switch0.get(g) if before else None, 1)
            continue
        p = int(sn.ca_ports[i])
        if g in tables.ca:
            blocks(int(pt.device[p]), p, tables.ca[g], before.ca.get(g) if before else None, 2)
        s = int(sn.ca_sw[i])
        if s < 0:
            continue
        key = (int(sn.sw_guid[s]), int(sn.ca_sw_port[i]))
        sp = switch_port(s, key[1])
        if key not in tables.switch_ext or sp < 0:
            continue
        d = int(sn.switches[s])
        table = tables.switch_ext[key]
        blocks(d, sp, table, before.switch_ext.get(key) if before else None, 1)
        on = bool(tables.enforce.get(key, True))
        reason = "" if on else off_reason(peer_entries(tables.ca.get(g, [])), len(table))
        smp = on != bool(was_on.get(key, False))
        if on and not smp:                            # on already: OpenSM sends nothing, nothing to tell
            continue
        out.append(PKeySmp(PORT_INFO, d, sp, 1, enforce_text(f, sp, on, smp, reason), enforce=on, smp=smp,
                           reason=reason))
    for (g, num) in sorted((k for k, on in was_on.items() if on and k not in tables.switch_ext),
                           key=lambda k: (_osm_key(k[0]), k[1])):
        si = index.get(int(g))
        if si is None:
            continue
        sp = switch_port(si, num)
        if sp < 0 or int(sn.nbr_sw[si, num]) < 0:     # gone, or not facing a switch now
            continue
        out.append(PKeySmp(PORT_INFO, int(sn.switches[si]), sp, 1,
                           enforce_text(f, sp, False, True, "an inter-switch link"), enforce=False,
                           reason="an inter-switch link"))
    return out


__all__ = ["PKEY_BLOCK", "PORT_INFO", "PKeySmp", "enforce_text", "off_reason", "peer_entries", "pkey_smps",
           "send_text"]
