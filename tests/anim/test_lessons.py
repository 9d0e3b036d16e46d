"""Classroom lessons: every bundled lesson runs to its end on the real engines, the numbers in
the narration are the engines' numbers, bad lessons give one line, and ``fabricviz demo``."""

import json
from dataclasses import FrozenInstanceError

import pytest

from fabricviz.anim.lesson_results import CableChange, StepResult, SweepPlay, TracedPath
from fabricviz.anim.lessons import (
    bundled,
    final_fabric,
    find_lesson,
    load_lesson,
    parse_lesson,
    resolve_until,
    run_lesson,
)
from fabricviz.anim.sweep_timeline import narrate
from fabricviz.cli import main
from fabricviz.generate import fat_tree
from fabricviz.ib.sweep import heavy_sweep
from fabricviz.model import FabricError
from tests.anim.lesson_runs import ENGINE_RUNS, shared_run


@pytest.fixture(scope="module")
def runs():
    """(lesson, results) of every bundled lesson, by number: run once for the whole session."""
    return {num: (les := load_lesson(p, num), shared_run(les)) for num, _name, p in bundled()}


@pytest.mark.slow
def test_shared_runs_are_the_engines_results_computed_once(runs):
    les, res = runs[3]
    assert shared_run(find_lesson("credit-loop")) is res            # the same results, no second run
    assert ENGINE_RUNS.count("credit-loop") == 1
    fresh = run_lesson(les)                                          # what the engines give now
    assert [(r.index, r.title, r.lines) for r in fresh] == [(r.index, r.title, r.lines) for r in res]


def _step(runs, num, title):
    les, res = runs[num]
    return next(r for r in res if r.title == title)


@pytest.mark.slow
def test_every_bundled_lesson_loads_and_runs_to_its_end(runs):
    assert sorted(runs) == list(range(1, 13))
    for num, (les, res) in runs.items():
        assert [r.index for r in res] == list(range(1, len(les.steps) + 1))
        assert all(r.lines and r.say for r in res), f"lesson {num}: a step printed nothing"
        assert res[-1].fabric is not None


@pytest.mark.slow
def test_lesson1_sm_bringup_numbers_are_the_sweeps(runs):
    events = heavy_sweep(fat_tree(levels=2, radix=8, hosts=16), "minhop").events
    ref, last_wave = events[-1], [e for e in events if e.kind == "wave"][-1]
    up = _step(runs, 1, "Link manager and SUBNET UP")
    assert up.lines[-1] == f"SUBNET UP after {ref.data['smps']:,} SMPs and {ref.data['t_us'] / 1000:.3f} ms"
    # 16 host ports + 4 leaves × 8 + 4 spines × 4 ports, all ACTIVE
    assert up.counts.up and up.counts.active_ports == 64
    disc = _step(runs, 1, "Discovery")
    assert disc.counts.discovered == 8 + 16 and not disc.counts.up
    assert disc.lines[-2] == narrate(last_wave)
    assert disc.lines[-2].startswith("Discovery wave 4: 8 switches and 16 CAs found, ")
    pull = _step(runs, 1, "Pull a cable")
    assert pull.lines[-1].startswith("SUBNET UP after ")            # the lesson ends with SUBNET UP
    assert runs[1][1][-1].lines[-1].startswith("SUBNET UP")
    assert "Trap 128" in pull.lines[1] and "leaf01:8" in pull.lines[1]
    assert pull.moved is True and "path before: leaf01 -> spine04 -> leaf04" in pull.lines
    assert not any("spine04" in ln for ln in pull.lines if ln.startswith("path after"))


@pytest.mark.slow
def test_lesson2_ftree_refuses_the_miswired_tree(runs):
    healthy = _step(runs, 2, "Three engines, one tree")
    assert [healthy.routes[e].routed_by for e in ("minhop", "updn", "ftree")] == ["minhop", "updn", "ftree"]
    refused = _step(runs, 2, "ftree refuses")
    assert refused.route.routed_by == "minhop"
    assert refused.route.fallback_reason.startswith(
        "ftree: ERR AB09: Different number of upward port groups on switches")
    assert "(leaf01)" in refused.route.fallback_reason
    assert f"refused: {refused.route.fallback_reason}" in refused.lines
    assert _step(runs, 2, "updn still routes").route.routed_by == "updn"


@pytest.mark.slow
def test_lesson3_credit_loop_with_minhop_none_with_updn_root(runs):
    loops = _step(runs, 3, "The channel dependency graph")
    assert loops.route.routed_by == "minhop" and loops.loops == 2   # one per direction
    assert loops.lines[-1] == "2 credit loop(s) on VL0 (minhop, 1 VL)"
    auto = _step(runs, 3, "updn needs a root")
    assert auto.route.routed_by == "minhop"
    assert auto.route.fallback_reason.startswith("updn: no root switches found")
    fixed = _step(runs, 3, "No cycle left")
    assert fixed.route.routed_by == "updn" and fixed.route.roots == ("sw0",)
    assert fixed.loops == 0 and fixed.loop_cables == () and fixed.lines[-1] == "no credit loops on any VL (updn, 1 VL)"


