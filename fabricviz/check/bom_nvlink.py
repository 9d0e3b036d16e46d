"""The BOM's NVLink lines: what an NVLink domain adds to the design's servers.

A rack domain (a GB200/GB300 NVL72) buys its NVLink switch trays beside its compute trays (the
servers): one line per domain part, the trays of all such racks, priced from the part (its
``switch_tray_price_usd``/``switch_tray_power_w``, estimates). A baseboard domain (a DGX's HGX
board) has its NVSwitch chips inside the server: a line with their count, priced in the servers'
price. Domains from a GPU part's old ``nvlink_gbps`` figure add nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..model import Fabric
from ..model.nvlink import nvlink_domains

CATEGORY = "nvlink"


def nvlink_lines(fabric: Fabric, line: Any) -> list[Any]:
    """BOM lines (built by ``line``, the BOM's line class) for the design's NVLink domains."""
    racks: Counter[str] = Counter()
    boards: Counter[str] = Counter()
    specs = {}
    for d in nvlink_domains(fabric):
        if d.spec.generation == 0:
            continue
        specs[d.spec.id] = d.spec
        (racks if d.spec.rack else boards)[d.spec.id] += 1
    out = []
    for sid, n in sorted(racks.items()):
        s = specs[sid]
        out.append(line(CATEGORY, sid, f"{s.name}: NVLink switch tray ({s.chips_per_switch_tray} switch chips)",
                        n * s.switch_trays, s.switch_tray_price_usd, s.switch_tray_power_w, True))
    for sid, n in sorted(boards.items()):
        s = specs[sid]
        out.append(line(CATEGORY, sid, f"{s.name}: NVSwitch chips (in the servers' price)",
                        n * s.switch_chips, 0.0, 0.0, False))
    return out
