"""Credit loops: cycles in the channel dependency graph (CDG) of the LFTs, per virtual lane.

IBA flow control is per VL: a packet that arrived on link a over VL_a holds a credit of a's
VL_a receive buffer while it waits at the switch for a credit of the output link b on VL_b
(the VL the switch's SL2VL table gives for the packet's SL on that in → out port pair). So the
nodes of the graph are (channel, VL), a channel being a directed switch egress port, and a route
that enters switch r from (s, p) on VL_a and leaves on (r, q) on VL_b adds the dependency
((s, p), VL_a) → ((r, q), VL_b). A cycle can deadlock a lossless fabric under load; a cycle
whose channels are all on one VL is a credit loop on that VL, and one crossing VLs (SL2VL
tables that change VL hop by hop) is reported with each VL it uses.

Every (CA source, CA destination LID) route of the LFTs is followed with its SL
(``routing.info.path_sl`` from dfsssp or lash, else the SL the caller gives, default 0)
through the SL2VL tables (:mod:`.vl_layers`: the design's QoS tables when QoS is on, else
SL n → VL n). With every path on SL0 — minhop, updn, ftree — the graph is the classic VL0
CDG. Links to CAs cannot be in a cycle, so only switch-to-switch channels are kept (as LASH
and ibdmchk do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .path_sl import PathSL
from .routing import Routing
from .vl_layers import NUM_VLS, VlWalk, walk_vls

_SHIFT = 1 << 32                 # edge key = node_a × 2^32 + node_b


@dataclass(frozen=True)
class CreditLoop:
    channels: tuple[str, ...]            # "switch:port" egress channels around one witness cycle
    size: int                            # (channel, VL) nodes in the strongly connected component
    destinations: tuple[int, ...]        # destination LIDs whose routes add the cycle's dependencies
    vls: tuple[int, ...] = ()            # the VL of each channel of ``channels`` (empty: VL0)

    @property
    def layer(self) -> tuple[int, ...]:
        """The VLs the cycle is on, ascending (one for a loop inside one VL)."""
        return tuple(sorted(set(self.vls))) if self.vls else (0,)

    def vl_text(self) -> str:
        """``VL1`` or ``VLs 0, 1`` (a cycle through channels of several VLs)."""
        lay = self.layer
        return f"VL{lay[0]}" if len(lay) == 1 else "VLs " + ", ".join(map(str, lay))

    def hop_names(self) -> tuple[str, ...]:
        """The channels, each with its VL when the cycle crosses VLs (``sw1:2/VL1``)."""
        if len(self.layer) == 1:
            return self.channels
        return tuple(f"{c}/VL{v}" for c, v in zip(self.channels, self.vls, strict=True))

    def format(self) -> str:
        hops = self.hop_names()
        ring = " -> ".join(hops + hops[:1])
        lids = ", ".join(str(x) for x in self.destinations[:12]) + (" …" if len(self.destinations) > 12 else "")
        return f"credit loop over {len(self.channels)} channels ({self.size} in its component) on " \
               f"{self.vl_text()}: {ring}\n  caused by routes to LIDs {lids}"


@dataclass(frozen=True)
class CreditCheck:
    """Credit loops of one routing and the VLs its routes use (what ``check-loops`` reports)."""

    loops: list[CreditLoop]
    vls: tuple[int, ...]          # VLs used on switch-to-switch channels
    engine: str                   # the engine that produced the LFTs (``routed_by``)
    layered: bool                 # the SLs came from the engine's path_sl
    walk: VlWalk

    def summary(self) -> str:
        """``no credit loops on any VL (dfsssp, 2 VLs)`` or ``2 credit loop(s) on VL0 (minhop, 1 VL)``."""
        n = max(len(self.vls), 1)
        what = f"({self.engine}, {n} VL{'s' if n != 1 else ''})"
        if not self.loops:
            return f"no credit loops on any VL {what}"
        on = sorted({v for lp in self.loops for v in lp.layer})
        return f"{len(self.loops)} credit loop(s) on " + ", ".join(f"VL{v}" for v in on) + f" {what}"


def channel_dependencies(routing: Routing) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(from_channel, to_channel, dlid) for every dependency of every CA-sourced route, all on
    VL0 (every path on SL0, identity SL2VL: the graph before VLs). Channel id = switch × (P+1) + port."""
    w = walk_vls(routing, 0, _no_layers(0), None)
    return w.dep_a // NUM_VLS, w.dep_b // NUM_VLS, w.dep_dlid


