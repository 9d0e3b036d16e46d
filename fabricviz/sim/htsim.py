"""A fabricviz workload as an htsim_roce run (github.com/Broadcom/csg-htsim), to check a result at
packet level: the flags from the design (:func:`htsim_params`), the flows as a connection matrix
(:func:`htsim_connections`), the run length (:func:`end_time_us`), the run folder
(:func:`export_htsim`).

Here, not in :mod:`fabricviz.formats.htsim`, because the figures come from the engines: the
propagation per metre of :mod:`.links` (the latency model) and the lossless plan
(:mod:`fabricviz.ethernet.lossless`). What htsim cannot run is refused with one line naming the
flow or the design; nothing is quietly dropped.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ..ethernet.pfc import PfcParams
from ..formats.htsim import MAX_SIZE, Connection, ConnectionMatrix, HtsimParams, HtsimTree, Trigger, htsim_fat_tree
from ..ib.tiers import switch_mask
from ..model import Fabric, FabricError
from .links import PROP_NS_PER_M, link_table
from .reach import fabric_tech
from .units import ParamError
from .workloads import Flows

#: fabricviz routing → htsim_roce ``-strat`` and ``-paths`` (ecmp_host refuses to run without a
#: path count ≤ 10,000; ecmp_ar and ecmp_rr set their own).
STRATEGIES: dict[str, tuple[str, int | None]] = {"ecmp": ("ecmp_host", 256), "adaptive": ("ecmp_ar", None),
                                                 "spray": ("ecmp_rr", None)}
ROUTINGS = tuple(STRATEGIES)
#: ``-end``: this many times the workload's ideal completion, and at least this long (µs).
END_FACTOR, MIN_END_US = 30, 10_000
#: htsim reads ``-end`` with ``atoi``.
MAX_END_US = 2 ** 31 - 1


def default_routing(fabric: Fabric) -> str:
    """The routing ``simulate`` picks, as htsim has it: ECMP on RoCE; InfiniBand's static LFTs
    have no htsim counterpart, and ECMP also pins every flow to one path."""
    return "ecmp"


def htsim_params(fabric: Fabric, routing: str | None = None, *, tree: HtsimTree | None = None,
                 name: str | None = None) -> HtsimParams:
    """htsim_roce's flags for ``fabric`` (a fat tree htsim builds, :func:`htsim_fat_tree`): link speed,
    MTU, hop and switch latency, PFC thresholds and queue size, each with where it came from.

    RoCE: MTU and the leaf ingress XOFF/XON of the lossless plan (÷ MTU, rounded down); queue: one
    egress queue's share of the leaf's shared buffer under the dynamic threshold. InfiniBand
    (htsim has no credits; lossless input queues are the closest): the fluid model's per-VL credit
    buffer and MTU, resuming one packet below."""
    name = name or fabric.name
    tree = tree or htsim_fat_tree(fabric, name)
    routing = routing or default_routing(fabric)
    if routing not in STRATEGIES:
        raise ParamError("routing", routing, f"is not one of {', '.join(ROUTINGS)}")
    strat, paths = STRATEGIES[routing]
    links = link_table(fabric)
    cable = links.alive & ~links.pcie
    hop_ns = float(links.prop_ns[cable].mean())
    lengths = links.length_m[cable]
    switch_ns, parts = _switch_latency(fabric)
    src = {
        "-nodes": f"{tree.nodes} host NICs, one port each (hosts.csv maps them back)",
        "-tiers": f"{tree.tiers} switch levels: K = {tree.k}, {tree.hosts_per_leaf} hosts per leaf",
        "-strat": f"--routing {routing}" + ("" if fabric_tech(fabric) == "eth" or routing != "ecmp"
                                            else " (InfiniBand's static LFTs: htsim has none; ECMP also pins "
                                                 "each flow to one path)"),
        "-linkspeed": f"every cable runs {tree.rate} ({tree.gbps:g} Gb/s), in Mb/s",
        "-hop_latency": f"mean cable propagation of the latency model ({PROP_NS_PER_M:g} ns/m over "
                        f"{lengths.min():g}-{lengths.max():g} m, + cable parts): {hop_ns:.1f} ns, in µs",
        "-switch_latency": f"switch latency_ns in the catalog: {parts}, in µs",
        "-host_queue_type": "htsim's strict-priority NIC queue (ecmp_rr aborts with its default fair_prio)",
        "-queue_type": "lossless input queues: PFC pauses the upstream, nothing is dropped",
    }
    if paths is not None:
        src["-paths"] = "path ids a RoceSrc hashes over (ecmp_host needs a count)"
    if fabric_tech(fabric) == "eth":
        mtu, low, high, queue, why = _roce_lossless(fabric, tree)
        src["-mtu"] = f"the design's RoCE MTU, bytes ({'meta.roce.mtu' if _has_mtu(fabric) else 'the default'})"
    else:
        mtu, low, high, queue, why = _ib_credits(tree)
        src["-mtu"] = "the fluid model's InfiniBand packet, bytes"
    src["-pfc_thresholds"], src["-q"] = why
    return HtsimParams(nodes=tree.nodes, tiers=tree.tiers, k=tree.k, strat=strat, paths=paths,
                       linkspeed_mbps=tree.gbps * 1000.0, mtu=mtu, hop_latency_us=hop_ns / 1000.0,
                       switch_latency_us=switch_ns / 1000.0, pfc_low=low, pfc_high=high, queue_pkts=queue,
                       sources=src)


def _switch_latency(fabric: Fabric) -> tuple[float, str]:
    """Mean pipeline latency (ns) over the tree's switches and the parts it came from."""
    ct, pt = fabric.cables_t, fabric.ports_t
    live = ct.alive
    ends = np.concatenate([pt.device[ct.port_a[live]], pt.device[ct.port_b[live]]]).astype(np.int64)
    sw = np.unique(ends[switch_mask(fabric)[ends]])
    lat: dict[str, tuple[float, int]] = {}
    total = 0.0
    for d in sw:
        part = fabric.part_of(int(d))
        ns = float(part.latency_ns) if part is not None else 0.0
        key = part.id if part is not None else "no part"
        lat[key] = (ns, lat.get(key, (ns, 0))[1] + 1)
        total += ns
    parts = ", ".join(f"{k} {ns:g} ns" + (f" × {n}" if len(lat) > 1 else "") for k, (ns, n) in lat.items())
    if len(lat) > 1:
        parts = f"mean of {parts}"
    return total / max(len(sw), 1), parts


