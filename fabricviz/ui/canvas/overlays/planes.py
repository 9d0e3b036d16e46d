"""Planes as layers on the canvas: each cable in its plane's colour, one plane shown at a time if asked.

View ▸ Plane Layers (off by default, kept in QSettings) colours every cable of a multi-plane design
(:mod:`fabricviz.model.planes`: a cable takes the plane of its switch end) in its plane's colour of
:data:`PALETTE`, one path item per plane, along the cables' own gutter routes (straight lines from
end to end crossed every server row between a leaf and its hosts). View ▸ Show Plane picks the
planes drawn: all of them, or one — the other planes' cables are then veiled (a translucent line in
the background colour over them), so one plane's subnet stands out as the SM of that plane sees it.
Zoomed out (far/middle), bundles take their plane's colour, a veiled plane's bundles :data:`VEILED`.
The status bar and :meth:`PlaneLayers.legend_rows` say how many cables each plane has. A design
without planes draws nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import FabricError
from fabricviz.model.planes import cable_planes
from fabricviz.ui.canvas.overlays import remove_from_scene
from fabricviz.ui.canvas.overlays.bundled import alone, bundled, by_cable, colours_of, follow_levels, semantic_of
from fabricviz.ui.canvas.overlays.routed import route_segments, routes_path

#: One colour per plane, by its index.
PALETTE = ("#1971c2", "#e8590c", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599", "#c2255c", "#5c940d")
#: A veiled plane's bundles.
VEILED = "#ced4da"
SETTING = "canvas/plane_layers"
ROLE = "plane_layers"
OWNER = "plane_layers"
Z = 4.55             # over the port loads (4.5), under the VL layers (4.6)
WIDTH = 3.0


class PlaneLayers:
    """The planes of ``document``'s design on ``scene``; ``set_on`` shows or hides them, ``show`` picks one."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene,
                 status: Callable[[str], None] | None = None) -> None:
        self.document, self.scene = document, scene
        self.status = status or (lambda _text: None)
        self.on = False
        self.only: int | None = None              # the one plane shown (None: every plane)
        self.items: dict[tuple[int, bool], QtWidgets.QGraphicsPathItem] = {}   # (plane, veiled)
        self.names: tuple[str, ...] = ()
        self.cables = np.zeros(0, np.int64)
        self.planes = np.zeros(0, np.int64)
        self.status_text = ""
        self.menu: QtWidgets.QMenu | None = None
        document.changed.connect(lambda _e: self.refresh())
        follow_levels(scene, self._draw)

    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        self.refresh()

    def show(self, plane: int | None) -> None:
        """Draw plane ``plane`` alone, the others veiled (None: every plane)."""
        self.only = plane
        self.refresh()

    def refresh(self) -> None:
        """The cables' planes of the design now, drawn (or nothing: off, no planes)."""
        if not shiboken6.isValid(self.scene):
            return
        f = self.document.fabric
        try:
            ps = f.settings.planes
        except FabricError:                     # a refused meta.planes: lint names it; draw nothing
            ps = None
        if not self.on or not ps:
            self.clear()
            return
        self.names = tuple(p.name for p in ps.planes)
        if self.only is not None and self.only >= len(self.names):
            self.only = None
        cp = cable_planes(f)
        live = f.cable_ids().astype(np.int64)
        live = live[cp[live] >= 0]
        self.cables, self.planes = live, cp[live].astype(np.int64)
        self._draw()
        self.status_text = self.summary()
        self.status(self.status_text)

    def counts(self) -> dict[int, int]:
        """Plane index → cables it has."""
        return {k: int(n) for k, n in enumerate(np.bincount(self.planes, minlength=len(self.names))) if n}

    def summary(self) -> str:
        """``planes: plane1 512 cables, plane2 512 (showing plane2)``."""
        parts = [f"{self.names[k]} {n:,} cable{'s' if n != 1 else ''}" for k, n in self.counts().items()]
        shown = f" (showing {self.names[self.only]})" if self.only is not None else ""
        return "planes: " + ", ".join(parts) + shown

    def _draw(self) -> None:
        if not self.on or not len(self.cables) or not shiboken6.isValid(self.scene):
            return
        f = self.document.fabric
        out = bundled(self.scene)
        keep = alone(semantic_of(self.scene), self.cables) if out else np.ones(len(self.cables), bool)
        cables, planes = self.cables[keep], self.planes[keep]
        routes = route_segments(f, cables)       # along the cables' own gutter routes, never across a device
        want: dict[tuple[int, bool], np.ndarray] = {}
        for k in np.unique(planes).tolist():
            want[(k, self.only is not None and k != self.only)] = planes == k
        for key in [k for k in self.items if k not in want]:
            remove_from_scene(self.items.pop(key))
        for key, sel in want.items():
            item = self.items.get(key) or self._make(*key)
            self.items[key] = item
            item.setPath(routes_path(routes, sel))
        colours = colours_of(self.scene)
        if colours is not None:
            shown = np.where((self.planes == self.only) | (self.only is None), self.planes, len(PALETTE))
            pal = np.array([QtGui.QColor(c).rgba() for c in (*PALETTE, VEILED)], np.int64)

            def rgba(values: np.ndarray) -> np.ndarray:
                return pal[np.clip(np.nan_to_num(values).astype(np.int64), 0, len(PALETTE))]
            colours.set(OWNER, by_cable(int(f.cables_t.n), self.cables, shown.astype(np.float64)) if out else None,
                        rgba)

    def _make(self, plane: int, veiled: bool) -> QtWidgets.QGraphicsPathItem:
        if veiled:
            colour = QtGui.QColor(getattr(getattr(self.scene, "theme", None), "background", QtGui.QColor("#ffffff")))
            colour.setAlpha(200)
        else:
            colour = QtGui.QColor(PALETTE[plane % len(PALETTE)])
        pen = QtGui.QPen(colour)
        pen.setCosmetic(True)
        pen.setWidthF(WIDTH + (2.0 if veiled else 0.0))
        item = QtWidgets.QGraphicsPathItem()
        item.setPen(pen)
        item.setZValue(Z + (1e-3 if veiled else 0.0))
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, ROLE)
        item.setData(3, self.names[plane] + (" (veiled)" if veiled else ""))
        self.scene.addItem(item)
        return item

    def clear(self) -> None:
        for item in self.items.values():
            remove_from_scene(item)
        self.items = {}
        self.cables = self.planes = np.zeros(0, np.int64)
        self.status_text = ""
        if shiboken6.isValid(self.scene):
            colours = colours_of(self.scene)
            if colours is not None:
                colours.set(OWNER, None)

    def fill_menu(self, menu: QtWidgets.QMenu) -> QtWidgets.QMenu:
        """View ▸ Show Plane ▸ All Planes / each plane of the design (filled when opened)."""
        sub = menu.addMenu("Show P&lane")
        assert sub is not None
        sub.setObjectName("plane_filter_menu")
        sub.aboutToShow.connect(lambda: self._fill(sub))
        self.menu = sub
        self._fill(sub)
        return sub

    def _fill(self, sub: QtWidgets.QMenu) -> None:
        sub.clear()
        try:
            names = [p.name for p in self.document.fabric.settings.planes.planes]
        except FabricError:
            names = []
        group = QtGui.QActionGroup(sub)
        for k, text in [(None, "&All Planes"), *enumerate(names)]:
            act = QtGui.QAction(str(text), sub)
            act.setObjectName("plane_all" if k is None else f"plane_{k}")
            act.setCheckable(True)
            act.setChecked(k == self.only)
            act.setEnabled(bool(names))
            act.setStatusTip("every plane in its colour" if k is None else
                             f"{text} alone, the other planes' cables veiled (with View ▸ Plane Layers on)")
            act.triggered.connect(lambda _on, k=k: self._pick(k))
            group.addAction(act)
            sub.addAction(act)

    def _pick(self, plane: int | None) -> None:
        self.only = plane
        self.refresh()

    def legend_rows(self) -> list[tuple[str, QtGui.QColor, str]]:
        """One row per plane (cables it has), a veiled plane greyed."""
        return [(f"{self.names[k]} ({n:,} cable{'s' if n != 1 else ''})"
                 + (" veiled" if self.only is not None and k != self.only else ""),
                 QtGui.QColor(PALETTE[k % len(PALETTE)] if self.only in (None, k) else VEILED), "line")
                for k, n in self.counts().items()]


__all__ = ["PALETTE", "PlaneLayers", "SETTING", "VEILED"]
