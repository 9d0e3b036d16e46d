"""Light, read-only views of one device, port or cable.

A view is a (fabric, id) pair whose properties read the fabric's columns, so it
costs nothing to create and never goes stale in a way that lies: if the row is
removed, reading it raises. Edits go through :class:`~fabricviz.model.fabric.Fabric`
methods, never through views.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from .cabling import CABLE_TYPES, PORT_STATES
from .kinds import KINDS
from .tech import IB, LinkRate

if TYPE_CHECKING:  # pragma: no cover
    from .catalog import Part
    from .fabric import Fabric


class Device:
    __slots__ = ("fabric", "id")

    def __init__(self, fabric: Fabric, i: int) -> None:
        self.fabric = fabric
        self.id = i

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name} #{self.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.fabric is self.fabric and other.id == self.id

    def __hash__(self) -> int:
        return hash((id(self.fabric), self.id))

    @property
    def name(self) -> str:
        return self.fabric.name_of(self.id)

    @property
    def kind(self) -> str:
        return KINDS[int(self.fabric.devices_t.kind[self.id])]

    @property
    def part(self) -> Part | None:
        return self.fabric.part_of(self.id)

    @property
    def part_id(self) -> str | None:
        return self.fabric.part_id_of(self.id)

    @property
    def x(self) -> float:
        return float(self.fabric.devices_t.x[self.id])

    @property
    def y(self) -> float:
        return float(self.fabric.devices_t.y[self.id])

    @property
    def tier(self) -> int:
        return int(self.fabric.devices_t.tier[self.id])

    @property
    def guid(self) -> int:
        return int(self.fabric.devices_t.guid[self.id])

    @property
    def is_switch(self) -> bool:
        return self.kind in ("ib_switch", "eth_switch")

    @property
    def is_ib(self) -> bool:
        """An InfiniBand switch, or a NIC whose ports run InfiniBand."""
        k = self.kind
        if k == "ib_switch":
            return True
        if k == "nic":
            ids = self.port_ids
            return len(ids) > 0 and int(self.fabric.ports_t.tech[ids[0]]) == 1
        return False

    @property
    def parent(self) -> Device | None:
        p = int(self.fabric.devices_t.parent[self.id])
        return Device(self.fabric, p) if p >= 0 else None

    @property
    def children(self) -> list[Device]:
        return [Device(self.fabric, int(i)) for i in self.fabric.children_ids(self.id)]

    @property
    def gpus(self) -> list[Device]:
        return [c for c in self.children if c.kind == "gpu"]

    @property
    def nics(self) -> list[Device]:
        return [c for c in self.children if c.kind == "nic"]

    @property
    def nic(self) -> Device | None:
        """For a GPU: the NIC it reaches the fabric through over PCIe."""
        b = int(self.fabric.devices_t.bound[self.id])
        return Device(self.fabric, b) if b >= 0 else None

    @property
    def port_ids(self) -> np.ndarray:
        t = self.fabric.devices_t
        first, n = int(t.first_port[self.id]), int(t.nports[self.id])
        return np.arange(first, first + n) if n else np.zeros(0, dtype=np.int64)

    @property
    def ports(self) -> list[Port]:
        return [Port(self.fabric, int(p)) for p in self.port_ids]

    def port(self, num: int) -> Port:
        return Port(self.fabric, self.fabric.port_id(self.id, num))


class Port:
    __slots__ = ("fabric", "id")

    def __init__(self, fabric: Fabric, i: int) -> None:
        self.fabric = fabric
        self.id = i

    def __repr__(self) -> str:
        return f"<port {self.name} {self.rate}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Port) and other.fabric is self.fabric and other.id == self.id

    def __hash__(self) -> int:
        return hash((id(self.fabric), "p", self.id))

    @property
    def device(self) -> Device:
        return Device(self.fabric, int(self.fabric.ports_t.device[self.id]))

    @property
    def num(self) -> int:
        return int(self.fabric.ports_t.num[self.id])

    @property
    def name(self) -> str:
        return self.fabric.port_name(self.id)

    @property
    def rate(self) -> LinkRate | None:
        return self.fabric.port_rate(self.id)

    @property
    def state(self) -> str:
        return PORT_STATES[int(self.fabric.ports_t.state[self.id])]

    @property
    def guid(self) -> int:
        return int(self.fabric.ports_t.guid[self.id])

    @property
    def cable(self) -> Cable | None:
        c = int(self.fabric.ports_t.cable[self.id])
        return Cable(self.fabric, c) if c >= 0 else None

    @property
    def peer(self) -> Port | None:
        p = self.fabric._peer(self.id)
        return Port(self.fabric, p) if p >= 0 else None


class Cable:
    __slots__ = ("fabric", "id")

    def __init__(self, fabric: Fabric, i: int) -> None:
        self.fabric = fabric
        self.id = i

    def __repr__(self) -> str:
        return f"<cable {self.label} {self.type} {self.length_m:g} m {self.rate}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Cable) and other.fabric is self.fabric and other.id == self.id

    def __hash__(self) -> int:
        return hash((id(self.fabric), "c", self.id))

    @property
    def port_a(self) -> Port:
        return Port(self.fabric, int(self.fabric.cables_t.port_a[self.id]))

    @property
    def port_b(self) -> Port:
        return Port(self.fabric, int(self.fabric.cables_t.port_b[self.id]))

    @property
    def ends(self) -> tuple[Port, Port]:
        return self.port_a, self.port_b

    @property
    def label(self) -> str:
        return f"{self.port_a.name} – {self.port_b.name}"

    @property
    def type(self) -> str:
        return CABLE_TYPES[int(self.fabric.cables_t.ctype[self.id])]

    @property
    def length_m(self) -> float:
        return round(float(self.fabric.cables_t.length[self.id]), 3)

    @property
    def part_id(self) -> str:
        return self.fabric.parts.ids[int(self.fabric.cables_t.part[self.id])]

    @property
    def part(self) -> Part:
        return self.fabric.catalog.get(self.part_id)

    @property
    def rate(self) -> LinkRate:
        """The negotiated rate: lower speed and width of both ends and the cable part."""
        return self.fabric.cable_rate(self.id)

    @property
    def is_ib(self) -> bool:
        return self.rate.tech == IB

    def signature(self) -> tuple:
        a, b = sorted([self.port_a.name, self.port_b.name])
        return (a, b, self.type, self.length_m, self.part_id, str(self.rate))

    def __iter__(self) -> Iterator[Port]:
        return iter(self.ends)
