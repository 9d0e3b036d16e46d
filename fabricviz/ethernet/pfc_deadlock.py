"""PFC deadlock: cyclic buffer dependencies (CBD) among the lossless priorities of an Ethernet fabric.

With PFC a packet held in the ingress buffer ``a`` of switch ``u`` (the port it came in on) waits
for the egress toward the next switch ``v``, whose ingress buffer ``b`` pauses ``u`` once it is
above XOFF: ``a`` depends on ``b``. The nodes of the buffer dependency graph are (switch ingress
port, priority); a route adds ``a → b`` for every two consecutive switch-to-switch hops. A cycle
can deadlock the priority under load: every buffer on it above XOFF, nothing drains, ever. Each
lossless priority (``fabric.meta["roce"]["priorities"]``, default 3) has its own buffers, and RoCE
keeps a packet on its priority end to end, so every priority sees the same graph.

Routing: per-switch L3 ECMP over min-hop next hops, as :mod:`fabricviz.sim.paths` walks them (a
switch's equal-cost egress links are those whose far end is one hop closer to the destination
switch). **Every** equal-cost path counts: any flow may hash onto it. Hosts are the NIC ports
cabled to Ethernet switches; a flow's destination is the switch its NIC hangs on.

Failed links (``failed=`` cables, and cables with a port in state ``disabled``):

* ``routing="converged"`` — every switch recomputes its ECMP around the failure. This is what
  fabricviz's own routing does after a cable is pulled (the sim walks live links only): on a
  leaf-spine it never bounces, the leaves simply stop using the spine that lost the link.
* ``routing="bounce"`` (default) — the standard transient (and, with route aggregation, lasting)
  case: the switches keep their pre-failure ECMP groups, minus members over a failed link of their
  own; a switch left with no member (a spine that lost its downlink to the destination leaf)
  forwards over its post-failure shortest paths — down to another leaf, which sends the packet up
  a spine that still reaches the destination (a down-up "bounce"), and from there the packet
  follows post-failure routes. Micro-loops (a leaf sending the bounced packet back up the same
  spine) are not modelled.

On a two-tier leaf-spine one failure gives bounce routes but no cycle: each down-up turn sits under
a spine that lost a downlink, and a cycle needs two such turns under two different spines. Two
failures under two spines (spine2–leaf3, spine1–leaf4) close ``leaf1 → spine2 → leaf2 → spine1 →
leaf1``. Cycles are the strong components of the graph (scipy), each reported with one shortest
witness cycle (networkx), the (source, destination) switch pairs whose routes add its dependencies
and the host flows that close it; :func:`closing_flows` gives one concrete path per dependency for a
fluid run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, shortest_path

from ..model import Fabric, FabricError
from ..model.cabling import PORT_DISABLED
from ..model.fabric import KIND_CODE
from .roce_meta import RoceMetaError, roce_settings

ROUTINGS = ("bounce", "converged")
#: Cells (destinations × links or link pairs) worked on at once.
CHUNK_CELLS = 4_000_000
#: Flow names a cycle's text shows before "… (+N more)".
SHOW_FLOWS = 4
#: Buffers of a strong component tried as the start of its witness cycle.
WITNESS_STARTS = 64
_FAR = -5                       # distance code of an unreachable switch (never one hop from anything)
Progress = Callable[[float], None]


def _no_progress(_x: float) -> None:
    return None


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class BufferCycle:
    """One cycle of ingress buffers on one lossless priority, in cycle order."""

    priority: int
    links: tuple[int, ...]          # directed cable links entering each buffer (2c: a→b, 2c+1: b→a)
    ports: tuple[int, ...]          # the ingress ports (the buffers)
    cables: tuple[int, ...]
    hops: tuple[str, ...]           # the switch each link leaves: leaf01, spine02, …
    buffers: tuple[str, ...]        # port names of the buffers: spine02:1, …
    size: int                       # buffers in its strong component
    routes: tuple[tuple[int, int], ...] = ()   # (source switch, destination switch) device ids
    flows: tuple[tuple[int, int], ...] = ()    # (source NIC, destination NIC) device ids
    flow_names: tuple[str, ...] = ()

    def ring(self) -> str:
        """``leaf01 → spine02 → leaf02 → spine01 → leaf01``."""
        return " → ".join(self.hops + self.hops[:1])

    def flows_text(self) -> str:
        shown = ", ".join(self.flow_names[:SHOW_FLOWS])
        more = len(self.flow_names) - SHOW_FLOWS
        return shown + (f" … (+{more} more)" if more > 0 else "")

    def format(self) -> str:
        return (f"PFC deadlock possible on priority {self.priority}: {self.ring()} "
                f"({len(self.ports)} buffers: {', '.join(self.buffers)}; {self.size} in its component)\n"
                f"  closed by {len(self.flows)} flow(s): {self.flows_text()}")

    def to_dict(self) -> dict[str, Any]:
        return {"priority": self.priority, "ring": list(self.hops), "buffers": list(self.buffers),
                "ports": list(self.ports), "cables": list(self.cables), "links": list(self.links),
                "size": self.size, "routes": [list(r) for r in self.routes],
                "flows": [{"src": a, "dst": b, "name": n}
                          for (a, b), n in zip(self.flows, self.flow_names, strict=True)]}


@dataclass(frozen=True)
class PfcCheck:
    """The buffer dependency graph's cycles per lossless priority, and what was assumed."""

    cycles: list[BufferCycle]
    priorities: tuple[int, ...]
    routing: str
    failed: tuple[int, ...]                    # cable ids taken as down
    failed_names: tuple[str, ...]
    detours: tuple[tuple[int, int], ...]       # (switch, destination switch) that bounce traffic
    dependencies: int                          # edges of the graph (one priority)
    buffers: int                               # ingress buffers in it (one priority)
    switches: int = 0                          # switches with a live switch-to-switch link
    names: dict[int, str] = field(default_factory=dict, repr=False)
    unreachable: tuple[tuple[int, int], ...] = ()   # (source, destination switch) with no live path
    cut_off: tuple[int, ...] = ()              # host switches outside the largest live part

    def after_text(self) -> str:
        """``after leaf03:3 – spine02:3, leaf04:2 – spine01:4 went down (bounce routes)`` or ""."""
        if not self.failed:
            return ""
        return f"after {', '.join(self.failed_names)} went down ({self.routing} routes)"

    def summary(self) -> str:
        bounce = ""
        if self.failed and self.routing == "bounce":
            sw = sorted({self.names.get(s, str(s)) for s, _t in self.detours})
            bounce = f"; {len(self.detours)} bounce detour(s)" + (f" at {', '.join(sw)}" if sw else "")
        if self.unreachable:
            cut = ", ".join(sorted(self.names.get(s, str(s)) for s in self.cut_off))
            bounce += f"; {len(self.unreachable)} unreachable (source, destination) switch pair(s)" + (
                f", {cut} cut off" if cut else "")
        prios = ", ".join(map(str, self.priorities))
        head = (f"{len(self.cycles)} PFC deadlock cycle(s)" if self.cycles
                else "no cyclic buffer dependency")
        after = f" {self.after_text()}" if self.failed else ""
        return (f"{head} on lossless priority {prios}{after}: {self.buffers} ingress buffers, "
                f"{self.dependencies} dependencies over {self.switches} Ethernet switches{bounce}")

    def to_dict(self) -> dict[str, Any]:
        return {"priorities": list(self.priorities), "routing": self.routing,
                "failed": [{"cable": c, "name": n} for c, n in zip(self.failed, self.failed_names, strict=True)],
                "detours": [{"switch": self.names.get(s, str(s)), "destination": self.names.get(t, str(t))}
                            for s, t in self.detours],
                "unreachable": [{"switch": self.names.get(s, str(s)), "destination": self.names.get(t, str(t))}
                                for s, t in self.unreachable],
                "cut_off": sorted(self.names.get(s, str(s)) for s in self.cut_off),
                "dependencies": self.dependencies, "buffers": self.buffers, "switches": self.switches,
                "deadlock": bool(self.cycles), "cycles": [c.to_dict() for c in self.cycles]}


