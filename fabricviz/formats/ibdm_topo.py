"""The ibdm topology file (ibutils: ibdiagnet ``-t``, ibdmchk, ibtopodiff), import only.

Grammar (ibutils man page ibdm-topo-file(1)): blocks separated by empty lines; a block opens with
``SYSTEM-TYPE SYSTEM-NAME [CFG: …]`` and lists one connection per indented line,
``LOCAL-PORT -> REM-SYS-TYPE REM-SYS-NAME REM-PORT`` (the arrow may carry the width and speed,
``-4X->``, ``-8X-5G->``); ``#`` starts a comment. A system named only as a peer needs no block.

System types are defined by ibnl files. The single-chip systems of ibutils' ibnl directory
(``/usr/lib/*/ibdm*/ibnl``, one ``NODE`` whose port n is front-panel port ``Pn``) are known here
by every name their ``TOPSYSTEM`` line gives; a multi-chip chassis (MTS9600, MTS14400, IS5x00…)
is refused, as its internal cabling is not modelled. A type no ibnl defines is read as one node
with ports ``P1``…``Pn``: a switch when a port above 2 is named, else a CA. ibdm files carry no
GUIDs: nodes are numbered the way ibsim numbers a net file without GUID lines.
"""

from __future__ import annotations

import os
import re

from ..model import Fabric, FabricError, LinkRate
from .ibnetdiscover import load_text_file, loads_parsed, problems_of
from .ibnetdiscover_grammar import MAX_PORTS, Link, Node, Topology, dec, lines_of, show
from .ibsim_guids import assign_ibsim_guids

FORMAT = "ibdm-topo"

#: Single-chip system types of ibutils 1.5.7's ibnl files: names -> (node type, ports).
_SINGLE = {
    ("Buffalo", "MTS800"): ("Switch", 8),
    ("Reindeer", "MTS2400", "MTS2400-24", "Reindeer-12x12x", "MTS2400-12T4"): ("Switch", 24),
    ("MTS3600", "Shark", "IS4", "F464M"): ("Switch", 36),
    ("Cheetah", "MHGS18-XT", "MT25204"): ("Ca", 1),
    ("Cougar", "MT23108", "MTPB23108", "MHX-CE128-T", "MHX-CE256-T", "MHX-CE512-T", "MHXL-CF128-T",
     "MHXL-CF256-T", "MHXL-CF512-T", "Eagle", "MT25408", "MHEH28", "MHGH28", "Lion", "MT25208",
     "MTLP25208", "MHEL-CF128-T", "MHEL-CF256-T", "MHEL-CF512-T", "LionMini", "MHEA28-XT",
     "MT25218"): ("Ca", 2),
}
SYSTEM_TYPES: dict[str, tuple[str, int]] = {n: v for names, v in _SINGLE.items() for n in names}
#: Multi-chip chassis of the same ibnl files (refused: their inside is not modelled).
CHASSIS = frozenset(("MTS9600", "Gazelle", "GZ", "Gnu", "IS5100", "MIS5100", "Orca108", "IS5200",
                     "MIS5200", "Orca216", "IS5300", "MIS5300", "Orca324", "IS5600", "MIS5600", "Orca",
                     "MTS14400", "Rhino", "MTS14400-48", "Rhino12X", "Rhino-12x", "MTS14400-DDR",
                     "RhinoDDR", "MTS14400-IntraDDR", "Rhino-IntraDDR", "MTS3610", "Mammoth",
                     "SUNBQNEM48", "SUN-QNEM", "SUNDCS648QDR", "SUN-M9-648", "SUNDCS72QDR", "NM2-72P",
                     "SUNDCS36QDR", "NM2-36P"))

HEADER = re.compile(r"^(\S+)\s+(\S+)(?:\s+CFG:.*)?$")
CONN = re.compile(r"^(\S+)\s+-(?:(\d+)[xX]-)?(?:([\d.]+)G-)?>\s+(\S+)\s+(\S+)\s+(\S+)$")
PANEL = re.compile(r"^P(\d+)$")
#: lane speed on the arrow (Gb/s) -> InfiniBand speed name
SPEEDS = {"2.5": "SDR", "5": "DDR", "10": "QDR", "14": "FDR", "25": "EDR", "50": "HDR", "100": "NDR"}