def _has_mtu(fabric: Fabric) -> bool:
    return "mtu" in fabric.settings.roce.given


def _packets(nbytes: float, mtu: int) -> int:
    return max(int(math.floor(nbytes / mtu)), 1)


def _thresholds(xon: float, xoff: float, mtu: int) -> tuple[int, int]:
    """(LOW, HIGH) packets for fabricviz's pause at XOFF and resume at XON bytes held: htsim's
    LosslessInputQueue pauses once it holds more than HIGH packets (at HIGH + 1) and resumes below
    LOW (at LOW − 1), so HIGH = XOFF ÷ MTU − 1 and LOW = XON ÷ MTU + 1 (XOFF 144,000 / XON 99,000 B
    at MTU 9000 are htsim's own 15 / 12); at least 1, LOW < HIGH."""
    high = max(int(math.floor(xoff / mtu + 1e-9)) - 1, 2)
    low = max(min(int(math.ceil(xon / mtu - 1e-9)) + 1, high - 1), 1)
    return low, high


def _roce_lossless(fabric: Fabric, tree: HtsimTree) -> tuple[int, int, int, int, tuple[str, str]]:
    from ..ethernet.lossless import lossless_plan
    try:
        plan = lossless_plan(fabric)
    except ValueError as e:                    # a bad meta["roce"]: the element it names
        raise FabricError(f"{getattr(e, 'where', 'meta.roce')}: {e}") from None
    pt = fabric.ports_t
    on_leaf = plan.lossless & np.isin(pt.device, tree.leaves)
    if not on_leaf.any():
        raise FabricError("the leaves have no lossless Ethernet ports (is this a RoCE design?)")
    xoff, xon = float(plan.xoff_bytes[on_leaf].min()), float(plan.xon_bytes[on_leaf].min())
    low, high = _thresholds(xon, xoff, plan.mtu)
    pfc = (f"leaf ingress XON / XOFF of the lossless plan, {xon:,.0f} / {xoff:,.0f} B: htsim pauses above HIGH "
           f"packets and resumes below LOW, so LOW = XON ÷ MTU + 1, HIGH = XOFF ÷ MTU − 1")
    budgets = [plan.switches[int(d)] for d in tree.leaves if int(d) in plan.switches]
    known = [b for b in budgets if b.known]
    if known:
        share = min(b.alpha * max(b.shared_pool, 0.0) / (1 + b.alpha) for b in known)
        queue = _packets(share, plan.mtu)
        why = (f"an egress queue's share of the leaf buffer, α·pool/(1+α) = {share:,.0f} B ({known[0].part}, "
               f"α {known[0].alpha:g}) ÷ MTU (htsim only warns past it)")
    else:
        queue = tree.k * high
        why = f"no buffer figure for the leaf part: the K = {tree.k} ingress queues' XOFF, {tree.k} × {high}"
    return plan.mtu, low, high, queue, (pfc, why)


