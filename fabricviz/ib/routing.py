"""Unicast routing front end: discover, assign LIDs, run an engine, fall back like OpenSM.

``route(fabric, "updn")`` returns a :class:`Routing` with the LFT of every
switch, which engine really produced them (``routed_by``) and why a requested
engine refused (``fallback_reason``): OpenSM tries the configured engine and,
when it fails, routes with minhop instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..model import Fabric, FabricError
from .engine_types import EngineRefused, RoutingInfo
from .engines import ENGINES, REGISTRY, RouteRequest, warm_up
from .kernel_progress import warming
from .lids import LidEntries, Lids, check_lmc, lids_of, plan_lids, subnet_entries
from .sm import elect
from .subnet import COMPILED_FROM_SWITCHES, NO_PATH, Subnet, default_sm_port, discover, switch_distances
from .ucast import build_lfts, compiled, minhop_candidates


@dataclass
class Routing:
    subnet: Subnet
    lids: Lids
    engine: str                    # what was asked for
    routed_by: str                 # what produced the tables
    fallback_reason: str | None
    lft: np.ndarray                # [S, max_lid+1] egress port per LID, 255 = none
    route_seconds: float           # OpenSM's routing phase: hop tables, engine (and fallback), LFTs
    warnings: list[str] = field(default_factory=list)
    info: RoutingInfo = field(default_factory=RoutingInfo)

    def switch_lft(self, device: int | str) -> np.ndarray:
        """The LFT of one switch (by device id or name)."""
        d = self.subnet.fabric.device_id(device)
        s = self.subnet.sw_index.get(d)
        if s is None:
            raise FabricError(f"{self.subnet.fabric.name_of(d)} is not a switch of this subnet")
        return self.lft[s]

    def lid_owner(self) -> dict[int, tuple[str, int]]:
        """LID → ("sw", switch index) or ("ca", CA port index) for every assigned LID."""
        out: dict[int, tuple[str, int]] = {}
        for s, lid in enumerate(self.lids.sw_lid.tolist()):
            if lid:
                out[lid] = ("sw", s)
        step = self.lids.lids_per_ca_port
        for j, lid in enumerate(self.lids.ca_lid.tolist()):
            for off in range(step if lid else 0):
                out[lid + off] = ("ca", j)
        return out


def subnet_and_lids(fabric: Fabric, sm: int | str | None = None, lmc: int = 0,
                    previous: Routing | None = None) -> tuple[Subnet, Lids]:
    """What the SM has before routing: the elected SM, the discovered subnet, the LIDs.

    LIDs of ``previous`` (a re-sweep) or of an imported file are kept as OpenSM keeps them.
    A subnet over the unicast LIDs is refused (:class:`~.lids.LidSpaceError`) before any routing work.
    """
    lmc = check_lmc(lmc)
    sn, entries = lid_entries(fabric, sm, previous)
    if sn.num_switches == 0:
        raise FabricError("the subnet has no switches to route")
    return sn, lids_of(sn, plan_lids(entries, lmc))


def lid_entries(fabric: Fabric, sm: int | str | None = None,
                previous: Routing | None = None) -> tuple[Subnet, LidEntries]:
    """The subnet the SM on ``sm`` (None: the one route elects, :func:`default_sm`) discovers and
    what it gives LIDs to (:func:`~.lids.subnet_entries`: switches, CA ports, the SM's entry, the
    LIDs of ``previous`` or of an imported file kept). Route and lint both start here and call
    :func:`~.lids.plan_lids`; the IB importers build the same entries from the file."""
    sn = discover(fabric, default_sm(fabric) if sm is None else sm)
    kept = _previous_lids(previous) if previous is not None else file_lids(sn)
    return sn, subnet_entries(sn, kept)


def sm_device(fabric: Fabric) -> int:
    """The device the SM runs on when none is named, as :func:`lid_entries` (and route) picks it:
    the elected master of ``meta["sms"]``, else :func:`~.subnet.default_sm_port`'s device (an
    imported file's first node, else the first cabled IB NIC, else a switch). FabricError: none."""
    sm = default_sm(fabric)
    return fabric.device_id(sm) if sm is not None else int(fabric.ports_t.device[default_sm_port(fabric)])


def default_sm(fabric: Fabric) -> str | None:
    """The node the SM runs on when none is named: the elected master of ``meta["sms"]``, else
    None (:func:`~.subnet.discover`'s default)."""
    if not fabric.settings.sms:
        return None
    return elect(fabric).master.node


