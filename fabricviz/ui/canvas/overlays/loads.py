"""Routes per port on the canvas: cables drawn by how many destinations the LFTs send over them.

What an admin reads from ``ibdmchk``/UFM's port-load view, drawn: each cable on
a switch port is coloured and thickened by the number of CA destination LIDs
routed out through it (:func:`fabricviz.ib.report.cable_loads`, the busier
direction). A balanced fat tree shows even uplinks; minhop vs updn vs ftree,
a miswired uplink or a ring routed with up/down show where routes pile up.
Cables are grouped into :data:`LEVELS` path items (one pen each), never one
item per cable.

Zoomed out (far/middle) the loads colour the bundles instead: a bundle takes the level colour of
its busiest member (or of the members' mean load, View ▸ Bundle Colour); only cables drawn as
themselves (inside open groups) keep their own lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric
from fabricviz.ui.canvas.overlays.bundled import alone, bundled, by_cable, colours_of, follow_levels, palette_colors
from fabricviz.ui.canvas.overlays.routed import route_segments, routes_path

if TYPE_CHECKING:
    from fabricviz.ui.canvas.scene import FabricScene

LEVELS = 6
#: Low → high load colours (light blue to deep orange) and widths.
COLORS = ("#a5d8ff", "#74c0fc", "#4dabf7", "#fab005", "#fd7e14", "#e8590c")
WIDTHS = (2.0, 3.0, 4.0, 5.0, 6.5, 8.0)
Z = 4.5            # under the sweep overlay's dots and paths (5+), over the scene's cables


class LoadOverlay:
    """Port loads of one routing on ``scene``; ``show`` per routing, ``clear`` to hide."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.items: list[QtWidgets.QGraphicsPathItem] = []
        self.cables = np.zeros(0, np.int64)
        self.values = np.zeros(0, np.int64)
        self.levels = np.zeros(0, np.int64)
        self.vmax = 0
        self.fabric: Fabric | None = None
        self.owner = f"loads:{id(self)}"        # its entry in the bundle colours (lessons have one too)
        self.palette = [QtGui.QColor(c) for c in COLORS]
        follow_levels(scene, self._draw)

    def _make(self) -> None:
        if self.items:
            return
        for k in range(LEVELS):
            pen = QtGui.QPen(QtGui.QColor(COLORS[k]))
            pen.setCosmetic(True)
            pen.setWidthF(WIDTHS[k])
            pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
            item = QtWidgets.QGraphicsPathItem()
            item.setPen(pen)
            item.setZValue(Z + k * 1e-3)
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            item.setData(2, "load_overlay")
            self.scene.addItem(item)
            self.items.append(item)

    def clear(self) -> None:
        for item in self.items:
            if item.scene() is not None:
                item.scene().removeItem(item)
        self.items = []
        self.cables = self.values = self.levels = np.zeros(0, np.int64)
        self.vmax = 0
        self.fabric = None
        colours = colours_of(self.scene)
        if colours is not None:
            colours.set(self.owner, None)

    @property
    def active(self) -> bool:
        return bool(self.items)

    def show(self, fabric: Fabric, routing) -> None:
        """Draw the port loads of ``routing`` (cables of ``fabric``)."""
        from fabricviz.ib.report import cable_loads
        cables, values = cable_loads(routing)
        alive = fabric.cables_t.alive[cables] if len(cables) else np.zeros(0, bool)
        cables, values = cables[alive], values[alive]
        self._make()
        self.cables, self.values = cables, values
        self.vmax = int(values.max()) if len(values) else 0
        self.levels = level_of(values, self.vmax)
        self.fabric = fabric
        self._draw()

    def _draw(self) -> None:
        """The lines of the cables drawn as themselves now; zoomed out the bundles' colours."""
        f, cables = self.fabric, self.cables
        if f is None or not self.items:
            return
        shown = self.scene.fabric
        out = bundled(self.scene) and shown is not None and int(shown.devices_t.n) == int(f.devices_t.n)
        keep = alone(self.scene.semantic, cables) if out else np.ones(len(cables), bool)
        routes, levels = route_segments(f, cables[keep]), self.levels[keep]     # the cables' own routes
        for k, item in enumerate(self.items):
            item.setPath(routes_path(routes, levels == k))
        colours = colours_of(self.scene)
        if colours is not None:
            vmax = self.vmax
            colours.set(self.owner, by_cable(int(f.cables_t.n), cables, self.values.astype(np.float64))
                        if out else None, palette_colors(self.palette, lambda v: level_of(v, vmax)))

    def level_of_cable(self, cable: int) -> int | None:
        i = np.flatnonzero(self.cables == cable)
        return int(self.levels[i[0]]) if len(i) else None

    def legend_rows(self) -> list[tuple[str, QtGui.QColor, str]]:
        """Rows (label, colour, "line") for the levels in use: routes per port ranges."""
        rows: list[tuple[str, QtGui.QColor, str]] = []
        if not self.active or not self.vmax:
            return rows
        for k in sorted(set(self.levels.tolist())):
            vals = self.values[self.levels == k]
            lo, hi = int(vals.min()), int(vals.max())
            rows.append((f"{lo}–{hi} routes per port" if lo != hi else
                         f"{lo} route{'s' if lo != 1 else ''} per port",
                         QtGui.QColor(COLORS[k]), "line"))
        return rows


def level_of(values: np.ndarray, vmax: int) -> np.ndarray:
    """Level 0..LEVELS-1 of each load: ``vmax`` cut in equal parts (a load of 0 is level 0)."""
    if vmax <= 0:
        return np.zeros(len(values), np.int64)
    return np.clip(np.ceil(values / vmax * LEVELS).astype(np.int64) - 1, 0, LEVELS - 1)


__all__ = ["COLORS", "LEVELS", "LoadOverlay", "WIDTHS", "level_of"]
