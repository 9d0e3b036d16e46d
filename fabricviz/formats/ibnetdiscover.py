"""ibnetdiscover topology files: import (also ibsim net files) and export.

ibnetdiscover (infiniband-diags) prints one block per node: ``vendid=``/``devid=``/
``sysimgguid=``/``switchguid=``/``caguid=`` lines, a ``Switch|Ca|Rt <ports> "<id>" # "<desc>"``
header and one ``[port] "<remote id>"[remote port]`` line per connected port, every link twice
(once from each end). ibsim reads the same grammar (plus ``Hca``, GUID counters, links listed from
one side). Both are parsed here into plain records, checked as a whole (one line per problem with
its line number), then built into a new :class:`Fabric` only when nothing is wrong.

Export writes real ibnetdiscover syntax (the printf formats of ibnetdiscover.c), which is also valid
ibsim input, so any fabricviz design can run under the real OpenSM.

NodeDescriptions are kept byte for byte: a device name is one line with single spaces, so when a
description differs from the name the import gives its device, the verbatim text goes into
``meta["node_descriptions"]`` (node GUID → [device name, description]) and export writes it back
for as long as the device keeps that name.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..ib.sharp import SHARP_PART
from ..model import Fabric, FabricError, LinkRate
from ..model.guid import format_guid
from ..model.inputs import MAX_INPUT_BYTES, read_input_text
from ..model.names import escape_name
from .ibnetdiscover_grammar import (
    ASSIGN,
    GUID_KEYS,
    HDR,
    HDR_LOOSE,
    ID_GUID,
    LOCAL_LID,
    MAX_GUID,
    MAX_LID,
    MAX_LMC,
    MAX_PORTS,
    MAX_WIDTH,
    PORT,
    RATE,
    SHARP_DESC,
    SHARP_NOTES,
    SW_LID,
    UNSUPPORTED,
    Link,
    Node,
    Topology,
    dec,
    guid_value,
    hex_guid,
    lines_of,
    show,
)
from .ibsim_guids import assign_ibsim_guids

FORMAT = "ibnetdiscover"

def _lid_problem(where: str, lineno: int, lid: str, lmc: str | None = None) -> str | None:
    if dec(lid, MAX_LID) is None:
        return f"{where}:{lineno}: lid {show(lid)} is not a unicast LID (0-{MAX_LID}, 0 = not assigned)"
    if lmc is not None and dec(lmc, MAX_LMC) is None:
        return f"{where}:{lineno}: lmc {show(lmc)} is out of range (0-{MAX_LMC})"
    return None


def _desc_and_rest(rest: str) -> tuple[str, str]:
    """Split ``# "desc" enhanced port 0 lid 3 lmc 0`` into desc and what follows (ibsim rules)."""
    i = rest.find("#")
    if i < 0:
        return "", rest
    s = rest[i + 1:].lstrip()
    if s.startswith('"'):
        end = s.find('"', 1)
        return (s[1:], "") if end < 0 else (s[1:end], s[end + 1:])
    for stop in (" enhanced port ", " base port ", " lid ", " lmc "):
        j = s.find(stop)
        if j >= 0:
            return s[:j].rstrip(), s[j:]
    return s.rstrip(), ""


_QUOTED = re.compile(r'"([^"]*)"')
_KIND_OF_ID = {"S": "Switch", "H": "Ca", "R": "Rt"}


