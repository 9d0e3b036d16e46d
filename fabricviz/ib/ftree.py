"""Fat-tree routing (OpenSM's ``ftree`` engine): build the tree, validate it, route it.

The result must equal OpenSM 3.3's ``osm_ucast_ftree.c`` LFT for LFT, so this
module follows its construction step by step (the routing walk itself lives in
:mod:`.ftree_route`):

1. refuse LMC > 0, fewer than 2 switches or 2 CA nodes;
2. rank: every switch with a CA gets reversed rank 0, BFS over switch links,
   reverse (farthest = 0), then BFS again from those rank-0 switches (roots);
   only one rank overall (max rank 0) is refused;
3. port groups: per switch, all ports to one remote LID form a group, UP
   (remote rank lower), DOWN (higher, or a CA) or SIBLING (same rank), ports
   in port-number order; CA ports are all compute nodes (no CN/IO files);
4. leaf switches = switches with CNs, all of the leaf rank (= max rank);
5. indexing (``bfs_fabric_indexing``): a tuple (rank, digits…) per switch by
   BFS from the first leaf in GUID-map order; non-leaf down groups and all up
   groups are sorted by remote tuple;
6. the leaf array = switches of leaf rank sorted by tuple, cut to the span
   between the first and last switch that has CNs;
7. validation: per rank, the same number of up groups, of down groups (not at
   the leaf rank) and of ports per up/down group as the first switch of that
   rank in GUID-map order (including OpenSM's quirk of checking only the first
   down group).

Iteration orders follow OpenSM's maps: switches and CA nodes by byte-swapped
node GUID (:func:`~fabricviz.ib.subnet.osm_order`). Refusals raise
``EngineRefused`` with OpenSM's own log text (switch names added after GUIDs),
so ``fallback_reason`` reads like OpenSM's log.

Not modelled (default configuration only): root GUID file, CN/IO GUID files
and reverse hops, ``quasi_ftree_indexing``, ``connect_roots``. The hooks are
``roots``/``cn_ports`` parameters of :func:`build_ftree`, unused for now.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .lids import Lids
from .subnet import NO_PATH, Subnet, osm_order

MIN_RANK, MAX_RANK = 2, 8          # tree rank (switch levels) OpenSM accepts
TUPLE_LEN = 8
UNSET = 0xFF


def _refused(msg: str):
    from .routing import EngineRefused
    return EngineRefused(msg)


@dataclass
class FatTree:
    """OpenSM's ftree fabric, in flat lists (switch index = Subnet order = OpenSM's sw_tbl order).

    Groups: ``g_owner`` switch, ``g_remote`` switch (-1: a CA port), ``g_rlid`` remote LID,
    ``g_ports`` port entries. Port entries: ``e_num`` local port, ``e_rnum`` remote port.
    """

    sn: Subnet
    rank: list[int]
    sw_lid: list[int]
    leaf_rank: int
    tuples: list[tuple[int, ...]]
    is_leaf: list[bool]
    up: list[list[int]]
    down: list[list[int]]
    sib: list[list[int]]
    g_owner: list[int]
    g_remote: list[int]
    g_rlid: list[int]
    g_ports: list[list[int]]
    e_num: list[int]
    e_rnum: list[int]
    ca_nodes: list[list[int]]           # per CA node (hca_tbl order): CA port indices (Subnet), port order
    leaf_switches: list[int] = field(default_factory=list)
    max_cn_per_leaf: int = 0


def tuple_str(t: tuple[int, ...]) -> str:
    """OpenSM's index text: "2.0.1", or INDEX.NOT.ASSIGNED."""
    if t[0] == UNSET:
        return "INDEX.NOT.ASSIGNED"
    out = []
    for b in t:
        if b == UNSET:
            break
        out.append(str(b))
    return ".".join(out)


