"""The lesson actions: each runs the real engines for one step and returns its lines and results.

An action is ``(run, params) -> (lines, fields)``: the narration lines and the typed
:class:`~fabricviz.anim.lesson_results.StepResult` fields it fills (the constructor rejects
any other name). ``run`` (:class:`Run`) is what the steps share: the fabric as edited so far,
the SM state, the last trace. Qt-free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..ib.engines import ENGINES
from ..model import Fabric, FabricError
from ..model.cabling import PORT_ACTIVE
from .lesson_results import (
    COLOURS,
    Balance,
    CableChange,
    PathLatency,
    RouteInfo,
    ShownFlow,
    SweepCounts,
    SweepPlay,
    TracedPath,
    TrafficRun,
)

if TYPE_CHECKING:
    from .lessons import Lesson

if TYPE_CHECKING:
    from ..ib.routing import Routing
    from .sweep_timeline import SweepTimeline

Fields = dict[str, Any]


class Run:
    """What the steps share: the fabric as edited so far, the SM state, the last trace."""

    def __init__(self, lesson: Lesson) -> None:
        self.lesson = lesson
        self.fabric = lesson.build_fabric()
        self.routing: Routing | None = None
        self.engine = "minhop"
        self.timeline: SweepTimeline | None = None
        self.shown = -1           # last timeline step narrated
        self.last_trace: tuple[str, str] | None = None

    def use_fabric(self, fabric: Fabric) -> None:
        """A step's own fabric: the steps from here on run on it (no routing, sweep or trace yet)."""
        self.fabric, self.routing, self.timeline, self.shown, self.last_trace = fabric, None, None, -1, None

    def routing_for(self, engine: str | None = None, roots: list[str] | None = None) -> Routing:
        from ..ib.routing import route
        if engine is None and roots is None and self.routing is not None:
            return self.routing
        return route(self.fabric, engine or self.engine, roots=roots)


_QUIET = ("node", "lid")     # per-device discovery and LID events: summarised, not listed


def _sweep(run: Run, p: dict) -> tuple[list[str], Fields]:
    from ..ib.sweep import heavy_sweep
    from .sweep_timeline import SweepTimeline
    engine = p.get("engine", run.engine)
    if run.timeline is None or run.shown >= len(run.timeline) - 1 or engine != run.engine:
        run.engine = engine
        sw = heavy_sweep(run.fabric, engine)
        run.timeline, run.shown = SweepTimeline(sw, run.fabric), -1
        run.routing = sw.routing
    tl = run.timeline
    until = p.get("until", "up")
    phases = [e.phase for e in tl.events]
    if until not in phases:
        raise FabricError(f"until: the sweep has no phase {until!r}")
    last = len(phases) - 1 - phases[::-1].index(until)
    lines, lids, first = [], 0, run.shown + 1
    for i in range(run.shown + 1, last + 1):
        e = tl.events[i]
        if e.kind == "lid" and e.phase == "lids":
            lids += len(e.lids)
        if e.kind in _QUIET and e.phase != "sm_lid":
            continue
        if e.phase == "lids" and e.kind == "banner" and lids:
            lines.append(f"{lids} LIDs assigned to switch port 0s and CA ports")
        lines.append(tl.narration[i])
    run.shown = last
    st = tl.state(last)
    counts = SweepCounts(int(st.discovered.sum()), int(st.smps), float(st.t_us), bool(st.subnet_up),
                         int((st.port_state == PORT_ACTIVE).sum()))
    fields: Fields = {"sweep": SweepPlay(tl, first, last), "counts": counts}
    if until == "routing":     # nothing goes on the wire in this phase: the step shows the routes chosen
        fields["routing"] = run.routing
    return lines, fields


def route_info(r) -> tuple[list[str], RouteInfo]:
    """A routing result's lines (engine, refusal, roots, egress balance) and its RouteInfo."""
    lines = [f"routed by {r.routed_by}" + (f" (asked for {r.engine})" if r.routed_by != r.engine else "")
             + f": LFTs for {r.subnet.num_switches} switches, {r.lids.count()} LIDs"]
    if r.fallback_reason:
        lines.append(f"refused: {r.fallback_reason}")
    roots = r.info.roots
    if roots:
        lines.append("roots: " + ", ".join(roots))
    bal = uplink_balance(r)
    if bal:
        lines.append(f"destinations per switch-to-switch egress port: min {bal.min}, max {bal.max} "
                     f"over {bal.ports} ports")
    return lines, RouteInfo(r.routed_by, r.fallback_reason, tuple(roots) if roots else None, bal, r)


