"""OpenSM's ``opensm-subnet.lst`` (written with ``-D``/``--dump_files_dir``; ibdm and ibtopodiff
read it as ``subnet.lst``): one line per port with a peer, import only.

Each line (OpenSM osm_dump.c ``dump_topology_node``) is the two ends of a link and its state::

    { CA Ports:02 SystemGUID:… NodeGUID:… PortGUID:… VenID:… DevID:… Rev:… {desc} LID:000C PN:01 }
    { SW Ports:08 SystemGUID:… NodeGUID:… PortGUID:… … {desc} LID:0003 PN:04 } PHY=4x LOG=ACT SPD=2.5

``Ports``, ``LID`` and ``PN`` are hex; the type is SW, CA or Rt (``**`` unknown) with ``-SM`` on
the node that runs the master SM; ``LID`` is the base LID of the node's default port (a switch's
port 0); ``PHY`` the active width (1x/4x/8x/12x/2x, ``??``); ``LOG`` ACT/ARM/INI/DWN; ``SPD`` the
active lane speed in Gb/s (2.5, 5, 10, 14, 25, …, ``FDR10``, ``??``; older dumps have none). Every
link is listed from both ends. The records go through the checks and builder of the
ibnetdiscover reader.
"""

from __future__ import annotations

import os
import re

from ..model import Fabric, FabricError, LinkRate
from .ibnetdiscover import first_line, load_text_file, loads_parsed, problems_of
from .ibnetdiscover_grammar import MAX_GUID, MAX_LID, MAX_PORTS, Link, Node, Topology, lines_of, show

FORMAT = "opensm-subnet-lst"

_END = (r"\{\s*(SW|CA|Rt|\*\*)(-SM)?\s+Ports:([0-9A-Fa-f]+)\s+SystemGUID:([0-9A-Fa-f]+)\s+"
        r"NodeGUID:([0-9A-Fa-f]+)\s+PortGUID:([0-9A-Fa-f]+)\s+VenID:\S+\s+DevID:\S+\s+Rev:\S+\s+"
        r"\{(.*?)\}\s+LID:([0-9A-Fa-f]+)\s+PN:([0-9A-Fa-f]+)\s*\}")
LINE = re.compile(rf"^{_END}\s*{_END}\s*PHY=(\S+)\s+LOG=(\S+)(?:\s+SPD=(\S+))?\s*$")
_START = re.compile(r"\{\s*(SW|CA|Rt|\*\*)(-SM)?\s+Ports:[0-9A-Fa-f]+\s+SystemGUID:")
#: SPD= (Gb/s per lane, as OpenSM prints it) -> InfiniBand speed name
SPEED = {"2.5": "SDR", "5": "DDR", "10": "QDR", "FDR10": "FDR10", "14": "FDR", "25": "EDR",
         "50": "HDR", "100": "NDR", "200": "XDR"}
_KIND = {"SW": "Switch", "CA": "Ca", "Rt": "Rt"}
_PREFIX = {"Switch": "S", "Ca": "H", "Rt": "R"}


def _hex(text: str, hi: int) -> int | None:
    digits = text.lstrip("0") or "0"
    if len(digits) > len(f"{hi:x}"):
        return None
    v = int(digits, 16)
    return v if v <= hi else None


class _End:
    __slots__ = ("kind", "nports", "guid", "port_guid", "desc", "lid", "port")

    def __init__(self, kind: str, nports: int, guid: int, port_guid: int, desc: str, lid: int,
                 port: int) -> None:
        self.kind, self.nports, self.guid, self.port_guid = kind, nports, guid, port_guid
        self.desc, self.lid, self.port = desc, lid, port

    @property
    def id(self) -> str:
        return f"{_PREFIX[self.kind]}-{self.guid:016x}"