def _ib_credits(tree: HtsimTree) -> tuple[int, int, int, int, tuple[str, str]]:
    prm = PfcParams()
    mtu = int(prm.mtu)
    high = max(_packets(prm.credit_buffer, mtu), 2)
    low = high - 1
    pfc = (f"for credits: the fluid model's {prm.credit_buffer:,.0f} B input buffer per VL ÷ MTU, resuming "
           "one packet below (credits come back packet by packet)")
    why = f"the K = {tree.k} ingress buffers one egress can draw from, {tree.k} × {high} packets"
    return mtu, low, high, tree.k * high, (pfc, why)


# ---------------------------------------------------------------------------- flows

def htsim_connections(fabric: Fabric, tree: HtsimTree, flows: Flows, where: str) -> ConnectionMatrix:
    """The flows as htsim connections (host numbers of ``tree``; ids 1..n in flow order; a ring's
    steps chained by barrier triggers: step s+1 starts once every flow of step s is done, as the
    fluid model runs them). Refused, one line naming ``where`` and the flow: an end that is no host
    of the tree, both ends on one host, a rate cap, a start time, more than one SL, a size htsim
    cannot read."""
    n = len(flows)
    if not n:
        raise FabricError(f"{where}: no flows")
    src, dst = tree.host_of[flows.src], tree.host_of[flows.dst]
    nm = fabric.name_of

    def refuse(i: int, why: str) -> FabricError:
        return FabricError(f"{where}: flow {i + 1} ({nm(int(flows.src[i]))} -> {nm(int(flows.dst[i]))}): {why}")
    for i in np.flatnonzero((src < 0) | (dst < 0))[:1]:
        d = int(flows.src[i] if src[i] < 0 else flows.dst[i])
        raise refuse(int(i), f"{nm(d)} is no host of the fat tree (not cabled, or a GPU bound to no NIC)")
    for i in np.flatnonzero(src == dst)[:1]:
        raise refuse(int(i), f"both ends use {nm(int(tree.nics[src[i]]))} (htsim host {src[i]}); "
                             "htsim has no path inside a host")
    for i in np.flatnonzero(np.isfinite(flows.rate_gbps))[:1]:
        raise refuse(int(i), f"rate cap {flows.rate_gbps[i]:g} Gb/s: htsim's RoCE source always sends at line rate")
    for i in np.flatnonzero(flows.start_s > 0)[:1]:
        raise refuse(int(i), f"starts at {flows.start_s[i] * 1e6:g} µs: htsim_roce starts every flow no trigger "
                             "holds at time 0")
    if flows.sl_given and len(np.unique(flows.sl)) > 1:
        i = int(np.argmax(flows.sl != flows.sl[0]))
        raise refuse(i, f"SL {flows.sl[i]} besides SL {flows.sl[0]}: htsim has one traffic class")
    finite = np.isfinite(flows.bytes)
    size = np.zeros(n, np.int64)
    size[finite] = np.floor(flows.bytes[finite] + 0.5).astype(np.int64)
    for i in np.flatnonzero(finite & (size < 1))[:1]:
        raise refuse(int(i), "0 bytes: htsim reads size 0 as a flow that never ends")
    for i in np.flatnonzero(size > MAX_SIZE)[:1]:
        raise refuse(int(i), f"{size[i]:,} bytes: htsim reads sizes as 32-bit ints (at most {MAX_SIZE:,})")
    steps = np.unique(flows.step[flows.step >= 0])
    pos = np.searchsorted(steps, flows.step)            # index of a stepped flow's step
    last = len(steps) - 1
    conns = []
    for i in range(n):
        stepped = flows.step[i] >= 0
        j = int(pos[i]) if stepped else -1
        conns.append(Connection(int(src[i]), int(dst[i]), i + 1, int(size[i]), 0,
                                trigger=j if stepped and j > 0 else 0,
                                send_done_trigger=j + 1 if stepped and j < last else 0))
    counts = np.bincount(pos[flows.step >= 0], minlength=len(steps))
    triggers = tuple(Trigger(j + 1, int(counts[j])) for j in range(last))
    return ConnectionMatrix(tree.nodes, tuple(conns), triggers)