def add_unlisted_peers(topo: Topology) -> None:
    """A node that link lines name but no block defines (``ibnetdiscover -S``, a discovery cut
    short, a file of switch blocks only): built from those lines when its id is an S-/H-/R- GUID
    id, with the highest port number they name as its port count, their quoted NodeDescription
    and LID; its port GUIDs come from the ``(…)`` the lines print. Other unknown ids stay refused."""
    known = {n.id for n in topo.nodes}
    new: dict[str, Node] = {}
    for n in topo.nodes:
        if n.bad:
            continue
        for ln in n.links.values():
            if ln.rid in known or ID_GUID.match(ln.rid) is None:
                continue
            peer = new.get(ln.rid)
            if peer is None:
                desc = ln.rdesc or ""
                peer = new[ln.rid] = Node(ln.line, _KIND_OF_ID[ln.rid[0]], 0, ln.rid, desc.strip(),
                                          raw_desc=desc, inferred=True)
            peer.nports = max(peer.nports, ln.rport)
            if peer.type == "Switch" and peer.lid is None and ln.rlid:
                peer.lid = ln.rlid
    topo.nodes.extend(new.values())


def _parse_link(m: re.Match, lineno: int, node: Node, where: str, problems: list[str]) -> Link | None:
    rid = m.group(3)
    port = dec(m.group(1), MAX_PORTS)
    rport = dec(m.group(4), MAX_PORTS) if m.group(4) is not None else 1
    if port is None or port < 1:
        problems.append(f'{where}:{lineno}: port {show(m.group(1))} of "{node.id}" is out of range '
                        f"1-{min(node.nports, MAX_PORTS)}")
        return None
    if rport is None or rport < 1:
        problems.append(f'{where}:{lineno}: bad remote port {show(m.group(4))} of "{rid}" (1-{MAX_PORTS})')
        return None
    link = Link(lineno, port, rid, rport)
    try:
        if m.group(2):
            link.port_guid = hex_guid(m.group(2))
        if m.group(5):
            link.rguid = hex_guid(m.group(5))
    except ValueError:
        problems.append(f"{where}:{lineno}: bad port GUID (64-bit hex) in: {m.group(0).strip()[:120]}")
        return None
    rest = m.group(6)
    hash_at = rest.find("#")
    opts, comment = (rest, "") if hash_at < 0 else (rest[:hash_at], rest[hash_at + 1:])
    w = re.search(r"\bw=(\d+)", opts)
    if w:
        # ibsim documents w=(1|4|12) as the link width; taken as a lane count here
        link.width_opt = dec(w.group(1), MAX_WIDTH)
        if not link.width_opt:
            problems.append(f"{where}:{lineno}: bad width w={show(w.group(1))} (use 1, 4 or 12)")
            return None
    if node.type != "Switch":
        lm = LOCAL_LID.match(comment)
        if lm:
            bad = _lid_problem(where, lineno, lm.group(1), lm.group(2))
            if bad:
                problems.append(bad)
                return None
            link.lid, link.lmc = int(lm.group(1)), int(lm.group(2))
    q = _QUOTED.search(comment)
    if q is not None:
        link.rdesc = q.group(1)
    tail = comment[comment.rfind('"') + 1:] if '"' in comment else comment
    rates = list(RATE.finditer(tail))
    rm = rates[-1] if rates else None               # the last rate in the comment
    if rm is not None and (node.type == "Switch" or link.lid is None or '"' in comment):
        bad = _lid_problem(where, lineno, rm.group(1))
        if bad:
            problems.append(bad)
            return None
        link.rlid = int(rm.group(1))
        if rm.group(2):
            try:
                link.rate = LinkRate.parse(f"{rm.group(2)}x{rm.group(3)}")
            except FabricError:
                link.rate = None  # "???" or a width/speed we do not model: rate unknown
    if link.rate is None and link.width_opt:
        try:
            link.rate = LinkRate.parse(f"{link.width_opt}xSDR")
        except FabricError:
            problems.append(f"{where}:{lineno}: bad width w={link.width_opt} (use 1, 4 or 12)")
            return None
    if port > node.nports:
        problems.append(f'{where}:{lineno}: port {port} of "{node.id}" is out of range '
                        f"1-{node.nports}")
        return None
    if port in node.links:
        problems.append(f'{where}:{lineno}: port {port} of "{node.id}" listed twice '
                        f"(also line {node.links[port].line})")
        return None
    return link