def uplink_balance(r) -> Balance | None:
    """How evenly the LFTs spread CA destinations over switch-to-switch egress ports."""
    sn, lft = r.subnet, r.lft
    ca = r.lids.ca_lid[r.lids.ca_lid > 0]
    if not len(ca):
        return None
    cols = lft[:, ca].astype(np.int64)                     # [S, CA] egress port
    S, P1 = sn.nbr_sw.shape
    counts = np.zeros((S, P1), np.int64)
    rows = np.repeat(np.arange(S), cols.shape[1])
    ok = cols.ravel() < P1
    np.add.at(counts, (rows[ok], cols.ravel()[ok]), 1)
    isl = sn.nbr_sw >= 0
    isl[:, 0] = False
    vals = counts[isl]
    if not len(vals):
        return None
    return Balance(int(vals.min()), int(vals.max()), int(len(vals)))


def _route(run: Run, p: dict) -> tuple[list[str], Fields]:
    from ..ib.routing import route
    run.engine = p.get("engine", run.engine)
    run.routing = route(run.fabric, run.engine, roots=p.get("roots"), lmc=int(p.get("lmc", 0)))
    lines, info = route_info(run.routing)
    return lines, {"route": info, "routing": run.routing}


def _path(r, t, label: str) -> TracedPath:
    """A traced path as the canvas shows it: its cables and ``[in] switch [out]`` hops."""
    from ..ib.trace import path_cables
    return TracedPath(label, tuple(int(c) for c in path_cables(r, t)),
                      tuple((h.switch, int(h.in_port), int(h.out_port)) for h in t.hops), bool(t.ok))


def _trace(run: Run, p: dict) -> tuple[list[str], Fields]:
    from ..ib.trace import trace
    r = run.routing_for()
    run.routing = r
    t = trace(r, p["src"], p["dst"])
    run.last_trace = (p["src"], p["dst"])
    return t.format().splitlines(), {"trace_ok": bool(t.ok), "routing": r,
                                     "paths": (_path(r, t, f"{p['src']} → {p['dst']}"),)}


def _port(fabric: Fabric, name: str):
    try:
        return fabric.port(name)
    except (FabricError, KeyError, ValueError) as e:
        raise FabricError(f"port {name!r}: {e}") from None


def _pull_cable(run: Run, p: dict) -> tuple[list[str], Fields]:
    from ..ib.sweep import cable_pull
    from ..ib.trace import trace
    from .sweep_timeline import SweepTimeline
    port = _port(run.fabric, p["port"])
    if port.cable is None:
        raise FabricError(f"port {p['port']}: no cable to pull")
    before = run.routing_for()
    old = trace(before, *run.last_trace) if run.last_trace else None
    label = str(port.cable.label) if getattr(port.cable, "label", None) else p["port"]
    pulled, old_fabric = int(port.cable.id), run.fabric
    run.fabric = old_fabric.copy()                # earlier steps keep the fabric with the cable
    sweep, _removed = cable_pull(run.fabric, before, pulled)
    run.routing = sweep.routing
    run.timeline, run.shown = None, -1
    tl = SweepTimeline(sweep, run.fabric)
    lines = [f"pulled cable {label}"]
    lines += [e.text for e in sweep.events if e.kind in ("trap", "route")]
    blocks = int(sweep.routing.info.lft_blocks_sent or 0)
    lines.append(f"LFT blocks re-sent: {blocks}")
    out: Fields = {"lft_blocks_sent": blocks, "routing": sweep.routing, "sweep": SweepPlay(tl, 0, len(tl) - 1),
                   "change": CableChange(old_fabric, (pulled,))}
    if old is not None and run.last_trace is not None:
        new = trace(sweep.routing, *run.last_trace)
        path = lambda t: " -> ".join(h.switch for h in t.hops)   # noqa: E731
        lines += [f"path before: {path(old)}", f"path after:  {path(new)}"]
        out["moved"] = [h.switch for h in old.hops] != [h.switch for h in new.hops]
        label2 = f"{run.last_trace[0]} → {run.last_trace[1]}"
        out["paths"] = (_path(sweep.routing, new, label2),)
        out["old_path"] = _path(before, old, label2 + " (before)")
    up = sweep.events[-1]
    lines.append(f"{up.text} after {up.data['smps']} SMPs and {up.data['t_us'] / 1000:.3f} ms")
    return lines, out


