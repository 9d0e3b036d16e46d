"""Pulls drawn: the Traffic dock's EQDS run tick by tick (``--model fluid --transport eqds``) marks the cables
its pull packets cross, names the mark in the legends and charts the pulls/s back over the chosen link's
cable; an ECMP max-min run and the flow-level EQDS model (no pull packets) draw none.

The design is the 8-host radix-4 RoCE fat tree at 100GbE; ``incast 3`` sends from three hosts to one. Its
receiver is pulled at line rate: 100e9 / 8 / 4160 = 3,004,807.7 pulls/s leave it, a third of them
(1,001,602.6/s) reach each sender, on exactly the 8 cables the data crosses, both directions."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtGui, QtWidgets

from fabricviz.generate import fat_tree
from fabricviz.ui.canvas.export import PictureOptions, render_scene
from fabricviz.ui.canvas.legend import overlay_rows
from fabricviz.ui.canvas.overlays.pulls import (
    MIN_PULLS_PER_S,
    PULL_COLOR,
    PULL_LABEL,
    ROLE,
    PullMarks,
    pulling_cables,
)
from fabricviz.ui.canvas.overlays.trims import TRIM_LABEL
from fabricviz.ui.docks.charts import TRIM_PLOT
from tests.ui.docks.test_traffic_trims import run_in_dock

LINE_RATE_PULLS = 100e9 / 8 / 4160

pytestmark = pytest.mark.gui


def marks(scene):
    return [it for it in scene.items() if it.data(2) == ROLE]


def legend_words(w):
    return [r[0] for r in overlay_rows(w.scene.items(), w.scene)]


def test_pulling_cables_from_per_link_rates():
    p = np.array([0.0, 2e4, 5e3, 5e3, 1e4, 0.0, 3e6, 3e6, 9e9])   # the last entry: a PCIe link
    assert pulling_cables(p, 8).tolist() == [0, 2, 3]
    assert MIN_PULLS_PER_S == 1e4


def violet_pixels(w, f, path) -> int:
    """Pixels of the pull colour in a picture of the canvas as shown (its legend included)."""
    img = QtGui.QImage(str(render_scene(w.scene, f, path, PictureOptions(900, 600))))
    arr = np.frombuffer(img.convertToFormat(QtGui.QImage.Format.Format_RGB32).constBits(), np.uint32)
    return int((arr & 0xFFFFFF == QtGui.QColor(PULL_COLOR).rgb() & 0xFFFFFF).sum())


def test_eqds_fluid_marks_the_cables_pulls_cross(make_window, qtbot, tmp_path):
    w = make_window()
    f = fat_tree(levels=2, radix=4, fabric="roce", speed="100GbE", switch="SN4700")
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    dock = run_in_dock(qtbot, w, workload="incast", arg="3", model="fluid", duration="0.2ms", seed=0,
                       transport="eqds")
    res = dock.result
    dock.player.set_frame(len(res.frames) - 1)                     # the last frame: the incast at line rate
    QtWidgets.QApplication.processEvents()
    fr = w.traffic_view.shown.current_frame()
    assert fr is res.frames[-1]
    assert fr is not None and fr.has_pulls
    n = res.links.n_cable_links
    pulls = fr.link_pulls_per_s.astype(float)
    lk = res.links

    def nic(gpu: int) -> int:                                      # flows run GPU to GPU, pulls NIC to NIC
        return int(lk.dst_dev[lk.pcie_links(int(gpu))[0]])

    cable = ~lk.pcie
    up = int(np.flatnonzero(cable & (lk.src_dev == nic(res.flows.dst[0])))[0])   # the receiver's NIC → its leaf
    assert pulls[up] == pytest.approx(LINE_RATE_PULLS, rel=1e-6)
    for s in res.flows.src:                                       # into each sender's NIC: a third of them
        into = int(np.flatnonzero(cable & (lk.dst_dev == nic(s)))[0])
        assert pulls[into] == pytest.approx(LINE_RATE_PULLS / 3, rel=1e-6)
    assert not pulls[lk.pcie].any()                                # the NICs are the transports' ends
    util = fr.link_util[:n]
    data = np.flatnonzero(np.maximum(util[0::2], util[1::2]) > 0)  # the cables the data crosses
    pm = w.traffic_view.pulls
    assert isinstance(pm, PullMarks) and pm.cables.tolist() == data.tolist() == [0, 1, 2, 3, 8, 9, 10, 11]
    drawn = marks(w.scene)
    assert len(drawn) == 2                                         # rim and beads, one path each
    assert all(len(it.path().toSubpathPolygons()) >= len(data) for it in drawn)
    assert legend_words(w).count(PULL_LABEL) == 1                  # an exported picture's legend
    assert violet_pixels(w, f, tmp_path / "pulls.png") > 100       # ... and the beads drawn in it (826)
    assert dock.pull_legend.isVisibleTo(dock)                      # the dock's legend row
    charts = w.charts_dock
    assert TRIM_PLOT in charts.plot and charts.curves["link_pulls"].isVisible()
    charts.show_link(up ^ 1)                   # the receiver's downlink: its data's pulls go back over its cable
    _, one = charts.curve_data("link_pulls")
    np.testing.assert_allclose(one, [f.link_pulls_per_s[up] for f in res.frames], rtol=1e-6)
    assert one[-1] == pytest.approx(LINE_RATE_PULLS, rel=1e-6)

    # ECMP max-min, then the flow-level EQDS model: no pull packets, no marks, no legend row, no curve
    for transport in ("", "eqds"):
        controls = {"transport": transport} if transport else {"transport": "roce-gbn"}
        run_in_dock(qtbot, w, workload="incast", arg="3", model="maxmin", seed=0, **controls)
        assert not any(f.has_pulls for f in dock.result.frames)
        assert pm.cables.tolist() == [] and marks(w.scene) == []
        assert PULL_LABEL not in legend_words(w)
        assert not dock.pull_legend.isVisibleTo(dock)
        assert not charts.curves["link_pulls"].isVisible()
        assert violet_pixels(w, f, tmp_path / f"none{transport}.png") == 0
    assert TRIM_LABEL not in legend_words(w)        # the flow-level incast of 3 trims nowhere ≥ 10⁴/s