def parse(text: str, where: str = "<text>") -> tuple[Topology, list[str]]:
    """Read the node blocks of ibnetdiscover output or an ibsim net file; (topology, problems)."""
    problems: list[str] = []
    nodes: list[Node] = []
    events: list[tuple[int, str, int, bool]] = []
    pending: dict[str, int] = {}
    node: Node | None = None
    uses_hca = False
    if text.startswith("\ufeff"):
        text = text[1:]          # a UTF-8 byte-order mark: not part of line 1
    for lineno, raw in enumerate(lines_of(text), 1):
        line = raw.strip()
        if not line:
            node = None
            continue
        if line.startswith("#"):
            continue
        if line.startswith("["):
            m = PORT.match(line)
            if node is None:
                problems.append(f"{where}:{lineno}: port line outside a node block: {line[:120]}")
            elif node.bad:
                pass                 # its header is refused already
            elif m is None:
                problems.append(f'{where}:{lineno}: expected [port] "node"[port], got: {line[:120]}')
            else:
                link = _parse_link(m, lineno, node, where, problems)
                if link is not None:
                    node.links[link.port] = link
            continue
        if line.startswith("@"):
            problems.append(f"{where}:{lineno}: ibsim port aliases (@) are not supported")
            continue
        m = HDR.match(line)
        if m:
            kind = {"Hca": "Ca"}.get(m.group(1), m.group(1))
            uses_hca |= m.group(1) == "Hca"
            nports = dec(m.group(2), MAX_PORTS)
            desc, rest = _desc_and_rest(m.group(4))
            node = Node(lineno, kind, nports or 0, m.group(3), desc.strip(), raw_desc=desc)
            if kind in pending:
                node.guid_line = pending.pop(kind)
            if not m.group(3):
                problems.append(f"{where}:{lineno}: empty node id")
                node.bad = True
            elif not nports:
                # checked before anything is sized by it: "Hca 100000000" must cost nothing
                problems.append(f"{where}:{lineno}: {kind} with {show(m.group(2))} ports (1-{MAX_PORTS})")
                node.bad = True
            if kind == "Switch":
                lm = SW_LID.search(rest)
                if lm:
                    bad = _lid_problem(where, lineno, lm.group(1), lm.group(2))
                    if bad:
                        problems.append(bad)
                        node.bad = True
                    else:
                        node.lid = int(lm.group(1))
                        node.lmc = int(lm.group(2)) if lm.group(2) else None
            nodes.append(node)
            continue
        if HDR_LOOSE.match(line):
            problems.append(f'{where}:{lineno}: expected {line.split()[0]} <ports> "<id>", got: {line[:120]}')
            node = None
            continue
        a = ASSIGN.match(line)
        if a:
            key, op, value = a.groups()
            if key in UNSUPPORTED:
                problems.append(f"{where}:{lineno}: ibsim '{key}' lines are not supported")
            elif key in GUID_KEYS:
                vm = re.match(r"(0[xX][0-9a-fA-F]+|\d+)", value)
                guid = guid_value(vm.group(1)) if vm is not None else None
                if guid is None:
                    problems.append(f"{where}:{lineno}: bad GUID (a 64-bit number) in: {line[:120]}")
                else:
                    events.append((lineno, GUID_KEYS[key], guid, op == "+"))
                    pending[GUID_KEYS[key]] = len(events) - 1
            node = None
            continue
        node = None  # banners such as "Non-Chassis Nodes" end a block, as in ibsim
    return Topology(nodes, events, uses_hca), problems


