"""VL arbitration: how an InfiniBand link's capacity is shared among its virtual lanes.

A flow carries a service level (SL, 0..15). At every hop the egress port's SL→VL table
(what OpenSM programs, :func:`fabricviz.ib.qos.compute_qos`; with ``qos FALSE`` OpenSM's
built-in default tables, as that module resolves them) picks the VL the flow's packets
use on that link, and the port's VL arbitration tables share the link among its VLs.

The model — IBA VLArbitration as far as a fluid / max-min abstraction can follow it
(packets are not modelled, so shares are long-run rates):

* **high-priority table first**: weighted round robin among its VLs that have traffic,
  each VL's share proportional to the sum of its entries' weights (weights count 64-byte
  units per turn; a weight below one packet still counts as its proportion here);
* **VLHighLimit**: while a low-priority VL has traffic, at most ``limit × 4 KB`` of
  high-priority data (one packet for limit 0) goes before one low-priority packet
  (``mtu_bytes``) may be sent, so the high VLs get at most ``h / (h + mtu)`` of the link,
  ``h = max(limit × 4096, mtu)``; limit 255 means no limit (low gets only what high leaves);
* **low-priority table**: weighted round robin among its VLs over what the high VLs leave;
* **work-conserving**: a VL that needs less than its share gives the rest back (to its own
  table first, then to the other table); a VL listed in both tables is served by both;
* a VL in **neither table** gets only what the listed VLs leave unused: under congestion it
  starves, and the run reports it (:class:`StarvedVl`); an SL mapped to VL15 (the management
  lane) is dropped for data and reported the same way.

Links that do not arbitrate (PCIe hops, ports with one data VL, ports the subnet manager
does not reach) carry everything as one class on VL0. Ethernet has no VLs here.

:func:`vl_maxmin` is weighted, hierarchical max-min: flows × (link, VL) with a capacity per
(link, VL) from the arbitration, solved exactly by :func:`~.maxmin.maxmin`, iterated to a
fixed point: a (link, VL) whose flows are all held below its share elsewhere asks only for
what it carries, every other one asks for more; a (link, VL)'s capacity in the next round
is what the arbitration gives it when it asks for more while the link's other VLs ask for
what they asked. At the fixed point each link's VLs carry exactly the arbitration of their
demands. :class:`FluidVl` gives the fluid model the same arbitration tick by tick (with
per-VL credits). A run whose flows all share one SL (the default) never comes here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..ib.qos import QosOptions, compute_qos, port_sl2vl
from ..ib.qos_meta import design_qos
from ..model import Fabric
from ..model.fabric import KIND_CODE
from .links import LinkTable
from .maxmin import maxmin
from .paths import Routes

NUM_VLS = 16
MGMT_VL = 15
HIGH_LIMIT_UNIT = 4096        # bytes per VLHighLimit count
UNLIMITED = 255
#: Rounds :func:`vl_maxmin` allows before it gives up on a fixed point.
MAX_ROUNDS = 64


@dataclass(frozen=True)
class LinkArb:
    """Per directed link: the egress port's SL→VL table and VL arbitration (row = link id)."""

    sl2vl: np.ndarray        # [L, 16] uint8: VL of each SL for packets leaving over the link
    high_w: np.ndarray       # [L, 16] float: sum of the VL's entry weights, high-priority table
    low_w: np.ndarray        # [L, 16] float: the same, low-priority table
    high_limit: np.ndarray   # [L] int: VLHighLimit
    arbitrated: np.ndarray   # [L] bool: False = one class (VL0 takes the link)
    mtu_bytes: float = 4096.0

    @property
    def n(self) -> int:
        return len(self.high_limit)

    def high_share(self) -> np.ndarray:
        """Most of a link the high-priority VLs get while a low-priority VL has traffic."""
        h = np.maximum(self.high_limit * float(HIGH_LIMIT_UNIT), self.mtu_bytes)
        return np.where(self.high_limit >= UNLIMITED, 1.0, h / (h + self.mtu_bytes))

    def rows(self, idx: np.ndarray) -> LinkArb:
        return LinkArb(self.sl2vl[idx], self.high_w[idx], self.low_w[idx], self.high_limit[idx],
                       self.arbitrated[idx], self.mtu_bytes)

    @staticmethod
    def uniform(n: int, sl2vl=tuple(range(16)), high=(), low=tuple((v, 1) for v in range(15)),
                high_limit: int = 0, mtu_bytes: float = 4096.0) -> LinkArb:
        """Every link with the same tables: ``high`` / ``low`` as (VL, weight) entries."""
        hw, lw = _weights(high), _weights(low)
        return LinkArb(np.tile(np.asarray(sl2vl, np.uint8), (n, 1)), np.tile(hw, (n, 1)), np.tile(lw, (n, 1)),
                       np.full(n, int(high_limit)), np.ones(n, bool), mtu_bytes)