# ----------------------------------------------------------------------------- topology
@dataclass(frozen=True)
class Topology:
    switches: np.ndarray      # switch index → device id
    link: np.ndarray          # directed cable link id of each switch-to-switch link
    src: np.ndarray           # switch index the link leaves
    dst: np.ndarray           # switch index it enters
    in_port: np.ndarray       # the ingress buffer's port
    failed: np.ndarray        # bool per link
    host_nic: np.ndarray      # NIC device of each host port
    host_sw: np.ndarray       # switch index it hangs on
    host_up: np.ndarray       # directed link NIC → switch
    host_down: np.ndarray     # directed link switch → NIC
    out_of: sp.csr_matrix     # (L, S): link → the switch it leaves
    into: sp.csr_matrix       # (L, S): link → the switch it enters
    pair_in: np.ndarray       # adjacent link pairs (in, out) at the switch between them
    pair_out: np.ndarray
    dests: np.ndarray         # switch indices with hosts (the destinations)
    dist0: np.ndarray         # (len(dests), S) min hops before the failures
    dist1: np.ndarray         # after them

    def nic_ports(self, switch: int) -> np.ndarray:
        """The host ports on switch index ``switch``: one per NIC, in NIC order."""
        mine = np.flatnonzero(self.host_sw == switch)
        return mine[np.unique(self.host_nic[mine], return_index=True)[1]]


