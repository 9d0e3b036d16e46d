"""``ibqueryerrors`` output (infiniband-diags): the ports whose error counters are over threshold.

The lines ibqueryerrors.c prints::

    Errors for 0x200000 "Switch1"                  a switch (its GUID, its description)
    Errors for "Hca2"                              a CA (the GUID is on the port lines)
    Data Counters for 0x100003 "Hca2"              --counters: a node GUID, every port
       GUID 0x200000 port 3: [SymbolErrorCounter == 1234] [LinkErrorRecoveryCounter == 7]
       GUID 0x200001 port ALL: [PortXmitWait == 123456]
       GUID 0x100004 port 1: [PortXmitData == 1584 (6.188KB)]       (" (n.nnnUNIT)": 64-bit counters)
           Link info:      4   1[  ] ==( 4X  2.5 Gbps Active/  LinkUp)==>  0x… 3 1[  ] "Switch2" ( )
    ## Summary: 6 nodes checked, 4 bad nodes found               (and ## Thresholds:, ## Suppressed:)

On ``Errors for`` lines a switch's GUID is its port 0 (node) GUID and a CA port line's GUID is the
port GUID; on ``Data Counters`` lines both are the node GUID. ``Link info`` (``-r``) gives the
port's LID. Only counters over the threshold (default: not zero) are listed, so a record's other
counters read as zero (``implicit_zero``). Counters that are not
:class:`~fabricviz.model.port_counters.Counter` names (the ``--details`` discard details) are skipped.
"""

from __future__ import annotations

import dataclasses
import re

from ..model.port_counters import ALL_PORTS, BY_NAME, Counter, CounterFile, PortCounters
from ._counters import guid, number, quoted, refuse

FORMAT = "ibqueryerrors"
NODE = re.compile(r'(Errors|Data Counters) for (?:(0x[0-9A-Fa-f]{1,16}) )?"(.{0,400})"')
PORT = re.compile(r"GUID (0x[0-9A-Fa-f]{1,16}) port (\d{1,3}|ALL):(.{0,20000})")
ITEM = re.compile(r"\s*\[([A-Za-z][A-Za-z0-9_]{0,80}) == (\d{1,20})(?: \(\s*[0-9.]{1,40}\s*[A-Za-z]{0,3}\))?\]")
DATA = (Counter.XMIT_DATA, Counter.RCV_DATA, Counter.XMIT_PKTS, Counter.RCV_PKTS)
LINK = re.compile(r"Link info:\s+(\d{1,5})\s")


def looks_like(text: str) -> bool:
    for line in text.splitlines()[:20]:
        s = line.strip()
        if s and not s.startswith("ibwarn:"):
            return NODE.fullmatch(s) is not None or s.startswith("## Summary:")
    return False


def _items(rest: str, where: str, i: int) -> tuple[dict[Counter, int], bool]:
    values: dict[Counter, int] = {}
    ext = False
    pos = 0
    while pos < len(rest):
        m = ITEM.match(rest, pos)
        if m is None:
            if rest[pos:].strip():
                raise refuse(where, i, f"not a counter item: {quoted(rest[pos:].strip())} "
                                       "(expected '[Name == value]')")
            break
        pos = m.end()
        name, value = m.group(1), m.group(2)
        v = number(value)
        if v is None:
            raise refuse(where, i, f"{name}: {value} is over 64 bits")
        c = BY_NAME.get(name)
        if c is not None:
            values[c] = v
            # an error counter printed with " (n.nnn)" came from PortCountersExtended (data counters always are)
            ext = ext or ("(" in m.group(0) and c not in DATA)
    return values, ext


def loads(text: str, where: str) -> CounterFile:
    records: list[PortCounters] = []
    node: tuple[bool, int | None, str] | None = None       # errors section?, header GUID, description
    summary = False
    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        summary = summary or s.startswith("## Summary:")
        if not s or s.startswith("##") or s.startswith("ibwarn:"):
            continue
        m = NODE.fullmatch(s)
        if m is not None:
            hg = guid(m.group(2)) if m.group(2) else None
            if m.group(2) and hg is None:
                raise refuse(where, i, f"GUID {m.group(2)} is not a GUID")
            node = (m.group(1) == "Errors", hg, m.group(3))
            continue
        m = PORT.fullmatch(s)
        if m is not None:
            if node is None:
                raise refuse(where, i, "a port line before any 'Errors for …' line")
            g = guid(m.group(1))
            if g is None:
                raise refuse(where, i, f"GUID {m.group(1)} is not a GUID")
            port = ALL_PORTS if m.group(2) == "ALL" else int(m.group(2))
            if port > 255:
                raise refuse(where, i, f"port {port}: a port number is 0..255")
            values, ext = _items(m.group(3), where, i)
            errors, hg, desc = node
            records.append(PortCounters(f"{where}:{i}", port, values, port_guid=None if hg is not None else g,
                                        node_guid=hg if hg is not None else None, node_desc=desc,
                                        extended=ext, implicit_zero=errors))
            continue
        m = LINK.match(s)
        if m is not None:
            if not records:
                raise refuse(where, i, "a 'Link info' line before any port line")
            lid = int(m.group(1))
            if lid:
                records[-1] = dataclasses.replace(records[-1], lid=lid)
            continue
        raise refuse(where, i, f"not ibqueryerrors output: {quoted(s)}")
    if node is None and not summary:
        raise refuse(where, 1, "no 'Errors for …' and no '## Summary:' line: not ibqueryerrors output")
    return CounterFile(where, FORMAT, tuple(records))


__all__ = ["FORMAT", "loads", "looks_like"]
