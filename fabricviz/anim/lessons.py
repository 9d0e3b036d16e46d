"""Classroom lessons: a fabric plus a script of steps, run on the real engines.

A lesson is one JSON file (``fabricviz/assets/lessons/N-name.json``)::

    {"format": "fabricviz-lesson", "version": 1, "name": "sm-bringup", "title": "...",
     "summary": "...",
     "fabric": {"generator": "fat_tree", "args": {"levels": 2, "radix": 8, "hosts": 16}}
               | {"design": {...native fabricviz design...}},
     "steps": [{"action": "sweep", "engine": "minhop", "until": "discovery",
                "title": "...", "say": "what the instructor says"}, ...]}

Actions: ``sweep`` (the SM's heavy sweep, phase by phase up to ``until``),
``route``, ``trace``, ``check_loops``, ``pull_cable``, ``rewire`` (move a
cable to build a miswired tree), ``simulate``, ``latency`` and ``compare``
(engines, routing modes, or InfiniBand vs RoCE). The explanation text carries
no numbers of its own: every number a step prints comes from the engines, so
a lesson stays true when an engine changes. Qt-free; the GUI and ``fabricviz
demo`` both drive :func:`run_lesson`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..model import Fabric, FabricError
from ..model.cabling import PORT_ACTIVE
from ..resources import asset_path

LESSON_DIR = asset_path("lessons")
GENERATORS = ("fat_tree", "k_ary_fat_tree", "leaf_spine", "rail_optimized")
SWEEP_PHASES = ("election", "discovery", "sm_lid", "lids", "routing", "lft", "links", "up")
ENGINES = ("minhop", "updn", "ftree")

# action → (required fields, optional fields) besides action/title/say
ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sweep": ((), ("engine", "until")),
    "route": ((), ("engine", "roots", "lmc")),
    "trace": (("src", "dst"), ()),
    "check_loops": ((), ("engine", "roots")),
    "pull_cable": (("port",), ()),
    "rewire": (("port", "to"), ("length_m",)),
    "simulate": (("workload",), ("model", "routing", "engine", "duration_ms", "cc", "flow_control", "over",
                                 "seed", "show_flows")),
    "latency": (("src", "dst"), ("bytes",)),
    "compare": (("what",), ("engines", "routings", "techs", "src", "dst", "workload", "model", "over", "seed",
                                  "bytes")),
}
COMPARE = ("engines", "routings", "techs")


@dataclass(frozen=True)
class Step:
    action: str
    title: str
    say: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Lesson:
    name: str
    title: str
    summary: str
    fabric: dict[str, Any]
    steps: tuple[Step, ...]
    path: str = "<lesson>"
    number: int | None = None

    def build_fabric(self, tech: str | None = None) -> Fabric:
        """A fresh copy of the lesson's fabric (``tech`` rebuilds a generator fabric as ib/roce)."""
        spec = self.fabric
        if "generator" in spec:
            from .. import build
            args = dict(spec.get("args", {}))
            if tech is not None:
                args["fabric"] = tech
            try:
                return getattr(build, spec["generator"])(**args)
            except TypeError as e:
                raise FabricError(f"{self.path}: fabric.args: {e}") from None
        if tech is not None:
            raise FabricError(f"{self.path}: fabric: comparing InfiniBand with RoCE needs a generator fabric")
        from ..formats.native import fabric_from_dict
        return fabric_from_dict(spec["design"], where=f"{self.path}: fabric.design")


@dataclass
class StepResult:
    index: int                    # 1-based
    action: str
    title: str
    say: str
    lines: list[str]
    data: dict[str, Any] = field(default_factory=dict)

    def narration(self) -> list[str]:
        return [f"[{self.index}] {self.title}", *(f"  {w}" for w in _wrap(self.say)),
                *(f"  > {ln}" for ln in self.lines)]


def _wrap(text: str, width: int = 96) -> list[str]:
    import textwrap
    return textwrap.wrap(text, width) or [""]


# ------------------------------------------------------------------ loading
def _fail(where: str, fld: str, msg: str) -> FabricError:
    return FabricError(f"{where}: {fld}: {msg}")