def cable_of(fabric: Fabric, ref: str | int) -> int:
    """A cable by id, by one of its ports (``leaf01:3``) or by its label (``leaf01:3 – spine02:1``)."""
    if isinstance(ref, (int, np.integer)):
        fabric.cable(int(ref))
        return int(ref)
    text = str(ref).strip()
    for sep in (" – ", " - ", " -- ", "–"):
        if sep in text:
            a, b = (fabric.port_id(x.strip()) for x in text.split(sep, 1))
            c = int(fabric.ports_t.cable[a])
            if c < 0 or c != int(fabric.ports_t.cable[b]):
                raise FabricError(f"{text}: no cable joins {fabric.port_name(a)} and {fabric.port_name(b)}")
            return c
    p = fabric.port_id(text)
    c = int(fabric.ports_t.cable[p])
    if c < 0:
        raise FabricError(f"{fabric.port_name(p)}: no cable on this port")
    return c


def failed_cables(fabric: Fabric, failed: Sequence[str | int] = ()) -> np.ndarray:
    """The cables taken as down: those given (ids, ports or labels) and those with a disabled port."""
    ct, pt = fabric.cables_t, fabric.ports_t
    live = ct.live_ids().astype(np.int64)
    off = (pt.state[ct.port_a[live]] == PORT_DISABLED) | (pt.state[ct.port_b[live]] == PORT_DISABLED)
    given = [cable_of(fabric, r) for r in failed]
    return np.unique(np.concatenate([live[off], np.asarray(given, np.int64)])).astype(np.int64)


def topology(fabric: Fabric, failed: np.ndarray) -> Topology:
    t, pt, ct = fabric.devices_t, fabric.ports_t, fabric.cables_t
    sw = np.flatnonzero(t.alive & (t.kind == KIND_CODE["eth_switch"]))
    if not len(sw):
        raise FabricError(f"{fabric.name}: no Ethernet switches (PFC deadlocks are a RoCE matter; "
                          "check-loops finds InfiniBand credit loops)")
    index = np.full(t.n, -1, np.int64)
    index[sw] = np.arange(len(sw))
    cids = ct.live_ids().astype(np.int64)
    pa, pb = ct.port_a[cids].astype(np.int64), ct.port_b[cids].astype(np.int64)
    da, db = pt.device[pa].astype(np.int64), pt.device[pb].astype(np.int64)
    down = np.isin(cids, failed)
    both = (index[da] >= 0) & (index[db] >= 0)
    c = cids[both]
    link = np.concatenate([2 * c, 2 * c + 1])
    src = np.concatenate([index[da[both]], index[db[both]]])
    dst = np.concatenate([index[db[both]], index[da[both]]])
    in_port = np.concatenate([pb[both], pa[both]])
    dead = np.concatenate([down[both], down[both]])
    order = np.lexsort((link, src))
    link, src, dst, in_port, dead = link[order], src[order], dst[order], in_port[order], dead[order]
    # hosts: NIC ports cabled (over a live cable) to an Ethernet switch
    nic = t.kind == KIND_CODE["nic"]
    hosts = []
    for ends in ((pa, pb, da, db, 0), (pb, pa, db, da, 1)):
        p_nic, _p_sw, d_nic, d_sw, side = ends
        ok = nic[d_nic] & (index[d_sw] >= 0) & ~down
        cc = cids[ok]
        hosts.append((d_nic[ok], index[d_sw[ok]], 2 * cc + side, 2 * cc + (1 - side)))
    host_nic = np.concatenate([h[0] for h in hosts])
    host_sw = np.concatenate([h[1] for h in hosts])
    host_up = np.concatenate([h[2] for h in hosts])
    host_down = np.concatenate([h[3] for h in hosts])
    ho = np.lexsort((host_up, host_nic))
    host_nic, host_sw, host_up, host_down = host_nic[ho], host_sw[ho], host_up[ho], host_down[ho]
    n_s, n_l = len(sw), len(link)
    ones = np.ones(n_l, np.float32)
    out_of = sp.csr_matrix((ones, (np.arange(n_l), src)), shape=(n_l, n_s))
    into = sp.csr_matrix((ones, (np.arange(n_l), dst)), shape=(n_l, n_s))
    # adjacent pairs: every link into u with every link out of u
    starts = np.searchsorted(src, np.arange(n_s + 1))
    deg_out = np.diff(starts)
    rep = deg_out[dst]
    pair_in = np.repeat(np.arange(n_l), rep)
    offs = np.arange(len(pair_in)) - np.repeat(np.cumsum(rep) - rep, rep)
    pair_out = starts[dst[pair_in]] + offs
    dests = np.unique(host_sw)

    def dist(keep: np.ndarray) -> np.ndarray:
        adj = sp.csr_matrix((np.ones(int(keep.sum())), (src[keep], dst[keep])), shape=(n_s, n_s))
        d = shortest_path(adj, unweighted=True, directed=True, indices=dests) if len(dests) \
            else np.zeros((0, n_s))
        return np.where(np.isfinite(d), d, _FAR).astype(np.int64).reshape(len(dests), n_s)
    return Topology(sw, link, src, dst, in_port, dead, host_nic, host_sw, host_up, host_down, out_of, into,
                 pair_in, pair_out, dests, dist(np.ones(n_l, bool)), dist(~dead))


