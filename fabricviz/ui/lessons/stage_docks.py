"""Collective and what-if lesson steps on the stage: the docks that plot them show the step's results,
asked through the session (``session.collectives``, ``session.whatif``), never held.

* ``collective`` steps: View ▸ Collectives is raised with the step's curves (the step's fabric first,
  then the one it is compared with, on one plot) and its table, its controls set to the step's
  (:func:`collective_controls`); the slowest step's cables of the fabric on the canvas are selected
  there, as after a run of the dock's own, and drawn as a wide amber band under the selection, which
  pictures of the step keep (they leave the selection out).
* ``whatif`` steps: View ▸ What-if is raised with the step's trials (the degradation plot and the
  table), its controls set to the step's (:func:`whatif_controls`); in a worst-failures step the worst
  single failure is the table's first row, shown on the canvas (its cables selected and drawn dashed)
  and named under the plot, as the dock tells the session (``session.whatif.cables`` / ``line``).

The results were computed with the lesson's other steps, off the UI thread
(:mod:`fabricviz.anim.lesson_collective`, :mod:`fabricviz.anim.lesson_whatif`); nothing runs here.
Leaving such a step takes its selection and dashed cables off the canvas. In presentation mode (the
canvas and the lesson only) the step's dock is shown too, its plot being what the step teaches, and
hidden again after the step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lesson_collective import CollectiveCurve
from fabricviz.anim.lesson_results import StepResult
from fabricviz.anim.lesson_whatif import WhatifStep
from fabricviz.ui.canvas.overlays.failed import FAILED_PEN
from fabricviz.ui.document.session import (
    CollectiveControls,
    CollectivesShown,
    WhatifControls,
    WhatifShown,
)

#: The slowest step's bottleneck cables: under the canvas's selection, over the cables.
NECK_COLOR, NECK_WIDTH, NECK_Z = (245, 159, 0, 150), 9.0, 5.2
ROLE = "lesson_bottleneck"


def collective_controls(curve: CollectiveCurve) -> CollectiveControls:
    """The Collectives dock's op, algorithm, sizes and GPUs for the step's curve (Run repeats it)."""
    r = curve.result
    return CollectiveControls(op=str(r.op), algo=str(r.algo), sizes=curve.sizes_spec, gpus=str(curve.gpus))


def whatif_controls(step: WhatifStep) -> WhatifControls:
    """The What-if dock's failure kind (``switches-of:spine`` is "spine switches"), K, trials, metric,
    seed and mode for the step's trials (Run repeats them)."""
    sh = step.shared
    ks = tuple(int(k) for k in sh.spec.ks)
    return WhatifControls(kind=str(sh.spec.what), ks=ks, trials=len(sh.trials) // max(len(ks), 1),
                          metric=str(sh.metric), seed=int(sh.seed), worst=bool(step.worst))


def neck_band(neck: Any) -> tuple[tuple[int, ...], str]:
    """(cables, legend text) of the band drawn for a slowest step: when several hops tie (a ring's
    every hop at one rate: together the whole fabric) only the one the Collectives dock names, and
    the text says how many tie."""
    tied = len(neck.src) > 1 and len(neck.named_cables) > 0
    cables = neck.named_cables if tied else neck.cables
    text = f"slowest step's bottleneck at {neck.rate_gbps:.4g} Gb/s per {neck.kind}"
    return tuple(int(c) for c in cables), text + (f" (1 of {len(neck.src)} tied hops)" if tied else "")


class LessonDocks:
    """Shows collective and what-if steps in their docks (see the module doc)."""

    def __init__(self, document: Any, scene: Any, presentation: Any) -> None:
        self.document, self.scene, self.presentation = document, scene, presentation
        self.collectives: CollectivesShown = document.session.collectives
        self.whatif: WhatifShown = document.session.whatif
        self.shown: CollectivesShown | WhatifShown | None = None     # the dock the current step uses
        self.failed: tuple[int, ...] = ()                   # the worst failure's cables drawn
        self.neck: Any = None                               # the bottleneck's band (a path item)
        self.neck_cables: tuple[int, ...] = ()
        self.neck_label = ""
        presentation.action.toggled.connect(self._presenting)

    def _presenting(self, on: bool) -> None:
        """Presentation mode hid every dock but the lesson's: the current step's plot comes back."""
        if on and self.shown is not None:
            self.shown.present(True)

    def show(self, step: StepResult) -> None:
        """Step ``step`` is on the canvas: its dock shows it (none for other actions)."""
        if self.shown is not None:                  # the last step's selection goes; this one's comes
            self.scene.set_selected_cables(set())
        if step.collectives:
            self.collectives.show_runs(step.collectives, collective_controls(step.collectives[0]))
            self._raise(self.collectives)
            self.failed = ()
            own = step.collectives[0]
            self._draw_neck(step.fabric, *neck_band(own.bottleneck))
        elif step.whatif is not None:
            self._draw_neck(None, ())
            worst = step.whatif.worst
            self.whatif.show_trials(step.whatif, whatif_controls(step.whatif), 0 if worst else None)
            self.failed = self.whatif.cables if worst else ()
            self._raise(self.whatif)
        else:
            self.leave()

    def _raise(self, shown: CollectivesShown | WhatifShown) -> None:
        if self.shown is not None and self.shown is not shown and self.presentation.active:
            self.shown.present(False)
        self.shown = shown
        shown.present(True)

    def _draw_neck(self, fabric: Any, cables: tuple[int, ...], label: str = "") -> None:
        """The bottleneck's cables of ``fabric`` as one band along their routes (none: the band goes)."""
        from fabricviz.ui.canvas.items.cables import routed_path
        if self.neck is not None and self.neck.scene() is not None:
            self.neck.scene().removeItem(self.neck)
        self.neck, self.neck_cables, self.neck_label = None, (), ""
        ok = [c for c in cables if fabric is not None and fabric.cables_t.exists(c)]
        if not ok:
            return
        path = routed_path(fabric, np.asarray(ok, np.int64))        # through the gutters, as drawn
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
            self.shown.present(False)
        self.shown, self.failed = None, ()

    def legend_rows(self) -> list[tuple[str, QtGui.QColor, str]]:
        """The bottleneck's band or the dashed worst failure, for pictures."""
        if self.neck_cables:
            c = QtGui.QColor(*NECK_COLOR)
            return [(self.neck_label, c, "line")]
        if not self.failed:
            return []
        said = self.whatif.line.partition(": ")[2]        # "spine01 down; 0 hosts cut off"
        return [(f"worst single failure: {said}" if said else "worst single failure", QtGui.QColor(*FAILED_PEN),
                 "dash")]


__all__ = ["LessonDocks", "collective_controls", "neck_band", "whatif_controls"]
