"""``ibnetdiscover -p`` (ports report): one line per port of every node, import only.

infiniband-diags prints each port as (``dump_ports_report`` in ibnetdiscover.c)::

    SW     3  6 0x0008f10400410015 4x SDR - CA    16  1 0x0008f10403960985 ( 'SW-6IB4 Voltaire' - 'MT23108 …' )
    SW     3  5 0x0008f10400410015 4x SDR                                    'SW-6IB4 Voltaire'

node type, LID (a switch's port-0 LID), port number, port GUID, active width and speed, then the
peer the same way and both NodeDescriptions, or only the node's description when the port has no
peer. Nodes are listed one after the other, ports from the highest down; every link twice.

What the listing does not say is rebuilt as follows: a switch's ports all carry the switch GUID,
so they group by it; a CA's lines are its consecutive lines with one description and falling port
numbers, and its node GUID is its port GUID less the port number (ConnectX and ibsim numbering).
The records go through the same checks and builder as an ibnetdiscover topology file.
"""

from __future__ import annotations

import os
import re

from ..model import Fabric, FabricError, LinkRate
from .ibnetdiscover import first_line, load_text_file, loads_parsed, problems_of
from .ibnetdiscover_grammar import MAX_GUID, MAX_LID, MAX_PORTS, Link, Node, Topology, dec, lines_of, show

FORMAT = "ibnetdiscover-ports"

_END = r"(CA|SW|RT|\?\?)\s+(\d+)\s+(\d+)\s+0x([0-9a-fA-F]+)"
LINE = re.compile(rf"^{_END}\s+(\S+)\s+(\S+)"
                  rf"(?:\s+-\s+{_END}\s+\(\s?'(.*)'\s+-\s+'(.*)'\s?\)|\s+'(.*)')\s*$")
_KIND = {"SW": "Switch", "CA": "Ca", "RT": "Rt"}
_PREFIX = {"Switch": "S", "Ca": "H", "Rt": "R"}


class _Row:
    """One port line, its numbers checked."""

    __slots__ = ("line", "kind", "lid", "port", "guid", "rate", "peer", "desc", "rdesc")

    def __init__(self, line: int, kind: str, lid: int, port: int, guid: int, rate: LinkRate | None,
                 peer: tuple[str, int, int, int] | None, desc: str, rdesc: str) -> None:
        self.line, self.kind, self.lid, self.port, self.guid = line, kind, lid, port, guid
        self.rate, self.peer, self.desc, self.rdesc = rate, peer, desc, rdesc


def _end(m: re.Match, at: int, where: str, lineno: int, problems: list[str]
         ) -> tuple[str, int, int, int] | None:
    kind, lid, port, guid = m.group(at), m.group(at + 1), m.group(at + 2), m.group(at + 3)
    if kind not in _KIND:
        problems.append(f"{where}:{lineno}: node type {kind} (expected SW, CA or RT)")
        return None
    lv, pv = dec(lid, MAX_LID), dec(port, MAX_PORTS)
    if lv is None:
        problems.append(f"{where}:{lineno}: lid {show(lid)} is not a unicast LID (0-{MAX_LID})")
        return None
    if not pv:
        problems.append(f"{where}:{lineno}: port {show(port)} is out of range (1-{MAX_PORTS})")
        return None
    digits = guid.lstrip("0")
    if len(digits) > 16 or int(guid, 16) == 0:
        problems.append(f"{where}:{lineno}: port GUID 0x{show(guid)} is not a 64-bit GUID (nor 0)")
        return None
    return _KIND[kind], lv, pv, int(guid, 16)


