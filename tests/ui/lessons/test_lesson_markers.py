"""Lesson 1 step 7 (issue 29): the hop labels ("[1]→[7]") collide with no "LID n" label, no device
name and no other hop label, on screen, in a 1920×1080 window; the traced path runs along its
cables' routes (never across a device)."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

from tests.ui.lesson_helpers import open_lesson

pytestmark = pytest.mark.gui


@pytest.fixture(autouse=True)
def shared_lesson_runs(shared_runs):
    """The session's engine runs (nothing here edits a lesson's fabric)."""


def _screen(view, item) -> QtCore.QRectF:
    return item.deviceTransform(view.viewportTransform()).mapRect(item.boundingRect())


def _meet(a: QtCore.QRectF, b: QtCore.QRectF) -> bool:
    return a.intersects(b) and a.intersected(b).width() > 0.5 and a.intersected(b).height() > 0.5


def test_hop_labels_leave_lid_labels_and_names_alone(qtbot, make_window):
    w = make_window()
    w.resize(1920, 1080)
    dock, stage = open_lesson(qtbot, w, 1, sweep_seconds=0.05)
    dock.go(6)                                             # step 7: pull a cable
    stage.finish()
    QtWidgets.QApplication.processEvents()
    view, scene = w.view, w.scene
    texts = [it for it in scene.items() if isinstance(it, QtWidgets.QGraphicsSimpleTextItem) and it.isVisible()]
    hops = [it for it in texts if "→" in it.text()]
    lids = [it for it in texts if it.text().startswith("LID ")]
    assert len(hops) >= 3 and len(lids) >= 8                # the path's switches; the SM's LIDs
    hop_r = [_screen(view, it) for it in hops]
    lid_r = [_screen(view, it) for it in lids]
    names = [QtCore.QRectF(r) for _, _, r in scene.label_layer.in_view(view)]
    assert len(names) >= 8
    clashes = [(h.text(), o) for h, r in zip(hops, hop_r, strict=True)
               for o, q in [*[(x.text(), y) for x, y in zip(lids, lid_r, strict=True)],
                            *[("name", n) for n in names]] if _meet(r, q)]
    assert clashes == []
    assert not any(_meet(a, b) for i, a in enumerate(hop_r) for b in hop_r[i + 1:])
    # the traced paths follow the cables' routes: right angles only
    for it in stage.overlay.items:
        if isinstance(it, QtWidgets.QGraphicsPathItem) and not it.path().isEmpty():
            p = it.path()
            els = [p.elementAt(i) for i in range(p.elementCount())]
            for a, b in zip(els, els[1:], strict=False):
                if not b.isMoveTo():                        # a drawn segment a → b
                    assert abs(a.x - b.x) < 1e-6 or abs(a.y - b.y) < 1e-6, (it.pen().color().name(), a.x, a.y, b.x, b.y)