# ---------------------------------------------------------------------------- checking
def _assign_file_guids(topo: Topology, where: str, problems: list[str]) -> None:
    """ibnetdiscover GUIDs: the switchguid=/caguid= line of the block, else the S-/H-/R- id.

    A CA port GUID comes from its own line, else from the ``(…)`` a switch line prints for it,
    else it is the node GUID + port number (ConnectX numbering, and ibsim's).
    """
    seen_from_peer = {(ln.rid, ln.rport): ln.rguid for n in topo.nodes for ln in n.links.values() if ln.rguid}
    for n in topo.nodes:
        if n.bad:
            continue
        if n.guid_line is not None:
            n.guid = topo.guid_events[n.guid_line][2]
        else:
            m = ID_GUID.match(n.id)
            if m is None:
                problems.append(f'{where}:{n.line}: no GUID for "{n.id}" (add a '
                                f"{'switchguid' if n.type == 'Switch' else n.type.lower() + 'guid'}= line)")
                continue
            n.guid = hex_guid(m.group(1))
        if n.guid == 0:
            # GUID 0 means "none" in InfiniBand (and in a saved design): no real node has it
            problems.append(f'{where}:{n.line if n.guid_line is None else topo.guid_events[n.guid_line][0]}: '
                            f'GUID 0 for "{n.id}" (a node GUID is never 0)')
            continue
        if n.type != "Switch" and n.guid + n.nports > MAX_GUID:
            problems.append(f'{where}:{n.line}: GUID {format_guid(n.guid)} of "{n.id}" leaves no room for '
                            f"its {n.nports} port GUID(s) (node GUID + port number, 64 bits)")
            continue
        if n.type != "Switch":
            for p in range(1, n.nports + 1):
                link = n.links.get(p)
                own = link.port_guid if link is not None else None
                n.port_guids[p] = own or seen_from_peer.get((n.id, p)) or n.guid + p


def _resolve(topo: Topology, where: str, problems: list[str]) -> list[tuple[Node, int, Node, int, LinkRate | None]]:
    """Check ids and links; return each link once: (node a, port a, node b, port b, rate)."""
    by_id: dict[str, Node] = {}
    for n in topo.nodes:
        if n.id in by_id:
            problems.append(f'{where}:{n.line}: node "{n.id}" defined twice (first at line {by_id[n.id].line})')
        else:
            by_id[n.id] = n
    claims: dict[tuple[str, int], tuple[Node, Link]] = {}
    links = []
    for n in topo.nodes:
        if by_id.get(n.id) is not n or n.bad:
            continue
        for p, ln in sorted(n.links.items()):
            r = by_id.get(ln.rid)
            if r is None:
                problems.append(f'{where}:{ln.line}: link to unknown node "{ln.rid}"')
                continue
            if r.bad:
                continue          # its header is refused already
            if ln.rport > r.nports:
                problems.append(f'{where}:{ln.line}: "{r.id}"[{ln.rport}]: no such port '
                                f'("{r.id}" has {r.nports} ports)')
                continue
            if r is n:
                problems.append(f'{where}:{ln.line}: port {p} of "{n.id}" is linked to its own port {ln.rport}')
                continue
            back = r.links.get(ln.rport)
            if back is not None:
                if back.rid != n.id or back.rport != p:
                    problems.append(f'{where}:{ln.line}: "{n.id}"[{p}] -> "{r.id}"[{ln.rport}] but line '
                                    f'{back.line} says "{r.id}"[{ln.rport}] -> "{back.rid}"[{back.rport}]')
                    continue
                if (r.line, ln.rport, r.id) < (n.line, p, n.id):
                    continue  # listed from both ends: keep the first listing (ids break a tie)
            else:
                other = claims.get((r.id, ln.rport))
                if other is not None:
                    problems.append(f'{where}:{ln.line}: "{r.id}"[{ln.rport}] is also linked from '
                                    f'"{other[0].id}"[{other[1].port}] at line {other[1].line}')
                    continue
                claims[(r.id, ln.rport)] = (n, ln)
            rate = ln.rate
            if back is not None and back.rate is not None:
                # the two ends disagree only in edited files; a link comes up at what both support
                rate = back.rate if rate is None else rate.negotiate(back.rate)
            links.append((n, p, r, ln.rport, rate))
    return links