def parse(text: str, where: str = "<text>") -> tuple[Topology, list[str]]:
    """The nodes and links of a ports report; (topology with GUIDs set, problems)."""
    problems: list[str] = []
    rows: list[_Row] = []
    for lineno, raw in enumerate(lines_of(text.removeprefix("\ufeff")), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if m is None:
            problems.append(f"{where}:{lineno}: expected an ibnetdiscover -p port line "
                            f"(SW|CA lid port 0xguid width speed …), got: {line[:120]}")
            continue
        local = _end(m, 1, where, lineno, problems)
        peer = _end(m, 7, where, lineno, problems) if m.group(7) else None
        if local is None or (m.group(7) and peer is None):
            continue
        try:
            rate: LinkRate | None = LinkRate.parse(f"{m.group(5)}{m.group(6)}")
        except FabricError:
            rate = None                     # "???" or a speed we do not model: unknown
        desc = m.group(11) if m.group(11) is not None else m.group(13)
        rows.append(_Row(lineno, local[0], local[1], local[2], local[3], rate, peer, desc or "",
                         m.group(12) or ""))
    return _build(rows, where, problems), problems


def _node_guid(kind: str, port_guid: int, port: int) -> int:
    return port_guid if kind == "Switch" else port_guid - port


def _build(rows: list[_Row], where: str, problems: list[str]) -> Topology:
    nodes: dict[str, Node] = {}
    owner: dict[tuple[str, int], str] = {}          # (kind, port GUID) -> node id
    prev: _Row | None = None
    current: Node | None = None
    for r in rows:
        same = (prev is not None and current is not None and r.kind == prev.kind and r.kind != "Switch"
                and r.desc == prev.desc and r.port < prev.port)
        if r.kind == "Switch":
            nid = f"S-{r.guid:016x}"
        elif same and current is not None:
            nid = current.id
        else:
            g = _node_guid(r.kind, r.guid, r.port)
            nid = f"{_PREFIX[r.kind]}-{g:016x}"
        node = nodes.get(nid)
        if node is None:
            node = nodes[nid] = Node(r.line, r.kind, r.port, nid, r.desc.strip(), raw_desc=r.desc,
                                     guid=int(nid[2:], 16))
            if r.kind == "Switch":
                node.lid = r.lid
        elif r.kind != "Switch" and not same:
            problems.append(f"{where}:{r.line}: node {nid} listed again (first at line {node.line})")
        node.nports = max(node.nports, r.port)
        if r.kind != "Switch":
            node.port_guids[r.port] = r.guid
        owner[(r.kind, r.guid)] = nid
        prev, current = r, node
    for r in rows:
        if r.peer is None:
            continue
        node = nodes[owner[(r.kind, r.guid)]]
        kind, rlid, rport, rguid = r.peer
        rid = owner.get((kind, rguid))
        if rid is None:                     # a peer without lines of its own: built from this one
            rid = f"{_PREFIX[kind]}-{_node_guid(kind, rguid, rport):016x}"
            peer = nodes.get(rid)
            if peer is None:
                peer = nodes[rid] = Node(r.line, kind, rport, rid, r.rdesc.strip(), raw_desc=r.rdesc,
                                         guid=int(rid[2:], 16), inferred=True)
                if kind == "Switch":
                    peer.lid = rlid
            peer.nports = max(peer.nports, rport)
            if kind != "Switch":
                peer.port_guids[rport] = rguid
        if r.port in node.links:
            problems.append(f'{where}:{r.line}: port {r.port} of "{node.id}" listed twice '
                            f"(also line {node.links[r.port].line})")
            continue
        node.links[r.port] = Link(r.line, r.port, rid, rport,
                                  port_guid=r.guid if r.kind != "Switch" else None,
                                  rguid=rguid if kind != "Switch" else None,
                                  lid=r.lid if r.kind != "Switch" and r.lid else None,
                                  rlid=rlid or None, rate=r.rate, rdesc=r.rdesc)
    out = list(nodes.values())
    for n in out:
        if n.type != "Switch" and any(not 0 < g <= MAX_GUID for g in (n.guid,)):
            problems.append(f'{where}:{n.line}: port GUID of "{n.id}" is below its port number '
                            "(no node GUID can be derived)")
    return Topology(out, [])


def check(text: str, where: str = "<text>") -> list[str]:
    return problems_of(parse(text, where), where)


def loads(text: str, where: str = "<text>", name: str | None = None) -> Fabric:
    return loads_parsed(parse(text, where), where, FORMAT, name)


def load(path: str | os.PathLike[str]) -> Fabric:
    return load_text_file(path, loads)


def sniff(text: str) -> bool:
    """True when the first line that is no comment is a ports-report line."""
    line = first_line(text)
    return line is not None and LINE.match(line) is not None
