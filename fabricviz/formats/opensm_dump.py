"""OpenSM's ``opensm-lfts.dump``: write computed LFTs the way OpenSM does, and read real dumps.

Format (opensm/osm_dump.c ``dump_ucast_lfts``, linux-rdma/opensm), per switch::

    Unicast lids [0-<max lid>] of switch Lid <lid> guid 0x<16 hex> ('<desc>'):
    0x<lid %04x> <port %03u> # <node type> portguid 0x<16 hex>: '<desc>'
    ...
    <max lid> lids dumped

One line per LID 0..max whose LFT entry is a real port (OpenSM skips entries >= the switch's port
count + 1, i.e. 255 = no path); the node type is ``Channel Adapter``, ``Switch`` or ``Router``
(``ib_get_node_type_str``), and a LID no port owns reads ``unknown node and type``. The trailer
prints the max LID, not the number of lines. OpenSM also reads this file back (``-R file -U``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..model import FabricError
from .limits import one_line

NO_PATH = 255
#: Highest unicast LID (an LFT covers LIDs 0..0xBFFF); checked before any table is sized by it.
MAX_UCAST_LID = 0xBFFF
#: ``ib_get_node_type_str`` (include/iba/ib_types.h), by IB node type 0-3.
NODE_TYPES = ("UNKNOWN", "Channel Adapter", "Switch", "Router")
UNKNOWN_DEST = "unknown node and type"

_HEAD = re.compile(r"^Unicast lids \[0-(\d+)\] of switch Lid (\d+) guid 0x([0-9a-fA-F]+) \('(.*)'\):$")
_ENTRY = re.compile(r"^0x([0-9a-fA-F]+) (\d+) # (.*)$")
_DEST = re.compile(r"^(.*?) portguid 0x([0-9a-fA-F]+): '(.*)'$")
_TAIL = re.compile(r"^(\d+) lids dumped$")


@dataclass(frozen=True)
class SwitchLft:
    """One switch's table for :func:`write_lfts_dump`.

    ``lft[lid]`` is the egress port (0 = the switch itself, 255 = no path); its length is
    max LID + 1. ``nports`` (external ports) drops entries above it as OpenSM does; 0 keeps all.
    """

    guid: int
    lid: int
    desc: str
    lft: np.ndarray
    nports: int = 0


def write_lfts_dump(switches: Iterable[SwitchLft | Sequence],
                    dests: Mapping[int, tuple[str, int, str]]) -> str:
    """``opensm-lfts.dump`` text for ``switches`` (SwitchLft or (guid, lid, desc, lft[, nports])).

    ``dests`` maps each LID to (node type string, port GUID, node desc) of the port that owns it
    (every LID of an LMC range maps to its port); a LID missing there prints as OpenSM prints a LID
    no port owns.
    """
    out: list[str] = []
    for sw in switches:
        if not isinstance(sw, SwitchLft):
            sw = SwitchLft(*sw)
        lft = np.asarray(sw.lft)
        max_lid = len(lft) - 1
        limit = sw.nports + 1 if sw.nports else NO_PATH
        out.append(f"Unicast lids [0-{max_lid}] of switch Lid {sw.lid} guid 0x{sw.guid:016x} ('{sw.desc}'):")
        valid = np.flatnonzero((lft >= 0) & (lft < limit))
        for lid, port in zip(valid.tolist(), lft[valid].tolist(), strict=True):
            d = dests.get(lid)
            dest = f"{d[0]} portguid 0x{d[1]:016x}: '{d[2]}'" if d is not None else UNKNOWN_DEST
            out.append(f"0x{lid:04x} {port:03d} # {dest}")
        out.append(f"{max_lid} lids dumped")
    return "\n".join(out) + ("\n" if out else "")


@dataclass
class SwitchTable:
    """One switch of a parsed dump: its LID, desc, max LID and lid -> port."""

    guid: int
    lid: int
    desc: str
    max_lid: int
    routes: dict[int, int] = field(default_factory=dict)


@dataclass
class LftsDump:
    """A parsed ``opensm-lfts.dump``: switches by GUID, and who owns each LID."""

    switches: dict[int, SwitchTable]
    dests: dict[int, tuple[str, int, str]]

    def by_port_guid(self) -> dict[tuple[int, int], int]:
        """(switch GUID, destination port GUID) -> egress port, for base LIDs only (LMC-free compare)."""
        base: dict[int, int] = {}
        for lid in sorted(self.dests):
            base.setdefault(self.dests[lid][1], lid)
        out = {}
        for g, sw in self.switches.items():
            for pg, lid in base.items():
                if lid in sw.routes:
                    out[(g, pg)] = sw.routes[lid]
        return out


def parse_lfts_dump(text: str, where: str = "opensm-lfts.dump") -> LftsDump:
    """Parse OpenSM's dump; FabricError ``where:line: why`` on the first malformed line."""
    switches: dict[int, SwitchTable] = {}
    dests: dict[int, tuple[str, int, str]] = {}
    cur: SwitchTable | None = None
    dest_line: dict[int, int] = {}
    if text.startswith("\ufeff"):
        text = text[1:]              # a UTF-8 byte-order mark is not part of line 1
    for n, raw in enumerate(text.split("\n"), 1):   # "\n" only: line numbers as editors count
        line = raw.rstrip("\r")
        if not line.strip():
            continue
        m = _HEAD.match(line)
        if m:
            if cur is not None:
                raise FabricError(f"{where}:{n}: new switch before \"lids dumped\" of switch "
                                  f"0x{cur.guid:016x}")
            max_lid = _bounded(m.group(1), 10, MAX_UCAST_LID)
            if max_lid is None:
                raise FabricError(f"{where}:{n}: LFT range [0-{_show(m.group(1))}] is over the unicast LIDs "
                                  f"(0-{MAX_UCAST_LID})")
            sw_lid = _bounded(m.group(2), 10, MAX_UCAST_LID)
            if not sw_lid:
                raise FabricError(f"{where}:{n}: switch Lid {_show(m.group(2))} is not a unicast LID "
                                  f"(1-{MAX_UCAST_LID})")
            guid = _bounded(m.group(3), 16, (1 << 64) - 1)
            if guid is None:
                raise FabricError(f"{where}:{n}: switch guid 0x{_show(m.group(3))} is over 64 bits")
            if guid in switches:
                raise FabricError(f"{where}:{n}: switch 0x{guid:016x} dumped twice")
            cur = SwitchTable(guid, sw_lid, m.group(4), max_lid)
            switches[guid] = cur
            continue
        if cur is None:
            raise FabricError(f"{where}:{n}: expected \"Unicast lids [0-N] of switch ...\", "
                              f"got: {one_line(line[:120])}")
        m = _ENTRY.match(line)
        if m:
            lid, port = _bounded(m.group(1), 16, cur.max_lid), _bounded(m.group(2), 10, NO_PATH - 1)
            if lid is None or port is None:
                raise FabricError(f"{where}:{n}: LID {_num(m.group(1), 16)} port {_num(m.group(2), 10)} outside "
                                  f"the table [0-{cur.max_lid}]")
            cur.routes[lid] = port
            d = _DEST.match(m.group(3))
            if d:
                pguid = _bounded(d.group(2), 16, (1 << 64) - 1)
                if pguid is None:
                    raise FabricError(f"{where}:{n}: portguid 0x{_show(d.group(2))} is over 64 bits")
                dest = (d.group(1), pguid, d.group(3))
                first = dests.setdefault(lid, dest)
                if first[:2] != dest[:2]:
                    # OpenSM names every LID after the one port that owns it, in every table
                    raise FabricError(f"{where}:{n}: LID {lid} is named {one_line(dest[0][:60])} "
                                      f"portguid 0x{pguid:016x}, but line {dest_line[lid]} names it "
                                      f"{one_line(first[0][:60])} portguid 0x{first[1]:016x}")
                dest_line.setdefault(lid, n)
            elif m.group(3) != UNKNOWN_DEST:
                raise FabricError(f"{where}:{n}: cannot read the destination: {one_line(m.group(3)[:120])}")
            continue
        m = _TAIL.match(line)
        if m:
            cur = None
            continue
        raise FabricError(f"{where}:{n}: expected \"0xLID PORT # ...\", got: {one_line(line[:120])}")
    if cur is not None:
        raise FabricError(f"{where}: switch 0x{cur.guid:016x} has no \"lids dumped\" line (file cut short?)")
    return LftsDump(switches, dests)


def _show(text: str) -> str:
    """A number quoted in a message: at most 24 characters (a mutant may have thousands)."""
    return text if len(text) <= 24 else text[:23] + "…"


def _num(digits: str, base: int) -> str:
    """A number of a message in decimal, or its first digits when it is too long to convert."""
    return str(int(digits, base)) if len(digits) <= 24 else ("0x" if base == 16 else "") + _show(digits)


def _bounded(digits: str, base: int, hi: int) -> int | None:
    """``int(digits, base)`` when it is at most ``hi``, else None (the length is checked first)."""
    d = digits.lstrip("0") or "0"
    if len(d) > len(format(hi, "x" if base == 16 else "d")):
        return None
    v = int(d, base)
    return v if v <= hi else None


def read_lfts_dump(text: str, where: str = "opensm-lfts.dump") -> dict[int, dict[int, int]]:
    """switch GUID -> {LID: egress port} from an ``opensm-lfts.dump`` text."""
    return {g: dict(sw.routes) for g, sw in parse_lfts_dump(text, where).switches.items()}
