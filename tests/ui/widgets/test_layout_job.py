"""Design ▸ Auto/Force Layout run as a job on a snapshot: Cancel stops the worker at its next
progress report and leaves positions and history alone; a failure is said, not raised."""

from __future__ import annotations

import threading

import networkx as nx
import numpy as np
from PySide6 import QtCore, QtWidgets

from fabricviz.generate import k_ary_fat_tree
from fabricviz.generate import layout as build_layout
from fabricviz.ui.jobs import MODAL_DELAY_MS


def _press_cancel() -> None:
    (dlg,) = [w for w in QtWidgets.QApplication.topLevelWidgets()
              if w.objectName() == "job_progress" and w.isVisible()]
    dlg.findChild(QtWidgets.QPushButton).click()


def test_cancelling_a_force_layout_stops_it_and_changes_nothing(make_window, monkeypatch):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(12))             # 612 top-level devices: laid out in chunks
    f = w.fabric
    xs, ys, undo = f.devices_t.x.copy(), f.devices_t.y.copy(), w.editor.stack.count()
    given, chunks = [], []
    real_layout, real_spring = build_layout.force_layout, nx.spring_layout

    def layout(fabric, **kw):
        given.append(fabric)
        return real_layout(fabric, **kw)

    def spring(*a, **kw):
        chunks.append(kw["iterations"])
        return real_spring(*a, **kw)
    monkeypatch.setattr(build_layout, "force_layout", layout)
    monkeypatch.setattr(nx, "spring_layout", spring)
    QtCore.QTimer.singleShot(MODAL_DELAY_MS // 3, _press_cancel)    # fires once the dialog's loop runs
    w.layout_force()
    for t in threading.enumerate():
        if t.name.startswith("fabricviz-modal-"):
            t.join()
    assert w.statusBar().currentMessage() == "Force layout cancelled"
    assert given and given[0] is not f and len(given[0]) == len(f)    # a snapshot, not the live design
    assert 1 <= len(chunks) < 60 // build_layout.FORCE_CHUNK            # it stopped at a report
    assert np.array_equal(f.devices_t.x, xs) and np.array_equal(f.devices_t.y, ys)
    assert w.editor.stack.count() == undo


def test_a_failing_layout_is_reported_not_raised(make_window, monkeypatch):
    w = make_window()
    w.apply_generated(k_ary_fat_tree(4))
    undo = w.editor.stack.count()
    said = []

    def broken(fabric, **kw):
        raise ValueError("no room")
    monkeypatch.setattr(build_layout, "force_layout", broken)
    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", staticmethod(lambda *a: said.append(a[1:])))
    w.layout_force()
    assert said == [("Force layout failed", "no room")]
    assert w.statusBar().currentMessage() == "Force layout failed" and w.editor.stack.count() == undo
    w.layout_auto()                                    # the real one still works, as one undo step
    assert w.editor.stack.count() == undo + 1
