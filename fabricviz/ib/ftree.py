"""Fat-tree routing (OpenSM's ``ftree`` engine): build the tree, validate it, route it.

The result must equal OpenSM 3.3's ``osm_ucast_ftree.c`` LFT for LFT, so this
module follows its construction step by step (the routing walk is at the end,
:func:`route_tree_reference`, as OpenSM writes it; :mod:`.ftree_route` runs the
same walk compiled):

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

from .engine_types import EngineRefused, RoutingInfo
from .lids import Lids
from .subnet import NO_PATH, Subnet, osm_order
from .ucast import compiled

MIN_RANK, MAX_RANK = 2, 8          # tree rank (switch levels) OpenSM accepts
TUPLE_LEN = 8
UNSET = 0xFF


def _refused(msg: str) -> EngineRefused:
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


def route_ftree(sn: Subnet, lids: Lids, dist: np.ndarray) -> tuple[np.ndarray, RoutingInfo]:
    """OpenSM ftree LFTs [S, max_lid+1] (255 = none) and info; raises EngineRefused."""
    ft = build_ftree(sn, lids, dist)
    if compiled(sn, lids):
        from .ftree_route import route_tree  # numba on use: loaded only for a big fabric
        lft, ca_order = route_tree(ft, lids)
    else:                                 # small: the reference walk is done before numba loads
        lft, ca_order = route_tree_reference(ft, lids)
    names = [sn.switch_name(s) for s in range(sn.num_switches)]
    info = RoutingInfo(
        ranks=np.asarray(ft.rank, np.int64),
        tree_rank=ft.leaf_rank + 1,
        roots=[names[s] for s in range(sn.num_switches) if ft.rank[s] == 0],
        leaf_switches=[names[s] for s in ft.leaf_switches],
        switch_index={names[s]: tuple_str(ft.tuples[s]) for s in range(sn.num_switches)},
        max_cn_per_leaf=ft.max_cn_per_leaf,
        ca_order=ca_order,
    )
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
    # CA ports per node, nodes in GUID-map order, ports by number (ties: discovery order)
    dev_pos = np.empty(len(devs), np.int64)
    dev_pos[osm_order(node_guid)] = np.arange(len(devs))
    node_of = dev_pos[np.searchsorted(devs, ca_dev)]
    by_node = np.lexsort((np.arange(len(ca_dev)), pt.num[sn.ca_ports], node_of))
    cuts = np.flatnonzero(np.diff(node_of[by_node])) + 1
    ca_nodes: list[list[int]] = [a.tolist() for a in np.split(by_node, cuts)]
    ca_sw = sn.ca_sw.tolist()

    def sw_ref(s: int) -> str:
        return f"0x{int(sn.sw_guid[s]):016x} ({names[s]})"

    # ---- ranking (fabric_rank_from_hcas + fabric_rerank_using_root)
    for node in ca_nodes:
        for j in node:
            if ca_sw[j] < 0:
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
    for j, (s, p) in enumerate(zip(sn.ca_sw.tolist(), sn.ca_sw_port.tolist(), strict=True)):
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
                ca = ca_at.get((s, p))
                if ca is None:
                    continue                      # not an end port OpenSM knows (router…)
                direction, rlid, remote = -1, ca_lid[ca], -1
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
            s = ca_sw[j]
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


# --------------------------------------------------------------------------- reference walk


def route_tree_reference(ft: FatTree, lids: Lids) -> tuple[np.ndarray, list]:
    """OpenSM's ``do_routing`` walk as written, one port group at a time (it re-sorts
    ``ft``'s group arrays in place): the specification the compiled walk in
    :mod:`.ftree_route` must equal (tests compare the two); see that module's notes."""
    S = len(ft.rank)
    rank, up, down, sib = ft.rank, ft.up, ft.down, ft.sib
    g_remote, g_ports = ft.g_remote, ft.g_ports
    e_rnum = ft.e_rnum
    sw_lid = ft.sw_lid
    tuples = ft.tuples
    ng, ne = len(g_remote), len(e_rnum)
    g_cup = [0] * ng
    g_cdown = [0] * ng
    e_cup = [0] * ne
    e_cdown = [0] * ne
    changed = [False] * S
    # remote index of each group's far switch (CA groups never get sorted by it)
    g_key = [tuples[r] if r >= 0 else (0xFF,) * 8 for r in g_remote]
    up_key = lambda g: (g_cup[g], g_key[g])          # noqa: E731  port_group_compare_load_up
    down_key = lambda g: (g_cdown[g], g_key[g])      # noqa: E731  ..._load_down (see notes)
    empty = bytes([NO_PATH]) * S
    lft = bytearray()                                # per-destination columns, set per destination
    hops = bytearray()

    # switches whose down groups all lead to CAs (leaves) and that have no siblings: the
    # walk below them only reports "a route was created"
    ends_here = [bool(down[s]) and not sib[s] and all(g_remote[g] < 0 for g in down[s])
                 for s in range(S)]

    def upgoing(s: int, prev: int, lid: int, h: int) -> bool:
        if ends_here[s]:
            return True
        downs = down[s]
        if not downs:
            return False
        if changed[s]:
            downs.sort(key=up_key)
            changed[s] = False
        sibs = sib[s]
        if sibs:
            sibs.sort(key=up_key)
        # (no call below re-sorts this switch's arrays, so a copy iterates like OpenSM's index)
        groups = downs + sibs if lid and sibs else downs
        created = False
        h1 = h + 1
        for g in groups:
            r = g_remote[g]
            if r < 0:
                created = True
                continue
            # already routed at least as short (unset = 255 > h1); the switch we came
            # up from is always among these, OpenSM's explicit test follows
            if hops[r] <= h1 or r == prev:
                continue
            ports = g_ports[g]
            p = ports[0]
            if len(ports) > 1:
                best = e_cup[p]
                for q in ports:
                    if e_cup[q] < best:
                        p, best = q, e_cup[q]
            lft[r] = e_rnum[p]
            hops[r] = h1
            if upgoing(r, -1, lid, h1):
                created = True
                e_cup[p] += 1
                g_cup[g] += 1
                changed[s] = True
        return created

    def min_down_port(g: int) -> int:
        ports = g_ports[g]
        p = ports[0]
        if len(ports) > 1:
            best = e_cdown[p]
            for q in ports:
                if e_cdown[q] < best:
                    p, best = q, e_cdown[q]
        return p

    def downgoing(s: int, prev: int, lid: int, main: bool, h: int) -> bool:
        created = upgoing(s, prev, lid, h)
        if rank[s] == 0:
            return created
        ups = up[s]
        if len(ups) > 1:
            ups.sort(key=down_key)
        gmin = ups[0]
        pmin = min_down_port(gmin)
        h1 = h + 1
        if main:
            r = g_remote[gmin]
            g_cdown[gmin] += 1
            e_cdown[pmin] += 1
            if lft[r] == NO_PATH or h1 < hops[r]:
                lft[r] = e_rnum[pmin]
                hops[r] = h1
            if downgoing(r, s, lid, True, h1):
                created = True
        for i in range(1 if main else 0, len(ups)):
            g = ups[i]
            r = g_remote[g]
            if lft[r] != NO_PATH and h1 >= hops[r]:
                continue
            p = min_down_port(g)
            lft[r] = e_rnum[p]
            hops[r] = h1
            if downgoing(r, s, lid, False, h1):
                created = True
        sibs = sib[s]
        if sibs:
            if len(sibs) > 1:
                sibs.sort(key=down_key)
            for i in range(len(sibs)):
                g = sibs[i]
                r = g_remote[g]
                if lft[r] != NO_PATH and h1 >= hops[r]:
                    continue
                p = min_down_port(g)
                lft[r] = e_rnum[p]
                hops[r] = h1
                if downgoing(r, s, lid, False, h1):
                    created = True
                    g_cdown[gmin] += 1
                    e_cdown[pmin] += 1
        return created

    cols: dict[int, bytes] = {}
    ca_order: list = []
    # route_to_cns: every CA port is a CN in the default configuration
    for s in ft.leaf_switches:
        n_real = 0
        downs = down[s]
        for j in range(len(downs)):
            g = downs[j]
            if g_remote[g] >= 0:
                continue
            lid = ft.g_rlid[g]
            lft = bytearray(empty)
            hops = bytearray(empty)
            lft[s] = ft.e_num[g_ports[g][0]]
            hops[s] = 1
            downgoing(s, -1, lid, True, 1)
            cols[lid] = bytes(lft)
            ca_order.append(lid)
            n_real += 1
        for _ in range(ft.max_cn_per_leaf - n_real):
            lft = bytearray(empty)
            hops = bytearray(empty)
            hops[s] = 1
            downgoing(s, -1, 0, True, 1)
            ca_order.append(None)
    # route_to_non_cns: nothing to do without a CN file (every linked CA port is a CN)
    # route_to_switches: switch LIDs, no down-going load counted
    for s in range(S):
        lid = sw_lid[s]
        lft = bytearray(empty)
        hops = bytearray(empty)
        lft[s] = 0
        hops[s] = 0
        downgoing(s, -1, lid, False, 0)
        cols[lid] = bytes(lft)

    out = np.full((S, lids.max_lid + 1), NO_PATH, np.uint8)
    if cols:
        keys = np.fromiter(cols.keys(), np.int64, len(cols))
        block = np.frombuffer(b"".join(cols.values()), np.uint8).reshape(len(cols), S)
        out[:, keys] = block.T
    return out, ca_order
