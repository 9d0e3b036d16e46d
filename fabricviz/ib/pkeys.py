"""P_Key tables as OpenSM 3.3.23's P_Key manager programs them (opensm/osm_pkey_mgr.c).

For every end port (CA ports and switch port 0), in OpenSM's first sweep with
its defaults (``keep_pkey_indexes`` TRUE, ``allow_both_pkeys`` FALSE,
``part_enforce both``):

1. *Pending list.* Partitions are walked in the order of OpenSM's partition map
   (the P_Key in network byte order, read on x86: :func:`~.partitions.osm_pkey_order`);
   for each, its limited members, then its full members. A port's entry is the
   P_Key, with the full bit 0x8000 for a full member. An entry whose P_Key (full
   bit ignored) is already in the table the port holds now keeps its place
   ("updated", pushed at the head of the list) unless it sits at index 0 and is
   not the default P_Key, or is the default P_Key away from index 0; all others
   are "new" (appended at the tail).
2. *Placement.* Updated entries go back where they were. A new default P_Key (or
   the ``indx0`` one) goes to index 0, any other after the last entry placed
   so far (index 1 when none). Past the port's capacity (NodeInfo PartitionCap)
   OpenSM looks for a hole from index 1; with none it drops the P_Key and logs
   ERR 0512.
3. *Switch side.* The switch port facing each non-switch end port gets the CA
   port's entries in table order, packed, skipping empty ones and a limited
   entry whose full twin is present, up to the switch's PartitionEnforcementCap
   (in 32-entry blocks). Enforcement (PortInfo inbound/outbound bits) is set
   unless the entries fill or overflow the switch port's blocks (ERR 0507's
   "Clearing Enforcement bit" cases).

A port's table before the sweep (``existing``) is what the hardware holds;
a ConnectX port out of reset and every ibsim port hold 0xffff at index 0 and
nothing else (:data:`FACTORY_TABLE`). Tables are lists of 16-bit entries, 0 =
empty, as long as the port's capacity.

Capacities: the catalog has no P_Key field, so :data:`HARDWARE` uses 128 for
CA ports (ConnectX-4 … ConnectX-7 report PartitionCap 128) and 128 for switch
ports (an assumption; Quantum switches report their own values). :data:`IBSIM`
is what ibsim 0.10 reports (CA 64, switch port 0 8, switch external ports 64).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .partitions import DEFAULT_PKEY, FULL_BIT, PKEY_MASK, Resolution, design_partitions, resolve

BLOCK = 32                   # IB_NUM_PKEY_ELEMENTS_IN_BLOCK
FACTORY_TABLE = (0xFFFF,)    # what a port holds before any SM programmed it


@dataclass(frozen=True)
class PKeyCaps:
    """P_Key table sizes: CA ports (NodeInfo PartitionCap), switch port 0 (the switch's
    NodeInfo PartitionCap) and switch external ports (SwitchInfo PartitionEnforcementCap)."""

    ca: int = 128
    switch_port0: int = 128
    switch_external: int = 128


HARDWARE = PKeyCaps()
IBSIM = PKeyCaps(ca=64, switch_port0=8, switch_external=64)
#: P_Keys a ConnectX port holds (what lint checks a design against).
CONNECTX_PKEYS = HARDWARE.ca


def _base(pk: int) -> int:
    return pk & PKEY_MASK


def port_table(pending: list[int], capacity: int, existing: tuple[int, ...] | list[int] = FACTORY_TABLE,
               indx0: int = 0) -> tuple[list[int], list[int]]:
    """(new table, P_Keys dropped because the table is full) for one end port.

    ``pending``: the port's entries in pending-list order (full bit included);
    ``existing``: the table the port holds before the sweep; ``indx0``: the P_Key
    an ``indx0`` partition asks for at index 0 (0: none)."""
    keys: dict[int, int] = {}
    for i, pk in enumerate(existing):
        if _base(pk) and _base(pk) not in keys:       # the first entry of a P_Key wins
            keys[_base(pk)] = i
    # (P_Key, kept index or None = new); _base inlined below: this runs once per port and partition
    work: deque[tuple[int, int | None]] = deque()
    for pk in pending:
        pos = keys.get(pk & PKEY_MASK)
        if pos is not None:
            if indx0:
                if (pk & PKEY_MASK) == (indx0 & PKEY_MASK) and pos != 0:
                    pos = None
                elif pos == 0 and (pk & PKEY_MASK) != (indx0 & PKEY_MASK):
                    pos = None
            elif pos == 0 and (pk & PKEY_MASK) != DEFAULT_PKEY:
                pos = None
            elif pos != 0 and (pk & PKEY_MASK) == DEFAULT_PKEY:
                pos = None
        if pos is None:
            work.append((pk, None))
        else:
            work.appendleft((pk, pos))
    blocks = (capacity + BLOCK - 1) // BLOCK
    table: dict[int, int] = {}
    last = 0                                          # last_pkey_idx: highest index used + 1
    dropped: list[int] = []
    hole_from = 1         # no hole below this index: entries are only ever added, so holes only close
    while work:
        pk, pos = work.popleft()
        if pos is None:
            if (not indx0 and (pk & PKEY_MASK) == DEFAULT_PKEY) or (indx0 and (pk & PKEY_MASK) == (indx0 & PKEY_MASK)):
                idx = 0
            else:
                idx = last if last else 1
            if idx >= capacity:
                hole = None
                if (pk & PKEY_MASK) != DEFAULT_PKEY:
                    while hole_from < blocks * BLOCK and table.get(hole_from, 0) & PKEY_MASK:
                        hole_from += 1              # each index is passed once per port: linear
                    hole = hole_from if hole_from < blocks * BLOCK else None
                if hole is None or hole >= capacity:
                    dropped.append(pk)
                    continue
                idx = hole
            pos = idx
        table[pos] = pk
        last = max(last, pos + 1)
    return [table.get(i, 0) for i in range(capacity)], dropped


def peer_table(ca_table: list[int], capacity: int) -> tuple[list[int], bool]:
    """(switch port table, enforcement on) for the switch port facing a CA port."""
    present = set(ca_table)
    entries = [pk for pk in ca_table
               if _base(pk) and not (not pk & FULL_BIT and (pk | FULL_BIT) in present)]
    room = (capacity + BLOCK - 1) // BLOCK * BLOCK
    enforce = len(entries) < room and len(entries) <= capacity    # else ERR 0507 / table full
    kept = entries[:min(room, capacity)]
    return kept + [0] * (capacity - len(kept)), enforce


@dataclass
class PKeyTables:
    """Every programmed P_Key table of a subnet."""

    ca: dict[int, list[int]] = field(default_factory=dict)                # CA port GUID -> table
    switch0: dict[int, list[int]] = field(default_factory=dict)           # switch GUID -> port 0 table
    switch_ext: dict[tuple[int, int], list[int]] = field(default_factory=dict)  # (switch GUID, port)
    enforce: dict[tuple[int, int], bool] = field(default_factory=dict)    # same keys: enforcement on
    dropped: dict[int, list[int]] = field(default_factory=dict)           # end port -> P_Keys not placed
    resolution: Resolution | None = None

    def end_table(self, guid: int) -> list[int]:
        return self.ca.get(guid) or self.switch0.get(guid) or []

    def warnings(self) -> list[str]:
        """One line per thing OpenSM would log about these tables: unknown member GUIDs,
        P_Keys dropped from a full table (ERR 0512), enforcement cleared (ERR 0507)."""
        out = []
        if self.resolution is not None:
            for g, line in self.resolution.unknown:
                at = f" (line {line})" if line else ""
                out.append(f"partitions: port GUID 0x{g:016x}{at} is no end port of the subnet; ignored")
        for g, pks in self.dropped.items():
            out.append(f"0x{g:016x}: P_Key table full, {len(pks)} P_Key(s) not programmed: "
                       + ", ".join(f"0x{pk:04x}" for pk in pks[:4]) + (" …" if len(pks) > 4 else ""))
        for (g, port), on in self.enforce.items():
            if not on:
                out.append(f"0x{g:016x}:{port}: switch P_Key table too small, partition enforcement off")
        return out


def _pending(res: Resolution) -> dict[int, np.ndarray]:
    """Each end port's pending list (entries in partition order, full bit included), from the
    membership arrays: one stable sort, not a Python step per membership."""
    mem = res.memberships
    if mem is None:                    # a Resolution built by hand: from its sets
        lists: dict[int, list[int]] = {g: [] for g in res.end_ports}
        for p in res.partitions:
            for g in sorted(p.limited):
                lists[g].append(p.pkey)
            for g in sorted(p.full):
                lists[g].append(p.pkey | FULL_BIT)
        return {g: np.asarray(v, np.int64) for g, v in lists.items()}
    pkeys = np.fromiter((p.pkey for p in res.partitions), np.int64, len(res.partitions))
    by_port = np.argsort(mem.port, kind="stable")           # partition order kept within a port
    entries = mem.entries(pkeys)[by_port]
    counts = np.bincount(mem.port, minlength=len(mem.port_guids))
    runs = np.split(entries, np.cumsum(counts)[:-1]) if len(counts) else []
    out = dict(zip(mem.port_guids.tolist(), runs, strict=True))
    return {g: out.get(g, entries[:0]) for g in res.end_ports}


def _fresh_table(pending: np.ndarray, capacity: int) -> tuple[list[int], list[int]]:
    """:func:`port_table` of a factory-fresh port with no ``indx0`` request, whose pending list
    names each P_Key once (as a Resolution's does): the default P_Key at index 0, the others in
    order from index 1, those past the capacity dropped (no hole can open). Array slices."""
    is_default = (pending & PKEY_MASK) == DEFAULT_PKEY
    table = np.zeros(capacity, np.int64)
    if is_default.any() and capacity:
        table[0] = pending[is_default][0]
    others = pending[~is_default]
    k = max(min(len(others), capacity - 1), 0)
    table[1:1 + k] = others[:k]
    return table.tolist(), others[k:].tolist()


def compute_tables(subnet: Any, res: Resolution, caps: PKeyCaps = HARDWARE,
                   existing: dict[int, list[int]] | None = None) -> PKeyTables:
    """P_Key tables of every end port and of every switch port facing a CA port."""
    pending = _pending(res)
    out = PKeyTables(resolution=res)
    existing = existing or {}
    for g, kind in res.end_ports.items():
        cap = caps.ca if kind == "ca" else caps.switch_port0
        held, want0 = existing.get(g, FACTORY_TABLE), res.indx0.get(g, 0)
        if tuple(held) == FACTORY_TABLE and not want0:
            tbl, dropped = _fresh_table(pending[g], cap)
        else:
            tbl, dropped = port_table(pending[g].tolist(), cap, held, want0)
        (out.ca if kind == "ca" else out.switch0)[g] = tbl
        if dropped:
            out.dropped[g] = dropped
    for i, g in enumerate(subnet.ca_guid.tolist()):
        s = int(subnet.ca_sw[i])
        if s < 0:
            continue
        key = (int(subnet.sw_guid[s]), int(subnet.ca_sw_port[i]))
        out.switch_ext[key], out.enforce[key] = peer_table(out.ca[int(g)], caps.switch_external)
    return out


def design_tables(subnet: Any, conf: Any = None, caps: PKeyCaps = HARDWARE) -> PKeyTables:
    """P_Key tables OpenSM programs on ``subnet`` with ``conf`` (a PartitionConfig), else the
    design's own partitions.conf, else none (OpenSM with no partitions.conf: Default only)."""
    if conf is None:
        conf = design_partitions(subnet.fabric)
    return compute_tables(subnet, resolve(conf, subnet), caps)


def shared_pkeys(a: list[int], b: list[int]) -> list[int]:
    """P_Keys (no full bit) over which ports with tables ``a`` and ``b`` can talk: in both
    tables, and at least one of the two entries a full member (IBA 10.9.3)."""
    best_a: dict[int, int] = {}
    best_b: dict[int, int] = {}
    for src, dst in ((a, best_a), (b, best_b)):
        for pk in src:
            if _base(pk):
                dst[_base(pk)] = dst.get(_base(pk), 0) | (pk & FULL_BIT)
    return sorted(k for k in best_a.keys() & best_b.keys() if best_a[k] | best_b[k])


def can_talk(a: list[int], b: list[int]) -> bool:
    """Whether two ports can exchange packets: a shared P_Key, one side a full member."""
    return bool(shared_pkeys(a, b))