def _rewire(run: Run, p: dict) -> tuple[list[str], Fields]:
    before = run.fabric
    f = run.fabric = before.copy()                # earlier steps keep the fabric as it was
    a, b = _port(f, p["port"]), _port(f, p["to"])
    lines, removed = [], []
    for port in (a, b):
        if port.cable is not None:
            peer = port.peer
            lines.append(f"unplugged {f.port_name(port.id)} (was cabled to "
                         f"{f.port_name(peer.id) if peer is not None else 'nothing'})")
            removed.append(int(port.cable.id))
            f.remove_cables([port.cable.id])
    c = f.add_cable(a.id, b.id, float(p.get("length_m", 3.0)))
    lines.append(f"cabled {p['port']} to {p['to']}")
    run.routing, run.timeline, run.shown = None, None, -1
    return lines, {"change": CableChange(before, tuple(removed), int(c))}


def _flows(fabric: Fabric, p: dict):
    from ..sim.workloads import Flows, make_workload
    wl = p["workload"]
    if isinstance(wl, str):
        return make_workload(fabric, wl, seed=int(p.get("seed", 0)), over=p.get("over", "auto"))
    ids = []
    for pair in wl:
        for name in pair:
            d = fabric.find(name)
            if d is None:
                raise FabricError(f"workload: no device {name!r}")
            ids.append(d)
    ids_a = np.array(ids, np.int64).reshape(-1, 2)
    return Flows(ids_a[:, 0], ids_a[:, 1])


