"""Collective and what-if lesson steps on the stage: the docks that plot them show the step's results.

* ``collective`` steps: View ▸ Collectives is raised with the step's curves (the step's fabric first,
  then the one it is compared with, on one plot) and its table; the slowest step's cables of the
  fabric on the canvas are selected there, as after a run of the dock's own
  (:meth:`~fabricviz.ui.docks.collectives.CollectivesDock.show_runs`), and drawn as a wide amber
  band under the selection, which pictures of the step keep (they leave the selection out).
* ``whatif`` steps: View ▸ What-if is raised with the step's trials (the degradation plot and the
  table); in a worst-failures step the worst single failure is the table's first row, shown on the
  canvas (its cables selected and drawn dashed) and named under the plot
  (:meth:`~fabricviz.ui.docks.whatif.WhatifDock.show_run`, ``show_row(0)``).

The results were computed with the lesson's other steps, off the UI thread
(:mod:`fabricviz.anim.lesson_collective`, :mod:`fabricviz.anim.lesson_whatif`); nothing runs here.
Leaving such a step takes its selection and dashed cables off the canvas. In presentation mode (the
canvas and the lesson only) the step's dock is shown too, its plot being what the step teaches, and
hidden again after the step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lesson_results import StepResult

#: The slowest step's bottleneck cables: under the canvas's selection, over the cables.
NECK_COLOR, NECK_WIDTH, NECK_Z = (245, 159, 0, 150), 9.0, 5.2
ROLE = "lesson_bottleneck"

if TYPE_CHECKING:
    from fabricviz.ui.docks.collectives import CollectiveRun, CollectivesDock
    from fabricviz.ui.docks.whatif import WhatifDock, WhatifRun


def collective_runs(step: StepResult) -> list[CollectiveRun]:
    """The step's curves as the Collectives dock's runs (the step's fabric first)."""
    from fabricviz.ui.docks.collectives import CollectiveRun, run_label
    from fabricviz.ui.docks.traffic_transport import SHORT_NAMES
    out = []
    for c in step.collectives:
        r = c.result
        label = run_label(c.design, r.op, r.algo, SHORT_NAMES.get(c.transport, c.transport))
        out.append(CollectiveRun(c.design, label, r, c.bottleneck, not c.own, c.fabric))
    return out


def whatif_run(step: StepResult, revision: int) -> WhatifRun:
    """The step's trials as a finished run of the What-if dock."""
    from fabricviz.ui.docks.whatif import WhatifRun
    w = step.whatif
    assert w is not None
    return WhatifRun(shared=w.shared, results=list(w.results), worst=w.worst, revision=revision,
                     total=len(w.results))


def set_collective_controls(dock: CollectivesDock, curve: Any) -> None:
    """The Collectives dock's op, algorithm, sizes and GPUs set to the step's (Run repeats it)."""
    r = curve.result
    dock.op_box.setCurrentIndex(max(dock.op_box.findData(r.op), 0))
    dock.algo_box.setCurrentIndex(max(dock.algo_box.findData(r.algo), 0))
    dock.sizes_edit.setText(curve.sizes_spec)
    first = curve.gpus != "all"
    dock.gpus_box.setCurrentIndex(dock.gpus_box.findData("first" if first else "all"))
    if first:
        dock.gpus_spin.setValue(int(curve.gpus))


def set_whatif_controls(dock: WhatifDock, step: Any) -> None:
    """The What-if dock's failure kind (``switches-of:spine`` is "spine switches"), K, trials, metric,
    seed and mode set to the step's (Run repeats it)."""
    sh = step.shared
    dock.kind_box.setCurrentIndex(max(dock.kind_box.findData(sh.spec.what), 0))
    dock.worst_box.setChecked(step.worst)
    if not step.worst:
        dock.ks_edit.setText(",".join(str(k) for k in sh.spec.ks))
        dock.trials_box.setValue(len(sh.trials) // max(len(sh.spec.ks), 1))
    dock.metric_box.setCurrentText(sh.metric)
    dock.seed_box.setValue(sh.seed)


class LessonDocks:
    """Shows collective and what-if steps in their docks (see the module doc)."""

    def __init__(self, document: Any, scene: Any, collectives: CollectivesDock, whatif: WhatifDock,
                 presentation: Any) -> None:
        self.document, self.scene = document, scene
        self.collectives, self.whatif, self.presentation = collectives, whatif, presentation
        self.shown: QtWidgets.QDockWidget | None = None     # the dock the current step uses
        self.failed: tuple[int, ...] = ()                   # the worst failure's cables drawn
        self.neck: Any = None                               # the bottleneck's band (a path item)
        self.neck_cables: tuple[int, ...] = ()
        self.neck_label = ""
        presentation.action.toggled.connect(self._presenting)

    def _presenting(self, on: bool) -> None:
        """Presentation mode hid every dock but the lesson's: the current step's plot comes back."""
        if on and self.shown is not None:
            self.shown.show()
            self.shown.raise_()

    def show(self, step: StepResult) -> None:
        """Step ``step`` is on the canvas: its dock shows it (none for other actions)."""
        if self.shown is not None:                  # the last step's selection goes; this one's comes
            self.scene.set_selected_cables(set())
        if step.collectives:
            set_collective_controls(self.collectives, step.collectives[0])
            self.collectives.show_runs(collective_runs(step))
            self._raise(self.collectives)
            self.failed = ()
            own = step.collectives[0]
            neck = own.bottleneck
            self._draw_neck(step.fabric, tuple(int(c) for c in neck.cables),
                            f"slowest step's bottleneck at {neck.rate_gbps:.4g} Gb/s per {neck.kind}")
        elif step.whatif is not None:
            dock = self.whatif
            self._draw_neck(None, ())
            set_whatif_controls(dock, step.whatif)
            run = whatif_run(step, self.document.revision)
            dock.show_run(run)
            if step.whatif.worst:
                dock.show_row(0)
            self.failed = tuple(dock.failed_cables.cables) if step.whatif.worst else ()
            self._raise(dock)
        else:
            self.leave()

    def _raise(self, dock: QtWidgets.QDockWidget) -> None:
        if self.shown is not None and self.shown is not dock and self.presentation.active:
            self.shown.hide()
        self.shown = dock
        dock.show()
        dock.raise_()

    def _draw_neck(self, fabric: Any, cables: tuple[int, ...], label: str = "") -> None:
        """The bottleneck's cables of ``fabric`` as one band (none: the band goes)."""
        from fabricviz.ui.canvas.items.cables import cable_anchors
        if self.neck is not None and self.neck.scene() is not None:
            self.neck.scene().removeItem(self.neck)
        self.neck, self.neck_cables, self.neck_label = None, (), ""
        ok = [c for c in cables if fabric is not None and fabric.cables_t.exists(c)]
        if not ok:
            return
        path = QtGui.QPainterPath()
        for ax, ay, bx, by in np.vstack(cable_anchors(fabric, np.asarray(ok, np.int64))).T.tolist():
            path.moveTo(ax, ay)
            path.lineTo(bx, by)
        pen = QtGui.QPen(QtGui.QColor(*NECK_COLOR), NECK_WIDTH)
        pen.setCosmetic(True)
        pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
        item = QtWidgets.QGraphicsPathItem(path)
        item.setPen(pen)
        item.setZValue(NECK_Z)
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, ROLE)
        self.scene.addItem(item)
        self.neck, self.neck_cables, self.neck_label = item, tuple(ok), label

    def leave(self) -> None:
        """Not such a step (or the lesson stopped): its selection, band and dashed cables go."""
        self._draw_neck(None, ())
        if self.shown is None:
            return
        if self.shown is self.whatif:
            self.whatif.show_row(None)
        self.scene.set_selected_cables(set())
        if self.presentation.active:
            self.shown.hide()
        self.shown, self.failed = None, ()

    def legend_rows(self) -> list[tuple[str, QtGui.QColor, str]]:
        """The bottleneck's band or the dashed worst failure, for pictures."""
        if self.neck_cables:
            c = QtGui.QColor(*NECK_COLOR)
            return [(self.neck_label, c, "line")]
        if not self.failed:
            return []
        from fabricviz.ui.docks.whatif import FAILED_PEN
        said = self.whatif.trial_line.text().partition(": ")[2]        # "spine01 down; 0 hosts cut off"
        return [(f"worst single failure: {said}" if said else "worst single failure", QtGui.QColor(*FAILED_PEN),
                 "dash")]


__all__ = ["LessonDocks", "collective_runs", "whatif_run"]