# ----------------------------------------------------------------------------- forwarding
@dataclass(frozen=True)
class Reach:
    """Per row (a destination, or a source towards a destination): the out-links of the stale
    (phase 0) and post-failure (phase 1) states, and the links taken arriving in each phase."""

    out0: np.ndarray
    out1: np.ndarray
    stay: np.ndarray          # (rows, L): out0 link arrives in phase 0
    used0: np.ndarray
    used1: np.ndarray
    detour: np.ndarray        # (rows, S): a stale state with no live next hop was reached


def _per_switch(x: np.ndarray, m: sp.csr_matrix) -> np.ndarray:
    """(rows, L) booleans → (rows, S): any link of the switch (``m`` maps links to switches)."""
    return np.asarray((m.T @ x.T.astype(np.float32)).T) > 0


def reach(tp: Topology, rows: np.ndarray, init: np.ndarray, routing: str) -> Reach:
    """Follow every equal-cost route towards ``tp.dests[rows]`` from the switches ``init`` (rows × S)."""
    d0, d1 = tp.dist0[rows], tp.dist1[rows]
    s, d = tp.src, tp.dst
    live0 = (d0[:, d] == d0[:, s] - 1) & ~tp.failed
    nh1 = (d1[:, d] == d1[:, s] - 1) & ~tp.failed
    if routing == "converged":
        keep = np.zeros((len(rows), len(tp.switches)), bool)
    else:
        keep = _per_switch(live0, tp.out_of)
    stay = keep[:, s]
    out0 = np.where(stay, live0, nh1)
    r0 = init.copy() if routing != "converged" else np.zeros_like(init)
    r1 = np.zeros_like(init) if routing != "converged" else init.copy()
    while True:
        f0 = r0[:, s] & out0
        a0 = f0 & stay
        a1 = (f0 & ~stay) | (r1[:, s] & nh1)
        n0 = r0 | _per_switch(a0, tp.into)
        n1 = r1 | _per_switch(a1, tp.into)
        if np.array_equal(n0, r0) and np.array_equal(n1, r1):
            break
        r0, r1 = n0, n1
    here = tp.dests[rows]
    detour = r0 & ~keep & (d1 != _FAR)         # no live path at all: unreachable, not a detour
    detour[np.arange(len(rows)), here] = False
    return Reach(out0, nh1, stay, a0, a1, detour)


def _sources(tp: Topology, rows: np.ndarray) -> np.ndarray:
    """(rows, S): the switches with hosts, but the destination itself."""
    init = np.zeros((len(rows), len(tp.switches)), bool)
    init[:, tp.dests] = True
    init[np.arange(len(rows)), tp.dests[rows]] = False
    return init


