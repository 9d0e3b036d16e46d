"""Routes: which directed links each flow crosses, and with what share of its rate.

Routing modes (``route(..., mode=...)``):

* ``static`` — deterministic min-hop paths, the stand-in for the subnet
  manager's LFTs until they land. Tie-break (documented, D-mod-k style like
  OpenSM's ftree): at a switch with ``n`` equal-cost egress links (ordered by
  port number) a flow to destination key ``d`` takes link ``(d // m) mod n``,
  where ``m`` is the product of the choice counts met so far on the path and
  ``d`` is the rank of the destination NIC port among all port ids (a LID-like
  ordinal). On a fat tree this spreads destinations evenly over the spines.
* ``ecmp`` — per-switch L3 ECMP: ``hash5(src, dst, 17, sport, 4791, seed_s) mod n``.
  ``sport`` is the per-flow UDP source port (QP entropy, seeded). With
  ``same_seed=True`` every switch uses the same seed and hash, so successive
  tiers repeat the first tier's choice (hash polarization).
* ``adaptive`` / ``spray`` — the flow is split evenly over all equal-cost
  egress links at every hop (InfiniBand adaptive routing, packet spraying);
  a flow becomes several weighted sub-paths.

A flow from a GPU starts with the GPU → NIC PCIe hop and a flow to a GPU ends
with NIC → GPU. Pluggable paths: any :class:`PathProvider` (for instance
:func:`lft_paths` over the subnet manager's forwarding tables) can replace the
min-hop walk: give it as ``provider=`` to :func:`route`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Sequence

import numpy as np

from ..model import Fabric, FabricError
from ..model.fabric import KIND_CODE
from ..ethernet.ecmp import flow_sports, hash5, switch_seeds
from .links import SWITCH_CODES, LinkTable
from .reach import nic_ports
from .units import ParamError
from .workloads import Flows

if TYPE_CHECKING:                   # scipy loads on first use: ~60–150 ms of a small `simulate`
    import scipy.sparse as sp

MODES = ("static", "adaptive", "ecmp", "spray")
#: Refuse multipath expansions beyond this many sub-paths (memory guard).
MAX_SUBPATHS = 5_000_000
#: :meth:`SwitchGraph.hops_to` searches in numpy up to this many (target, switch, port) cells
#: (a few ms at most: a ring of 128 switches, 64 levels), scipy's BFS beyond: scipy.sparse.csgraph
#: costs ~70 ms to load, more than a small design's whole walk.
NUMPY_BFS_CELLS = 1 << 15


@dataclass(frozen=True)
class Routes:
    """Sub-paths of flows: sub-path ``i`` carries ``frac[i]`` of flow ``flow[i]``
    over links ``links[indptr[i]:indptr[i+1]]`` in hop order."""

    flow: np.ndarray
    frac: np.ndarray
    indptr: np.ndarray
    links: np.ndarray
    n_flows: int
    n_links: int

    @property
    def n_paths(self) -> int:
        return len(self.flow)

    def path(self, i: int) -> np.ndarray:
        return self.links[self.indptr[i]: self.indptr[i + 1]]

    def hops(self) -> np.ndarray:
        return np.diff(self.indptr)

    def incidence(self) -> sp.csr_matrix:
        """Flow × link matrix of rate shares (1 on a single path; split fractions otherwise)."""
        import scipy.sparse as sp
        rows = np.repeat(self.flow, self.hops())
        vals = np.repeat(self.frac, self.hops())
        m = sp.coo_matrix((vals, (rows, self.links)), shape=(self.n_flows, self.n_links)).tocsr()
        m.sum_duplicates()
        return m

    def path_incidence(self) -> sp.csr_matrix:
        """Sub-path × link 0/1 matrix."""
        import scipy.sparse as sp
        rows = np.repeat(np.arange(self.n_paths), self.hops())
        return sp.csr_matrix((np.ones(len(self.links)), (rows, self.links)),
                             shape=(self.n_paths, self.n_links))


class PathProvider(Protocol):
    """Fabric paths between NIC ports: one sequence of directed link ids per pair,
    from the link leaving ``src_ports[i]`` to the link entering ``dst_ports[i]``."""

    def __call__(self, fabric: Fabric, links: LinkTable, src_ports: np.ndarray,
                 dst_ports: np.ndarray, /) -> Sequence[Sequence[int] | np.ndarray]: ...


# ---------------------------------------------------------------------------- endpoints
@dataclass(frozen=True)
class Ends:
    pre: np.ndarray       # GPU → NIC link or -1
    src_port: np.ndarray  # NIC port the flow leaves by
    dst_port: np.ndarray  # NIC port it arrives at
    post: np.ndarray      # NIC → GPU link or -1


def resolve_ends(fabric: Fabric, links: LinkTable, flows: Flows) -> Ends:
    """Map flow endpoints (GPU or NIC ids) to NIC ports and PCIe hops; one-line errors."""
    t = fabric.devices_t
    gpu, nic = KIND_CODE["gpu"], KIND_CODE["nic"]
    src, dst = flows.src, flows.dst
    for ends in (src, dst):
        bad = (ends < 0) | (ends >= t.n)
        bad[~bad] = ~t.alive[ends[~bad]]
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise FabricError(f"flow {i}: endpoint {int(ends[i])}: no such device")
        k = t.kind[ends]
        bad = (k != gpu) & (k != nic)
        if bad.any():
            d = int(ends[bad][0])
            raise FabricError(f"{fabric.name_of(d)}: flows run between GPUs or NICs, not a "
                              f"{fabric.device(d).kind}")
        bad = (k == gpu) & (t.bound[ends] < 0)
        if bad.any():
            raise FabricError(f"{fabric.name_of(int(ends[bad][0]))}: GPU is not bound to a NIC")
    same = src == dst
    if same.any():
        i = int(np.flatnonzero(same)[0])
        raise FabricError(f"flow {i}: {fabric.name_of(int(src[i]))} sends to itself")
    ports = nic_ports(fabric)

    def side(ends: np.ndarray, up: bool) -> tuple[np.ndarray, np.ndarray]:
        is_gpu = t.kind[ends] == gpu
        nic_dev = np.where(is_gpu, t.bound[ends], ends).astype(np.int64)
        p = ports[nic_dev]
        if np.any(p < 0):
            d = int(ends[p < 0][0])
            raise FabricError(f"{fabric.name_of(d)}: its NIC has no cabled port")
        i = np.searchsorted(links.pcie_gpu, ends)
        base = links.n_cable_links + 2 * i + (0 if up else 1)
        return np.where(is_gpu, base, -1), p

    pre, sp_ = side(src, True)
    post, dp = side(dst, False)
    return Ends(pre, sp_, dp, post)


def cable_links(fabric: Fabric, ports: np.ndarray) -> np.ndarray:
    """Directed link leaving each port over its cable (ports must be cabled)."""
    c = fabric.ports_t.cable[ports].astype(np.int64)
    return 2 * c + (fabric.cables_t.port_a[c] != ports)


# ---------------------------------------------------------------------------- min-hop walk
@dataclass(frozen=True)
class SwitchGraph:
    """Switch-to-switch adjacency for the min-hop walk."""

    index: np.ndarray       # device id → switch index (-1 if not a switch)
    devices: np.ndarray     # switch index → device id
    nbr_link: np.ndarray    # (S, D) egress links to other switches, by port number; -1 pad
    nbr_sw: np.ndarray      # (S, D) switch index at the far end; -1 pad

    def hops_to(self, targets: np.ndarray) -> np.ndarray:
        """Min-hop count from every switch to each of ``targets`` (switch indices) along the
        directed switch links: (targets, S) int32, -1 where there is no path."""
        n_sw = len(self.devices)
        if n_sw == 0:
            return np.zeros((len(targets), 1), np.int32)
        targets = np.asarray(targets, np.int64)
        if len(targets) * self.nbr_sw.size <= NUMPY_BFS_CELLS:     # level by level, all targets at once
            dist = np.full((len(targets), n_sw), -1, np.int32)
            dist[np.arange(len(targets)), targets] = 0
            has, nbr = self.nbr_sw >= 0, np.maximum(self.nbr_sw, 0)
            for level in range(n_sw):
                new = (dist < 0) & ((dist[:, nbr] == level) & has).any(axis=2)
                if not new.any():
                    break
                dist[new] = level + 1
            return dist
        import scipy.sparse as sp
        from scipy.sparse.csgraph import shortest_path
        s, c = np.nonzero(self.nbr_sw >= 0)
        rev = sp.csr_matrix((np.ones(len(s)), (self.nbr_sw[s, c], s)), shape=(n_sw, n_sw))
        d = shortest_path(rev, unweighted=True, directed=True, indices=targets)
        return np.where(np.isfinite(d), d, -1).astype(np.int32)


def switch_graph(fabric: Fabric, links: LinkTable) -> SwitchGraph:
    t = fabric.devices_t
    sw = np.flatnonzero(t.alive & np.isin(t.kind, SWITCH_CODES))
    index = np.full(t.n, -1, np.int64)
    index[sw] = np.arange(len(sw))
    nc = links.n_cable_links
    s, d = links.src_dev[:nc], links.dst_dev[:nc]
    ok = links.alive[:nc] & (index[s] >= 0) & (index[d] >= 0)
    lid = np.flatnonzero(ok)
    order = np.lexsort((links.src_port[lid], index[s[lid]]))
    lid = lid[order]
    si = index[s[lid]]
    counts = np.bincount(si, minlength=len(sw))
    width = int(counts.max()) if len(counts) and counts.max() > 0 else 1
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    col = np.arange(len(lid)) - starts[si]
    nbr_link = np.full((len(sw), width), -1, np.int64)
    nbr_sw = np.full((len(sw), width), -1, np.int64)
    nbr_link[si, col] = lid
    nbr_sw[si, col] = index[d[lid]]
    return SwitchGraph(index, sw, nbr_link, nbr_sw)


def _walk(fabric: Fabric, links: LinkTable, ends: Ends, mode: str, seed: int,
          same_seed: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Min-hop walk for every flow; returns (flow, frac, hop matrix) of sub-paths
    (one row of link ids per sub-path, -1 where there is no hop)."""
    n = len(ends.src_port)
    g = switch_graph(fabric, links)
    ls = cable_links(fabric, ends.src_port)
    ld = cable_links(fabric, ends.dst_port) ^ 1
    first_sw = links.dst_dev[ls]
    last_sw = links.src_dev[ld]
    direct = first_sw == links.dst_dev[ld]          # NIC cabled straight to the other NIC
    cur = g.index[first_sw]
    tgt = g.index[last_sw]
    bad = ~direct & ((cur < 0) | (tgt < 0))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise FabricError(f"flow {i}: {fabric.port_name(int(ends.src_port[i]))} and "
                          f"{fabric.port_name(int(ends.dst_port[i]))} do not both reach a switch")
    uniq, trow = np.unique(np.where(direct, 0, tgt), return_inverse=True)
    dist = g.hops_to(uniq)
    cur_c = np.where(direct, 0, cur)
    unreachable = ~direct & (dist[trow, cur_c] < 0)
    if np.any(unreachable):
        i = int(np.flatnonzero(unreachable)[0])
        raise FabricError(f"flow {i}: no path from {fabric.port_name(int(ends.src_port[i]))} "
                          f"to {fabric.port_name(int(ends.dst_port[i]))}")
    # destination key (LID-like ordinal) and ECMP inputs
    dkey = np.searchsorted(np.unique(ends.dst_port), ends.dst_port).astype(np.int64)
    sports = flow_sports(n, seed)
    sw_seed = switch_seeds(g.devices, seed, same_seed)
    # frontier: one row per (sub-path), hop matrix grows by one column per step
    row_flow = np.arange(n)
    row_frac = np.ones(n)
    row_cur = cur_c.copy()
    row_div = np.ones(n, np.int64)
    hops = [ls]
    max_steps = int(dist.max()) + 1 if dist.size else 1
    for _ in range(max_steps):
        moving = ~direct[row_flow] & (row_cur != tgt[row_flow])
        if not moving.any():
            break
        cand_sw = g.nbr_sw[row_cur]                                  # (R, D)
        here = dist[trow[row_flow], row_cur]
        ok = (cand_sw >= 0) & (dist[trow[row_flow][:, None], np.maximum(cand_sw, 0)] == here[:, None] - 1)
        ok &= moving[:, None]
        cnt = ok.sum(1)
        if mode in ("adaptive", "spray"):
            rep = np.where(moving, cnt, 1)
            if int(rep.sum()) > MAX_SUBPATHS:
                raise FabricError(f"{mode} routing would need over {MAX_SUBPATHS:,} sub-paths; "
                                  "use static or ecmp for this many flows")
            idx = np.repeat(np.arange(len(row_flow)), rep)
            k = np.arange(len(idx)) - np.repeat(np.cumsum(rep) - rep, rep)   # k-th choice
            cols = np.argsort(~ok, axis=1, kind="stable")                   # valid columns first
            pick_col = cols[idx, np.minimum(k, cols.shape[1] - 1)]
            link = np.where(moving[idx], g.nbr_link[row_cur[idx], pick_col], -1)
            nxt = np.where(moving[idx], g.nbr_sw[row_cur[idx], pick_col], row_cur[idx])
            row_flow, row_cur, row_div = row_flow[idx], nxt, row_div[idx]
            row_frac = row_frac[idx] / np.where(moving[idx], cnt[idx], 1)
            hops = [h[idx] for h in hops] + [link]
            continue
        if mode == "ecmp":
            h = hash5(ends.src_port[row_flow], ends.dst_port[row_flow], sports[row_flow],
                      sw_seed[row_cur])
            choice = (h % np.maximum(cnt, 1).astype(np.uint64)).astype(np.int64)
        else:  # static, D-mod-k
            choice = (dkey[row_flow] // row_div) % np.maximum(cnt, 1)
            row_div = row_div * np.maximum(cnt, 1)
        # column of the choice-th valid entry
        csum = np.cumsum(ok, axis=1)
        pick_col = np.argmax(csum > choice[:, None], axis=1)
        link = np.where(moving, g.nbr_link[row_cur, pick_col], -1)
        row_cur = np.where(moving, g.nbr_sw[row_cur, pick_col], row_cur)
        hops.append(link)
    hops.append(np.where(direct[row_flow], -1, ld[row_flow]))
    mat = np.column_stack([ends.pre[row_flow]] + hops + [ends.post[row_flow]])
    return row_flow, row_frac, mat


def _pack(row_flow: np.ndarray, row_frac: np.ndarray, mat: np.ndarray, n_flows: int,
          n_links: int) -> Routes:
    keep = mat >= 0
    order = np.lexsort((np.arange(len(row_flow)), row_flow))
    keep, mat = keep[order], mat[order]
    counts = keep.sum(1)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return Routes(row_flow[order].astype(np.int64), row_frac[order], indptr,
                  mat[keep].astype(np.int64), n_flows, n_links)


def route(fabric: Fabric, links: LinkTable, flows: Flows, mode: str = "static", seed: int = 0,
          same_seed: bool = False, provider: PathProvider | None = None) -> Routes:
    """Route every flow (see module doc for the modes); ``provider`` overrides the fabric paths."""
    if mode not in MODES:
        raise ParamError("routing", mode, f"is not one of {', '.join(MODES)}")
    ends = resolve_ends(fabric, links, flows)
    n = len(flows)
    if provider is not None:
        paths = provider(fabric, links, ends.src_port, ends.dst_port)
        if len(paths) != n:
            raise FabricError(f"path provider returned {len(paths)} paths for {n} flows")
        width = max((len(p) for p in paths), default=0)
        mid = np.full((n, max(width, 1)), -1, np.int64)
        for i, p in enumerate(paths):
            mid[i, : len(p)] = p
        mat = np.column_stack([ends.pre, mid, ends.post])
        return _pack(np.arange(n), np.ones(n), mat, n, links.n)
    row_flow, row_frac, mat = _walk(fabric, links, ends, mode, seed, same_seed)
    return _pack(row_flow, row_frac, mat, n, links.n)


def lft_paths(fabric: Fabric, lfts: dict[int, np.ndarray] | np.ndarray, lids: np.ndarray,
              switches: np.ndarray | None = None) -> PathProvider:
    """A :class:`PathProvider` that follows the subnet manager's linear forwarding tables.

    ``lfts`` is either a dict ``{switch device id: array LID → egress port number}`` or a
    2-D array ``[switch index, LID]`` with ``switches`` giving the device id of each row
    (the layout of ``fabricviz.ib`` ``Routing.lft``). Port 0 and 255 mean "no route".
    ``lids`` is indexed by port id and gives the LID of each CA port (0 = none).
    The walk starts on the switch cabled to the source NIC port and follows
    ``lft[dlid]`` hop by hop (vectorised over flows) until the destination port;
    a loop, a missing entry or an uncabled egress is a one-line FabricError naming
    the switch and the LID.
    """
    if isinstance(lfts, dict):
        switches = np.array(sorted(lfts), np.int64)
        width = max((len(lfts[int(d)]) for d in switches), default=1)
        table = np.zeros((len(switches), width), np.int64)
        for i, d in enumerate(switches):
            table[i, : len(lfts[int(d)])] = lfts[int(d)]
    else:
        if switches is None:
            raise FabricError("lft_paths: a 2-D LFT array needs the switch device ids of its rows")
        table = np.asarray(lfts).astype(np.int64)
        switches = np.asarray(switches, np.int64)
    lids = np.asarray(lids, np.int64)

    def provider(fab: Fabric, links: LinkTable, src_ports: np.ndarray,
                 dst_ports: np.ndarray) -> list[np.ndarray]:
        t = fab.devices_t
        row = np.full(t.n, -1, np.int64)
        row[switches] = np.arange(len(switches))
        n = len(src_ports)
        dlid = lids[np.asarray(dst_ports)]
        target = fab.ports_t.device[np.asarray(dst_ports)].astype(np.int64)
        hops = [cable_links(fab, np.asarray(src_ports))]
        cur = links.dst_dev[hops[0]]
        for _ in range(len(switches) + 1):
            moving = cur != target
            if not moving.any():
                break
            r = row[cur]
            bad = moving & ((r < 0) | (dlid <= 0) | (dlid >= table.shape[1]))
            port = np.where(moving & ~bad, table[np.maximum(r, 0), np.clip(dlid, 0, table.shape[1] - 1)], 0)
            bad |= moving & ((port <= 0) | (port == 255) | (port > t.nports[cur]))
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise FabricError(f"{fab.name_of(int(cur[i]))}: no LFT entry for LID {int(dlid[i])}")
            pid = t.first_port[cur].astype(np.int64) + port - 1
            uncabled = moving & (fab.ports_t.cable[np.where(moving, pid, 0)] < 0)
            if uncabled.any():
                i = int(np.flatnonzero(uncabled)[0])
                raise FabricError(f"{fab.name_of(int(cur[i]))}: LFT sends LID {int(dlid[i])} "
                                  f"to uncabled port {int(port[i])}")
            link = np.where(moving, cable_links(fab, np.where(moving, pid, src_ports)), -1)
            hops.append(link)
            cur = np.where(moving, links.dst_dev[np.maximum(link, 0)], cur)
        else:
            i = int(np.flatnonzero(cur != target)[0])
            raise FabricError(f"LFT loop towards LID {int(dlid[i])} at {fab.name_of(int(cur[i]))}")
        mat = np.column_stack(hops)
        return [r_[r_ >= 0] for r_ in mat] if n else []
    return provider


def sm_paths(routing) -> PathProvider:
    """Paths from a ``fabricviz.ib`` ``Routing`` (its ``lft`` matrix, switches and CA LIDs)."""
    sn = routing.subnet
    lids = np.zeros(sn.fabric.ports_t.n, np.int64)
    lids[np.asarray(sn.ca_ports, np.int64)] = np.asarray(routing.lids.ca_lid, np.int64)
    return lft_paths(sn.fabric, routing.lft, lids, switches=sn.switches)
