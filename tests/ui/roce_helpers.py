"""Shared set-up of the RoCE/lossless GUI tests: a leaf-spine window with an optical uplink, the
Lossless dock opened as the user opens it, a pair of switches joined by long single-mode runs."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

from fabricviz.generate import leaf_spine
from fabricviz.model.catalog import Catalog, Part
from fabricviz.model.fabric import Fabric

LR4 = {"id": "T-400G-LR4", "kind": "cable", "name": "test 400GbE LR4 transceivers + single-mode fibre",
       "cable_type": "transceiver", "tech": "eth", "max_rate": "400GbE", "reach_m": 10000, "lengths_m": [10000]}


def open_dock(w):
    w.findChild(QtGui.QAction, "action_lossless_dock").trigger()      # View ▸ Lossless (RoCE)
    QtWidgets.QApplication.processEvents()
    assert w.lossless_dock.isVisible()
    return w.lossless_dock


def roce_window(make_window):
    """The 4 × 3 leaf-spine with a 100 m optical uplink set through the editor (one undo step)."""
    w = make_window()
    w.apply_generated(leaf_spine(4, 3, 1))
    f = w.editor.fabric
    c = int(f.ports_t.cable[f.port_id("leaf01:2")])
    assert w.editor.set_cable(c, length_m=100.0, ctype="transceiver")
    assert (f.cable(c).type, f.cable(c).length_m, f.cable(c).part_id) == ("transceiver", 100.0, "400G-SR8")
    return w


def switch_pair(part: str, runs: int, length: float, cable: str) -> Fabric:
    f = Fabric(Catalog.default().with_parts([Part.from_dict(LR4, "t")]), name=f"pair{runs}")
    f.add_device("eth_switch", part, name="siteA")
    f.add_device("eth_switch", part, name="siteB")
    for i in range(1, runs + 1):
        f.add_cable(f"siteA:{i}", f"siteB:{i}", length, part=cable)
    return f