def _no_layers(sl: int) -> PathSL:
    """A PathSL with no rows: every path gets ``sl`` (its ``default``)."""
    return PathSL("none", np.full(1, -1, np.int32), np.full(1, -1, np.int32), np.zeros((0, 0), np.uint8),
                  np.ones(NUM_VLS, np.uint8), 1, None, int(sl))


def check_credit_loops(routing: Routing, max_loops: int = 100, *, sl: int = 0,
                       path_sl: PathSL | None | bool = None, sl2vl: Any = None) -> CreditCheck:
    """Credit loops per VL (see the module doc) and the VLs the routes use.

    ``path_sl``: None takes ``routing.info.path_sl`` when the engine set one; False puts every
    path on ``sl``; or a :class:`PathSL`. ``sl2vl``: anything :func:`.vl_layers.sl2vl_of` takes
    (None: SL n → VL n on every port).
    """
    if path_sl is False:
        psl: PathSL | None = _no_layers(sl)
    else:
        psl = path_sl if isinstance(path_sl, PathSL) else routing.info.path_sl
    w = walk_vls(routing, sl, psl if psl is not None else _no_layers(sl), sl2vl)
    loops = _loops(routing, w, max_loops)
    return CreditCheck(loops, w.vls_used(), routing.routed_by, psl is not None and path_sl is not False, w)


def find_credit_loops(routing: Routing, max_loops: int = 100, *, sl: int = 0,
                      path_sl: PathSL | None | bool = None, sl2vl: Any = None) -> list[CreditLoop]:
    """Every strongly connected component of the per-VL CDG with a cycle, one witness cycle each,
    in order of their lowest (channel, VL) node. Arguments as :func:`check_credit_loops`."""
    return check_credit_loops(routing, max_loops, sl=sl, path_sl=path_sl, sl2vl=sl2vl).loops


def _loops(routing: Routing, w: VlWalk, max_loops: int) -> list[CreditLoop]:
    a, b, d = w.dep_a, w.dep_b, w.dep_dlid
    if len(a) == 0:
        return []
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    key = a * _SHIFT + b
    uniq = np.unique(key)
    ua, ub = uniq // _SHIFT, uniq % _SHIFT
    nodes, idx = np.unique(np.concatenate([ua, ub]), return_inverse=True)
    ia, ib = idx[:len(ua)], idx[len(ua):]
    n = len(nodes)
    g = coo_matrix((np.ones(len(ia), np.int8), (ia, ib)), shape=(n, n)).tocsr()
    _ncomp, label = connected_components(g, directed=True, connection="strong")
    sizes = np.bincount(label)
    self_loop = ia == ib
    cyclic = sizes[label] > 1
    cyclic[ia[self_loop]] = True
    comps = np.unique(label[np.flatnonzero(cyclic)])
    if not len(comps):
        return []
    import networkx as nx  # only with a loop to show: ~0.1 s to load
    # the components in order of their lowest node (nodes ascend, so the first member is the lowest)
    first = np.array([np.flatnonzero(label == c)[0] for c in comps.tolist()])
    order = comps[np.argsort(first)]
    keep_edge = (label[ia] == label[ib]) & np.isin(label[ia], order)
    dg: nx.DiGraph = nx.DiGraph()
    dg.add_edges_from(zip(nodes[ia[keep_edge]].tolist(), nodes[ib[keep_edge]].tolist(), strict=True))
    P1 = routing.subnet.nbr_dev.shape[1]
    sn = routing.subnet
    loops: list[CreditLoop] = []
    for c in order.tolist():
        members = nodes[label == c]
        src = int(members[0])
        sub = dg.subgraph(members.tolist())
        cycle = nx.find_cycle(sub, source=src)
        hop_nodes = [u for u, _v in cycle]
        edge_keys = np.array([u * _SHIFT + v for u, v in cycle], np.int64)
        causes = np.unique(d[np.isin(key, edge_keys)])
        chans = [u // NUM_VLS for u in hop_nodes]
        names = tuple(f"{sn.switch_name(ch // P1)}:{ch % P1}" for ch in chans)
        loops.append(CreditLoop(names, int(len(members)), tuple(int(x) for x in causes),
                                tuple(int(u % NUM_VLS) for u in hop_nodes)))
        if len(loops) >= max_loops:
            break
    return loops


__all__ = ["CreditCheck", "CreditLoop", "channel_dependencies", "check_credit_loops", "find_credit_loops"]
