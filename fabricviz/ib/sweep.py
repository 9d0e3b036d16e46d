"""The heavy sweep as an ordered, timestamped event stream (what the GUI replays).

Phases follow OpenSM's ``do_sweep()`` and its log banners: directed-route
discovery wave by wave from the SM port (NodeInfo, then SwitchInfo + PortInfo
for every port + NodeDescription on a new switch, NodeDescription + PortInfo
on a CA), the SM's own LID, LIDs for every port, routing, LFT distribution in
64-LID blocks (block-major: block 0 to every switch, then block 1 …; all-empty
blocks are not sent), the link manager's three passes (NO_CHANGE, ARMED,
ACTIVE) and "SUBNET UP". A pulled cable starts with Trap 128 and re-sweeps;
LIDs are kept and only LFT blocks that changed are sent.

Times are a model, not a measurement: an SMP round trip costs
``SMP_BASE_US + SMP_HOP_US`` per directed-route hop and at most
``MAX_SMPS_ON_WIRE`` (OpenSM's default 4) are outstanding, so a wave of n
SMPs takes ceil(n / 4) round trips. Everything is deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Set
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..model import Fabric
from .pkeys import design_tables
from .qos import compute_qos
from .qos_meta import design_qos
from .routing import Routing, old_lft, route
from .sm import elect
from .subnet import NO_PATH
from .sweep_pkeys import PKEY_BLOCK, pkey_smps

SMP_BASE_US = 20.0          # SM software + SMA processing per round trip (estimate)
SMP_HOP_US = 0.5            # extra per directed-route hop (estimate)
MAX_SMPS_ON_WIRE = 4        # OSM_DEFAULT_SMP_MAX_ON_WIRE
LFT_BLOCK_LIDS = 64         # one LinearForwardingTable SMP carries 64 entries
ROUTE_NS_PER_ENTRY = 2.0    # modelled routing compute per (switch, LID) entry

BANNERS = {
    "start": "INITIATING HEAVY SWEEP",
    "discovered": "HEAVY SWEEP COMPLETE",
    "pkeys": "PKEY setup completed - STARTING SM LID CONFIG",
    "sm_lid": "SM LID ASSIGNMENT COMPLETE - STARTING SUBNET LID CONFIG",
    "lids": "LID ASSIGNMENT COMPLETE - STARTING SWITCH TABLE CONFIG",
    "unicast": "SWITCHES CONFIGURED FOR UNICAST",
    "links_configured": "LINKS PORTS CONFIGURED - SET LINKS TO ARMED STATE",
    "armed": "LINKS ARMED - SET LINKS TO ACTIVE STATE",
    "up": "SUBNET UP",
}


@dataclass(frozen=True)
class SweepEvent:
    """One step to draw: what happened, when, and on which devices/ports/cables."""

    t_us: float
    phase: str                 # trap | discovery | sm_lid | lids | routing | lft | links | up
    kind: str                  # banner | trap | node | wave | pkey_block | pkey_enforce | lid | route |
                               # lft_block | port_state
    text: str
    devices: tuple[int, ...] = ()
    ports: tuple[int, ...] = ()
    cables: tuple[int, ...] = ()
    dr_path: tuple[int, ...] = ()
    lids: tuple[int, ...] = ()
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class Sweep:
    events: list[SweepEvent]
    routing: Routing

    def phases(self) -> list[str]:
        seen: list[str] = []
        for e in self.events:
            if e.phase not in seen:
                seen.append(e.phase)
        return seen


def _rtt(hops: int) -> float:
    return SMP_BASE_US + SMP_HOP_US * hops


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0
        self.smps = 0

    def batch(self, n: int, hops: int) -> float:
        """Advance by n SMPs of ``hops`` hops, at most 4 outstanding; return the new time."""
        self.smps += n
        self.t += math.ceil(n / MAX_SMPS_ON_WIRE) * _rtt(hops)
        return self.t


def heavy_sweep(fabric: Fabric, engine: str = "minhop", sm: int | str | None = None, lmc: int = 0,
                previous: Routing | None = None, trap_port: int | None = None,
                partitions: Any = None, qos: Any = None) -> Sweep:
    """Run the subnet manager once and return its event stream and routing.

    With ``previous`` (the routing before a change) LIDs are kept and existing
    LFT entries are preserved where still valid; ``trap_port`` names the switch
    port whose link went down (Trap 128). ``partitions``: a PartitionConfig for the
    P_Key manager (default: the design's partitions.conf; none: the Default partition);
    ``qos``: QosOptions for the QoS step (default: the design's; none or ``qos FALSE``: no QoS SMPs).
    """
    election = None
    if sm is None:
        election = elect(fabric)
        sm = election.master.node
    r = route(fabric, engine, sm=sm, lmc=lmc, previous=previous)
    sn = r.subnet
    f = fabric
    ev: list[SweepEvent] = []
    clk = _Clock()
    if election is not None and trap_port is None:
        devs = tuple(int(f.ports_t.device[c.port]) for c in (election.master, *election.standby))
        ev.append(SweepEvent(0.0, "election", "sm", f"SM election: {election.describe()}",
                             devices=devs, ports=(election.master.port,),
                             data={"master": election.master.node,
                                   "standby": [c.node for c in election.standby]}))
    already: set[int] = set()
    if previous is not None:          # a re-sweep: links that were ACTIVE stay ACTIVE
        live = set(_subnet_ports(f, r))
        already = live & _was_active(previous)
    if trap_port is not None:
        ev.append(SweepEvent(0.0, "trap", "trap",
                             f"Trap 128 (link state change) from {f.port_name(trap_port)}: port went down; "
                             "the SM forces a heavy sweep", devices=(int(f.ports_t.device[trap_port]),),
                             ports=(trap_port,)))
        clk.t += _rtt(1)
    ev.append(SweepEvent(clk.t, "discovery", "banner", BANNERS["start"], devices=(sn.sm_node,),
                         ports=(sn.sm_port,), data={"active": tuple(sorted(already))} if already else {}))
    _discovery(f, r, ev, clk)
    ev.append(SweepEvent(clk.t, "discovery", "banner", BANNERS["discovered"],
                         data={"switches": sn.num_switches, "ca_ports": len(sn.ca_ports), "smps": clk.smps}))
    _pkeys(f, r, ev, clk, previous, partitions)
    _lids(f, r, ev, clk)
    t_route = sn.num_switches * (r.lids.max_lid + 1) * ROUTE_NS_PER_ENTRY / 1000.0
    clk.t += t_route
    text = f"{r.routed_by} computed LFTs for {sn.num_switches} switches and {r.lids.count()} LIDs"
    if r.fallback_reason:
        text = f"{r.fallback_reason}; " + text
    ev.append(SweepEvent(clk.t, "routing", "route", text,
                         data={"engine": r.engine, "routed_by": r.routed_by,
                               "fallback_reason": r.fallback_reason}))
    _layers(r, ev, clk)
    _lft_blocks(f, r, ev, clk, previous)
    _qos(f, r, ev, clk, qos)
    ev.append(SweepEvent(clk.t, ev[-1].phase, "banner", BANNERS["unicast"]))   # after QoS when it ran
    _links(f, r, ev, clk, already)
    ev.append(SweepEvent(clk.t, "up", "banner", BANNERS["up"],
                         data={"smps": clk.smps, "t_us": clk.t}))
    return Sweep(ev, r)


def _layers(r: Routing, ev: list[SweepEvent], clk: _Clock) -> None:
    """dfsssp/lash: how the engine spread the paths over virtual lanes to break credit loops
    (one event: the lanes needed and the paths each SL carries, from the engine's own result)."""
    psl = r.info.path_sl
    if psl is None or r.routed_by != r.engine:
        return
    counts = psl.counts()
    vls = int(r.info.vls_used if r.info.vls_used is not None else psl.vls_needed)
    per = ", ".join(f"SL{sl}: {n:,}" for sl, n in sorted(counts.items()))
    ev.append(SweepEvent(clk.t, "routing", "layers",
                         f"{r.routed_by}: {vls} virtual lane{'s' if vls != 1 else ''} needed to be free of "
                         f"credit loops (paths per SL — {per})",
                         data={"vls_used": vls, "path_sl": dict(sorted(counts.items())),
                               "log": list(r.info.log or ())}))


def _discovery(f: Fabric, r: Routing, ev: list[SweepEvent], clk: _Clock) -> None:
    """Directed-route BFS from the SM, one event per node and a summary per wave."""
    sn = r.subnet
    t, pt = f.devices_t, f.ports_t
    sw_set = sn.sw_index
    start = sn.sm_node
    seen = {start}
    wave: list[tuple[int, tuple[int, ...], int]] = [(start, (), -1)]   # (device, DR path, in cable)
    found_sw = found_ca = 0
    k = 0
    while wave:
        hops = k
        n_smps = 0
        nxt: list[tuple[int, tuple[int, ...], int]] = []
        for d, path, cable in wave:
            is_sw = d in sw_set
            if is_sw:   # NodeInfo, then SwitchInfo, PortInfo for ports 0..N and NodeDescription
                mads = {"NodeInfo": 1, "SwitchInfo": 1, "PortInfo": int(t.nports[d]) + 1, "NodeDescription": 1}
            else:       # NodeInfo, then NodeDescription and PortInfo of the port reached
                mads = {"NodeInfo": 1, "NodeDescription": 1, "PortInfo": 1}
            smps = sum(mads.values())
            n_smps += smps
            if is_sw:
                found_sw += 1
            else:
                found_ca += 1
            ev.append(SweepEvent(clk.t, "discovery", "node",
                                 f"{'switch' if is_sw else 'CA'} {f.name_of(d)} found at hop {k} "
                                 f"(DR path {_path_text(path)})", devices=(d,),
                                 cables=(cable,) if cable >= 0 else (), dr_path=path,
                                 data={"smps": smps, "mads": mads}))
            if not is_sw and d != start:
                continue
            ports: range | list[int] = range(int(t.first_port[d]), int(t.first_port[d]) + int(t.nports[d]))
            if not is_sw:
                ports = [sn.sm_port]
            for p in ports:
                c = int(pt.cable[p])
                if c < 0:
                    continue
                q = f._peer(p)
                if q < 0 or int(pt.tech[q]) != 1 or int(pt.state[q]) == 4 or int(pt.state[p]) == 4:
                    continue
                nd = int(pt.device[q])
                n_smps += 1                      # NodeInfo to the far end of every live port
                if nd in seen:
                    continue
                seen.add(nd)
                nxt.append((nd, path + (int(pt.num[p]),), c))
        clk.batch(n_smps, hops)
        ev.append(SweepEvent(clk.t, "discovery", "wave",
                             f"wave {k}: {found_sw} switch(es) and {found_ca} CA(s) found, {clk.smps} SMPs so far",
                             devices=tuple(d for d, _p, _c in wave),
                             cables=tuple(c for _d, _p, c in wave if c >= 0),
                             data={"wave": k, "switches": found_sw, "cas": found_ca, "smps": clk.smps}))
        wave = nxt
        k += 1


def _pkeys(f: Fabric, r: Routing, ev: list[SweepEvent], clk: _Clock, previous: Routing | None,
           conf: Any) -> None:
    """The P_Key manager: one event per PKeyTable block and per switch port's enforcement
    (PortInfo), in OpenSM's order (:mod:`.sweep_pkeys`)."""
    tables = design_tables(r.subnet, conf)
    before = previous.info.pkey_tables if previous is not None else None
    steps = pkey_smps(r, tables, before)
    for s in steps:
        if s.smp:
            clk.batch(1, s.hops)
        ev.append(SweepEvent(clk.t, "pkeys", s.kind, s.text, devices=(s.device,),
                             ports=(s.port,) if s.port >= 0 else (), data=s.data()))
    blocks = sum(1 for s in steps if s.kind == PKEY_BLOCK)
    port_infos = sum(1 for s in steps if s.kind != PKEY_BLOCK and s.smp)
    r.info.pkey_tables = tables
    r.info.pkey_blocks_sent = blocks
    r.info.pkey_port_infos_sent = port_infos
    ev.append(SweepEvent(clk.t, "pkeys", "banner", BANNERS["pkeys"], data={"blocks": blocks,
                                                                          "port_infos": port_infos}))


def _qos(f: Fabric, r: Routing, ev: list[SweepEvent], clk: _Clock, options: Any) -> None:
    """``osm_qos_setup``: per switch its SL2VL tables (one SMP per (in, out) port pair) and the
    VLArbitration tables of its up ports, then per CA port its own; nothing with ``qos FALSE``."""
    options = options if options is not None else design_qos(f)
    if options is None or not options.qos:
        return
    sn = r.subnet
    tables = compute_qos(sn, options)
    r.info.qos_tables = tables
    by_node: dict[int, list[tuple[int, int, int]]] = {}
    for key in tables.sl2vl:
        by_node.setdefault(key[0], []).append(key)
    sent = 0
    sw_dev = {int(g): int(d) for g, d in zip(sn.sw_guid.tolist(), sn.switches.tolist(), strict=True)}
    for g, d in sw_dev.items():
        keys = by_node.get(g, [])
        ports = sorted(p for (n, p) in tables.ports if n == g)
        if not keys and not ports:
            continue
        arb = sum(_vlarb_blocks(tables.ports[(g, p)]) for p in ports)
        n = len(keys) + arb
        sent += n
        clk.batch(n, 1)
        first = tables.sl2vl[keys[0]] if keys else ()
        ev.append(SweepEvent(clk.t, "qos", "qos_tables",
                             f"SL2VL + VLArb → {f.name_of(d)}: {len(keys)} SL2VL tables (in × out ports), "
                             f"VL arbitration on {len(ports)} ports; SL→VL {' '.join(str(v) for v in first)}",
                             devices=(d,), data={"sl2vl": len(keys), "vlarb_ports": len(ports), "smps": n}))
    pt = f.ports_t
    for p in sn.ca_ports.tolist():
        node = int(f.devices_t.guid[int(pt.device[p])])
        q = tables.ports.get((node, int(pt.num[p])))
        if q is None:
            continue
        n = 1 + _vlarb_blocks(q)
        sent += n
        clk.batch(n, 2)
        vls = tables.sl2vl.get((node, 0, int(pt.num[p])), ())
        ev.append(SweepEvent(clk.t, "qos", "qos_tables",
                             f"SL2VL + VLArb → {f.port_name(p)}: {q.oper_vls} data VLs, "
                             f"SL→VL {' '.join(str(v) for v in vls)}",
                             devices=(int(pt.device[p]),), ports=(p,), data={"smps": n}))
    r.info.qos_smps_sent = sent


def _vlarb_blocks(q: Any) -> int:
    """VLArbitration SMPs of a port: one per non-empty 32-entry block of the high and low tables."""
    return sum((len(t) + 31) // 32 for t in (q.vlarb_high, q.vlarb_low))


def _path_text(path: tuple[int, ...]) -> str:
    return "0," + ",".join(str(p) for p in path) if path else "0"


def _lids(f: Fabric, r: Routing, ev: list[SweepEvent], clk: _Clock) -> None:
    sn, lids = r.subnet, r.lids
    sm_lid = _lid_of_port(r, sn.sm_port)
    clk.batch(1, 0)
    ev.append(SweepEvent(clk.t, "sm_lid", "lid", f"SM port {f.port_name(sn.sm_port)} takes LID {sm_lid}",
                         devices=(sn.sm_node,), ports=(sn.sm_port,), lids=(sm_lid,)))
    ev.append(SweepEvent(clk.t, "sm_lid", "banner", BANNERS["sm_lid"]))
    width = lids.lids_per_ca_port
    for s, lid in enumerate(lids.sw_lid.tolist()):
        if lid:
            d = int(sn.switches[s])
            clk.batch(1, 1)
            ev.append(SweepEvent(clk.t, "lids", "lid", f"{f.name_of(d)} port 0 gets LID {lid}", devices=(d,),
                                 lids=(lid,)))
    for j, lid in enumerate(lids.ca_lid.tolist()):
        if lid and int(sn.ca_ports[j]) != sn.sm_port:
            p = int(sn.ca_ports[j])
            clk.batch(1, 2)
            text = f"{f.port_name(p)} gets LID {lid}" if width == 1 else \
                f"{f.port_name(p)} gets LIDs {lid}-{lid + width - 1} (LMC {lids.lmc})"
            ev.append(SweepEvent(clk.t, "lids", "lid", text, devices=(int(f.ports_t.device[p]),), ports=(p,),
                                 lids=tuple(range(lid, lid + width))))
    ev.append(SweepEvent(clk.t, "lids", "banner", BANNERS["lids"], data={"lids": lids.count()}))


def _lid_of_port(r: Routing, p: int) -> int:
    sn = r.subnet
    hits = np.flatnonzero(sn.ca_ports == p)
    if len(hits):
        return int(r.lids.ca_lid[hits[0]])
    d = int(sn.fabric.ports_t.device[p])
    return int(r.lids.sw_lid[sn.sw_index[d]]) if d in sn.sw_index else 0


def _lft_blocks(f: Fabric, r: Routing, ev: list[SweepEvent], clk: _Clock, previous: Routing | None) -> None:
    sn, lft = r.subnet, r.lft
    old = None if previous is None else old_lft(r.subnet, previous)
    n_blocks = (lft.shape[1] + LFT_BLOCK_LIDS - 1) // LFT_BLOCK_LIDS
    sent_total = 0
    for b in range(n_blocks):
        lo, hi = b * LFT_BLOCK_LIDS, min((b + 1) * LFT_BLOCK_LIDS, lft.shape[1])
        block = lft[:, lo:hi]
        if old is None:
            send = (block != NO_PATH).any(axis=1)
        else:
            prev = np.full_like(block, NO_PATH)
            w = max(0, min(hi, old.shape[1]) - lo)
            if w:
                prev[:, :w] = old[:, lo:lo + w]
            send = (block != prev).any(axis=1)
        idx = np.flatnonzero(send)
        if not len(idx):
            continue
        sent_total += len(idx)
        clk.batch(len(idx), 2)
        ev.append(SweepEvent(clk.t, "lft", "lft_block",
                             f"LFT block {b} (LIDs {lo}-{hi - 1}) sent to {len(idx)} switch(es)",
                             devices=tuple(int(sn.switches[s]) for s in idx.tolist()),
                             lids=(lo, hi - 1), data={"block": b, "switches": len(idx)}))
    r.info.lft_blocks_sent = sent_total


def _was_active(previous: Routing) -> set[int]:
    """Ports the previous sweep brought to ACTIVE: cabled switch ports of its subnet and its CA ports."""
    sn = previous.subnet
    first = sn.fabric.devices_t.first_port[np.asarray(sn.switches, np.int64)].astype(np.int64)
    s, p = np.nonzero(sn.nbr_dev[:, 1:] >= 0)
    return set((first[s] + p).tolist()) | set(int(x) for x in sn.ca_ports.tolist())


def _links(f: Fabric, r: Routing, ev: list[SweepEvent], clk: _Clock,
           already: Set[int] = frozenset()) -> None:
    """The link manager's passes: NO_CHANGE (MTU, VLs), then ARMED, then ACTIVE. On a re-sweep
    only ports that were not ACTIVE before (``already``) change state, as in OpenSM."""
    sn = r.subnet
    ports = _subnet_ports(f, r)
    clk.batch(len(ports), 2)
    ev.append(SweepEvent(clk.t, "links", "banner", BANNERS["links_configured"], ports=tuple(ports),
                         data={"ports": len(ports)}))
    todo = [p for p in ports if p not in already]
    if not todo:
        ev.append(SweepEvent(clk.t, "links", "no_change",
                             f"all {len(ports)} ports already ACTIVE: no port state to change"))
        return
    for state, banner in (("armed", "armed"), ("active", None)):
        clk.batch(len(todo), 2)
        ev.append(SweepEvent(clk.t, "links", "port_state",
                             f"{len(todo)} ports set {state.upper()}", ports=tuple(todo),
                             devices=tuple(int(d) for d in sn.switches.tolist()),
                             data={"state": state}))
        if banner:
            ev.append(SweepEvent(clk.t, "links", "banner", BANNERS[banner]))


def _subnet_ports(f: Fabric, r: Routing) -> list[int]:
    """Every port of the subnet with a live link (switch ports and CA ports)."""
    sn = r.subnet
    t, pt = f.devices_t, f.ports_t
    out: list[int] = []
    for d in sn.switches.tolist():
        first, n = int(t.first_port[d]), int(t.nports[d])
        for p in range(first, first + n):
            if int(pt.cable[p]) >= 0 and int(pt.tech[p]) == 1 and int(pt.state[p]) != 4:
                q = f._peer(p)
                if q >= 0 and int(pt.state[q]) != 4:
                    out.append(p)
    out.extend(int(p) for p in sn.ca_ports.tolist())
    return out


def cable_pull(fabric: Fabric, before: Routing, cable: int, engine: str | None = None) -> tuple[Sweep, Any]:
    """Remove ``cable`` from ``fabric`` (the caller's edit) and re-sweep as OpenSM would.

    Returns the sweep after the pull and the model's :class:`Removed` record, so
    the GUI can put the cable back with ``fabric.restore``.
    """
    c = fabric.cable(cable)
    a, b = c.port_a.id, c.port_b.id
    trap = a if fabric.device(int(fabric.ports_t.device[a])).is_switch else b
    removed = fabric.remove_cables([cable])
    sweep = heavy_sweep(fabric, engine or before.engine, sm=before.subnet.sm_node, lmc=before.lids.lmc,
                        previous=before, trap_port=trap)
    return sweep, removed