def parse_lesson(data: Any, where: str = "<lesson>", number: int | None = None) -> Lesson:
    """Validate a lesson dict; the first problem is one line naming file and field."""
    if not isinstance(data, dict):
        raise _fail(where, "(top level)", "a lesson is a JSON object")
    if data.get("format") != "fabricviz-lesson":
        raise _fail(where, "format", "must be \"fabricviz-lesson\"")
    if data.get("version") != 1:
        raise _fail(where, "version", f"unsupported version {data.get('version')!r} (this reads 1)")
    for key in ("name", "title"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise _fail(where, key, "missing or not a non-empty string")
    fab = data.get("fabric")
    if not isinstance(fab, dict) or ("generator" in fab) == ("design" in fab):
        raise _fail(where, "fabric", "give either {\"generator\": ..., \"args\": {...}} or {\"design\": {...}}")
    if "generator" in fab:
        if fab["generator"] not in GENERATORS:
            raise _fail(where, "fabric.generator", f"unknown generator {fab['generator']!r} "
                                                   f"(use {', '.join(GENERATORS)})")
        if not isinstance(fab.get("args", {}), dict):
            raise _fail(where, "fabric.args", "must be an object of generator arguments")
    elif not isinstance(fab["design"], dict):
        raise _fail(where, "fabric.design", "must be a native fabricviz design object")
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        raise _fail(where, "steps", "missing or empty list")
    out = [_parse_step(s, where, f"steps[{i}]") for i, s in enumerate(steps)]
    return Lesson(data["name"], data["title"], str(data.get("summary", "")), fab, tuple(out), where, number)


def _parse_step(s: Any, where: str, at: str) -> Step:
    if not isinstance(s, dict):
        raise _fail(where, at, "a step is an object")
    action = s.get("action")
    if action not in ACTIONS:
        raise _fail(where, f"{at}.action", f"unknown action {action!r} (use {', '.join(ACTIONS)})")
    for key in ("title", "say"):
        if not isinstance(s.get(key), str) or not s[key].strip():
            raise _fail(where, f"{at}.{key}", "missing or not a non-empty string")
    need, opt = ACTIONS[action]
    for key in need:
        if key not in s:
            raise _fail(where, f"{at}.{key}", f"required by action {action!r}")
    extra = sorted(set(s) - set(need) - set(opt) - {"action", "title", "say"})
    if extra:
        raise _fail(where, f"{at}.{extra[0]}", f"not a field of action {action!r}")
    params = {k: v for k, v in s.items() if k not in ("action", "title", "say")}
    for key in ("engine",):
        if key in params and params[key] not in ENGINES:
            raise _fail(where, f"{at}.engine", f"unknown engine {params[key]!r} (use {', '.join(ENGINES)})")
    if "until" in params and params["until"] not in SWEEP_PHASES:
        raise _fail(where, f"{at}.until", f"unknown sweep phase {params['until']!r} (use {', '.join(SWEEP_PHASES)})")
    if action == "compare":
        what = params["what"]
        if what not in COMPARE:
            raise _fail(where, f"{at}.what", f"unknown comparison {what!r} (use {', '.join(COMPARE)})")
        if what not in params or not isinstance(params[what], list) or len(params[what]) < 2:
            raise _fail(where, f"{at}.{what}", "list at least two things to compare")
        if what in ("engines", "techs") and not ("src" in params and "dst" in params):
            raise _fail(where, f"{at}.src", f"comparing {what} needs src and dst")
        if what == "routings" and "workload" not in params:
            raise _fail(where, f"{at}.workload", "comparing routings needs a workload")
    if action == "simulate":
        wl = params["workload"]
        if not (isinstance(wl, str) or (isinstance(wl, list) and wl and all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in wl))):
            raise _fail(where, f"{at}.workload", "a workload spec (\"permutation\") or a list of [src, dst] pairs")
    return Step(action, s["title"], s["say"], params)


def load_lesson(path: str | Path, number: int | None = None) -> Lesson:
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise FabricError(f"{p}: cannot read ({e.strerror or e})") from None
    except json.JSONDecodeError as e:
        raise FabricError(f"{p}: line {e.lineno}: not valid JSON ({e.msg})") from None
    return parse_lesson(data, str(p), number)


def bundled() -> list[tuple[int, str, Path]]:
    """(number, name, path) of every bundled lesson, in order; files are ``N-name.json``."""
    out = []
    for p in sorted(LESSON_DIR.glob("*.json")):
        num, _, name = p.stem.partition("-")
        if num.isdigit():
            out.append((int(num), name, p))
    return sorted(out)


def find_lesson(ref: str) -> Lesson:
    """A bundled lesson by number ("1") or name ("sm-bringup"), else a lesson file path."""
    for num, name, p in bundled():
        if ref in (str(num), name, p.stem, p.name):
            return load_lesson(p, num)
    if Path(ref).is_file():
        return load_lesson(ref)
    names = ", ".join(f"{n} ({m})" for n, m, _ in bundled())
    raise FabricError(f"{ref}: no such lesson (bundled: {names}; or give a lesson file)")