def route_ftree(sn: Subnet, lids: Lids, dist: np.ndarray) -> tuple[np.ndarray, dict]:
    """OpenSM ftree LFTs [S, max_lid+1] (255 = none) and info; raises EngineRefused."""
    from .ftree_route import route_tree
    ft = build_ftree(sn, lids, dist)
    lft, ca_order = route_tree(ft, lids)
    names = [sn.switch_name(s) for s in range(sn.num_switches)]
    info = {
        "ranks": np.asarray(ft.rank, np.int64),
        "tree_rank": ft.leaf_rank + 1,
        "roots": [names[s] for s in range(sn.num_switches) if ft.rank[s] == 0],
        "leaf_switches": [names[s] for s in ft.leaf_switches],
        "switch_index": {names[s]: tuple_str(ft.tuples[s]) for s in range(sn.num_switches)},
        "max_cn_per_leaf": ft.max_cn_per_leaf,
        "ca_order": ca_order,
    }
    return lft, info


# --------------------------------------------------------------------------- construction


def build_ftree(sn: Subnet, lids: Lids, dist: np.ndarray,
                roots: list[int] | None = None, cn_ports: set[int] | None = None) -> FatTree:
    """OpenSM's ``construct_fabric``: everything up to and including validation."""
    if roots is not None or cn_ports is not None:
        raise NotImplementedError("ftree root/CN GUID files are not supported yet")
    f = sn.fabric
    S = sn.num_switches
    names = [sn.switch_name(s) for s in range(S)]
    if lids.lmc > 0:
        raise _refused("LMC > 0 is not supported by fat-tree routing. Falling back to default routing")
    if S < 2:
        raise _refused(f"Fabric has {S} switches - topology is not fat-tree. "
                       "Falling back to default routing")
    pt, dt = f.ports_t, f.devices_t
    ca_dev = pt.device[sn.ca_ports].astype(np.int64)
    devs = np.unique(ca_dev)
    if len(devs) < 2:
        raise _refused(f"Fabric has {len(devs) + S} nodes ({S} switches) - topology is not fat-tree. "
                       "Falling back to default routing")
    node_guid = dt.guid[devs].astype(np.uint64)
    ca_nodes: list[list[int]] = []
    for d in devs[osm_order(node_guid)].tolist():
        js = np.flatnonzero(ca_dev == d)
        ca_nodes.append(js[np.argsort(pt.num[sn.ca_ports[js]], kind="stable")].tolist())

    def sw_ref(s: int) -> str:
        return f"0x{int(sn.sw_guid[s]):016x} ({names[s]})"

    # ---- ranking (fabric_rank_from_hcas + fabric_rerank_using_root)
    for node in ca_nodes:
        for j in node:
            if sn.ca_sw[j] < 0:
                peer = f.port(int(sn.ca_ports[j])).peer
                if peer is not None and not peer.device.is_switch:
                    a = int(dt.guid[int(pt.device[sn.ca_ports[j]])])
                    raise _refused(
                        f"ERR AB0F: CA connected directly to another CA: 0x{a:016x} <---> "
                        f"0x{int(peer.device.guid):016x}; ERR AB14: Subnet ranking failed - "
                        "subnet is not FatTree; Failed ranking the tree")
    with_ca = np.unique(sn.ca_sw[sn.ca_sw >= 0])
    d = dist.astype(np.int64)
    d[dist == NO_PATH] = 1 << 30
    rev = d[with_ca].min(axis=0) if len(with_ca) else np.full(S, 1 << 30)
    ranked = rev < (1 << 30)
    max_rev = int(rev[ranked].max()) if ranked.any() else 0
    top = ranked & (rev == max_rev)              # reversed rank 0: the roots
    rank_arr = d[top].min(axis=0) if top.any() else np.full(S, 1 << 30)
    if (rank_arr >= (1 << 30)).any():
        # OpenSM drops unranked switches (and their CAs); a discovered subnet is connected
        lost = [names[s] for s in np.flatnonzero(rank_arr >= (1 << 30)).tolist()]
        raise _refused(f"switches unreachable from the tree roots: {', '.join(lost[:5])}")
    max_rank = int(rank_arr.max())
    if max_rank == 0 and S > 1:
        raise _refused("ERR AB2B: Found more than one root on fabric with maximum rank 0")
    rank = rank_arr.tolist()
    sw_lid = lids.sw_lid.tolist()

    # ---- port groups (fabric_populate_ports); CA side: every linked CA port is a CN
    ca_lid = lids.ca_lid.tolist()
    ca_at = {}                                    # (switch, port) -> CA port index
    for j, (s, p) in enumerate(zip(sn.ca_sw.tolist(), sn.ca_sw_port.tolist())):
        if s >= 0:
            ca_at[(s, p)] = j
    up: list[list[int]] = [[] for _ in range(S)]
    down: list[list[int]] = [[] for _ in range(S)]
    sib: list[list[int]] = [[] for _ in range(S)]
    g_owner: list[int] = []
    g_remote: list[int] = []
    g_rlid: list[int] = []
    g_ports: list[list[int]] = []
    e_num: list[int] = []
    e_rnum: list[int] = []
    nbr_sw, nbr_port, nbr_dev = sn.nbr_sw.tolist(), sn.nbr_port.tolist(), sn.nbr_dev.tolist()
    for s in range(S):
        by_lid: dict[tuple[int, int], int] = {}
        for p in range(1, int(sn.sw_nports[s]) + 1):
            if nbr_dev[s][p] < 0:
                continue
            r = nbr_sw[s][p]
            if r == s:
                continue                          # loopback cable
            if r < 0:
                j = ca_at.get((s, p))
                if j is None:
                    continue                      # not an end port OpenSM knows (router…)
                direction, rlid, remote = -1, ca_lid[j], -1
            else:
                direction = 1 if rank[s] > rank[r] else (0 if rank[s] == rank[r] else -1)
                rlid, remote = sw_lid[r], r
            g = by_lid.get((direction, rlid))
            if g is None:
                g = len(g_owner)
                by_lid[(direction, rlid)] = g
                g_owner.append(s)
                g_remote.append(remote)
                g_rlid.append(rlid)
                g_ports.append([])
                (up if direction == 1 else down if direction == -1 else sib)[s].append(g)
            e_num.append(p)
            e_rnum.append(nbr_port[s][p])
            g_ports[g].append(len(e_num) - 1)
    ft = FatTree(sn, rank, sw_lid, max_rank, [(UNSET,) * TUPLE_LEN] * S, [False] * S,
                 up, down, sib, g_owner, g_remote, g_rlid, g_ports, e_num, e_rnum, ca_nodes)
    tree_rank = max_rank + 1
    if not MIN_RANK <= tree_rank <= MAX_RANK:
        raise _refused(f"Fabric rank is {tree_rank} (should be between {MIN_RANK} and {MAX_RANK})")

    # ---- leaf switches (fabric_mark_leaf_switches)
    for node in ca_nodes:
        for j in node:
            s = int(sn.ca_sw[j])
            if s < 0 or ft.is_leaf[s]:
                continue
            ft.is_leaf[s] = True
            if rank[s] != max_rank:
                raise _refused(
                    f"ERR AB26: CN port 0x{int(sn.ca_guid[j]):x} is connected to switch "
                    f"0x{int(sn.sw_guid[s]):x} ({names[s]}) with rank {rank[s]}, "
                    f"while FatTree leaf rank is {max_rank}; Fabric topology is not a fat-tree")

    _index(ft)
    _leaf_array(ft)
    if not ft.leaf_switches:
        raise _refused("Failed to find leaf switches - topology is not fat-tree; "
                       "Fabric topology is not a fat-tree")
    ca_groups = 0
    for s in ft.leaf_switches:
        n = sum(1 for g in down[s] if g_remote[g] < 0)
        ca_groups = max(ca_groups, n)
    ft.max_cn_per_leaf = ca_groups
    _validate(ft, sw_ref)
    return ft


