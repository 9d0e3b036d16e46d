"""The design against a discovered fabric on the canvas (File ▸ Compare with Discovered…).

Draws the report in ``session.diff`` on the design, one item per line of it:

- a design cable not found as designed (missing, on a wrong port or peer, one of a swapped pair, or
  a cable of a missing device): a dashed amber line over the cable;
- what was found instead (the actual peer of a wrong port or peer, the crossed pair, an extra cable):
  a red line between the design's ports it joins, through the gutters as a cable there would run
  (never across a device), the report's line (naming the actual peer) as its tooltip;
- a cable that came up below its design rate: a solid amber line over it.

The difference picked in the Differences dock (``session.diff.pick``) is drawn wider. Whatever the
report says is cleared when it is (another comparison, another design, an edit of the design).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.check.diff import Difference, DiffKind
from fabricviz.ui.canvas.items.cables import routed_links, routed_path
from fabricviz.ui.canvas.overlays import remove_from_scene

ROLE = "diff"
Z = 5.35
MISSING_COLOR = (224, 138, 0)
FOUND_COLOR = (211, 58, 44)
WIDTH, PICKED_WIDTH = 4.0, 8.0
#: The kinds whose design cables are not there as designed (drawn dashed).
NOT_AS_DESIGNED = (DiffKind.MISSING_CABLE, DiffKind.WRONG_PORT, DiffKind.WRONG_PEER, DiffKind.SWAPPED,
                   DiffKind.DEVICE_MISSING)


def _pen(rgb: tuple[int, int, int], width: float, dashed: bool) -> QtGui.QPen:
    pen = QtGui.QPen(QtGui.QColor(*rgb), width,
                     QtCore.Qt.PenStyle.DashLine if dashed else QtCore.Qt.PenStyle.SolidLine)
    pen.setCosmetic(True)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    return pen


class DiffOverlay:
    """The differences of ``document.session.diff`` drawn on ``scene``."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene) -> None:
        self.document, self.scene = document, scene
        self.items: list[QtWidgets.QGraphicsPathItem] = []
        self.of_row: dict[int, list[QtWidgets.QGraphicsPathItem]] = {}
        shown = document.session.diff
        shown.changed.connect(self.draw)
        shown.picked.connect(self._picked)
        document.changed.connect(self._design_changed)

    def _design_changed(self, event: Any) -> None:
        """Devices moved: drawn where they are now; any other edit: the report is of a design
        that is gone (its ids may name other things now), so it is dropped."""
        shown = self.document.session.diff
        if shown.report is None:
            return
        if event is not None and getattr(event, "attr", None) == "pos":
            self.draw()
        else:
            shown.clear()

    def draw(self) -> None:
        self._drop()
        report = self.document.session.diff.report
        if report is None or not shiboken6.isValid(self.scene):
            return
        for i, d in enumerate(report.differences):
            self.of_row[i] = [it for it in self._items_of(d, i) if it is not None]
            self.items += self.of_row[i]
        self._picked(self.document.session.diff.pick)

    def _items_of(self, d: Difference, row: int) -> list[QtWidgets.QGraphicsPathItem | None]:
        f = self.document.fabric
        out: list[QtWidgets.QGraphicsPathItem | None] = []
        cids = np.array([c for c in d.cables if f.cables_t.exists(int(c))], np.int64)
        if len(cids) and (d.kind in NOT_AS_DESIGNED or d.kind is DiffKind.RATE_BELOW):
            out.append(self._item(routed_path(f, cids), d, row, MISSING_COLOR,
                                  d.kind is not DiffKind.RATE_BELOW))
        found = [x for x in d.found if x.port_a >= 0 and x.port_b >= 0
                 and f.ports_t.exists(x.port_a) and f.ports_t.exists(x.port_b)]
        if found:
            pa = np.array([x.port_a for x in found], np.int64)
            pb = np.array([x.port_b for x in found], np.int64)
            out.append(self._item(routed_links(f, pa, pb), d, row, FOUND_COLOR, False))
        return out

    def _item(self, path: QtGui.QPainterPath, d: Difference, row: int, rgb: tuple[int, int, int],
              dashed: bool) -> QtWidgets.QGraphicsPathItem:
        item = QtWidgets.QGraphicsPathItem(path)
        item.setPen(_pen(rgb, WIDTH, dashed))
        item.setZValue(Z)
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, ROLE)
        item.setData(3, d.kind.value)
        item.setData(4, row)
        item.setToolTip(d.line)
        self.scene.addItem(item)
        return item

    def _picked(self, row: int | None) -> None:
        for i, items in self.of_row.items():
            for item in items:
                pen = item.pen()
                pen.setWidthF(PICKED_WIDTH if i == row else WIDTH)
                item.setPen(pen)
                item.setZValue(Z + (0.01 if i == row else 0.0))

    def _drop(self) -> None:
        for item in self.items:
            remove_from_scene(item)
        self.items, self.of_row = [], {}


__all__ = ["DiffOverlay", "FOUND_COLOR", "MISSING_COLOR", "ROLE"]