# ------------------------------------------------------------------ running
class _Run:
    """What the steps share: the fabric as edited so far, the SM state, the last trace."""

    def __init__(self, lesson: Lesson) -> None:
        self.lesson = lesson
        self.fabric = lesson.build_fabric()
        self.routing = None
        self.engine = "minhop"
        self.timeline = None
        self.shown = -1           # last timeline step narrated
        self.last_trace: tuple[str, str] | None = None

    def routing_for(self, engine: str | None = None, roots: list[str] | None = None):
        from ..ib.routing import route
        if engine is None and roots is None and self.routing is not None:
            return self.routing
        return route(self.fabric, engine or self.engine, roots=roots)


def run_lesson(lesson: Lesson, until: int | None = None) -> list[StepResult]:
    """Run steps 1..``until`` (all when None) and return their narration and numbers."""
    n = len(lesson.steps)
    stop = n if until is None else until
    if not 1 <= stop <= n:
        raise FabricError(f"{lesson.path}: --until {until}: the lesson has steps 1..{n}")
    run = _Run(lesson)
    out = []
    for i, step in enumerate(lesson.steps[:stop], 1):
        where = f"{lesson.path}: steps[{i - 1}] ({step.action})"
        try:
            lines, data = _ACTIONS[step.action](run, step.params)
        except FabricError as e:
            raise FabricError(f"{where}: {e}") from None
        data.setdefault("fabric", run.fabric)
        out.append(StepResult(i, step.action, step.title, step.say, lines, data))
    return out


def final_fabric(results: list[StepResult]) -> Fabric:
    """The fabric as the last step left it (cables pulled or moved), for pictures.

    Every step's ``data["fabric"]`` is the fabric as that step left it: a step
    that pulls or moves a cable works on a copy, so earlier steps keep theirs.
    """
    return results[-1].data["fabric"]


def resolve_until(lesson: Lesson, text: str | None) -> int | None:
    """``--until``: a step number (1-based), a step title's start, or "end"."""
    if text is None or text == "end":
        return None
    if text.isdigit():
        return int(text)
    for i, s in enumerate(lesson.steps, 1):
        if s.title.lower().startswith(text.lower()):
            return i
    raise FabricError(f"--until {text}: no step {text!r} in {lesson.name} (use 1..{len(lesson.steps)} or end)")


# ------------------------------------------------------------------ actions
_QUIET = ("node", "lid")     # per-device discovery and LID events: summarised, not listed


def _sweep(run: _Run, p: dict) -> tuple[list[str], dict]:
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
    data = {"discovered": int(st.discovered.sum()), "smps": int(st.smps), "t_us": float(st.t_us),
            "up": bool(st.subnet_up), "step": last, "from": first, "timeline": tl,
            "active_ports": int((st.port_state == PORT_ACTIVE).sum())}
    return lines, data


def _route_lines(fabric: Fabric, r) -> tuple[list[str], dict]:
    lines = [f"routed by {r.routed_by}" + (f" (asked for {r.engine})" if r.routed_by != r.engine else "")
             + f": LFTs for {r.subnet.num_switches} switches, {r.lids.count()} LIDs"]
    if r.fallback_reason:
        lines.append(f"refused: {r.fallback_reason}")
    if r.info.get("roots"):
        lines.append("roots: " + ", ".join(r.info["roots"]))
    bal = uplink_balance(r)
    if bal:
        lines.append(f"destinations per switch-to-switch egress port: min {bal['min']}, max {bal['max']} "
                     f"over {bal['ports']} ports")
    return lines, {"routed_by": r.routed_by, "fallback_reason": r.fallback_reason, "balance": bal,
                   "roots": r.info.get("roots"), "routing": r}


def uplink_balance(r) -> dict:
    """How evenly the LFTs spread CA destinations over switch-to-switch egress ports."""
    sn, lft = r.subnet, r.lft
    ca = r.lids.ca_lid[r.lids.ca_lid > 0]
    if not len(ca):
        return {}
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
        return {}
    return {"min": int(vals.min()), "max": int(vals.max()), "ports": int(len(vals))}


def _route(run: _Run, p: dict) -> tuple[list[str], dict]:
    from ..ib.routing import route
    run.engine = p.get("engine", run.engine)
    run.routing = route(run.fabric, run.engine, roots=p.get("roots"), lmc=int(p.get("lmc", 0)))
    return _route_lines(run.fabric, run.routing)


