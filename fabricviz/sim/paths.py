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

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ..ethernet.ecmp import flow_sports, hash5, switch_seeds
from ..model import Fabric, FabricError
from ..model.fabric import KIND_CODE
from .links import SWITCH_CODES, LinkTable
from .reach import nic_ports
from .units import ParamError
from .workloads import Flows

if TYPE_CHECKING:                   # scipy loads on first use: ~60–150 ms of a small `simulate`
    import scipy.sparse as sp

MODES = ("static", "adaptive", "ecmp", "spray")
#: Refuse multipath expansions beyond this many sub-paths (memory guard).
MAX_SUBPATHS = 5_000_000
#: Flows routed at a time (the walk's frontier and hop matrix are this many rows at most; the result
#: is the compact concatenation): bounds a big run's temporaries.
BATCH_FLOWS = 1 << 15
#: Route entries per piece of :meth:`Routes.split` (per-flow sums over a big run, a piece at a time).
SPLIT_ENTRIES = 1 << 17
#: :meth:`SwitchGraph.hops_to` searches in numpy up to this many (target, switch, port) cells
#: (a few ms at most: a ring of 128 switches, 64 levels), scipy's BFS beyond: scipy.sparse.csgraph
#: costs ~70 ms to load, more than a small design's whole walk.
NUMPY_BFS_CELLS = 1 << 15


