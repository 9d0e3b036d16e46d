"""Classroom lessons: a fabric plus a script of steps, run on the real engines.

A lesson is one JSON file (``assets/lessons/N-name.json``)::

    {"format": "fabricviz-lesson", "version": 1, "name": "sm-bringup", "title": "...",
     "summary": "...",
     "fabric": {"generator": "fat_tree", "args": {"levels": 2, "radix": 8, "hosts": 16}}
               | {"design": {...native fabricviz design...}},
               (either may add "cables": [{"port": "leaf01:5", "length_m": 100, "part": "400G-DR4"}]:
                the cable on that port re-made after the fabric is built, e.g. a long optical run),
     "steps": [{"action": "sweep", "engine": "minhop", "until": "discovery",
                "title": "...", "say": "what the instructor says"}, ...]}

Any step may carry its own ``"fabric"`` (the same form): that step and the ones after it run on
it (earlier steps keep theirs), e.g. the same servers cabled as another design.

Actions: ``sweep`` (the SM's heavy sweep, phase by phase up to ``until``),
``route``, ``trace``, ``check_loops``, ``pull_cable``, ``rewire`` (move a
cable to build a miswired tree), ``simulate`` (``partition``: in one InfiniBand
partition; ``transport``: e.g. eqds, receiver-driven spraying with trimming),
``latency``, ``compare`` (engines, routing modes, or InfiniBand vs
RoCE), ``partitions`` (put a partitions.conf into the design), ``reach`` (whom
a host can talk to by the P_Key rule; :mod:`.lesson_partitions`), ``layers`` (the virtual lanes
a routing's paths use: how many dfsssp needed, paths per VL) and ``path_lengths`` (route lengths
of engines over every host pair; :mod:`.lesson_layers`). ``check_loops`` looks on every VL.
``collective`` (nccl-tests style busbw vs size of a collective, ``versus`` another fabric or the
lesson's own; :mod:`.lesson_collective`) and ``whatif`` (failure trials or the worst single
failures; :mod:`.lesson_whatif`).
``pfc_deadlock`` (PFC cycles after failed links) and ``pfc_run`` (the flows closing one, deadlocking;
the PFC watchdog), ``headroom`` (a switch's PFC headroom per port with every term, and its buffer
budget) and ``roce_run`` (a fluid run with the design's lossless plan and a DCQCN preset) are
:mod:`.lesson_roce`'s.
The explanation text carries no numbers of its own: every number a step prints comes from the engines, so
a lesson stays true when an engine changes (where a text quotes the engines' numbers, as lessons 11 and 12
do, a test pins each quote to the engine's value). Qt-free; the GUI and ``fabricviz
demo`` both drive :func:`run_lesson`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..ib.engines import ENGINES
from ..model import Fabric, FabricError
from ..model.numbers import is_digits
from ..resources import asset_path
from .lesson_actions import Run, uplink_balance
from .lesson_results import StepResult
from .lesson_runners import ACTION_RUNNERS
from .lesson_spec import build_spec, check_fabric_spec
from .lesson_spec import fail as _fail

LESSON_DIR = asset_path("lessons")
SWEEP_PHASES = ("election", "discovery", "pkeys", "sm_lid", "lids", "routing", "lft", "links", "up")

# action → (required fields, optional fields) besides action/title/say
ACTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "sweep": ((), ("engine", "until")),
    "route": ((), ("engine", "roots", "lmc")),
    "trace": (("src", "dst"), ()),
    "check_loops": ((), ("engine", "roots")),
    "pull_cable": (("port",), ()),
    "rewire": (("port", "to"), ("length_m",)),
    "simulate": (("workload",), ("model", "routing", "engine", "duration_ms", "cc", "flow_control", "over",
                                 "seed", "show_flows", "partition", "colour", "transport")),
    "partitions": ((), ("conf", "partitions")),
    "reach": (("src",), ("to",)),
    "latency": (("src", "dst"), ("bytes",)),
    "layers": ((), ("engine",)),
    "path_lengths": (("engines",), ()),
    "pfc_deadlock": ((), ("fail", "routing")),
    "pfc_run": ((), ("cc", "dcqcn", "duration_ms", "watchdog_us", "watchdog_action")),
    "headroom": (("ports",), ("method",)),
    "roce_run": (("workload",), ("cc", "dcqcn", "duration_ms", "seed", "show_flows", "colour")),
    "collective": ((), ("op", "algo", "sizes", "gpus", "versus", "at")),
    "whatif": (("fail",), ("metric", "trials", "seed", "worst")),
    "compare": (("what",), ("engines", "routings", "techs", "src", "dst", "workload", "model", "over", "seed",
                                  "bytes")),
}
COMPARE = ("engines", "routings", "techs")
STEP_KEYS = ("action", "title", "say", "fabric")          # every step's fields besides its action's


@dataclass(frozen=True)
class Step:
    action: str
    title: str
    say: str
    params: dict[str, Any]
    fabric: dict[str, Any] | None = None   # the step's own fabric (it and later steps run on it)


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
        return build_spec(self.fabric, self.path, tech)


# ------------------------------------------------------------------ loading
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
    fab: Any = data.get("fabric")      # JSON, checked here
    check_fabric_spec(fab, where)
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
    extra = sorted(set(s) - set(need) - set(opt) - set(STEP_KEYS))
    if extra:
        raise _fail(where, f"{at}.{extra[0]}", f"not a field of action {action!r}")
    if "fabric" in s:
        check_fabric_spec(s["fabric"], where, f"{at}.fabric")
    params = {k: v for k, v in s.items() if k not in STEP_KEYS}
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
    if action == "path_lengths" and not (isinstance(params["engines"], list) and len(params["engines"]) >= 2
                                         and all(e in ENGINES for e in params["engines"])):
        raise _fail(where, f"{at}.engines", f"list at least two engines of {', '.join(ENGINES)}")
    if action == "partitions" and ("conf" in params) == ("partitions" in params):
        raise _fail(where, f"{at}.conf", "give either conf (partitions.conf text) or partitions (a list)")
    if action == "headroom" and not (isinstance(params["ports"], list) and params["ports"]
                                     and all(isinstance(x, str) for x in params["ports"])):
        raise _fail(where, f"{at}.ports", "a list of switch ports (\"leaf01:5\"), the first one's switch shown")
    if action in ("simulate", "roce_run"):
        wl = params["workload"]
        if not (isinstance(wl, str) or (isinstance(wl, list) and wl and all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in wl))):
            raise _fail(where, f"{at}.workload", "a workload spec (\"permutation\") or a list of [src, dst] pairs")
    if action in ("collective", "whatif"):       # checked by the module that runs them
        import importlib
        importlib.import_module(f".lesson_{action}", __package__).check_params(params, where, at)
    return Step(action, s["title"], s["say"], params, s.get("fabric"))


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
def run_lesson(lesson: Lesson, until: int | None = None) -> list[StepResult]:
    """Run steps 1..``until`` (all when None) and return their narration and numbers."""
    n = len(lesson.steps)
    stop = n if until is None else until
    if not 1 <= stop <= n:
        raise FabricError(f"{lesson.path}: step {until}: the lesson has steps 1..{n}")
    run = Run(lesson)
    out = []
    for i, step in enumerate(lesson.steps[:stop], 1):
        where = f"{lesson.path}: steps[{i - 1}] ({step.action})"
        if step.fabric is not None:                  # the step's own fabric, from here on
            run.use_fabric(build_spec(step.fabric, f"{lesson.path}: steps[{i - 1}]"))
        try:
            lines, fields = ACTION_RUNNERS[step.action](run, step.params)
        except FabricError as e:
            raise FabricError(f"{where}: {e}") from None
        out.append(StepResult(i, step.action, step.title, step.say, tuple(lines), run.fabric, **fields))
    return out


def final_fabric(results: list[StepResult]) -> Fabric:
    """The fabric as the last step left it (cables pulled or moved), for pictures.

    Every step's ``fabric`` is the fabric as that step left it: a step that
    pulls or moves a cable works on a copy, so earlier steps keep theirs.
    """
    return results[-1].fabric


def resolve_until(lesson: Lesson, text: str | None) -> int | None:
    """``--until``: a step number (1-based), a step title's start, or "end"."""
    if text is None or text == "end":
        return None
    if is_digits(text):
        return int(text)
    for i, s in enumerate(lesson.steps, 1):
        if s.title.lower().startswith(text.lower()):
            return i
    raise FabricError(f"step {text}: no step {text!r} in {lesson.name} (use 1..{len(lesson.steps)} or end)")


__all__ = ["ACTIONS", "LESSON_DIR", "Lesson", "Step", "StepResult", "build_spec", "bundled", "final_fabric",
           "find_lesson", "load_lesson", "parse_lesson", "resolve_until", "run_lesson", "uplink_balance"]
