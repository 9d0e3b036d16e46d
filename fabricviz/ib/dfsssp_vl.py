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

The search order decides which edges are cut, so the CDG is kept as OpenSM keeps it: nodes
in an unbalanced binary search tree keyed by channel ID (searched in pre-order for a node
not yet seen), each node's out-edges in the order they were first used, GRAY/BLACK marks
and DFS back-pointers that survive from one search to the next.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .lids import Lids
from .path_sl import PathSL
from .subnet import NO_PATH, Subnet

UNKNOWN, GRAY, BLACK = 0, 1, 2


class _Edge:
    __slots__ = ("node", "pairs", "removed")

    def __init__(self, node: "_Chan", pairs: list[int]):
        self.node = node
        self.pairs = list(pairs)
        self.removed = 0


class _Chan:
    __slots__ = ("key", "edges", "by_node", "status", "pre", "left", "right")

    def __init__(self, key: int):
        self.key = key
        self.edges: list[_Edge] = []
        self.by_node: dict[int, _Edge] = {}
        self.status = UNKNOWN
        self.pre: _Chan | None = None
        self.left: _Chan | None = None
        self.right: _Chan | None = None


class Cdg:
    """One VL's channel dependency graph (OpenSM's cdg_node_t tree)."""

    def __init__(self) -> None:
        self.root: _Chan | None = None
        self.nodes: dict[int, _Chan] = {}

    def _insert(self, key: int) -> _Chan:
        node = _Chan(key)
        self.nodes[key] = node
        cur = self.root
        if cur is None:
            self.root = node
            return node
        while True:
            if key < cur.key:
                if cur.left is None:
                    cur.left = node
                    break
                cur = cur.left
            else:
                if cur.right is None:
                    cur.right = node
                    break
                cur = cur.right
        return node

    def add_path(self, chans: list[int], pairs: list[int]) -> None:
        """update_channel_dep_graph for paths that all take ``chans``: new channels into the
        tree, and an edge (or the pairs added to it) between each two consecutive channels."""
        last: _Chan | None = None
        for key in chans:
            node = self.nodes.get(key)
            if node is None:
                node = self._insert(key)
            if last is not None:
                e = last.by_node.get(key)
                if e is None:
                    e = _Edge(node, pairs)
                    last.edges.append(e)
                    last.by_node[key] = e
                elif e.pairs:
                    e.pairs += pairs
                else:                       # emptied when its node turned BLACK
                    e.pairs = list(pairs)
                    e.removed = 0
            last = node

    def remove_path(self, chans: list[int]) -> None:
        """remove_path_from_cdg: count the path as removed on each of its edges still there."""
        last: _Chan | None = None
        for key in chans:
            node = self.nodes[key]
            if last is not None:
                e = last.by_node.get(key)
                if e is not None:
                    e.removed += 1
            last = node

    def next_unknown(self) -> _Chan | None:
        """get_next_cdg_node: the first node in pre-order not yet reached."""
        stack = [self.root] if self.root is not None else []
        while stack:
            node = stack.pop()
            if node.status == UNKNOWN:
                return node
            if node.right is not None:
                stack.append(node.right)
            if node.left is not None:
                stack.append(node.left)
        return None

    def find_cycle(self, start: _Chan) -> _Chan | None:
        """search_cycle_in_channel_dep_graph: DFS from ``start``; the GRAY node closing a cycle."""
        cur: _Chan | None = start
        while cur is not None:
            cur.status = GRAY
            nxt = None
            for e in cur.edges:
                st = e.node.status
                if st == UNKNOWN:
                    nxt = e.node
                    break
                if st == GRAY:
                    return e.node
            if nxt is not None:
                nxt.pre = cur
                cur = nxt
                continue
            cur.status = BLACK
            for e in cur.edges:             # a sink's pairs no longer matter
                e.pairs = []
                e.removed = 0
            if cur.pre is not None:
                back = cur.pre
                cur.pre = None
                cur = back
            else:
                cur = self.next_unknown()
        return None

    @staticmethod
    def cut_weakest(cycle: _Chan) -> _Edge:
        """get_weakest_link_in_cycle: walk the GRAY nodes from ``cycle`` back to it, resetting
        them, and unhook the edge with the fewest remaining pairs (the first such)."""
        def first_gray(node: _Chan) -> _Edge | None:
            return next((e for e in node.edges if e.node.status == GRAY), None)

        e = first_gray(cycle)
        if e is None:
            raise RuntimeError("ERR AD27: something went wrong in get_weakest_link_in_cycle(...)")
        weakest, owner, cur = e, cycle, e.node
        while True:
            cur.status = UNKNOWN
            e = first_gray(cur)
            if e is not None:
                if len(e.pairs) - e.removed < len(weakest.pairs) - weakest.removed:
                    weakest, owner = e, cur
                cur = e.node
            elif cur is not cycle:
                raise RuntimeError("ERR AD27: something went wrong in get_weakest_link_in_cycle(...)")
            if cur is cycle:
                cur.status = UNKNOWN
                break
        owner.edges.remove(weakest)
        del owner.by_node[weakest.node.key]
        return weakest