@dataclass(frozen=True)
class Routes:
    """Sub-paths of flows: sub-path ``i`` carries ``frac[i]`` of flow ``flow[i]``
    over links ``links[indptr[i]:indptr[i+1]]`` in hop order. Arrays are read as given (a single-path
    routing's ``frac`` is a read-only broadcast of 1.0)."""

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

    def split(self, max_entries: int = SPLIT_ENTRIES) -> list[tuple[int, int, Routes]]:
        """The routes as pieces ``(lo, hi, sub)`` of about ``max_entries`` entries: ``sub`` holds flows
        ``lo..hi-1`` (renumbered from 0) with all their sub-paths, so per-flow results of the pieces
        concatenate to the whole's. One piece (``self``) when small."""
        nnz = len(self.links)
        if nnz <= max_entries or self.n_flows <= 1:
            return [(0, self.n_flows, self)]
        at = np.searchsorted(self.indptr, np.arange(max_entries // 2, nnz, max(max_entries // 2, 1)), side="right") - 1
        cuts = np.unique(np.concatenate([[0], self.flow[np.minimum(at, self.n_paths - 1)], [self.n_flows]]))
        starts = np.searchsorted(self.flow, cuts)
        out = []
        for lo, hi, p0, p1 in zip(cuts[:-1].tolist(), cuts[1:].tolist(), starts[:-1].tolist(), starts[1:].tolist(),
                                  strict=True):
            e0, e1 = int(self.indptr[p0]), int(self.indptr[p1])
            out.append((lo, hi, Routes(self.flow[p0:p1] - lo, self.frac[p0:p1], self.indptr[p0:p1 + 1] - e0,
                                       self.links[e0:e1], hi - lo, self.n_links)))
        return out

    def single(self) -> bool:
        """True when every flow has one sub-path of share 1 over distinct links: the rows of
        :meth:`incidence` are then the paths themselves (``indptr``, ``links``; entries in hop order)."""
        if self.n_paths != self.n_flows or not bool(np.all(self.frac == 1.0)):
            return False
        for _, _, sub in self.split():
            hops = sub.hops()
            if len(sub.flow) and not (sub.flow[0] == 0 and bool(np.all(np.diff(sub.flow) == 1))):
                return False
            width = int(hops.max()) if len(hops) else 0
            if width < 2:
                continue
            row = np.repeat(np.arange(sub.n_paths), hops)
            if width > 32:                                 # long paths: sort (row, link) keys
                key = np.sort(row * np.int64(self.n_links) + sub.links)
                if bool(np.any(key[1:] == key[:-1])):
                    return False
                continue
            pad = np.tile(-1 - np.arange(width), (sub.n_paths, 1))        # distinct pads: no false repeat
            pad[row, np.arange(len(sub.links)) - sub.indptr[:-1][row]] = sub.links
            pad.sort(axis=1)
            if bool(np.any(pad[:, 1:] == pad[:, :-1])):
                return False
        return True

    def incidence(self) -> sp.csr_matrix:
        """Flow × link matrix of rate shares (1 on a single path; split fractions otherwise); built a
        piece of flows at a time (:meth:`split`), the same matrix as in one go."""
        import scipy.sparse as sp
        parts = []
        for _, _, sub in self.split():
            rows = np.repeat(sub.flow, sub.hops())
            vals = np.repeat(sub.frac, sub.hops())
            m = sp.coo_matrix((vals, (rows, sub.links)), shape=(sub.n_flows, self.n_links)).tocsr()
            m.sum_duplicates()
            parts.append(m)
        return parts[0] if len(parts) == 1 else sp.vstack(parts, format="csr")

    def path_incidence(self) -> sp.csr_matrix:
        """Sub-path × link 0/1 matrix."""
        import scipy.sparse as sp
        rows = np.repeat(np.arange(self.n_paths), self.hops())
        return sp.csr_matrix((np.ones(len(self.links)), (rows, self.links)),
                             shape=(self.n_paths, self.n_links))


class PathProvider(Protocol):
    """Fabric paths between NIC ports: one sequence of directed link ids per pair,
    from the link leaving ``src_ports[i]`` to the link entering ``dst_ports[i]``. A provider may
    also carry ``hop_matrix`` (same arguments, one row of link ids per pair, -1 after the last
    hop): :func:`route` then asks it a batch of flows at a time (as :func:`lft_paths` does)."""

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
    _check_ends(fabric, flows.src, flows.dst)
    ports = nic_ports(fabric)
    pre, sp_ = _side(fabric, links, ports, flows.src, True)
    post, dp = _side(fabric, links, ports, flows.dst, False)
    return Ends(pre, sp_, dp, post)


def _check_ends(fabric: Fabric, src: np.ndarray, dst: np.ndarray) -> None:
    """The endpoint errors of :func:`resolve_ends` but its NIC ports' (no such device, not a GPU or
    NIC, an unbound GPU, a flow to itself), the first one of each kind."""
    t = fabric.devices_t
    gpu, nic = KIND_CODE["gpu"], KIND_CODE["nic"]
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


def _side(fabric: Fabric, links: LinkTable, ports: np.ndarray, ends: np.ndarray,
          up: bool) -> tuple[np.ndarray, np.ndarray]:
    """(PCIe hop or -1, NIC port) of one end of each flow (``up``: the source end)."""
    t = fabric.devices_t
    is_gpu = t.kind[ends] == KIND_CODE["gpu"]
    nic_dev = np.where(is_gpu, t.bound[ends], ends).astype(np.int64)
    p = ports[nic_dev]
    if np.any(p < 0):
        d = int(ends[p < 0][0])
        raise FabricError(f"{fabric.name_of(d)}: its NIC has no cabled port")
    i = np.searchsorted(links.pcie_gpu, ends)
    base = links.n_cable_links + 2 * i + (0 if up else 1)
    return np.where(is_gpu, base, -1), p


def _check_ports(fabric: Fabric, ports: np.ndarray, ends: np.ndarray) -> None:
    """:func:`_side`'s error (a NIC without a cabled port) for all ``ends``, a batch at a time."""
    t = fabric.devices_t
    for lo in range(0, len(ends), BATCH_FLOWS):
        e = ends[lo: lo + BATCH_FLOWS]
        p = ports[np.where(t.kind[e] == KIND_CODE["gpu"], t.bound[e], e).astype(np.int64)]
        if np.any(p < 0):
            raise FabricError(f"{fabric.name_of(int(e[p < 0][0]))}: its NIC has no cabled port")


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
          same_seed: bool) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Min-hop walk for every flow, :data:`BATCH_FLOWS` flows at a time; yields per batch (flow,
    frac, hop matrix) of its sub-paths (one row of link ids per sub-path, -1 where there is no
    hop), flows in order."""
    n = len(ends.src_port)
    g = switch_graph(fabric, links)
    ls = cable_links(fabric, ends.src_port)
    ld = cable_links(fabric, ends.dst_port) ^ 1
    first_sw = links.dst_dev[ls]
    last_sw = links.src_dev[ld]
    direct = first_sw == links.dst_dev[ld]          # NIC cabled straight to the other NIC
    cur = g.index[first_sw]
    tgt = g.index[last_sw]
    del first_sw, last_sw
    bad = ~direct & ((cur < 0) | (tgt < 0))
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise FabricError(f"flow {i}: {fabric.port_name(int(ends.src_port[i]))} and "
                          f"{fabric.port_name(int(ends.dst_port[i]))} do not both reach a switch")
    uniq, trow = np.unique(np.where(direct, 0, tgt), return_inverse=True)
    dist = g.hops_to(uniq)
    cur_c = np.where(direct, 0, cur)
    del cur
    unreachable = ~direct & (dist[trow, cur_c] < 0)
    if np.any(unreachable):
        i = int(np.flatnonzero(unreachable)[0])
        raise FabricError(f"flow {i}: no path from {fabric.port_name(int(ends.src_port[i]))} "
                          f"to {fabric.port_name(int(ends.dst_port[i]))}")
    # destination key (LID-like ordinal) and ECMP inputs
    dkey = np.searchsorted(np.unique(ends.dst_port), ends.dst_port).astype(np.int64)
    sports = flow_sports(n, seed)
    sw_seed = switch_seeds(g.devices, seed, same_seed)
    max_steps = int(dist.max()) + 1 if dist.size else 1
    paths = 0                                        # sub-paths of the batches before this one
    for lo in range(0, n, BATCH_FLOWS):
        hi = min(n, lo + BATCH_FLOWS)
        # frontier: one row per (sub-path), hop matrix grows by one column per step
        row_flow = np.arange(lo, hi)
        row_frac = np.ones(hi - lo)
        row_cur = cur_c[lo:hi].copy()
        row_div = np.ones(hi - lo, np.int64)
        hops = [ls[lo:hi]]
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
                if paths + int(rep.sum()) > MAX_SUBPATHS:
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
        paths += len(row_flow)
        yield row_flow, row_frac, np.column_stack([ends.pre[row_flow]] + hops + [ends.post[row_flow]])


def _index_dtype(n: int) -> type:
    return np.int32 if n < 2 ** 31 else np.int64


class _Grow:
    """A growing array (amortised doubling in place, ``ndarray.resize``): a big run's routes are
    written batch by batch into one buffer, never kept as pieces and joined (which would hold them
    twice and leave the pieces' holes in the heap)."""

    def __init__(self, dtype: type, size: int) -> None:
        self.buf: np.ndarray = np.empty(max(size, 16), dtype)
        self.n = 0

    def add(self, x: np.ndarray) -> None:
        need = self.n + len(x)
        if need > len(self.buf):
            self.buf.resize(max(need, 2 * len(self.buf)), refcheck=False)
        self.buf[self.n: need] = x
        self.n = need

    def done(self) -> np.ndarray:
        self.buf.resize(self.n, refcheck=False)
        return self.buf


class _Out:
    """The routes being written: sub-path flow, share (``unit``: 1 for every sub-path, kept as a
    read-only broadcast of 1.0), hop counts and links."""

    def __init__(self, n_flows: int, n_links: int, width: int, unit: bool) -> None:
        self.flow = _Grow(_index_dtype(n_flows), n_flows)
        self.frac = None if unit else _Grow(np.float64, n_flows)
        self.indptr = _Grow(np.int32, n_flows + 1)
        self.indptr.add(np.zeros(1, np.int32))
        self.links = _Grow(_index_dtype(n_links), n_flows * width)
        self.n_flows, self.n_links = n_flows, n_links

    def add(self, row_flow: np.ndarray, row_frac: np.ndarray, mat: np.ndarray) -> None:
        keep = mat >= 0
        self.flow.add(row_flow)
        if self.frac is not None:
            self.frac.add(row_frac)
        ends = self.links.n + np.cumsum(keep.sum(1))
        if len(ends) and ends[-1] >= 2 ** 31 and self.indptr.buf.dtype == np.int32:
            self.indptr.buf = self.indptr.buf.astype(np.int64)
        self.indptr.add(ends)
        self.links.add(mat[keep])

    def routes(self) -> Routes:
        flow, indptr, links = self.flow.done(), self.indptr.done(), self.links.done()
        if self.frac is None:
            frac = np.broadcast_to(np.float64(1.0), (len(flow),))
        else:
            frac = self.frac.done()
        if len(flow) > 1 and bool(np.any(flow[1:] < flow[:-1])):     # rows out of flow order: stable sort
            order = np.argsort(flow, kind="stable")
            hops = np.diff(indptr)[order]
            start = np.repeat(indptr[:-1][order], hops)
            links = links[start + np.arange(len(links)) - np.repeat(np.cumsum(hops) - hops, hops)]
            flow, frac = flow[order], frac[order]
            indptr = np.concatenate([[0], np.cumsum(hops)]).astype(indptr.dtype)
        return Routes(flow, frac, indptr, links, self.n_flows, self.n_links)


def route(fabric: Fabric, links: LinkTable, flows: Flows, mode: str = "static", seed: int = 0,
          same_seed: bool = False, provider: PathProvider | None = None) -> Routes:
    """Route every flow (see module doc for the modes); ``provider`` overrides the fabric paths.

    Flows go :data:`BATCH_FLOWS` at a time; the result's index arrays are int32 where they fit."""
    if mode not in MODES:
        raise ParamError("routing", mode, f"is not one of {', '.join(MODES)}")
    n, L = len(flows), links.n
    if provider is None:
        ends = resolve_ends(fabric, links, flows)
        out = None
        for row_flow, row_frac, mat in _walk(fabric, links, ends, mode, seed, same_seed):
            out = out or _Out(n, L, mat.shape[1], mode in ("static", "ecmp"))
            out.add(row_flow, row_frac, mat)
        return (out or _Out(n, L, 1, True)).routes()
    _check_ends(fabric, flows.src, flows.dst)
    ports = nic_ports(fabric)
    _check_ports(fabric, ports, flows.src)
    _check_ports(fabric, ports, flows.dst)
    hop_matrix = getattr(provider, "hop_matrix", None)
    paths = None
    if hop_matrix is None:                        # any provider: its paths for all flows at once
        paths = provider(fabric, links, _side(fabric, links, ports, flows.src, True)[1],
                         _side(fabric, links, ports, flows.dst, False)[1])
        if len(paths) != n:
            raise FabricError(f"path provider returned {len(paths)} paths for {n} flows")
    out = None
    for lo in range(0, n, BATCH_FLOWS):
        hi = min(n, lo + BATCH_FLOWS)
        pre, sp_ = _side(fabric, links, ports, flows.src[lo:hi], True)
        post, dp = _side(fabric, links, ports, flows.dst[lo:hi], False)
        if hop_matrix is not None:
            mid = hop_matrix(fabric, links, sp_, dp)
        else:
            assert paths is not None
            width = max((len(p) for p in paths[lo:hi]), default=0)
            mid = np.full((hi - lo, max(width, 1)), -1, np.int64)
            for i, p in enumerate(paths[lo:hi]):
                mid[i, : len(p)] = p
        mat = np.column_stack([pre, mid, post])
        out = out or _Out(n, L, mat.shape[1], True)
        out.add(np.arange(lo, hi), np.ones(hi - lo), mat)
    return (out or _Out(n, L, 1, True)).routes()


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

    def hop_matrix(fab: Fabric, links: LinkTable, src_ports: np.ndarray, dst_ports: np.ndarray) -> np.ndarray:
        """The paths as one row of link ids per pair, -1 after the last hop."""
        t = fab.devices_t
        row = np.full(t.n, -1, np.int64)
        row[switches] = np.arange(len(switches))
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
        return np.column_stack(hops)

    def provider(fab: Fabric, links: LinkTable, src_ports: np.ndarray,
                 dst_ports: np.ndarray) -> list[np.ndarray]:
        mat = hop_matrix(fab, links, src_ports, dst_ports)
        return [r_[r_ >= 0] for r_ in mat] if len(src_ports) else []
    provider.hop_matrix = hop_matrix            # type: ignore[attr-defined]  # route()'s batch by batch way
    return provider


def sm_paths(routing) -> PathProvider:
    """Paths from a ``fabricviz.ib`` ``Routing`` (its ``lft`` matrix, switches and CA LIDs)."""
    sn = routing.subnet
    lids = np.zeros(sn.fabric.ports_t.n, np.int64)
    lids[np.asarray(sn.ca_ports, np.int64)] = np.asarray(routing.lids.ca_lid, np.int64)
    return lft_paths(sn.fabric, routing.lft, lids, switches=sn.switches)


def line_gbps(links: LinkTable, routes: Routes) -> np.ndarray:
    """Per flow: the rate of its first fabric link (a piece of flows at a time)."""
    parts = routes.split()
    if len(parts) > 1:
        out = np.empty(routes.n_flows)
        for lo, hi, sub in parts:
            out[lo:hi] = line_gbps(links, sub)
        return out
    fp = np.searchsorted(routes.flow, np.arange(routes.n_flows))
    start = routes.indptr[np.minimum(fp, max(routes.n_paths - 1, 0))]
    l0 = routes.links[start]
    l1 = routes.links[np.minimum(start + 1, len(routes.links) - 1)]
    return np.where(links.pcie[l0], links.gbps[l1], links.gbps[l0])