def _weights(entries) -> np.ndarray:
    w = np.zeros(NUM_VLS)
    for vl, weight in entries:
        w[int(vl)] += float(weight)
    return w


# ---------------------------------------------------------------------------- tables of a design
def qos_options(fabric: Fabric) -> QosOptions:
    """The QoS options the subnet manager runs with: the design's (``fabric.meta["qos"]``), and
    with QoS off OpenSM's built-in default tables (what :mod:`fabricviz.ib.qos` resolves)."""
    opts = design_qos(fabric)
    if opts is None:
        return QosOptions(qos=True)
    if not opts.qos:
        return QosOptions(qos=True, max_op_vls=opts.max_op_vls)
    return opts


def link_sl2vl(fabric: Fabric, links: LinkTable, options: QosOptions) -> np.ndarray:
    """[L, 16] SL→VL of each link's egress port, per port type (fabricviz ports all have the same
    capabilities, so a CA port's and a switch port's table are each one table); PCIe rows are 0."""
    out = np.zeros((links.n, NUM_VLS), np.uint8)
    nc = links.n_cable_links
    is_sw = fabric.devices_t.kind[links.src_dev[:nc]] == KIND_CODE["ib_switch"]
    for ptype, rows in (("swe", is_sw), ("ca", ~is_sw)):
        got = port_sl2vl(options, ptype)
        if got is not None:
            out[:nc][rows] = np.asarray(got[1], np.uint8)
    return out


def link_arb(fabric: Fabric, links: LinkTable, options: QosOptions, subnet: Any = None) -> LinkArb:
    """Every link's tables as the subnet manager programs them (:func:`~fabricviz.ib.qos.compute_qos`
    on ``subnet``, default the subnet a sweep of ``fabric`` finds)."""
    if subnet is None:
        from ..ib.subnet import discover
        subnet = discover(fabric)
    tables = compute_qos(subnet, options)
    L, nc = links.n, links.n_cable_links
    sl2vl = np.zeros((L, NUM_VLS), np.uint8)
    hw, lw = np.zeros((L, NUM_VLS)), np.zeros((L, NUM_VLS))
    limit = np.zeros(L, np.int64)
    arb = np.zeros(L, bool)
    dt, pt = fabric.devices_t, fabric.ports_t
    weights: dict[tuple, np.ndarray] = {}            # ports share a few tables: sum each once
    for l in np.flatnonzero(links.alive[:nc]).tolist():
        p = int(links.src_port[l])
        guid, num = int(dt.guid[int(pt.device[p])]), int(pt.num[p])
        table = tables.sl2vl.get((guid, 0, num))
        port = tables.ports.get((guid, num))
        if table is None or port is None or not (port.vlarb_high or port.vlarb_low):
            continue                       # one data VL, or not reached by the SM: one class
        sl2vl[l] = table
        for row, entries in ((hw, port.vlarb_high), (lw, port.vlarb_low)):
            if entries not in weights:
                weights[entries] = _weights(entries)
            row[l] = weights[entries]
        limit[l] = port.high_limit
        arb[l] = True
    return LinkArb(sl2vl, hw, lw, limit, arb)


