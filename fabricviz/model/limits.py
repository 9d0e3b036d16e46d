"""The limits of a design, in one place: the model's setters and every file reader use them.

Whatever the model accepts must save and load back byte-identical, so a reader accepts
exactly these ranges and the model refuses anything beyond them (with the place and why).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import CatalogError, FabricError
from .store import check_fits
from .tech import IB

if TYPE_CHECKING:
    from .catalog import Part

#: Largest magnitude a position (x, y) may have: the float32 columns hold it.
F32_MAX = float(np.finfo(np.float32).max)
#: Longest cable, in metres (no cable is longer; lengths are compared in mm as int64).
MAX_LENGTH_M = 1e6
#: Most ports a device part may have: 254 for InfiniBand (ports 1-254, 255 with port 0), more for Ethernet.
MAX_PORTS = {"ib": 254, "eth": 1024}
#: Most GPUs or NICs a server part may hold.
MAX_CHILDREN = 128
#: Tiers a device may sit at: -1 unknown, 0 hosts, 1 leaf, 2 spine, 3 core, more on long chains.
TIER_MIN, TIER_MAX = -1, 127
#: Index of a GPU or NIC inside its server (``node1/gpu<local>``).
LOCAL_MIN, LOCAL_MAX = 0, 999


def part_limit_error(part: Part) -> tuple[str, str] | None:
    """``(field, why)`` if ``part`` has more ports, GPUs or NICs than a device can hold, else None."""
    if part.kind in ("ib_switch", "eth_switch", "nic"):
        ib = part.kind == "ib_switch" or any(m.tech == IB for m in part.modes)   # a VPI NIC too
        top = MAX_PORTS["ib" if ib else "eth"]
        if part.ports > top:
            return "ports", (f"{part.ports} ports is more than "
                             f"{'an InfiniBand' if ib else 'an Ethernet'} device can have ({top})")
    if part.kind == "server":
        for key in ("gpus", "nics"):
            n = getattr(part, key)
            if n > MAX_CHILDREN:
                return key, f"{n} is more than a server can hold ({MAX_CHILDREN})"
    return None


def check_part_limits(part: Part, where: str) -> None:
    """CatalogError ``where.ports: ...`` for a part whose counts exceed what the model can hold."""
    bad = part_limit_error(part)
    if bad is not None:
        raise CatalogError(f"{where}.{bad[0]}: {bad[1]}")


def check_int_range(values: Any, lo: int, hi: int, where: Any, what: str) -> None:
    """FabricError ``PLACE: WHAT V must be a whole number from LO to HI`` for the first of
    ``values`` (scalar or sequence) outside [lo, hi]; ``where`` is the place or a function of
    the index of the bad value. Nothing is converted or stored."""
    check_fits("i8", values, where, what)          # whole numbers first (no nan, no 2.5)
    a = np.asarray(values, dtype=np.int64).ravel()
    bad = np.flatnonzero((a < lo) | (a > hi))
    if len(bad):
        i = int(bad[0])
        place = where(i) if callable(where) else where
        raise FabricError(f"{place}: {what} {int(a[i])} must be a whole number from {lo} to {hi}")


def check_tier(tier: Any, where: Any) -> None:
    check_int_range(tier, TIER_MIN, TIER_MAX, where, "tier")


def check_length(lengths: Any, where: Any) -> None:
    """FabricError for the first cable length that is not a positive number up to MAX_LENGTH_M."""
    check_fits("f4", lengths, where, "cable length")
    a = np.asarray(lengths, dtype=np.float64).ravel()
    bad = np.flatnonzero(~(a > 0) | (a > MAX_LENGTH_M))
    if len(bad):
        i = int(bad[0])
        place = where(i) if callable(where) else where
        raise FabricError(f"{place}: cable length {float(a[i]):g} m must be a positive number of metres "
                          f"up to {MAX_LENGTH_M:g}")