def _index(ft: FatTree) -> None:
    """``bfs_fabric_indexing`` from the first leaf in GUID-map order (quasi indexing off)."""
    first = next(s for s in range(len(ft.rank)) if ft.is_leaf[s])
    L = ft.leaf_rank
    used: set[tuple[int, ...]] = set()
    tuples = list(ft.tuples)

    def assign(s: int, t: tuple[int, ...]) -> None:
        tuples[s] = t
        used.add(t)

    def new_tuple(frm: tuple[int, ...], down: bool) -> tuple[int, ...]:
        t = list(frm)
        if down:
            t[0] += 1
            var = frm[0] + 1
        else:
            t[0] -= 1
            var = frm[0]
        for i in range(UNSET):
            t[var] = i
            if tuple(t) not in used:
                return tuple(t)
        raise _refused("more than 255 switches share one fat-tree index digit")

    t0 = [UNSET] * TUPLE_LEN
    t0[0] = ft.rank[first]
    for i in range(1, L + 1):
        t0[i] = 0
    assign(first, tuple(t0))
    queue = [first]
    head = 0
    while head < len(queue):
        s = queue[head]
        head += 1
        if ft.rank[s] < L:
            for g in ft.down[s]:
                r = ft.g_remote[g]
                if r < 0 or tuples[r][0] != UNSET:
                    continue
                assign(r, new_tuple(tuples[s], True))
                queue.append(r)
            ft.down[s].sort(key=lambda g: tuples[ft.g_remote[g]])
        if ft.rank[s] != 0:                      # the first switch is a leaf, never a root
            for g in ft.up[s]:
                r = ft.g_remote[g]
                if tuples[r][0] != UNSET:
                    continue
                assign(r, new_tuple(tuples[s], False))
                queue.append(r)
            ft.up[s].sort(key=lambda g: tuples[ft.g_remote[g]])
    ft.tuples = tuples


