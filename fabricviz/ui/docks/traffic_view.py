"""Draws the traffic run on show (the session's :attr:`~fabricviz.ui.document.session.Session.traffic`)
as the canvas heatmap: its frames, a redraw after design edits, the heatmap's claim on the canvas
(one overlay at a time); with a trimming transport, the trim marks on the links that trim
(:mod:`~fabricviz.ui.canvas.overlays.trims`, from the frame's ``link_trims_per_s``); with receivers that
pull (EQDS / NDP tick by tick), the pull marks on the cables pulls cross (:mod:`~fabricviz.ui.canvas.overlays.pulls`,
from ``link_pulls_per_s``)."""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore

from fabricviz.ui.canvas.overlays.pulls import PullMarks
from fabricviz.ui.canvas.overlays.traffic import TrafficOverlay
from fabricviz.ui.canvas.overlays.trims import TrimMarks
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.document.document import Document


class TrafficView(QtCore.QObject):
    """The heatmap of the session's traffic run on one canvas."""

    def __init__(self, document: Document, scene: FabricScene) -> None:
        super().__init__(scene)
        self.document, self.scene = document, scene
        self.overlay = TrafficOverlay(scene)
        self.trims = TrimMarks(document, scene)
        self.pulls = PullMarks(document, scene)
        self._redraw_pending = False
        self.session = document.session
        self.shown = document.session.traffic
        self.hidden = False                     # another overlay owns the canvas: heatmap not drawn
        self.shown.run_changed.connect(self._result)
        self.shown.frame_changed.connect(self._frame)
        document.changed.connect(self._fabric_event)
        document.session.overlay_changed.connect(self._overlay_changed)

    def _result(self, res: Any) -> None:
        if res is None:
            self.overlay.forget()
            self.trims.clear()
            self.pulls.clear()
            self.session.release("traffic")
            return
        if self.shown.fabric is not None:
            self.overlay.set_links(self.shown.fabric, res.links.n, res.links.alive)

    def _frame(self, k: int) -> None:
        """A frame shown by the dock (a run, a step, the slider, playback): the heatmap takes
        the canvas and draws it."""
        if self.shown.result is not None:
            self.session.claim("traffic")
            self._draw()

    def _draw(self) -> None:
        fr = self.shown.current_frame()
        if fr is not None and self.shown.scale is not None:
            self.overlay.show_frame(fr, self.shown.scale)
            res = self.shown.result
            n_cable_links = res.links.n_cable_links if res is not None else 0
            self.trims.show(fr.link_trims_per_s, n_cable_links)
            self.pulls.show(fr.link_pulls_per_s, n_cable_links)
            self.hidden = False

    def _overlay_changed(self, owner: str) -> None:
        """Another overlay took the canvas: draw nothing (the run, its geometry and frame stay)."""
        if owner not in ("", "traffic") and not self.hidden:
            self.overlay.clear()
            self.trims.clear()
            self.pulls.clear()
            self.hidden = True

    def _fabric_event(self, e: Any) -> None:
        """Devices moved or cables changed: redraw the frame on the new geometry (link ids are
        stable; new cables are not in the run and stay uncoloured). A new design: the Traffic
        dock clears its run."""
        if self.shown.result is None or e is None or self.document.fabric is not self.shown.fabric:
            return
        if not self._redraw_pending:
            self._redraw_pending = True
            QtCore.QTimer.singleShot(0, self._redraw)

    def _redraw(self) -> None:
        self._redraw_pending = False
        if self.shown.result is not None and self.shown.fabric is not None:
            self.overlay.set_links(self.shown.fabric, self.shown.result.links.n, self.shown.result.links.alive)
            if self.session.owns("traffic"):      # an edit does not take the canvas back
                self._draw()
            else:
                self.hidden = True


__all__ = ["TrafficView"]