def _end(m: re.Match, at: int, where: str, lineno: int, problems: list[str]) -> _End | None:
    g = m.group
    if g(at) not in _KIND:
        problems.append(f"{where}:{lineno}: node type {g(at)} (expected SW, CA or Rt)")
        return None
    nports, port = _hex(g(at + 2), MAX_PORTS), _hex(g(at + 8), MAX_PORTS)
    guid, pguid, lid = _hex(g(at + 4), MAX_GUID), _hex(g(at + 5), MAX_GUID), _hex(g(at + 7), MAX_LID)
    if not nports:
        problems.append(f"{where}:{lineno}: Ports:{show(g(at + 2))} is out of range (1-{MAX_PORTS:X} hex)")
    elif not port or port > nports:
        problems.append(f"{where}:{lineno}: PN:{show(g(at + 8))} is out of range (1-{nports:02X} hex)")
    elif not guid or not pguid:
        problems.append(f"{where}:{lineno}: NodeGUID/PortGUID is not a 64-bit GUID (nor 0)")
    elif lid is None:
        problems.append(f"{where}:{lineno}: LID:{show(g(at + 7))} is not a unicast LID (0-{MAX_LID:04X} hex)")
    else:
        return _End(_KIND[g(at)], nports, guid, pguid, g(at + 6), lid, port)
    return None


def _rate(phy: str, spd: str | None) -> LinkRate | None:
    speed = SPEED.get(spd or "")
    if speed is None or not phy.endswith("x"):
        return None
    try:
        return LinkRate.parse(f"{phy}{speed}")
    except FabricError:
        return None


def parse(text: str, where: str = "<text>") -> tuple[Topology, list[str]]:
    """The nodes and links of a subnet.lst; (topology with GUIDs set, problems)."""
    problems: list[str] = []
    nodes: dict[str, Node] = {}
    for lineno, raw in enumerate(lines_of(text.removeprefix("\ufeff")), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if m is None:
            problems.append(f"{where}:{lineno}: expected {{ node … PN:.. }} {{ node … PN:.. }} "
                            f"PHY=.. LOG=.., got: {line[:120]}")
            continue
        a = _end(m, 1, where, lineno, problems)
        b = _end(m, 10, where, lineno, problems) if a is not None else None
        if a is None or b is None:
            continue
        for e in (a, b):
            n = nodes.get(e.id)
            if n is None:
                n = nodes[e.id] = Node(lineno, e.kind, e.nports, e.id, e.desc.strip(), raw_desc=e.desc,
                                       guid=e.guid)
            elif n.nports != e.nports:
                problems.append(f'{where}:{lineno}: "{e.id}" has {e.nports} ports here, {n.nports} at '
                                f"line {n.line}")
                continue
            if e.kind == "Switch":
                n.lid = n.lid or e.lid or None
            else:
                n.port_guids[e.port] = e.port_guid
        na = nodes[a.id]
        if a.port in na.links:
            if (na.links[a.port].rid, na.links[a.port].rport) != (b.id, b.port):
                problems.append(f'{where}:{lineno}: port {a.port} of "{a.id}" listed twice '
                                f"(also line {na.links[a.port].line})")
            continue
        na.links[a.port] = Link(lineno, a.port, b.id, b.port,
                                port_guid=a.port_guid if a.kind != "Switch" else None,
                                rguid=b.port_guid if b.kind != "Switch" else None,
                                lid=a.lid if a.kind != "Switch" and a.lid else None,
                                rlid=b.lid or None, rate=_rate(m.group(19), m.group(21)), rdesc=b.desc)
    return Topology(list(nodes.values()), []), problems


def check(text: str, where: str = "<text>") -> list[str]:
    return problems_of(parse(text, where), where)


def loads(text: str, where: str = "<text>", name: str | None = None) -> Fabric:
    return loads_parsed(parse(text, where), where, FORMAT, name)


def load(path: str | os.PathLike[str]) -> Fabric:
    return load_text_file(path, loads)


def sniff(text: str) -> bool:
    """True when the first line that is no comment starts like a subnet.lst link line."""
    line = first_line(text)
    return line is not None and _START.match(line) is not None
