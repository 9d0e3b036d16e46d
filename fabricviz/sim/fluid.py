"""Fluid time-stepped model: queues, lossless backpressure, ECN and DCQCN, tick by tick.

Each sub-path hop is an *entry* holding the bytes of that flow waiting in the
egress queue of that link. Per tick of ``dt``:

1. senders inject their rate (DCQCN's Rc, or line rate / demand without CC)
   into the first hop; a sender only pulls from memory what its first queue
   can hold (``nic_queue_bytes``), like a NIC that stops fetching when it
   cannot transmit;
2. every link serves up to ``capacity · dt`` bytes unless its transmitter is
   paused (PFC) or out of credits (InfiniBand). Service goes round-robin over
   the *ingress ports* feeding the egress (switch arbitration; water-filling
   over per-port demand), then in proportion to the bytes each flow has in the
   queue (FIFO coupling — the source of HOL blocking and victim flows);
3. what a hop serves arrives at the next hop one tick later;
4. per (ingress link) the bytes held downstream set PFC XOFF/XON (hysteresis;
   XOFF shrinks as the switch's shared buffer fills; the pause or resume frame reaches
   the upstream a tick later, crossing the link like data) or the credit limit for the
   next tick, so pauses spread hop by hop;
5. egress queues mark ECN (RED), paths combine marks, and DCQCN updates each
   sender with the marking and rate seen τ* ago.

On InfiniBand with flows on more than one VL (``vl=`` entry VLs + :class:`~.vlarb.LinkArb`),
step 2 first shares each link among its VLs by VL arbitration (:mod:`.vlarb`), then
round-robin over ingress ports within each VL, and credits are per (link, VL): a VL
out of credits waits while the link's other VLs go on.

With PFC or credits nothing is ever dropped: ``injected = delivered + in flight`` holds to
rounding and is checked. ``flow_control="lossy"`` (RoCE without PFC) tail-drops at full
switch egress queues and recovers by go-back-N (:mod:`fabricviz.ethernet.lossy`); then
``injected = delivered + discarded + dropped + in flight``, retransmitted bytes counted.

``dcqcn_preset`` picks DCQCN's parameters (paper | nvidia, :mod:`fabricviz.ethernet.dcqcn`;
None: ``dcqcn`` as given). ``plan`` (a :class:`~fabricviz.ethernet.lossless.LosslessPlan`)
gives each ingress port its XOFF/XON/headroom and each egress queue its ECN thresholds,
the very numbers the switch-config export writes, and each switch with a known buffer its own
shared pool and α for the dynamic threshold; ports the plan leaves out keep the defaults.
``flowlets`` (go-back-N with adaptive routing) runs :mod:`.flowlets`: one sub-path per flow at a
time, moves at idle gaps, reordering, every NAK.

``host_fifo``: htsim_roce's host, not a NIC fetching what its queue has room for — each flow paced
at line rate (``RoceSrc``) into its port's one unbounded FIFO (``PriorityQueue``), a pause of the port
stopping every flow of the host; go-back-N then resends behind what the FIFO holds (htsim comparisons).

Output: immutable :class:`~fabricviz.sim.frames.Frame` objects (averages over each frame
interval) plus per-flow and per-link totals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..ethernet.dcqcn import DcqcnParams, dcqcn_preset, dcqcn_step
from ..ethernet.ecn import EcnParams, ecn_thresholds, path_marking, plan_ecn, red_probability
from ..ethernet.lossy import GoBackN, GoBackNEveryNak, suffix_sums, tail_drop
from ..ethernet.pfc import (
    PfcParams,
    credit_limit,
    dynamic_xoff,
    headroom_bytes,
    pause_response_s,
    pfc_update,
    plan_pfc,
    xoff_levels,
)
from ..ethernet.pfc_watchdog import DeadlockLog, PfcWatchdog, WatchdogParams
from ..model import FabricError
from .flowlets import FlowletParams, Flowlets, reverse_links
from .fluid_live import LiveEntries, TickView
from .fluid_result import FluidResult
from .frames import Frame
from .latency import LatencyParams, flow_latency_ns, flow_nic_ns, link_latency
from .links import LinkTable
from .paths import Routes
from .vlarb import NUM_VLS, FluidVl, LinkArb
from .waterfill import waterfill as _waterfill
from .workloads import Flows

FRAME_BUDGET_BYTES = 64 * 2 ** 20


@dataclass(frozen=True)
class FluidParams:
    duration_s: float = 10e-3
    dt_s: float = 1e-6
    cc: str = "dcqcn"                 # dcqcn | none
    flow_control: str = "pfc"         # pfc | credit | lossy
    port_fair: bool = True            # round-robin over ingress ports at each egress
    pfc: PfcParams = field(default_factory=PfcParams)
    ecn: EcnParams = field(default_factory=EcnParams)
    dcqcn: DcqcnParams = field(default_factory=DcqcnParams)
    nic_queue_bytes: float = 16e3
    frame_every_s: float | None = None   # None: 200 frames per run (fewer on big fabrics)
    init_gbps: np.ndarray | None = None  # per-flow starting rate (default line rate)
    latency: LatencyParams = field(default_factory=LatencyParams)
    dcqcn_preset: str | None = None      # paper | nvidia; None: ``dcqcn`` as given
    plan: Any = None                     # LosslessPlan: per-port XOFF/XON/headroom and ECN
    drop_queue_bytes: float | None = None  # lossy: egress queue limit; None: α · free shared buffer
    nak_delay_s: float | None = None     # lossy: loss → sender rewinds; None: queue delay + τ*
    pfc_watchdog_s: float | None = None  # PFC watchdog detection time (SONiC pfcwd); None: off
    pfc_watchdog_restore_s: float | None = None  # its restoration time; None: the detection time
    pfc_watchdog_action: str = "drop"    # drop | forward
    eta: np.ndarray | None = None        # per flow: goodput share of what arrives (:mod:`.transport`)
    stop_when_done: bool = False         # end the run once every flow (all sized) has finished
    flowlets: FlowletParams | None = None  # go-back-N + flowlet adaptive routing (:mod:`.flowlets`)
    host_fifo: bool = False              # htsim's host: each flow paced at line rate into one NIC FIFO (doc)


def _switch_pools(plan: Any, links: LinkTable) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Per link, the shared pool and α of the switch it enters (the ingress that pauses): the part's
    own from the lossless plan, NaN where it has none (the PfcParams' then), inf — no dynamic
    threshold — when the design fixes its PFC thresholds (``meta.roce.pfc``); None without a plan."""
    if plan is None:
        return None, None
    n = int(max(links.dst_dev.max(initial=-1), links.src_dev.max(initial=-1))) + 1
    pool, alpha = np.full(n, np.nan), np.full(n, np.nan)
    for d, b in plan.switches.items():
        if d < n and getattr(plan, "fixed_pfc", False):
            pool[d], alpha[d] = np.inf, 1.0
        elif b.known and d < n:
            pool[d], alpha[d] = max(b.shared_pool, 0.0), b.alpha
    return pool[links.dst_dev], alpha[links.dst_dev]