def _port(name: str) -> int | None:
    m = PANEL.match(name)
    return dec(m.group(1), MAX_PORTS) or None if m else None


def parse(text: str, where: str = "<text>") -> tuple[Topology, list[str]]:
    """The systems and connections of an ibdm topology file; (topology, problems)."""
    problems: list[str] = []
    nodes: dict[str, Node] = {}
    types: dict[str, str] = {}
    top: dict[str, int] = {}                    # highest port each system is named with
    conns: list[tuple[int, str, int, str, int, LinkRate | None]] = []
    current: str | None = None

    def system(stype: str, name: str, lineno: int) -> bool:
        if stype in CHASSIS:
            problems.append(f"{where}:{lineno}: {stype} is a multi-chip chassis; only single-chip systems "
                            f"are read (its internal cabling is not modelled)")
            return False
        if name in types and types[name] != stype:
            problems.append(f'{where}:{lineno}: "{name}" is a {stype} here but a {types[name]} before')
            return False
        if name not in types:
            types[name] = stype
            kind, n = SYSTEM_TYPES.get(stype, ("", 0))
            nodes[name] = Node(lineno, kind, n, name, name)
        return True

    for lineno, raw in enumerate(lines_of(text.removeprefix("\ufeff")), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            if not raw.strip():
                current = None
            continue
        if not raw[:1].isspace() and "->" not in line:
            m = HEADER.match(line)
            if m is None:
                problems.append(f"{where}:{lineno}: expected SYSTEM-TYPE SYSTEM-NAME, got: {line[:120]}")
                current = None
            else:
                current = m.group(2) if system(m.group(1), m.group(2), lineno) else None
            continue
        c = CONN.match(line)
        if c is None:
            problems.append(f"{where}:{lineno}: expected PORT -> SYSTEM-TYPE SYSTEM-NAME PORT, got: {line[:120]}")
            continue
        if current is None:
            continue                            # its block is refused (or there is none)
        lp, rp = _port(c.group(1)), _port(c.group(6))
        if lp is None or rp is None:
            bad = c.group(1) if lp is None else c.group(6)
            problems.append(f"{where}:{lineno}: port {show(bad)}: expected P1-P{MAX_PORTS}")
            continue
        if not system(c.group(4), c.group(5), lineno):
            continue
        rate = None
        if c.group(2) or c.group(3):
            try:
                rate = LinkRate.parse(f"{c.group(2) or 4}x{SPEEDS.get(c.group(3) or '2.5', '?')}")
            except FabricError:
                problems.append(f"{where}:{lineno}: link rate {show(c.group(2) or '')}x "
                                f"{show(c.group(3) or '')}G is not an InfiniBand rate")
                continue
        conns.append((lineno, current, lp, c.group(5), rp, rate))
        top[current] = max(top.get(current, 0), lp)
        top[c.group(5)] = max(top.get(c.group(5), 0), rp)
    for name, n in nodes.items():
        if not n.type:
            n.type = "Switch" if top.get(name, 0) > 2 else "Ca"
            n.nports = top.get(name, 0)
    for lineno, a, pa, b, pb, rate in conns:
        na = nodes[a]
        for name, p in ((a, pa), (b, pb)):
            if p > nodes[name].nports:
                problems.append(f'{where}:{lineno}: "{name}" ({types[name]}) has no port P{p} '
                                f"(it has {nodes[name].nports})")
                break
        else:
            if pa in na.links:
                if (na.links[pa].rid, na.links[pa].rport) != (b, pb):
                    problems.append(f'{where}:{lineno}: port P{pa} of "{a}" listed twice '
                                    f"(also line {na.links[pa].line})")
                continue
            na.links[pa] = Link(lineno, pa, b, pb, rate=rate)
    topo = Topology([n for n in nodes.values() if n.nports], [])
    for n in nodes.values():
        if not n.nports:
            problems.append(f'{where}:{n.line}: "{n.id}" ({types[n.id]}) has no port named')
    return topo, problems


def _numbered(text: str, where: str) -> tuple[Topology, list[str]]:
    topo, problems = parse(text, where)
    assign_ibsim_guids(topo, where, problems)
    return topo, problems


def check(text: str, where: str = "<text>") -> list[str]:
    return problems_of(_numbered(text, where), where)


def loads(text: str, where: str = "<text>", name: str | None = None) -> Fabric:
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