def check_ibnetdiscover(text: str, where: str = "<text>", dialect: str = FORMAT) -> list[str]:
    """Every problem of an ibnetdiscover (or ibsim, ``dialect="ibsim"``) file, one line each."""
    return _analyse(text, where, dialect)[2]


def _analyse(text: str, where: str, dialect: str):
    # deliberately imported on use: _ibbuild lays the fabric out (generate.autolayout loads scipy),
    # which sniff and parse never need
    from . import _ibbuild
    early = _ibbuild.prescan(text, where)      # port budget and LID space, before any record is built
    if early is not None:
        return Topology([], []), [], [early]
    topo, problems = parse(text, where)
    if dialect == "ibsim":
        assign_ibsim_guids(topo, where, problems)
    else:
        add_unlisted_peers(topo)
        _assign_file_guids(topo, where, problems)
    return (topo, *check_topology(topo, where, problems))


def check_topology(topo: Topology, where: str, problems: list[str]) -> tuple[list, list[str]]:
    """The checks every topology reader shares, once each node has its GUIDs: links resolved
    (each once), the LID space, GUIDs used twice; (links, problems sorted by line)."""
    from . import _ibbuild
    links = _resolve(topo, where, problems)
    if not problems:
        _ibbuild.check_lid_space(topo, links, where, problems)
    if not topo.nodes and not problems:
        problems.append(f"{where}: no Switch, Ca or Hca block found (not an ibnetdiscover or ibsim file)")
    seen: dict[int, Node] = {}
    for n in topo.nodes:
        ports = () if n.type == "Switch" else (n.port_guids.get(p, n.guid + p) for p in range(1, n.nports + 1))
        for g in {n.guid, *ports} - {0}:       # a CA port not listed gets node GUID + port
            if g in seen and seen[g] is not n:
                problems.append(f'{where}:{n.line}: GUID {format_guid(g)} of "{n.id}" is already used by '
                                f'"{seen[g].id}" (line {seen[g].line})')
            seen.setdefault(g, n)
    problems.sort(key=_line_of)
    return links, problems


def _line_of(problem: str) -> int:
    m = re.match(r"^.*?:(\d+): ", problem)
    return int(m.group(1)) if m else 0


# ---------------------------------------------------------------------------- loading
def load(path: str | os.PathLike[str]) -> Fabric:
    """Load ibnetdiscover output; FabricError with the first problem (``file:line: why``)."""
    return load_path(path, FORMAT)


def loads(text: str, where: str = "<text>", dialect: str = FORMAT, name: str | None = None) -> Fabric:
    """Build a new Fabric from ibnetdiscover (or ibsim) text; nothing is returned half-built."""
    topo, links, problems = _analyse(text, where, dialect)
    from ._ibhosts import system_image_guids
    return build_checked(topo, links, problems, where, dialect, name, system_image_guids(text))


def build_checked(topo: Topology, links: list, problems: list[str], where: str, fmt: str,
                  name: str | None = None, system_guids: dict[int, int] | None = None) -> Fabric:
    """The Fabric of a checked topology (any reader's), or FabricError with its first problem;
    ``system_guids`` (header line → sysimgguid) groups adapters into servers with their host names."""
    if problems:
        raise FabricError(problems[0])
    from . import _ibbuild  # on use, as in _analyse
    f = _ibbuild.build_fabric(topo, links, where, fmt, name or Path(where).stem, system_guids)
    keep_descriptions(f, topo)
    return f


def loads_parsed(parsed: tuple[Topology, list[str]], where: str, fmt: str, name: str | None = None) -> Fabric:
    """The Fabric of a reader's (topology with GUIDs, problems), checked as every reader is."""
    topo, problems = parsed
    links, problems = check_topology(topo, where, problems)
    return build_checked(topo, links, problems, where, fmt, name)


