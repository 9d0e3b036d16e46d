"""Lesson 7 in the GUI: the Lessons dock's stage shows the partition marks at the partition steps
(whatever View ▸ Partition Marks says) with whom a reach step's host can talk, and drops them at
the other steps and when the lesson stops."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

from fabricviz.ui.canvas.overlays.partitions import PALETTE, REACH_COLOUR
from tests.ui.lesson_helpers import open_lesson
from tests.ui.partition_helpers import frame as _frame
from tests.ui.partition_helpers import mark_rect as _mark
from tests.ui.partition_helpers import rects as _rects


def _box(w, name):
    r = _frame(w, name)
    return (r.x(), r.y(), r.width(), r.height())


def test_partition_steps_pin_the_marks_and_the_reach_of_their_host(qtbot, make_window, shared_runs):
    w = make_window()
    assert not w.acts["partition_marks"].isChecked()          # the user's marks are off
    dock, stage = open_lesson(qtbot, w, 7)
    marks = w.partition_marks
    assert stage.marks is marks                             # the window's marks, not a second set
    titles = [r.title for r in dock.results]
    # step 1, the partitions: every host's squares, filled full, outlined limited, no reach
    dock.go(titles.index("Partitions"))
    stage.finish()
    assert marks.pinned and marks.source is None and marks.reach is None
    assert sorted(marks.items) == [(1, False), (1, True), (2, True)]        # (P_Key, full)
    compute = [f"compute{i:02d}" for i in range(1, 7)]
    assert _rects(marks.items[(1, True)]) == sorted(_mark(w, n, 0) for n in ("storage01", "storage02"))
    assert _rects(marks.items[(1, False)]) == sorted(_mark(w, n, 0) for n in compute)
    assert _rects(marks.items[(2, True)]) == sorted(_mark(w, n, 1) for n in compute[:4])
    assert marks.items[(1, True)].brush().color() == QtGui.QColor(PALETTE[0])
    assert marks.items[(2, True)].brush().color() == QtGui.QColor(PALETTE[1])
    # the sweep steps are not about partitions: no marks
    dock.go(titles.index("Discovery"))
    stage.finish()
    assert not marks.pinned and marks.items == {}
    # "Who can compute05 reach?": the storage servers outlined, the other hosts veiled
    dock.go(titles.index("Who can compute05 reach?"))
    stage.finish()
    f = w.editor.fabric
    assert marks.pinned and marks.source == f.device_id("compute05")
    assert {f.name_of(d) for d in marks.peers} == {"storage01", "storage02"}
    assert _rects(marks.reach) == sorted(_box(w, n) for n in ("storage01", "storage02"))
    assert _rects(marks.veil) == sorted(_box(w, n) for n in compute if n != "compute05")
    assert marks.reach.pen().color() == QtGui.QColor(REACH_COLOUR)
    assert marks.status_text == "compute05 can talk to 2 hosts (storage)"
    labels = [row[0] for row in stage.legend_rows()]
    assert {"partition storage (0x8001)", "partition compute (0x8002)",
            "compute05 can talk to 2 hosts (storage)"} <= set(labels)
    # the next reach step moves the highlight to compute01
    dock.next()
    stage.finish()
    assert {f.name_of(d) for d in marks.peers} == {"compute02", "compute03", "compute04", "storage01", "storage02"}
    # a run in a partition keeps the marks, without a host's reach
    dock.go(titles.index("Traffic in storage"))
    stage.finish()
    assert marks.pinned and marks.source is None and marks.reach is None and len(marks.items) == 3
    # closing the lesson (another design) drops them: the user's toggle is still off
    w.editor.set_fabric(dock.results[0].fabric.copy())
    QtWidgets.QApplication.processEvents()
    assert not marks.pinned and marks.items == {}