def _watchdog(params: FluidParams, watched: np.ndarray) -> PfcWatchdog | None:
    """The PFC watchdog of a PFC run with ``pfc_watchdog_s`` set (None otherwise)."""
    if params.pfc_watchdog_s is None or params.flow_control != "pfc":
        return None
    restore = params.pfc_watchdog_restore_s or params.pfc_watchdog_s
    try:
        return PfcWatchdog(WatchdogParams(params.pfc_watchdog_s, restore, params.pfc_watchdog_action), watched)
    except ValueError as e:
        raise FabricError(str(e)) from None


class FluidSim:
    """Stateful fluid run; :meth:`step` advances one tick, :meth:`run` to the end."""

    def __init__(self, links: LinkTable, flows: Flows, routes: Routes,
                 params: FluidParams = FluidParams(),
                 vl: tuple[np.ndarray, LinkArb] | None = None) -> None:
        if params.cc not in ("dcqcn", "none"):
            raise FabricError(f"congestion control {params.cc!r}: use dcqcn or none")
        if params.flow_control not in ("pfc", "credit", "lossy"):
            raise FabricError(f"flow control {params.flow_control!r}: use pfc, credit or lossy")
        if (params.eta is not None or params.flowlets is not None) and params.flow_control == "lossy":
            raise FabricError("go-back-N reordering cost with lossy flow control is not modelled: use pfc")
        try:
            self.dcqcn = dcqcn_preset(params.dcqcn_preset) if params.dcqcn_preset else params.dcqcn
        except ValueError as e:
            raise FabricError(str(e)) from None
        if not params.dt_s > 0 or not params.duration_s > 0:
            raise FabricError("fluid model: dt and duration must be positive")
        self.links, self.flows, self.routes, self.prm = links, flows, routes, params
        L, F, P = links.n, len(flows), routes.n_paths
        self.L, self.F, self.P = L, F, P
        hops = routes.hops()
        self.e_path = np.repeat(np.arange(P), hops)
        self.e_link = routes.links
        self.e_flow = routes.flow[self.e_path]
        self.first = routes.indptr[:-1]
        self.last = routes.indptr[1:] - 1
        E = len(self.e_link)
        is_first = np.zeros(E, bool)
        is_first[self.first] = True
        self.prev_link = np.where(is_first, -1, np.roll(self.e_link, 1))
        self.has_prev = ~is_first
        path_flow = routes.flow
        ingress = np.where(is_first, L + path_flow[self.e_path], self.prev_link)
        key = self.e_link.astype(np.int64) * (L + F + 1) + ingress
        ukey, self.gid = np.unique(key, return_inverse=True)
        self.g_link = (ukey // (L + F + 1)).astype(np.int64)
        self.vl: FluidVl | None = None
        if vl is not None:                   # groups are (link, VL, ingress); credits per (link, VL)
            self.vl = FluidVl(routes, vl[0], vl[1], self.prev_link, ~is_first)
            self.gid, self.g_vlink = self.vl.groups(ingress, L + F + 1)
            self.g_link = self.g_vlink // NUM_VLS
            self.credit_vl = np.full((L, NUM_VLS), np.inf)
        self.steady_after = int(round(params.duration_s / params.dt_s))   # run() sets it: ticks / 2
        self._boundary: tuple[float, np.ndarray, int] | None = None
        self.cap_bytes = links.gbps * 1e9 / 8 * params.dt_s
        self.P_inc = routes.path_incidence()
        # per-flow line rate: the first fabric link of its first sub-path
        fp = np.searchsorted(routes.flow, np.arange(F))
        f0 = routes.indptr[np.minimum(fp, P - 1)] if P else np.zeros(F, np.int64)
        l0 = routes.links[f0] if P else np.zeros(F, np.int64)
        l1 = routes.links[np.minimum(f0 + 1, len(routes.links) - 1)] if P else l0
        self.line_gbps = np.where(links.pcie[l0], links.gbps[l1], links.gbps[l0]) if P else np.zeros(F)
        self.demand = np.minimum(flows.rate_gbps, self.line_gbps)
        self.nic_link = np.where(links.pcie[l0], l1, l0) if P else np.zeros(F, np.int64)
        self.kmin, self.kmax, self.pmax = ecn_thresholds(links.gbps, params.ecn)
        # a pause here reaches the upstream a tick later and stops it the tick after, so the upstream
        # reacts after max(802.1Qbb response, 2 dt): the headroom check allows for whichever is longer
        react = np.maximum(pause_response_s(links.gbps), 2 * params.dt_s)
        self.headroom = headroom_bytes(links.gbps, links.prop_ns, params.pfc.mtu, react)
        self.xoff = xoff_levels(params.pfc, self.kmax)
        self.xon = self.xoff - 2 * params.pfc.mtu if params.pfc.xon is None else np.full(L, params.pfc.xon)
        if params.plan is not None:
            self.kmin, self.kmax, self.pmax = plan_ecn(params.plan, links.src_port, self.kmin, self.kmax,
                                                       self.pmax)
            self.xoff, self.xon, self.headroom = plan_pfc(params.plan, links.dst_port, self.xoff, self.xon,
                                                          self.headroom)
        self.pool_in, self.alpha_in = _switch_pools(params.plan, links)
        # a NIC fetches from GPU memory only what its transmit queue has room for (a credit, not a
        # pause): what it keeps queued plus what its port sends in a tick
        self.pcie_in = links.pcie & (params.flow_control == "pfc")
        nxt_cap = np.zeros(L)
        np.maximum.at(nxt_cap, np.where(self.has_prev, self.prev_link, 0)[self.has_prev],
                      self.cap_bytes[self.e_link[self.has_prev]])
        self.pcie_room = params.nic_queue_bytes + nxt_cap
        self.pcie_in &= nxt_cap > 0               # into a NIC that sends on (not the receiver's own hop)
        self.gbn: GoBackN | None = GoBackN(F) if params.flow_control == "lossy" else None
        self.fl: Flowlets | None = None
        self.every = TickView(slice(None), None, self.first, self.last, routes.flow, self.gid, self.e_link,
                              np.where(self.has_prev, self.prev_link, L))   # first hops count in a spare bin
        self.live: LiveEntries | None = None     # flowlets: a tick touches only the live sub-paths' entries
        self._fill: Callable[[np.ndarray, np.ndarray, np.ndarray, int], np.ndarray] = _waterfill
        if params.flowlets is not None:          # every hop takes a tick here: that is its base delay
            nic = self.first + links.pcie[self.e_link[self.first]]      # the NIC link's entry
            self.gbn = GoBackNEveryNak(F, ring_ticks=int(hops.max(initial=1)) + 512)   # a NAK: a tick per hop + queues
            queue = np.maximum(self.xoff - params.pfc.mtu, params.pfc.mtu)     # held before the pause
            if self.vl is None and params.pfc_watchdog_s is None:
                self.live = LiveEntries(self.every, routes.indptr)
            from .flowlet_kernels import waterfill  # the same, compiled: numba is loaded for flowlets
            self._fill = waterfill
            self.fl = Flowlets(routes, nic, params.dt_s, links.gbps * 1e9 / 8, queue, params.flowlets,
                               reverse_links(links.src_port, links.dst_port), self.gbn.rewound_at)
        self.link_dropped = np.zeros(L)
        if params.flow_control == "lossy":
            # switch egress queues drop; a NIC's own queue (first hop, or after its PCIe hop) never does
            self.droppable = self.has_prev & ~links.pcie[self.e_link] & \
                ~links.pcie[np.where(self.has_prev, self.prev_link, 0)]
        # the watchdog watches switch egress queues (not a NIC's own, nor one behind its PCIe hop)
        self.wd_entries = self.has_prev & ~links.pcie[self.e_link] & \
            ~links.pcie[np.where(self.has_prev, self.prev_link, 0)]
        self.wd = _watchdog(params, np.bincount(self.e_link, weights=self.wd_entries, minlength=L) > 0)
        self.wd_dropped, self.wd_link_dropped = np.zeros(F), np.zeros(L)
        self.dl = DeadlockLog(self.e_link, self.e_flow, self.prev_link, self.has_prev, links.dst_dev, self.xoff,
                              self.xon, lambda x, h: dynamic_xoff(x, h, params.pfc, self.pool_in, self.alpha_in), F) \
            if params.flow_control == "pfc" else None
        self.tx_paused = np.zeros(L, bool)
        self.nic_tx, self.nic_rx = flow_nic_ns(links, routes, params.latency)
        # per-run constants the ticks reuse
        self.stepped = flows.step >= 0
        self.any_stepped = bool(self.stepped.any())
        self.finite = np.isfinite(flows.bytes)
        self.n_dev = int(links.dst_dev.max(initial=-1)) + 1
        self.prev_has = self.prev_link[self.has_prev]
        # state
        self.t = 0.0
        self.ticks = 0
        self.q = np.zeros(E)
        self.arrive = np.zeros(E)            # bytes arriving at each entry next tick
        self.paused = np.zeros(L, bool)
        self.pfc_sent = np.zeros(L, bool)       # the pause state each downstream last sent
        self.acc_paused = np.zeros(L, bool)     # paused at any tick since the last frame
        self.credit = np.full(L, np.inf)
        init = self.line_gbps.copy() if params.init_gbps is None else \
            np.minimum(np.asarray(params.init_gbps, float), self.line_gbps)
        self.rc, self.rt = init.copy(), init.copy()
        self.alpha = np.full(F, self.dcqcn.alpha0)
        k = max(1, int(round(self.dcqcn.feedback_s / params.dt_s)))
        self.hist_rc = np.tile(self.rc, (k, 1))
        self.hist_p = np.zeros((k, F))
        self.p_flow: np.ndarray = np.zeros(F)          # per flow: ECN marking probability
        self.p_link = np.zeros(L)
        self.injected = np.zeros(F)
        self.seq = np.zeros(F)               # bytes of the message sent (go-back-N rewinds it)
        self.delivered = np.zeros(F)
        self.resent = np.zeros(F)
        self.finish = np.full(F, np.nan)
        self.begin = np.full(F, np.nan)
        self.max_queue = np.zeros(L)
        self.max_queue_s = np.zeros(L)
        self.max_ingress = np.zeros(L)
        self._ingress: np.ndarray = np.zeros(L)   # bytes held downstream of each link, as of the last tick
        self._q_link: np.ndarray = np.zeros(L)    # bytes queued at each link's egress, as of the last tick
        self.paused_ticks = np.zeros(L)
        self.headroom_exceeded = np.zeros(L, bool)
        # frame accumulators
        self.acc_served = np.zeros(L)
        self.acc_delivered = np.zeros(F)
        self.acc_ticks = 0
        self.frames: list[Frame] = []

    # ------------------------------------------------------------------ one tick
    def _offer(self) -> np.ndarray:
        """Rate each flow offers this tick (Gb/s)."""
        fl, prm = self.flows, self.prm
        active = (fl.start_s <= self.t + 1e-15) & np.isnan(self.finish)
        stepped = self.stepped
        if self.any_stepped:
            pending = stepped & np.isnan(self.finish)
            cur = fl.step[pending].min() if pending.any() else -1
            active &= ~stepped | (fl.step == cur)
        rate = self.rc if prm.cc == "dcqcn" else self.demand
        rate = np.minimum(rate, self.demand)
        rate = np.where(self.tx_paused[self.nic_link], 0.0, rate) if prm.host_fifo else rate   # a pause stops the host
        left = np.maximum(fl.bytes - self.seq, 0.0)
        rate = np.minimum(rate, left * 8 / 1e9 / prm.dt_s)
        return np.where(active, rate, 0.0)

    def step(self) -> None:
        prm, L, dt = self.prm, self.L, self.prm.dt_s
        offer = self._offer()
        self.begin[np.isnan(self.begin) & (offer > 0)] = self.t
        split = self.routes.frac if self.fl is None else self.fl.weights()
        # every entry, or only the live sub-paths' (:mod:`.fluid_live`)
        v = self.every if self.live is None or self.fl is None else self.live.select(self.fl.cur)
        ent, first, last, gid, e_link = v.ent, v.first, v.last, v.gid, v.e_link
        inj = offer[v.pflow] * (split if v.paths is None else split[v.paths]) * 1e9 / 8 * dt   # bytes per sub-path
        arr = self.arrive[ent].copy()
        arr[first] += inj
        avail = self.q[ent] + arr
        if prm.flow_control == "lossy":
            avail = self._tail_drop(arr, avail)
        # link service this tick
        vlf = self.vl
        if self.wd is not None and self.wd.dropping.any():
            avail = self._watchdog_drop(avail)
        tx_paused = self.paused if self.wd is None else self.paused & ~self.wd.storm
        cap = np.where(tx_paused, 0.0, self.cap_bytes)
        if self.pcie_in.any():
            room = np.maximum(self.pcie_room - self._ingress, 0.0)
            cap = np.where(self.pcie_in, np.minimum(cap, room), cap)
        if prm.flow_control == "credit":
            cap = self.cap_bytes if vlf is not None else np.minimum(cap, self.credit)
        gdem = np.bincount(gid, weights=avail, minlength=len(self.g_link))
        if vlf is not None:
            vdem = np.bincount(self.g_vlink, weights=gdem, minlength=L * NUM_VLS).reshape(L, NUM_VLS)
            credit = self.credit_vl if prm.flow_control == "credit" else np.full((L, NUM_VLS), np.inf)
            vcap = vlf.caps(vdem, cap, credit, prm.pfc.mtu)
            if prm.port_fair:
                gserve = _waterfill(self.g_vlink, gdem, vcap, L * NUM_VLS)
            else:
                tot = np.bincount(self.g_vlink, weights=gdem, minlength=L * NUM_VLS)
                with np.errstate(divide="ignore", invalid="ignore"):
                    frac = np.where(tot > 0, np.minimum(1.0, vcap / tot), 0.0)
                gserve = gdem * frac[self.g_vlink]
        elif prm.port_fair:
            gserve = self._fill(self.g_link, gdem, cap, L)
        else:
            tot = np.bincount(self.g_link, weights=gdem, minlength=L)
            with np.errstate(divide="ignore", invalid="ignore"):
                frac = np.where(tot > 0, np.minimum(1.0, cap / tot), 0.0)
            gserve = gdem * frac[self.g_link]
        gfrac = np.minimum(np.divide(gserve, gdem, out=np.zeros_like(gdem), where=gdem > 0), 1.0)
        serve = avail * gfrac[gid]
        q = avail - serve
        # the sender pulls no more than its first queue can hold
        excess = np.maximum(q[first] - (np.inf if prm.host_fifo else prm.nic_queue_bytes), 0.0)
        excess = np.minimum(excess, inj)
        q[first] -= excess
        pulled = inj - excess
        pulled_f = np.bincount(v.pflow, weights=pulled, minlength=self.F)
        self.injected += pulled_f
        eta = 1.0 if prm.eta is None else prm.eta       # a reordering resend: 1/η bytes on the wire per byte
        self.seq = self.seq + pulled_f * eta if self.gbn is None else self.gbn.sent(self.seq, pulled_f)
        q = np.maximum(q, 0.0)
        nxt = np.zeros_like(serve)
        nxt[1:] = serve[:-1]
        nxt[first] = 0.0
        if v.paths is None:
            self.q, self.arrive = q, nxt
        else:
            self.q[ent], self.arrive[ent] = q, nxt
        got = np.bincount(v.pflow, weights=serve[last], minlength=self.F)
        if self.gbn is not None:
            got = self.gbn.deliver(got)          # in order only: goodput
        elif prm.eta is not None:
            self.resent += got * (1 - eta)
            got = got * eta
        self.delivered += got
        served_link = np.bincount(e_link, weights=serve, minlength=L)
        # backpressure for the next tick
        held_e = q + nxt                               # bytes of each entry still in the fabric
        ingress = np.bincount(v.prev_bin, weights=held_e, minlength=L + 1)[:L]
        self.max_ingress = np.maximum(self.max_ingress, ingress)
        self._ingress = ingress
        if prm.flow_control == "pfc":
            dst = self.links.dst_dev
            held = np.bincount(dst, weights=ingress, minlength=self.n_dev)
            xoff = dynamic_xoff(self.xoff, held[dst], prm.pfc, self.pool_in, self.alpha_in)
            sent = pfc_update(self.pfc_sent, ingress, xoff, prm.pfc, xoff - (self.xoff - self.xon))
            # a pause (or resume) frame crosses the link like data, a tick per hop
            self.paused, self.pfc_sent = self.pfc_sent, sent
            self.headroom_exceeded |= ingress > self.xoff + self.headroom
        elif prm.flow_control == "lossy":
            pass                                 # no pauses: full queues drop instead
        elif vlf is not None:
            self.credit_vl = credit_limit(vlf.held(held_e), prm.pfc)
            self.paused = ((self.credit_vl < prm.pfc.mtu) & vlf.present).any(1)   # a VL in use waits
        else:
            self.credit = credit_limit(ingress, prm.pfc)
            self.paused = self.credit < prm.pfc.mtu
        if self.wd is not None:
            held = np.bincount(e_link, weights=held_e, minlength=L)
            self.wd.update(self.paused, held > 0, self.t + dt, dt)
            tx_paused = self.paused & ~self.wd.storm
        else:
            tx_paused = self.paused
        if self.dl is not None:                  # a fat tree's can never deadlock: it does not look
            self.dl.tick(tx_paused, v.full(held_e, len(self.e_link)) if self.dl.possible else held_e, self.t + dt)
        self.tx_paused = tx_paused
        self.paused_ticks += tx_paused
        self.acc_paused |= tx_paused            # a frame shows a link paused if it paused since the last
        q_link = np.bincount(e_link, weights=q, minlength=L)
        peak = q_link > self.max_queue
        self.max_queue[peak] = q_link[peak]
        self.max_queue_s[peak] = self.t + dt
        # ECN and DCQCN
        if prm.cc == "dcqcn":
            self.p_link = red_probability(q_link, self.kmin, self.kmax, self.pmax)
            p_path = path_marking(self.P_inc, self.p_link)
            self.p_flow = np.bincount(self.routes.flow, weights=p_path * split, minlength=self.F)
            k = self.ticks % len(self.hist_rc)
            rc_late, p_late = self.hist_rc[k].copy(), self.hist_p[k].copy()
            self.hist_rc[k], self.hist_p[k] = self.rc, self.p_flow
            self.rc, self.rt, self.alpha = dcqcn_step(self.rc, self.rt, self.alpha, rc_late, p_late,
                                                      self.line_gbps, dt, self.dcqcn)
        if self.fl is not None:                  # flowlet moves, the reorderings, every NAK back
            g = self.gbn
            assert isinstance(g, GoBackNEveryNak)
            every = serve if self.live is None or v.paths is None else self.live.scatter(v, serve)
            g.reorder(*self.fl.tick(self.t + dt, every, None, q_link, (self.q, self.arrive)))
            nak = np.flatnonzero(g.naks)
            g.schedule(self.ticks, nak, self.fl.back_ticks(q_link, nak))
            # in flight = put on the wire − delivered − thrown away (no pass over the entries)
            infl = np.maximum(self.injected - self.delivered - g.discarded - g.dropped - self.wd_dropped, 0.0)
            self.seq = g.rewind_due(self.ticks, self.t + dt, self.delivered, self.seq, infl)
            if self.live is not None:
                self.live.keep(v, self.q[ent] + self.arrive[ent])      # after the moves carried bytes
        elif self.gbn is not None and self.gbn.recovering.any():      # NAKs in: go back N
            infl = np.bincount(self.e_flow, weights=held_e, minlength=self.F)
            self.seq = self.gbn.rewind(self.t + dt, self.delivered, self.seq, infl)
        # completions
        done = np.isnan(self.finish) & self.finite & \
            (self.delivered >= self.flows.bytes * (1 - 1e-9))
        self.finish[done] = self.t + dt
        self.t += dt
        self.ticks += 1
        self.acc_served += served_link
        if vlf is not None:
            vlf.acc += np.bincount(vlf.vlink, weights=serve, minlength=L * NUM_VLS)
        self.acc_delivered += got
        self.acc_ticks += 1
        self._q_link = q_link

    def _tail_drop(self, arr: np.ndarray, avail: np.ndarray) -> np.ndarray:
        """Lossy: drop what arrives at a full switch egress queue; tell go-back-N who lost what."""
        prm, L = self.prm, self.L
        src = self.links.src_dev
        q_link = np.bincount(self.e_link, weights=self.q, minlength=L)
        if prm.drop_queue_bytes is not None:
            limit = np.full(L, float(prm.drop_queue_bytes))
        else:                               # the egress dynamic threshold: α · free shared buffer
            held = np.bincount(src, weights=q_link, minlength=self.n_dev)
            limit = dynamic_xoff(np.full(L, np.inf), held[src], prm.pfc)
        drop = tail_drop(q_link, arr, self.e_link, self.droppable, limit)
        hit = drop > 0
        if not hit.any():
            return avail
        assert self.gbn is not None
        avail = avail - drop
        self.link_dropped += np.bincount(self.e_link, weights=drop, minlength=L)
        lost = np.bincount(self.e_flow, weights=drop, minlength=self.F)
        ahead_e = suffix_sums(avail, self.routes.indptr)      # bytes at or past the dropping hop
        ahead = np.full(self.F, np.inf)
        np.minimum.at(ahead, self.e_flow[hit], ahead_e[hit])
        if prm.nak_delay_s is not None:
            wait = np.full(self.F, prm.nak_delay_s)
        else:                               # the next packet crosses the dropping queue, then τ* back
            q_after = np.bincount(self.e_link, weights=avail, minlength=L)
            with np.errstate(divide="ignore", invalid="ignore"):
                drain = np.where(self.links.gbps > 0, q_after / (self.links.gbps * 1e9 / 8), 0.0)
            wait = np.zeros(self.F)
            np.maximum.at(wait, self.e_flow[hit], drain[self.e_link[hit]])
            wait += self.dcqcn.feedback_s
        self.gbn.lose(lost, ahead, self.t + prm.dt_s + wait)
        return avail

    def _watchdog_drop(self, avail: np.ndarray) -> np.ndarray:
        """Drop action: a queue in a PFC storm loses what it holds and what arrives."""
        assert self.wd is not None
        hit = self.wd.dropping[self.e_link] & self.wd_entries
        drop = np.where(hit, avail, 0.0)
        self.wd_dropped += np.bincount(self.e_flow, weights=drop, minlength=self.F)
        self.wd_link_dropped += np.bincount(self.e_link, weights=drop, minlength=self.L)
        return avail - drop

    # ------------------------------------------------------------------ frames
    def frame(self) -> Frame:
        """Snapshot averaged since the previous frame."""
        n = max(self.acc_ticks, 1)
        dt = self.prm.dt_s
        with np.errstate(divide="ignore", invalid="ignore"):
            util = np.where(self.cap_bytes > 0, self.acc_served / (n * self.cap_bytes), 0.0)
        q_link = self._q_link
        lat = link_latency(self.links, self.prm.latency, q_link)
        total = lat.total
        flow_lat = flow_latency_ns(self.links, self.routes, np.where(np.isfinite(total), total, 0.0),
                                   (self.nic_tx, self.nic_rx), latency=lat)
        rate = self.acc_delivered * 8 / 1e9 / (n * dt)
        cc = self.rc if self.prm.cc == "dcqcn" else None     # Rc is in Gb/s, at this instant
        # like utilisation (averaged over the frame), pausing is over the frame: a link that paused
        # at any tick since the previous frame is drawn paused (PFC pauses come and go in µs)
        fr = Frame.make(self.t, util, q_link, total, self.acc_paused | self.tx_paused, self.p_link, rate,
                        flow_lat, cc, self._ingress)
        self.acc_paused = np.zeros(self.L, bool)
        if self.vl is not None:               # the steady part: frames after half the run (as SimResult.steady)
            if 2 * self.ticks > self.steady_after:
                self.vl.steady += self.vl.acc
                self.vl.steady_ticks += self.acc_ticks
            elif 2 * self.ticks == self.steady_after:
                self._boundary = (self.t, self.vl.acc.copy(), self.acc_ticks)
            self.vl.acc = np.zeros_like(self.vl.acc)
        self.acc_served[:] = 0
        self.acc_delivered[:] = 0
        self.acc_ticks = 0
        return fr

    def run(self, progress: Callable[[float], None] | None = None) -> FluidResult:
        prm = self.prm
        total = int(round(prm.duration_s / prm.dt_s))
        # default: 200 frames, fewer on big fabrics so a run's frames stay within ~64 MB
        per_frame = self.L * 21 + self.F * (12 if prm.cc == "dcqcn" else 8)   # + DCQCN Rc per flow
        count = int(min(200, max(10, FRAME_BUDGET_BYTES // max(per_frame, 1))))
        every_s = prm.frame_every_s or max(prm.duration_s / count, prm.dt_s)
        every = max(1, int(round(every_s / prm.dt_s)))
        self.steady_after = total
        sized = prm.stop_when_done and bool(self.finite.all()) and self.F > 0 and self.vl is None
        for i in range(total):
            self.step()
            done = sized and not np.isnan(self.finish).any()      # every sized flow has finished
            if self.ticks % every == 0 or i == total - 1 or done:
                self.frames.append(self.frame())
                if progress is not None:
                    progress(1.0 if done else (i + 1) / total)
            if done:
                break
        return self.result()

    def result(self) -> FluidResult:
        in_flight = np.bincount(self.routes.flow, weights=np.bincount(
            self.e_path, weights=self.q + self.arrive, minlength=self.P), minlength=self.F)
        link_vl = None
        if self.vl is not None:
            if self._boundary is not None and self.frames and self._boundary[0] > self.frames[-1].time_s / 2:
                self.vl.steady += self._boundary[1]
                self.vl.steady_ticks += self._boundary[2]
                self._boundary = None
            link_vl = self.vl.result(self.prm.dt_s, self.links.pcie)
        return FluidResult(tuple(self.frames), self.injected.copy(), self.delivered.copy(), in_flight,
                           self.finish.copy(), self.max_queue.copy(), self.max_ingress.copy(),
                           self.paused_ticks / max(self.ticks, 1), self.headroom_exceeded.copy(),
                           self.ticks, self.begin.copy(), self.t, self.max_queue_s.copy(), link_vl,
                           self.dcqcn.preset if self.prm.cc == "dcqcn" else "", **self._loss(), **self._pfc_log(),
                           reorder_resent_bytes=self.resent.copy() if self.prm.eta is not None else None,
                           flow_control=self.prm.flow_control)

    def _pfc_log(self) -> dict[str, Any]:
        """The PFC run's deadlocks and, with the watchdog, its storms and drops."""
        out: dict[str, Any] = {}
        if self.dl is not None:
            out.update(deadlock_s=self.dl.since_s, deadlock_cleared_s=self.dl.cleared_s,
                       deadlock_links=self.dl.links.copy(), deadlock_flows=self.dl.flows.copy())
        if self.wd is not None:
            out.update(watchdog_storms=self.wd.storms.copy(), watchdog_dropped_bytes=self.wd_dropped.copy(),
                       link_watchdog_dropped_bytes=self.wd_link_dropped.copy())
        return out

    def _loss(self) -> dict[str, Any]:
        """The lossy run's per-flow drops, discards, retransmissions and per-link drops."""
        g = self.gbn
        if g is None:
            return {}
        if self.prm.flow_control != "lossy":      # go-back-N on reordering only (flowlets): nothing dropped
            return {"discarded_bytes": g.discarded.copy(), "retransmitted_bytes": g.retransmitted.copy()}
        return {"dropped_bytes": g.dropped.copy(), "discarded_bytes": g.discarded.copy(),
                "retransmitted_bytes": g.retransmitted.copy(), "link_dropped_bytes": self.link_dropped.copy()}


def simulate_fluid(links: LinkTable, flows: Flows, routes: Routes, params: FluidParams = FluidParams(),
                   progress: Callable[[float], None] | None = None,
                   vl: tuple[np.ndarray, LinkArb] | None = None) -> FluidResult:
    """Run the fluid model for ``params.duration_s``; see module doc (``vl``: VL per route entry and
    the links' arbitration tables, for a run over several VLs)."""
    return FluidSim(links, flows, routes, params, vl).run(progress)
