"""Lesson 8, "Deadlock on a torus": each step's results are the engines'.

The lesson's fabric: a 4×4 torus (generator ``torus``), one host per switch. minhop's shortest
paths, all on SL0 and so on VL0, close a credit loop; dfsssp routes the same fabric, puts
paths on several VLs and leaves no loop on any VL, with routes as long as minhop's.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from fabricviz import generate
from fabricviz.anim.lessons import find_lesson, parse_lesson
from fabricviz.cli import main
from fabricviz.ib.creditloops import check_credit_loops
from fabricviz.ib.routing import route
from fabricviz.ib.trace import trace
from fabricviz.ib.vl_layers import cable_vls, design_sl2vl, walk_vls
from fabricviz.model import FabricError
from tests.anim.lesson_runs import shared_run


@pytest.fixture(scope="module")
def lesson():
    les = find_lesson("8")
    return les, shared_run(les)


@pytest.fixture(scope="module")
def torus():
    """The lesson's fabric built here, and both engines' routings and credit checks of it."""
    f = generate.torus(dims=[4, 4], hosts_per_switch=1)
    out = {}
    for eng in ("minhop", "dfsssp"):
        r = route(f, eng)
        out[eng] = (r, check_credit_loops(r, sl2vl=design_sl2vl(r)))
    return f, out


def _step(res, title):
    return next(r for r in res if r.title == title)


def _loop_cables(f, loop):
    return tuple(int(f.ports_t.cable[f.port(ch).id]) for ch in loop.channels)


def test_the_lesson_loads_runs_and_its_text_has_no_numbers_of_its_own(lesson):
    les, res = lesson
    assert les.number == 8 and les.name == "torus-deadlock" and les.title == "Deadlock on a torus"
    assert les.fabric == {"generator": "torus", "args": {"dims": [4, 4], "hosts_per_switch": 1}}
    assert [r.action for r in res] == ["route", "check_loops", "layers", "check_loops", "path_lengths"]
    assert res[0].fabric.counts()["ib_switch"] == 16 and res[0].fabric.counts()["server"] == 16
    assert not re.search(r"\b\d", les.summary)
    for step in les.steps:
        assert not re.search(r"\b\d", step.say), step.title  # (SL2VL is a name)


def test_minhop_closes_a_credit_loop_on_vl0(lesson, torus):
    _les, res = lesson
    f, got = torus
    r, check = got["minhop"]
    assert check.loops and check.vls == (0,)                     # every path on VL0, and a loop there
    step = _step(res, "A credit loop")
    assert step.routing.routed_by == "minhop"
    assert step.loops == len(check.loops) and step.loop_vls == (0,) == check.loops[0].layer
    assert step.vls == (0,) and step.layers is None              # one VL: nothing layered to colour
    first = check.loops[0]
    assert step.loop_cables == _loop_cables(step.fabric, first) == _loop_cables(f, first)
    assert len(step.loop_cables) == len(first.channels) and all(c >= 0 for c in step.loop_cables)
    assert step.lines[-1] == check.summary() == f"{len(check.loops)} credit loop(s) on VL0 (minhop, 1 VL)"
    assert first.format().splitlines()[0] in step.lines and " on VL0: " in first.format()


def test_dfsssp_layers_are_the_engines_numbers(lesson, torus):
    _les, res = lesson
    _f, got = torus
    r, check = got["dfsssp"]
    info, psl = r.info, r.info.path_sl
    step = _step(res, "dfsssp: shortest paths on layers of VLs")
    m = step.layers
    assert step.routing.routed_by == m.engine == "dfsssp"
    assert m.vls_needed == info.vls_used == psl.vls_needed and m.vls_needed > 1
    assert m.vls_avail == info.vls_avail
    assert list(m.paths_per_vl) == list(info.paths_per_vl) and list(m.paths_after) == list(info.paths_after)
    assert dict(m.sl_paths) == psl.counts()
    # every routed LID pair is on one layer before balancing, and on one base SL after it
    assert sum(m.paths_per_vl) == sum(psl.counts().values()) == int(np.count_nonzero(psl.table != 255))
    w = walk_vls(r, sl2vl=design_sl2vl(r))
    cables, masks = cable_vls(r, w)
    assert m.cables == tuple(cables.tolist()) and m.masks == tuple(masks.tolist())
    assert m.vls == w.vls_used() == check.vls and len(m.vls) >= m.vls_needed
    s = r.subnet.fabric
    assert len(m.cables) == s.counts()["cables"]                 # every cable carries some path
    needed = f"dfsssp needed {m.vls_needed} VLs of {m.vls_avail} available"
    before = "paths per VL before balancing: " + ", ".join(
        f"VL{v} {n:,}" for v, n in enumerate(info.paths_per_vl) if n)
    after = "paths per SL after balancing (approx.): " + ", ".join(
        f"SL{v} {n:,}" for v, n in enumerate(info.paths_after) if n)
    assert needed in step.lines and before in step.lines and after in step.lines
    on = [f"VL{v} {sum(1 for x in masks.tolist() if x >> v & 1)}" for v in m.vls]
    assert any(ln.endswith(", ".join(on)) for ln in step.lines)


def test_no_credit_loop_on_any_vl_after_dfsssp(lesson, torus):
    _les, res = lesson
    _f, got = torus
    r, check = got["dfsssp"]
    assert check.loops == [] and check.layered
    step = _step(res, "No loop on any VL")
    assert step.routing.routed_by == "dfsssp" and step.loops == 0 and step.loop_cables == () and step.loop_vls == ()
    assert step.vls == check.vls and len(step.vls) > 1
    assert step.lines[-1] == check.summary() == f"no credit loops on any VL (dfsssp, {len(check.vls)} VLs)"
    assert step.layers is not None and step.layers.cables == _step(res, "dfsssp: shortest paths on layers of VLs"
                                                                   ).layers.cables


def test_dfsssp_routes_are_as_short_as_minhops_as_the_text_says(lesson, torus):
    _les, res = lesson
    f, got = torus
    hosts = [f"node{i:02d}" for i in range(1, 17)]
    step = _step(res, "What it cost")
    ln = step.lengths
    assert ln.engines == ("minhop", "dfsssp") and ln.routes == len(hosts) * (len(hosts) - 1)
    for eng in ln.engines:                # cables per route by the SM's own trace: switch hops + 1
        cables = np.array([len(trace(got[eng][0], a, b).hops) + 1 for a in hosts for b in hosts if a != b])
        assert ln.mean[eng] == pytest.approx(cables.mean()) and ln.longest[eng] == int(cables.max())
    assert ln.longer["dfsssp"] == 0 and ln.mean["dfsssp"] == ln.mean["minhop"]      # what the say claims
    assert step.lines[-1] == f"  dfsssp: mean {ln.mean['dfsssp']:.3f}, longest {ln.longest['dfsssp']}, " \
                             f"0 longer than minhop's"


def test_path_lengths_needs_two_known_engines():
    d = {"format": "fabricviz-lesson", "version": 1, "name": "t", "title": "T",
         "fabric": {"generator": "torus", "args": {"dims": [3]}},
         "steps": [{"action": "path_lengths", "engines": ["minhop"], "title": "x", "say": "y"}]}
    with pytest.raises(FabricError, match=r"t\.json: steps\[0\]\.engines: list at least two engines"):
        parse_lesson(d, "t.json")
    d["steps"][0]["engines"] = ["minhop", "warp"]
    with pytest.raises(FabricError, match=r"t\.json: steps\[0\]\.engines: "):
        parse_lesson(d, "t.json")


def test_cli_demo_8_runs_headless(capsys):
    assert main(["demo", "8"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Lesson 8: Deadlock on a torus")
    assert "credit loop(s) on VL0 (minhop, 1 VL)" in out and "  > no credit loops on any VL (dfsssp, " in out
    assert "  > dfsssp needed " in out
