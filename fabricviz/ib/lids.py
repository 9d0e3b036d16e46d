"""LID assignment as OpenSM's LID manager does it on a fresh subnet, and the LID space it needs.

The SM's own port is served first, then every port in the port-GUID map
(switch port 0s and CA ports, byte-swapped GUID order, see
:func:`~fabricviz.ib.subnet.osm_order`). Each CA port takes ``2^LMC``
consecutive LIDs aligned to ``2^LMC`` from the lowest free range; a switch's
base port 0 takes one LID. Unicast LIDs run from 1 to 0xBFFF (49,151).

OpenSM never hands out the LIDs it skips to align a CA port's block, so a
switch that falls between two CA blocks costs up to ``2^LMC`` LIDs: the need
is the highest LID this order reaches (:func:`lid_bases`, integer numpy work), not
a count. :func:`lid_space_problem` is the one refusal every path gives: the
generators, :func:`assign_lids` (``route``, the GUI's LID table), the IB importers'
check, lint's ``lid-space`` rule. Those last three compute the need one way:
they build the same :class:`LidEntries` (switch port 0s and CA ports, the SM's
entry, the LIDs kept) — from a discovered subnet (:func:`subnet_entries`) or from
an imported file's records — and call :func:`plan_lids`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model import UNICAST_LIDS, FabricError
from .subnet import Subnet, osm_order

MAX_UCAST_LID = UNICAST_LIDS
MAX_LMC = 7


class LidSpaceError(FabricError):
    """The subnet needs more unicast LIDs than there are: refused before any routing work."""


def check_lmc(lmc: object, what: str = "LMC") -> int:
    """The LMC as an int, or a FabricError ``"<what> 8: LMC is 0..7"`` (``what``: how the caller
    names it, e.g. ``--lmc``)."""
    if isinstance(lmc, bool) or not isinstance(lmc, (int, np.integer)) or not 0 <= lmc <= MAX_LMC:
        raise FabricError(f"{what} {lmc!r}: LMC is 0..{MAX_LMC}")
    return int(lmc)


def lid_space_problem(host_ports: int, switches: int, lmc: int = 0, need: int | None = None,
                      kept: bool = False) -> str | None:
    """The one-line refusal for an InfiniBand subnet over the 49,151 unicast LIDs, or None.

    Every CA port takes 2^LMC LIDs and every switch one (its port 0). When that count alone is
    over, the line gives the count (what every path can tell at once, a file's prescan included).
    Otherwise ``need`` (:func:`lid_need`: the highest LID OpenSM's order reaches) decides; over,
    the same sentence gives it and why it is more than the count (aligned blocks, LIDs kept).
    """
    step = 1 << int(lmc)
    count = int(host_ports) * step + int(switches)
    if count > UNICAST_LIDS:
        need, why = count, ""
    elif need is None or need <= UNICAST_LIDS:
        return None
    else:
        why = " and ".join(([f"each port's {step}-LID block aligned"] if lmc else [])
                           + (["the LIDs the ports carry kept"] if kept else []))
        why = f" with {why}" if why else ""
    per = f" × {step} LIDs (LMC {lmc})" if lmc else ""
    hint = ("lower the LMC, use RoCE (Ethernet) instead, fewer hosts, or split the fabric into subnets" if lmc
            else "use RoCE (Ethernet) instead, fewer hosts, or split the fabric into subnets")
    return (f"as one InfiniBand subnet, {host_ports:,} host ports{per} + {switches:,} switches need "
            f"{need:,} LIDs{why}, over the {UNICAST_LIDS:,} unicast LIDs (0x0001-0xBFFF); {hint}")


def assignment_order(guids: np.ndarray, sm: int = -1) -> np.ndarray:
    """Indices of ``guids`` in the order the SM hands out LIDs: entry ``sm`` (its own port) first,
    then the port-GUID map's order."""
    order = osm_order(guids)
    if sm < 0:
        return order
    return np.concatenate([np.array([sm], np.int64), order[order != sm]])


def _fresh_bases(is_sw: np.ndarray, step: int) -> np.ndarray:
    """Base LID of each item (in assignment order) with nothing kept and no upper bound.

    Switches take the next LID; a CA takes the next ``step``-aligned block and the free range
    restarts after it (OpenSM's lid_mgr_find_free_lid_range), so a run of g switches after a CA
    block costs ceil(g / step) blocks. Integer numpy work, no loop over ports.
    """
    n = len(is_sw)
    cas = np.flatnonzero(~is_sw)
    if step == 1 or not len(cas):
        return np.arange(1, n + 1, dtype=np.int64)
    g = np.diff(np.concatenate([[-1], cas])) - 1                 # switches just before each CA
    inc = step + -(-g // step) * step                            # CA j starts that far past CA j-1
    inc[0] = -(-(1 + g[0]) // step) * step                       # the first run starts at LID 1
    blocks = np.cumsum(inc)
    base = np.empty(n, np.int64)
    base[cas] = blocks
    sw = np.flatnonzero(is_sw)
    run = np.cumsum(~is_sw)[sw]                                  # CAs before each switch
    run_lid = np.concatenate([[1], blocks + step])               # first free LID of each run
    run_item = np.concatenate([[0], cas + 1])                    # first item of each run
    base[sw] = run_lid[run] + (sw - run_item[run])
    return base


def _kept_bases(is_sw: np.ndarray, keys: np.ndarray, step: int, previous: dict[int, int]) -> np.ndarray:
    """Base LIDs (assignment order, no upper bound) when ports keep a free, aligned LID they had
    (``previous``: GUID → LID) and the others are placed as lid_mgr_find_free_lid_range does: the
    free ranges between kept LIDs are tried in order, a port takes the first one its aligned block
    fits in, and that range then starts after the block (LIDs skipped to align are lost)."""
    n = len(is_sw)
    width = np.where(is_sw, 1, step)
    used = np.zeros(MAX_UCAST_LID + 2, bool)
    base = np.zeros(n, np.int64)
    for i, (g, w) in enumerate(zip(keys.tolist(), width.tolist(), strict=True)):
        lid = previous.get(int(g), 0)
        if lid and lid % w == 0 and lid + w - 1 <= MAX_UCAST_LID and not used[lid:lid + w].any():
            used[lid:lid + w] = True
            base[i] = lid
    free = np.flatnonzero(~used[1:MAX_UCAST_LID + 1]) + 1
    cut = np.flatnonzero(np.diff(free) > 1)
    lo = np.concatenate([free[:1], free[cut + 1]]).tolist()
    hi = np.concatenate([free[cut], free[-1:]]).tolist()
    if hi and hi[-1] == MAX_UCAST_LID:
        hi[-1] = 1 << 62                      # the last range runs on: the need may pass 0xBFFF
    else:
        lo.append(MAX_UCAST_LID + 1)
        hi.append(1 << 62)
    # ranges only shrink, so a range too small for a width stays too small: per width, the search
    # resumes at the first range that may still fit (linear, not quadratic)
    first: dict[int, int] = {}
    for i in np.flatnonzero(base == 0).tolist():
        w = int(width[i])
        r = first.get(w, 0)
        while True:
            lid = -(-lo[r] // w) * w
            if lid + w - 1 <= hi[r]:
                break
            r += 1
        first[w] = r
        base[i] = lid
        lo[r] = lid + w
    return base


def lid_bases(guids: np.ndarray, is_switch: np.ndarray, lmc: int, sm: int = -1,
              previous: dict[int, int] | None = None) -> tuple[np.ndarray, int]:
    """Base LID of every entry (switch port 0s by node GUID, CA ports by port GUID) as OpenSM
    assigns them, ignoring the 0xBFFF bound, and the need: the highest LID reached."""
    guids = np.asarray(guids, dtype=np.uint64)
    is_switch = np.asarray(is_switch, dtype=bool)
    order = assignment_order(guids, sm)
    step = 1 << check_lmc(lmc)
    sw = is_switch[order]
    ordered = (_kept_bases(sw, guids[order], step, previous) if previous
               else _fresh_bases(sw, step))
    out = np.zeros(len(guids), np.int64)
    out[order] = ordered
    need = int((ordered + np.where(sw, 0, step - 1)).max(initial=0))
    return out, need


def lid_need(guids: np.ndarray, is_switch: np.ndarray, lmc: int, sm: int = -1,
             previous: dict[int, int] | None = None) -> int:
    """The highest LID the SM reaches giving every entry its LID(s): what the subnet needs."""
    return lid_bases(guids, is_switch, lmc, sm, previous)[1]


@dataclass
class Lids:
    """Base LIDs of every switch (port 0) and every discovered CA port (0 = none)."""

    lmc: int
    sw_lid: np.ndarray
    ca_lid: np.ndarray
    max_lid: int
    warnings: list[str] = field(default_factory=list)

    @property
    def lids_per_ca_port(self) -> int:
        return 1 << self.lmc

    def count(self) -> int:
        """LIDs in use (switches one each, CA ports 2^LMC each)."""
        return int(np.count_nonzero(self.sw_lid) + np.count_nonzero(self.ca_lid) * self.lids_per_ca_port)


@dataclass(frozen=True)
class LidEntries:
    """What the SM gives LIDs to, as plain arrays every path builds the same way: one entry per
    switch (its port 0, keyed by node GUID) and per CA port (by port GUID), which one is the SM's
    own port (served first), and the LIDs the ports already carry that OpenSM keeps when free and
    aligned (GUID → base LID). Route and lint build them from a discovered :class:`Subnet`
    (:func:`subnet_entries`), the IB importers from the file before a Fabric exists; all then call
    :func:`plan_lids`."""

    guids: np.ndarray                    # uint64
    is_switch: np.ndarray                # bool, same length
    sm: int = -1                         # entry of the SM's own port, -1: none
    kept: dict[int, int] | None = None   # GUID → LID carried (a file's, an earlier sweep's)

    @property
    def switches(self) -> int:
        return int(np.count_nonzero(self.is_switch))

    @property
    def ca_ports(self) -> int:
        return len(self.is_switch) - self.switches


@dataclass(frozen=True)
class LidPlan:
    """The LIDs :func:`plan_lids` found for some :class:`LidEntries`."""

    lmc: int
    bases: np.ndarray | None   # base LID per entry (no 0xBFFF bound); None: refused by the count alone
    need: int                  # the highest LID OpenSM's order reaches (the count when that is over)
    problem: str | None        # :func:`lid_space_problem`'s line, or None: every entry gets its LIDs


def plan_lids(entries: LidEntries, lmc: int) -> LidPlan:
    """The one LID computation of every path (route, lint, the IB importers): the count first
    (over: refused before any placement work), else :func:`lid_bases` in OpenSM's order with the
    carried LIDs kept, and :func:`lid_space_problem` on that need."""
    lmc = check_lmc(lmc)
    n_ca, n_sw = entries.ca_ports, entries.switches
    problem = lid_space_problem(n_ca, n_sw, lmc)
    if problem is not None:
        return LidPlan(lmc, None, n_sw + n_ca * (1 << lmc), problem)
    kept = entries.kept or None
    bases, need = lid_bases(entries.guids, entries.is_switch, lmc, entries.sm, kept)
    return LidPlan(lmc, bases, need, lid_space_problem(n_ca, n_sw, lmc, need, bool(kept)))


def subnet_entries(sn: Subnet, kept: dict[int, int] | None = None) -> LidEntries:
    """The :class:`LidEntries` of a discovered subnet: its switches then its CA ports (the
    Subnet's order, so ``bases[:S]`` are the switches'), the SM's entry (its switch, else its CA
    port), ``kept`` as given."""
    S = sn.num_switches
    guids = np.concatenate([sn.sw_guid, sn.ca_guid]).astype(np.uint64)
    is_sw = np.arange(len(guids)) < S
    if sn.sm_node in sn.sw_index:
        sm = sn.sw_index[sn.sm_node]
    else:
        hits = np.flatnonzero(sn.ca_ports == sn.sm_port)
        sm = S + int(hits[0]) if len(hits) else -1
    return LidEntries(guids, is_sw, sm, kept or None)


def lids_of(sn: Subnet, plan: LidPlan) -> Lids:
    """The :class:`Lids` of ``sn`` from the plan of its :func:`subnet_entries`; a plan with a
    problem is refused (:class:`LidSpaceError`, the line): some port would get no LID."""
    if plan.problem is not None:
        raise LidSpaceError(plan.problem)
    assert plan.bases is not None           # a plan without a problem placed every entry
    S = sn.num_switches
    return Lids(plan.lmc, plan.bases[:S], plan.bases[S:], plan.need, [])


def assign_lids(sn: Subnet, lmc: int = 0, previous: dict[int, int] | None = None) -> Lids:
    """LID assignment in OpenSM's order.

    ``previous`` (port GUID → base LID: OpenSM's guid2lid, or the LIDs the ports
    already carry, e.g. from an ibnetdiscover file — OpenSM keeps a port's LID
    when it is free and aligned) keeps those ports on their LIDs; the others
    then take the lowest free ranges. A subnet whose need is over 0xBFFF is refused
    (:class:`LidSpaceError`, :func:`lid_space_problem`'s line): some port would get no LID.
    """
    return lids_of(sn, plan_lids(subnet_entries(sn, previous), lmc))


def lid_of_ports(sn: Subnet, lids: Lids) -> dict[int, int]:
    """Model port id → base LID for CA ports and switch ports (switch ports share port 0's LID)."""
    out: dict[int, int] = {}
    for p, lid in zip(sn.ca_ports.tolist(), lids.ca_lid.tolist(), strict=True):
        out[p] = lid
    t = sn.fabric.devices_t
    for s, d in enumerate(sn.switches.tolist()):
        first, n = int(t.first_port[d]), int(t.nports[d])
        for p in range(first, first + n):
            out[p] = int(lids.sw_lid[s])
    return out