def _trace(run: _Run, p: dict) -> tuple[list[str], dict]:
    from ..ib.trace import trace
    r = run.routing_for()
    run.routing = r
    t = trace(r, p["src"], p["dst"])
    run.last_trace = (p["src"], p["dst"])
    return t.format().splitlines(), {"hops": [h.switch for h in t.hops], "ok": t.ok, "routing": r,
                                     "paths": [_path(r, t, f"{p['src']} → {p['dst']}")]}


def _path(r, t, label: str) -> dict:
    """A traced path as the canvas shows it: its cables and ``[in] switch [out]`` hops."""
    from ..ib.trace import path_cables
    return {"label": label, "cables": path_cables(r, t), "hops": [(h.switch, h.in_port, h.out_port) for h in t.hops],
            "ok": t.ok}


def _check_loops(run: _Run, p: dict) -> tuple[list[str], dict]:
    from ..ib.creditloops import find_credit_loops
    r = run.routing_for(p.get("engine"), p.get("roots"))
    loops = find_credit_loops(r)
    lines, data = _route_lines(run.fabric, r)
    if loops:
        lines += loops[0].format().splitlines()
    lines.append(f"{len(loops)} credit loop(s)" if loops else "no credit loops")
    data["loops"] = len(loops)
    f = r.subnet.fabric
    data["loop_cables"] = tuple(int(f.ports_t.cable[f.port(ch).id]) for ch in (loops[0].channels if loops else ())
                                if int(f.ports_t.cable[f.port(ch).id]) >= 0)
    return lines, data


def _port(fabric: Fabric, name: str):
    try:
        return fabric.port(name)
    except (FabricError, KeyError, ValueError) as e:
        raise FabricError(f"port {name!r}: {e}") from None


def _pull_cable(run: _Run, p: dict) -> tuple[list[str], dict]:
    from ..ib.sweep import cable_pull
    from ..ib.trace import trace
    port = _port(run.fabric, p["port"])
    if port.cable is None:
        raise FabricError(f"port {p['port']}: no cable to pull")
    from .sweep_timeline import SweepTimeline
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
    lines.append(f"LFT blocks re-sent: {sweep.routing.info.get('lft_blocks_sent', 0)}")
    data = {"lft_blocks_sent": sweep.routing.info.get("lft_blocks_sent", 0), "routing": sweep.routing,
            "timeline": tl, "from": 0, "step": len(tl) - 1, "before": old_fabric, "pulled": pulled}
    if old is not None:
        new = trace(sweep.routing, *run.last_trace)
        path = lambda t: " -> ".join(h.switch for h in t.hops)   # noqa: E731
        lines += [f"path before: {path(old)}", f"path after:  {path(new)}"]
        data["moved"] = [h.switch for h in old.hops] != [h.switch for h in new.hops]
        label2 = f"{run.last_trace[0]} → {run.last_trace[1]}"
        data["paths"] = [_path(sweep.routing, new, label2)]
        data["old_path"] = _path(before, old, label2 + " (before)")
    up = sweep.events[-1]
    lines.append(f"{up.text} after {up.data['smps']} SMPs and {up.data['t_us'] / 1000:.3f} ms")
    return lines, data


def _rewire(run: _Run, p: dict) -> tuple[list[str], dict]:
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
    return lines, {"before": before, "removed": tuple(removed), "added": int(c)}


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


def _sim(fabric: Fabric, p: dict, routing: str | None = None):
    from ..sim.compare import run_workload
    from ..sim.engine import fabric_tech
    from ..sim.fluid import FluidParams
    flows = _flows(fabric, p)
    model = p.get("model", "maxmin")
    tech = fabric_tech(fabric)
    routing = routing or p.get("routing")
    fluid = None
    if model == "fluid":
        fluid = FluidParams(cc=p.get("cc", "none" if tech == "ib" else "dcqcn"),
                            flow_control=p.get("flow_control", "credit" if tech == "ib" else "pfc"))
    return run_workload(fabric, flows, model, float(p.get("duration_ms", 10)) * 1e-3, int(p.get("seed", 0)),
                        routing, p.get("engine", "minhop"), fluid=fluid)


