"""What one lesson step computed, as typed frozen data (the stage, the CLI and tests read attributes).

:class:`StepResult` carries the narration (``lines``), the fabric the step left and,
per action kind, the engines' results in optional fields; a field a step's action
does not fill stays ``None`` (or empty). Qt-free.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..model import Fabric
    from ..sim.engine import SimResult
    from .lesson_collective import CollectiveCurve
    from .lesson_whatif import WhatifStep
    from .sweep_timeline import SweepTimeline


@dataclass(frozen=True)
class TracedPath:
    """A path as the canvas draws it: its cables in order and ``(switch, in port, out port)`` hops."""

    label: str
    cables: tuple[int, ...]
    hops: tuple[tuple[str, int, int], ...] = ()
    ok: bool = True


@dataclass(frozen=True)
class SweepPlay:
    """The part of a sweep timeline a step plays: events ``first``..``last`` (0-based)."""

    timeline: SweepTimeline
    first: int
    last: int


@dataclass(frozen=True)
class SweepCounts:
    """The SM's state at the end of a sweep step."""

    discovered: int
    smps: int
    t_us: float
    up: bool
    active_ports: int


@dataclass(frozen=True)
class Balance:
    """CA destinations per switch-to-switch egress port."""

    min: int
    max: int
    ports: int


@dataclass(frozen=True)
class RouteInfo:
    """One routing engine's result as a step reports it."""

    routed_by: str
    fallback_reason: str | None
    roots: tuple[str, ...] | None
    balance: Balance | None
    routing: Any                      # fabricviz.ib.routing.Routing


@dataclass(frozen=True)
class CableChange:
    """Cables a step pulled or moved: ``removed`` are on ``before``, ``added`` on the step's fabric."""

    before: Fabric
    removed: tuple[int, ...]
    added: int | None = None


@dataclass(frozen=True)
class ShownFlow:
    """A flow a simulate step names (``show_flows``)."""

    src: str
    dst: str
    gbps: float
    line_gbps: float


#: What a step may colour the canvas by (the Traffic dock's "Colour by").
COLOURS = ("utilisation", "queue", "latency")


@dataclass(frozen=True)
class TrafficRun:
    """A traffic run of a step and what produced it (the Traffic dock's controls show it)."""

    result: SimResult
    summary: Mapping[str, Any]        # the engine's run summary (SimResult.summary)
    workload: str                     # a workload spec ("permutation"); "" for explicit pairs
    pairs: tuple[tuple[str, str], ...]
    model: str
    routing: str | None               # None: the fabric's default
    engine: str
    duration_ms: float
    seed: int
    rates: tuple[float, ...] = ()
    flows: Mapping[int, ShownFlow] = field(default_factory=dict)
    #: cables with a directed link the run paused (PFC XOFF / no credits) at any time
    paused_cables: tuple[int, ...] = ()
    partition: str = ""               # the InfiniBand partition the run went in ("": none asked)
    colour: str = ""                  # the step's "colour" (utilisation | queue | latency); "": by model
    transport: str = ""               # the step's transport ("": the design's)
    #: cables with a directed link whose queue trims packets (EQDS / NDP; the canvas's trim marks)
    trimming_cables: tuple[int, ...] = ()

    @property
    def metric(self) -> str:
        """What the canvas colours cables by while the step shows: the step's ``colour``, else the
        story of its model — a max-min run's fair shares by utilisation, a fluid run's queues, pauses
        and ECN by queue."""
        return self.colour or ("queue" if self.model == "fluid" else "utilisation")


@dataclass(frozen=True)
class PathLatency:
    """One-way latency of a path, by component (ns)."""

    name: str                         # InfiniBand | RoCE
    total: float
    serialization: float
    propagation: float
    switch: float
    nic: float
    switches: int
    path: TracedPath


@dataclass(frozen=True)
class PartitionRow:
    """One partition as OpenSM's partition manager resolved it: members by name (a host, or a
    switch for its port 0)."""

    name: str
    pkey: int                          # without the full bit
    full: tuple[str, ...]
    limited: tuple[str, ...]


@dataclass(frozen=True)
class TalkVerdict:
    """Whether ``src`` may talk to ``dst`` by the P_Key rule, and why."""

    src: str
    dst: str
    allowed: bool
    why: str                           # "over storage (0x8001)" | "both limited members of …" | …


@dataclass(frozen=True)
class PartitionReach:
    """Whom a host can talk to over the P_Key tables the SM programs."""

    src: str
    peers: tuple[str, ...]             # the hosts it can talk to, by name
    hosts: int                         # hosts it was checked against (all but itself)
    through: tuple[str, ...]           # the partitions that let it talk to one (labels)
    verdicts: tuple[TalkVerdict, ...] = ()


