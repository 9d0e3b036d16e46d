"""The lesson's marks on the canvas: traced paths with ``[in] switch [out]`` labels, the path
before a cable was pulled (dashed), the pulled or moved cable (a red dashed ghost with a cross),
the new cable, the first credit loop and the cables a run paused.

Drawn by the lesson stage (:mod:`fabricviz.ui.lessons.stage`) for the step on show, and by
the animation recorder (:mod:`fabricviz.ui.canvas.record`) for a lesson's clips.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lesson_results import TracedPath
from fabricviz.model import Fabric
from fabricviz.ui.canvas.items.cables import cable_anchors, routed_path, walked_path
from fabricviz.ui.canvas.overlays.hop_places import place_hops

#: Traced path colours (first path on top); the first matches the sweep dock's trace.
PATH_COLORS = ("#15aabf", "#f76707", "#ae3ec9")
PATH_WIDTHS = (6.0, 10.0, 14.0)        # later paths wider and underneath, so shared cables show each colour
OLD_PATH_COLOR = "#868e96"
GHOST_COLOR = "#e03131"
ADDED_COLOR = "#37b24d"
LOOP_COLOR = "#fa5252"
Z = 6.0


def _pen(color: str, width: float, style=QtCore.Qt.PenStyle.SolidLine) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(color))
    pen.setCosmetic(True)
    pen.setWidthF(width)
    pen.setStyle(style)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    return pen


def _polyline(fabric: Fabric, cables: tuple[int, ...]) -> QtGui.QPainterPath:
    """The cables in order along their drawn routes, each walked from the end nearer the previous one."""
    return walked_path(fabric, cables)


class LessonOverlay:
    """Path items and labels over the scene for one lesson step; ``drawn`` says what is shown."""

    def __init__(self, scene: QtWidgets.QGraphicsScene) -> None:
        self.scene = scene
        self.items: list[QtWidgets.QGraphicsItem] = []
        self.paused_items: list[QtWidgets.QGraphicsItem] = []
        self.drawn: dict[str, Any] = {}
        self.hops: list[tuple[int, QtWidgets.QGraphicsSimpleTextItem]] = []    # (switch, its hop label)
        self._fabric: Fabric | None = None
        self._watched: list[QtWidgets.QGraphicsView] = []

    def clear(self) -> None:
        for item in self.items + self.paused_items:
            if item.scene() is not None:
                item.scene().removeItem(item)
        self.items, self.paused_items, self.hops = [], [], []
        self.drawn = {}

    def show_paused(self, fabric: Fabric | None, cables: tuple[int, ...]) -> None:
        """Draw the traffic heatmap's paused mark on ``cables`` of ``fabric`` (none: no marks)."""
        for item in self.paused_items:
            if item.scene() is not None:
                item.scene().removeItem(item)
        self.paused_items = []
        if self.drawn:
            self.drawn["paused"] = ()
        if fabric is None or not cables:
            return
        from fabricviz.ui.canvas.overlays.traffic import paused_pens
        path = _polyline_each(fabric, cables)
        for z, pen in zip((0.05, 0.06), paused_pens(), strict=True):
            item = self._add_path(path, pen, z)
            self.items.remove(item)
            self.paused_items.append(item)
        self.drawn["paused"] = tuple(int(c) for c in cables if fabric.cables_t.exists(int(c)))

    def _add_path(self, path: QtGui.QPainterPath, pen: QtGui.QPen, z: float) -> QtWidgets.QGraphicsPathItem:
        item = QtWidgets.QGraphicsPathItem(path)
        item.setPen(pen)
        item.setZValue(Z + z)
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, "lesson_overlay")
        self.scene.addItem(item)
        self.items.append(item)
        return item

    def _add_label(self, text: str, x: float, y: float, color: str,
                   scale: float = 1.1) -> QtWidgets.QGraphicsSimpleTextItem:
        t = QtWidgets.QGraphicsSimpleTextItem(text)
        f = t.font()
        f.setBold(True)
        f.setPointSizeF(f.pointSizeF() * scale)
        t.setFont(f)
        t.setBrush(QtGui.QBrush(QtGui.QColor(color)))
        t.setPen(_pen("#ffffff", 0.0))
        t.setZValue(Z + 1.0)
        t.setPos(x, y)
        t.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        t.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        t.setData(2, "lesson_overlay")
        self.scene.addItem(t)
        self.items.append(t)
        return t

    def show(self, fabric: Fabric, paths: Sequence[TracedPath], old_path: TracedPath | None = None,
             before: Fabric | None = None, ghosts: tuple[int, ...] = (), added: tuple[int, ...] = (),
             loop: tuple[int, ...] = ()) -> None:
        """Draw ``paths`` on ``fabric``; ``old_path`` and ``ghosts`` (cable ids) on ``before``
        (the fabric before a cable was pulled or moved)."""
        self.clear()
        paths = list(paths)
        self.drawn = {"paths": [tuple(p.cables) for p in paths], "old_path": (), "ghosts": tuple(ghosts),
                      "added": tuple(added), "loop": tuple(loop), "labels": [], "paused": ()}
        if old_path is not None and before is not None:
            self.drawn["old_path"] = tuple(old_path.cables)
            self._add_path(_polyline(before, tuple(old_path.cables)),
                           _pen(OLD_PATH_COLOR, 4.0, QtCore.Qt.PenStyle.DashLine), 0.0)
        for i, p in reversed(list(enumerate(paths[:len(PATH_COLORS)]))):
            self._add_path(_polyline(fabric, tuple(p.cables)), _pen(PATH_COLORS[i], PATH_WIDTHS[i]), 0.3 - 0.1 * i)
        if loop:
            path = _polyline(fabric, tuple(loop))
            path.closeSubpath()
            self._add_path(path, _pen(LOOP_COLOR, 7.0), 0.4)
        if added:
            self._add_path(_polyline_each(fabric, added), _pen(ADDED_COLOR, 7.0), 0.5)
        if ghosts and before is not None:
            self._add_path(_polyline_each(before, ghosts), _pen(GHOST_COLOR, 5.0, QtCore.Qt.PenStyle.DashLine), 0.6)
            ax, ay, bx, by = cable_anchors(before, np.asarray(ghosts, np.int64))
            for i in range(len(ghosts)):
                self._add_label("✕", float(ax[i] + bx[i]) / 2 - 10, float(ay[i] + by[i]) / 2 - 16, GHOST_COLOR, 2.2)
        self._hop_labels(fabric, paths[:len(PATH_COLORS)])          # last: clear of every line drawn

    def _hop_labels(self, fabric: Fabric, paths: list[TracedPath]) -> None:
        """``[in]→[out]`` beside each switch of each path, in free space (:mod:`.hop_places`)."""
        for i, p in enumerate(paths):
            for sw, pin, pout in p.hops:
                d = fabric.find(sw)
                if d is None:
                    continue
                text = f"[{pin}]→[{pout}]"
                t = self._add_label(text, float(fabric.devices_t.x[d]), float(fabric.devices_t.y[d]), PATH_COLORS[i])
                self.hops.append((d, t))
                self.drawn["labels"].append((sw, text))
        self._fabric = fabric
        views = self.scene.views()
        for v in views:
            if v not in self._watched and hasattr(v, "zoom_changed"):
                self._watched.append(v)
                v.zoom_changed.connect(self.place_hops)
        self.place_hops(views[0].transform().m11() if views else 1.0)

    def place_hops(self, scale: float) -> None:
        """The hop labels to their free places at view ``scale`` (they keep their on-screen size)."""
        if self.hops and self._fabric is not None and all(t.scene() is self.scene for _, t in self.hops):
            place_hops(self.scene, self._fabric, self.hops, self.items, scale)


def _polyline_each(fabric: Fabric, cables: tuple[int, ...]) -> QtGui.QPainterPath:
    """Each cable along its drawn route, on its own (not joined)."""
    ok = [int(c) for c in cables if fabric.cables_t.exists(int(c))]
    return routed_path(fabric, np.asarray(ok, np.int64)) if ok else QtGui.QPainterPath()


__all__ = ["ADDED_COLOR", "GHOST_COLOR", "LOOP_COLOR", "LessonOverlay", "OLD_PATH_COLOR", "PATH_COLORS",
           "PATH_WIDTHS"]
