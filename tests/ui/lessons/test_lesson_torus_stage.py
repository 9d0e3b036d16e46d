"""Lesson 8 in the GUI: the stage draws minhop's credit loop in red, then dfsssp's VL layers (each
cable in the colours of the VLs its paths use, whatever View ▸ VL Layers says) with their legend,
and drops them at the other steps; lesson 7's runs in a partition set the Traffic dock's
Partition and Service level pickers."""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui, QtWidgets

from fabricviz.ui.canvas.items.cables import cable_anchors, routes_for
from fabricviz.ui.canvas.overlays.lesson import LOOP_COLOR
from fabricviz.ui.canvas.overlays.vl_layers import PALETTE, ROLE
from tests.ui.lesson_helpers import open_lesson


def _lesson_items(w, color):
    return [it for it in w.scene.items() if it.data(2) == "lesson_overlay"
            and isinstance(it, QtWidgets.QGraphicsPathItem) and it.pen().color() == QtGui.QColor(color)]


def _vl_items(w):
    return [it for it in w.scene.items() if it.data(2) == ROLE]


def test_the_stage_draws_the_loop_then_the_vl_layers(qtbot, make_window, shared_runs):
    w = make_window()
    assert not w.acts["vl_layers"].isChecked()                 # the user's VL layers are off
    dock, stage = open_lesson(qtbot, w, 8)
    layers = w.vl_layers
    titles = [r.title for r in dock.results]
    # minhop's check: the first loop's cables, one closed red line through their ends
    dock.go(titles.index("A credit loop"))
    stage.finish()
    step = dock.results[dock.k]
    f = w.editor.fabric
    assert f is step.fabric and step.loops >= 1 and step.loop_vls == (0,)
    assert stage.overlay.drawn["loop"] == step.loop_cables and len(step.loop_cables) >= 3
    (loop,) = _lesson_items(w, LOOP_COLOR)
    ax, ay, bx, by = cable_anchors(f, np.asarray(step.loop_cables, np.int64))
    ends = {(round(float(x), 3), round(float(y), 3)) for x, y in zip(np.r_[ax, bx], np.r_[ay, by], strict=True)}
    corners = {(round(p.x(), 3), round(p.y(), 3)) for poly in loop.path().toSubpathPolygons() for p in poly}
    seg = routes_for(f).of(np.asarray(step.loop_cables, np.int64))
    route_pts = {(round(float(x), 3), round(float(y), 3)) for x, y in zip(np.r_[seg[0], seg[2]], np.r_[seg[1], seg[3]],
                                                                         strict=True)}
    assert ends <= route_pts <= corners            # one ring through both ends of each cable, along its route
    assert "credit loop on VL0" in [row[0] for row in stage.legend_rows()]
    assert not layers.pinned and _vl_items(w) == []
    # dfsssp's layers: one item per (VL, stripe, stripes) of the cables' masks, in the VL's colour
    dock.go(titles.index("dfsssp: shortest paths on layers of VLs"))
    stage.finish()
    m = dock.results[dock.k].layers
    assert layers.pinned and stage.vl_layers is layers and layers.engine == "dfsssp"
    # by the engine's layers (what broke the loop), not by every SL balancing spread them over
    assert m.layer_names and len(m.layer_names) == m.vls_needed
    assert layers.cables.tolist() == list(m.cables) and layers.masks.tolist() == list(m.layer_masks)
    assert layers.names == m.layer_names
    want = {(v, k, len(vls)) for vls in {tuple(b for b in range(16) if x >> b & 1) for x in m.layer_masks}
            for k, v in enumerate(vls)}
    assert {v for v, _k, _n in want} == set(range(m.vls_needed))
    assert set(layers.items) == want
    for (v, _k, _n), item in layers.items.items():
        assert item.pen().color() == QtGui.QColor(PALETTE[v]) and item.scene() is w.scene
    assert len(_vl_items(w)) == len(want)
    assert _lesson_items(w, LOOP_COLOR) == [] and not stage.loads.active      # no loop, no routes per port
    labels = [row[0] for row in stage.legend_rows()]
    assert [x for x in labels if x.startswith("layer")] == [f"{name} ({m.cables_in_layer(k)} cables)"
                                                             for k, name in enumerate(m.layer_names)]
    assert layers.status_text.startswith(f"VL layers (dfsssp): {m.layer_names[0]} on ")
    # the check of dfsssp's routing keeps the layers: no loop on any VL
    dock.next()
    stage.finish()
    assert dock.results[dock.k].loops == 0 and layers.pinned and set(layers.items) == want
    assert _lesson_items(w, LOOP_COLOR) == []
    # the path lengths are not about VLs: the layers go (the View toggle is still off)
    dock.next()
    stage.finish()
    assert not layers.pinned and layers.items == {} and _vl_items(w) == []
    assert not w.acts["vl_layers"].isChecked()
    # stepping back to minhop: the loop again, no layers
    dock.go(titles.index("A credit loop"))
    stage.finish()
    assert len(_lesson_items(w, LOOP_COLOR)) == 1 and not layers.pinned
    # another design: the lesson stops, nothing of it stays
    dock.go(titles.index("No loop on any VL"))
    stage.finish()
    assert layers.pinned
    w.editor.set_fabric(dock.results[0].fabric.copy())
    QtWidgets.QApplication.processEvents()
    assert not layers.pinned and layers.items == {}


def test_lesson7_runs_set_the_traffic_docks_partition_and_sl(qtbot, make_window, shared_runs):
    w = make_window()
    traffic = w.traffic_dock
    own = traffic.form.controls()
    assert own["partition"] == "" and own["sl"] == "sm"
    traffic.configure(sl=3)                                   # the user's own SL, back after the lesson
    dock, stage = open_lesson(qtbot, w, 7)
    titles = [r.title for r in dock.results]
    for title, part in (("Traffic in storage", "storage"), ("Traffic in compute", "compute")):
        dock.go(titles.index(title))
        stage.finish()
        run = dock.results[dock.k].traffic
        assert run.partition.startswith(part + " (0x") and traffic.result is run.result     # the run's label
        assert traffic.form.partition_box.value() == part and traffic.form.partition_box.currentText() == run.partition
        assert traffic.form.sl_box.choice() == "sm" and traffic.form.controls()["partition"] == part
    w.editor.set_fabric(dock.results[0].fabric.copy())          # the lesson stops: the user's controls
    QtWidgets.QApplication.processEvents()
    assert traffic.form.controls()["sl"] == 3 and traffic.form.sl_box.currentText() == "SL 3"
