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
from .ibnetdiscover import check_ibnetdiscover, load_path, loads
from .ibsim_guids import GUID_START, assign_ibsim_guids

FORMAT = "ibsim"
def load_ibsim(path: str | os.PathLike[str]) -> Fabric:
    """Load an ibsim net file; FabricError with the first problem (``file:line: why``)."""
    return load_path(path, FORMAT)


def loads_ibsim(text: str, where: str = "<text>") -> Fabric:
    return loads(text, where, FORMAT)


def check_ibsim(text: str, where: str = "<text>") -> list[str]:
    """Every problem of an ibsim net file, one line each."""
    return check_ibnetdiscover(text, where, FORMAT)


load = load_ibsim

__all__ = ["FORMAT", "GUID_START", "assign_ibsim_guids", "check_ibsim", "load", "load_ibsim", "loads_ibsim"]
