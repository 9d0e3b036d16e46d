"""Text dump of the tables the subnet manager programs beyond the LFTs.

One function, :func:`table_lines`, writes every table line; ``route --dump-tables``
puts them in a file. Lines, in this order:

* ``pkey <CA port GUID> <entry> ...``: a CA port's P_Key table;
* ``pkey <switch GUID>:0 <entry> ...``: a switch's port 0 (an end port);
* ``pkey <switch GUID>:<port> <entry> ...``: a switch port facing a CA port
  (partition enforcement);

entries in table order as ``0x%04x`` (full bit included, ``0x0000`` for an empty
slot), trailing empty entries dropped; GUIDs ``0x%016x``. CA ports come in
OpenSM's port order, switches in OpenSM's switch order, each switch's port 0
first, then its ports by number.

* ``sl2vl <switch GUID> <in port> <out port> <16 VLs>`` and ``sl2vl <CA node GUID> 0 <port>
  <16 VLs>``, then ``vlarb <GUID> <port> <VLHighLimit> high <vl:w ...> low <vl:w ...>``: the
  QoS tables (:mod:`fabricviz.ib.qos`) when ``qos`` is given.
"""

from __future__ import annotations

from typing import Any

from ..ib.pkeys import PKeyTables
from ..ib.qos import QosTables, sl2vl_lines, vlarb_lines


def _entries(table: list[int]) -> str:
    n = len(table)
    while n and not table[n - 1]:
        n -= 1
    return " ".join(f"0x{pk:04x}" for pk in table[:n])


def pkey_lines(routing: Any, pkeys: PKeyTables) -> list[str]:
    """The ``pkey`` lines of :func:`table_lines`."""
    sn = routing.subnet
    out = [f"pkey 0x{int(g):016x} {_entries(pkeys.ca[int(g)])}".rstrip()
           for g in sn.ca_guid.tolist() if int(g) in pkeys.ca]
    ext: dict[int, list[int]] = {}
    for g, port in pkeys.switch_ext:
        ext.setdefault(g, []).append(port)
    for g in sn.sw_guid.tolist():
        g = int(g)
        if g in pkeys.switch0:
            out.append(f"pkey 0x{g:016x}:0 {_entries(pkeys.switch0[g])}".rstrip())
        for port in sorted(ext.get(g, [])):
            out.append(f"pkey 0x{g:016x}:{port} {_entries(pkeys.switch_ext[(g, port)])}".rstrip())
    return out


def table_lines(routing: Any, pkeys: PKeyTables | None = None, qos: QosTables | None = None) -> list[str]:
    """Every table line for ``routing`` (a :class:`~fabricviz.ib.routing.Routing`)."""
    lines: list[str] = []
    if pkeys is not None:
        lines += pkey_lines(routing, pkeys)
    if qos is not None:
        lines += sl2vl_lines(routing, qos) + vlarb_lines(routing, qos)
    return lines


def write_tables(routing: Any, path: str, pkeys: PKeyTables | None = None, qos: QosTables | None = None) -> int:
    """Write :func:`table_lines` to ``path`` atomically; the number of lines."""
    from .native import save_text_atomic
    lines = table_lines(routing, pkeys, qos)
    save_text_atomic("".join(f"{ln}\n" for ln in lines), path)
    return len(lines)
