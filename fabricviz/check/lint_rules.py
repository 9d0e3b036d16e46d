"""The lint rules, one function each (registered in :mod:`.lint` by id).

Severities: ``error`` = the design cannot work as drawn or will fail in service
(a cable that cannot reach, a port budget the part does not have, LID space
exhausted, a credit loop, a leaf hanging on one link); ``warning`` = it works
but not as intended (a downgraded link, rails crossed, the wrong
oversubscription, ftree falling back to minhop); ``info`` = worth knowing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from ..ib.creditloops import find_credit_loops
from ..ib.lids import lid_space_problem, plan_lids
from ..ib.qos_meta import design_qos
from ..ib.routing import lid_entries, sm_device
from ..ib.tiers import TIER_NAMES
from ..model import UNICAST_LIDS, FabricError
from ..model.cabling import PORT_DISABLED
from ..model.fabric import ETH_SWITCH, IB_SWITCH, KIND_CODE, NIC
from ..model.settings import GeneratorRecord
from ..model.tech import (
    ETH_SPEEDS,
    IB_LANE_GBPS,
    IB_SPEEDS,
    TECH_ETH_CODE,
    TECH_IB_CODE,
    TECH_NONE_CODE,
    LinkRate,
    format_gbps,
)
from .info import ratio_text
from .lint_core import Finding, LintContext, rule

TYPE_TEXT = {"dac": "DAC", "aoc": "AOC", "transceiver": "optical link"}
LID_MARGIN = 0.05            # warn when a subnet is within 5 % of the unicast LIDs
_IB_LANE = np.array([IB_LANE_GBPS[s] for s in IB_SPEEDS])
_ETH = np.array(ETH_SPEEDS, dtype=float)


def _gbps(tech: np.ndarray, speed: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Data rate of encoded (tech, speed rank, width) columns; 0 for no link."""
    speed = speed.astype(np.int64)
    ib = _IB_LANE[np.clip(speed, 0, len(_IB_LANE) - 1)] * width
    eth = _ETH[np.clip(speed, 0, len(_ETH) - 1)]
    return np.where(tech == TECH_IB_CODE, ib, np.where(tech == TECH_ETH_CODE, eth, 0.0))


def _part_values(ctx: LintContext, attr: str) -> np.ndarray:
    """``attr`` of every device's part (0 where the device has no known part)."""
    t = ctx.f.devices_t
    out = np.zeros(t.n)
    for idx in np.unique(t.part[ctx.alive]).tolist():
        sel = ctx.alive & (t.part == idx)
        part = ctx.part(int(np.flatnonzero(sel)[0])) if idx >= 0 else None
        if part is not None:
            out[sel] = float(getattr(part, attr))
    return out


def _ratio(text: str) -> float | None:
    try:
        a, b = (float(x) for x in str(text).split(":"))
        return a / b if a > 0 and b > 0 else None
    except ValueError:
        return None


# --------------------------------------------------------------------------- cabling


