"""NCCL-style collective performance of a design: time, algbw and busbw per message size.

``collective(fabric, "allreduce", sizes)`` answers what nccl-tests would print on the built
cluster, from the design's own paths. The numbers follow nccl-tests' PERFORMANCE.md:
algbw = size / time; busbw = algbw × 2(n−1)/n for all-reduce, × (n−1)/n for all-gather,
reduce-scatter and all-to-all, × 1 for broadcast (n GPUs, ``size`` the buffer nccl-tests names).

The model (simplified where NCCL is complex; each simplification said here):

* **Ranks** are the design's GPUs bound to a NIC (:func:`~.workloads.endpoints`), in NCCL's ring
  order: the GPUs of one server consecutive (by local index), servers in device order.
* **An algorithm is a list of steps** (built by :mod:`.collective_plan`); a step is a set of
  concurrent point-to-point transfers (src GPU → dst GPU, bytes). Ring all-reduce: 2(n−1) steps of
  size/n to the ring neighbour; all-gather and reduce-scatter: n−1 such steps; all-to-all: one step
  of n(n−1) transfers of size/n; broadcast (ring, pipelined): one step of the chain transfers of the
  whole buffer, with the chain's hop latencies (NCCL's chunked pipeline taken as perfect: the
  bandwidth term is the buffer at the slowest link's rate).
* **Channels** (several servers, each of g GPUs with a NIC each): NCCL runs one ring per NIC,
  entering and leaving a server by the same NIC (its graph search and PXN keep the hop on a rail):
  g channels of size/g each. Ring: channel c's inter-server hop goes GPU c → GPU c of the next
  server (over GPU c's NIC), its ring inside the server covers every NVLink edge j → j+1 (the
  channels' shares of one edge are one transfer). Broadcast: channel c goes GPU c → GPU c from
  server to server, inside a server a chain from where it enters (the root in the first server,
  GPU c after): 2(g−1) + servers − 1 hops. Otherwise one ring (one chain), hop by hop in rank order.
* **Tree all-reduce**: NCCL's double binary tree (:mod:`.collective_plan` says how the two trees are
  built: mirrored for an even server count, shifted by one for an odd one), one pair per channel:
  channel c's trees join the servers' GPU c (over NIC c), each tree carrying half of the channel's
  size/g; inside each server a chain from GPU c over all its GPUs carries the channel both ways.
  Reduce up and broadcast down pipelined as one step: every tree edge carries its tree's share both
  ways at once; pipeline depth = the deeper tree's depth + the chain (hops: 2 × that). The two
  trees' transfers over one (src, dst) stay two transfers (two connections, two max-min shares:
  one merged transfer of two shares would get one share of its NIC); the chains' shares of one
  NVLink edge are one transfer. One server: the chain only. Bandwidth, by hand: a server is inner
  (up to two children) in one tree and a leaf in the other, so its NIC c sends at most 4 shares of
  size/(2g): 2·size/g at the NIC's B. algbw = g·B/2, busbw = g·B·(N−1)/N (N GPUs), against the
  ring's g·B: the same NIC bound, close at many GPUs (4 × DGX H100: 385.1 against 397.5 GB/s of
  payload, less latency). At small sizes the tree's 2·(log₂ servers + g − 1) hops beat the ring's 2(N−1) steps.
  Not modelled: NCCL's split of a node's tree up/down over two NICs, its per-size protocol choice
  (LL, LL128, Simple) and chunking of the pipeline.
* **Step time** = (h − 1)·(o + α_max) + o + max over transfers of (α + β): ``o`` the per-step
  software cost :data:`STEP_OVERHEAD_NS`, ``h`` the step's hop count (1, or the pipeline depth),
  α the one-way latency of the transfer's path for a packet of min(bytes, :data:`MTU_BYTES`)
  (:mod:`.latency`, as ``fabricviz latency``), β = bytes / the transfer's max-min rate with all
  the step's transfers on the fabric at once (:func:`~.engine.simulate`, ``maxmin``, over the
  design's routing: the SM's LFTs on InfiniBand, ECMP on RoCE; a GPU's traffic leaves by its
  own NIC over PCIe). The fabric's rate is goodput: each :data:`MTU_BYTES` payload travels with
  its packet's headers, :data:`IB_PACKET_OVERHEAD` bytes on InfiniBand (LRH 8, BTH 12, ICRC 4,
  VCRC 2; no GRH inside a subnet) and :data:`ROCE_PACKET_OVERHEAD` on RoCEv2 (Ethernet 14, IPv4
  20, UDP 8, BTH 12, ICRC 4, FCS 4, preamble 8 and inter-frame gap 12), so a 400 Gb/s NIC moves at
  most 49.68 GB/s of payload on InfiniBand and 49.02 GB/s on RoCE (:func:`wire_efficiency`; the
  RDMA path MTU is 4 KiB on both, whatever the Ethernet MTU). NVLink's own framing is not taken.
* **Inside an NVLink domain** (:mod:`fabricviz.model.nvlink`: a DGX's NVSwitch baseboard, an
  NVL72 rack's trays, or one partition of it) a transfer between two GPUs goes over NVLink, which
  the engine does not model: each GPU has one NVLink egress and one ingress at its links × NCCL's
  usable per-link rate (:func:`~.nvlink_model.usable_gbytes`: 18 × 20.6 GB/s on an H100), the
  switch chips non-blocking, shared max-min here; latency :data:`NVLINK_LATENCY_NS` + the packet
  at NVLink rate. Between domains (or partitions) the transfer takes the engine's path (PCIe,
  NIC, fabric). NVLS and SHARP (in-switch reduction) are :mod:`.collective_hier`'s.
* **Fabric transfers run NIC to NIC** when every rank has its own NIC and its PCIe links are no
  slower than that NIC's: the PCIe hops then carry exactly the NIC links' flows with at least their
  capacity, so the max-min rates are the same without them, and their latency is added back to α
  (:mod:`.collective_nic`): two hops fewer a flow, an all-to-all's n(n−1) flows the largest run.
* The collective's time is the sum of its steps; steps with the same transfer pattern are
  solved once (a ring's 2(n−1) steps are one pattern). Deterministic for a seed.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model import Fabric, FabricError
from ..model.fabric import KIND_CODE
from ..model.numbers import is_digits
from ..model.nvlink import nvlink_map
from .bounds import MAX_SIZES
from .collective_hier import HIER, HIER_ALGOS, candidates
from .collective_plan import ALGOS as ALGOS  # noqa: F401  (re-exported: the plans' names)
from .collective_plan import OPS, Step, channels, plan, units
from .collective_plan import server_groups as _servers
from .nvlink_model import usable_gbytes
from .units import ParamError
from .workloads import Flows, endpoints, parse_size

#: ops whose nccl-tests count column is per rank (count / nranks)
PER_RANK_COUNT = ("allgather", "reducescatter", "alltoall")
#: Per-step software cost (kernel step, proxy hand-off): an assumption of 1 µs, the order of
#: nccl-tests' small-message all-reduce on one 8-GPU server (some 10–20 µs over 2(n−1) = 14 steps).
STEP_OVERHEAD_NS = 1000.0
#: One NVLink/NVSwitch hop, GPU to GPU: an estimate (assumption), before serialization.
NVLINK_LATENCY_NS = 500.0
#: The largest packet whose serialization enters α (InfiniBand's 4 KiB MTU).
MTU_BYTES = 4096.0
#: Header bytes that travel with each payload packet (see the module doc).
IB_PACKET_OVERHEAD = 8 + 12 + 4 + 2
ROCE_PACKET_OVERHEAD = 14 + 20 + 8 + 12 + 4 + 4 + 8 + 12
#: nccl-tests' element type of the table.
DTYPE, DTYPE_BYTES = "float", 4


def size_label(size: float) -> str:
    """A buffer size in the largest unit it is a whole number of: nccl-tests' binary units (``8B``,
    ``64K``, ``512M``, ``2G``) or decimal ones (``64MB``, ``8GB``); else binary, rounded."""
    for unit, k in (("G", 2 ** 30), ("GB", 1e9), ("M", 2 ** 20), ("MB", 1e6), ("K", 2 ** 10), ("KB", 1e3)):
        if size >= k and float(size / k).is_integer():
            return f"{size / k:g}{unit}"
    for unit, k in (("G", 2 ** 30), ("M", 2 ** 20), ("K", 2 ** 10)):
        if size >= k:
            return f"{size / k:.4g}{unit}"
    return f"{size:g}B"


def wire_efficiency(tech: str) -> float:
    """Payload share of the bytes on the wire for full :data:`MTU_BYTES` packets (``ib`` or Ethernet)."""
    head = IB_PACKET_OVERHEAD if tech == "ib" else ROCE_PACKET_OVERHEAD
    return MTU_BYTES / (MTU_BYTES + head)


def bus_factor(op: str, n: int) -> float:
    """busbw / algbw of ``op`` on ``n`` ranks (nccl-tests' PERFORMANCE.md)."""
    if op == "allreduce":
        return 2.0 * (n - 1) / n
    if op in ("allgather", "reducescatter", "alltoall"):
        return (n - 1) / n
    if op == "broadcast":
        return 1.0
    raise ParamError("op", op, f"is not one of {', '.join(OPS)}")


_SWEEP = re.compile(r"^([^:]+):([^:]+):x([0-9]+(?:\.[0-9]+)?)$", re.I)


def parse_sizes(text: str) -> np.ndarray:
    """``8B:8GB:x2`` (geometric, ×2 from 8 B up to at most 8 GB), ``1MB,1GB`` or ``64MiB`` → bytes;
    at most :data:`~.bounds.MAX_SIZES` sizes.

    Sizes as the simulate workloads write them (:func:`~.workloads.parse_size`)."""
    try:
        m = _SWEEP.match(text.strip())
        if m:
            lo, hi, k = parse_size(m.group(1)), parse_size(m.group(2)), float(m.group(3))
            if k <= 1:
                raise FabricError(f"factor x{m.group(3)} must be above 1")
            if hi < lo:
                raise FabricError(f"{m.group(2)} is below {m.group(1)}")
            n = int(math.floor(math.log(hi / lo, k) + 1e-9)) + 1
            if n > MAX_SIZES:
                raise FabricError(f"{n:,} sizes, more than the {MAX_SIZES:,} a sweep may have: use a larger factor")
            return lo * k ** np.arange(n)
        items = text.split(",")
        if len(items) > MAX_SIZES:
            raise FabricError(f"{len(items):,} sizes, more than the {MAX_SIZES:,} a sweep may have")
        out = np.array([parse_size(p) for p in items])
    except FabricError as e:
        raise ParamError("sizes", text, f"{e} (e.g. 8B:8GB:x2 or 1MB,1GB)") from None
    return out


def ring_order(fabric: Fabric, gpus: np.ndarray) -> np.ndarray:
    """GPUs in NCCL's ring order: a server's GPUs together (by local index), servers in order, the
    servers of one NVLink domain (an NVL72 rack's trays) together, at their first server."""
    t = fabric.devices_t
    gpus = np.asarray(gpus, np.int64)
    server = np.where(t.parent[gpus] >= 0, t.parent[gpus], gpus).astype(np.int64)
    uniq, inv = np.unique(units(fabric, gpus), return_inverse=True)
    first = np.full(len(uniq), np.iinfo(np.int64).max)
    np.minimum.at(first, inv, server)                    # a unit sits where its first server does
    head, unit = first[inv], uniq[inv]
    return gpus[np.lexsort((gpus, t.local[gpus], server, unit, head))]


def select_gpus(fabric: Fabric, spec: str | int | None = "all") -> np.ndarray:
    """The ranks: ``all`` GPUs bound to a NIC or the first ``N``, in ring order; or names ``a,b,…``
    in the order given (a launcher's rank placement, run as written: a topology-unaware ring)."""
    try:
        every = ring_order(fabric, endpoints(fabric, "gpu"))
    except ParamError:
        raise FabricError(f"{fabric.name}: no GPU bound to a NIC (a collective runs over GPUs)") from None
    text = "all" if spec is None else str(spec).strip()
    if text.lower() == "all":
        chosen = every
    elif is_digits(text):
        k = int(text)
        if not 2 <= k <= len(every):
            raise ParamError("gpus", text, f"needs 2 to {len(every)} GPUs (the design has {len(every)})")
        chosen = every[:k]
    else:
        ids, known = [], set(every.tolist())
        for name in (p.strip() for p in text.split(",")):
            d = fabric.find(name)
            if d is None or d not in known:
                raise ParamError("gpus", text, f"{name!r} is not a GPU bound to a NIC in this design")
            ids.append(d)
        if len(set(ids)) != len(ids):
            raise ParamError("gpus", text, "names a GPU twice")
        chosen = np.array(ids, np.int64)
    if len(chosen) < 2:
        raise ParamError("gpus", text, "a collective needs at least 2 GPUs")
    return chosen


@dataclass(frozen=True)
class Solved:
    """One step pattern on the fabric: max-min rate per transfer (Gb/s, the wire's), α per packet
    size and the payload share of those bits (:func:`wire_efficiency`; 1 over NVLink)."""

    rate_gbps: np.ndarray
    alpha_ns: Callable[[float], np.ndarray]
    nvlink: np.ndarray                       # transfers over NVLink
    run: Any = field(default=None, repr=False, compare=False)   # the fabric transfers' max-min run
    goodput: Any = 1.0                       # per transfer: payload bits / wire bits


@dataclass
class Solver:
    """Solves step patterns once each over one routing of the fabric (see the module doc)."""

    fabric: Fabric
    routing: str | None = None
    transport: str | None = None
    seed: int = 0
    engine: str = "minhop"
    #: run GPU transfers NIC to NIC where that leaves the rates as they are (:mod:`.collective_nic`)
    nic_to_nic: bool = True
    _sm: Any = None
    _cache: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        from .reach import fabric_tech
        self.tech = fabric_tech(self.fabric)
        if self.tech == "ib" and self.routing in (None, "static") and self.engine != "dmodk":
            from ..ib.routing import route
            self._sm = route(self.fabric, self.engine)
        nv = nvlink_map(self.fabric)
        self._group = nv.group
        self._nvl = np.zeros(self.fabric.devices_t.n)       # per GPU: usable NVLink, Gb/s one way
        for d in nv.domains:
            self._nvl[d.gpus] = usable_gbytes(d.spec) * 8.0

    #: one NVLink ring step's fixed cost (software step + NVLink hop), for :mod:`.collective_hier`
    nvlink_step_ns: float = field(default=STEP_OVERHEAD_NS + NVLINK_LATENCY_NS, init=False)

    def step_ns(self, step: Step, size: float) -> float:
        """``step``'s time for a ``size``-byte buffer (:func:`step_time_ns`)."""
        return step_time_ns(step, self.solve(step), size)

    def solve(self, step: Step) -> Solved:
        hit = self._cache.get(step.key)
        if hit is None:
            hit = self._cache[step.key] = self._solve(step)
        return hit

    def _solve(self, step: Step) -> Solved:
        grp = self._group
        nvl = (grp[step.src] >= 0) & (grp[step.src] == grp[step.dst]) & \
            (self._nvl[step.src] > 0) & (self._nvl[step.dst] > 0)
        rate = np.zeros(len(step.src))
        alpha_parts: list[tuple[np.ndarray, Callable[[float], np.ndarray]]] = []
        if nvl.any():
            rate[nvl] = _nvlink_rates(step.src[nvl], step.dst[nvl], self._nvl)
            cap = np.minimum(self._nvl[step.src[nvl]], self._nvl[step.dst[nvl]])

            def nvlink_alpha(pkt: float, c: np.ndarray = cap) -> np.ndarray:
                return NVLINK_LATENCY_NS + pkt * 8.0 / c
            alpha_parts.append((nvl, nvlink_alpha))
        fab = ~nvl
        run = None
        if fab.any():
            r, lat, run = self._fabric(step.src[fab], step.dst[fab])
            rate[fab] = r
            alpha_parts.append((fab, lat))

        def alpha(pkt: float) -> np.ndarray:
            out = np.zeros(len(step.src))
            for mask, fn in alpha_parts:
                out[mask] = fn(pkt)
            return out
        goodput = np.where(nvl, 1.0, wire_efficiency(self.tech))     # the packets' headers ride along
        return Solved(rate, alpha, nvl, run, goodput)

    def _fabric(self, src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, Callable[[float], np.ndarray], Any]:
        from .collective_nic import nic_ends, pcie_ns
        from .compare import run_workload
        from .latency import LatencyParams, flow_latency_ns, flow_nic_ns, link_latency
        from .links import link_table
        ends = nic_ends(self.fabric, link_table(self.fabric), src, dst) if self.nic_to_nic else None
        flows = Flows(src, dst) if ends is None else Flows(ends[0], ends[1])
        res = run_workload(self.fabric, flows, "maxmin", 1e-3, self.seed, self.routing,
                           self.engine, sm=self._sm, transport=self.transport)
        if res.dropped_flows or res.refused:
            names = ", ".join(u.name for u in res.left_out[:3])
            raise FabricError(f"the collective's GPUs are not all reachable ({names or 'partition'})")
        links, routes = res.links, res.routes
        memo: dict[float, np.ndarray] = {}

        def lat(pkt: float) -> np.ndarray:
            if pkt not in memo:
                prm = LatencyParams(bytes=pkt)
                ll = link_latency(links, prm)
                total = np.where(np.isfinite(ll.total), ll.total, 0.0)
                memo[pkt] = flow_latency_ns(links, routes, total, flow_nic_ns(links, routes, prm), ll)
                if ends is not None:
                    memo[pkt] += pcie_ns(links, routes, ll, total, ends[2], ends[3])
            return memo[pkt]
        return res.flow_rates(), lat, res


def _nvlink_rates(src: np.ndarray, dst: np.ndarray, nvl: np.ndarray) -> np.ndarray:
    """Max-min rates of transfers over per-GPU NVLink egress and ingress ports."""
    import scipy.sparse as sp

    from .maxmin import maxmin
    gpus, inv = np.unique(np.concatenate([src, dst]), return_inverse=True)
    k, f = len(gpus), len(src)
    rows = np.repeat(np.arange(f), 2)
    cols = np.column_stack([inv[:f], k + inv[f:]]).ravel()
    A = sp.csr_matrix((np.ones(2 * f), (rows, cols)), shape=(f, 2 * k))
    return maxmin(A, np.concatenate([nvl[gpus], nvl[gpus]])).rate


@dataclass(frozen=True)
class Row:
    """One line of the nccl-tests table."""

    size: float
    time_us: float
    algbw: float                 # GB/s
    busbw: float                 # GB/s
    per: int = 1                 # ranks the buffer is split over in nccl-tests' count column
    algo: str = ""               # the algorithm that ran this size (``auto`` picks one per size)

    @property
    def count(self) -> int:
        """nccl-tests' count: elements of the buffer, per rank for all-gather, reduce-scatter and
        all-to-all (its ``paramcount``)."""
        return int(self.size // DTYPE_BYTES // self.per)


@dataclass(frozen=True)
class CollectiveResult:
    op: str
    algo: str
    ranks: np.ndarray
    servers: int
    channels: int
    tech: str
    rows: tuple[Row, ...]
    engine: str | None = None          # the SM's routing engine the paths came from (None: not the SM's)

    @property
    def n(self) -> int:
        return len(self.ranks)


def step_time_ns(step: Step, solved: Solved, size: float) -> float:
    """One step's time for a ``size``-byte buffer (see the module doc)."""
    b = step.frac * size
    alpha = solved.alpha_ns(float(min(b.max(), MTU_BYTES)))
    beta = b * 8.0 / (solved.rate_gbps * solved.goodput)     # payload bits / (Gb/s) = ns
    return (step.hops - 1) * (STEP_OVERHEAD_NS + float(alpha.max())) + STEP_OVERHEAD_NS + float((alpha + beta).max())


def collective(fabric: Fabric, op: str, sizes: np.ndarray, algo: str = "ring", gpus: str | int | None = "all",
               routing: str | None = None, transport: str | None = None, seed: int = 0,
               solver: Solver | None = None, engine: str = "minhop") -> CollectiveResult:
    """time, algbw and busbw of ``op`` per buffer size over the design (see the module doc); ``engine``:
    the InfiniBand SM's routing engine of static routes (``dmodk``: the built-in D-mod-k walk), unless
    ``solver`` is given (then its own)."""
    from .transport import check_transport
    check_transport(fabric, transport)
    ranks = select_gpus(fabric, gpus)
    if algo not in ALGOS + HIER_ALGOS:
        raise ParamError("algo", algo, f"is not one of {', '.join(ALGOS + HIER_ALGOS)}")
    solver = solver or Solver(fabric, routing, transport, seed, engine)
    if algo == "auto":
        runs = {}
        for a in candidates(op):
            try:
                runs[a] = algo_time(fabric, op, a, ranks, solver)
            except ParamError:
                continue
    else:
        runs = {algo: algo_time(fabric, op, algo, ranks, solver)}
    factor = bus_factor(op, len(ranks))
    rows = []
    for size in np.asarray(sizes, float).tolist():
        ns, won = min((fn(size), a) for a, fn in runs.items())
        algbw = size / ns                               # bytes/ns = GB/s
        rows.append(Row(size, ns / 1e3, algbw, algbw * factor, len(ranks) if op in PER_RANK_COUNT else 1, won))
    return CollectiveResult(op, algo, ranks, len(_servers(fabric, ranks)),
                            channels(fabric, ranks) if op != "alltoall" else 1, solver.tech, tuple(rows),
                            solver.engine if solver.tech == "ib" and solver.routing in (None, "static") else None)


def algo_time(fabric: Fabric, op: str, algo: str, ranks: np.ndarray, solver: Solver) -> Callable[[float], float]:
    """Time (ns) of ``op`` with ``algo`` over ``ranks`` as a function of the buffer size."""
    if algo in HIER:
        return HIER[algo](fabric, op, ranks, solver).time_ns
    steps = plan(fabric, op, algo, ranks)
    solved = [solver.solve(s) for s in steps]

    def time_ns(size: float) -> float:
        return sum(s.repeat * step_time_ns(s, v, size) for s, v in zip(steps, solved, strict=True))
    return time_ns


#: What one transfer of each plan's step is, in the words the GUI shows.
STEP_KINDS = {"ring": "ring hop", "tree": "tree edge", "alltoall": "all-to-all transfer",
              "broadcast": "broadcast chain hop"}
#: Utilisation at or above 1 − this counts as full (the water-filling's rounding).
FULL = 1e-6


@dataclass(frozen=True)
class Bottleneck:
    """The slowest step of a collective at one size and the fabric links that bound it.

    ``transfers``: the step's slowest transfers (α + β within 1e-9 of the step's largest);
    ``links``: the directed links (:mod:`.links` ids) at full utilisation on their paths where
    they get the largest max-min share of the link — their max-min bottlenecks; ``cables``: the
    cables of those links (PCIe hops have none); ``named_cables``: the cables of the first slowest
    transfer alone (the one :meth:`describe` names — on a ring every hop may tie, and their cables
    together are the whole fabric). NVLink transfers have no fabric link."""

    step: int
    kind: str
    size: float
    time_ns: float
    src: np.ndarray
    dst: np.ndarray
    rate_gbps: float
    nvlink: bool
    links: np.ndarray
    link_names: tuple[tuple[str, str], ...]
    cables: np.ndarray
    named_cables: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def describe(self, fabric: Fabric, most: int = 2) -> str:
        """``ring hop gpu03 → gpu04 at 400 Gb/s over leaf01→spine02, spine02→leaf03 (+2 more)``."""
        k = len(self.src)
        who = f"{fabric.name_of(int(self.src[0]))} → {fabric.name_of(int(self.dst[0]))}" + \
            (f" (and {k - 1} more like it)" if k > 1 else "")
        head = f"{self.kind} {who} at {self.rate_gbps:.4g} Gb/s"
        if self.nvlink:
            return f"{head} over NVLink"
        names = [f"{a}→{b}" for a, b in self.link_names]
        more = f" (+{len(names) - most} more)" if len(names) > most else ""
        return f"{head} over {', '.join(names[:most])}{more}" if names else head


def _full_links(run: Any, flows: np.ndarray) -> np.ndarray:
    """Links at full utilisation where one of ``flows`` has the largest rate of the link."""
    routes = run.routes
    rate = run.flow_rates()
    hop_flow = np.repeat(routes.flow, routes.hops())
    top = np.zeros(routes.n_links)
    np.maximum.at(top, routes.links, rate[hop_flow])
    util = run.last.link_util
    mine = np.isin(hop_flow, flows)
    lk = routes.links[mine]
    keep = (util[lk] >= 1.0 - FULL) & (rate[hop_flow[mine]] >= top[lk] * (1.0 - FULL))
    return np.unique(lk[keep])


def slowest_step(fabric: Fabric, result: CollectiveResult, solver: Solver, size: float | None = None) -> Bottleneck:
    """The step of ``result``'s plan that takes longest at ``size`` (default: the largest size of the
    result) and its bottleneck links (see :class:`Bottleneck`); ``solver`` the one that ran it
    (its solved steps are reused)."""
    size = float(max(r.size for r in result.rows)) if size is None else float(size)
    algo = next((r.algo for r in result.rows if r.size == size), result.algo) if result.algo == "auto" \
        else result.algo
    if algo not in ALGOS:
        raise ParamError("algo", algo, "reduces in the switches: no point-to-point step to blame")
    steps = plan(fabric, result.op, algo, result.ranks)
    times = []
    for s in steps:
        times.append(step_time_ns(s, solver.solve(s), size))
    k = int(np.argmax(times))
    step, solved = steps[k], solver.solve(steps[k])
    b = step.frac * size
    each = solved.alpha_ns(float(min(b.max(), MTU_BYTES))) + b * 8.0 / (solved.rate_gbps * solved.goodput)
    slow = np.flatnonzero(each >= each.max() * (1.0 - 1e-9))
    nvl = bool(solved.nvlink[slow].all())
    fab = slow[~solved.nvlink[slow]]
    links = first = np.zeros(0, np.int64)
    if len(fab) and solved.run is not None:
        in_run = np.cumsum(~solved.nvlink) - 1                 # transfer → flow of the fabric run
        links = _full_links(solved.run, in_run[fab]).astype(np.int64)
        if slow[0] == fab[0]:                                  # the transfer describe() names
            first = _full_links(solved.run, in_run[fab[:1]]).astype(np.int64)
    table = solved.run.links if solved.run is not None else None
    if table is not None and len(links):                       # switch-to-switch links named first
        sw = np.isin(fabric.devices_t.kind, [KIND_CODE["ib_switch"], KIND_CODE["eth_switch"]])
        links = links[np.lexsort((links, ~(sw[table.src_dev[links]] & sw[table.dst_dev[links]])))]
    names = tuple((fabric.name_of(int(table.src_dev[x])), fabric.name_of(int(table.dst_dev[x]))) for x in links) \
        if table is not None else ()
    cables = np.unique(links[links < table.n_cable_links] // 2) if table is not None else np.zeros(0, np.int64)
    named = np.unique(first[first < table.n_cable_links] // 2) if table is not None else np.zeros(0, np.int64)
    kind = STEP_KINDS[algo if result.op not in ("alltoall", "broadcast") else result.op]
    return Bottleneck(k, kind, size, float(times[k]), step.src[slow], step.dst[slow],
                      float(solved.rate_gbps[slow].min()), nvl, links, names, cables.astype(np.int64),
                      named.astype(np.int64))


#: The columns nccl-tests prints (out-of-place half): the CSV header ``fabricviz collective --csv`` writes.
CSV_HEADER = "size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps"


def redop_root(op: str) -> tuple[str, int]:
    """nccl-tests' redop and root columns for ``op``."""
    return ("sum" if op in ("allreduce", "reducescatter") else "none"), (0 if op == "broadcast" else -1)


def csv_rows(result: CollectiveResult) -> list[list[str]]:
    """``result``'s rows (one per size) under :data:`CSV_HEADER`, each cell as the CSV writes it."""
    redop, root = redop_root(result.op)
    return [[f"{r.size:.0f}", str(r.count), DTYPE, redop, str(root), f"{r.time_us:.6f}", f"{r.algbw:.6f}",
             f"{r.busbw:.6f}"] for r in result.rows]


def csv_text(result: CollectiveResult) -> str:
    """``result`` as the CSV ``fabricviz collective --csv`` writes (one row per size)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER.split(","))
    w.writerows(csv_rows(result))
    return buf.getvalue()
