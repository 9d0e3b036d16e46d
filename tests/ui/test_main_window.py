"""The placeholder main window builds offscreen and draws the demo fabric."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.ui import MainWindow
from fabricviz.ui.main_window import DEMO_FABRIC


def _open(qtbot, path=None) -> MainWindow:
    window = MainWindow(path)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def test_window_builds_with_object_names_and_title(qtbot):
    window = _open(qtbot)
    assert window.objectName() == "main_window"
    assert window.windowTitle() == "fabricviz \u2014 demo-fat-tree.json"
    canvas = window.findChild(QtWidgets.QGraphicsView, "canvas")
    assert canvas is not None
    assert window.centralWidget() is canvas
    assert canvas.scene().itemIndexMethod() == QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex


def test_title_names_the_given_file_and_bad_files_do_not_crash(qtbot, tmp_path):
    path = tmp_path / "no-such-fabric.json"
    window = _open(qtbot, str(path))
    assert window.windowTitle() == "fabricviz \u2014 no-such-fabric.json"
    assert window.fabric is None
    assert window.load_error
    assert window.statusBar().currentMessage() == window.load_error
    assert window.device_items == {} and window.cable_items == {}


def test_demo_fabric_is_drawn(qtbot):
    native = pytest.importorskip("fabricviz.formats.native")
    assert DEMO_FABRIC.is_file(), f"bundled demo fabric missing: {DEMO_FABRIC}"
    fabric = native.load_fabric(DEMO_FABRIC)
    device_ids = {int(d.id) for d in fabric.devices()}
    cable_ids = {int(c.id) for c in fabric.cables()}
    assert device_ids and cable_ids

    window = _open(qtbot)
    assert window.load_error is None
    assert set(window.device_items) == device_ids
    assert set(window.cable_items) == cable_ids
    items = window.view.scene().items()
    assert sum(isinstance(i, QtWidgets.QGraphicsRectItem) for i in items) == len(device_ids)
    assert sum(isinstance(i, QtWidgets.QGraphicsLineItem) for i in items) == len(cable_ids)
