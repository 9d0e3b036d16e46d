"""``ibdiagnet2.pm``: the port counters ibdiagnet (``--pc``) writes as text, one block per port::

    -------------------------------------------------------
    Port=1 Lid=0x0004 GUID=0x0000000000100004 Device=4099 Port Name=Hca2/U1/P1
    -------------------------------------------------------
    symbol_error_counter=0x0000000000000028
    port_rcv_errors=0x000000000000002a
    port_xmit_data_extended=0x0000000000000630
    port_xmit_wait_extended=NA

The counters are the PortCounters / PortCountersExtended fields in snake case, ``_extended``
for the 64-bit ones (preferred when both are given); values are hex (``0x``) or decimal, ``NA``
for a counter the port does not have. ``GUID`` is the port's GUID (a switch's: its node GUID).

Format source: no ibdiagnet2.pm is published in a public repository we could find; the layout
and key names are the ones two public readers of real files parse (facebookresearch/gcm
``ib_port_errors`` health check, and an ``infiniband_exporter`` in Go: header
``Port=(\\d+) Lid=(\\w+) GUID=(\\w{18}) Device=(\\d+) Port Name=(.*)``, keys such as
``symbol_error_counter``, ``link_down_counter``, ``port_xmit_discard``,
``symbol_error_counter_extended``, values ``0x…`` or ``NA``); the test file is written from it.
"""

from __future__ import annotations

import re

from ..model.port_counters import Counter, CounterFile, PortCounters
from ._counters import counter_value, guid, number, quoted, refuse

FORMAT = "ibdiagnet-pm"
HEADER = re.compile(r"Port=(\d{1,3})\s+Lid=(0x[0-9A-Fa-f]{1,4}|\d{1,5})\s+GUID=(0x[0-9A-Fa-f]{1,16})"
                    r"(?:\s+Device=\d{1,10})?(?:\s+Port Name=(.{0,400}))?")
KEY = re.compile(r"([a-z][a-z0-9_]{0,80})\s*=\s*(.{0,80})")
#: key (without ``_extended``) → counter; aliases as ibdiagnet versions spell them
KEYS: dict[str, Counter] = {
    "symbol_error_counter": Counter.SYMBOL_ERRORS, "link_error_recovery_counter": Counter.LINK_ERROR_RECOVERY,
    "link_downed_counter": Counter.LINK_DOWNED, "link_down_counter": Counter.LINK_DOWNED,
    "port_rcv_errors": Counter.RCV_ERRORS, "port_rcv_remote_physical_errors": Counter.RCV_REMOTE_PHYSICAL_ERRORS,
    "port_rcv_switch_relay_errors": Counter.RCV_SWITCH_RELAY_ERRORS,
    "port_xmit_discards": Counter.XMIT_DISCARDS, "port_xmit_discard": Counter.XMIT_DISCARDS,
    "port_xmit_constraint_errors": Counter.XMIT_CONSTRAINT_ERRORS,
    "port_rcv_constraint_errors": Counter.RCV_CONSTRAINT_ERRORS,
    "local_link_integrity_errors": Counter.LOCAL_LINK_INTEGRITY_ERRORS,
    "excessive_buffer_overrun_errors": Counter.EXCESSIVE_BUFFER_OVERRUN_ERRORS,
    "excessive_buffer_errors": Counter.EXCESSIVE_BUFFER_OVERRUN_ERRORS,
    "vl15_dropped": Counter.VL15_DROPPED, "port_xmit_wait": Counter.XMIT_WAIT,
    "port_xmit_data": Counter.XMIT_DATA, "port_rcv_data": Counter.RCV_DATA,
    "port_xmit_pkts": Counter.XMIT_PKTS, "port_rcv_pkts": Counter.RCV_PKTS,
}
MISSING = ("NA", "N/A")


def looks_like(text: str) -> bool:
    for line in text.splitlines()[:20]:
        s = line.strip()
        if s and set(s) != {"-"}:
            return HEADER.fullmatch(s) is not None
    return False


def loads(text: str, where: str) -> CounterFile:
    records: list[PortCounters] = []
    head: tuple[int, int, int, int] | None = None          # line, port, LID, GUID
    basic: dict[Counter, int] = {}
    ext: dict[Counter, int] = {}

    def close() -> None:
        if head is not None and (basic or ext):
            line, port, lid, g = head
            records.append(PortCounters(f"{where}:{line}", port, {**basic, **ext}, lid=lid or None, port_guid=g,
                                        extended=bool(ext) and not set(basic) - set(ext)))

    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s or set(s) == {"-"}:
            continue
        if s.startswith("Port="):
            m = HEADER.fullmatch(s)
            if m is None:
                raise refuse(where, i, f"not an ibdiagnet PM port header: {quoted(s)} "
                                       "(expected 'Port=N Lid=0x… GUID=0x… …')")
            close()
            port, lid = int(m.group(1)), number(m.group(2))
            g = guid(m.group(3))
            if port > 255:
                raise refuse(where, i, f"port {port}: a port number is 0..255")
            if lid is None or lid > 0xFFFF:
                raise refuse(where, i, f"Lid={m.group(2)} is not a LID")
            if g is None:
                raise refuse(where, i, f"GUID={m.group(3)} is not a GUID")
            head, basic, ext = (i, port, lid, g), {}, {}
            continue
        if head is None:
            raise refuse(where, i, f"not an ibdiagnet PM file: {quoted(s)} before any 'Port=… Lid=… GUID=…' line")
        m = KEY.fullmatch(s)
        if m is None:
            raise refuse(where, i, f"not a counter line: {quoted(s)} (expected 'name=value')")
        key, value = m.group(1), m.group(2).strip()
        extended = key.endswith("_extended")
        c = KEYS.get(key.removesuffix("_extended"))
        if c is None or value in MISSING:
            continue
        (ext if extended else basic)[c] = counter_value(value, key, where, i)
    close()
    if head is None:
        raise refuse(where, 1, "no 'Port=… Lid=… GUID=…' block: not an ibdiagnet PM file")
    return CounterFile(where, FORMAT, tuple(records))


__all__ = ["FORMAT", "KEYS", "loads", "looks_like"]
