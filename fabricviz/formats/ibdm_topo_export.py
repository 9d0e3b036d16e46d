"""The ibdm topology file (ibutils' ``ibdm.topo``) written from a design, with the IBNL system
definitions it needs: what ``ibtopodiff -t``, ``ibdmchk -t`` and ``ibdiagnet -t`` read as the
specification to check a discovered fabric against.

The format (``man ibdm-topo-file``, ibutils 1.5.7; parsed by ``IBFabric::parseTopology`` in
ibdm/ibdm/Fabric.cpp): one block per system, a ``TYPE NAME`` line then one line per cabled port,
``   LOCAL-PORT -W-S-> REM-TYPE REM-NAME REM-PORT`` where the optional ``-4x-`` / ``-10G-`` parts
give the link's width and speed; an empty line ends the block, ``#`` starts a comment. Every
``TYPE`` must have an IBNL definition (``man ibdm-ibnl-file``) on ibdm's search path (its own
``ibnl`` directory plus ``$IBDM_IBNL_PATH``): the writer returns one per kind of system it used,
and :func:`save` writes them into ``<file>.ibnl.d/`` beside the topology.

Systems, so that ibdm's names of the nodes are the names a discovered fabric gives them:

* an InfiniBand switch is a system of its own, named after the device, with one node ``U1`` and
  front-panel ports ``P1``..``Pn`` (ibdm names its node ``NAME/U1``);
* a NIC whose NodeDescription reads ``HOST HCA-N`` (as ibdm expects of hosts; it names such an
  adapter ``HOST/UN`` when it reads OpenSM's ``subnet.lst``) is node ``UN`` of system ``HOST``; any
  other NIC of a server is node ``U<i+1>`` of the server's system; a NIC on its own is node ``U1`` of
  a system named after it. A system of one node has ports ``Pn``, one of several ``Uk/Pn``.

What ibdm cannot say: speeds after QDR (its grammar knows 2.5, 5 and 10 Gb/s lanes; ``SDR``,
``DDR``, ``QDR``) and widths other than 1x, 4x, 8x, 12x are written without that part (ibdm then
takes 4x and 2.5 Gb/s); names keep only characters ibdm reads in a name (a space or ``/`` becomes
``_``). Ethernet devices, GPUs and servers themselves are not IB nodes and are left out.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..model import Fabric, FabricError
from ..model.descriptions import node_description
from ..model.kinds import IB_SWITCH, NIC
from ..model.tech import TECH_IB_CODE

FORMAT = "ibdm-topo"
#: ibdm's own words for the lane speeds and widths it knows (Fabric.h char2speed/char2width).
IBDM_SPEEDS = {"SDR": "2.5", "DDR": "5", "QDR": "10"}
IBDM_WIDTHS = (1, 4, 8, 12)
HCA_DESC = re.compile(r"^(\S+) HCA-([1-9][0-9]*)$")
_NOT_IN_NAME = re.compile(r"[^-A-Za-z0-9_.:%@~\[\]*]")


@dataclass
class _System:
    name: str
    ca: bool
    nodes: dict[int, int] = field(default_factory=dict)      # node index k (Uk) -> device id
    type: str = ""

    def port(self, k: int, num: int) -> str:
        return f"P{num}" if len(self.nodes) == 1 else f"U{k}/P{num}"


@dataclass(frozen=True)
class IbdmTopology:
    """The topology text, the IBNL text of each system type it names, ibdm's name of every exported
    design port (system and front-panel port: ``leaf01/P3``, ``dgx01/U2/P1``, as ibdm's reports
    name ports) and of every exported device (its node: ``leaf01/U1``; ibdm also names a port
    ``NODE/Pn``)."""
    topo: str
    ibnl: dict[str, str]
    port_names: dict[int, str]
    node_names: dict[int, str]


def _name(text: str) -> str:
    """``text`` as a name ibdm reads (letters first, no space or slash)."""
    s = _NOT_IN_NAME.sub("_", text)
    if not s or not s[0].isalpha():
        s = "N" + s
    return s if len(s) > 1 else s + "_"


def _systems(fabric: Fabric) -> tuple[list[_System], dict[int, tuple[_System, int]]]:
    t, pt = fabric.devices_t, fabric.ports_t
    switches = fabric.device_ids(IB_SWITCH).tolist()
    nics = [int(d) for d in fabric.device_ids(NIC)
            if t.nports[d] and pt.tech[t.first_port[d]] == TECH_IB_CODE]
    systems: dict[str, _System] = {}
    where: dict[int, tuple[_System, int]] = {}

    def place(name: str, ca: bool, k: int, d: int) -> bool:
        s = systems.get(name)
        if s is None:
            s = systems[name] = _System(name, ca)
        elif not s.ca or not ca or k in s.nodes:
            return False
        s.nodes[k] = d
        where[d] = (s, k)
        return True

    def own(d: int, ca: bool) -> None:
        name = _name(fabric.name_of(d))
        if not place(name, ca, 1, d):
            place(f"{name}_{int(t.guid[d]):016x}", ca, 1, d)

    for d in switches:
        own(d, False)
    for d in nics:
        m = HCA_DESC.match(node_description(fabric, d))
        parent = int(t.parent[d])
        if m and place(_name(m.group(1)), True, int(m.group(2)), d):
            continue
        if parent >= 0 and place(_name(fabric.name_of(parent)), True, int(t.local[d]) + 1, d):
            continue
        own(d, True)
    return sorted(systems.values(), key=lambda s: s.name), where


def _ibnl_body(fabric: Fabric, s: _System) -> str:
    t = fabric.devices_t
    out = []
    for k in sorted(s.nodes):
        d = s.nodes[k]
        n = int(t.nports[d])
        dev = _name(fabric.part_id_of(d) or ("SW" if not s.ca else "CA"))
        out.append(f"\nNODE {'CA' if s.ca else 'SW'} {n} {dev} U{k}")
        out += [f"   {i} -> {s.port(k, i)}" for i in range(1, n + 1)]
    return "\n".join(out) + "\n"


def _link_mark(fabric: Fabric, c: int) -> str:
    rate = fabric.cable_rate(c)
    mark = "-"
    if rate.width in IBDM_WIDTHS:
        mark += f"{rate.width}x-"
    if rate.speed in IBDM_SPEEDS:
        mark += f"{IBDM_SPEEDS[rate.speed]}G-"
    return mark + ">"


def export_ibdm_topo(fabric: Fabric) -> IbdmTopology:
    """The InfiniBand part of ``fabric`` as an ibdm topology and its IBNL system definitions."""
    systems, where = _systems(fabric)
    types: dict[str, str] = {}                 # type name -> IBNL body
    by_body: dict[str, str] = {}
    taken: dict[str, int] = defaultdict(int)
    for s in systems:
        body = _ibnl_body(fabric, s)
        if body not in by_body:
            part = fabric.part_id_of(s.nodes[min(s.nodes)]) or ("CA" if s.ca else "SW")
            base = _name(part + (f"-x{len(s.nodes)}" if len(s.nodes) > 1 else ""))
            taken[base] += 1
            name = base if taken[base] == 1 else f"{base}-{taken[base]}"
            by_body[body] = name
            types[name] = f"TOPSYSTEM {name}\n{body}"
        s.type = by_body[body]
    t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
    port_names: dict[int, str] = {}
    node_names = {d: f"{s.name}/U{k}" for d, (s, k) in where.items()}
    out = [f"# ibdm topology of design {_name(fabric.name)!r}, written by fabricviz",
           "# system types are defined in the IBNL files beside it (IBDM_IBNL_PATH)"]
    for s in systems:
        out += ["", f"{s.type} {s.name}"]
        for k in sorted(s.nodes):
            d = s.nodes[k]
            first = int(t.first_port[d])
            for i in range(int(t.nports[d])):
                pid = first + i
                port_names[pid] = f"{s.name}/{s.port(k, i + 1)}"
                c = int(pt.cable[pid])
                if c < 0:
                    continue
                q = int(ct.port_b[c]) if int(ct.port_a[c]) == pid else int(ct.port_a[c])
                far = where.get(int(pt.device[q]))
                if far is None:
                    continue
                rs, rk = far
                out.append(f"   {s.port(k, i + 1)} {_link_mark(fabric, c)} {rs.type} {rs.name} "
                           f"{rs.port(rk, int(pt.num[q]))}")
    return IbdmTopology("\n".join(out) + "\n", types, port_names, node_names)


def ibnl_dir(path: str | os.PathLike[str]) -> Path:
    """Where :func:`save` puts the IBNL files of the topology ``path``: ``<path>.ibnl.d``."""
    p = Path(path)
    return p.with_name(p.name + ".ibnl.d")


def save(fabric: Fabric, path: str | os.PathLike[str]) -> None:
    """Write the IBNL files into :func:`ibnl_dir` and then the topology to ``path``, each atomically;
    if the topology cannot be written, the IBNL files written for it are taken back."""
    from .native import save_text_atomic
    topo = export_ibdm_topo(fabric)
    folder = ibnl_dir(path)
    made = not folder.exists()
    written: list[Path] = []
    try:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise FabricError(f"{folder}: cannot save: {e.strerror or e}") from None
        for name, text in topo.ibnl.items():
            target = folder / f"{name}.ibnl"
            existed = target.exists()
            save_text_atomic(text, target)
            if not existed:
                written.append(target)
        save_text_atomic(topo.topo, path)
    except FabricError:
        for p in written:
            p.unlink(missing_ok=True)
        if made and folder.exists() and not any(folder.iterdir()):
            folder.rmdir()
        raise
