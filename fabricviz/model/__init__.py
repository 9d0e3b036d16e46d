"""The Qt-free fabric model: devices, ports, cables, parts, change events.

The errors are imported at once (cheap, and every layer needs them); the rest loads on first
use (PEP 562), so ``fabricviz --help`` and other light paths do not pay for numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import CatalogError, FabricError

if TYPE_CHECKING:
    from .catalog import Catalog, Part
    from .events import ChangeEvent
    from .fabric import (
        CABLE_TYPES,
        ETH_SWITCH,
        GPU,
        IB_SWITCH,
        KINDS,
        NIC,
        PORT_STATES,
        SERVER,
        SWITCH_KINDS,
        Fabric,
        Removed,
    )
    from .tech import ETH, IB, LinkRate
    from .views import Cable, Device, Port

#: Unicast LIDs available in one InfiniBand subnet (0x0001-0xBFFF).
UNICAST_LIDS = 0xBFFF

#: Each lazily exported name -> the submodule defining it.
_LAZY = {**dict.fromkeys(("Catalog", "Part"), "catalog"), "ChangeEvent": "events",
         **dict.fromkeys(("CABLE_TYPES", "ETH_SWITCH", "GPU", "IB_SWITCH", "KINDS", "NIC", "PORT_STATES",
                          "SERVER", "SWITCH_KINDS", "Fabric", "Removed"), "fabric"),
         **dict.fromkeys(("ETH", "IB", "LinkRate"), "tech"),
         **dict.fromkeys(("Cable", "Device", "Port"), "views")}


def __getattr__(name: str) -> Any:
    """Import the submodule behind ``name`` on first use and keep the value here."""
    sub = _LAZY.get(name)
    if sub is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{sub}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = ["Catalog", "Part", "CatalogError", "FabricError", "ChangeEvent", "Fabric", "Removed",
           "Device", "Port", "Cable", "LinkRate", "IB", "ETH", "KINDS", "SERVER", "GPU", "NIC",
           "IB_SWITCH", "ETH_SWITCH", "SWITCH_KINDS", "CABLE_TYPES", "PORT_STATES", "UNICAST_LIDS"]
