"""The Qt-free fabric model: devices, ports, cables, parts, change events."""

from .catalog import Catalog, Part
from .errors import CatalogError, FabricError
from .events import ChangeEvent
from .fabric import (CABLE_TYPES, ETH_SWITCH, GPU, IB_SWITCH, KINDS, NIC, PORT_STATES, SERVER,
                     SWITCH_KINDS, Fabric, Removed)
from .tech import ETH, IB, LinkRate
from .views import Cable, Device, Port

#: Unicast LIDs available in one InfiniBand subnet (0x0001-0xBFFF).
UNICAST_LIDS = 0xBFFF

__all__ = ["Catalog", "Part", "CatalogError", "FabricError", "ChangeEvent", "Fabric", "Removed",
           "Device", "Port", "Cable", "LinkRate", "IB", "ETH", "KINDS", "SERVER", "GPU", "NIC",
           "IB_SWITCH", "ETH_SWITCH", "SWITCH_KINDS", "CABLE_TYPES", "PORT_STATES", "UNICAST_LIDS"]
