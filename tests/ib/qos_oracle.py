"""Read back the QoS tables OpenSM programmed under ibsim (issue 14): ``parse_sl2vl`` /
``parse_vlarb`` read ``smpquery sl2vl`` / ``smpquery vlarb`` output; the run itself is
:func:`tests.ib.oracle.run_opensm_and_query` with our opensm.conf as ``conf_text``.
"""

from __future__ import annotations

import re

from tests.ib import oracle

QUERY_TIMEOUT = 30.0


_SL2VL_ROW = re.compile(r"^ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|\s*$")


def parse_sl2vl(text: str) -> dict[tuple[int, int], tuple[int, ...]]:
    """``smpquery sl2vl`` output -> {(in port, out port): 16 VLs}."""
    out: dict[tuple[int, int], tuple[int, ...]] = {}
    for line in text.splitlines():
        if m := _SL2VL_ROW.match(line.strip()):
            vls = tuple(int(v) for v in m.group(3).split("|"))
            if len(vls) != 16:
                raise oracle.OracleError(f"sl2vl row without 16 VLs: {line}")
            out[(int(m.group(1)), int(m.group(2)))] = vls
    return out


_VLARB_HEAD = re.compile(r"^# (Low|High) priority VL Arbitration Table:")
_VLARB_ROW = re.compile(r"^(VL|WEIGHT)\s*:\s*(.*)$", re.IGNORECASE)


def parse_vlarb(text: str) -> dict[str, list[tuple[int, int]]]:
    """``smpquery vlarb`` output -> {"low": [(vl, weight), ...], "high": [...]}."""
    out: dict[str, list[tuple[int, int]]] = {}
    cur: str | None = None
    vls: list[int] = []
    for line in text.splitlines():
        s = line.strip()
        if m := _VLARB_HEAD.match(s):
            cur = m.group(1).lower()
            out.setdefault(cur, [])
            continue
        if cur is None:
            continue
        if m := _VLARB_ROW.match(s):
            vals = [int(v, 0) for v in m.group(2).replace("|", " ").split()]
            if m.group(1).upper() == "VL":
                vls = vals
            else:
                out[cur].extend(zip(vls, vals, strict=False))
    return out
