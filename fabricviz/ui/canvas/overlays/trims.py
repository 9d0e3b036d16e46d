"""Trimmed packets on the canvas: a mark on every cable whose egress queues trim (EQDS / NDP).

A trimming transport's switch queues cut a packet that finds them full down to its header instead
of pausing the sender (PFC) or dropping it; the receiver pulls it again. The mark reads one typed
per-link array, the frame's ``link_trims_per_s`` (packets trimmed per second, indexed by link id,
:class:`~fabricviz.sim.frames.Frame`), so any model that fills it is drawn: the flow-level
transports' steady state (:mod:`fabricviz.sim.transports`) or a fluid model's frame. A cable is
marked when either direction trims at least :data:`MIN_TRIMS_PER_S`: white ticks on a black casing
(a cut, distinct from every heat colour, from the paused links' red dashes and from the ECN dots),
along the cable's gutter route near, along its bundle's route zoomed out (the semantic layer's top
path, as the What-if dock's failed cables).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.sim.frames import TRIM_MARK_PER_S
from fabricviz.ui.canvas.overlays.cable_marks import CableMarks, cables_at_least

#: The bundled layer's key for the marks drawn on top of the bundles zoomed out.
KEY = "trims"
ROLE = "trim_marks"
#: Over the heat (-0.8) and its paused / ECN marks, under the selection and group boxes.
Z = 0.25
TRIM_COLOR = "#ffffff"
#: The mark's words in the legends (the Traffic dock's bar, an exported picture's box).
TRIM_LABEL = "trimmed (EQDS / NDP: packets cut to headers)"
TRIM_CASING = "#000000"
#: A link trims when at least this many packets per second are cut (one per 100 µs).
MIN_TRIMS_PER_S = TRIM_MARK_PER_S


def trim_pens(width: float = 2.0) -> tuple[QtGui.QPen, QtGui.QPen]:
    """The trim mark: short white ticks ``width`` px wide over a black casing 2 px wider."""
    tick = QtGui.QPen(QtGui.QColor(TRIM_COLOR), width)
    tick.setCosmetic(True)
    tick.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    tick.setDashPattern([1.0, 2.0])
    casing = QtGui.QPen(QtGui.QColor(TRIM_CASING), width + 2.0)
    casing.setCosmetic(True)
    casing.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    return casing, tick


def trimming_cables(trims_per_s: np.ndarray, n_cable_links: int, threshold: float = MIN_TRIMS_PER_S) -> np.ndarray:
    """Cable ids with a direction (links ``2c``, ``2c + 1``) trimming at least ``threshold`` per second."""
    return cables_at_least(trims_per_s, n_cable_links, threshold)


class TrimMarks(CableMarks):
    """The trim marks of one canvas (see the module doc): :meth:`show` a frame's per-link trims/s."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene) -> None:
        super().__init__(document, scene, KEY, ROLE, Z, trim_pens, MIN_TRIMS_PER_S)


__all__ = ["MIN_TRIMS_PER_S", "ROLE", "TRIM_COLOR", "TRIM_LABEL", "TrimMarks", "trim_pens", "trimming_cables"]
