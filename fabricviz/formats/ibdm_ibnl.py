"""ibdm system definitions (IBNL, ibutils' ``man ibdm-ibnl-file``) as far as the ibdm topology
reader needs them: which InfiniBand nodes a system type holds and which node port each front-panel
port name is.

An IBNL file opens with ``TOPSYSTEM NAME[,ALIAS…]`` and lists ``NODE SW|CA PORTS TYPE NODE-NAME``
blocks whose lines ``k -> PANEL`` give node port k the front-panel name PANEL. A system whose
nodes are cabled to each other inside (``k -> OTHER-NODE m``) or built of sub-systems
(``SUBSYSTEM``/``SYSTEM``) is a chassis: read as :data:`CHASSIS`, refused by the reader.

Built in are the single-chip systems of ibutils 1.5.7's ibnl directory
(``/usr/lib/*/ibdm1.5.7/ibnl``: one node whose port n is ``Pn``), and the names of its chassis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .ibnetdiscover_grammar import MAX_PORTS, dec, lines_of


@dataclass
class SystemDef:
    """One system type: its nodes (name -> (Switch|Ca, ports)) and front-panel ports."""

    nodes: dict[str, tuple[str, int]] = field(default_factory=dict)
    panel: dict[str, tuple[str, int]] = field(default_factory=dict)    # panel name -> (node, port)
    chassis: bool = False


def _single(kind: str, n: int) -> SystemDef:
    return SystemDef({"U1": (kind, n)}, {f"P{p}": ("U1", p) for p in range(1, n + 1)})


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
#: Single-chip system types of ibutils 1.5.7: name -> (node type, ports).
SYSTEM_TYPES: dict[str, tuple[str, int]] = {n: v for names, v in _SINGLE.items() for n in names}
#: Multi-chip chassis of the same ibnl files.
CHASSIS = frozenset(("MTS9600", "Gazelle", "GZ", "Gnu", "IS5100", "MIS5100", "Orca108", "IS5200",
                     "MIS5200", "Orca216", "IS5300", "MIS5300", "Orca324", "IS5600", "MIS5600", "Orca",
                     "MTS14400", "Rhino", "MTS14400-48", "Rhino12X", "Rhino-12x", "MTS14400-DDR",
                     "RhinoDDR", "MTS14400-IntraDDR", "Rhino-IntraDDR", "MTS3610", "Mammoth",
                     "SUNBQNEM48", "SUN-QNEM", "SUNDCS648QDR", "SUN-M9-648", "SUNDCS72QDR", "NM2-72P",
                     "SUNDCS36QDR", "NM2-36P"))

_NODE = re.compile(r"^NODE\s+(SW|CA)\s+(\d+)\s+\S+\s+(\S+)\s*$")
_MAP = re.compile(r"^(\d+)\s*->\s*(\S+)(?:\s+(\d+))?\s*$")
#: nodes one IBNL system may declare (a 648-port chassis has 54)
MAX_NODES = 1024


def builtin(name: str) -> SystemDef | None:
    """The built-in definition of system type ``name`` (chassis: ``chassis`` set), or None."""
    if name in CHASSIS:
        return SystemDef(chassis=True)
    kind_n = SYSTEM_TYPES.get(name)
    return _single(*kind_n) if kind_n else None


def parse_ibnl(text: str) -> dict[str, SystemDef]:
    """The system types an IBNL file defines (every TOPSYSTEM alias); {} when it is not one."""
    names: list[str] = []
    sys = SystemDef()
    node: str | None = None
    for raw in lines_of(text):
        line = raw.split("#", 1)[0].strip()
        if not line or "=" in line:
            continue
        head = line.split(None, 1)[0]
        if head == "TOPSYSTEM" and not names:
            parts = line.split(None, 1)
            names = [n for n in parts[1].split(",") if n] if len(parts) == 2 else []
            continue
        if head in ("SYSTEM", "SUBSYSTEM"):
            sys.chassis = True
            break
        m = _NODE.match(line)
        if m:
            n = dec(m.group(2), MAX_PORTS)
            if not n or len(sys.nodes) >= MAX_NODES:
                return {}
            node = m.group(3)
            sys.nodes[node] = ("Switch" if m.group(1) == "SW" else "Ca", n)
            continue
        mm = _MAP.match(line)
        if mm is None or node is None:
            return {}
        port = dec(mm.group(1), MAX_PORTS)
        if not port or port > sys.nodes[node][1]:
            return {}
        if mm.group(3) is not None:
            sys.chassis = True           # cabled to another node inside
        else:
            sys.panel[mm.group(2)] = (node, port)
    if not names or not (sys.nodes or sys.chassis):
        return {}
    return dict.fromkeys(names, sys)
