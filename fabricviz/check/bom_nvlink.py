"""The BOM's NVLink lines: what an NVLink domain adds to the design's servers.

A rack built of its compute trays (a GB200/GB300 NVL72 listed in ``meta.nvlink_domains``) buys its
NVLink switch trays beside the trays (the servers): one line per switch tray part (the domain
part's ``switch_tray_part``, an ``nvlink_switch`` of the catalog), priced and powered from it. A
rack that is one server part (the catalog's whole-rack part) and a baseboard domain (a DGX's HGX
board) have their switch trays or NVSwitch chips inside the server: a line with their count, in
the servers' price. Domains from a GPU part's old ``nvlink_gbps`` figure add nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from ..model import Fabric, Part
from ..model.nvlink import nvlink_domains

CATEGORY = "nvlink"


def nvlink_lines(fabric: Fabric, line: Any, figures: Callable[[Part], tuple[float, float, bool]]) -> list[Any]:
    """BOM lines (built by ``line``, the BOM's line class; ``figures(part)``: its price, power and
    whether the price is an estimate, with the BOM's overrides) for the design's NVLink domains."""
    trays: Counter[str] = Counter()           # switch tray part -> trays to buy
    inside: Counter[str] = Counter()          # domain part -> domains inside their servers
    specs = {}
    for d in nvlink_domains(fabric):
        if d.spec.generation == 0:
            continue
        specs[d.spec.id] = d.spec
        if d.explicit and d.spec.switch_tray_part and d.spec.switch_tray_part in fabric.catalog:
            trays[d.spec.switch_tray_part] += d.spec.switch_trays
        else:
            inside[d.spec.id] += 1
    out = []
    for pid, n in sorted(trays.items()):
        part = fabric.catalog.get(pid)
        price, power, est = figures(part)
        out.append(line(CATEGORY, pid, part.name, n, price, power, est))
    for sid, n in sorted(inside.items()):
        s = specs[sid]
        what = f"{s.switch_trays} NVLink switch trays" if s.rack else f"{s.switch_chips} NVSwitch chips"
        out.append(line(CATEGORY, sid, f"{s.name}: {what} each (in the servers' price)",
                        n * (s.switch_trays if s.rack else s.switch_chips), 0.0, 0.0, False))
    return out
