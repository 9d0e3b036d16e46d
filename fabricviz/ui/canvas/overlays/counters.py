"""Port counters on the canvas: View ▸ Colour by ▸ Errors / XmitWait.

The report on show (``session.counters``, read by the Port Counters dock) gives each cable with a
counted end a value: its ranked error counters added (both ends), or its PortXmitWait. A counted
cable at zero is drawn thin and pale green; the others in four steps from yellow to dark red on a logarithmic
scale up to the worst link's value (:func:`levels`), so one sick cable stands out among
thousands. Cables no file counted keep their normal look. Zoomed out, a bundle takes the worst
(or mean, View ▸ Bundle Colour) level of its members. One path item per level.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.check.counters import Metric
from fabricviz.ui.canvas.items.cables import routed_path
from fabricviz.ui.canvas.overlays import remove_from_scene
from fabricviz.ui.canvas.overlays.bundled import (
    alone,
    bundled,
    by_cable,
    colours_of,
    follow_levels,
    palette_colors,
    semantic_of,
)
from fabricviz.ui.canvas.overlays.routed import route_segments, routes_path

if TYPE_CHECKING:
    from fabricviz.ui.canvas.scene import FabricScene

OWNER = "counters"
ROLE = "counters"
#: level 0: counted and clean; 1..4: above zero, up to the worst value (log scale)
PALETTE = ("#8fd19e", "#e3c21b", "#f08a24", "#d8382a", "#7d1010")
WORDS = ("counted, none", "low", "medium", "high", "worst")
#: the View ▸ Colour by entries: (object name, text, metric)
CHOICES: tuple[tuple[str, str, Metric | None], ...] = (
    ("action_colour_by_none", "&Nothing", None),
    ("action_colour_by_errors", "&Errors (port counters)", Metric.ERRORS),
    ("action_colour_by_xmit_wait", "&XmitWait (port counters)", Metric.XMIT_WAIT),
)
#: over the cables and bundle lines (0.2), under group frames, host blocks, devices and labels: a sick
#: link never hides a device or its name
Z = 0.35
WIDTH = 4.0
#: clean counted links: thin and pale, so that the sick ones stand out among thousands
CLEAN_WIDTH = 1.5
_COLOURS = palette_colors([QtGui.QColor(c) for c in PALETTE],
                          lambda v: np.clip(np.nan_to_num(np.round(v)), 0, len(PALETTE) - 1))


def levels(values: np.ndarray) -> np.ndarray:
    """Per value: 0 at zero, else 1..4 by ``log1p(value) / log1p(worst)`` in quarters."""
    v = np.asarray(values, np.float64)
    top = float(v.max()) if len(v) else 0.0
    if top <= 0:
        return np.zeros(len(v), np.int64)
    frac = np.log1p(np.maximum(v, 0)) / np.log1p(top)
    return np.where(v > 0, 1 + np.minimum(3, np.floor(frac * 4 - 1e-9).clip(0)), 0).astype(np.int64)


class CounterColours:
    """The session's counters report drawn on ``scene`` by the session's metric."""

    def __init__(self, document: Any, scene: FabricScene, status: Callable[[str], None] | None = None) -> None:
        self.document, self.scene = document, scene
        self.shown = document.session.counters
        self.status = status or (lambda _text: None)
        self.items: dict[int, QtWidgets.QGraphicsPathItem] = {}
        self.cables = np.zeros(0, np.int64)
        self.level = np.zeros(0, np.int64)
        self.actions: dict[Metric | None, QtGui.QAction] = {}
        self.halo: QtWidgets.QGraphicsPathItem | None = None    # the selected cables, under their colour
        self.shown.report_changed.connect(lambda _r: self.refresh())
        scene.selectionChanged.connect(self._draw_selected)
        self.shown.metric_changed.connect(self._metric_changed)
        follow_levels(scene, self._draw)

    # ------------------------------------------------------------------ the menu
    def fill_menu(self, menu: QtWidgets.QMenu) -> QtWidgets.QMenu:
        """View ▸ Colour by ▸ Nothing / Errors / XmitWait (one checked)."""
        sub = menu.addMenu("Colour &by")
        assert sub is not None
        sub.setObjectName("colour_by_menu")
        group = QtGui.QActionGroup(sub)
        for name, text, metric in CHOICES:
            act = QtGui.QAction(text, sub)
            act.setObjectName(name)
            act.setCheckable(True)
            act.setChecked(metric == self.shown.metric)
            act.setStatusTip("cables coloured by their ends' port counters (File ▸ Load Port Counters…)"
                             if metric is not None else "cables in their normal colours")
            act.triggered.connect(lambda _on, m=metric: self.shown.set_metric(m))
            group.addAction(act)
            sub.addAction(act)
            self.actions[metric] = act
        return sub

    def _metric_changed(self, metric: Metric | None) -> None:
        act = self.actions.get(metric)
        if act is not None and shiboken6.isValid(act):
            act.setChecked(True)
        self.refresh()

    # ------------------------------------------------------------------ drawing
    def refresh(self) -> None:
        report, metric = self.shown.report, self.shown.metric
        f = self.document.fabric
        if report is None or metric is None or report.n_cables != int(f.cables_t.n):
            self.clear()
            if metric is not None and report is None:
                self.status("Colour by port counters: load them first (File ▸ Load Port Counters…)")
            return
        values = report.cable_values(metric)
        ids = np.flatnonzero(~np.isnan(values))
        ids = ids[f.cables_t.alive[ids]]
        self.cables, self.level = ids, levels(values[ids])
        self._draw()
        sick = int(np.count_nonzero(self.level))
        worst = report.worst(metric, 1)
        self.status(f"Colour by {metric.value}: {sick:,} of {len(ids):,} counted links above zero"
                    + (f"; worst {worst[0].a.name} — {worst[0].b.name}" if worst else ""))

    def _draw(self) -> None:
        if not shiboken6.isValid(self.scene):
            return
        f = self.document.fabric
        out = bundled(self.scene)
        keep = alone(semantic_of(self.scene), self.cables) if out else np.ones(len(self.cables), bool)
        routes, lv = route_segments(f, self.cables[keep]), self.level[keep]
        want = set(np.unique(lv).tolist())
        for k in [k for k in self.items if k not in want]:
            remove_from_scene(self.items.pop(k))
        for k in sorted(want):
            sel = lv == k
            item = self.items.get(k) or self._make(k)
            self.items[k] = item
            item.setPath(routes_path(routes, sel))          # along the cables' own routes
        colours = colours_of(self.scene)
        if colours is not None:
            colours.set(OWNER, by_cable(int(f.cables_t.n), self.cables, self.level.astype(np.float64))
                        if out and len(self.cables) else None, _COLOURS)
        self._draw_selected()

    def _draw_selected(self) -> None:
        """A halo in the selection colour around the selected cables this overlay colours (the
        canvas's own selection mark lies under the overlay): a worst link clicked shows."""
        if not shiboken6.isValid(self.scene):
            return
        sel = np.asarray(sorted(getattr(self.scene, "selected_cables", ())), np.int64)
        on = self.cables[np.isin(self.cables, sel)] if len(sel) and len(self.items) else np.zeros(0, np.int64)
        if not len(on):
            if self.halo is not None:
                self.halo.setPath(QtGui.QPainterPath())
            return
        if self.halo is None or not shiboken6.isValid(self.halo):
            pen = QtGui.QPen(self.scene.theme.select_pen.color())
            pen.setCosmetic(True)
            pen.setWidthF(WIDTH + 6)
            pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
            self.halo = QtWidgets.QGraphicsPathItem()
            self.halo.setPen(pen)
            self.halo.setZValue(Z - 1e-3)
            self.halo.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            self.scene.addItem(self.halo)
        self.halo.setPath(routed_path(self.document.fabric, on))

    def _make(self, level: int) -> QtWidgets.QGraphicsPathItem:
        pen = QtGui.QPen(QtGui.QColor(PALETTE[level]))
        pen.setCosmetic(True)
        pen.setWidthF(WIDTH if level else CLEAN_WIDTH)
        pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
        item = QtWidgets.QGraphicsPathItem()
        item.setPen(pen)
        item.setZValue(Z + level * 1e-3)
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, ROLE)
        item.setData(3, f"port counters: {WORDS[level]}")
        self.scene.addItem(item)
        return item

    def clear(self) -> None:
        for item in self.items.values():
            remove_from_scene(item)
        remove_from_scene(self.halo)
        self.halo = None
        self.items = {}
        self.cables = self.level = np.zeros(0, np.int64)
        if shiboken6.isValid(self.scene):
            colours = colours_of(self.scene)
            if colours is not None:
                colours.set(OWNER, None)

    def legend_rows(self) -> list[tuple[str, QtGui.QColor, str]]:
        """One row per level drawn (File ▸ Export Image's legend), e.g. ``port counters, errors: worst``."""
        metric = self.shown.metric
        if metric is None:
            return []
        return [(f"port counters, {metric.value}: {WORDS[k]}", QtGui.QColor(PALETTE[k]), "line")
                for k in sorted(self.items)]


__all__ = ["CHOICES", "CounterColours", "PALETTE", "levels"]
