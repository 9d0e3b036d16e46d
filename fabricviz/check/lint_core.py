"""The lint framework the rules are written against (a leaf: imports no rule).

A rule is a function of a :class:`LintContext` registered with :func:`rule` in :data:`RULES`;
it yields :class:`Finding` objects. :mod:`.lint` imports the rule modules and runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..ib import planes as ib_planes
from ..ib import routing as ib_routing
from ..ib.sharp import sharp_mask  # SHARP aggregation nodes (NICs, not hosts)
from ..ib.tiers import device_tiers, switch_mask
from ..model import Fabric, FabricError, Part
from ..model.fabric import IB_SWITCH, KIND_CODE, NIC
from ..model.planes import PlaneSet, device_planes
from ..model.tech import TECH_IB_CODE

SEVERITIES: tuple[str, ...] = ("error", "warning", "info")
#: Routing-based rules are skipped above this many (switch, LID) LFT cells (about 2 s of lint).
ROUTE_LIMIT = 3_500_000
#: How many object names a finding prints before "… (+N more)".
SHOW_NAMES = 4


@dataclass(frozen=True)
class Finding:
    """One problem: what rule, how bad, which objects, why."""

    severity: str
    rule: str
    message: str
    where: str = ""
    devices: tuple[int, ...] = ()
    ports: tuple[int, ...] = ()
    cables: tuple[int, ...] = ()
    names: tuple[str, ...] = ()

    def format(self) -> str:
        """``error  cable-reach  leaf01:3 – node04/mlx5_0:1: 3 m DAC beyond …``."""
        return f"{self.severity}  {self.rule}  " + (f"{self.where}: " if self.where else "") + self.message

    def to_dict(self) -> dict[str, Any]:
        return {"severity": self.severity, "rule": self.rule, "message": self.message,
                "where": self.where, "devices": list(self.devices), "ports": list(self.ports),
                "cables": list(self.cables), "names": list(self.names)}


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str          # the worst severity the rule reports
    summary: str
    check: Callable[[LintContext], Iterable[Finding]]
    routing: bool = False  # needs the subnet manager's routing (skipped on huge fabrics)


RULES: dict[str, Rule] = {}


def rule(rule_id: str, severity: str, summary: str, routing: bool = False):
    """Register a rule function under ``rule_id``."""
    if severity not in SEVERITIES:
        raise ValueError(f"bad severity {severity!r}")

    def deco(fn: Callable[[LintContext], Iterable[Finding]]):
        if rule_id in RULES:
            raise ValueError(f"rule {rule_id!r} registered twice")
        RULES[rule_id] = Rule(rule_id, severity, summary, fn, routing)
        return fn
    return deco


class LintContext:
    """What every rule needs, computed once: cable ends, kinds, parts, tiers, routing."""

    def __init__(self, fabric: Fabric, full: bool = False, route_limit: int = ROUTE_LIMIT) -> None:
        self.f = fabric
        self.full = full
        self.route_limit = route_limit
        t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
        self.cids = ct.live_ids().astype(np.int64)
        self.pa = ct.port_a[self.cids].astype(np.int64)
        self.pb = ct.port_b[self.cids].astype(np.int64)
        self.da = pt.device[self.pa].astype(np.int64)
        self.db = pt.device[self.pb].astype(np.int64)
        self.kind = t.kind.astype(np.int64)
        self.alive = t.alive.copy()
        self.sw = switch_mask(fabric)
        nic = self.alive & (self.kind == KIND_CODE[NIC])
        self.sharp = sharp_mask(fabric)
        #: fabric end points that are hosts: NICs other than SHARP aggregation nodes
        self.host_nic = nic & ~self.sharp
        self.ib_cable = ct.tech[self.cids] == TECH_IB_CODE
        self.lmc = fabric.settings.lmc          # a design's meta that is no LMC: lint at LMC 0
        self._routes: dict[str, Any] = {}

    # ---- lookups
    def part(self, d: int) -> Part | None:
        """The device's catalog part, or None (no part, or not in this catalog)."""
        pid = self.f.part_id_of(int(d))
        return self.f.catalog.get(pid) if pid is not None and pid in self.f.catalog else None

    def cable_part(self, c: int) -> Part | None:
        pid = self.f.cable(int(c)).part_id
        return self.f.catalog.get(pid) if pid in self.f.catalog else None

    @cached_property
    def tiers(self) -> np.ndarray:
        return device_tiers(self.f)

    @property
    def is_ib(self) -> bool:
        return bool((self.alive & (self.kind == KIND_CODE[IB_SWITCH])).any())

    @cached_property
    def route_cells(self) -> int:
        """LFT cells the SM would fill: IB switches × (switch LIDs + CA LIDs)."""
        s = int((self.alive & (self.kind == KIND_CODE[IB_SWITCH])).sum())
        pt = self.f.ports_t
        ends = self.host_nic | self.sharp
        ca = int(np.count_nonzero((pt.cable >= 0) & (pt.tech == TECH_IB_CODE) & ends[pt.device]))
        return s * (s + ca * (1 << self.lmc))

    @property
    def route_ok(self) -> bool:
        return self.full or self.route_cells <= self.route_limit

    def adopt_routing(self, r: Any) -> None:
        """Use ``r`` (computed elsewhere for this fabric) as the routing of its engine."""
        self._routes[r.engine] = r

    def routing(self, engine: str = "minhop"):
        """The SM's routing with ``engine`` (cached); None when the fabric cannot be routed."""
        if engine not in self._routes:
            try:
                self._routes[engine] = ib_routing.route(self.f, engine, lmc=self.lmc)   # looked up per call
            except FabricError:
                self._routes[engine] = None
        return self._routes[engine]

    @cached_property
    def planes(self) -> Any:
        """The design's planes (a PlaneSet; empty also when ``meta.planes`` is refused, which the
        ``plane-refused`` rule reports)."""
        try:
            return self.f.settings.planes
        except FabricError:
            return PlaneSet()

    @cached_property
    def device_planes(self) -> np.ndarray:
        """Plane index per device id (-1: none), :func:`fabricviz.model.planes.device_planes`."""
        return device_planes(self.f) if self.planes else np.full(self.f.devices_t.n, -1, np.int16)

    def routings(self, engine: str = "minhop") -> list[Any]:
        """The routing of every subnet (:func:`fabricviz.ib.planes.routings`: one per plane of a
        multi-plane design, each with its own SM), cached; empty when a plane cannot be routed."""
        key = f"planes:{engine}"
        if key not in self._routes:
            if not self.planes:
                r = self.routing(engine)
                self._routes[key] = [r] if r is not None else []
            else:
                try:
                    self._routes[key] = [p.routing for p in ib_planes.routings(self.f, engine, self.lmc)]
                except FabricError:
                    self._routes[key] = []
        return self._routes[key]

    # ---- building findings
    def finding(self, rule_id: str, severity: str, message: str, devices: Iterable[int] = (),
                ports: Iterable[int] = (), cables: Iterable[int] = (), where: str | None = None) -> Finding:
        """A finding whose ``where`` names the cables, else the ports, else the devices."""
        f = self.f
        devices = tuple(int(d) for d in devices)
        ports = tuple(int(p) for p in ports)
        cables = tuple(int(c) for c in cables)
        names = tuple([f.cable(c).label for c in cables] + [f.port_name(p) for p in ports]
                      + [f.name_of(d) for d in devices])
        if where is None:
            shown = ([f.cable(c).label for c in cables] or [f.port_name(p) for p in ports]
                     or [f.name_of(d) for d in devices])
            where = ", ".join(shown[:SHOW_NAMES])
            if len(shown) > SHOW_NAMES:
                where += f" … (+{len(shown) - SHOW_NAMES} more)"
        return Finding(severity, rule_id, message, where, devices, ports, cables, names)