def subnet_vls(sn: Subnet, max_op_vls: int | None = None) -> int:
    """get_avail_vl_in_subn: the fewest operational VLs of any linked switch external port,
    as a VL count (1, 2, 4, 8; 15 at most). Ports run min(VLCap, peer's VLCap, max_op_vls)
    (:mod:`.qos`); ``max_op_vls`` None: the design's QoS options, else OpenSM's default."""
    from .qos import IB_PORT_CAPS, MAX_OP_VLS_DEFAULT, VL_CODE
    if max_op_vls is None:
        from .qos_meta import design_qos
        opts = design_qos(sn.fabric.meta)
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


class ChannelPaths:
    """(first switch, dlid) -> channel IDs the path takes between switches, walked through the
    LFTs for all switches and LIDs at once (OpenSM's channelID: local LID, local port, remote
    LID, remote port, 16 bits each; the hops out of and into a CA are not channels). Only
    switches with CAs start paths that have channels (a switch's own port 0 has no link)."""

    def __init__(self, sn: Subnet, lids: Lids, lft: np.ndarray, dlids: list[int]):
        S = sn.num_switches
        starts = np.unique(sn.ca_sw[sn.ca_sw >= 0]).astype(np.int64)
        L = len(dlids)
        self.col = {lid: i for i, lid in enumerate(dlids)}
        self.row = {int(s): i for i, s in enumerate(starts.tolist())}
        n = len(starts) * L
        d = np.asarray(dlids, np.int64)
        sw_lid = lids.sw_lid.astype(np.uint64)
        cur = np.repeat(starts, L)                            # row-major: (start, dlid)
        dl = np.tile(d, len(starts))
        alive = np.ones(n, bool)
        length = np.zeros(n, np.int64)
        steps: list[np.ndarray] = []
        self.broken = np.zeros(n, bool)                      # a hop without an LFT entry
        for _ in range(S + 1):
            p = lft[cur, dl].astype(np.int64)
            self.broken |= alive & (p == NO_PATH)
            p = np.where(p == NO_PATH, 0, p)
            t = np.where(p > 0, sn.nbr_sw[cur, p], -1)
            go = alive & (t >= 0)
            if not go.any():
                break
            ch = ((sw_lid[cur] << np.uint64(48)) | (p.astype(np.uint64) << np.uint64(32))
                  | (sw_lid[np.maximum(t, 0)] << np.uint64(16)) | sn.nbr_port[cur, p].astype(np.uint64))
            steps.append(np.where(go, ch, 0))
            length += go
            alive = go
            cur = np.where(go, t, cur)
        rows = np.stack(steps, axis=1).tolist() if steps else [[] for _ in range(n)]
        self.paths = [r[:m] for r, m in zip(rows, length.tolist())]

    def get(self, s0: int, dlid: int) -> list[int]:
        k = self.row[s0] * len(self.col) + self.col[dlid]
        if self.broken[k]:
            from .routing import EngineRefused
            raise EngineRefused("ERR AD14: cannot allocate memory for cdg node or link in "
                                "update_channel_dep_graph(...)")
        return self.paths[k]