def problems_of(parsed: tuple[Topology, list[str]], where: str) -> list[str]:
    """Every problem of a reader's (topology with GUIDs, problems), one line each."""
    return check_topology(parsed[0], where, parsed[1])[1]


def first_line(text: str, comment: str = "#") -> str | None:
    """The first line that is neither blank nor a comment, stripped and cut at 4,096 characters:
    what the sniffers of the discovery formats look at."""
    for raw in lines_of(text.removeprefix("\ufeff")):
        line = raw.strip()
        if line and not line.startswith(comment):
            return line[:4096]
    return None


def load_text_file(path: str | os.PathLike[str], loads_text) -> Fabric:
    """``loads_text(text, where, name)`` on the file at ``path``; an unreadable file is one line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise FabricError(f"{p}: cannot read ({e.strerror})") from None
    return loads_text(text, str(p), p.name.split(".")[0] or p.name)


def keep_descriptions(f: Fabric, topo: Topology) -> None:
    """Record the NodeDescriptions export would not give back from the device names (repeated,
    leading or trailing spaces, tabs) in ``meta["node_descriptions"]``; see the module doc."""
    by_guid = {int(g): int(d) for d, g in zip(f.device_ids().tolist(),
                                              f.devices_t.guid[f.device_ids()].tolist(), strict=True) if g}
    kept: dict[str, tuple[str, str]] = {}
    for n in topo.nodes:
        d = by_guid.get(n.guid)
        # no description: the node id stands for it (ibsim names such nodes by their id too)
        raw = escape_name(n.raw_desc)    # control / bidi characters never stored raw (model.names)
        if d is not None and raw and node_description(f, d) != raw:
            kept[format_guid(n.guid)] = (f.name_of(d), raw)
    if kept:
        f.settings.set_node_descriptions(kept)


def load_path(path: str | os.PathLike[str], dialect: str) -> Fabric:
    p = Path(path)
    text = read_input_text(p, MAX_INPUT_BYTES, "a topology file")
    return loads(text, str(p), dialect, name=escape_name(p.name.split(".")[0] or p.name))


def sniff(text: str) -> str | None:
    """``"ibnetdiscover"``, ``"ibsim"`` or None: which topology dialect ``text`` is written in.

    ibsim when it uses the ``Hca`` keyword or a node has neither a GUID line nor an S-/H-/R- id
    (ibsim then numbers GUIDs itself); ibnetdiscover otherwise.
    """
    # the headers and GUID lines of :func:`parse`, without reading the port lines (the bulk of a
    # big file, which load then parses once)
    if text.startswith("\ufeff"):
        text = text[1:]
    pending: set[str] = set()
    found = False
    for raw in lines_of(text):
        line = raw.strip()
        if not line or line[0] in "#[@":
            continue
        m = HDR.match(line)
        if m:
            found = True
            kind = {"Hca": "Ca"}.get(m.group(1), m.group(1))
            if m.group(1) == "Hca":
                return "ibsim"
            if kind in pending:
                pending.discard(kind)
            elif not ID_GUID.match(m.group(3)):
                return "ibsim"
            continue
        if HDR_LOOSE.match(line):
            continue
        a = ASSIGN.match(line)
        if a and a.group(1) in GUID_KEYS:
            vm = re.match(r"(0[xX][0-9a-fA-F]+|\d+)", a.group(3))
            if vm is not None and guid_value(vm.group(1)) is not None:
                pending.add(GUID_KEYS[a.group(1)])
    return FORMAT if found else None


# ---------------------------------------------------------------------------- export
from .ibnetdiscover_export import export_ibnetdiscover, node_description, save_ibnetdiscover  # noqa: E402,F401

__all__ = ["load", "loads", "check_ibnetdiscover", "export_ibnetdiscover", "save_ibnetdiscover",
           "sniff", "parse", "Topology", "Node", "Link", "SHARP_PART", "SHARP_DESC", "SHARP_NOTES"]