def ideal_completion_us(params: HtsimParams, cm: ConnectionMatrix) -> float:
    """The workload's completion on an ideal fabric (µs), about a lower bound: per step, the busiest NIC
    sending or receiving its flows' bytes (whole MTU packets) at line rate, plus the longest path
    (store-and-forward at every switch); triggered steps one after another. 0 when no flow has a size."""
    per_bit_us = 1.0 / params.linkspeed_mbps
    hops = 2 * params.tiers
    base = hops * params.hop_latency_us + (hops - 1) * (params.switch_latency_us + params.mtu * 8 * per_bit_us)
    sized = [c for c in cm.connections if c.size]
    if not sized:
        return 0.0
    # a step is named by the trigger that starts it (0: flows that start at t = 0)
    step = np.array([c.trigger for c in sized], np.int64)
    wire = np.array([math.ceil(c.size / params.mtu) * params.mtu for c in sized], float)
    ends = np.array([(c.src, c.dst) for c in sized], np.int64)
    total = 0.0
    for k in np.unique(step):
        sel = step == k
        busiest = max(np.bincount(ends[sel, 0], wire[sel]).max(), np.bincount(ends[sel, 1], wire[sel]).max())
        span = busiest * 8 * per_bit_us + base
        total = max(total, span) if k == 0 else total + span
    return total


def end_time_us(params: HtsimParams, cm: ConnectionMatrix) -> tuple[int, str]:
    """``-end`` and why: :data:`END_FACTOR` × the ideal completion, at least :data:`MIN_END_US`."""
    ideal = ideal_completion_us(params, cm)
    end = max(MIN_END_US, math.ceil(END_FACTOR * ideal))
    if end > MAX_END_US:
        raise FabricError(f"the run would need -end {end:,} µs; htsim reads it as a 32-bit int "
                          f"(at most {MAX_END_US:,})")
    why = (f"{END_FACTOR} × the ideal completion, {ideal:,.1f} µs (busiest NIC at line rate, steps in turn), "
           f"at least {MIN_END_US / 1000:g} ms, in µs")
    return end, why


def export_htsim(fabric: Fabric, flows: Flows, out_dir: str | Path, *, design: str, flows_from: str,
                 routing: str | None = None, seed: int = 0, transport: str | None = None) -> list[Path]:
    """Write the htsim run folder (connections.cm, hosts.csv, flows.csv, run.sh, README.txt) for
    ``flows`` on ``fabric``; every refusal comes before the first file is written. ``design``:
    the design's path as the user gave it (names it in messages); ``flows_from``: where the flows
    came from (``--workload …`` or the CSV path), for messages and README.txt. ``transport`` (eqds |
    ndp | hpcc): run.sh runs htsim_eqds / htsim_ndp / htsim_hpcc instead of htsim_roce."""
    from ..formats.htsim_run import write_run_folder
    tree = htsim_fat_tree(fabric, design)
    params = htsim_params(fabric, routing, tree=tree, name=design)
    if transport == "hpcc" and tree.tiers != 3:
        raise FabricError(f"{design}: --transport hpcc: htsim_hpcc has no -tiers and builds 3 levels only; "
                          f"this fat tree has {tree.tiers}")
    cm = htsim_connections(fabric, tree, flows, flows_from)
    end, why = end_time_us(params, cm)
    ends = [(fabric.name_of(int(a)), fabric.name_of(int(b))) for a, b in zip(flows.src, flows.dst, strict=True)]
    return write_run_folder(out_dir, fabric, tree, params, cm, ends, flows.step.tolist(), design=design,
                            flows_from=flows_from, routing=routing or default_routing(fabric), seed=seed,
                            end_us=end, end_why=why, tech=fabric_tech(fabric), transport=transport)


__all__ = ["END_FACTOR", "MIN_END_US", "ROUTINGS", "STRATEGIES", "default_routing", "end_time_us", "export_htsim",
           "htsim_connections", "htsim_params", "ideal_completion_us"]