def entry_vls(routes: Routes, sl: np.ndarray, sl2vl: np.ndarray) -> np.ndarray:
    """The VL of every route entry (one per hop, aligned with ``routes.links``)."""
    e_sl = np.repeat(np.asarray(sl, np.int64)[routes.flow], routes.hops())
    return sl2vl[routes.links, e_sl].astype(np.int64)


# ---------------------------------------------------------------------------- one link's arbitration
def _wfill(d: np.ndarray, w: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Weighted water-fill per row: ``min(d_v, w_v · λ)`` with the row's sum ≤ ``cap``."""
    alloc = np.zeros(d.shape)
    open_ = (w > 0) & (d > 0)
    rem = np.maximum(np.asarray(cap, float), 0.0)
    for _ in range(NUM_VLS + 1):
        if not open_.any():
            break
        W = np.where(open_, w, 0.0).sum(1)
        lev = np.divide(rem, W, out=np.zeros_like(rem), where=W > 0)
        want = w * lev[:, None]
        done = open_ & (d <= want)
        if not done.any():
            return np.where(open_, want, alloc)
        alloc = np.where(done, d, alloc)
        rem = np.maximum(rem - np.where(done, d, 0.0).sum(1), 0.0)
        open_ &= ~done
    return alloc


def arbitrate(demand: np.ndarray, cap: np.ndarray, arb: LinkArb) -> np.ndarray:
    """[L, 16] what each VL gets of each link's ``cap`` for ``demand`` [L, 16] (``inf``: as
    much as it can get), by the model of the module doc."""
    d = np.asarray(demand, float)
    cap = np.asarray(cap, float)
    inh, inl = arb.high_w > 0, arb.low_w > 0
    low_wants = (inl & (d > 0)).any(1)
    a = _wfill(np.where(inh, d, 0.0), arb.high_w, np.where(low_wants, cap * arb.high_share(), cap))
    a = a + _wfill(np.where(inl, d - a, 0.0), arb.low_w, cap - a.sum(1))
    a = a + _wfill(np.where(inh, d - a, 0.0), arb.high_w, cap - a.sum(1))    # what low left over
    none = ~inh & ~inl
    a = a + _wfill(np.where(none, d, 0.0), none.astype(float), cap - a.sum(1))
    a[:, MGMT_VL] = 0.0
    return a


def _entitled(demand: np.ndarray, present: np.ndarray, cap: np.ndarray, arb: LinkArb) -> np.ndarray:
    """Per (link, VL): what the VL gets when it asks for more, the link's other VLs asking ``demand``."""
    out = np.zeros(demand.shape)
    for v in np.flatnonzero(present.any(0)).tolist():
        d = demand.copy()
        d[:, v] = np.where(present[:, v], np.inf, 0.0)
        out[:, v] = arbitrate(d, cap, arb)[:, v]
    return np.where(present, out, 0.0)


# ---------------------------------------------------------------------------- max-min over VLs
@dataclass(frozen=True)
class StarvedVl:
    """A (link, VL) whose flows got nothing there."""

    link: int
    vl: int
    flows: int
    reason: str


@dataclass(frozen=True)
class VlMaxMin:
    rate: np.ndarray           # per flow
    link_load: np.ndarray      # per link
    link_vl: np.ndarray        # [L, 16] per link per VL
    share: np.ndarray          # [L, 16] the (link, VL) capacities of the fixed point
    rounds: int                # outer rounds (max-min solves)
    converged: bool
    starved: tuple[StarvedVl, ...]


def _present(routes: Routes, evl: np.ndarray, L: int) -> tuple[np.ndarray, np.ndarray]:
    col = routes.links * NUM_VLS + evl
    present = np.zeros(L * NUM_VLS, bool)
    present[col] = True
    return col, present.reshape(L, NUM_VLS)


def vl_maxmin(routes: Routes, cap: np.ndarray, demand: np.ndarray, evl: np.ndarray, arb: LinkArb,
              max_rounds: int = MAX_ROUNDS) -> VlMaxMin:
    """Weighted hierarchical max-min over (link, VL) (see module doc); ``evl``: VL per route entry."""
    import scipy.sparse as sp
    L, F = len(cap), routes.n_flows
    cap = np.asarray(cap, float)
    col, present = _present(routes, evl, L)
    rows = np.repeat(routes.flow, routes.hops())
    A = sp.csr_matrix((np.repeat(routes.frac, routes.hops()), (rows, col)), shape=(F, L * NUM_VLS))
    A.sum_duplicates()
    multi = np.flatnonzero(present.sum(1) > 1)
    sub = arb.rows(multi)
    share = np.where(present, cap[:, None], 0.0)
    share[:, MGMT_VL] = 0.0
    want = np.where(present, np.inf, 0.0)
    converged, rounds = False, 0
    while rounds < max_rounds:
        rounds += 1
        if len(multi):
            share[multi] = _entitled(want[multi], present[multi], cap[multi], sub)
        res = maxmin(A, share.ravel(), demand)
        u = res.link_load.reshape(L, NUM_VLS)
        sat = present & (u >= share * (1 - 1e-9))
        nxt = np.where(sat, np.inf, np.where(present, u, 0.0))
        fin = np.isfinite(nxt)
        if np.array_equal(fin, np.isfinite(want)) and \
                np.allclose(nxt[fin], want[fin], rtol=1e-12, atol=1e-9):
            converged = True
            break
        want = nxt
    per_vl = res.link_load.reshape(L, NUM_VLS)
    starved = starved_vls(present, per_vl, cap, arb, routes, evl,
                          np.asarray(demand, float) > 0 if demand is not None else np.ones(F, bool))
    return VlMaxMin(res.rate, per_vl.sum(1), per_vl, share, rounds, converged, starved)


def starved_vls(present: np.ndarray, load: np.ndarray, cap: np.ndarray, arb: LinkArb, routes: Routes,
                evl: np.ndarray, wanting: np.ndarray) -> tuple[StarvedVl, ...]:
    """The (link, VL)s that carry (next to) nothing although flows that want to send use them, and why."""
    rows = np.repeat(routes.flow, routes.hops())
    asks = wanting[rows]
    col = routes.links * NUM_VLS + evl
    users = np.bincount(np.unique(np.stack([col[asks], rows[asks]]), axis=1)[0], minlength=load.size) \
        if asks.any() else np.zeros(load.size, np.int64)
    users = users.reshape(load.shape)
    low = load <= 1e-9 * np.maximum(cap, 1.0)[:, None]
    contested = present.sum(1) > 1                 # other VLs on the link take it
    out = []
    for l, v in zip(*np.nonzero(present & low & (users > 0)), strict=True):
        l, v = int(l), int(v)
        if v != MGMT_VL and not contested[l]:
            continue
        if v == MGMT_VL:
            why = "SL mapped to VL15 (the management lane): data dropped"
        elif arb.high_w[l, v] <= 0 and arb.low_w[l, v] <= 0:
            why = "in neither VL arbitration table: starved by the listed VLs"
        elif arb.high_w[l, v] <= 0 and int(arb.high_limit[l]) >= UNLIMITED:
            why = "low-priority VL under high-priority traffic with VLHighLimit 255"
        else:
            continue                          # held to nothing elsewhere, not by this link's arbitration
        out.append(StarvedVl(l, v, int(users[l, v]), why))
    return tuple(out)


# ---------------------------------------------------------------------------- the fluid model's side
class FluidVl:
    """Per-tick VL arbitration and per-VL credits for :class:`~.fluid.FluidSim` (entries = route hops)."""

    def __init__(self, routes: Routes, evl: np.ndarray, arb: LinkArb, prev_link: np.ndarray,
                 has_prev: np.ndarray) -> None:
        L = arb.n
        self.L, self.arb, self.evl = L, arb, np.asarray(evl, np.int64)
        self.vlink, present = _present(routes, self.evl, L)
        self.present = present
        self.multi = np.flatnonzero(present.sum(1) > 1)
        self.sub = arb.rows(self.multi)
        # credits: bytes held downstream of link l on the VL they crossed l by (the previous hop's VL)
        prev_vl = np.roll(self.evl, 1)
        self.prev_vlink = (prev_link * NUM_VLS + prev_vl)[has_prev]
        self.has_prev = has_prev
        self.acc = np.zeros(L * NUM_VLS)
        self.steady = np.zeros(L * NUM_VLS)
        self.steady_ticks = 0

    def groups(self, ingress: np.ndarray, stride: int) -> tuple[np.ndarray, np.ndarray]:
        """(group id per entry, virtual link of each group): groups are (link, VL, ingress)."""
        key = self.vlink.astype(np.int64) * stride + ingress
        ukey, gid = np.unique(key, return_inverse=True)
        return gid, (ukey // stride).astype(np.int64)

    def caps(self, vdem: np.ndarray, cap: np.ndarray, credit: np.ndarray, mtu: float) -> np.ndarray:
        """[L·16] bytes each (link, VL) may send this tick: its credits, then the arbitration of the
        demands (``vdem`` [L, 16] bytes waiting) over the link's ``cap``."""
        blocked = credit < mtu
        d = np.where(blocked, 0.0, np.minimum(vdem, credit))
        out = np.where(self.present, np.minimum(cap[:, None], d), 0.0)
        if len(self.multi):
            out[self.multi] = arbitrate(d[self.multi], cap[self.multi], self.sub)
        out[:, MGMT_VL] = 0.0
        return out.ravel()

    def held(self, q_next: np.ndarray) -> np.ndarray:
        """[L, 16] bytes held downstream of each (link, VL) (``q_next``: queued + arriving per entry)."""
        return np.bincount(self.prev_vlink, weights=q_next[self.has_prev],
                           minlength=self.L * NUM_VLS).reshape(self.L, NUM_VLS)

    def result(self, dt_s: float, pcie: np.ndarray) -> np.ndarray:
        """[L, 16] mean Gb/s per link per VL over the steady ticks (PCIe rows 0)."""
        out = (self.steady * 8 / 1e9 / (max(self.steady_ticks, 1) * dt_s)).reshape(self.L, NUM_VLS)
        out[pcie] = 0.0
        return out


@dataclass(frozen=True)
class FlowVl:
    """The SL each flow ran on and the VL of each of its hops."""

    sl: np.ndarray             # per flow
    entry_vl: np.ndarray       # per route entry (aligned with ``routes.links``)
    source: str                # "flows" (given), "path" (the routing engine's path SL), "default" (SL 0)
    arbitrated: bool           # False: one class on every link (all flows on one SL)
    rounds: int = 0            # max-min: outer rounds of :func:`vl_maxmin`
    converged: bool = True
    starved: tuple[StarvedVl, ...] = ()

    def with_result(self, **kw) -> FlowVl:
        return replace(self, **kw)


def one_class_vl(links: LinkTable, load: np.ndarray, vl_of_link: np.ndarray) -> np.ndarray:
    """[L, 16] with each link's whole ``load`` on its one VL (PCIe rows 0)."""
    out = np.zeros((links.n, NUM_VLS))
    out[np.arange(links.n), vl_of_link] = load
    out[links.pcie] = 0.0
    return out


__all__ = ["FlowVl", "FluidVl", "LinkArb", "StarvedVl", "VlMaxMin", "arbitrate", "entry_vls", "link_arb",
           "link_sl2vl", "one_class_vl", "qos_options", "starved_vls", "vl_maxmin"]
