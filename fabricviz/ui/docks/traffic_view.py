"""Wires a Traffic dock to the canvas heatmap and the Charts dock: frames to the overlay and
the plots, design edits to a redraw, the heatmap's claim on the canvas (one overlay at a time)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtCore

from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.document.document import Document

if TYPE_CHECKING:
    from fabricviz.ui.docks.traffic import TrafficDock


class TrafficView(QtCore.QObject):
    """Wires a TrafficDock to the canvas overlay and the Charts dock of one window."""

    def __init__(self, document: Document, scene: FabricScene, dock: TrafficDock, charts: Any) -> None:
        super().__init__(dock)
        from fabricviz.ui.canvas.overlays.traffic import TrafficOverlay
        self.document, self.scene, self.dock, self.charts = document, scene, dock, charts
        self.overlay = TrafficOverlay(scene)
        self._redraw_pending = False
        self.session = document.session
        self.hidden = False                     # another overlay owns the canvas: heatmap not drawn
        dock.result_ready.connect(self._result)
        dock.frame_changed.connect(self._frame)
        dock.visibilityChanged.connect(self._dock_visible)
        document.changed.connect(self._fabric_event)
        document.session.cleared.connect(dock.clear)
        document.session.overlay_changed.connect(self._overlay_changed)
        scene.selectionChanged.connect(self._selection)

    def _result(self, res: Any) -> None:
        if res is None:
            self.overlay.forget()
            self.charts.set_result(None)
            self.session.release("traffic")
            return
        assert self.dock.result_fabric is not None    # set with the result
        self.overlay.set_links(self.dock.result_fabric, res.links.n)
        self.charts.set_result(res, self.dock.result_fabric)

    def _frame(self, k: int) -> None:
        """A frame shown by the dock (a run, a step, the slider, playback): the heatmap takes
        the canvas and draws it."""
        if self.dock.result is not None:
            self.session.claim("traffic")
            self._draw()
        self.charts.set_frame(k)

    def _draw(self) -> None:
        fr = self.dock.current_frame()
        if fr is not None and self.dock.scale is not None:
            self.overlay.show_frame(fr, self.dock.scale)
            self.hidden = False

    def _overlay_changed(self, owner: str) -> None:
        """Another overlay took the canvas: draw nothing (the run, its geometry and frame stay)."""
        if owner not in ("", "traffic") and not self.hidden:
            self.overlay.clear()
            self.hidden = True

    def _dock_visible(self, visible: bool) -> None:
        """The Traffic dock came to the front with a run: show the run on the canvas again."""
        if visible and self.dock.result is not None and not self.session.owns("traffic"):
            self._frame(self.dock.frame)

    def _fabric_event(self, e: Any) -> None:
        """Devices moved or cables changed: redraw the frame on the new geometry (link ids are
        stable; new cables are not in the run and stay uncoloured). A new design clears."""
        if self.dock.result is None:
            return
        if e is None or self.document.fabric is not self.dock.result_fabric:
            self.dock.clear()
            return
        if not self._redraw_pending:
            self._redraw_pending = True
            QtCore.QTimer.singleShot(0, self._redraw)

    def _redraw(self) -> None:
        self._redraw_pending = False
        if self.dock.result is not None:
            assert self.dock.result_fabric is not None
            self.overlay.set_links(self.dock.result_fabric, self.dock.result.links.n)
            if self.session.owns("traffic"):      # an edit does not take the canvas back
                self._draw()
            else:
                self.hidden = True
            self.charts.set_frame(self.dock.frame)

    def _selection(self) -> None:
        cabs = self.scene.selected_cables
        if len(cabs) == 1 and self.dock.result is not None:
            self.charts.show_cable(next(iter(cabs)))


__all__ = ["TrafficView"]
