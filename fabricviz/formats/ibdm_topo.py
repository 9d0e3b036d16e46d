"""The ibdm topology file (ibutils: ibdiagnet ``-t``, ibdmchk, ibtopodiff), import only.

Grammar (ibutils man page ibdm-topo-file(1)): blocks separated by empty lines; a block opens with
``SYSTEM-TYPE SYSTEM-NAME [CFG: …]`` and lists one connection per indented line,
``LOCAL-PORT -> REM-SYS-TYPE REM-SYS-NAME REM-PORT`` (the arrow may carry the width and speed,
``-4X->``, ``-8X-5G->``, ``-4x-2.5G->``); ``#`` starts a comment. A system named only as a peer
needs no block.

System types come from IBNL definitions (:mod:`.ibdm_ibnl`): the IBNL files beside the file
(``FILE.ibnl.d/*.ibnl``, where fabricviz's ibdm export writes them) and the single-chip systems of
ibutils' own ibnl directory, built in. Each InfiniBand node of a system becomes a device, named
after the system (``SYSTEM/U2`` when it has several); a chassis with internal cabling is refused.
A type nothing defines is read from the port names it is used with: ``Pn`` (node U1) or
``Uk/Pn``, each node a switch when a port above 2 is named, else a CA. ibdm files carry no GUIDs:
nodes are numbered the way ibsim numbers a net file without GUID lines.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..model import Fabric, FabricError, LinkRate
from .ibdm_ibnl import CHASSIS, SYSTEM_TYPES, SystemDef, builtin, parse_ibnl
from .ibnetdiscover import load_text_file, loads_parsed, problems_of
from .ibnetdiscover_grammar import MAX_PORTS, Link, Node, Topology, dec, lines_of, show
from .ibsim_guids import assign_ibsim_guids

FORMAT = "ibdm-topo"
__all__ = ["CHASSIS", "SYSTEM_TYPES", "FORMAT", "parse", "check", "loads", "load", "sniff"]

HEADER = re.compile(r"^(\S+)\s+(\S+)(?:\s+CFG:.*)?$")
CONN = re.compile(r"^(\S+)\s+-(?:(\d+)[xX]-)?(?:([\d.]+)G-)?>\s+(\S+)\s+(\S+)\s+(\S+)$")
PANEL = re.compile(r"^(?:(U\d+)/)?P(\d+)$")
#: lane speed on the arrow (Gb/s) -> InfiniBand speed name
SPEEDS = {"2.5": "SDR", "5": "DDR", "10": "QDR", "14": "FDR", "25": "EDR", "50": "HDR", "100": "NDR"}
#: longest system name or type read (ibdm's are a few words; a NodeDescription is 64 bytes)
MAX_NAME = 256
#: most bytes of IBNL files read from beside a topology file
IBNL_BUDGET = 1 << 24


class _Reader:
    """One pass over a topology file: systems, their nodes, connections."""

    def __init__(self, where: str, defs: dict[str, SystemDef]) -> None:
        self.where, self.defs = where, defs
        self.problems: list[str] = []
        self.types: dict[str, str] = {}
        self.nodes: dict[tuple[str, str], Node] = {}
        self.multi: set[str] = set()                   # systems of several nodes

    def system(self, stype: str, name: str, lineno: int) -> bool:
        if len(name) > MAX_NAME or len(stype) > MAX_NAME:
            self.problems.append(f"{self.where}:{lineno}: a system name or type of "
                                 f"{max(len(name), len(stype)):,} characters (at most {MAX_NAME})")
            return False
        d = self.defs.get(stype) or builtin(stype)
        if d is not None and d.chassis:
            self.problems.append(f"{self.where}:{lineno}: {stype} is a multi-chip chassis; only systems "
                                 f"without internal cabling are read")
            return False
        if name in self.types:
            if self.types[name] != stype:
                self.problems.append(f'{self.where}:{lineno}: "{name}" is a {stype} here but a '
                                     f"{self.types[name]} before")
                return False
            return True
        self.types[name] = stype
        if d is not None:
            if len(d.nodes) > 1:
                self.multi.add(name)
            for key, (kind, n) in d.nodes.items():
                self.nodes[(name, key)] = Node(lineno, kind, n, "", "")
        return True

    def end(self, name: str, panel: str, lineno: int) -> tuple[Node, int] | None:
        stype = self.types[name]
        d = self.defs.get(stype) or builtin(stype)
        if d is not None:
            at = d.panel.get(panel)
            if at is None:
                self.problems.append(f'{self.where}:{lineno}: "{name}" ({stype}) has no port {show(panel)}')
                return None
            return self.nodes[(name, at[0])], at[1]
        m = PANEL.match(panel)
        port = dec(m.group(2), MAX_PORTS) if m else None
        if m is None or not port:
            self.problems.append(f"{self.where}:{lineno}: port {show(panel)}: expected P1-P{MAX_PORTS} "
                                 f"or Uk/Pn ({stype} has no IBNL definition)")
            return None
        key = m.group(1) or "U1"
        node = self.nodes.get((name, key))
        if node is None:
            node = self.nodes[(name, key)] = Node(lineno, "", 0, "", "")
            if key != "U1" or len([k for k in self.nodes if k[0] == name]) > 1:
                self.multi.add(name)
        node.nports = max(node.nports, port)
        return node, port


def _rate(width: str | None, speed: str | None) -> LinkRate | None:
    if not width and not speed:
        return None
    return LinkRate.parse(f"{width or 4}x{SPEEDS.get(speed or '2.5', '?')}")


def parse(text: str, where: str = "<text>", ibnl: dict[str, SystemDef] | None = None
          ) -> tuple[Topology, list[str]]:
    """The systems and connections of an ibdm topology file; (topology, problems)."""
    r = _Reader(where, ibnl or {})
    conns: list[tuple[int, Node, int, Node, int, LinkRate | None]] = []
    current: str | None = None
    for lineno, raw in enumerate(lines_of(text.removeprefix("\ufeff")), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            if not raw.strip():
                current = None
            continue
        if not raw[:1].isspace() and "->" not in line:
            m = HEADER.match(line)
            if m is None:
                r.problems.append(f"{where}:{lineno}: expected SYSTEM-TYPE SYSTEM-NAME, got: {line[:120]}")
                current = None
            else:
                current = m.group(2) if r.system(m.group(1), m.group(2), lineno) else None
            continue
        c = CONN.match(line)
        if c is None:
            r.problems.append(f"{where}:{lineno}: expected PORT -> SYSTEM-TYPE SYSTEM-NAME PORT, got: {line[:120]}")
            continue
        if current is None or not r.system(c.group(4), c.group(5), lineno):
            continue                            # its block is refused (or there is none)
        a, b = r.end(current, c.group(1), lineno), r.end(c.group(5), c.group(6), lineno)
        if a is None or b is None:
            continue
        try:
            rate = _rate(c.group(2), c.group(3))
        except FabricError:
            r.problems.append(f"{where}:{lineno}: link rate {show(c.group(2) or '4')}x "
                              f"{show(c.group(3) or '2.5')}G is not an InfiniBand rate")
            continue
        conns.append((lineno, a[0], a[1], b[0], b[1], rate))
    for (name, key), n in r.nodes.items():
        n.id = n.desc = n.raw_desc = f"{name}/{key}" if name in r.multi else name
        if not n.type:
            n.type = "Switch" if n.nports > 2 else "Ca"
    for lineno, na, pa, nb, pb, rate in conns:
        if pa in na.links:
            if (na.links[pa].rid, na.links[pa].rport) != (nb.id, pb):
                r.problems.append(f'{where}:{lineno}: port {pa} of "{na.id}" listed twice '
                                  f"(also line {na.links[pa].line})")
            continue
        na.links[pa] = Link(lineno, pa, nb.id, pb, rate=rate)
    return Topology(list(r.nodes.values()), []), r.problems


def ibnl_beside(where: str) -> dict[str, SystemDef]:
    """The system types of the IBNL files in ``WHERE.ibnl.d/`` (fabricviz's ibdm export puts them
    there), at most :data:`IBNL_BUDGET` bytes; {} when there is no such folder."""
    folder = Path(where + ".ibnl.d")
    out: dict[str, SystemDef] = {}
    budget = IBNL_BUDGET
    try:
        files = sorted(folder.glob("*.ibnl")) if folder.is_dir() else []
        for f in files:
            size = f.stat().st_size
            if size > budget:
                break
            budget -= size
            out.update(parse_ibnl(f.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return out
    return out


def _numbered(text: str, where: str) -> tuple[Topology, list[str]]:
    topo, problems = parse(text, where, ibnl_beside(where))
    assign_ibsim_guids(topo, where, problems)
    return topo, problems


def check(text: str, where: str = "<text>") -> list[str]:
    return problems_of(_numbered(text, where), where)


def loads(text: str, where: str = "<text>", name: str | None = None) -> Fabric:
    """A Fabric from ibdm topology text (IBNL files in ``where + ".ibnl.d"`` are used when there)."""
    return loads_parsed(_numbered(text, where), where, FORMAT, name)


def load(path: str | os.PathLike[str]) -> Fabric:
    return load_text_file(path, loads)


def sniff(text: str) -> bool:
    """True when the first line that is no comment is a system header followed by a connection."""
    seen_header = False
    for raw in lines_of(text.removeprefix("\ufeff")):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if not seen_header:
            if raw[:1].isspace() or HEADER.match(line[:4096]) is None or "->" in line:
                return False
            seen_header = True
            continue
        return CONN.match(line[:4096]) is not None
    return False
