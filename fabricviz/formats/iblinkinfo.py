"""``iblinkinfo`` output (infiniband-diags): every port of every node with its active width,
speed, state and physical state; import only.

Two layouts, both read here (``print_port`` in iblinkinfo.c)::

    CA: MT23108 InfiniHost Mellanox Technologies:
          0x0008f10403960985     16    1[  ] ==( 4X   2.5 Gbps Active/  LinkUp)==>   3    6[  ] "SW-6IB4 Voltaire" ( )
    Switch: 0x0008f10400410015 SW-6IB4 Voltaire:
               3    2[  ] ==(                Down/ Polling)==>             [  ] "" ( )

and ``iblinkinfo -l``, one line per port with the node GUID (a CA: the port GUID) and
description in front and the peer's port GUID after the arrow. A CA line carries its port GUID, a
switch line its switch's LID; in the block layout the peer is named by LID and port only, so a
peer is found by (LID, port) there and by (port GUID, port) with ``-l``; in ``-l`` a GUID listed
with several ports is a switch. A CA's node GUID is its port GUID less the port number (ConnectX
and ibsim numbering), as iblinkinfo does not print it.

The design gets the links, each port's active rate (width and speed) and, for a port whose
physical state is Disabled, the port state ``disabled`` (the one port state a design keeps: the
others are the subnet manager's, set when it brings links up). :func:`read_ports` gives every
port line as a typed :class:`PortLink`: logical and physical state, width, speed, peer.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

from ..model import PORT_STATES, Fabric, FabricError, LinkRate
from ..model.fabric import IB_SWITCH, KIND_CODE
from .ibnetdiscover import first_line, load_text_file, loads_parsed, problems_of
from .ibnetdiscover_grammar import MAX_GUID, MAX_LID, MAX_PORTS, Link, Node, Topology, dec, lines_of, show

FORMAT = "iblinkinfo"

_LINK = (r"(\d+)\s+(\d+)\[[^\]]*\]\s+==\((.*?)\)==>\s*(?:0x([0-9a-fA-F]+)\s+)?(?:(\d+)\s+(\d+))?"
         r"\[[^\]]*\]\s+\"(.*)\"\s+\((.*)\)\s*$")
CA_HDR = re.compile(r"^(CA|Router):\s*(.*?):?\s*$")
SW_HDR = re.compile(r"^Switch:\s*0x([0-9a-fA-F]+)\s*(.*?):?\s*$")
CA_PORT = re.compile(rf"^0x([0-9a-fA-F]+)\s+{_LINK}")
SW_PORT = re.compile(rf"^{_LINK}")
LONG = re.compile(rf"^0x([0-9a-fA-F]+)\s+\"(.*?)\"\s+{_LINK}")
STATE = re.compile(r"^\s*(?:(\d+)X\s+([\d.]+)\s*Gbps(?:\s*\((FDR10)\))?\s+)?(\w+)/\s*(\w+)\s*$")
#: lane speed printed (Gb/s) -> InfiniBand speed name (libibmad mad_dump_linkspeed/…ext)
SPEEDS = {"2.5": "SDR", "5.0": "DDR", "10.0": "QDR", "14.0625": "FDR", "25.78125": "EDR",
          "53.125": "HDR", "106.25": "NDR", "212.5": "XDR"}


@dataclass(frozen=True, slots=True)
class PortLink:
    """One port line of iblinkinfo."""

    line: int
    switch: bool
    guid: int            # switch: node GUID; CA: port GUID
    lid: int
    port: int
    desc: str
    width: int | None    # active lanes (None when the port is down)
    speed: str | None    # InfiniBand speed name, None when down or unknown
    state: str           # Active, Armed, Initialize, Down (as printed)
    phys: str            # LinkUp, Polling, Disabled, … (as printed)
    peer_guid: int | None
    peer_lid: int | None
    peer_port: int | None
    peer_desc: str

    @property
    def rate(self) -> LinkRate | None:
        if self.width is None or self.speed is None:
            return None
        try:
            return LinkRate.parse(f"{self.width}x{self.speed}")
        except FabricError:
            return None


def read_ports(text: str, where: str = "<text>") -> tuple[list[PortLink], list[str]]:
    """Every port line (either layout); (ports, problems)."""
    problems: list[str] = []
    out: list[PortLink] = []
    block: tuple[bool, int | None, str] | None = None      # (switch, switch GUID, desc)
    for lineno, raw in enumerate(lines_of(text.removeprefix("\ufeff")), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = SW_HDR.match(line)
        if m:
            g = _guid(m.group(1))
            block = (True, g, m.group(2)) if g else None
            if not g:
                problems.append(f"{where}:{lineno}: switch GUID 0x{show(m.group(1))} is not a 64-bit GUID")
            continue
        m = CA_HDR.match(line)
        if m and not line.startswith("0x"):
            block = (False, None, m.group(2))
            continue
        lm = LONG.match(line)
        if lm:
            port = _port(lm, 3, lm.group(1), None, lm.group(2), lineno, where, problems)
        elif block is not None and (m := (SW_PORT if block[0] else CA_PORT).match(line)):
            if block[0]:
                port = _port(m, 1, None, block, block[2], lineno, where, problems)
            else:
                port = _port(m, 2, m.group(1), block, block[2], lineno, where, problems)
        else:
            problems.append(f"{where}:{lineno}: expected an iblinkinfo port line "
                            f"(lid port[ ] ==( … )==> …) or a CA:/Switch: header, got: {line[:120]}")
            continue
        if port is not None:
            out.append(port)
    # -l lines do not say the node type: a GUID with several port lines is a switch
    count: dict[int, int] = {}
    for p in out:
        count[p.guid] = count.get(p.guid, 0) + 1
    return [p if p.switch or count[p.guid] < 2 else _as_switch(p) for p in out], problems


def _guid(text: str) -> int | None:
    digits = text.lstrip("0")
    if len(digits) > 16 or not digits:
        return None
    v = int(digits, 16)
    return v if v <= MAX_GUID else None


def _port(m: re.Match, at: int, guid_text: str | None, block: tuple[bool, int | None, str] | None,
          desc: str, lineno: int, where: str, problems: list[str]) -> PortLink | None:
    g = m.group
    lid, port = dec(g(at), MAX_LID), dec(g(at + 1), MAX_PORTS)
    if lid is None or not port:
        problems.append(f"{where}:{lineno}: lid {show(g(at))} port {show(g(at + 1))} out of range "
                        f"(lid 0-{MAX_LID}, port 1-{MAX_PORTS})")
        return None
    st = STATE.match(g(at + 2))
    if st is None:
        problems.append(f"{where}:{lineno}: expected ( width speed Gbps state/ physical state ), got: "
                        f"({g(at + 2)[:60]})")
        return None
    width = dec(st.group(1), 12) if st.group(1) else None
    speed = "FDR10" if st.group(3) else SPEEDS.get(st.group(2) or "")
    guid = _guid(guid_text) if guid_text is not None else (block[1] if block else None)
    rguid = _guid(g(at + 3)) if g(at + 3) else None
    rlid = dec(g(at + 4), MAX_LID) if g(at + 4) else None
    rport = dec(g(at + 5), MAX_PORTS) if g(at + 5) else None
    if guid is None or (g(at + 3) and rguid is None):
        problems.append(f"{where}:{lineno}: a GUID here is not a 64-bit GUID (nor 0)")
        return None
    if (g(at + 4) and rlid is None) or (g(at + 5) and not rport):
        problems.append(f"{where}:{lineno}: peer lid {show(g(at + 4))} port {show(g(at + 5) or '')} "
                        f"out of range")
        return None
    switch = block[0] if block is not None and guid_text is None else False
    return PortLink(lineno, switch, guid, lid, port, desc.strip(), width, speed, st.group(4), st.group(5),
                    rguid, rlid, rport, g(at + 6))


def _topology(ports: list[PortLink], where: str, problems: list[str]) -> Topology:
    """Nodes and links from the port lines (see the module doc for how peers are found)."""
    nodes: dict[str, Node] = {}
    node_of: dict[int, Node] = {}           # index in ports -> node
    by_lid: dict[tuple[int, int], int] = {}
    by_guid: dict[tuple[int, int], int] = {}
    for i, p in enumerate(ports):
        g = p.guid if p.switch else p.guid - p.port
        nid = f"{'S' if p.switch else 'H'}-{g:016x}"
        if g <= 0:
            problems.append(f"{where}:{p.line}: port GUID {p.guid:#x} is below its port number "
                            "(no node GUID can be derived)")
            continue
        n = nodes.get(nid)
        if n is None:
            n = nodes[nid] = Node(p.line, "Switch" if p.switch else "Ca", p.port, nid, p.desc, raw_desc=p.desc,
                                  guid=g, lid=p.lid if p.switch else None)
        n.nports = max(n.nports, p.port)
        if not p.switch:
            n.port_guids[p.port] = p.guid
        node_of[i] = n
        if (p.lid, p.port) in by_lid:
            by_lid[(p.lid, p.port)] = -1     # ambiguous (LIDs not assigned)
        else:
            by_lid[(p.lid, p.port)] = i
        by_guid[(p.guid, p.port)] = i
    for i, p in enumerate(ports):
        n = node_of.get(i)
        if n is None or p.peer_port is None or p.state == "Down":
            continue
        j = (by_guid.get((p.peer_guid, p.peer_port)) if p.peer_guid is not None
             else by_lid.get((p.peer_lid or 0, p.peer_port)))
        if j is None or j < 0 or j not in node_of:
            problems.append(f"{where}:{p.line}: peer {'ambiguous' if j == -1 else 'not listed'}: lid "
                            f"{p.peer_lid} port {p.peer_port} \"{p.peer_desc[:60]}\""
                            f"{' (LIDs not assigned?)' if j == -1 else ' (iblinkinfo of part of the fabric?)'}")
            continue
        r, q = node_of[j], ports[j]
        n.links[p.port] = Link(p.line, p.port, r.id, q.port, port_guid=None if p.switch else p.guid,
                               rguid=None if q.switch else q.guid, lid=None if p.switch else p.lid or None,
                               rlid=q.lid or None, rate=p.rate, rdesc=p.peer_desc)
    return Topology(list(nodes.values()), [])


def _as_switch(p: PortLink) -> PortLink:
    return PortLink(p.line, True, p.guid, p.lid, p.port, p.desc, p.width, p.speed, p.state, p.phys,
                    p.peer_guid, p.peer_lid, p.peer_port, p.peer_desc)


def parse(text: str, where: str = "<text>") -> tuple[Topology, list[str], list[PortLink]]:
    """(topology with GUIDs, problems, the port lines)."""
    ports, problems = read_ports(text, where)
    return _topology(ports, where, problems), problems, ports


def check(text: str, where: str = "<text>") -> list[str]:
    topo, problems, _ports = parse(text, where)
    return problems_of((topo, problems), where)


def loads(text: str, where: str = "<text>", name: str | None = None) -> Fabric:
    """A Fabric with the links and active rates of iblinkinfo output (disabled ports disabled)."""
    topo, problems, ports = parse(text, where)
    f = loads_parsed((topo, problems), where, FORMAT, name)
    _set_states(f, ports)
    return f


def _set_states(f: Fabric, ports: list[PortLink]) -> None:
    t, pt = f.devices_t, f.ports_t
    ids = f.device_ids()
    sw = t.kind[ids] == KIND_CODE[IB_SWITCH]
    first: dict[tuple[bool, int], int] = {}
    for d, g, s in zip(ids.tolist(), t.guid[ids].tolist(), sw.tolist(), strict=True):
        first[(bool(s), int(g))] = int(t.first_port[d])
    pids, codes = [], []
    for p in ports:
        base = first.get((p.switch, p.guid if p.switch else p.guid - p.port))
        if base is None:
            continue
        if p.phys == "Disabled":
            pids.append(base + p.port - 1)
            codes.append(PORT_STATES.index("disabled"))
    if pids:
        pt.set("state", np.array(pids, np.int64), np.array(codes, np.int8))


def load(path: str | os.PathLike[str]) -> Fabric:
    return load_text_file(path, loads)


def sniff(text: str) -> bool:
    """True when the first line that is no comment is a CA:/Switch: header or a ``-l`` port line."""
    line = first_line(text)
    return line is not None and bool(SW_HDR.match(line) or (CA_HDR.match(line) and "==(" not in line)
                                     or LONG.match(line))