def route(fabric: Fabric, engine: str = "minhop", sm: int | str | None = None, lmc: int = 0,
          roots: list[str] | None = None,
          progress: Callable[[int, int], None] | None = None,
          previous: Routing | None = None) -> Routing:
    """Run the subnet manager's routing on ``fabric`` and return the LFTs.

    ``previous``: the routing of an earlier sweep; its LIDs are kept (guid2lid)
    and its LFT entries stay where they are still least-hop (a re-sweep).
    """
    if engine not in ENGINES:
        raise FabricError(f"unknown routing engine {engine!r} (use {', '.join(ENGINES)})")
    sn, lids = subnet_and_lids(fabric, sm, lmc, previous)
    old = old_lft(sn, previous) if previous is not None else None
    warnings = list(lids.warnings)
    if sn.undiscovered:
        few = ", ".join(sn.undiscovered[:5]) + (" …" if len(sn.undiscovered) > 5 else "")
        warnings.append(f"{len(sn.undiscovered)} InfiniBand device(s) not reachable from the SM: {few}")
    eng = REGISTRY[engine]
    if eng.always_compiled or compiled(sn, lids) or (sn.num_switches >= COMPILED_FROM_SWITCHES and not warming()):
        warm_up(engine)              # the compiled kernels' one-off load is start-up, not routing
    t0 = time.perf_counter()
    own_paths = eng.own_paths       # no hop table (nor OpenSM's); minhop's fallback makes one
    dist = np.zeros((0, 0), np.uint8) if own_paths else switch_distances(sn)
    reason = None
    routed_by = engine
    info = RoutingInfo()
    lft = None
    if eng.run is not None:
        try:
            lft, info = eng.run(sn, lids, dist, RouteRequest(roots, progress, old))
        except EngineRefused as e:
            reason = f"{engine}: {e}"
            routed_by = "minhop"
            lft = None
    if lft is None:
        least, cand = minhop_candidates(sn, switch_distances(sn) if own_paths else dist)
        lft = build_lfts(sn, lids, least, cand, progress, old)
        routed_by = "minhop"
    seconds = time.perf_counter() - t0
    if reason:
        warnings.insert(0, f"{reason}; routed with minhop instead")
    ca_pairs, sw_pairs = _unreachable(sn, lids, lft)
    if ca_pairs:
        warnings.append(f"unreachable destinations: {ca_pairs:,} (switch, CA LID) pairs have no route")
    if sw_pairs:
        info.unrouted_switch_lids = sw_pairs
        if routed_by == "minhop":
            warnings.append(f"{sw_pairs:,} (switch, switch LID) pairs have no route")
    return Routing(sn, lids, engine, routed_by, reason, lft, seconds, warnings, info)


def _previous_lids(previous: Routing) -> dict[int, int]:
    """guid2lid of an earlier sweep: port GUID (switch: node GUID) → base LID."""
    psn = previous.subnet
    out = {int(g): int(l) for g, l in zip(psn.sw_guid.tolist(), previous.lids.sw_lid.tolist(), strict=True) if l}
    out.update({int(g): int(l) for g, l in zip(psn.ca_guid.tolist(), previous.lids.ca_lid.tolist(), strict=True) if l})
    return out


def file_lids(sn: Subnet) -> dict[int, int] | None:
    """LIDs an imported file shows the ports carrying (``meta["file_lids"]``), by port GUID.

    A real fabric (and ibsim, which loads them from the file) already has LIDs;
    OpenSM keeps each one that is free and aligned.
    """
    raw = sn.fabric.settings.file_lids
    if not raw:
        return None
    f = sn.fabric
    out: dict[int, int] = {}
    for g in sn.sw_guid.tolist():
        lid = raw.get(f"0x{int(g):016x}:0")
        if lid:
            out[int(g)] = int(lid)
    t = f.devices_t
    for j, p in enumerate(sn.ca_ports.tolist()):
        d = int(f.ports_t.device[p])
        lid = raw.get(f"0x{int(t.guid[d]):016x}:{int(f.ports_t.num[p])}")
        if lid:
            out[int(sn.ca_guid[j])] = int(lid)
    return out or None


def old_lft(sn: Subnet, previous: Routing) -> np.ndarray:
    """The previous LFTs re-indexed to this subnet's switch order (by switch GUID)."""
    prev_idx = {int(g): i for i, g in enumerate(previous.subnet.sw_guid.tolist())}
    out = np.full((sn.num_switches, previous.lft.shape[1]), NO_PATH, np.uint8)
    for s, g in enumerate(sn.sw_guid.tolist()):
        i = prev_idx.get(int(g))
        if i is not None:
            out[s] = previous.lft[i]
    return out


def _unreachable(sn: Subnet, lids: Lids, lft: np.ndarray) -> tuple[int, int]:
    """(switch, CA LID) and (switch, switch LID) pairs without an LFT entry.

    Up/down engines cannot reach some switch LIDs (e.g. between roots); that only
    affects management traffic to those switches, so it is counted separately.
    """
    ca = np.zeros(lft.shape[1], bool)
    for off in range(lids.lids_per_ca_port):
        base = lids.ca_lid[(lids.ca_lid > 0) & (sn.ca_sw >= 0)]
        ca[base + off] = True
    sw = np.zeros(lft.shape[1], bool)
    sw[lids.sw_lid[lids.sw_lid > 0]] = True
    # the columns of the NO_PATH entries, a block of rows at a time: no [S, LIDs] copy of the LFTs
    # (radix 56: 0.26 s -> 0.04 s)
    n_ca = n_sw = 0
    for s0 in range(0, lft.shape[0], UNREACHABLE_BLOCK):
        col = np.flatnonzero(lft[s0:s0 + UNREACHABLE_BLOCK] == NO_PATH) % lft.shape[1]
        n_ca += int(np.count_nonzero(ca[col]))
        n_sw += int(np.count_nonzero(sw[col]))
    return n_ca, n_sw


#: switch rows per step of :func:`_unreachable`
UNREACHABLE_BLOCK = 256