def assign_vls(sn: Subnet, lids: Lids, lft: np.ndarray, order: list[tuple[str, int]],
               vls_avail: int) -> VlResult:
    """dfsssp_remove_deadlocks on the routes ``lft`` (destinations in ``order``)."""
    from .dfsssp import port_lids
    from .routing import EngineRefused
    log = [f"Virtual Lanes available: {vls_avail}"]
    ends = [(kind, idx, list(port_lids(sn, lids, kind, idx))) for kind, idx in order]
    all_lids = sorted(lid for _, _, ls in ends for lid in ls if lid)
    index = {lid: i for i, lid in enumerate(all_lids)}
    n = len(all_lids)
    vl = np.full((n, n), 255, np.uint8)           # [src index, dst index]; 255: no path
    port_of = np.empty(n, np.int64)                # LID index -> destination number
    first_sw = np.full(lids.max_lid + 1, -1, np.int64)   # LID -> switch its path starts at
    for k, (kind, idx, ls) in enumerate(ends):
        for lid in ls:
            port_of[index[lid]] = k
            if kind == "ca":
                first_sw[lid] = int(sn.ca_sw[idx])
    vl[port_of[:, None] != port_of[None, :]] = 0   # every pair of different ports starts on VL 0
    paths = [0] * vls_avail
    paths[0] = int(np.count_nonzero(vl == 0))
    chans = ChannelPaths(sn, lids, lft, all_lids)
    cdg = [Cdg() for _ in range(vls_avail)]
    # runs of consecutive CA sources on one switch: their paths to a LID are the same, so
    # their pairs go into the CDG together (the order of pairs on every edge is kept)
    runs: list[tuple[int, list[tuple[int, list[int]]]]] = []
    for k, (kind, idx, ls) in enumerate(ends):
        if kind != "ca" or not ls:
            continue
        s0 = int(sn.ca_sw[idx])
        if runs and runs[-1][0] == s0:
            runs[-1][1].append((k, ls))
        else:
            runs.append((s0, [(k, ls)]))
    g0 = cdg[0]
    pend_key: tuple[int, int] | None = None
    pend: list[int] = []
    for k_dst, (_, _, dls) in enumerate(ends):
        for s0, members in runs:
            if len(dls) == 1:
                dlid = dls[0]
                batch = [(slid << 16) | dlid for k, ls in members if k != k_dst for slid in ls]
                calls = [((s0, dlid), batch)] if batch else []
            else:
                calls = [((s0, dlid), [(slid << 16) | dlid]) for k, ls in members if k != k_dst
                         for slid in ls for dlid in dls]
            for key, batch in calls:
                if key == pend_key:
                    pend += batch
                    continue
                if pend_key is not None:
                    g0.add_path(chans.get(*pend_key), pend)
                pend_key, pend = key, batch
    if pend_key is not None:
        g0.add_path(chans.get(*pend_key), pend)
    needed = 1
    for test in range(vls_avail - 1):
        g = cdg[test]
        start = g.root
        while start is not None:
            cycle = g.find_cycle(start)
            if cycle is not None:
                needed = test + 2
                weak = g.cut_weakest(cycle)
                paths[test] -= len(weak.pairs)
                paths[test + 1] += len(weak.pairs)
                for pair in weak.pairs:
                    slid, dlid = pair >> 16, pair & 0xFFFF
                    a, b = index[slid], index[dlid]
                    if vl[a, b] != test:          # moved before: not counted twice
                        paths[test] += 1
                        paths[test + 1] -= 1
                        continue
                    c = chans.get(int(first_sw[slid]), dlid)
                    g.remove_path(c)
                    cdg[test + 1].add_path(c, [pair])
                    vl[a, b] = test + 1
            start = cycle
    last = cdg[vls_avail - 1]
    if last.root is not None and last.find_cycle(last.root) is not None:
        needed = vls_avail + 1
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
            _change_vl(vl, frm, to, paths[frm])
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
    max_lid = lids.max_lid
    row = np.full(max_lid + 1, -1, np.int32)
    row[np.array(all_lids, np.int64)] = np.arange(n, dtype=np.int32)
    sp = np.zeros(16, np.uint8)
    sp[:vls_avail] = split
    psl = PathSL("dfsssp", row, row.copy(), vl, sp, needed)
    return VlResult(psl, needed, before, after, split, log)


def _change_vl(vl: np.ndarray, frm: int, to: int, count: int) -> None:
    """vltable_change_vl: the first ``count`` paths on ``frm`` (source-major order) to ``to``.
    OpenSM's table is column-major (source index + destination index × n), scanned source
    outer, destination inner."""
    if count <= 0:
        return
    hit = np.argwhere(vl == frm)          # row-major: source outer, destination inner
    hit = hit[hit[:, 0] != hit[:, 1]][:count]
    vl[hit[:, 0], hit[:, 1]] = to
