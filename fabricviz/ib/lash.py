"""LASH routing (LAyered SHortest path) as OpenSM 3.3.23 computes it (``osm_ucast_lash.c``).

Every switch pair gets one shortest path each way, from breadth-first trees (root by root in
OpenSM's switch order, the first tree that covers a (switch, destination) entry decides it);
pairs are then put on virtual layers so that no layer's channel dependency graph has a cycle
(:mod:`.lash_cdg`), and the layers are balanced. A path's SL is its pair's layer plus
``lash_start_vl``; paths between ports on one switch get ``lash_start_vl``.

What OpenSM does that this reproduces: the layers available are the smallest operational VL
count of any linked switch port (at routing time; on the first sweep that is what the port came
up with — its VLCap under ibsim — so ``max_op_vls`` does not limit it yet) minus the start VL,
at most 15; ERR 4D03 when the start VL is not below it, ERR 4D02 when the pairs need more
layers; either refusal makes OpenSM route with minhop (and hand out SL 0). The LFTs send each
LID toward its port's switch over the tree link (the first cable to that neighbour; no mesh
analysis, OpenSM's default ``do_mesh_analysis FALSE``).

The layer work runs compiled (:mod:`.lash_kernels`, its cycle check in :mod:`.lash_order`, the
cycles of refused dependencies kept in :mod:`.lash_memo`);
:mod:`.lash_cdg` is the same in Python, kept as the readable reference and the fallback when a
compiled array bound is hit. When the channel dependencies of all paths together have no
cycle (leaf/spine fabrics), every pair is on layer 0 in one step (:mod:`.lash_fast`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping

import numpy as np

from .engine_types import EngineRefused, RoutingInfo
from .lash_cdg import GlibcRandom, Layers, NotEnoughLanes, assign_layers, balance
from .lids import Lids
from .path_sl import PathSL
from .qos import IB_PORT_CAPS, MAX_OP_VLS_DEFAULT, VL_CODE, PortCaps
from .qos_meta import design_qos
from .subnet import NO_PATH, Subnet

MAX_LASH_VLS = 15


def route_lash(sn: Subnet, lids: Lids, dist: np.ndarray | None = None,
               progress: Callable[[int, int], None] | None = None, *, start_vl: int = 0,
               first_sweep: bool = True, max_op_vls: int | None = None,
               caps: PortCaps = IB_PORT_CAPS, caps_by_guid: Mapping[int, PortCaps] | None = None,
               seed: int = 1, literal_search: bool = False, compiled: bool = True,
               one_step: bool = True) -> tuple[np.ndarray, RoutingInfo]:
    """LFTs [S, max_lid+1] and info (``path_sl``, ``vls_used``, ``log``, layer counts) of LASH.

    ``start_vl``: OpenSM's ``lash_start_vl``. ``first_sweep``: the ports' operational VLs are
    what they came up with (their VLCap, as in OpenSM's first sweep under ibsim); False: what
    OpenSM has set since (min of both ends' VLCap, capped by ``max_op_vls``, default the
    design's QoS option or 5). ``seed``: glibc ``srandom`` seed behind balancing: OpenSM's ``scatter_ports``
    when set (it seeds with it before routing), else 1 (never seeded).
    ``literal_search``: OpenSM's own depth-first cycle search in every layer (slow; it checks
    the ordered one); ``compiled=False``: the Python layers (:mod:`.lash_cdg`) instead of
    :mod:`.lash_kernels` (the same steps). ``one_step`` (compiled only): when the CDG of all
    paths together is acyclic, every pair is on layer 0 without a trial (:mod:`.lash_fast`
    says why that is the same answer); False: the pair-by-pair assignment always.
    EngineRefused: ERR 4D03 / 4D02 with OpenSM's text.
    """
    S = sn.num_switches
    log: list[str] = []
    links = switch_links(sn)
    vl_min = min_operational_vls(sn, first_sweep, max_op_vls, caps, caps_by_guid)
    if start_vl >= vl_min:
        raise EngineRefused(f"ERR 4D03: Start VL({start_vl}) too high for min operational vl({vl_min})")
    avail = vl_min - start_vl
    log.append(f"min operational vl({avail}) start vl({start_vl}) max_switches({S})")
    out_link = tree_routes(S, links)
    nxt = np.full((S, S), -1, np.int32)
    for s in range(S):
        row = out_link[s]
        ok = row >= 0
        nxt[s, ok] = np.array([t for t, _ in links[s]], np.int32)[row[ok]] if links[s] else []
    got = None
    if compiled and not literal_search:
        chans = channel_table(links)
        got = _one_layer(S, avail) if one_step and _union_acyclic(nxt, chans) else None
        if got is None:
            got = _layers_compiled(S, avail, nxt, chans, links, seed)
    if got is None:
        paths = _PathCache(nxt)
        layers = Layers(S, avail, paths.get, literal_search)
        try:
            lane, needed, counts, vloc = assign_layers(layers, avail, progress)
        except NotEnoughLanes as e:
            raise _not_enough(log, e.needed, avail, start_vl) from None
        before = counts[:needed]
        counts = list(counts)
        calls = balance(layers, lane, needed, counts, vloc, GlibcRandom(seed))
        zombies, events = layers.zombies, layers.zombie_events
    else:
        status, lane_a, needed, before_a, counts_a, calls, zombies, events = got
        if status == 2:
            raise _not_enough(log, needed, avail, start_vl)
        lane = lane_a
        before, counts = before_a[:needed].tolist(), counts_a.tolist()
    log += [f"Lanes in layer {i}: {n}" for i, n in enumerate(before)]
    log.append(f"Lanes needed: {needed}, Balancing")
    log += [f"Lanes in layer {i}: {n}" for i, n in enumerate(counts[:needed])]
    lid_sw, local_port = lid_switches(sn, lids)
    lft = build_lft(S, links, out_link, lid_sw, local_port)
    table = np.asarray(lane, np.int16) + start_vl
    np.fill_diagonal(table, start_vl)
    path_sl = PathSL("lash", lid_sw.astype(np.int32), lid_sw.astype(np.int32), table.astype(np.uint8),
                     np.ones(16, np.uint8), needed, same_switch_sl=start_vl, default=0)
    info = RoutingInfo(path_sl=path_sl, vls_used=needed, log=log, start_vl=start_vl,
                       vl_min=vl_min, lanes_in_layer=counts[:needed], lanes_before_balancing=before,
                       rand_calls=calls, zombies=int(zombies),
                       zombie_events=int(events))
    return lft, info


def _not_enough(log: list[str], needed: int, avail: int, start_vl: int) -> EngineRefused:
    return EngineRefused("; ".join(log) + f"; ERR 4D02: Lane requirements ({needed}) exceed available "
                         f"lanes ({avail}) with starting lane ({start_vl})")


def channel_table(links: list[list[tuple[int, int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The channels (switch a to a neighbour b ≠ a: OpenSM's cdg_vertex_matrix[lane][a][b]),
    numbered switch by switch, neighbours in ascending order: (chan [S, S] (-1: not
    neighbours), base [S+1] (switch a's channels are base[a]:base[a+1]), head (channel → b))."""
    S = len(links)
    chan = np.full((S, S), -1, np.int32)
    base = np.zeros(S + 1, np.int64)
    heads: list[int] = []
    for a, row in enumerate(links):
        far = sorted({t for t, _ in row if t != a})
        chan[a, far] = np.arange(len(heads), len(heads) + len(far), dtype=np.int32)
        heads += far
        base[a + 1] = len(heads)
    return chan, base, np.array(heads, np.int32)


def _union_acyclic(nxt: np.ndarray, chans: tuple[np.ndarray, np.ndarray, np.ndarray]) -> bool:
    from .lash_fast import union_cdg_acyclic  # numba on use
    return bool(union_cdg_acyclic(nxt, *chans))


def _one_layer(S: int, avail: int):
    """What the pair-by-pair assignment and balancing give when the union CDG is acyclic: every
    pair on layer 0 (two paths each), one layer needed, no rand() call, nothing freed."""
    counts = np.zeros(max(avail, 1), np.int64)
    counts[0] = S * (S - 1)
    return 0, np.zeros((S, S), np.int8), 1, counts.copy(), counts, 0, 0, 0


def _layers_compiled(S: int, avail: int, nxt: np.ndarray, chans: tuple[np.ndarray, np.ndarray, np.ndarray],
                     links: list[list[tuple[int, int]]], seed: int):
    """:mod:`.lash_kernels`'s run of the layers, or None when it hit an array bound (then the
    Python version runs): (status, lane, needed, counts before, after, rand calls, zombies, events)."""
    from .lash_kernels import run_layers
    from .lash_paths import build_paths
    chan, base, _ = chans
    channels = int(base[-1])
    ptr, pc = build_paths(nxt, chan)
    state = np.array([*GlibcRandom(seed)._r, 0], np.int64)
    dcap = max((len({t for t, _ in row}) for row in links), default=0) + 1
    got = run_layers(S, avail, ptr, pc, max(channels, 1), state, False,
                     max(avail, 1) * channels * 2 + 1024, dcap)
    return None if got[0] == 1 else got


def switch_links(sn: Subnet) -> list[list[tuple[int, int]]]:
    """Per switch, its links in port order: (switch across, port). Every cable is its own link,
    a cable back to the switch itself included (osm_lash_process_switch without mesh analysis)."""
    out: list[list[tuple[int, int]]] = []
    for s in range(sn.num_switches):
        row = sn.nbr_sw[s]
        out.append([(int(row[p]), p) for p in range(1, int(sn.sw_nports[s]) + 1) if row[p] >= 0])
    return out


def min_operational_vls(sn: Subnet, first_sweep: bool = True, max_op_vls: int | None = None,
                        caps: PortCaps = IB_PORT_CAPS,
                        caps_by_guid: Mapping[int, PortCaps] | None = None) -> int:
    """discover_network_properties: data VLs of the switch port with the fewest operational VLs
    among linked switch ports (2^(code-1), at most 15; 15 when there is none)."""
    by_guid = caps_by_guid or {}
    f = sn.fabric
    if max_op_vls is None:
        opts = design_qos(f)
        max_op_vls = opts.max_op_vls if opts is not None else MAX_OP_VLS_DEFAULT
    rows, cols = np.nonzero(sn.nbr_dev[:, 1:] >= 0)     # the linked switch ports (none past a switch's ports)
    if not len(rows):
        return min(1 << 4, MAX_LASH_VLS)                 # code 5: no linked switch port
    c = _vl_codes(sn.sw_guid[:sn.num_switches], by_guid, caps)[rows]
    if not first_sweep:
        peers, inv = np.unique(sn.nbr_dev[rows, cols + 1], return_inverse=True)
        peer = _vl_codes(f.devices_t.guid[peers], by_guid, caps)[inv.ravel()]
        c = np.maximum(1, np.minimum(np.minimum(c, peer), max_op_vls))
    return min(1 << (min(5, int(c.min())) - 1), MAX_LASH_VLS)


def _vl_codes(guids: np.ndarray, by_guid: Mapping[int, PortCaps], caps: PortCaps) -> np.ndarray:
    """VLCap code of each GUID's ports: its own caps, else ``caps``."""
    return np.array([VL_CODE[by_guid.get(int(g), caps).vl_cap] for g in guids.tolist()], np.int64)


def tree_routes(S: int, links: list[list[tuple[int, int]]]) -> np.ndarray:
    """out_link[s, d]: index into links[s] of the first hop from switch s toward d (-1: s == d).

    shortest_path + generate_routing_func_for_mst for each root r in order: a breadth-first tree
    over the links in port order; every switch on the tree path to d that has no entry for d yet
    takes the link to its tree child (the first cable to that neighbour)."""
    first = np.full((S, S), -1, np.int32)
    for s in range(S):
        for k in range(len(links[s]) - 1, -1, -1):
            first[s, links[s][k][0]] = k
    if S < SMALL_TREES:
        return _tree_routes_small(S, links, first.tolist())
    from .lash_paths import tree_routes as compiled_trees  # numba on use
    lk_ptr = np.zeros(S + 1, np.int64)
    lk_ptr[1:] = np.cumsum([len(row) for row in links])
    lk_to = np.array([t for row in links for t, _ in row], np.int32)
    return compiled_trees(lk_ptr, lk_to, first.astype(np.int32))


#: below this many switches :func:`tree_routes` walks the trees in plain Python (numpy's per-call
#: cost is more than the work)
SMALL_TREES = 48


def _bfs(r: int, S: int, links: list[list[tuple[int, int]]]) -> tuple[list[int], list[int]]:
    """Breadth-first tree from r over the links in port order: (parent per switch, visit order)."""
    parent = [-1] * S
    seen = [False] * S
    seen[r] = True
    q = deque([r])
    order = []
    while q:
        u = q.popleft()
        for t, _p in links[u]:
            if not seen[t]:
                seen[t] = True
                parent[t] = u
                q.append(t)
                order.append(t)
    return parent, order


def _tree_routes_small(S: int, links: list[list[tuple[int, int]]], first: list[list[int]]) -> np.ndarray:
    out = [[-1] * S for _ in range(S)]
    for r in range(S):
        parent, order = _bfs(r, S, links)
        for d in order:
            cur = d
            while cur != r:
                p = parent[cur]
                row = out[p]
                if row[d] < 0:
                    row[d] = first[p][cur]
                cur = p
    return np.array(out, np.int64).reshape(S, S)


class _PathCache:
    """Channel lists (a, b) of the path s → d along ``nxt``, built once per pair."""

    def __init__(self, nxt: np.ndarray) -> None:
        self.nxt = nxt.tolist()
        self.cache: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def get(self, s: int, d: int) -> list[tuple[int, int]]:
        key = (s, d)
        got = self.cache.get(key)
        if got is None:
            got = []
            nxt = self.nxt
            a = s
            while a != d:
                b = nxt[a][d]
                if b < 0:
                    raise RuntimeError(f"LASH: no path from switch {s} to {d}")
                got.append((a, b))
                a = b
            self.cache[key] = got
        return got


def lid_switches(sn: Subnet, lids: Lids) -> tuple[np.ndarray, np.ndarray]:
    """Per LID: the switch its port is on (-1: no such port, or a CA not cabled to a switch) and
    the egress there (0 for a switch's own LID, the CA's switch port)."""
    lid_sw = np.full(lids.max_lid + 1, -1, np.int64)
    local = np.zeros(lids.max_lid + 1, np.int64)
    ok = lids.sw_lid > 0
    lid_sw[lids.sw_lid[ok]] = np.flatnonzero(ok)
    has = (lids.ca_lid > 0) & (sn.ca_sw >= 0)
    for off in range(lids.lids_per_ca_port):
        at = lids.ca_lid[has] + off
        lid_sw[at] = sn.ca_sw[has]
        local[at] = sn.ca_sw_port[has]
    return lid_sw, local


def build_lft(S: int, links: list[list[tuple[int, int]]], out_link: np.ndarray, lid_sw: np.ndarray,
              local_port: np.ndarray) -> np.ndarray:
    """populate_fwd_tbls: each LID out of the link toward its switch; on that switch, port 0
    (its own LID) or the CA's port."""
    L = max((len(x) for x in links), default=0)
    port = np.full((S, max(L, 1)), NO_PATH, np.int64)
    for s in range(S):
        for k, (_t, p) in enumerate(links[s]):
            port[s, k] = p
    # switch s's port toward switch d, then every LID takes its switch's column
    sw_port = np.take_along_axis(port, np.maximum(out_link, 0), axis=1)
    sw_port = np.where(out_link >= 0, sw_port, NO_PATH).astype(np.uint8)
    lft = np.full((S, len(lid_sw)), NO_PATH, np.uint8)
    have = np.flatnonzero(lid_sw >= 0)
    dst = lid_sw[have]
    # the LIDs with a switch are mostly one run (all of them on a generated fabric): a slice there
    # and take() for the gather, not sw_port[rows, dst], whose mixed indexing is transposed
    # (radix 56: 0.43 s -> 0.14 s)
    run = len(have) > 0 and int(have[-1]) - int(have[0]) + 1 == len(have)
    cols = slice(int(have[0]), int(have[-1]) + 1) if run else have
    for s0 in range(0, S, LFT_BLOCK):                # a block of rows at a time: no [S, LIDs] temporary
        lft[s0:s0 + LFT_BLOCK, cols] = np.take(sw_port[s0:s0 + LFT_BLOCK], dst, axis=1)
    lft[dst, have] = local_port[have]                # on the LID's own switch: port 0 or the CA's port
    return lft


#: switch rows per step of :func:`build_lft`
LFT_BLOCK = 256
