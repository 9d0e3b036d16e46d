"""InfiniBand partitions as OpenSM 3.3's partitions.conf defines them, and who is in which.

The typed result of reading a partitions.conf (:mod:`fabricviz.formats.partitions_conf`)
is a :class:`PartitionConfig`: the file's statements in order, each a
:class:`Partition` with its :class:`Member` list. Several statements may share
a P_Key; OpenSM merges them (the first name wins) and applies the member lists
in file order, a later mention of a port replacing the earlier one.

:func:`resolve` does what ``osm_prtn_make_partitions`` (opensm/osm_prtn.c) does
on a discovered subnet, with OpenSM's defaults (``allow_both_pkeys`` FALSE):

* the Default partition 0x7fff always exists. With a file that has at least one
  statement, every end port starts in it as a limited member; with no file (or
  a file with no statement at all, which OpenSM rejects and then runs as if
  there were none) every end port is a full member. The SM's own port is
  always a full member (a later ``SELF=limited`` or ``ALL=limited`` on the
  Default partition can still demote it, as in OpenSM);
* ``full`` and ``both`` make a full member, ``limited`` a limited one (``both``
  is both only with ``allow_both_pkeys``, which fabricviz does not model);
* end ports are the CA ports and every switch's port 0 (``ALL`` = all of them,
  ``ALL_CAS``, ``ALL_SWITCHES``, ``ALL_ROUTERS`` (none in fabricviz designs),
  ``SELF`` = the SM's port); GUIDs that match no end port are ignored (lint
  reports them);
* partitions left with no member are dropped.

The stored form in a design (``fabric.meta["partitions"]``) is plain JSON:
:func:`to_meta` / :func:`from_meta`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ..model import FabricError
from ..model.fabric import IB_SWITCH, KIND_CODE

if TYPE_CHECKING:
    from ..model import Fabric

DEFAULT_PKEY = 0x7FFF        # IB_DEFAULT_PARTIAL_PKEY: the default partition, without the full bit
FULL_BIT = 0x8000            # membership bit of a P_Key table entry: set = full member
PKEY_MASK = 0x7FFF
KEYWORDS = ("ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF")
MEMBERSHIPS = ("full", "limited", "both")
META_KEY = "partitions"
META_VERSION = 1


@dataclass(frozen=True)
class Member:
    """One port specifier: a port GUID (int) or a keyword, with its membership."""

    target: int | str
    membership: str = "limited"          # full | limited | both (resolved: defmember applied)

    def __post_init__(self) -> None:
        if self.membership not in MEMBERSHIPS:
            raise ValueError(f"membership {self.membership!r} is not one of {', '.join(MEMBERSHIPS)}")
        if isinstance(self.target, str):
            if self.target not in KEYWORDS:
                raise ValueError(f"member {self.target!r} is not a port GUID or one of {', '.join(KEYWORDS)}")
        elif not 0 < self.target < 1 << 64:
            raise ValueError(f"port GUID {self.target:#x} is not a 64-bit GUID")

    @property
    def full(self) -> bool:
        """A full member (``both`` counts as full, as OpenSM without allow_both_pkeys)."""
        return self.membership != "limited"


@dataclass(frozen=True)
class Partition:
    """One statement of partitions.conf: ``Name=PKey,flags : members ;``."""

    name: str
    pkey: int                              # 0x0001..0x7fff, no full bit
    ipoib: bool = False
    defmember: str = "limited"             # membership of members written without one
    members: tuple[Member, ...] = ()
    indx0: bool = False                    # put this P_Key at block 0 index 0
    flags: tuple[str, ...] = ()            # other header flags as written (mtu=4, rate=7, sl=1 …)
    mgroups: tuple[str, ...] = ()          # ``mgid=…[,flags]`` multicast groups as written
    line: int = 0                          # where the statement starts in its file (0: not from a file)

    def __post_init__(self) -> None:
        if not 0 < self.pkey <= PKEY_MASK:
            raise ValueError(f"P_Key {self.pkey:#06x} is outside 0x0001-0x7fff")
        if self.defmember not in MEMBERSHIPS:
            raise ValueError(f"defmember {self.defmember!r} is not one of {', '.join(MEMBERSHIPS)}")


@dataclass
class PartitionConfig:
    """A whole partitions.conf: statements in file order."""

    statements: list[Partition] = field(default_factory=list)
    source: str = ""

    def merged(self) -> list[Partition]:
        """One Partition per P_Key (OpenSM's merge: first name, members in file order)."""
        out: dict[int, Partition] = {}
        for s in self.statements:
            p = out.get(s.pkey)
            if p is None:
                out[s.pkey] = s
            else:
                out[s.pkey] = Partition(p.name, p.pkey, p.ipoib or s.ipoib, p.defmember,
                                        p.members + s.members, p.indx0 or s.indx0,
                                        p.flags + s.flags, p.mgroups + s.mgroups, p.line)
        return list(out.values())

    @property
    def applies_default(self) -> bool:
        """False when OpenSM would run as with no file: it rejects a file with no statement."""
        return bool(self.statements)


# ------------------------------------------------------------------ design meta (plain JSON)

def to_meta(conf: PartitionConfig) -> dict[str, Any]:
    """The JSON kept in ``fabric.meta["partitions"]`` (GUIDs as 0x… strings)."""
    rows = []
    for s in conf.statements:
        row: dict[str, Any] = {"name": s.name, "pkey": f"0x{s.pkey:04x}",
                               "members": [[m.target if isinstance(m.target, str) else f"0x{m.target:016x}",
                                            m.membership] for m in s.members]}
        if s.ipoib:
            row["ipoib"] = True
        if s.defmember != "limited":
            row["defmember"] = s.defmember
        if s.indx0:
            row["indx0"] = True
        if s.flags:
            row["flags"] = list(s.flags)
        if s.mgroups:
            row["mgroups"] = list(s.mgroups)
        rows.append(row)
    return {"version": META_VERSION, "statements": rows}


def from_meta(doc: Any, where: str = "meta.partitions") -> PartitionConfig:
    """Back from :func:`to_meta`; a malformed entry raises one-line FabricError."""
    if not isinstance(doc, dict) or not isinstance(doc.get("statements"), list):
        raise FabricError(f"{where}: expected an object with a 'statements' list")
    if doc.get("version", META_VERSION) != META_VERSION:
        raise FabricError(f"{where}: version {doc.get('version')!r} is not {META_VERSION}")
    out = []
    for i, row in enumerate(doc["statements"]):
        at = f"{where}.statements[{i}]"
        try:
            if not isinstance(row, dict):
                raise ValueError("not an object")
            members = []
            for m in row.get("members", []):
                if not (isinstance(m, list) and len(m) == 2 and isinstance(m[0], str) and isinstance(m[1], str)):
                    raise ValueError(f"member {m!r} is not [target, membership]")
                tgt: int | str = int(m[0], 16) if m[0].lower().startswith("0x") else m[0]
                members.append(Member(tgt, m[1]))
            flags = row.get("flags", [])
            mgroups = row.get("mgroups", [])
            if not all(isinstance(x, str) for x in list(flags) + list(mgroups)):
                raise ValueError("flags and mgroups must be strings")
            out.append(Partition(str(row["name"]), int(str(row["pkey"]), 16), bool(row.get("ipoib", False)),
                                 str(row.get("defmember", "limited")), tuple(members),
                                 bool(row.get("indx0", False)), tuple(flags), tuple(mgroups)))
        except (KeyError, TypeError, ValueError) as e:
            raise FabricError(f"{at}: {e}") from None
    return PartitionConfig(out, where)


def _design_partitions(raw: Any) -> PartitionConfig | None:
    return None if raw is None else from_meta(raw)


def design_partitions(design: Fabric | Mapping[str, Any] | None) -> PartitionConfig | None:
    """The partitions a design carries, or None. ``design``: a Fabric (its ``meta["partitions"]``
    is read once per value, through ``fabric.settings``), or a design's ``meta`` mapping."""
    if design is None:
        return None
    if isinstance(design, Mapping):
        return from_meta(design[META_KEY]) if META_KEY in design else None
    return design.settings.parsed(META_KEY, _design_partitions)


# ------------------------------------------------------------------ resolution on a subnet

_NO_GUIDS = np.zeros(0, np.uint64)
_NO_FLAGS = np.zeros(0, bool)


@dataclass(eq=False)
class ResolvedPartition:
    """A partition's members on one subnet: end-port GUIDs (in OpenSM's port order) and whether
    each is a full member, as arrays; :attr:`full` / :attr:`limited` give them as sets."""

    name: str
    pkey: int
    ipoib: bool
    guids: np.ndarray = field(default_factory=lambda: _NO_GUIDS)      # uint64 end-port GUIDs
    is_full: np.ndarray = field(default_factory=lambda: _NO_FLAGS)    # bool, one per GUID
    n_full: int = -1                       # full members (-1: counted from is_full)

    def __post_init__(self) -> None:
        if self.n_full < 0:
            self.n_full = int(np.count_nonzero(self.is_full))

    @cached_property
    def full(self) -> set[int]:
        return set(self.guids[self.is_full].tolist())

    @cached_property
    def limited(self) -> set[int]:
        return set(self.guids[~self.is_full].tolist())

    @property
    def n_limited(self) -> int:
        return len(self.is_full) - self.n_full

    @property
    def members(self) -> int:
        return len(self.guids)


@dataclass(eq=False)
class Memberships:
    """Every membership of a :class:`Resolution` as parallel arrays, sorted by partition (the
    index in ``Resolution.partitions``) then port (the index in :attr:`port_guids`)."""

    port_guids: np.ndarray        # uint64 end-port GUIDs in OpenSM's port order
    part: np.ndarray              # int64 partition index
    port: np.ndarray              # int64 port index
    full: np.ndarray              # bool

    def entries(self, pkeys: np.ndarray) -> np.ndarray:
        """P_Key table entries (``pkeys[part]``, with the full bit of a full member)."""
        return pkeys[self.part] | np.where(self.full, FULL_BIT, 0)


@dataclass
class Resolution:
    """What OpenSM's partition manager holds after reading the config on this subnet."""

    partitions: list[ResolvedPartition]        # OpenSM's order (P_Key in network byte order)
    end_ports: dict[int, str]                  # end-port GUID -> "ca" | "switch"
    sm_guid: int
    unknown: list[tuple[int, int]]             # (GUID, statement line) naming no end port
    indx0: dict[int, int]                      # port GUID -> P_Key wanted at index 0 (full bit incl.)
    memberships: Memberships | None = None     # the same members as arrays (from :func:`resolve`)

    def by_pkey(self) -> dict[int, ResolvedPartition]:
        return {p.pkey: p for p in self.partitions}

    def arrays(self) -> Memberships:
        """:attr:`memberships`, or (a Resolution made by hand) the same built from the partitions'
        arrays: a few array operations per partition, never a Python step per member."""
        if self.memberships is not None:
            return self.memberships
        parts = self.partitions
        guids = np.concatenate([p.guids for p in parts]) if parts else _NO_GUIDS
        port_guids, port = np.unique(guids, return_inverse=True)
        part = np.repeat(np.arange(len(parts), dtype=np.int64), [p.members for p in parts])
        full = np.concatenate([p.is_full for p in parts]) if parts else _NO_FLAGS
        return Memberships(port_guids, part, port.astype(np.int64).reshape(-1), full)


def osm_pkey_order(pkey: int) -> int:
    """Sort key of OpenSM's partition map: the P_Key in network byte order read on x86."""
    return ((pkey & 0xFF) << 8) | (pkey >> 8)


def end_ports(subnet: Any) -> dict[int, str]:
    """End-port GUID -> kind on a discovered subnet: CA ports and every switch's port 0."""
    out: dict[int, str] = {int(g): "ca" for g in subnet.ca_guid.tolist()}
    out.update({int(g): "switch" for g in subnet.sw_guid.tolist()})
    return out


def sm_port_guid(subnet: Any) -> int:
    """GUID of the port the SM runs on (a switch: its port 0, whose GUID is the node GUID)."""
    f = subnet.fabric
    if int(f.devices_t.kind[subnet.sm_node]) == _switch_code():
        return int(f.devices_t.guid[subnet.sm_node])
    return int(f.ports_t.guid[subnet.sm_port])


def _switch_code() -> int:
    return KIND_CODE[IB_SWITCH]


class _Applied:
    """Member specifiers applied in file order: each a run of port indices into one partition
    row with one membership. Kept as arrays (an ``ALL`` is one shared index array, not one
    Python step per port), so a file of 32,767 ``ALL`` statements costs a few array operations
    per statement; the last mention of a (partition, port) wins, as in OpenSM."""

    def __init__(self, n_ports: int) -> None:
        self.n = n_ports
        self.runs: list[np.ndarray] = []
        self.rows: list[int] = []
        self.full: list[bool] = []
        self.indx0 = np.zeros(n_ports, np.int64)       # P_Key (full bit incl.) wanted at index 0; 0 none
        self.any_indx0 = False

    def ask_index0(self, pkey: int, ports: np.ndarray, full: bool, want0: bool) -> None:
        """An ``indx0`` statement's member asks for index 0; another mention of that P_Key
        (without ``indx0``) cancels the request."""
        if want0:
            self.indx0[ports] = pkey | (FULL_BIT if full else 0)
            self.any_indx0 = True
        else:
            self.indx0[ports[(self.indx0[ports] & PKEY_MASK) == pkey]] = 0

    def last(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, port, full) of every (row, port) mentioned, its last mention, sorted by row then port."""
        if not self.runs:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool)
        lens = np.fromiter(map(len, self.runs), np.int64, len(self.runs))
        port = np.concatenate(self.runs).astype(np.int64, copy=False)
        row = np.repeat(np.asarray(self.rows, np.int64), lens)
        full = np.repeat(np.asarray(self.full, bool), lens)
        key = row * max(self.n, 1) + port
        uniq, first_from_end = np.unique(key[::-1], return_index=True)
        at = len(key) - 1 - first_from_end
        return row[at], port[at], full[at]


def resolve(conf: PartitionConfig | None, subnet: Any) -> Resolution:
    """Partition members on ``subnet`` (from :func:`~fabricviz.ib.subnet.discover`)."""
    ports = end_ports(subnet)
    sm = sm_port_guid(subnet)
    # port_guid_tbl order (network byte order GUIDs): ALL walks it; only the per-port result matters
    order = sorted(ports, key=lambda g: int.from_bytes(g.to_bytes(8, "big"), "little"))
    at = {g: i for i, g in enumerate(order)}
    every = np.arange(len(order), dtype=np.int64)
    kind = [ports[g] for g in order]
    groups = {"ALL": every, "ALL_ROUTERS": every[:0],
              "ALL_CAS": every[[k == "ca" for k in kind]] if kind else every,
              "ALL_SWITCHES": every[[k == "switch" for k in kind]] if kind else every}
    one = [every[i:i + 1] for i in range(len(order))]          # views, shared by every mention
    with_file = conf is not None and conf.applies_default
    names, pkeys, ipoib = ["Default"], [DEFAULT_PKEY], [not with_file]
    row_of = {DEFAULT_PKEY: 0}
    applied = _Applied(len(order))
    applied.runs.append(every)                                 # the Default partition: everyone
    applied.rows.append(0)
    applied.full.append(not with_file)
    if sm in at:
        applied.runs.append(one[at[sm]])
        applied.rows.append(0)
        applied.full.append(True)
    unknown: list[tuple[int, int]] = []
    runs, rows, fulls = applied.runs, applied.rows, applied.full
    if with_file:
        assert conf is not None
        for s in conf.statements:
            prow = row_of.get(s.pkey)
            if prow is None:
                prow = row_of[s.pkey] = len(pkeys)
                names.append(s.name)
                pkeys.append(s.pkey)
                ipoib.append(s.ipoib)
            elif s.ipoib:
                ipoib[prow] = True
            for m in s.members:
                t = m.target
                if isinstance(t, int):
                    i = at.get(t)
                    if i is None:
                        unknown.append((t, s.line))
                        continue
                    sel = one[i]
                elif t == "SELF":
                    if sm not in at:
                        continue
                    sel = one[at[sm]]
                else:
                    sel = groups[t]
                if s.indx0 or applied.any_indx0:
                    applied.ask_index0(s.pkey, sel, m.membership != "limited", s.indx0)
                runs.append(sel)          # applied.runs/rows/full, inlined: once per member
                rows.append(prow)
                fulls.append(m.membership != "limited")
    row, port, full = applied.last()
    counts = np.bincount(row, minlength=len(pkeys))
    starts = [0, *np.cumsum(counts).tolist()]
    kept = sorted(np.flatnonzero(counts).tolist(), key=lambda r: osm_pkey_order(pkeys[r]))
    port_guids = np.array(order, dtype=np.uint64)
    guids = port_guids[port]
    n_full = np.bincount(row[full], minlength=len(pkeys)).tolist()
    parts = [ResolvedPartition(names[r], pkeys[r], ipoib[r], guids[starts[r]:starts[r + 1]],
                               full[starts[r]:starts[r + 1]], n_full[r]) for r in kept]
    rank = np.zeros(len(pkeys), np.int64)
    rank[kept] = np.arange(len(kept))
    part = rank[row]
    take = np.argsort(part, kind="stable")           # partition order; ports stay sorted within one
    mem = Memberships(port_guids, part[take], port[take], full[take])
    indx0 = {order[i]: int(applied.indx0[i]) for i in np.flatnonzero(applied.indx0).tolist()}
    return Resolution(parts, ports, sm, unknown, indx0, mem)
