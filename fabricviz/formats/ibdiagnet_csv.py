"""The port counters section of ibdiagnet's ``ibdiagnet2.db_csv``.

db_csv is a series of CSV tables, each between ``START_<NAME>`` and ``END_<NAME>`` lines; the
port counters are ``START_PM_INFO`` … ``END_PM_INFO``: a header row, then one row per port::

    START_PM_INFO
    NodeGUID,PortGUID,PortNumber,SymbolErrorCounter,…,PortXmitWait,SymbolErrorCounterExt,…,PortXmitDataExtended,…
    0x0000000000200000,0x0000000000200000,3,1234,…
    END_PM_INFO

Columns are the PortCounters field names; the 64-bit PortCountersExtended ones end in ``Ext``
(``SymbolErrorCounterExt``, ``PortXmitWaitExt``) or ``Extended`` (``PortXmitDataExtended``) and
are preferred. Values are decimal or ``0x`` hex; ``NA``/``N/A``/empty for a counter the port does
not have. The other tables are skipped (only their START/END pairing is checked).

Format source: the section names and the ``NodeGUID``, ``PortNumber`` and ``…Ext`` column names
are the ones public readers of real files use (an ibdiagnet Prometheus exporter's
``csv_global_parser``/``counter_info``, a shell script cutting PM_INFO columns); no db_csv is
published in a public repository we could find, so the test file is written from them.
"""

from __future__ import annotations

import csv

from ..model.port_counters import Counter, CounterFile, PortCounters
from ._counters import counter_value, guid, number, quoted, refuse

FORMAT = "ibdiagnet-csv"
START, END = "START_PM_INFO", "END_PM_INFO"
NODE_GUID = ("NodeGUID", "NodeGuid")
PORT_GUID = ("PortGUID", "PortGuid")
PORT_NUM = ("PortNumber", "PortNum")
LID_COLS = ("LID", "Lid")
MISSING = ("", "NA", "N/A")
#: column → (counter, extended?)
COLUMNS: dict[str, tuple[Counter, bool]] = {
    **{c.value: (c, False) for c in Counter},
    **{c.value + "Ext": (c, True) for c in Counter},
    **{c.value + "Extended": (c, True) for c in Counter},
}


def looks_like(text: str) -> bool:
    return "\nSTART_" in text[:1 << 20] or text.startswith("START_")


def _col(header: list[str], names: tuple[str, ...]) -> int | None:
    for n in names:
        if n in header:
            return header.index(n)
    return None


def loads(text: str, where: str) -> CounterFile:
    lines = text.splitlines()
    section: tuple[str, int] | None = None          # name, its START line
    pm_rows: list[tuple[int, str]] = []
    found = False
    for i, raw in enumerate(lines, 1):
        s = raw.strip()
        if s.startswith("START_") and "," not in s:
            if section is not None:
                raise refuse(where, i, f"{s} inside {section[0]} (started on line {section[1]}): no END_{section[0]}")
            section = (s[6:], i)
            found = found or s == START
        elif s.startswith("END_") and "," not in s:
            if section is None or s[4:] != section[0]:
                raise refuse(where, i, f"{s} without its START_{s[4:]}")
            section = None
        elif section is not None and section[0] == START[6:] and s:
            pm_rows.append((i, raw))
    if section is not None:
        raise refuse(where, section[1], f"START_{section[0]} has no END_{section[0]}")
    if not found:
        raise refuse(where, 1, f"no {START} section: not an ibdiagnet db_csv with port counters")
    records: list[PortCounters] = []
    if not pm_rows:
        return CounterFile(where, FORMAT, ())
    try:
        rows = list(csv.reader([r for _i, r in pm_rows]))
    except csv.Error as e:
        raise refuse(where, pm_rows[0][0], f"{START}: {e}") from None
    if len(rows) != len(pm_rows):
        raise refuse(where, pm_rows[0][0], f"{START}: a quoted field runs over a line end")
    hline, header = pm_rows[0][0], [h.strip() for h in rows[0]]
    ng, pg, pn, lc = (_col(header, n) for n in (NODE_GUID, PORT_GUID, PORT_NUM, LID_COLS))
    if pn is None or (ng is None and pg is None):
        raise refuse(where, hline, f"{START} header has no NodeGUID/PortGUID and PortNumber columns: "
                                   f"{quoted(','.join(header))}")
    cols = [(k, COLUMNS[h]) for k, h in enumerate(header) if h in COLUMNS]
    for (i, _raw), row in zip(pm_rows[1:], rows[1:], strict=True):
        if len(row) != len(header):
            raise refuse(where, i, f"{len(row)} fields, the {START} header has {len(header)}")
        port = number(row[pn])
        if port is None or port > 255:
            raise refuse(where, i, f"PortNumber {quoted(row[pn])} is not a port number (0..255)")
        guids = []
        for k in (ng, pg):
            g = guid(row[k]) if k is not None else None
            if k is not None and g is None and row[k].strip() not in MISSING:
                raise refuse(where, i, f"{header[k]} {quoted(row[k])} is not a GUID")
            guids.append(g)
        lid = number(row[lc]) if lc is not None else None
        basic: dict[Counter, int] = {}
        ext: dict[Counter, int] = {}
        for k, (c, is_ext) in cols:
            cell = row[k].strip()
            if cell in MISSING:
                continue
            (ext if is_ext else basic)[c] = counter_value(cell, header[k], where, i)
        records.append(PortCounters(f"{where}:{i}", port, {**basic, **ext}, lid=lid if lid and lid <= 0xFFFF else None,
                                    node_guid=guids[0], port_guid=guids[1],
                                    extended=bool(ext) and not set(basic) - set(ext)))
    return CounterFile(where, FORMAT, tuple(records))


__all__ = ["COLUMNS", "FORMAT", "loads", "looks_like"]
