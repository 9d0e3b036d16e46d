"""A what-if trial's failed cables on the canvas (the What-if dock's, a lesson's worst failure):
a dashed grey line each, between their anchors near, along their bundles' routes zoomed out."""

from __future__ import annotations

from typing import Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas.items.cables import routed_path
from fabricviz.ui.canvas.items.semantic_queries import NEAR
from fabricviz.ui.canvas.overlays import remove_from_scene
from fabricviz.ui.canvas.overlays.bundled import colours_of, follow_levels, semantic_of

#: The bundled layer's key for the line drawn on top of the bundles zoomed out.
KEY = "whatif"
ROLE = "whatif_failed"
Z = 5.3
FAILED_PEN = (150, 150, 150)


class FailedCables:
    """A trial's failed cables drawn over the canvas as a dashed grey line each, where they are
    drawn now: along their gutter routes near, along their bundles' routes zoomed out (the semantic
    layer's traced path, as the sweep's trace is drawn)."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene) -> None:
        self.document, self.scene = document, scene
        self.cables: list[int] = []
        self.item: QtWidgets.QGraphicsPathItem | None = None
        follow_levels(scene, self._draw)

    def show(self, cables: list[int]) -> None:
        self.cables = list(cables)
        self._draw()

    def clear(self) -> None:
        self.cables = []
        self._draw()

    @staticmethod
    def pen() -> QtGui.QPen:
        pen = QtGui.QPen(QtGui.QColor(*FAILED_PEN), 5.0, QtCore.Qt.PenStyle.DashLine)
        pen.setCosmetic(True)
        pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
        return pen

    def _draw(self) -> None:
        remove_from_scene(self.item)
        self.item = None
        if not shiboken6.isValid(self.scene):
            return
        f = self.document.fabric
        cids = np.array([c for c in self.cables if f.cables_t.exists(c)], np.int64)
        sem, colours = semantic_of(self.scene), colours_of(self.scene)
        zoomed_out = sem is not None and colours is not None and sem.level != NEAR
        if colours is not None:
            colours.set_top(KEY, cids if zoomed_out and len(cids) else None, self.pen())
        if zoomed_out or not len(cids):
            return
        self.item = QtWidgets.QGraphicsPathItem(routed_path(f, cids))     # along the cables' own routes
        self.item.setPen(self.pen())
        self.item.setZValue(Z)
        self.item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.item.setData(2, ROLE)
        self.scene.addItem(self.item)


__all__ = ["FAILED_PEN", "ROLE", "FailedCables"]
