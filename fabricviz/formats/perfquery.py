"""``perfquery`` output (infiniband-diags): the port counters of one or many ports.

Every block starts with a header line (perfquery.c prints it with libibmad's ``portid2str``)::

    # Port counters: Lid 1 port 3 (CapMask: 0x1300)
    # Port extended counters: Lid 3 port 1 (CapMask: 0x1300 CapMask2: 0x0000000)
    # PortRcvErrorDetails counters: Lid 1 port 3          (-E, -D, -X, -S, -T, ...)

then one field per line, name and value joined by dots (``SymbolErrorCounter:..............1234``).
Several ports (``perfquery 1 1,3``, ``-l``), several LIDs concatenated (a loop over the fabric)
and ``-x`` extended counters all read; port 255 (``-a``) is a node's aggregate. Fields are kept
when they are counters :class:`~fabricviz.model.port_counters.Counter` names; the rest
(PortSelect, CounterSelect, per-SL and detail fields) are read and checked only as lines.
PortXmitWait is dropped when the CapMask says the port does not support it (bit 12: perfquery
then prints 0, which is not a measured zero). ``ibwarn:`` lines (stderr merged) are skipped.
"""

from __future__ import annotations

import re

from ..model.port_counters import BY_NAME, Counter, CounterFile, PortCounters
from ._counters import counter_value, quoted, refuse

FORMAT = "perfquery"
HEADER = re.compile(r"# (Port counters|Port extended counters|[A-Za-z0-9]+ counters|PortSamplesControl): "
                    r"(.{0,400}?) port (\d{1,3})(?: \(([^()]{0,200})\))?\s*")
FIELD = re.compile(r"([A-Za-z][A-Za-z0-9_]{0,80}):\.*(.{0,200})")
LID = re.compile(r"Lid (\d{1,5})\b")
CAPMASK = re.compile(r"CapMask: (0x[0-9A-Fa-f]{1,8})")
#: PerfMgt ClassPortInfo CapabilityMask bit: PortCounters.PortXmitWait is supported (IB_PM_PC_XMIT_WAIT_SUP).
XMIT_WAIT_SUPPORTED = 1 << 12


def looks_like(text: str) -> bool:
    """True when the text's first meaningful line is a perfquery header."""
    for line in text.splitlines()[:20]:
        s = line.strip()
        if s and not s.startswith("ibwarn:"):
            return HEADER.fullmatch(s) is not None
    return False


def loads(text: str, where: str) -> CounterFile:
    records: list[PortCounters] = []
    head: tuple[int, int, int | None, bool, bool] | None = None   # line, port, lid, extended, xmit-wait ok
    values: dict[Counter, int] = {}

    def close() -> None:
        if head is not None and values:
            line, port, lid, ext, wait_ok = head
            if not wait_ok:
                values.pop(Counter.XMIT_WAIT, None)
            records.append(PortCounters(f"{where}:{line}", port, dict(values), lid=lid, extended=ext))

    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or s.startswith("ibwarn:"):
            continue
        if s.startswith("#"):
            m = HEADER.fullmatch(s)
            if m is None:
                raise refuse(where, i, f"not a perfquery header: {quoted(s)} (expected '# Port counters: Lid N "
                                       "port N (CapMask: 0x…)')")
            close()
            kind, addr, port_s, caps = m.groups()
            port = int(port_s)
            if port > 255:
                raise refuse(where, i, f"port {port}: a port number is 0..255")
            lm = LID.search(addr)
            lid = int(lm.group(1)) if lm else None
            if lid is not None and not 0 < lid <= 0xFFFF:
                raise refuse(where, i, f"LID {lid} is not a LID (1..65535)")
            cm = CAPMASK.search(caps or "")
            capmask = int(cm.group(1), 16) if cm else XMIT_WAIT_SUPPORTED
            head = (i, port, lid, kind == "Port extended counters", kind != "Port counters"
                    or bool(capmask & XMIT_WAIT_SUPPORTED))
            values = {}
            continue
        if head is None:
            raise refuse(where, i, f"not perfquery output: {quoted(s)} before any '# Port counters: …' header")
        name, colon, value = s.partition(":")
        counter = BY_NAME.get(name) if colon else None     # the common case, without a regex
        if counter is None:
            if FIELD.fullmatch(s) is None:
                raise refuse(where, i, f"not a counter line: {quoted(s)} (expected 'Name:....value')")
            continue
        value = value.lstrip(".")
        values[counter] = counter_value(value, name, where, i)
    close()
    if head is None:
        raise refuse(where, 1, "no perfquery header ('# Port counters: Lid N port N …') in the file")
    return CounterFile(where, FORMAT, tuple(records))


__all__ = ["FORMAT", "loads", "looks_like"]