@rule("nic-unconnected", "warning", "NIC ports without a cable")
def nic_unconnected(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    t, pt = f.devices_t, f.ports_t
    free = ctx.host_nic[pt.device] & (pt.cable < 0)
    devs, nfree = np.unique(pt.device[free], return_counts=True)
    for d, n in zip(devs.tolist(), nfree.tolist(), strict=True):
        ports = np.flatnonzero(free & (pt.device == d))
        total = int(t.nports[d])
        if n == total:
            gpus = np.flatnonzero(ctx.alive & (t.bound == d))
            who = (f"GPU {', '.join(f.name_of(int(g)) for g in gpus)} has no path to the fabric"
                   if len(gpus) else "its host cannot use it")
            yield ctx.finding("nic-unconnected", "warning", f"NIC not cabled: {who}", ports=ports)
        else:
            yield ctx.finding("nic-unconnected", "info",
                              f"{n} of the NIC's {total} ports not cabled", ports=ports)


@rule("port-budget", "error", "more ports used or planned than the switch part has")
def port_budget(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    t, pt = f.devices_t, f.ports_t
    n = t.n
    cabled = (pt.cable >= 0) & ctx.alive[pt.device]
    used = np.bincount(pt.device[cabled], minlength=n)
    highest = np.zeros(n, np.int64)
    np.maximum.at(highest, pt.device[cabled].astype(np.int64), pt.num[cabled].astype(np.int64))
    have = _part_values(ctx, "ports")
    split = ctx.alive & (ctx.kind == KIND_CODE[NIC]) & (have > 0)
    have = np.where(split, np.maximum(have, t.nports), have)     # a NIC split into planes: a port per plane
    over = np.flatnonzero((have > 0) & ((used > have) | (highest > have)))
    by_part: dict[str | None, list[int]] = {}
    for d in over.tolist():
        by_part.setdefault(f.part_id_of(d), []).append(d)
    flagged = set(over.tolist())
    for pid, ds in by_part.items():
        worst = max(ds, key=lambda d: (highest[d], used[d]))
        yield ctx.finding("port-budget", "error",
                          f"{len(ds)} device(s) use ports beyond the {int(have[worst])} of part {pid} "
                          f"({f.name_of(worst)}: {int(used[worst])} cabled, up to port {int(highest[worst])})",
                          devices=ds)
    tiers = ctx.tiers
    gen = f.settings.generator
    for tier, (need, why) in sorted(_planned_ports(gen).items()):
        short = [d for d in np.flatnonzero(ctx.sw & (tiers == tier) & (have > 0) & (have < need)).tolist()
                 if d not in flagged]
        if short:
            name = TIER_NAMES.get(tier, f"tier {tier}")
            yield ctx.finding("port-budget", "error",
                              f"the {gen.name} plan needs {need} ports on each {name} switch "
                              f"({why}); part {f.part_id_of(short[0])} has {int(have[short[0]])}",
                              devices=short)


def _planned_ports(rec: GeneratorRecord) -> dict[int, tuple[int, str]]:
    """Ports per switch each tier needs according to the generator's recorded plan."""
    gen, prm, plan = rec.name, rec.params, rec.plan
    try:
        if gen == "fat-tree" and plan:
            p = plan["parallel"]
            out = {1: (plan["down"] + plan["up"], f"{plan['down']} host ports + {plan['up']} uplinks")}
            if plan["levels"] == 2:
                out[2] = (plan["leaves"] * p, f"{plan['leaves']} leaves × {p} link(s)")
            else:
                half = plan["radix"] // 2
                out[2] = (plan["leaves_per_pod"] * p + half,
                          f"{plan['leaves_per_pod']} leaves × {p} link(s) down + {half} up")
                out[3] = (plan["pods"], f"one link to each of {plan['pods']} pods")
            return out
        if gen == "leaf-spine":
            par = prm["uplinks"] // prm["spines"]
            out = {1: (prm["hosts_per_leaf"] + prm["uplinks"],
                       f"{prm['hosts_per_leaf']} host ports + {prm['uplinks']} uplinks"),
                   2: (prm["leaves"] * par + prm["super_spines"],
                       f"{prm['leaves']} leaves × {par} link(s) + {prm['super_spines']} super-spine links")}
            if prm["super_spines"]:
                out[3] = (prm["pods"] * prm["spines"], f"{prm['pods']} pods × {prm['spines']} spines")
            return out
        if gen == "rail":
            units, nodes = prm["units"], prm["nodes_per_unit"]
            return {1: (nodes + 32, f"{nodes} node ports + 32 uplinks"),
                    2: (units * 8 * (32 // (4 * units)), f"{units * 8} leaves × {32 // (4 * units)} link(s)")}
    except (KeyError, TypeError, ZeroDivisionError):
        return {}
    return {}


@rule("link-downgrade", "warning", "a link comes up below the rate of one of its ports")
def link_downgrade(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    ct, pt = f.cables_t, f.ports_t
    c_ids = ctx.cids
    cg = _gbps(ct.tech[c_ids], ct.speed[c_ids], ct.width[c_ids])
    ag = _gbps(pt.tech[ctx.pa], pt.speed[ctx.pa], pt.width[ctx.pa])
    bg = _gbps(pt.tech[ctx.pb], pt.speed[ctx.pb], pt.width[ctx.pb])
    for i in np.flatnonzero((cg < ag - 1e-9) | (cg < bg - 1e-9)).tolist():
        c, a, b = int(c_ids[i]), int(ctx.pa[i]), int(ctx.pb[i])
        ra, rb, rc = f.port_rate(a), f.port_rate(b), f.cable_rate(c)
        why = [f"{f.port_name(a)} runs {ra}, {f.port_name(b)} runs {rb}"] if ra != rb else []
        part = ctx.cable_part(c)
        ends = ra.negotiate(rb) if ra is not None and rb is not None and ra.tech == rb.tech else None
        if part is not None and part.rate is not None and ends is not None and part.rate.gbps < ends.gbps - 1e-9:
            why.append(f"the {part.id} cable is rated {part.rate}")
        yield ctx.finding("link-downgrade", "warning",
                          f"comes up at {rc} ({format_gbps(rc.gbps)}) instead of "
                          f"{format_gbps(max(ag[i], bg[i]))}: " + "; ".join(why or ["port rates differ"]),
                          cables=[c])


def _best_mode(part, tech_code: int) -> tuple[int, int] | None:
    """(speed rank, width) of the fastest, widest port mode ``part`` has in ``tech_code``; None
    when the part has no such mode. A cable part's mode is its rated maximum."""
    modes = [m for m in part.modes if m.encode()[0] == tech_code]
    if not modes:
        return None
    return max(m.speed_rank for m in modes), max(m.width for m in modes)


def _end_text(ctx: LintContext, p: int) -> str:
    """``ISR9024 Voltaire (0x005442ba00003080) port 10``: a device named with its GUID (when it
    has one its name does not carry already) and the port number."""
    f = ctx.f
    d = int(f.ports_t.device[p])
    name, guid = f.name_of(d), int(f.devices_t.guid[d])
    tag = f"0x{guid:016x}"
    who = f"{name} ({tag})" if guid and not name.endswith(tag) else name
    return f"{who} port {int(f.ports_t.num[p])}"


@rule("link-degraded", "warning", "a link came up narrower or slower than both its ends can run")
def link_degraded(ctx: LintContext) -> Iterator[Finding]:
    """Both ports run at the link's rate, below what both parts (and the cable) can do: the link
    trained down (a bad cable or connector, the most common cabling fault). A port set slower than
    its peer is ``link-downgrade``'s; this is the case where the ends agree on too little."""
    f = ctx.f
    ct, pt = f.cables_t, f.ports_t
    c_ids = ctx.cids
    same = ((pt.speed[ctx.pa] == ct.speed[c_ids]) & (pt.width[ctx.pa] == ct.width[c_ids])
            & (pt.speed[ctx.pb] == ct.speed[c_ids]) & (pt.width[ctx.pb] == ct.width[c_ids])
            & (ct.tech[c_ids] != TECH_NONE_CODE))
    caps: dict[tuple[str, int], tuple[int, int] | None] = {}
    in_plane = ctx.device_planes >= 0

    def cap(part, tech_code: int) -> tuple[int, int] | None:
        if part is None:
            return None
        key = (part.id, tech_code)
        if key not in caps:
            caps[key] = _best_mode(part, tech_code)
        return caps[key]

    for i in np.flatnonzero(same).tolist():
        c, a, b = int(c_ids[i]), int(ctx.pa[i]), int(ctx.pb[i])
        tc = int(ct.tech[c])
        ends = [_plane_cap(ctx, in_plane, a) or cap(ctx.part(int(ctx.da[i])), tc),
                _plane_cap(ctx, in_plane, b) or cap(ctx.part(int(ctx.db[i])), tc), cap(ctx.cable_part(c), tc)]
        if any(e is None for e in ends[:2]):
            continue                          # an end with no known part: nothing to compare with
        known = [e for e in ends if e is not None]
        can_speed, can_width = min(e[0] for e in known), min(e[1] for e in known)
        rc = f.cable_rate(c)
        why = []
        if rc.width < can_width:
            why.append(f"width degraded: {rc.width}x of {can_width}x")
        if rc.speed_rank < can_speed:
            best = IB_SPEEDS[can_speed] if tc == TECH_IB_CODE else f"{ETH_SPEEDS[can_speed]}GbE"
            why.append(f"speed degraded: {rc.speed if tc == TECH_IB_CODE else str(rc)} of {best}")
        if not why:
            continue
        can = LinkRate.decode(tc, can_speed, can_width)
        yield ctx.finding("link-degraded", "warning",
                          f"{', '.join(why)} between {_end_text(ctx, a)} and {_end_text(ctx, b)}: both "
                          f"ends can run {can}, the link came up {rc} (reseat or replace the cable)",
                          cables=[c])


def _plane_cap(ctx: LintContext, in_plane: np.ndarray, p: int) -> tuple[int, int] | None:
    """(speed rank, width) port ``p`` is set to run when it is a port of a NIC split into planes or of
    a plane's switch set to the plane's rate (model.planes): that rate; None for any other port."""
    f = ctx.f
    d = int(f.ports_t.device[p])
    part = ctx.part(d)
    if part is None:
        return None
    split = part.kind == "nic" and int(f.devices_t.nports[d]) > part.ports
    if not split and not in_plane[d]:
        return None
    first = int(f.devices_t.first_port[d])          # the device's mode: the rate of all its ports
    return int(f.ports_t.speed[first]), int(f.ports_t.width[first])


@rule("cable-reach", "error", "cable longer than its part's reach")
def cable_reach(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    ct = f.cables_t
    lengths = ct.length[ctx.cids].astype(float)
    for idx in np.unique(ct.part[ctx.cids]).tolist():
        rows = np.flatnonzero(ct.part[ctx.cids] == idx)
        part = ctx.cable_part(int(ctx.cids[rows[0]]))
        if part is None or part.reach_m <= 0:
            continue
        for i in rows[lengths[rows] > part.reach_m + 1e-6].tolist():
            c = int(ctx.cids[i])
            kind = TYPE_TEXT.get(part.cable_type or "", "cable")
            yield ctx.finding("cable-reach", "error",
                              f"{f.cable(c).length_m:g} m {kind} beyond the {part.id}'s {part.reach_m:g} m reach",
                              cables=[c])


@rule("mixed-fabric", "warning", "InfiniBand and Ethernet in one design")
def mixed_fabric(ctx: LintContext) -> Iterator[Finding]:
    ib_sw = np.flatnonzero(ctx.alive & (ctx.kind == KIND_CODE[IB_SWITCH]))
    eth_sw = np.flatnonzero(ctx.alive & (ctx.kind == KIND_CODE[ETH_SWITCH]))
    n_ib = int(ctx.ib_cable.sum())
    n_eth = len(ctx.cids) - n_ib
    if (len(ib_sw) or n_ib) and (len(eth_sw) or n_eth):
        few = ib_sw if (len(ib_sw), n_ib) <= (len(eth_sw), n_eth) else eth_sw
        yield ctx.finding("mixed-fabric", "warning",
                          f"{len(ib_sw)} InfiniBand switch(es) with {n_ib} cables and {len(eth_sw)} Ethernet "
                          f"switch(es) with {n_eth} cables: two separate fabrics that never link",
                          devices=few.tolist(), where=ctx.f.name)


@rule("lid-space", "error", "an InfiniBand subnet needs more than the 49,151 unicast LIDs (warning within 5 %)")
def lid_space(ctx: LintContext) -> Iterator[Finding]:
    step = 1 << ctx.lmc
    for where, n_c, n_s, need, problem in lid_space_needs(ctx):
        if problem is not None:
            yield ctx.finding("lid-space", "error", problem, where=where)
        elif need > UNICAST_LIDS * (1 - LID_MARGIN):
            why = " with aligned blocks" if need > n_s + n_c * step else ""
            yield ctx.finding("lid-space", "warning", f"needs {need:,} LIDs ({n_c:,} CA ports × {step} (LMC "
                              f"{ctx.lmc}) + {n_s:,} switches{why}), within {LID_MARGIN:.0%} of the "
                              f"{UNICAST_LIDS:,} unicast LIDs: no room to grow", where=where)


def lid_space_needs(ctx: LintContext, every: bool = False) -> Iterator[tuple[str, int, int, int, str | None]]:
    """(where, CA ports, switches, LIDs needed, refusal or None) of each IB subnet (a component
    with a switch), as ``route`` finds it: :func:`~fabricviz.ib.routing.lid_entries` from the SM
    route would use (in another subnet: its first cabled IB NIC, else its first switch), then
    :func:`~fabricviz.ib.lids.plan_lids` at the design's LMC. Unless ``every``, a subnet whose
    worst case cannot come near the end is skipped without discovering it."""
    f = ctx.f
    t, pt = f.devices_t, f.ports_t
    ib = ctx.ib_cable
    n = t.n
    g = coo_matrix((np.ones(int(ib.sum())), (ctx.da[ib], ctx.db[ib])), shape=(n, n))
    _count, label = connected_components(g, directed=False)
    sw = ctx.alive & (ctx.kind == KIND_CODE[IB_SWITCH])
    ends = ctx.host_nic | ctx.sharp
    ca = (pt.cable >= 0) & (pt.tech == TECH_IB_CODE) & ends[pt.device] & (pt.state != PORT_DISABLED)
    n_sw = np.bincount(label[sw], minlength=_count)
    n_ca = np.bincount(label[pt.device[ca]], minlength=_count)
    step = 1 << ctx.lmc
    kept = bool(f.settings.file_lids)
    subnets = np.flatnonzero(n_sw > 0)
    for comp in subnets.tolist():
        n_s, n_c = int(n_sw[comp]), int(n_ca[comp])
        # OpenSM skips up to step - 1 LIDs per run of switches between CA blocks (and before the
        # first): below that bound nothing can be near the end, so no subnet is discovered
        if not every and not kept and \
                n_s + n_c * step + (n_s + 1) * (step - 1) <= UNICAST_LIDS * (1 - LID_MARGIN):
            continue
        where = f.name if len(subnets) == 1 else f"subnet of {f.name_of(int(np.flatnonzero(sw & (label == comp))[0]))}"
        yield (where, *_subnet_need(ctx, label, comp, n_c, n_s))


def _subnet_sm(ctx: LintContext, label: np.ndarray, comp: int) -> int:
    """The SM device of subnet ``comp``: route's (:func:`~fabricviz.ib.routing.sm_device`) when it
    is in this subnet, else the subnet's first cabled IB NIC, else its first switch."""
    pt = ctx.f.ports_t
    try:
        sm_dev = sm_device(ctx.f)
    except FabricError:
        sm_dev = -1
    if sm_dev >= 0 and label[sm_dev] == comp:
        return sm_dev
    mine = ctx.alive & (label == comp)
    cabled = np.zeros(len(mine), bool)
    cabled[pt.device[(pt.cable >= 0) & (pt.tech == TECH_IB_CODE)]] = True
    first = np.flatnonzero(mine & ctx.host_nic & cabled)
    if not len(first):
        first = np.flatnonzero(mine & (ctx.kind == KIND_CODE[IB_SWITCH]))
    return int(first[0])


def _subnet_need(ctx: LintContext, label: np.ndarray, comp: int, n_ca: int,
                 n_sw: int) -> tuple[int, int, int, str | None]:
    """(CA ports, switches, LIDs needed, refusal or None) of one IB subnet: the entries route
    gives LIDs to (discovered from :func:`_subnet_sm`, file LIDs kept) through the one
    :func:`~fabricviz.ib.lids.plan_lids`; the component's count when the SM cannot discover it."""
    try:
        _sn, entries = lid_entries(ctx.f, _subnet_sm(ctx, label, comp))
    except FabricError:
        return n_ca, n_sw, n_sw + n_ca * (1 << ctx.lmc), lid_space_problem(n_ca, n_sw, ctx.lmc)
    plan = plan_lids(entries, ctx.lmc)
    return entries.ca_ports, entries.switches, plan.need, plan.problem


# --------------------------------------------------------------------------- topology


def _switch_loads(ctx: LintContext) -> tuple[np.ndarray, np.ndarray]:
    """Per device: Gb/s of cables to lower tiers (down) and to higher tiers (up)."""
    ct = ctx.f.cables_t
    g = _gbps(ct.tech[ctx.cids], ct.speed[ctx.cids], ct.width[ctx.cids])
    ta, tb = ctx.tiers[ctx.da], ctx.tiers[ctx.db]
    n = ctx.f.devices_t.n
    down = np.bincount(ctx.da, g * (tb < ta), n) + np.bincount(ctx.db, g * (ta < tb), n)
    up = np.bincount(ctx.da, g * (tb > ta), n) + np.bincount(ctx.db, g * (ta > tb), n)
    return down, up


@rule("oversubscription", "warning", "oversubscription per tier differs from what the design asked for")
def oversubscription(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    asked = f.settings.generator.oversubscription
    if not asked:
        return
    down, up = _switch_loads(ctx)
    tier_of = {v: k for k, v in TIER_NAMES.items()}
    for name, text in asked.items():
        want, tier = _ratio(text), tier_of.get(name)
        if want is None or tier is None:
            continue
        sws = np.flatnonzero(ctx.sw & (ctx.tiers == tier) & (up > 0))
        if not len(sws):
            continue
        ratio = down[sws] / up[sws]
        worst = int(np.argmax(ratio))
        w = int(sws[worst])
        over = sws[ratio > want * (1 + 1e-9)]
        if len(over):
            yield ctx.finding("oversubscription", "warning",
                              f"{name} oversubscription up to {ratio_text(down[w], up[w])} on {len(over)} of "
                              f"{len(sws)} {name} switches (worst {f.name_of(w)}), asked for {text}",
                              devices=over.tolist())
        elif (ratio < want * (1 - 1e-9)).all():
            yield ctx.finding("oversubscription", "info",
                              f"{name} oversubscription at most {ratio_text(down[w], up[w])}, asked for {text}: "
                              "more uplink capacity than asked", devices=sws.tolist())


@rule("spof-host", "warning", "a server whose fabric ports all go to one switch (info: single-port hosts)")
def spof_host(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    t = f.devices_t
    ha, hb = ctx.host_nic[ctx.da] & ctx.sw[ctx.db], ctx.host_nic[ctx.db] & ctx.sw[ctx.da]
    nic = np.concatenate([ctx.da[ha], ctx.db[hb]])
    peer = np.concatenate([ctx.db[ha], ctx.da[hb]])
    if not len(nic):
        return
    host = np.where(t.parent[nic] >= 0, t.parent[nic], nic).astype(np.int64)
    hosts, links = np.unique(host, return_counts=True)
    pairs = np.unique(np.stack([host, peer], axis=1), axis=0)
    peers_per_host = np.bincount(np.searchsorted(hosts, pairs[:, 0]), minlength=len(hosts))
    single = hosts[links == 1]
    for i in np.flatnonzero((links > 1) & (peers_per_host == 1)).tolist():
        h = int(hosts[i])
        sw = int(peer[host == h][0])
        yield ctx.finding("spof-host", "warning",
                          f"all {int(links[i])} fabric ports go to {f.name_of(sw)}: losing that switch cuts "
                          "the server off", devices=[h, sw], where=f.name_of(h))
    if len(single):
        yield ctx.finding("spof-host", "info",
                          f"{len(single)} host(s) have a single fabric port: one cable, NIC or leaf failure "
                          "cuts each off", devices=single.tolist())


@rule("spof-leaf", "error", "a leaf with one (or no) link to the rest of the fabric (warning: one upper switch)")
def spof_leaf(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    if int(ctx.sw.sum()) < 2:
        return
    leafy = np.zeros(f.devices_t.n, bool)
    leafy[ctx.da[ctx.host_nic[ctx.db] & ctx.sw[ctx.da]]] = True
    leafy[ctx.db[ctx.host_nic[ctx.da] & ctx.sw[ctx.db]]] = True
    ss = ctx.sw[ctx.da] & ctx.sw[ctx.db]
    tiers = ctx.tiers
    for leaf in np.flatnonzero(leafy).tolist():
        mine = np.flatnonzero(ss & ((ctx.da == leaf) | (ctx.db == leaf)))
        if len(mine) == 0:
            yield ctx.finding("spof-leaf", "error", "no link to another switch: its hosts reach only each other",
                              devices=[leaf])
            continue
        if len(mine) == 1:
            yield ctx.finding("spof-leaf", "error",
                              f"one link to the rest of the fabric ({f.cable(int(ctx.cids[mine[0]])).label}): "
                              "losing it cuts off the leaf's hosts", devices=[leaf], cables=[int(ctx.cids[mine[0]])],
                              where=f.name_of(leaf))
            continue
        peers = np.unique(np.where(ctx.da[mine] == leaf, ctx.db[mine], ctx.da[mine]))
        if len(peers) == 1:
            p = int(peers[0])
            others = np.count_nonzero(ctx.sw & (tiers == tiers[p]))
            if tiers[p] > tiers[leaf] and others > 1:
                yield ctx.finding("spof-leaf", "warning",
                                  f"all {len(mine)} uplinks go to {f.name_of(p)}: losing that switch cuts off "
                                  "the leaf's hosts", devices=[leaf, p], where=f.name_of(leaf))


_RAIL = re.compile(r"rail(\d+)$")


@rule("rail-crossed", "warning", "rail-optimized design: NIC i not on rail i, or a leaf mixing rails")
def rail_crossed(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    if f.settings.generator.name != "rail":
        return
    t = f.devices_t
    ha = ctx.host_nic[ctx.da] & ctx.sw[ctx.db] & (t.parent[ctx.da] >= 0)
    hb = ctx.host_nic[ctx.db] & ctx.sw[ctx.da] & (t.parent[ctx.db] >= 0)
    nic = np.concatenate([ctx.da[ha], ctx.db[hb]])
    leaf = np.concatenate([ctx.db[ha], ctx.da[hb]])
    cab = np.concatenate([ctx.cids[ha], ctx.cids[hb]])
    rail = t.local[nic].astype(np.int64)
    for lf in np.unique(leaf).tolist():
        m = _RAIL.search(f.name_of(lf))
        sel = leaf == lf
        if m:
            want = int(m.group(1))
            for i in np.flatnonzero(sel & (rail != want)).tolist():
                yield ctx.finding("rail-crossed", "warning",
                                  f"NIC {int(rail[i])} of {f.name_of(int(t.parent[nic[i]]))} is on "
                                  f"{f.name_of(lf)} (rail {want}): GPU {int(rail[i])}'s traffic crosses rails",
                                  cables=[int(cab[i])])
        rails = np.unique(rail[sel])
        if len(rails) > 1:
            yield ctx.finding("rail-crossed", "warning",
                              f"one leaf mixes rails {', '.join(map(str, rails.tolist()))}", devices=[lf])


@rule("unbalanced-links", "warning", "a switch with unequal parallel links to the switches above it")
def unbalanced_links(ctx: LintContext) -> Iterator[Finding]:
    f = ctx.f
    tiers = ctx.tiers
    ss = ctx.sw[ctx.da] & ctx.sw[ctx.db] & (tiers[ctx.da] != tiers[ctx.db])
    a, b = ctx.da[ss], ctx.db[ss]
    lo = np.where(tiers[a] < tiers[b], a, b)
    hi = np.where(tiers[a] < tiers[b], b, a)
    if not len(lo):
        return
    pairs, counts = np.unique(np.stack([lo, hi], axis=1), axis=0, return_counts=True)
    for sw in np.unique(pairs[:, 0]).tolist():
        sel = pairs[:, 0] == sw
        c = counts[sel]
        if c.min() == c.max():
            continue
        groups = []
        for k in sorted(set(c.tolist()), reverse=True):
            names = [f.name_of(int(p)) for p in pairs[sel][c == k, 1]]
            groups.append(f"{k} link{'s' if k > 1 else ''} to " + ", ".join(names[:3])
                          + (f" (+{len(names) - 3} more)" if len(names) > 3 else ""))
        yield ctx.finding("unbalanced-links", "warning",
                          "unequal parallel links up: " + "; ".join(groups) + " (routes spread per link, so "
                          "the upper switches carry unequal shares)", devices=[sw])


# --------------------------------------------------------------------------- routing (InfiniBand)


def _tree_like(ctx: LintContext) -> bool:
    gen = ctx.f.settings.generator.name
    ib_sw = ctx.alive & (ctx.kind == KIND_CODE[IB_SWITCH])
    return gen in ("fat-tree", "rail") or (ib_sw.any() and int(ctx.tiers[ib_sw].max()) >= 2)


@rule("ftree-refused", "warning", "OpenSM's ftree engine would refuse this tree", routing=True)
def ftree_refused(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.is_ib or not _tree_like(ctx):
        return
    for r in ctx.routings("ftree"):          # one per plane of a multi-plane design
        if not r.fallback_reason:
            continue
        reason = r.fallback_reason.removeprefix("ftree: ")
        names = dict.fromkeys(re.findall(r"\(([^()]+)\)", reason))
        devs = [d for d in (ctx.f.find(n) for n in names) if d is not None]
        yield ctx.finding("ftree-refused", "warning",
                          f"OpenSM's ftree would refuse this tree and route with minhop: {reason}", devices=devs)


@rule("credit-loop", "error", "a credit loop in the default (minhop) routing", routing=True)
def credit_loop(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.is_ib:
        return
    try:
        sl2vl = design_qos(ctx.f)       # the VL of SL0 on each port (QoS on), else VL0
    except FabricError:
        sl2vl = None
    for loop in (lp for r in ctx.routings("minhop") for lp in find_credit_loops(r, sl2vl=sl2vl)):
        ports = [ctx.f.port_id(ch) for ch in loop.channels]
        ring = " -> ".join(loop.hop_names() + loop.hop_names()[:1])
        yield ctx.finding("credit-loop", "error",
                          f"credit loop in minhop routing over {len(loop.channels)} channels ({ring}) on "
                          f"{loop.vl_text()}, from routes to {len(loop.destinations)} LID(s): can deadlock "
                          "under load; route with updn, ftree, dfsssp or lash",
                          ports=ports, where=loop.channels[0].rsplit(":", 1)[0])


@rule("ib-unreachable", "error", "InfiniBand devices or LIDs the subnet manager cannot reach", routing=True)
def ib_unreachable(ctx: LintContext) -> Iterator[Finding]:
    if not ctx.is_ib:
        return
    f = ctx.f
    for r in ctx.routings("minhop"):        # each plane of a multi-plane design has its own SM
        sub = r.subnet.fabric               # the plane alone (same device ids), or the design
        pt = sub.ports_t
        cabled = np.zeros(sub.devices_t.n, bool)
        cabled[pt.device[pt.cable >= 0]] = True
        devs = [d for d in (sub.find(n) for n in r.subnet.undiscovered) if d is not None and cabled[d]]
        sm = f.name_of(int(r.subnet.sm_node))
        if devs:
            yield ctx.finding("ib-unreachable", "error",
                              f"{len(devs)} cabled InfiniBand device(s) not reachable from the subnet manager "
                              f"on {sm}: no LID, no routes", devices=devs)
        for w in r.warnings:
            if w.startswith("unreachable destinations"):
                yield ctx.finding("ib-unreachable", "error", w, where=f.name)

