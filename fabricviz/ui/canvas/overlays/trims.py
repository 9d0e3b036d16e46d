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
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.sim.frames import TRIM_MARK_PER_S
from fabricviz.ui.canvas.items.cables import routed_path
from fabricviz.ui.canvas.items.semantic_queries import NEAR
from fabricviz.ui.canvas.overlays import remove_from_scene
from fabricviz.ui.canvas.overlays.bundled import colours_of, follow_levels, semantic_of

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
    t = np.asarray(trims_per_s, np.float64)[: n_cable_links - n_cable_links % 2]
    if not len(t):
        return np.zeros(0, np.int64)
    per_cable = np.maximum(t[0::2], t[1::2])
    return np.flatnonzero(per_cable >= threshold)


class TrimMarks:
    """The trim marks of one canvas (see the module doc): :meth:`show` a frame's per-link trims/s."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene) -> None:
        self.document, self.scene = document, scene
        self.cables = np.zeros(0, np.int64)
        self.items: list[QtWidgets.QGraphicsPathItem] = []
        follow_levels(scene, self._draw)

    def show(self, trims_per_s: np.ndarray, n_cable_links: int) -> None:
        """Mark the cables of ``trims_per_s`` (per link id; empty: the run does not trim)."""
        self.cables = trimming_cables(trims_per_s, n_cable_links)
        self._draw()

    def clear(self) -> None:
        self.cables = np.zeros(0, np.int64)
        self._draw()

    def _draw(self) -> None:
        for it in self.items:
            remove_from_scene(it)
        self.items = []
        if not shiboken6.isValid(self.scene):
            return
        f = self.document.fabric
        cids = np.array([c for c in self.cables.tolist() if f.cables_t.exists(c)], np.int64)
        sem, colours = semantic_of(self.scene), colours_of(self.scene)
        zoomed_out = sem is not None and colours is not None and sem.level != NEAR
        if colours is not None:
            colours.set_top(KEY, cids if zoomed_out and len(cids) else None, trim_pens()[1])
        if zoomed_out or not len(cids):
            return
        path = routed_path(f, cids)
        for k, pen in enumerate(trim_pens()):
            item = QtWidgets.QGraphicsPathItem(path)
            item.setPen(pen)
            item.setZValue(Z + 0.01 * k)
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            item.setData(2, ROLE)
            self.scene.addItem(item)
            self.items.append(item)


__all__ = ["MIN_TRIMS_PER_S", "ROLE", "TRIM_COLOR", "TRIM_LABEL", "TrimMarks", "trim_pens", "trimming_cables"]
