"""What the subnet manager would assign as LIDs, port by port (the inspector's LID column).

:func:`lid_table` runs the SM's own steps up to LID assignment (election from
``meta["sms"]``, the discovery sweep, OpenSM's LID manager keeping file LIDs),
which is exactly what :func:`fabricviz.ib.routing.route` assigns before it
routes; routing itself is not needed to show a LID and costs seconds at scale.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabricviz.ib.lids import lid_of_ports
from fabricviz.ib.routing import subnet_and_lids
from fabricviz.model import Fabric, FabricError

UNKNOWN = "—"


@dataclass
class LidTable:
    """Port id → base LID (switch ports share port 0's LID), or why there are none."""

    lids: dict[int, int] = field(default_factory=dict)
    error: str | None = None
    unreached: frozenset[str] = frozenset()

    def text(self, f: Fabric, port: int) -> str:
        """``"7"`` or ``"no LID (reason)"`` for one port."""
        if self.error is not None:
            return f"no LID ({self.error})"
        lid = self.lids.get(int(port))
        if lid:
            return str(lid)
        d = int(f.ports_t.device[port])
        if int(f.ports_t.tech[port]) != 1:
            return "no LID (Ethernet port)"
        if f.name_of(d) in self.unreached or int(f.ports_t.cable[port]) < 0:
            return "no LID (not reachable from the SM)"
        return "no LID (LID space exhausted)"


def lid_table(f: Fabric) -> LidTable:
    """The SM's LID assignment for ``f`` (LMC 0); a routing refusal becomes ``error``."""
    try:
        sn, lids = subnet_and_lids(f)
    except FabricError as exc:
        return LidTable(error=str(exc))
    return LidTable(lid_of_ports(sn, lids), None, frozenset(sn.undiscovered))




def has_ib(f: Fabric | None) -> bool:
    return f is not None and len(f.device_ids("ib_switch")) > 0


__all__ = ["LidTable", "UNKNOWN", "has_ib", "lid_table"]
