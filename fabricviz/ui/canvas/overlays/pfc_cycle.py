"""PFC deadlock cycles on the canvas: Design ▸ PFC Deadlock Check.

The check (:func:`fabricviz.ethernet.pfc_deadlock.check_pfc_deadlock`) runs in the document's job
runner on a copy of the design — the cables selected on the canvas taken as failed links (what if
they went down: bounce routes), besides the ports the design disables. Each cycle of ingress-buffer
dependencies is drawn like a credit loop of the Subnet Manager overlay (the same colour and pen):
a closed line through its cables in cycle order, where they are drawn now (their anchors, or
their bundles' ends zoomed out); the status bar says what was found. An edit of the design clears
the drawing (it described a design that is gone), as does opening another one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas.items.cables import cable_anchors
from fabricviz.ui.canvas.overlays import remove_from_scene
from fabricviz.ui.canvas.overlays.bundled import follow_levels, semantic_of
from fabricviz.ui.canvas.overlays.sweep import LOOP_COLOR, _pen

JOB = "pfc-deadlock"
ROLE = "pfc_cycle"
Z = 5.3                 # with the sweep overlay's credit loop (5.25)
WIDTH = 7.0


def cycle_path(ends: list[tuple[float, float, float, float] | None]) -> QtGui.QPainterPath:
    """A closed polyline through cables in order, each walked from the end nearer the last one."""
    path = QtGui.QPainterPath()
    last = None
    for e in ends:
        if e is None:
            continue
        a, b = QtCore.QPointF(e[0], e[1]), QtCore.QPointF(e[2], e[3])
        if last is not None and QtCore.QLineF(last, b).length() < QtCore.QLineF(last, a).length():
            a, b = b, a
        if last is None:
            path.moveTo(a)
        else:
            path.lineTo(a)
        path.lineTo(b)
        last = b
    if path.elementCount() > 2:
        path.closeSubpath()
    return path


def check_job(fabric: Any, failed: tuple[int, ...]) -> Callable[[Callable[[float], None]], Any]:
    """The worker's function: the check of ``fabric`` (a copy) with ``failed`` cables down."""
    def run(progress: Callable[[float], None]) -> Any:
        from fabricviz.ethernet.pfc_deadlock import check_pfc_deadlock
        return check_pfc_deadlock(fabric, failed=failed, progress=progress)
    return run


class PfcCycles:
    """The PFC deadlock cycles of ``document``'s design drawn on ``scene``."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene,
                 status: Callable[[str], None] | None = None) -> None:
        self.document, self.scene = document, scene
        self.status = status or (lambda _text: None)
        self.items: list[QtWidgets.QGraphicsPathItem] = []
        self.check: Any = None
        self.status_text = ""
        document.changed.connect(lambda _e: self.clear())
        document.opened.connect(self.clear)
        follow_levels(scene, self._draw)

    def run(self, failed: tuple[int, ...] = ()) -> None:
        """Check the design now (``failed`` cables taken as down), off the UI thread."""
        self.clear()
        failed = tuple(sorted(int(c) for c in failed if self.document.fabric.cables_t.exists(int(c))))
        self.status("PFC deadlock check: following every ECMP route…")
        self.document.jobs.submit(JOB, check_job(self.document.snapshot(), failed), on_done=self._done,
                                  on_error=lambda msg: self.status(f"PFC deadlock check: {msg}"))

    def _done(self, check: Any) -> None:
        if not shiboken6.isValid(self.scene):
            return
        self.check = check
        self._draw()
        rings = "; ".join(c.ring() for c in check.cycles[:3])
        self.status_text = check.summary() + (f" — {rings}" if rings else "")
        self.status(self.status_text)

    def cycle_cables(self) -> list[tuple[int, ...]]:
        """The cables of each cycle drawn, in cycle order."""
        return [c.cables for c in self.check.cycles] if self.check is not None else []

    def _ends(self, cables: tuple[int, ...]) -> list[tuple[float, float, float, float] | None]:
        cids = np.asarray(cables, np.int64)
        sem = semantic_of(self.scene)
        e = sem.cable_ends(cids) if sem is not None else np.vstack(cable_anchors(self.document.fabric, cids))
        return [tuple(col) if np.isfinite(col).all() else None for col in e.T.tolist()]

    def _draw(self) -> None:
        """One closed line per cycle (a priority's cycles are the others' too: drawn once)."""
        self._drop()
        if self.check is None or not shiboken6.isValid(self.scene):
            return
        seen: set[tuple[int, ...]] = set()
        for c in self.check.cycles:
            if c.cables in seen:
                continue
            seen.add(c.cables)
            item = QtWidgets.QGraphicsPathItem(cycle_path(self._ends(c.cables)))
            item.setPen(_pen(LOOP_COLOR, WIDTH))
            item.setZValue(Z)
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            item.setData(2, ROLE)
            item.setData(3, c.ring())
            item.setToolTip(c.format())
            self.scene.addItem(item)
            self.items.append(item)

    def _drop(self) -> None:
        for item in self.items:
            remove_from_scene(item)
        self.items = []

    def clear(self) -> None:
        self.document.jobs.cancel(JOB)
        self.check = None
        self.status_text = ""
        self._drop()


__all__ = ["JOB", "PfcCycles", "check_job", "cycle_path"]
