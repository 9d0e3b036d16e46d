"""The Subnet Manager dock's "Pull cable" as a what-if on the demo fabric (16 nodes, 4 leaves, 4 spines),
"Apply to design" as one undo step, the dock's claim on the canvas, and the inspector following the
sweep's step.

Expected LFTs and paths come from the engine: ``route(copy without the cable, previous=...)`` and
``trace``; expected inspector texts from the timeline's own per-step state.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

from fabricviz.ib.lft_diff import lft_changes
from fabricviz.ib.routing import route
from fabricviz.ib.trace import path_cables, trace
from fabricviz.ui.canvas.items.cables import cable_anchors

WAIT = 60_000                # a generous deadline: only a hang waits this long
LEFT = QtCore.Qt.MouseButton.LeftButton


@pytest.fixture
def dock(sweep_window):
    return sweep_window


def _trace(qtbot, d, src="node01", dst="node16"):
    d.src_edit.setText(src)
    d.dst_edit.setText(dst)
    qtbot.mouseClick(d.trace_button, LEFT)


def test_pull_is_a_what_if_and_put_back_shows_the_designs_sweep(dock, qtbot):
    w, d = dock
    f = w.editor.fabric
    doc, stack = w.document, w.editor.stack
    _trace(qtbot, d)
    before = d.overlay.drawn["trace"].tolist()
    real_tl, real_routing = d.timeline, d.routing
    uplink = before[1]                                        # leaf01 → spine, the path's first uplink
    leaf_port = f.port(f"{d.tools.trace_hops[0].switch}:{d.tools.trace_hops[0].out_port}")
    label = f"{f.port_name(int(f.cables_t.port_a[uplink]))} ↔ {f.port_name(int(f.cables_t.port_b[uplink]))}"
    rev, n_cables = doc.revision, len(f.cable_ids())
    assert stack.isClean() and not d.apply_button.isEnabled() and not d.back_button.isEnabled()
    w.scene.set_selected_cables({uplink})
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        qtbot.mouseClick(d.pull_button, LEFT)
    # the design is untouched: no undo step, still clean, same revision, the cable is there
    assert stack.count() == 0 and stack.isClean() and doc.revision == rev
    assert f.cables_t.exists(uplink) and len(f.cable_ids()) == n_cables
    assert not w.isWindowModified()
    # the sweep is the re-sweep of the copy: Trap 128 from the leaf's end, LIDs kept
    copy = d.tools.whatif.fabric
    assert copy is d.timeline.fabric and copy is not f and not copy.cables_t.exists(uplink)
    assert d.timeline.events[0].kind == "trap" and d.index == 0
    assert d.timeline.events[0].text.startswith(f"Trap 128 (link state change) from {leaf_port.name}")
    ref_copy = f.copy()
    ref_copy.remove_cables([uplink])
    ref = route(ref_copy, "minhop", previous=real_routing)
    assert np.array_equal(d.timeline.sweep.routing.lft, ref.lft)
    assert d.routing.lids.ca_lid.tolist() == real_routing.lids.ca_lid.tolist()
    n, sws = lft_changes(ref, real_routing)
    assert (n, sws) == (18, 8)
    assert f"{n:,} LFT entries changed on {sws} switch(es)" in d.facts.text()
    assert f"what-if: {label} pulled on a copy" in d.facts.text() and "Trap 128" in d.narration_text()
    # the pulled cable is a dashed ghost on the real canvas; the path moved off it, as the engine traces it
    ghost = d.overlay.items["ghost"]
    assert d.overlay.drawn["ghost"].tolist() == [uplink] and ghost.scene() is w.scene
    assert ghost.pen().style() == QtCore.Qt.PenStyle.DashLine
    gp = ghost.path()                # along the cable's route, from port to port
    ends = cable_anchors(w.editor.fabric, np.array([uplink]))
    first, last = gp.elementAt(0), gp.elementAt(gp.elementCount() - 1)
    assert {(round(first.x, 3), round(first.y, 3)), (round(last.x, 3), round(last.y, 3))} == \
        {(round(float(ends[0][0]), 3), round(float(ends[1][0]), 3)), (round(float(ends[2][0]), 3), round(float(ends[3][0]), 3))}
    after = list(path_cables(ref, trace(ref, "node01", "node16")))
    assert uplink not in after and d.overlay.drawn["trace"].tolist() == after
    assert d.apply_button.isEnabled() and d.back_button.isEnabled() and not d.pull_button.isEnabled()
    # nothing else saw a design change: the shared routing is still the design's
    assert doc.routing.get("lft:sweep") is real_routing
    # put back: the design's own sweep again, no ghost, the path back on the uplink
    qtbot.mouseClick(d.back_button, LEFT)
    assert d.tools.whatif is None and d.timeline is real_tl and d.routing is real_routing
    assert d.timeline.fabric is f and d.timeline.events[0].kind != "trap"
    assert not len(d.overlay.drawn["ghost"]) and d.overlay.items["ghost"].path().elementCount() == 0
    assert d.overlay.drawn["trace"].tolist() == before
    assert stack.count() == 0 and doc.revision == rev and d.pull_button.isEnabled()
    assert not d.back_button.isEnabled() and not d.apply_button.isEnabled()


def test_apply_to_design_is_one_undo_step_and_undo_restores_the_cable(dock, qtbot):
    w, d = dock
    f = w.editor.fabric
    stack = w.editor.stack
    c = f.port("leaf01:5").cable.id
    a, b = f.cable(c).port_a.name, f.cable(c).port_b.name
    real_routing = d.routing
    w.scene.set_selected_cables({c})
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.tools.pull_cable()
    whatif_lft = d.timeline.sweep.routing.lft.copy()
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        qtbot.mouseClick(d.apply_button, LEFT)
    assert stack.count() == 1 and stack.undoText() == f"Pull cable {a} ↔ {b}" and not stack.isClean()
    assert not f.cables_t.exists(c) and d.tools.whatif is None
    # the design's own re-sweep: Trap 128, the same LFTs as the what-if, shared with the inspector
    assert d.timeline.fabric is f and d.timeline.events[0].kind == "trap"
    assert np.array_equal(d.routing.lft, whatif_lft)
    assert np.array_equal(d.routing.lft, route(f, "minhop", previous=real_routing).lft)
    assert w.document.routing.get("lft:sweep") is d.routing
    assert not len(d.overlay.drawn.get("ghost", [])) and d.back_button.isEnabled()
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        stack.undo()
    assert f.cables_t.exists(c) and f.port("leaf01:5").cable.id == c
    assert "port came up" in d.timeline.events[0].text and not d.back_button.isEnabled()


def test_an_edit_during_a_what_if_ends_it(dock, qtbot):
    w, d = dock
    f = w.editor.fabric
    c = f.port("leaf02:5").cable.id
    w.scene.set_selected_cables({c})
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.tools.pull_cable()
    other = f.port("leaf03:5").cable.id
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        assert w.editor.remove([], [other])
    assert d.tools.whatif is None and f.cables_t.exists(c) and not f.cables_t.exists(other)
    assert d.timeline.fabric is f and f.port_name(int(d.timeline.events[0].ports[0])) in ("leaf03:5",)
    assert not len(d.overlay.drawn["ghost"])


def test_the_sweep_owns_the_canvas_and_gives_it_up(dock, qtbot):
    w, d = dock
    session = w.document.session
    assert session.overlay == "sweep"
    _trace(qtbot, d)
    w.scene.set_selected_cables({d.overlay.drawn["trace"].tolist()[1]})
    with qtbot.waitSignal(d.ready, timeout=WAIT):
        d.tools.pull_cable()
    assert session.overlay == "sweep"
    items = list(d.overlay.items.values())
    trace_item = d.overlay.items["trace"]
    assert trace_item.scene() is w.scene and trace_item.path().elementCount() > 0
    assert d.overlay.items["ghost"].scene() is w.scene
    session.claim("traffic")
    assert trace_item.scene() is None and all(i.scene() is None for i in items)
    assert not d.overlay.active
    assert not [i for i in w.scene.items() if i.data(2) == "sweep_overlay"]
    # stepping the sweep again takes the canvas back, with the path and the ghost
    d.player.step()
    assert session.overlay == "sweep" and d.overlay.active
    assert d.overlay.items["trace"].path().elementCount() > 0 and len(d.overlay.drawn["ghost"]) == 1
    d.hide()
    assert session.overlay == "" and not d.overlay.active


def _lft_title(insp):
    return insp.lft_title.text()


def test_the_inspector_follows_the_sweeps_step(dock, qtbot):
    from fabricviz.ui.docks.inspector import C_LID, C_PORT, C_STATE
    w, d = dock
    insp, f = w.inspector, w.editor.fabric
    tl = d.timeline
    r = route(f)
    s = r.subnet.sw_index[f.find("spine02")]
    assert int(r.lids.sw_lid[s]) == 12
    # a middle step: discovery done, the SM's own LID and a few LIDs given, spine02 not yet
    lid_steps = [i for i, e in enumerate(tl.events) if e.kind == "lid"]
    spine02 = f.find("spine02")
    own = [i for i in lid_steps if spine02 in tl.events[i].devices][0]
    mid = own - 1
    assert tl.events[mid].kind == "lid" and tl.events[mid].phase == "lids"
    w.scene.select_devices([spine02])
    qtbot.waitUntil(lambda: insp.device == spine02, timeout=WAIT)
    d.show_step(mid)
    insp.refresh()
    assert insp.sweep is not None and insp.sweep.index == mid
    assert insp.lid.text() == "— (not assigned yet)"
    t = insp.ports
    rows = {t.item(i, C_PORT).text(): i for i in range(t.rowCount())}
    assert {t.item(i, C_LID).text() for i in range(t.rowCount())} == {"— (not assigned yet)"}
    assert t.item(rows["spine02:1"], C_STATE).text() == "INIT"          # read by discovery, not yet ARMED
    assert _lft_title(insp) == ("<b>LFT</b> — not yet pushed (the SM sends LFT blocks after routing), "
                                "from the Subnet Manager sweep (minhop)")
    assert not insp.lft.isVisible() and insp.lft_model.rowCount() == 0
    # its own LID step: now it has LID 12
    d.show_step(own)
    insp.refresh()
    assert insp.lid.text() == "12" and t.item(rows["spine02:1"], C_LID).text() == "12"
    # the first step: nothing known yet
    d.show_step(0)
    insp.refresh()
    assert t.item(rows["spine02:1"], C_STATE).text() == "— (not discovered yet)"
    assert t.item(rows["spine02:1"], C_LID).text() == "— (not assigned yet)"
    # the end: ACTIVE, LID 12, and the same LFT rows as the engine's
    d.show_step(len(tl) - 1)
    insp.refresh()
    assert insp.lid.text() == "12" and t.item(rows["spine02:1"], C_STATE).text() == "ACTIVE"
    assert _lft_title(insp) == "<b>LFT</b> — 24 routed LIDs, from the Subnet Manager sweep (minhop)"
    assert insp.lft_model.rowCount() == 24
    # the dock hidden: the design's own LIDs and states again
    d.hide()
    insp.refresh()
    assert insp.sweep is None and insp.lid.text() == "12"
    assert t.item(rows["spine02:1"], C_STATE).text() == "init"


def test_the_inspector_lft_fills_block_by_block_on_a_bigger_tree(make_window, qtbot):
    """A k=8 fat tree has more than 64 LIDs: at the step after LFT block 0, a switch holds only
    the LIDs 0..63, the final table only at the end."""
    from fabricviz.generate import k_ary_fat_tree
    w = make_window()
    d, insp = w.sweep_dock, w.inspector
    w.apply_generated(k_ary_fat_tree(8))
    with qtbot.waitSignal(d.ready, timeout=30_000):
        w.findChild(type(w.acts["fit"]), "action_sweep").trigger()
    f, tl = w.editor.fabric, d.timeline
    blocks = [i for i, e in enumerate(tl.events) if e.kind == "lft_block"]
    assert len(blocks) == 4                         # 208 LIDs (128 HCAs, 80 switches): 0-63 … 192-255
    leaf = int(f.device_ids("ib_switch")[0])
    w.scene.select_devices([leaf])
    qtbot.waitUntil(lambda: insp.device == leaf, timeout=WAIT)
    r = d.routing
    row = r.lft[r.subnet.sw_index[leaf]]
    all_lids = [int(x) for x in np.flatnonzero(row != 255)]
    d.show_step(blocks[0])
    insp.refresh()
    first = [x for x in all_lids if x <= 63]
    assert _lft_title(insp) == (f"<b>LFT</b> — {len(first)} routed LIDs in 1 of 4 block(s) pushed so far, "
                                "from the Subnet Manager sweep (minhop)")
    m = insp.lft_model
    assert [int(m.lids[k]) for k in range(m.rowCount())] == first
    d.show_step(len(tl) - 1)
    insp.refresh()
    assert [int(m.lids[k]) for k in range(m.rowCount())] == all_lids
    assert _lft_title(insp) == f"<b>LFT</b> — {len(all_lids)} routed LIDs, from the Subnet Manager sweep (minhop)"
