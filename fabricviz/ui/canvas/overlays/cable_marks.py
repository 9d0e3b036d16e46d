"""A mark drawn along a set of cables over the heatmap: the drawing the trim marks
(:mod:`.trims`) and the pull marks (:mod:`.pulls`) share.

The cables' gutter routes as one path per pen near (casing first), and zoomed out the
bundle layer's top path (the semantic layer's, as the What-if dock's failed cables) with the
mark's top pen; items carry ``role`` in ``data(2)`` (what an exported picture's legend reads).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas.items.cables import routed_path
from fabricviz.ui.canvas.items.semantic_queries import NEAR
from fabricviz.ui.canvas.overlays import remove_from_scene
from fabricviz.ui.canvas.overlays.bundled import colours_of, follow_levels, semantic_of


def cables_at_least(per_link: np.ndarray, n_cable_links: int, threshold: float) -> np.ndarray:
    """Cable ids with a direction (links ``2c``, ``2c + 1``) at ``threshold`` or more in ``per_link``."""
    t = np.asarray(per_link, np.float64)[: n_cable_links - n_cable_links % 2]
    if not len(t):
        return np.zeros(0, np.int64)
    return np.flatnonzero(np.maximum(t[0::2], t[1::2]) >= threshold)


class CableMarks:
    """One mark (``pens()``: casing first, the top pen last) on the cables with a direction at
    ``threshold`` or more of the per-link rate :meth:`show` is given."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene, key: str, role: str, z: float,
                 pens: Callable[[], Sequence[QtGui.QPen]], threshold: float) -> None:
        self.document, self.scene = document, scene
        self.key, self.role, self.z, self.pens, self.threshold = key, role, z, pens, threshold
        self.cables = np.zeros(0, np.int64)
        self.items: list[QtWidgets.QGraphicsPathItem] = []
        follow_levels(scene, self._draw)

    def show(self, per_link: np.ndarray, n_cable_links: int) -> None:
        """Mark the cables of ``per_link`` (a rate per link id; empty: nothing to mark)."""
        self.cables = cables_at_least(per_link, n_cable_links, self.threshold)
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
            colours.set_top(self.key, cids if zoomed_out and len(cids) else None, self.pens()[-1])
        if zoomed_out or not len(cids):
            return
        path = routed_path(f, cids)
        for k, pen in enumerate(self.pens()):
            item = QtWidgets.QGraphicsPathItem(path)
            item.setPen(pen)
            item.setZValue(self.z + 0.01 * k)
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            item.setData(2, self.role)
            self.scene.addItem(item)
            self.items.append(item)


__all__ = ["CableMarks", "cables_at_least"]