@pytest.mark.slow
def test_lesson4_ecmp_collides_spray_does_not(runs):
    side = _step(runs, 4, "Side by side")
    assert side.traffic_by["ecmp"].summary["rate_share"]["min"] < 0.5
    for mode in ("spray", "adaptive"):
        assert side.traffic_by[mode].summary["rate_share"]["min"] == pytest.approx(1.0)


@pytest.mark.slow
def test_lesson5_pfc_victim_then_dcqcn(runs):
    C, N = 40.0, 3
    ideal = _step(runs, 5, "What it should get").traffic.flows[-1]
    assert ideal.dst == "r2" and ideal.gbps == pytest.approx(C - C / (N + 1))
    pfc = _step(runs, 5, "PFC alone: the victim").traffic
    assert pfc.flows[-1].gbps == pytest.approx(C / (N + 1), rel=0.03)      # the victim
    assert pfc.summary["paused_link_count"] == 6
    dcqcn = _step(runs, 5, "DCQCN").traffic
    assert dcqcn.flows[-1].gbps > 0.9 * (C - C / (N + 1))
    assert dcqcn.summary["paused_link_count"] == 0 and dcqcn.paused_cables == ()


@pytest.mark.slow
def test_lesson6_latency_components_add_up(runs):
    step = _step(runs, 6, "The same path on RoCE")
    ib, roce = step.latency_by["ib"], step.latency_by["roce"]
    for c in (ib, roce):
        assert c.switches == 3
        assert c.total == pytest.approx(c.switch + c.propagation + c.serialization + c.nic)
    assert ib.serialization == pytest.approx(roce.serialization)
    assert roce.total > ib.total
    assert step.lines[-1].startswith(f"difference roce - ib: +{roce.total - ib.total:.1f} ns")
    first = _step(runs, 6, "GPU to GPU across the tree")
    assert first.latency.total == pytest.approx(ib.total)


@pytest.mark.slow
def test_lesson5_the_pfc_step_names_every_cable_the_run_paused(runs):
    les, res = runs[5]
    pfc = res[1].traffic
    f = res[1].fabric
    want = sorted(int(f.port(p).cable.id) for p in ("s1:1", "h1:1", "h2:1", "h3:1", "a:1", "v:1"))
    assert pfc.paused_cables == tuple(want) and len(want) == 6        # s1 -> s2 among them
    assert "paused links: 6 (5 most paused shown):" in res[1].lines
    assert res[0].traffic.paused_cables == () and res[0].traffic.model == "maxmin"
    assert (pfc.model, pfc.workload, pfc.routing, pfc.duration_ms, pfc.seed) == ("fluid", "", None, 6.0, 0)
    assert pfc.pairs == (("h1", "r"), ("h2", "r"), ("h3", "r"), ("a", "r"), ("v", "r2"))


@pytest.mark.slow
def test_step_results_are_typed_frozen_data(runs):
    les, res = runs[1]
    assert all(isinstance(r, StepResult) and isinstance(r.lines, tuple) for r in res)
    with pytest.raises(FrozenInstanceError):
        res[0].lines = ()                                                  # type: ignore[misc]
    plays = [r.sweep for r in res[:5]]
    assert all(isinstance(p, SweepPlay) and p.timeline is plays[0].timeline for p in plays)
    assert plays[0].first == 0 and [p.first for p in plays[1:]] == [p.last + 1 for p in plays[:-1]]
    trace, pull = res[5], res[6]
    assert trace.paths == (TracedPath("node01 → node16", trace.paths[0].cables, trace.paths[0].hops, True),)
    assert trace.trace_ok is True and trace.sweep is None and trace.traffic is None and trace.change is None
    assert isinstance(pull.change, CableChange) and pull.change.before is trace.fabric
    assert pull.change.removed == (int(trace.fabric.port("leaf01:8").cable.id),) and pull.change.added is None
    assert pull.sweep.first == 0 and pull.sweep.last == len(pull.sweep.timeline) - 1
    assert pull.old_path.cables == trace.paths[0].cables and pull.old_path.label == "node01 → node16 (before)"
    assert final_fabric(res) is pull.fabric and pull.fabric.port("leaf01:8").cable is None
    les2, res2 = runs[2]
    rewire = res2[1]
    assert len(rewire.change.removed) == 2 and rewire.fabric.cables_t.exists(rewire.change.added)
    assert not any(rewire.fabric.cables_t.exists(c) for c in rewire.change.removed)


