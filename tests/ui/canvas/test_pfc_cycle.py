"""Design ▸ PFC Deadlock Check on a real window: the check runs in the job runner with the selected
cables as failed links and draws the cycle (leaf01 → spine01 → leaf02 → spine02 → leaf01 of the
4 × 3 leaf-spine with spine02–leaf03 and spine01–leaf04 down) through its cables, like the
sweep overlay's credit loop; an edit clears it."""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui, QtWidgets

from fabricviz.formats.native import save_fabric
from fabricviz.generate import leaf_spine
from fabricviz.ui.canvas.items.cables import cable_anchors
from fabricviz.ui.canvas.overlays.pfc_cycle import JOB, ROLE
from fabricviz.ui.canvas.overlays.sweep import LOOP_COLOR

CYCLE = ("leaf01:2 – spine01:1", "leaf02:2 – spine01:2", "leaf02:3 – spine02:2", "leaf01:3 – spine02:1")


def cycle_items(w):
    return [i for i in w.scene.items() if i.data(2) == ROLE]


def test_pfc_check_draws_the_cycle_of_the_selected_failures(make_window, qtbot, tmp_path):
    path = tmp_path / "ls.json"
    save_fabric(leaf_spine(4, 3, 1), path)
    w = make_window(str(path))
    f = w.document.fabric
    act = w.findChild(QtGui.QAction, "action_pfc_deadlock")
    design_menu = [m for m in w.menuBar().findChildren(QtWidgets.QMenu) if m.title() == "&Design"][0]
    assert act in design_menu.actions()

    act.trigger()                                     # healthy: nothing drawn
    assert w.document.jobs.wait(JOB, 10)
    qtbot.waitUntil(lambda: w.pfc_cycles.check is not None, timeout=60_000)
    assert cycle_items(w) == []
    assert w.statusBar().currentMessage().startswith("no cyclic buffer dependency on lossless priority 3")

    down = {int(f.ports_t.cable[f.port_id(p)]) for p in ("spine02:3", "spine01:4")}
    w.scene.set_selected_cables(down)
    act.trigger()
    assert w.document.jobs.wait(JOB, 10)
    qtbot.waitUntil(lambda: len(cycle_items(w)) == 1, timeout=60_000)
    (item,) = cycle_items(w)
    assert item.data(3) == "leaf01 → spine01 → leaf02 → spine02 → leaf01"
    assert item.pen().color().name() == LOOP_COLOR and item.pen().widthF() == 7.0
    labels = [f.cable(c).label for c in w.pfc_cycles.cycle_cables()[0]]
    assert labels == list(CYCLE)
    # the closed line runs through both ends of every cable of the cycle, in order
    cids = np.array([int(f.ports_t.cable[f.port_id(x.split(" – ")[0])]) for x in CYCLE])
    ax, ay, bx, by = cable_anchors(f, cids)
    p = item.path()
    pts = {(round(p.elementAt(i).x, 3), round(p.elementAt(i).y, 3)) for i in range(p.elementCount())}
    ends = {(round(x, 3), round(y, 3)) for x, y in zip(np.r_[ax, bx].tolist(), np.r_[ay, by].tolist(), strict=True)}
    assert ends <= pts and p.elementCount() == 2 * len(CYCLE) + 1      # + the closing point
    msg = w.statusBar().currentMessage()
    assert msg.startswith("1 PFC deadlock cycle(s) on lossless priority 3 after leaf03:3 – spine02:3, "
                          "leaf04:2 – spine01:4 went down (bounce routes)")
    assert msg.endswith("— leaf01 → spine01 → leaf02 → spine02 → leaf01")
    assert w.document.fabric.cables_t.alive[list(down)].all()        # the design was not edited

    assert w.editor.rename(f.device_id("leaf01"), "leaf1")             # any edit: the drawing is stale
    assert cycle_items(w) == [] and w.pfc_cycles.check is None
