"""The NodeDescription a device reports on an InfiniBand fabric (what ``ibnetdiscover``, OpenSM's
``subnet.lst`` and ``iblinkinfo`` print for it), from the design alone.

One rule for every writer and checker: an imported description kept verbatim
(``meta["node_descriptions"]``, while the device keeps its import name); else a NIC in a server
reports ``"<server> mlx5_<i>"`` (as Linux names it); else the device's name (without the
`` 0x<GUID>`` tag an import adds to make a repeated description unique).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .guid import format_guid
from .kinds import KIND_CODE, NIC

if TYPE_CHECKING:  # pragma: no cover
    from .fabric import Fabric


def kept_description(fabric: Fabric, d: int) -> str | None:
    """The imported NodeDescription of device ``d`` kept verbatim, while it keeps its import name."""
    guid = int(fabric.devices_t.guid[d])
    if not guid:
        return None
    entry = fabric.settings.node_descriptions.get(format_guid(guid))
    if entry is not None and entry[0] == fabric.name_of(d):
        return entry[1]
    return None


def node_description(fabric: Fabric, d: int) -> str:
    """The NodeDescription device ``d`` reports (see the module docstring)."""
    kept = kept_description(fabric, d)
    if kept is not None:
        return kept
    t = fabric.devices_t
    parent = int(t.parent[d])
    if parent >= 0 and t.kind[d] == KIND_CODE[NIC]:
        return f"{fabric.name_of(parent)} mlx5_{int(t.local[d])}"
    name = fabric.name_of(d)
    tag = f" 0x{int(t.guid[d]):016x}"
    if t.guid[d] and name.endswith(tag):   # the importer made a repeated description unique
        return name[: -len(tag)]
    return name