@pytest.mark.slow
def test_until_stops_after_the_step(runs):
    les = find_lesson("sm-bringup")
    assert find_lesson("1").path == les.path
    assert resolve_until(les, "end") is None and resolve_until(les, "lid") == 2
    res = run_lesson(les, until=2)
    assert len(res) == 2 and res[-1].lines[-1].endswith("LID ASSIGNMENT COMPLETE - STARTING SWITCH TABLE CONFIG")
    with pytest.raises(FabricError, match=r"step 8: the lesson has steps 1\.\.7"):
        run_lesson(les, until=8)


def _lesson(**over):
    d = {"format": "fabricviz-lesson", "version": 1, "name": "t", "title": "T",
         "fabric": {"generator": "fat_tree", "args": {"levels": 2, "radix": 8, "hosts": 8}},
         "steps": [{"action": "route", "title": "r", "say": "s"}]}
    d.update(over)
    return d


@pytest.mark.parametrize("over,msg", [
    ({"steps": [{"action": "teleport", "title": "x", "say": "y"}]}, "t.json: steps[0].action: unknown action 'teleport'"),
    ({"steps": [{"action": "trace", "title": "x", "say": "y", "src": "a"}]}, "t.json: steps[0].dst: required"),
    ({"steps": [{"action": "sweep", "title": "x", "say": "y", "until": "dawn"}]}, "t.json: steps[0].until: unknown sweep"),
    ({"steps": [{"action": "route", "title": "x", "say": "y", "colour": 1}]}, "t.json: steps[0].colour: not a field"),
    ({"fabric": {"generator": "hypercube"}}, "t.json: fabric.generator: unknown generator 'hypercube'"),
    ({"steps": []}, "t.json: steps: missing or empty"),
    ({"format": "x"}, "t.json: format: must be"),
])
def test_bad_lessons_give_one_line_naming_file_and_field(over, msg):
    with pytest.raises(FabricError) as e:
        parse_lesson(_lesson(**over), "t.json")
    assert str(e.value).startswith(msg) and "\n" not in str(e.value)


def test_a_step_that_fails_names_file_and_step(tmp_path):
    p = tmp_path / "l.json"
    p.write_text(json.dumps(_lesson(steps=[{"action": "trace", "title": "x", "say": "y",
                                            "src": "node01", "dst": "nobody"}])))
    with pytest.raises(FabricError, match=r"l\.json: steps\[0\] \(trace\): "):
        run_lesson(load_lesson(p))
    p.write_text("{\n  oops")
    with pytest.raises(FabricError, match=r"l\.json: line 2: not valid JSON"):
        load_lesson(p)


def test_cli_demo_prints_the_narration(capsys, tmp_path):
    assert main(["demo", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Lesson 3: A credit loop on a ring")
    assert "  > 2 credit loop(s)" in out and out.rstrip().endswith("  > 4 switch hop(s)")
    p = tmp_path / "mine.json"
    p.write_text(json.dumps(_lesson()))
    assert main(["demo", str(p), "--until", "end"]) == 0
    assert "routed by minhop: LFTs for 6 switches, 14 LIDs" in capsys.readouterr().out
    assert main(["demo", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 12 and listed[0].startswith("1  sm-bringup")


def test_cli_demo_refuses_an_unknown_lesson(capsys):
    assert main(["demo", "no-such-lesson"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fabricviz: error: no-such-lesson: no such lesson") and err.count("\n") == 1
    assert main(["demo", "1", "--until", "nowhere"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.slow
def test_cli_demo_screenshot_saves_what_the_canvas_shows_at_that_step(capsys, tmp_path):
    pytest.importorskip("PySide6")
    out = tmp_path / "lesson2.png"
    assert main(["demo", "routing-engines", "--until", "2", "--screenshot", str(out), "--width", "600"]) == 0
    text = capsys.readouterr().out
    assert "  > cabled leaf01:8 to leaf04:8" in text and f"wrote {out}" in text
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PySide6 import QtGui

    from fabricviz.ui.canvas.overlays.lesson import ADDED_COLOR, GHOST_COLOR
    img = QtGui.QImage(str(out))        # what the canvas shows: the moved uplink, highlighted
    colours = {img.pixel(x, y) for x in range(0, img.width() - 240, 2) for y in range(40, img.height(), 2)}
    assert img.width() == 600
    assert QtGui.QColor(ADDED_COLOR).rgb() in colours and QtGui.QColor(GHOST_COLOR).rgb() in colours
    assert main(["demo", "2", "--screenshot", str(tmp_path / "x.jpg")]) == 2
    assert "--screenshot" in capsys.readouterr().err


@pytest.mark.slow
def test_cli_demo_screenshot_of_a_traffic_step(capsys, tmp_path):
    """A traffic step opens the Charts dock in the (never shown) window of the screenshot child:
    sizing that dock there broke Qt's dock layout and the child died (signal 11) on closing."""
    pytest.importorskip("PySide6")
    out = tmp_path / "lesson5.png"
    assert main(["demo", "5", "--until", "2", "--screenshot", str(out), "--width", "600"]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