@dataclass(frozen=True)
class VlLayerMap:
    """The virtual lanes a routing's paths use (:mod:`fabricviz.ib.vl_layers`), as the canvas
    colours them: each used cable's VL bit mask, and the engine's own VL counts."""

    engine: str                        # routed_by
    vls: tuple[int, ...]               # VLs used on switch-to-switch channels
    cables: tuple[int, ...]            # cables some path uses …
    masks: tuple[int, ...]             # … and the VLs on each (bit v: VL v), both directions
    vls_needed: int | None = None      # layers the engine needed (dfsssp, lash)
    vls_avail: int | None = None       # VLs the switch ports allow it
    paths_per_vl: tuple[int, ...] = ()  # dfsssp: paths per layer before balancing
    paths_after: tuple[int, ...] = ()   # dfsssp: paths per SL after balancing (OpenSM's approximation)
    sl_paths: Mapping[int, int] = field(default_factory=dict)   # routed LID pairs per base SL (PathSL.counts)
    routing: Any = None
    layer_masks: tuple[int, ...] = ()  # per cable: the engine's layers on it (bit k: layer k), when SL = VL
    layer_names: tuple[str, ...] = ()  # "layer 0 (SL0–5)", … (what the canvas legend says)

    def cables_in_layer(self, k: int) -> int:
        """Cables carrying paths of layer ``k`` (either direction)."""
        return sum(1 for m in self.layer_masks if m >> k & 1)

    def cables_on(self, vl: int) -> int:
        """Cables carrying VL ``vl`` (either direction)."""
        return sum(1 for m in self.masks if m >> vl & 1)


@dataclass(frozen=True)
class PathLengths:
    """Cables per host-to-host route of each engine (all pairs of the fabric's hosts)."""

    engines: tuple[str, ...]
    routes: int                                   # host pairs
    mean: Mapping[str, float]
    longest: Mapping[str, int]
    longer: Mapping[str, int]                     # routes longer than the first engine's


@dataclass(frozen=True)
class PortHeadroom:
    """One lossless port's PFC headroom as the plan sized it (bytes), with every term of the sum."""

    name: str                          # "leaf01:5"
    port: int
    gbps: float
    cable_m: float
    medium: str                        # dac | mmf | smf
    headroom: float
    terms: Mapping[str, float]
    xoff: float
    xon: float


@dataclass(frozen=True)
class SwitchHeadroom:
    """A headroom step: one switch's ports (the step's, in its order) and its buffer budget."""

    switch: str
    device: int
    method: str
    mtu: int
    ports: tuple[PortHeadroom, ...]
    budget: Any                        # fabricviz.ethernet.buffers.SwitchBudget
    cable: int | None = None           # the first port's cable (drawn on the canvas)


@dataclass(frozen=True)
class StepResult:
    """One step's narration and numbers. ``fabric`` is the fabric as the step left it: a step that
    pulls or moves a cable works on a copy, so earlier steps keep theirs."""

    index: int                                    # 1-based
    action: str
    title: str
    say: str
    lines: tuple[str, ...]
    fabric: Fabric
    sweep: SweepPlay | None = None                # sweep, pull_cable
    counts: SweepCounts | None = None             # sweep
    routing: Any = None                           # route, trace, check_loops, pull_cable (Routing)
    route: RouteInfo | None = None                # route, check_loops
    routes: Mapping[str, RouteInfo] = field(default_factory=dict)      # compare engines
    paths: tuple[TracedPath, ...] = ()            # trace, pull_cable, latency, compare
    old_path: TracedPath | None = None            # pull_cable after a trace
    change: CableChange | None = None             # pull_cable, rewire
    moved: bool | None = None                     # pull_cable: the traced path moved
    lft_blocks_sent: int | None = None            # pull_cable
    loops: int | None = None                      # check_loops: how many credit loops
    loop_cables: tuple[int, ...] = ()             # check_loops: the first loop's cables
    loop_vls: tuple[int, ...] = ()                # check_loops: the VLs the first loop is on
    vls: tuple[int, ...] = ()                     # check_loops: VLs used on switch-to-switch channels
    layers: VlLayerMap | None = None              # layers; check_loops of a layered routing (dfsssp)
    lengths: PathLengths | None = None            # path_lengths
    trace_ok: bool | None = None                  # trace
    traffic: TrafficRun | None = None             # simulate; compare routings: the first
    traffic_by: Mapping[str, TrafficRun] = field(default_factory=dict)  # compare routings
    latency: PathLatency | None = None            # latency
    latency_by: Mapping[str, PathLatency] = field(default_factory=dict)  # compare techs
    partitions: tuple[PartitionRow, ...] = ()     # partitions
    reach: PartitionReach | None = None           # reach
    headroom: SwitchHeadroom | None = None        # headroom
    collectives: tuple[CollectiveCurve, ...] = ()  # collective: the step's fabric's curve first, then versus
    whatif: WhatifStep | None = None              # whatif

    def narration(self) -> list[str]:
        return [f"[{self.index}] {self.title}", *(f"  {w}" for w in _wrap(self.say)),
                *(f"  > {ln}" for ln in self.lines)]


def _wrap(text: str, width: int = 96) -> list[str]:
    import textwrap
    return textwrap.wrap(text, width) or [""]


__all__ = ["COLOURS", "Balance", "CableChange", "PartitionReach", "PartitionRow", "PathLatency", "PathLengths",
           "PortHeadroom", "RouteInfo", "ShownFlow", "StepResult", "SweepCounts", "SweepPlay", "SwitchHeadroom",
           "TalkVerdict", "TracedPath", "TrafficRun", "VlLayerMap"]