def _sim(fabric: Fabric, p: dict, routing: str | None = None, fluid: Any = None) -> TrafficRun:
    from ..sim.compare import run_workload
    from ..sim.engine import fabric_tech
    from ..sim.fluid import FluidParams
    flows = _flows(fabric, p)
    model = p.get("model", "maxmin")
    tech = fabric_tech(fabric)
    routing = routing or p.get("routing")
    if model == "fluid" and fluid is None:      # (``fluid``: the caller's FluidParams, e.g. roce_run's)
        fluid = FluidParams(cc=p.get("cc", "none" if tech == "ib" else "dcqcn"),
                            flow_control=p.get("flow_control", "credit" if tech == "ib" else "pfc"))
    duration_ms, seed, engine = float(p.get("duration_ms", 10)), int(p.get("seed", 0)), p.get("engine", "minhop")
    reach = None
    if p.get("partition") is not None:            # hosts outside it left out, limited pairs refused
        from ..sim.run import partition_reach
        reach = partition_reach(fabric, p["partition"])
    res = run_workload(fabric, flows, model, duration_ms * 1e-3, seed, routing, engine, fluid=fluid, reach=reach,
                       transport=p.get("transport"))
    wl = p["workload"]
    paused: tuple[int, ...] = ()
    if res.fluid is not None and len(res.fluid.paused_fraction):
        links = np.flatnonzero((np.asarray(res.fluid.paused_fraction) > 0) & ~np.asarray(res.links.pcie, bool))
        paused = tuple(sorted({int(x) // 2 for x in links if fabric.cables_t.exists(int(x) // 2)}))
    colour = p.get("colour", "")
    if colour and colour not in COLOURS:
        raise FabricError(f"colour: {colour!r} is not one of {', '.join(COLOURS)}")
    return TrafficRun(res, res.summary(fabric), wl if isinstance(wl, str) else "",
                      () if isinstance(wl, str) else tuple((str(a), str(b)) for a, b in wl),
                      model, routing, engine, duration_ms, seed, paused_cables=paused, partition=res.partition,
                      colour=colour, transport=p.get("transport", ""), trimming_cables=_trimming(res))


def _trimming(res: Any) -> tuple[int, ...]:
    """Cables with a direction whose queue trims (the canvas's trim marks; none without trims)."""
    from ..sim.frames import TRIM_MARK_PER_S
    fr = res.frames[-1]
    if not fr.has_trims:
        return ()
    t = np.asarray(fr.link_trims_per_s[: res.links.n_cable_links], float)
    return tuple(sorted({int(x) // 2 for x in np.flatnonzero(t >= TRIM_MARK_PER_S)}))


def _trim_lines(f: Fabric, res: Any) -> list[str]:
    """A trimming transport's trims: the links that trim, the most trimming one, what arrives whole."""
    fr = res.frames[-1]
    if not fr.has_trims:
        return []
    from ..sim.frames import TRIM_MARK_PER_S
    t = np.asarray(fr.link_trims_per_s, float)
    n = int((t >= TRIM_MARK_PER_S).sum())
    if not n:
        return ["trimmed: no link trims; paused links: none (no PFC)"]
    top = int(np.argmax(t))
    a, b = res.links.name(f, top)
    model = res.transport.summary()["transport_model"]
    return [f"trimmed: {n} link{'s' if n != 1 else ''} cut packets to headers, the most {a} -> {b}: "
            f"{t[top]:,.0f} packets/s ({res.transport.link_trim[top]:.1%} of what it is offered); "
            f"paused links: none (no PFC)",
            f"packets arriving whole: mean {model['delivery_mean']:.1%}, the worst flow {model['delivery_min']:.1%}"]


def simulate_action(run: Run, p: dict, fluid: Any = None) -> tuple[list[str], Fields]:
    from dataclasses import replace

    from ..sim.summary import format_summary
    f = run.fabric
    tr = _sim(f, p, fluid=fluid)
    res = tr.result
    lines = format_summary(dict(tr.summary)).splitlines()
    if res.fluid is not None:
        lines[0] += f", cc {p.get('cc', 'default')}"
    if res.partition:
        from ..sim.partitioned import refused_line
        lines.append(f"in partition {res.partition}")
        asked = _flows(f, p)                      # the hosts the step's flows name, left out or not
        ends = np.unique(np.concatenate([asked.src, asked.dst]))
        ends = np.union1d(ends, f.devices_t.parent[ends][f.devices_t.parent[ends] >= 0])
        named = [u for u in res.left_out if u.device in ends]
        lines += [f"{u.name} left out: {u.reason}" for u in named]
        if len(res.left_out) > len(named):
            n = len(res.left_out) - len(named)
            lines.append(f"{n} other host{'s' if n != 1 else ''} outside the partition")
        if res.refused:
            lines.append(refused_line(res.refused, f))
    lines += _trim_lines(f, res)
    rates = res.flow_rates()
    shown: dict[int, ShownFlow] = {}
    for k in p.get("show_flows", []):
        i = int(k) % len(rates)
        src, dst = f.name_of(int(res.flows.src[i])), f.name_of(int(res.flows.dst[i]))
        path = res.routes.path(i)
        line = float(res.links.gbps[path[~res.links.pcie[path]][0]])
        lines.append(f"flow {src} -> {dst}: {rates[i]:.2f} Gb/s ({rates[i] / line:.3f} of its {line:g} Gb/s line)")
        shown[int(k)] = ShownFlow(src, dst, float(rates[i]), line)
    return lines, {"traffic": replace(tr, rates=tuple(float(x) for x in rates), flows=shown)}


def _path_latency(fabric: Fabric, src: str, dst: str, nbytes: float) -> tuple[list[str], PathLatency]:
    """Hop-by-hop lines and the one-way latency (ns) by component, summed over the path."""
    from ..sim.engine import fabric_tech
    from ..sim.latency import LatencyParams, nic_overheads, path_hops
    from ..sim.links import link_table
    from ..sim.paths import route
    from ..sim.workloads import Flows
    ends = []
    for ref in (src, dst):
        d = fabric.find(ref)
        if d is None:
            raise FabricError(f"{ref!r}: no such device")
        ends.append(d)
    links = link_table(fabric)
    tech = fabric_tech(fabric)
    mode = "static" if tech == "ib" else "ecmp"
    provider = None
    if tech == "ib":                  # InfiniBand: the path the subnet manager's LFTs give
        from ..ib.routing import route as sm_route
        from ..sim.paths import sm_paths
        provider = sm_paths(sm_route(fabric, "minhop"))
    r = route(fabric, links, Flows(np.array([ends[0]]), np.array([ends[1]])), mode, provider=provider)
    prm = LatencyParams(bytes=float(nbytes))
    rows, total = path_hops(fabric, links, r.path(0), prm)
    tx, rx = nic_overheads(fabric, links, r.path(0), prm)
    name = "InfiniBand" if tech == "ib" else "RoCE"
    lines = [f"{name} {src} -> {dst}, {int(nbytes)} B packets, {mode} route: NIC tx {tx:.1f} ns"]
    for h in rows:
        lines.append(f"  {h['from']} -> {h['to']}: serialization {h['serialization_ns']:.1f} + propagation "
                     f"{h['propagation_ns']:.1f} + switch {h['switch_ns']:.1f} = {h['total_ns']:.1f} ns")
    lines.append(f"NIC rx {rx:.1f} ns; one-way total {total:.1f} ns ({total / 1000:.3f} µs)")
    parts = {k: float(sum(h[f"{k}_ns"] for h in rows)) for k in ("serialization", "propagation", "switch")}
    path = np.asarray(r.path(0))
    cables = tuple(dict.fromkeys(int(x) // 2 for x in path[~links.pcie[path]]))
    return lines, PathLatency(name, float(total), parts["serialization"], parts["propagation"], parts["switch"],
                              float(tx + rx), sum(1 for h in rows if h["switch_ns"] > 0),
                              TracedPath(f"{src} → {dst}", cables))


def _latency(run: Run, p: dict) -> tuple[list[str], Fields]:
    lines, lat = _path_latency(run.fabric, p["src"], p["dst"], p.get("bytes", 4096))
    return lines, {"latency": lat, "paths": (lat.path,)}


def _compare(run: Run, p: dict) -> tuple[list[str], Fields]:
    what = p["what"]
    lines: list[str] = []
    if what == "engines":
        from ..ib.routing import route
        from ..ib.trace import trace
        routes, paths = {}, []
        for eng in p["engines"]:
            if eng not in ENGINES:
                raise FabricError(f"engines: unknown engine {eng!r}")
            r = route(run.fabric, eng)
            rl, info = route_info(r)
            t = trace(r, p["src"], p["dst"])
            lines.append(f"{eng}:")
            lines += [f"  {x}" for x in rl]
            lines.append(f"  {p['src']} -> {p['dst']}: " + " -> ".join(h.switch for h in t.hops)
                         + f" ({len(t.hops)} switch hops)")
            routes[eng] = info
            paths.append(_path(r, t, f"{eng}: {p['src']} → {p['dst']}"))
        return lines, {"routes": routes, "paths": tuple(paths)}
    if what == "routings":
        runs = {}
        for mode in p["routings"]:
            tr = _sim(run.fabric, p, routing=mode)
            s = tr.summary
            r = s["rate_share"]
            lines.append(f"{mode}: {s['flows']} flows, flow rate / line rate mean {r['mean']:.3f} "
                         f"min {r['min']:.3f} max {r['max']:.3f}, total {s['rate_gbps']['total']:.1f} Gb/s")
            runs[mode] = tr
        return lines, {"traffic_by": runs, "traffic": runs[p["routings"][0]]}
    lats: dict[str, PathLatency] = {}
    out: Fields = {}
    nbytes = p.get("bytes", 4096)
    lines.append(f"{p['src']} -> {p['dst']}, {int(nbytes)} B packets, one-way:")
    for tech in p["techs"]:
        f = run.lesson.build_fabric(tech)
        _tl, c = _path_latency(f, p["src"], p["dst"], nbytes)
        lines.append(f"{c.name:<10}: switches {c.switch:.1f} ns ({c.switches} hops) "
                     f"+ propagation incl. PCIe {c.propagation:.1f} "
                     f"+ serialization {c.serialization:.1f} + NICs {c.nic:.1f} = {c.total:.1f} ns")
        lats[tech] = c
        if f.counts() == run.fabric.counts() and tech == p["techs"][0]:
            out["paths"] = (c.path,)
    a, b = p["techs"][:2]
    lines.append(f"difference {b} - {a}: {lats[b].total - lats[a].total:+.1f} ns one-way "
                 f"({lats[b].total / lats[a].total:.2f}x)")
    out["latency_by"] = lats
    return lines, out


Runner = Callable[[Run, dict], tuple[list[str], Fields]]


#: The actions this module runs (:mod:`.lesson_runners` adds the others').
CORE_RUNNERS: dict[str, Runner] = {
    "sweep": _sweep, "route": _route, "trace": _trace, "pull_cable": _pull_cable,
    "rewire": _rewire, "simulate": simulate_action, "latency": _latency, "compare": _compare}

__all__ = ["CORE_RUNNERS", "Run", "Runner", "route_info", "simulate_action", "uplink_balance"]
