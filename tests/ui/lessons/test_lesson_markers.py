"""Lesson 1 step 7 (issue 29): the hop labels ("[1]→[7]") collide with no "LID n" label, no device
name and no other hop label, on screen, in a 1920×1080 window; the traced path runs along its
cables' routes (never across a device)."""

from __future__ import annotations

import numpy as np
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


def _hops_on_lines(view, scene, stage, hops) -> list[tuple[str, int]]:
    """(hop label, segment) where a drawn line passes through a hop label's text on screen
    (points every pixel along each segment)."""
    segs = [tuple(s) for s in np.asarray(scene.cables.segs).T.tolist()]
    for it in stage.overlay.items:
        if isinstance(it, QtWidgets.QGraphicsPathItem) and not it.path().isEmpty():
            p = it.path()
            els = [p.elementAt(i) for i in range(p.elementCount())]
            segs += [(a.x, a.y, b.x, b.y) for a, b in zip(els, els[1:], strict=False) if not b.isMoveTo()]
    out = []
    for h in hops:
        r = _screen(view, h).adjusted(1, 1, -1, -1)           # the text, not its antialiased edge
        for j, (ax, ay, bx, by) in enumerate(segs):
            a, b = view.mapFromScene(QtCore.QPointF(ax, ay)), view.mapFromScene(QtCore.QPointF(bx, by))
            n = int(max(abs(b.x() - a.x()), abs(b.y() - a.y()))) + 2
            t = np.linspace(0, 1, n)
            x, y = a.x() + t * (b.x() - a.x()), a.y() + t * (b.y() - a.y())
            if ((r.left() < x) & (x < r.right()) & (r.top() < y) & (y < r.bottom())).any():
                out.append((h.text(), j))
    return out


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
    # and on no drawn line: the cables' routes and the lesson's own paths (issue 29: "[1]→[7]" sat
    # on the traced path's uplink of leaf01), at this zoom and after zooming in (placed again)
    assert _hops_on_lines(view, scene, stage, hops) == []
    view.zoom_by(1.6)
    QtWidgets.QApplication.processEvents()
    assert _hops_on_lines(view, scene, stage, hops) == []
    names = [QtCore.QRectF(r) for _, _, r in scene.label_layer.in_view(view)]
    assert [h.text() for h in hops for n in names if _meet(_screen(view, h), n)] == []
    # the traced paths follow the cables' routes: right angles only
    for it in stage.overlay.items:
        if isinstance(it, QtWidgets.QGraphicsPathItem) and not it.path().isEmpty():
            p = it.path()
            els = [p.elementAt(i) for i in range(p.elementCount())]
            for a, b in zip(els, els[1:], strict=False):
                if not b.isMoveTo():                        # a drawn segment a → b
                    assert abs(a.x - b.x) < 1e-6 or abs(a.y - b.y) < 1e-6, (it.pen().color().name(), a.x, a.y, b.x, b.y)
