"""dfsssp's deadlock removal and VL balancing, as OpenSM 3.3.23 does them.

Every (source LID, destination LID) path starts on VL 0 and its switch-to-switch channels go
into VL 0's channel dependency graph (CDG: channel a -> channel b when a path uses b right
after a; channels out of a CA and into a CA are left out, they cannot close a cycle). Then,
VL by VL, a depth-first search looks for a cycle; the cycle's edge carrying the fewest
paths is cut and its paths move to the next VL's CDG; the search goes on from the cycle.
"Virtual Lanes needed" is one more than the last VL that had to give paths away. With
fewer VLs than needed OpenSM stops with ERR AD25 (and routes with minhop instead); with
more, the busiest VLs are split over the spare ones (``vl_split_count``) and each path's
base SL is renumbered so a split SL's range starts at it (OpenSM answers a random SL of
that range per path query).

The search order decides which edges are cut, so the CDG is kept as OpenSM keeps it (in the
compiled :mod:`.dfsssp_kernels`): nodes in an unbalanced binary search tree keyed by channel
ID (searched in pre-order for a node not yet seen), each node's out-edges in the order they
were first used, GRAY/BLACK marks and DFS back-pointers that survive from one search to the
next.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .engine_types import EngineRefused
from .lids import Lids
from .path_sl import PathSL
from .qos import IB_PORT_CAPS, MAX_OP_VLS_DEFAULT, VL_CODE
from .qos_meta import design_qos
from .subnet import Subnet

if TYPE_CHECKING:
    from .dfsssp import Destinations


#: OpenSM's words when a path of the deadlock removal meets a switch with no LFT entry for its LID
AD14 = "ERR AD14: cannot allocate memory for cdg node or link in update_channel_dep_graph(...)"


def subnet_vls(sn: Subnet, max_op_vls: int | None = None) -> int:
    """get_avail_vl_in_subn: the fewest operational VLs of any linked switch external port,
    as a VL count (1, 2, 4, 8; 15 at most). Ports run min(VLCap, peer's VLCap, max_op_vls)
    (:mod:`.qos`); ``max_op_vls`` None: the design's QoS options, else OpenSM's default."""
    if max_op_vls is None:
        opts = design_qos(sn.fabric)
        max_op_vls = opts.max_op_vls if opts is not None else MAX_OP_VLS_DEFAULT
    code = min(VL_CODE[IB_PORT_CAPS.vl_cap], int(max_op_vls))
    return min(15, max(1, 1 << (max(code, 1) - 1)))


@dataclass
class VlResult:
    path_sl: PathSL
    vls_needed: int
    paths_before: list[int]
    paths_after: list[int]
    split: list[int]
    log: list[str] = field(default_factory=list)


def assign_vls(sn: Subnet, lids: Lids, lft: np.ndarray, dests: Destinations,
               vls_avail: int) -> VlResult:
    """dfsssp_remove_deadlocks on the routes ``lft`` (destinations as :func:`.dfsssp.sssp_lfts`
    routed them: ports in dfsssp's order, each port's LIDs in a row)."""
    from . import dfsssp_kernels as K  # numba on use
    log = [f"Virtual Lanes available: {vls_avail}"]
    d_lid = dests.lid
    all_lids = np.sort(d_lid)
    n = len(all_lids)
    idx_of = np.full(lids.max_lid + 1, -1, np.int64)
    idx_of[all_lids] = np.arange(n)
    end_lid = idx_of[d_lid]                        # LID indices, port by port
    first = np.flatnonzero(dests.first)
    end_ptr = np.append(first, len(d_lid)).astype(np.int64)
    end_ca = dests.src[first] == 0
    port_of = np.empty(n, np.int64)                # LID index -> destination port number
    port_of[end_lid] = np.cumsum(dests.first) - 1
    ca = dests.src == 0
    starts = np.unique(dests.sw[ca])               # switches that start CA paths: path rows
    row = np.full(sn.num_switches, -1, np.int64)
    row[starts] = np.arange(len(starts))
    row_of = np.full(n, -1, np.int64)
    row_of[end_lid[ca]] = row[dests.sw[ca]]
    vl = np.empty((n, n), np.uint8)                # [src index, dst index]; 255: no path
    counts = np.zeros(vls_avail, np.int64)
    # pair numbers (src × n + dst), pair counts and store indices stay below n²: 32 bits do up
    # to 46,340 LIDs (beyond that OpenSM's INF has already stopped dfsssp, see .dfsssp_kernels)
    idx = np.empty(0, np.int32 if n * n < 2**31 else np.int64)
    status, needed = K.remove_deadlocks(lft, sn.nbr_sw, sn.nbr_port, lids.sw_lid, starts, all_lids,
                                        row_of, port_of, end_ptr, end_lid, end_ca, vl, counts, idx)
    if status == K.BROKEN:
        raise EngineRefused(AD14)
    if status == K.BAD_CYCLE:
        raise RuntimeError("ERR AD27: something went wrong in get_weakest_link_in_cycle(...)")
    paths = counts.tolist()
    log.append(f"Virtual Lanes needed: {needed}")
    log.append("Paths per VL (before balancing):")
    log += [f"{i}. lane: {paths[i]}" for i in range(vls_avail)]
    before = list(paths)
    if needed > vls_avail:
        msg = (f"ERR AD25: Not enough VLs available (avail={vls_avail}, needed={needed}); "
               "Stopping dfsssp routing!")
        log.append(msg)
        raise EngineRefused(msg)
    split = [0] * vls_avail
    for i in range(min(needed, vls_avail)):
        split[i] = 1
    if needed < vls_avail:
        for _ in range(needed, vls_avail):
            best, most = 0, 0.0
            for t in range(needed):
                avg = paths[t] / split[t]
                if most < avg:
                    best, most = t, avg
            split[best] += 1
        for frm in range(needed - 1, 0, -1):
            to = sum(split[:frm])
            K.change_vl(vl, frm, to, paths[frm])
            split[to], split[frm] = split[frm], 0
            paths[to], paths[frm] = paths[frm], 0
    log.append("Approx. #paths per VL (after balancing):")
    after = []
    j, cnt = 0, 1
    for i in range(vls_avail):
        if split[i] > 0:
            j, cnt = i, split[i]
        after.append(paths[j] // cnt)
        log.append(f"{i}. lane: {after[-1]}")
    row = idx_of.astype(np.int32)
    sp = np.zeros(16, np.uint8)
    sp[:vls_avail] = split
    psl = PathSL("dfsssp", row, row.copy(), vl, sp, needed)
    return VlResult(psl, needed, before, after, split, log)