def _leaf_array(ft: FatTree) -> None:
    """Switches of leaf rank sorted by index (stable: glibc qsort is a merge sort), cut to
    the span from the first to the last switch with CNs; fewer than two such switches → none."""
    at_leaf = [s for s in range(len(ft.rank)) if ft.rank[s] == ft.leaf_rank]
    at_leaf.sort(key=lambda s: ft.tuples[s])
    real = [i for i, s in enumerate(at_leaf) if ft.is_leaf[s]]
    if len(real) < 2 or real[0] >= real[-1]:
        ft.leaf_switches = []
        return
    ft.leaf_switches = at_leaf[real[0]:real[-1] + 1]


def _validate(ft: FatTree, sw_ref) -> None:
    """``fabric_validate_topology``: compare every switch with the first of its rank."""
    ref: dict[int, int] = {}
    tree_rank = ft.leaf_rank + 1
    tail = "; ERR AB0D: Fabric topology hasn't been identified as FatTree; Fabric topology is not a fat-tree"

    def who(s: int) -> str:
        return f"GUID {sw_ref(s)}, LID {ft.sw_lid[s]}, Index {tuple_str(ft.tuples[s])}"

    for s in range(len(ft.rank)):
        r = ft.rank[s]
        if r not in ref:
            ref[r] = s
            continue
        a = ref[r]
        if len(ft.up[a]) != len(ft.up[s]):
            raise _refused(f"ERR AB09: Different number of upward port groups on switches: "
                           f"{who(a)} - {len(ft.up[a])} groups {who(s)} - {len(ft.up[s])} groups" + tail)
        if r != tree_rank - 1 and len(ft.down[a]) != len(ft.down[s]):
            raise _refused(f"ERR AB0A: Different number of downward port groups on switches: "
                           f"{who(a)} - {len(ft.down[a])} port groups {who(s)} - "
                           f"{len(ft.down[s])} port groups" + tail)
        if ft.up[a]:
            n_ref = len(ft.g_ports[ft.up[a][0]])
            for g in ft.up[s]:
                if len(ft.g_ports[g]) != n_ref:
                    raise _refused(f"ERR AB0B: Different number of ports in an upward port group on "
                                   f"switches: {who(a)} - {n_ref} ports {who(s)} - "
                                   f"{len(ft.g_ports[g])} ports" + tail)
        if ft.down[a] and r != tree_rank - 1:
            n_ref = len(ft.g_ports[ft.down[a][0]])
            # OpenSM compares the first down group every time (its loop never uses i)
            for _g in ft.down[s]:
                n = len(ft.g_ports[ft.down[s][0]])
                if n != n_ref:
                    raise _refused(f"ERR AB0C: Different number of ports in an downward port group on "
                                   f"switches: {who(a)} - {n_ref} ports {who(s)} - {n} ports" + tail)
