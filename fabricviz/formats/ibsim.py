"""ibsim net files (``ibsim -s FILE``): import with the GUIDs ibsim itself would give.

The grammar is ibnetdiscover's (parsed by :mod:`.ibnetdiscover`) plus ``Hca`` headers, node ids that
are plain names, links listed from one side only and GUID counters. Routing is compared with OpenSM
run under ibsim by GUID, so the GUIDs must be ibsim's. The rule, read in linux-rdma/ibsim
``ibsim/sim_net.c`` (``new_node``, ``init_ports``, ``parse_guidbase``; same in v0.10 and v0.12):

* one counter per node type, starting at 0x100000 for CAs (``Ca``/``Hca``), 0x200000 for switches
  and 0 for routers (``guids[]`` has no initialiser for ROUTER_NODE);
* nodes take the counter of their type in file order: a switch then advances it by 1, a CA or
  router by ``ports + 1``;
* ``switchguid=X`` / ``caguid=X`` / ``hcaguids=X`` / ``rtguid=X`` sets the base and the counter to X;
  ``switchguid+N`` (no ``=``) sets the counter to base + N;
* every switch port has the switch GUID; CA/router port N has node GUID + N (GUIDs in ``(…)`` are
  not read by ibsim).

Verified against ibsim 0.10 + OpenSM 3.3.23: net.2sw2path4hca gives Switch1 0x200000,
Switch2 0x200001, Hca1..Hca4 0x100000/0x100003/0x100006/0x100009 (port 1: +1).
"""

from __future__ import annotations

import os

from ..model import Fabric
from .ibnetdiscover import MAX_GUID, Topology, _load_path, check_ibnetdiscover, loads

FORMAT = "ibsim"
#: First GUID of each node type in ibsim (sim_net.c ``guids[]``).
GUID_START = {"Ca": 0x100000, "Switch": 0x200000, "Rt": 0}


def assign_ibsim_guids(topo: Topology, where: str, problems: list[str]) -> None:
    """Give every node and CA port the GUID ibsim would (rules in the module docstring)."""
    base = dict(GUID_START)
    cur = dict(GUID_START)
    events = sorted(((line, i) for i, (line, *_rest) in enumerate(topo.guid_events)))
    items = sorted([(line, 0, i) for line, i in events] + [(n.line, 1, k) for k, n in enumerate(topo.nodes)])
    for _line, is_node, i in items:
        if not is_node:
            _ln, kind, value, relative = topo.guid_events[i]
            if relative:
                cur[kind] = base[kind] + value
            else:
                base[kind] = cur[kind] = value
            continue
        n = topo.nodes[i]
        n.guid = cur[n.type]
        last = n.guid + (0 if n.type == "Switch" else n.nports)
        if n.guid == 0 or last > MAX_GUID:
            problems.append(f'{where}:{n.line}: ibsim would give "{n.id}" GUID {n.guid:#x}'
                            f"{'' if n.guid <= MAX_GUID else ' (over 64 bits)'}"
                            f"{' and its ports GUIDs over 64 bits' if n.guid <= MAX_GUID < last else ''}; add a "
                            f"{'rtguid' if n.type == 'Rt' else 'guid'}= line before it")
            n.guid = 0
            cur[n.type] += 1 if n.type == "Switch" else n.nports + 1
            continue
        cur[n.type] += 1 if n.type == "Switch" else n.nports + 1
        if n.type != "Switch":
            n.port_guids = {p: n.guid + p for p in range(1, n.nports + 1)}


def load_ibsim(path: str | os.PathLike[str]) -> Fabric:
    """Load an ibsim net file; FabricError with the first problem (``file:line: why``)."""
    return _load_path(path, FORMAT)


def loads_ibsim(text: str, where: str = "<text>") -> Fabric:
    return loads(text, where, FORMAT)


def check_ibsim(text: str, where: str = "<text>") -> list[str]:
    """Every problem of an ibsim net file, one line each."""
    return check_ibnetdiscover(text, where, FORMAT)


load = load_ibsim
