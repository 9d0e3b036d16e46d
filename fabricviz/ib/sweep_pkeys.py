"""The P_Key manager's step of the heavy sweep: PKeyTable SMPs, as events to replay.

OpenSM runs ``osm_pkey_mgr_process`` right after discovery ("PKEY setup completed -
STARTING SM LID CONFIG"). For every end port (CA ports, switch port 0) and every switch
port facing a CA it computes the P_Key table (:mod:`fabricviz.ib.pkeys`) and sends a
PKeyTable Set for each 32-entry block that differs from what the port holds. Before the
first sweep a port holds the factory table (0xffff at index 0, the rest empty), so a design
without a partitions.conf (everyone a full member of the Default partition) sends none;
a re-sweep compares with the tables of the sweep before and sends only what changed.

Each block sent is one event, narrated like ``P_Key table block 0 → node07/mlx5_0 port 1:
0xffff 0x8001``. Setting the switch ports' enforcement bits (PortInfo) is not shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .pkeys import BLOCK, FACTORY_TABLE, PKeyTables

if TYPE_CHECKING:
    from .routing import Routing

#: Entries shown in a narration line before "…".
SHOWN = 8


def _blocks(table: list[int]) -> list[list[int]]:
    return [table[i:i + BLOCK] for i in range(0, len(table), BLOCK)]


def _factory(n: int) -> list[int]:
    return list(FACTORY_TABLE) + [0] * (n - len(FACTORY_TABLE))


def _entries_text(block: list[int]) -> str:
    shown = [f"0x{e:04x}" for e in block if e][:SHOWN]
    more = sum(1 for e in block if e) - len(shown)
    return " ".join(shown) + (f" … (+{more})" if more > 0 else "") if shown else "(empty)"


def pkey_sends(routing: "Routing", tables: PKeyTables, before: PKeyTables | None = None
               ) -> list[tuple[int, int, int, list[int], int]]:
    """(device, port id (-1: switch port 0), block, entries, hops) for every PKeyTable Set, in
    OpenSM's order: end ports by the subnet's port order (switches' port 0 first, then CA ports),
    then the switch ports facing CAs."""
    sn = routing.subnet
    f = sn.fabric
    t, pt = f.devices_t, f.ports_t
    out: list[tuple[int, int, int, list[int], int]] = []

    def add(dev: int, port: int, table: list[int], old: list[int] | None, hops: int) -> None:
        old = old if old is not None else _factory(len(table))
        for b, (new_b, old_b) in enumerate(zip(_blocks(table), _blocks(old + [0] * (len(table) - len(old))))):
            if new_b != old_b:
                out.append((dev, port, b, new_b, hops))

    for s in range(sn.num_switches):
        g = int(sn.sw_guid[s])
        if g in tables.switch0:
            add(int(sn.switches[s]), -1, tables.switch0[g], before.switch0.get(g) if before else None, 1)
    for j, p in enumerate(sn.ca_ports.tolist()):
        g = int(sn.ca_guid[j])
        if g in tables.ca:
            add(int(pt.device[p]), int(p), tables.ca[g], before.ca.get(g) if before else None, 2)
    index = {int(g): s for s, g in enumerate(sn.sw_guid.tolist())}
    for (g, num), table in tables.switch_ext.items():
        si = index.get(int(g))
        if si is None:
            continue
        d = int(sn.switches[si])
        first, n = int(t.first_port[d]), int(t.nports[d])
        hit = np.flatnonzero(pt.num[first:first + n] == num)
        if not len(hit):
            continue
        add(d, first + int(hit[0]), table, before.switch_ext.get((g, num)) if before else None, 1)
    return out


def send_text(f: Any, dev: int, port: int, block: int, entries: list[int]) -> str:
    where = f"{f.name_of(dev)} port {int(f.ports_t.num[port]) if port >= 0 else 0}"
    return f"P_Key table block {block} → {where}: {_entries_text(entries)}"


__all__ = ["pkey_sends", "send_text"]
