"""What is selected on the canvas, and the edits of the selection (Edit menu, View ▸ Fit
Selection), over the editor's model methods.

The scene keeps the selected items; :class:`SelectionController` answers for it: select all,
show (find) one device, fit the selection, the cables a rubber band took in, and copy / cut /
paste / duplicate / delete as undo commands of the :class:`~fabricviz.ui.document.editor.Editor`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import shiboken6
from PySide6 import QtCore

from fabricviz.ui.canvas.minimap import FIT_SELECTION_MAX, selection_bounds
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.document.document import Document


class SelectionController(QtCore.QObject):
    """The canvas selection of one document; see the module doc."""

    changed = QtCore.Signal(bool)         # the selection changed; True: something is selected
    status = QtCore.Signal(str, int)      # a status-bar message and its timeout (ms)

    def __init__(self, document: Document, scene: FabricScene, view: CanvasView,
                 fit: Callable[[], None], parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.scene = scene
        self.view = view
        self._fit = fit                    # the whole design (nothing selected to fit)
        self._banding = False              # a rubber band is being dragged
        scene.selectionChanged.connect(self._selection_changed)
        view.rubberBandChanged.connect(self._rubber_band)

    def device_ids(self) -> list[int]:
        return self.scene.selected_device_ids()

    def count(self) -> int:
        """Selected devices and cables."""
        return len(self.scene.selected_device_ids()) + len(self.scene.selected_cables)

    def _selection_changed(self) -> None:
        if not shiboken6.isValid(self.scene):   # the scene clearing itself as its window is deleted
            return
        self.changed.emit(self.count() > 0)

    # ------------------------------------------------------------------ selecting
    def select_all(self) -> None:
        """Every device and every cable (Delete then removes both)."""
        for item in self.scene.items_by_id.values():
            if item.parentItem() is None:
                item.setSelected(True)
        self.scene.set_selected_cables(set(int(c) for c in self.document.fabric.cable_ids()))

    def show_device(self, d: int) -> None:
        """Select device ``d`` and centre the canvas on it (Edit ▸ Find Device)."""
        f = self.document.fabric
        self.scene.set_selected_cables(set())
        self.scene.select_devices([d], inner=True)
        top = int(f.devices_t.parent[d]) if f.devices_t.parent[d] >= 0 else d
        self.view.centerOn(float(f.devices_t.x[top]), float(f.devices_t.y[top]))
        self.status.emit(f"found {f.name_of(d)}", 5000)

    def fit_selection(self) -> None:
        """View ▸ Fit Selection: the selected devices and cables fill the canvas; nothing selected: Fit."""
        rect = selection_bounds(self.scene)
        if rect is None:
            self._fit()
        else:
            self.view.fit_rect(rect, max_scale=FIT_SELECTION_MAX)

    def _rubber_band(self, rect: QtCore.QRect, start: QtCore.QPointF, end: QtCore.QPointF) -> None:
        """When a rubber band ends, the cables between the devices it selected are selected too."""
        if not rect.isNull():
            self._banding = True
            return
        if not self._banding:
            return
        self._banding = False
        f = self.document.fabric
        picked = np.zeros(f.devices_t.n, bool)
        picked[np.asarray(self.scene.selected_device_ids(), np.int64)] = True
        cabs = f.cable_ids()
        pt, ct, t = f.ports_t, f.cables_t, f.devices_t
        both = np.ones(len(cabs), bool)
        for side in (ct.port_a, ct.port_b):
            d = pt.device[side[cabs]].astype(np.int64)
            both &= picked[np.where(t.parent[d] >= 0, t.parent[d], d)]
        self.scene.set_selected_cables(set(self.scene.selected_cables) | {int(c) for c in cabs[both]})

    # ------------------------------------------------------------------ editing the selection
    def copy(self) -> None:
        data = self.document.editor.copy(self.scene.selected_device_ids())
        if data:
            self.status.emit(f"copied {len(data['devices'])} devices and "
                             f"{len(data['cables'])} cables between them", 5000)

    def cut(self) -> None:
        editor = self.document.editor
        ids = self.scene.selected_device_ids()
        if editor.copy(ids):
            editor.remove(ids, [])

    def paste(self) -> None:
        """Paste centred on the pointer when it is over the canvas, else shifted from the copies."""
        ids = self.document.editor.paste(at=self.view.pointer_scene_pos())
        if ids:
            self.scene.select_devices(ids)

    def duplicate(self) -> None:
        ids = self.document.editor.duplicate(self.scene.selected_device_ids())
        if ids:
            self.scene.select_devices(ids)

    def delete(self) -> None:
        devs = self.scene.selected_device_ids()
        t = self.document.fabric.devices_t
        devs = sorted({int(t.parent[d]) if t.parent[d] >= 0 else d for d in devs})
        cabs = sorted(self.scene.selected_cables)
        if self.document.editor.remove(devs, cabs):
            self.scene.set_selected_cables(set())


__all__ = ["SelectionController"]
