"""Lessons 11 (rails and all-reduce) and 12 (what a failed spine costs) on the stage.

Lesson 11: each collective step raises the Collectives dock with one curve per design whose y data
are the engine's busbw, and selects the cables of the slowest step's bottleneck of the design on the
canvas. Lesson 12: what-if steps raise the What-if dock with the engine's degradation curve; the
worst step draws the worst single failure's cables dashed and names it. The numbers the lessons'
text quotes are the engines'."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.anim.lesson_collective import size_text
from fabricviz.anim.lesson_whatif import median_relative
from fabricviz.anim.lessons import bundled, find_lesson, parse_lesson
from fabricviz.model import FabricError
from fabricviz.sim.collective import IB_PACKET_OVERHEAD, Solver, collective, parse_sizes, slowest_step, wire_efficiency
from fabricviz.sim.whatif import ranked
from tests.anim.lesson_runs import shared_run
from tests.ui.canvas.test_near_routes import crossings, device_rects_on_canvas, path_segments
from tests.ui.lesson_helpers import open_lesson

GIB8, MIB8 = 8.0 * 2 ** 30, 8.0 * 2 ** 20


@pytest.fixture(autouse=True)
def shared_lesson_runs(shared_runs):
    """The session's engine runs (no test here edits a lesson's fabric)."""


def _go(dock, stage, k):
    dock.go(k)
    stage.finish()
    QtWidgets.QApplication.processEvents()
    return dock.results[k]


def _row(curve, size):
    return curve.row(size)


def test_the_lesson_list_shows_twelve_lessons(make_window):
    w = make_window()
    names = [a.text() for a in w.acts.menu("lessons").actions() if a.objectName().startswith("action_lesson_")
             and a.objectName()[len("action_lesson_"):].isdigit()]
    assert len(names) == len(bundled()) == 12
    assert names[10:] == ["11 · Rails and all-reduce", "12 · What a failed spine costs"]


def test_lesson_11_plots_both_designs_and_selects_the_bottleneck(qtbot, make_window):
    w = make_window()
    dock, stage = open_lesson(qtbot, w, 11)
    assert dock.error is None and len(dock.results) == 3
    cd = w.collectives_dock
    for k, (curves, design) in enumerate(((1, "rail-optimised SU"), (2, "plain leaf-spine 1:1"),
                                          (2, "plain leaf-spine 2:1"))):
        step = _go(dock, stage, k)
        assert w.editor.fabric is step.fabric and step.fabric.name == design
        assert cd.isVisible() and not cd.visibleRegion().isEmpty()
        assert len(cd.plot.curves) == len(step.collectives) == curves
        assert cd.plot.labels()[0].startswith(f"{design} · all-reduce ring")
        for item, c in zip(cd.plot.curves, step.collectives, strict=True):
            x, y = item.getData()
            assert np.array_equal(y, np.array(c.busbw)) and np.array_equal(x, np.log2(c.sizes))
        own = step.collectives[0]
        assert own.own and own.fabric is step.fabric and own.result.n == 64 and own.result.channels == 8
        neck = own.bottleneck
        # several hops tie (every ring hop at one rate): only the hop the dock names is drawn and
        # selected, and the band says how many tie
        tied = len(neck.src) > 1 and len(neck.named_cables) > 0
        shown = neck.named_cables if tied else neck.cables
        assert w.scene.selected_cables == {int(c) for c in shown}
        band = [it for it in w.scene.items() if it.data(2) == "lesson_bottleneck"]    # pictures keep it
        # NVLink-bound (the 1:1 designs: 18 × 20.6 GB/s a GPU) there is no cable to draw
        assert len(band) == (1 if len(neck.cables) else 0) == (0 if neck.nvlink else 1)
        assert stage.docks.neck_cables == tuple(int(c) for c in shown)
        if band:
            assert tied and len(neck.src) == 64 and len(shown) == 2 < len(neck.cables) == 32
            # along the cables' routes (at right angles), not straight across the canvas
            seg = path_segments(band[0].path())
            assert seg.shape[1] > len(shown) and ((seg[0] == seg[2]) | (seg[1] == seg[3])).all()
            assert crossings(seg, device_rects_on_canvas(w.scene)) == 0
            assert stage.legend_rows()[-1][0] == \
                f"slowest step's bottleneck at {neck.rate_gbps:g} Gb/s per ring hop (1 of 64 tied hops)"
        assert cd.table_rows()[-1][3] == f"{own.result.rows[-1].busbw:.2f}"
        assert (cd.sizes_edit.text(), cd.op_box.currentData(), cd.algo_box.currentData()) == (
            "8B:8GiB:x2", "allreduce", "ring")           # the controls say what ran (Run repeats it)
        if curves == 2:
            assert cd.plot.labels()[1].startswith("rail-optimised SU · ") and not step.collectives[1].own
    # the engine's numbers, run again here: same curve, same bottleneck
    f = step.fabric
    solver = Solver(f, None, None, 0)
    res = collective(f, "allreduce", parse_sizes("8B:8GiB:x2"), "ring", "all", solver=solver)
    assert tuple(r.busbw for r in res.rows) == step.collectives[0].busbw
    neck = slowest_step(f, res, solver)
    assert np.array_equal(neck.cables, step.collectives[0].bottleneck.cables)
    # 2:1: the bottleneck is the 32 leaf-to-spine uplinks, each ring hop at half its NIC's rate
    t, pt, ct = f.devices_t, f.ports_t, f.cables_t
    tiers = {(int(t.tier[pt.device[ct.port_a[c]]]), int(t.tier[pt.device[ct.port_b[c]]])) for c in neck.cables}
    assert len(neck.cables) == 32 and tiers == {(1, 2)} and neck.rate_gbps == 200.0
    dock.go(0)
    assert len(cd.plot.curves) == 1 and w.scene.selected_cables == {
        int(c) for c in dock.results[0].collectives[0].bottleneck.cables} == set()


def test_lesson_11_text_quotes_the_engines_numbers():
    lesson = find_lesson("11")
    res = shared_run(lesson)
    rail = res[0].collectives[0]
    plain, rail2 = res[1].collectives
    over, _ = res[2].collectives
    say = [s.say for s in lesson.steps]
    assert rail2.busbw == rail.busbw
    big = _row(rail, GIB8).busbw
    assert f"{big:.2f} GB/s at 8 GiB" in say[0]
    nic = 400 / 8 * wire_efficiency("ib")                          # GB/s of payload per NIC
    assert (f"400 Gb/s on the wire, {nic:.2f} GB/s of payload once each 4 KiB "
            f"packet's {IB_PACKET_OVERHEAD} bytes of headers ride along, so a server's eight NICs move at most "
            f"{8 * nic:.2f} GB/s") in say[0]
    nvlink = 18 * 20.6                                              # GB/s: NCCL's usable H100 NVLink
    assert f"(20.6 GB/s each, {nvlink:.1f} GB/s)" in say[0]
    assert nvlink * 0.99 < big < nvlink < rail.result.channels * nic
    assert rail.bottleneck.nvlink and rail.bottleneck.rate_gbps == pytest.approx(nvlink * 8)
    assert len(rail.bottleneck.cables) == 0
    assert f"{_row(plain, GIB8).busbw:.2f} GB/s at 8 GiB against the rails' {big:.2f}" in say[1]
    assert f"{2 * (plain.result.n - 1)} steps" in say[1]
    assert (f"8 B all-reduce takes {_row(plain, 8).time_us:.1f} µs instead of {_row(rail, 8).time_us:.1f} µs"
            in say[1])
    assert f"at 8 MiB busbw is {_row(plain, MIB8).busbw:.2f} GB/s against {_row(rail, MIB8).busbw:.2f}" in say[1]
    assert f"each ring hop gets {over.bottleneck.rate_gbps:.0f} Gb/s" in say[2]
    assert f"falls to {_row(over, GIB8).busbw:.2f} GB/s, 0.54 of the rails' {big:.2f}" in say[2]
    assert round(_row(over, GIB8).busbw / big, 2) == 0.54
    assert res[2].lines[-1] == f"plain leaf-spine 2:1 / rail-optimised SU: busbw at {size_text(GIB8)} 0.54x, " \
                               "time at 8B 1.20x"


def test_lesson_12_plots_the_degradation_and_draws_the_worst_failure(qtbot, make_window):
    w = make_window()
    dock, stage = open_lesson(qtbot, w, 12)
    assert dock.error is None and len(dock.results) == 3
    wd = w.whatif_dock
    for k in (0, 1):
        step = _go(dock, stage, k)
        wi = step.whatif
        assert wd.isVisible() and wd.plot.mode == "per_k" and not wi.worst
        x, y = wd.plot.curve("median")
        assert list(x) == [r["k"] for r in wi.per_k] and list(y) == [r["relative"]["median"] for r in wi.per_k]
        assert len(wd.model.rows) == len(wi.results) == 20 * len(wi.per_k)
        assert wd.failed_cables.cables == [] and w.scene.selected_cables == set()
        assert (wd.kind_box.currentData(), wd.ks_edit.text(), wd.trials_box.value(), wd.worst_box.isChecked()) == (
            ("switches-of:spine", "1,2,3,4", 20, False) if k == 0 else ("links-of:leaf-spine", "1,2,4,8", 20, False))
        assert wd.kind_box.currentText() == ("spine switches" if k == 0 else "leaf-spine links")
    assert [wd.kind_box.itemText(i) for i in range(wd.kind_box.count())][2:4] == ["spine switches", "leaf switches"]
    assert [r["k"] for r in dock.results[0].whatif.per_k] == [1, 2, 3, 4]
    assert set(dock.results[0].whatif.shared.names) == {"spine01", "spine02", "spine03", "spine04"}
    dock.go(0)
    assert wd.status.text() == "80 trials · spine switches · permutation, intact 300 Gb/s per flow"
    step = _go(dock, stage, 2)
    wi = step.whatif
    assert wd.worst_box.isChecked() and wd.kind_box.currentData() == "switches"
    top = ranked(wi.results)[0]
    assert not [it for it in w.scene.items() if it.data(2) == "lesson_bottleneck"]
    assert wd.plot.mode == "ranking" and wd.shown_row == 0 and wd.model.rows[0] == top == wi.ranked[0]
    cables = set(wi.cables)
    f = step.fabric
    spine = f.find(top.failed[0])
    assert cables == {int(c) for c in f.cable_ids() if spine in (
        int(f.ports_t.device[f.cables_t.port_a[c]]), int(f.ports_t.device[f.cables_t.port_b[c]]))}
    assert len(cables) == 8 and set(wd.failed_cables.cables) == cables == w.scene.selected_cables
    assert wd.failed_cables.item is not None and wd.failed_cables.item.scene() is w.scene
    assert wd.trial_line.text().startswith(f"#1: {top.failed[0]} down")
    assert f"worst: {top.failed[0]} down (drawn dashed); 3 more cost the same" in step.lines
    assert stage.legend_rows()[-1][0] == f"worst single failure: {top.failed[0]} down; 0 hosts cut off"
    w.action_presentation.trigger()              # presentation on this step: its plot stays shown
    QtWidgets.QApplication.processEvents()
    assert wd.isVisible() and not w.inspector.isVisible() and dock.isVisible()
    w.action_presentation.trigger()
    dock.go(1)                                   # leaving the worst step takes its marks off
    assert wd.failed_cables.cables == [] and w.scene.selected_cables == set()


def test_lesson_12_text_quotes_the_engines_numbers():
    lesson = find_lesson("12")
    res = shared_run(lesson)
    say = [s.say for s in lesson.steps]
    spines, cables, worst = (r.whatif for r in res)
    assert spines.shared.spec.label == "switches-of:spine:1,2,3,4" and "of" not in lesson.steps[0].params
    assert spines.what == "spine switches" and spines.shared.names == ("spine01", "spine02", "spine03", "spine04")
    med = median_relative(spines)
    assert f"intact design's {spines.shared.intact_gbps:.0f} Gb/s" in say[0]
    assert (f"falls to {med[1]:.3f} of intact" in say[0] and f"Two spines down give {med[2]:.3f}, three "
            f"{med[3]:.3f}" in say[0] and med[4] == 0.0)
    cut = {r["k"]: r["disconnected_hosts"]["max"] for r in spines.per_k}
    assert f"{cut[4]} of the 32 hosts are cut off" in say[0] and cut[1] == cut[2] == cut[3] == 0
    assert all(r["relative"]["min"] == r["relative"]["max"] for r in spines.per_k)     # symmetric
    one = cables.per_k[0]["relative"]
    assert (f"one cable gives a median of {one['median']:.3f} of intact, from {one['min']:.3f} to "
            f"{one['max']:.3f}" in say[1])
    assert f"eight give {median_relative(cables)[8]:.3f}" in say[1]
    order = worst.ranked
    assert len(order) == 12 and order[0].failed[0].startswith("spine") and len(order[0].disconnected) == 0
    assert f"it loses {1 - order[0].delivered:.0%} of the rate" in say[2]
    leaves = [r for r in order if r.failed[0].startswith("leaf")]
    assert all(len(r.disconnected) == 4 for r in leaves) and all(r.delivered > order[0].delivered for r in leaves)
    lost = sorted(1 - r.delivered for r in leaves)
    assert f"from {lost[0]:.0%} to {lost[-1]:.0%}" in say[2]
    assert [r.delivered for r in order[:4]] == [order[0].delivered] * 4       # every spine the same


@pytest.mark.parametrize("step, msg", [
    ({"action": "collective", "op": "allsum"}, r"steps\[0\]\.op: unknown op 'allsum'"),
    ({"action": "collective", "sizes": "8B:1KB:x1"}, r"steps\[0\]\.sizes: .*factor x1"),
    ({"action": "collective", "versus": {"generator": "mesh"}}, r"steps\[0\]\.versus\.generator: unknown"),
    ({"action": "whatif", "fail": "spines:1"}, r"steps\[0\]\.fail: "),
    ({"action": "whatif", "fail": "switches:1", "of": "spine"}, r"steps\[0\]\.of: not a field of action 'whatif'"),
    ({"action": "whatif", "fail": "switches-of:pod:1"}, r"steps\[0\]\.fail: fail 'switches-of:pod:1': unknown tier"),
    ({"action": "whatif", "fail": "switches:1", "trials": 0}, r"steps\[0\]\.trials: 0: a whole number"),
    ({"action": "route", "fabric": {"generator": "mesh"}}, r"steps\[0\]\.fabric\.generator: unknown generator"),
])
def test_bad_collective_and_whatif_steps_are_refused_in_one_line(step, msg):
    data = {"format": "fabricviz-lesson", "version": 1, "name": "x", "title": "x",
            "fabric": {"generator": "fat_tree", "args": {"levels": 2, "radix": 8}},
            "steps": [{"title": "t", "say": "s", **step}]}
    with pytest.raises(FabricError, match=msg):
        parse_lesson(data, "l.json")
