"""Zoomed-out drawing of devices: one filled path per device kind instead of one item each.

Far out, a 30k-host design would otherwise paint ~30k server frames (plus
their hidden children walked by Qt) every frame. Below :data:`BATCH_ZOOM` the
scene hides the per-device items and :class:`DeviceBatch` draws every device's
rectangle of one kind in a single ``QGraphicsPathItem`` built from numpy
columns (like the cables). Selected devices keep their own item so selection
stays visible and draggable; clicks and rubber bands on batched devices are
answered from the same arrays (:meth:`DeviceBatch.device_at`, :meth:`ids_in`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate.geometry import device_rects
from fabricviz.model import KINDS
from fabricviz.ui.canvas.items.devices import K_SERVER

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.canvas.scene import FabricScene

#: Zoom (view scale) below which devices are drawn batched.
BATCH_ZOOM = 0.2


def rects_path(r: np.ndarray) -> QtGui.QPainterPath:
    """One path of closed rectangles from [4, n] edges, without a Python loop."""
    from pyqtgraph.functions import arrayToQPath
    n = r.shape[1]
    if not n:
        return QtGui.QPainterPath()
    x = np.stack([r[0], r[2], r[2], r[0], r[0]], axis=1).ravel()
    y = np.stack([r[1], r[1], r[3], r[3], r[1]], axis=1).ravel()
    connect = np.tile(np.array([1, 1, 1, 1, 0], np.int32), n)
    return arrayToQPath(x, y, connect=connect)


class DeviceBatch:
    """Per device kind, one path item drawing the devices whose own item is hidden."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.on = False
        self.items: dict[int, QtWidgets.QGraphicsPathItem] = {}
        self.ids = np.zeros(0, np.int64)          # batched top-level devices
        self.rects = np.zeros((4, 0))
        self.shown: set[int] = set()              # top-level devices drawn by their own item

    def set_on(self, on: bool) -> None:
        """Switch between per-item and batched drawing (only when the zoom crosses over)."""
        if on == self.on:
            return
        self.on = on
        items = self.scene.made_items           # items made later are hidden by hide_new
        tops = [it for it in items.values() if it.parentItem() is None]
        if on:
            self.shown = {int(it.data(0)) for it in tops if it.isSelected()}
            for it in tops:
                if not it.isSelected():
                    it.setVisible(False)
            self.rebuild()
        else:
            for it in tops:
                it.setVisible(True)
            self.shown.clear()
            self._clear()

    def _clear(self) -> None:
        for item in self.items.values():
            self.scene.removeItem(item)
        self.items.clear()
        self.ids = np.zeros(0, np.int64)
        self.rects = np.zeros((4, 0))

    def hide_new(self, ids: list[int]) -> None:
        """Devices added while batched join the batch."""
        if self.on:
            for d in ids:
                item = self.scene.made_items.get(d)
                if item is not None and item.parentItem() is None and d not in self.shown:
                    item.setVisible(False)

    def show_device(self, d: int) -> None:
        """Give one device its own item again (it is being selected)."""
        if self.on and d not in self.shown:
            item = self.scene.made_items.get(d)
            if item is not None and item.parentItem() is None:
                item.setVisible(True)
                self.shown.add(d)

    def sync_selection(self) -> bool:
        """Deselected devices go back into the batch; True if the batch must be rebuilt."""
        if not self.on:
            return False
        items = self.scene.made_items
        back = [d for d in self.shown if d not in items or not items[d].isSelected()]
        for d in back:
            self.shown.discard(d)
            if d in items:
                items[d].setVisible(False)
        return bool(back)

    def rebuild(self) -> None:
        """Paths from the model's columns (after edits, selection changes, theme changes)."""
        f = self.scene.fabric
        if not self.on or f is None:
            self._clear()
            return
        t = f.devices_t
        ids = f.device_ids()
        ids = ids[t.parent[ids] < 0]
        if self.shown:
            ids = ids[~np.isin(ids, np.fromiter(self.shown, np.int64, len(self.shown)))]
        self.ids = ids
        self.rects = device_rects(f, ids)
        kinds = t.kind[ids]
        theme = self.scene.theme
        seen = set()
        for k in np.unique(kinds).tolist():
            sel = np.flatnonzero(kinds == k)
            item = self.items.get(k)
            if item is None:
                item = QtWidgets.QGraphicsPathItem()
                item.setZValue(1.0 if k == K_SERVER else 2.0)
                item.setCacheMode(self.scene.path_cache)
                item.setData(2, "batch")
                item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
                self.scene.addItem(item)
                self.items[k] = item
            item.setBrush(theme.brushes[KINDS[k]])
            item.setPen(theme.pens[KINDS[k]])
            item.setPath(rects_path(self.rects[:, sel]))
            seen.add(k)
        for k in [k for k in self.items if k not in seen]:
            self.scene.removeItem(self.items.pop(k))

    def counts(self) -> dict[str, int]:
        """Batched devices per kind name (tests and the bench)."""
        f = self.scene.fabric
        if not self.on or f is None or not len(self.ids):
            return {}
        k, n = np.unique(f.devices_t.kind[self.ids], return_counts=True)
        return {KINDS[int(a)]: int(b) for a, b in zip(k, n, strict=True)}

    def device_at(self, pos: QtCore.QPointF, tol: float) -> int | None:
        """The batched device whose rectangle (grown by ``tol``) holds ``pos``, nearest first."""
        if not self.on or not len(self.ids):
            return None
        r = self.rects
        px, py = pos.x(), pos.y()
        hit = np.flatnonzero((r[0] - tol <= px) & (px <= r[2] + tol) & (r[1] - tol <= py) & (py <= r[3] + tol))
        if not len(hit):
            return None
        cx, cy = (r[0, hit] + r[2, hit]) / 2, (r[1, hit] + r[3, hit]) / 2
        return int(self.ids[hit[int(np.argmin((cx - px) ** 2 + (cy - py) ** 2))]])

    def ids_in(self, rect: QtCore.QRectF) -> list[int]:
        """Batched devices whose rectangle meets ``rect`` (a rubber band)."""
        if not self.on or not len(self.ids):
            return []
        r = self.rects
        hit = (r[2] >= rect.left()) & (r[0] <= rect.right()) & (r[3] >= rect.top()) & (r[1] <= rect.bottom())
        return self.ids[hit].tolist()