def _chunks(tp: Topology, width: int) -> list[np.ndarray]:
    n = len(tp.dests)
    step = max(1, CHUNK_CELLS // max(width, 1))
    return [np.arange(i, min(n, i + step)) for i in range(0, n, step)]


def pair_hits(tp: Topology, r: Reach, pairs: np.ndarray) -> np.ndarray:
    """(rows, len(pairs)): the dependency in → out of each pair is added by the row's routes."""
    i, o = tp.pair_in[pairs], tp.pair_out[pairs]
    return (r.used0[:, i] & r.out0[:, o]) | (r.used1[:, i] & r.out1[:, o])


# ----------------------------------------------------------------------------- the check
def check_pfc_deadlock(fabric: Fabric, *, failed: Sequence[str | int] = (), routing: str = "bounce",
                       priorities: Sequence[int] | None = None, max_cycles: int = 50,
                       progress: Progress = _no_progress) -> PfcCheck:
    """Cycles of the buffer dependency graph per lossless priority (see the module doc).

    ``failed``: cables taken as down (ids, ports or labels), besides those with a disabled port;
    ``priorities``: the lossless priorities (default: the design's ``meta["roce"]``, else 3).
    """
    if routing not in ROUTINGS:
        raise FabricError(f"routing {routing!r}: one of {', '.join(ROUTINGS)}")
    prios = _priorities(fabric, priorities)
    down = failed_cables(fabric, failed)
    tp = topology(fabric, down)
    n_l = len(tp.link)
    edge = np.zeros(len(tp.pair_in), bool)
    detours: set[tuple[int, int]] = set()
    chunks = _chunks(tp, max(len(tp.pair_in), n_l))
    for k, rows in enumerate(chunks):
        r = reach(tp, rows, _sources(tp, rows), routing)
        edge |= pair_hits(tp, r, np.arange(len(tp.pair_in))).any(axis=0)
        for row, s_ in zip(*np.nonzero(r.detour), strict=True):
            detours.add((int(tp.switches[s_]), int(tp.switches[tp.dests[rows[row]]])))
        progress(0.8 * (k + 1) / len(chunks))
    ei, eo = tp.pair_in[edge], tp.pair_out[edge]
    cycles = _cycles(fabric, tp, ei, eo, max_cycles)
    found = []
    for j, (cyc, size) in enumerate(cycles):
        found.append(_explain(fabric, tp, cyc, size, routing))
        progress(0.8 + 0.2 * (j + 1) / len(cycles))
    per_prio = [replace(c, priority=p) for p in prios for c in found]
    nodes = np.unique(np.concatenate([ei, eo])) if len(ei) else np.zeros(0, np.int64)
    names = {int(d): fabric.name_of(int(d)) for d in tp.switches.tolist()}
    live = np.unique(tp.src[~tp.failed])          # every live link runs both ways
    return PfcCheck(per_prio, prios, routing, tuple(int(c) for c in down),
                    tuple(fabric.cable(int(c)).label for c in down), tuple(sorted(detours)),
                    int(edge.sum()), int(len(nodes)), int(len(live)), names, *_unreachable(tp))


def _unreachable(tp: Topology) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """(source, destination) host switches with no live path between them (device ids), and the
    host switches outside the live part holding the most of them (cut off by the failures)."""
    far, live = tp.dist1 == _FAR, ~tp.failed
    pairs = sorted((int(tp.switches[s]), int(tp.switches[t]))
                   for i, t in enumerate(tp.dests.tolist()) for s in tp.dests[far[i, tp.dests]].tolist())
    if not pairs:
        return (), ()
    adj = sp.csr_matrix((np.ones(int(live.sum())), (tp.src[live], tp.dst[live])), shape=(len(tp.switches),) * 2)
    _n, label = connected_components(adj, directed=False)
    main = np.bincount(label[tp.dests]).argmax()
    cut = tp.dests[label[tp.dests] != main]
    return tuple(pairs), tuple(sorted(int(tp.switches[s]) for s in cut.tolist()))


def _priorities(fabric: Fabric, priorities: Sequence[int] | None) -> tuple[int, ...]:
    try:
        s = roce_settings(fabric, priorities=tuple(priorities) if priorities is not None else None)
    except RoceMetaError as exc:
        raise FabricError(f"{fabric.name}: {exc.where}: {exc}") from None
    except ValueError as exc:
        raise FabricError(f"{fabric.name}: {exc}") from None
    return s.priorities


def _cycles(fabric: Fabric, tp: Topology, ei: np.ndarray, eo: np.ndarray,
            max_cycles: int) -> list[tuple[list[int], int]]:
    """One shortest witness cycle (link indices, in order) per strong component with a cycle, with
    the component's size."""
    if not len(ei):
        return []
    n_l = len(tp.link)
    g = sp.csr_matrix((np.ones(len(ei), np.int8), (ei, eo)), shape=(n_l, n_l))
    _n, label = connected_components(g, directed=True, connection="strong")
    sizes = np.bincount(label, minlength=1)
    inside = label[ei] == label[eo]
    comps = np.unique(label[ei[inside]])
    if not len(comps):
        return []
    import networkx as nx  # only with a cycle to show: ~0.1 s to load
    dg: nx.DiGraph = nx.DiGraph()
    dg.add_edges_from(zip(ei[inside].tolist(), eo[inside].tolist(), strict=True))
    port_name = fabric.port_name

    def key(li: int) -> tuple[str, int]:                # the cycle starts at its first switch by name
        return (fabric.name_of(int(tp.switches[tp.src[li]])), int(tp.link[li]))
    out: list[tuple[list[int], int]] = []
    for c in comps.tolist():
        members = sorted(np.flatnonzero(label == c).tolist(), key=key)
        sub = dg.subgraph(members)
        best: list[int] | None = None
        for start in members[:WITNESS_STARTS]:
            back = nx.shortest_path(sub, target=start)   # every member's shortest path to start
            for v in sub.successors(start):
                cyc = [start] + back[v][:-1]
                if best is None or _better(tp, cyc, best):
                    best = cyc
        assert best is not None
        first = best.index(min(best, key=key))
        out.append((best[first:] + best[:first], int(sizes[c])))
    out.sort(key=lambda cs: (len(cs[0]), [port_name(int(tp.in_port[li])) for li in cs[0]]))
    return out[:max_cycles]


def _better(tp: Topology, a: list[int], b: list[int]) -> bool:
    """Witness order: shorter, then through more distinct switches (the textbook picture)."""
    return (len(a), -len(set(tp.src[a].tolist()))) < (len(b), -len(set(tp.src[b].tolist())))


def _explain(fabric: Fabric, tp: Topology, cyc: list[int], size: int, routing: str) -> BufferCycle:
    """The cycle's names and the (source, destination) switch pairs and host flows closing it."""
    n_l = len(tp.link)
    pairs = cycle_pairs(tp, cyc)
    routes: set[tuple[int, int]] = set()
    for rows in _chunks(tp, n_l):
        hit = pair_hits(tp, reach(tp, rows, _sources(tp, rows), routing), pairs).any(axis=1)
        for row in rows[hit].tolist():
            srcs = np.setdiff1d(tp.dests, [tp.dests[row]])
            init = np.zeros((len(srcs), len(tp.switches)), bool)
            init[np.arange(len(srcs)), srcs] = True
            rr = reach(tp, np.full(len(srcs), row), init, routing)
            for s_ in srcs[pair_hits(tp, rr, pairs).any(axis=1)].tolist():
                routes.add((int(s_), int(tp.dests[row])))
    flows = []
    for s_, t_ in sorted(routes):
        for a in np.unique(tp.host_nic[tp.host_sw == s_]).tolist():
            for b in np.unique(tp.host_nic[tp.host_sw == t_]).tolist():
                if a != b:
                    flows.append((int(a), int(b)))
    flows = sorted(set(flows))
    ports = tuple(int(tp.in_port[li]) for li in cyc)
    links = tuple(int(tp.link[li]) for li in cyc)
    return BufferCycle(0, links, ports, tuple(x // 2 for x in links),
                       tuple(fabric.name_of(int(tp.switches[tp.src[li]])) for li in cyc),
                       tuple(fabric.port_name(p) for p in ports), size,
                       tuple((int(tp.switches[a]), int(tp.switches[b])) for a, b in sorted(routes)),
                       tuple(flows), tuple(f"{fabric.name_of(a)} → {fabric.name_of(b)}" for a, b in flows))


def cycle_pairs(tp: Topology, cyc: list[int]) -> np.ndarray:
    """Indices into the adjacent pairs of the cycle's dependencies, in cycle order."""
    want = [(cyc[k], cyc[(k + 1) % len(cyc)]) for k in range(len(cyc))]
    key = tp.pair_in.astype(np.int64) * (len(tp.link) + 1) + tp.pair_out
    return np.array([int(np.flatnonzero(key == a * (len(tp.link) + 1) + b)[0]) for a, b in want], np.int64)


__all__ = ["ROUTINGS", "BufferCycle", "PfcCheck", "Reach", "Topology", "cable_of", "check_pfc_deadlock",
           "cycle_pairs", "failed_cables", "pair_hits", "reach", "topology"]