def _simulate(run: _Run, p: dict) -> tuple[list[str], dict]:
    from ..sim.summary import format_summary
    f = run.fabric
    res = _sim(f, p)
    s = res.summary(f)
    lines = format_summary(s).splitlines()
    if res.fluid is not None:
        lines[0] += f", cc {p.get('cc', 'default')}"
    rates = res.flow_rates()
    shown = {}
    for k in p.get("show_flows", []):
        i = int(k) % len(rates)
        src, dst = f.name_of(int(res.flows.src[i])), f.name_of(int(res.flows.dst[i]))
        path = res.routes.path(i)
        line = float(res.links.gbps[path[~res.links.pcie[path]][0]])
        lines.append(f"flow {src} -> {dst}: {rates[i]:.2f} Gb/s ({rates[i] / line:.3f} of its {line:g} Gb/s line)")
        shown[int(k)] = {"src": src, "dst": dst, "gbps": float(rates[i]), "line_gbps": line}
    return lines, {"summary": s, "rates": rates.tolist(), "flows": shown, "result": res}


def _path_latency(fabric: Fabric, src: str, dst: str, nbytes: float) -> tuple[list[str], float, dict]:
    """Hop-by-hop lines, the one-way total (ns) and the components summed over the path."""
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
    parts.update(nic=tx + rx, switches=sum(1 for h in rows if h["switch_ns"] > 0), total=total, name=name)
    path = np.asarray(r.path(0))
    cables = tuple(dict.fromkeys(int(x) // 2 for x in path[~links.pcie[path]]))
    parts["path"] = {"label": f"{src} → {dst}", "cables": cables, "hops": [], "ok": True}
    return lines, total, parts


def _latency(run: _Run, p: dict) -> tuple[list[str], dict]:
    lines, total, c = _path_latency(run.fabric, p["src"], p["dst"], p.get("bytes", 4096))
    return lines, {"total_ns": total, "paths": [c["path"]]}


def _compare(run: _Run, p: dict) -> tuple[list[str], dict]:
    what = p["what"]
    lines: list[str] = []
    data: dict[str, Any] = {}
    if what == "engines":
        from ..ib.routing import route
        from ..ib.trace import trace
        for eng in p["engines"]:
            if eng not in ENGINES:
                raise FabricError(f"engines: unknown engine {eng!r}")
            r = route(run.fabric, eng)
            rl, d = _route_lines(run.fabric, r)
            t = trace(r, p["src"], p["dst"])
            lines.append(f"{eng}:")
            lines += [f"  {x}" for x in rl]
            lines.append(f"  {p['src']} -> {p['dst']}: " + " -> ".join(h.switch for h in t.hops)
                         + f" ({len(t.hops)} switch hops)")
            data[eng] = d
            data.setdefault("paths", []).append(_path(r, t, f"{eng}: {p['src']} → {p['dst']}"))
    elif what == "routings":
        for mode in p["routings"]:
            res = _sim(run.fabric, p, routing=mode)
            s = res.summary(run.fabric)
            r = s["rate_share"]
            lines.append(f"{mode}: {s['flows']} flows, flow rate / line rate mean {r['mean']:.3f} "
                         f"min {r['min']:.3f} max {r['max']:.3f}, total {s['rate_gbps']['total']:.1f} Gb/s")
            data[mode] = s
            data.setdefault("results", {})[mode] = res
        data["result"] = data["results"][p["routings"][0]]
    else:
        totals, nbytes = {}, p.get("bytes", 4096)
        lines.append(f"{p['src']} -> {p['dst']}, {int(nbytes)} B packets, one-way:")
        for tech in p["techs"]:
            f = run.lesson.build_fabric(tech)
            _tl, total, c = _path_latency(f, p["src"], p["dst"], nbytes)
            lines.append(f"{c['name']:<10}: switches {c['switch']:.1f} ns ({c['switches']} hops) "
                         f"+ propagation incl. PCIe {c['propagation']:.1f} "
                         f"+ serialization {c['serialization']:.1f} + NICs {c['nic']:.1f} = {total:.1f} ns")
            totals[tech] = total
            data[tech] = c
            if f.counts() == run.fabric.counts() and tech == p["techs"][0]:
                data["paths"] = [c["path"]]
        a, b = p["techs"][:2]
        lines.append(f"difference {b} - {a}: {totals[b] - totals[a]:+.1f} ns one-way "
                     f"({totals[b] / totals[a]:.2f}x)")
        data["total_ns"] = totals
    return lines, data


_ACTIONS = {"sweep": _sweep, "route": _route, "trace": _trace, "check_loops": _check_loops,
            "pull_cable": _pull_cable, "rewire": _rewire, "simulate": _simulate, "latency": _latency,
            "compare": _compare}

__all__ = ["ACTIONS", "LESSON_DIR", "Lesson", "Step", "StepResult", "bundled", "final_fabric", "find_lesson",
           "load_lesson", "parse_lesson", "resolve_until", "run_lesson", "uplink_balance"]
