"""Overlays through semantic zoom: what an overlay hands the scene's semantic layer at far/middle.

Zoomed out, the scene draws groups, host blocks and bundles (:mod:`fabricviz.ui.canvas.items.semantic`,
``scene.semantic``); a cable's own place is not on screen any more. So an overlay gives the layer
one value per cable id and a colour mapping, and the layer colours each bundle by the hottest
(or the mean, View ▸ Bundle Colour) of its members; a traced path goes on top of the bundles
at the cables' drawn ends (``set_top_cables``). Cables drawn as themselves (inside an open group)
are the overlay's to draw, as at near.

Several overlays can be up at once (the sweep with its port loads): :class:`BundleColours`
keeps one entry per overlay and shows the highest-ranked (:data:`RANKS`), so port loads ticked
over the sweep win and unticking them brings the sweep's colours back.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas.items.segments import SegmentLods, _pairs, bounds

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.canvas.items.semantic import SemanticLayer

#: Which overlay's bundle colours show when several are set (highest wins).
RANKS = {"sweep": 0, "partitions": 1, "lesson": 1, "traffic": 2, "loads": 3, "vl_layers": 4, "vl_usage": 5,
         "counters": 6}
#: View ▸ Bundle Colour: (action object name, menu text, reduce) and the QSettings key.
REDUCE_ACTIONS = (("action_bundle_max", "&Hottest", "max"), ("action_bundle_mean", "&Mean", "mean"))
REDUCE_SETTING = "view/bundle_reduce"

Colors = Callable[[np.ndarray], np.ndarray]


def semantic_of(scene: QtWidgets.QGraphicsScene | None) -> SemanticLayer | None:
    """The scene's semantic layer (None for scenes without one: pictures, the comparison view)."""
    return getattr(scene, "semantic", None)


def bundled(scene: QtWidgets.QGraphicsScene) -> bool:
    """True while the scene draws bundles (far or middle)."""
    sem = semantic_of(scene)
    return sem is not None and sem.level != "near" and sem.bundles is not None


def _bundles(sem: SemanticLayer | None):
    return sem.bundles if sem is not None and sem.level != "near" else None


def alone(sem: SemanticLayer | None, cids: np.ndarray) -> np.ndarray:
    """Per cable of ``cids``: drawn as itself now (at its own anchors), not by a bundle nor
    hidden inside a box."""
    b = _bundles(sem)
    cids = np.asarray(cids, np.int64)
    if b is None:
        return np.ones(len(cids), bool)
    n = max(int(cids.max()) + 1 if len(cids) else 0, int(b.cable_ids.max()) + 1 if len(b.cable_ids) else 0)
    inb = np.zeros(n, bool)
    inb[b.cable_ids] = True
    return ~inb[cids]


def bundle_of(sem: SemanticLayer | None, cids: np.ndarray) -> np.ndarray:
    """Per cable of ``cids``: the bundle drawing it now, -1 (drawn as itself, inside a box, or near)."""
    cids = np.asarray(cids, np.int64)
    b = _bundles(sem)
    if b is None or not len(cids):
        return np.full(len(cids), -1, np.int64)
    n = max(int(cids.max()), int(b.cable_ids.max()) if len(b.cable_ids) else 0) + 1
    pos = np.full(n, -1, np.int64)
    pos[b.cable_ids] = np.arange(len(b.cable_ids))
    p = pos[cids]
    return np.where(p >= 0, b.of_cable[np.maximum(p, 0)], -1)


def by_cable(n: int, cids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """A length-``n`` array (one per cable id) holding ``values`` at ``cids``, NaN elsewhere."""
    out = np.full(n, np.nan)
    out[np.asarray(cids, np.int64)] = values
    return out


def palette_colors(palette: list[QtGui.QColor], index: Callable[[np.ndarray], np.ndarray]) -> Colors:
    """A ``colors`` mapping for :meth:`SemanticLayer.set_cable_values`: ``palette[index(values)]``
    as QRgb ints (an array lookup: no QColor made per bundle per frame)."""
    rgba = np.array([QtGui.QColor(c).rgba() for c in palette], np.int64)

    def colors(values: np.ndarray) -> np.ndarray:
        return rgba[np.asarray(index(values), np.int64)]
    return colors


def drawn_alone_devices(sem: SemanticLayer | None, n: int) -> np.ndarray:
    """Per device id (``n`` of them): drawn at its own place now (near; an open group's member;
    a switch at middle), so per-device marks (outlines, port dots, LIDs) belong there."""
    if sem is None or _bundles(sem) is None or sem.grouping is None:
        return np.ones(n, bool)
    g = sem.grouping
    node = sem.node_of()
    assert sem.scene.fabric is not None          # a fabric has its groups
    t = sem.scene.fabric.devices_t
    top = np.where(t.parent >= 0, t.parent, np.arange(t.n))
    out = np.zeros(n, bool)
    m = min(n, len(node))
    out[:m] = node[:m] == g.n_groups + g.n_blocks + top[:m]
    return out


def rank(owner: str) -> int:
    """:data:`RANKS` of an owner key (``"loads"`` or one overlay's ``"loads:140…"``)."""
    return RANKS.get(owner.split(":", 1)[0], 0)


class BundleColours:
    """The overlays' bundle colours and traced paths for one semantic layer: one entry per
    overlay, the highest-ranked shown (see the module doc)."""

    def __init__(self, sem: SemanticLayer) -> None:
        self.sem = sem
        self.values: dict[str, tuple[np.ndarray, Colors | None]] = {}
        self.tops: dict[str, tuple[np.ndarray, QtGui.QPen | None]] = {}
        self.shown = ""                  # the owner whose colours the layer has
        self.top_shown = ""

    def set(self, owner: str, values: np.ndarray | None, colors: Colors | None = None) -> None:
        """``owner``'s values per cable id (None: it has none now) and their colour mapping."""
        if values is None:
            if self.values.pop(owner, None) is None:
                return
        else:
            self.values[owner] = (values, colors)
        if not self.values:
            self.shown = ""
            self.sem.set_cable_values(None)
            return
        self.shown = max(self.values, key=rank)
        self.sem.set_cable_values(*self.values[self.shown])

    def set_top(self, owner: str, cids: np.ndarray | None, pen: QtGui.QPen | None = None) -> None:
        """``owner``'s traced path (cable ids, drawn on top of the bundles); None: none."""
        if cids is None or not len(cids):
            if self.tops.pop(owner, None) is None:
                return
        else:
            self.tops[owner] = (np.asarray(cids, np.int64), pen)
        if not self.tops:
            self.top_shown = ""
            self.sem.set_top_cables(None)
            return
        self.top_shown = max(self.tops, key=rank)
        self.sem.set_top_cables(*self.tops[self.top_shown])


_COLOURS: weakref.WeakKeyDictionary[object, BundleColours] = weakref.WeakKeyDictionary()


def colours_of(scene: QtWidgets.QGraphicsScene) -> BundleColours | None:
    """The :class:`BundleColours` of the scene's semantic layer (None: the scene has none)."""
    sem = semantic_of(scene)
    if sem is None:
        return None
    out = _COLOURS.get(sem)
    if out is None:
        out = _COLOURS[sem] = BundleColours(sem)
    return out


def follow_levels(scene: QtWidgets.QGraphicsScene, fn: Callable[[], None]) -> None:
    """Call ``fn`` after the semantic layer changed level, opened groups or moved bundles."""
    sem = semantic_of(scene)
    if sem is not None and fn not in sem.listeners:
        sem.listeners.append(fn)


class BundleMarks(QtWidgets.QGraphicsItem):
    """Marks over bundle lines (PFC-paused dashes, ECN dots): the lines are grouped once per zoom
    bucket (cut to the view, merged by screen cells, as the heatmap's cables), so a frame costs
    picking the marked segments and a few paths, never regrouping the lines."""

    def __init__(self, pens: dict[str, tuple[QtGui.QPen, ...]]) -> None:
        super().__init__()
        self.pens = pens                         # mark kind → the pens drawn over each other
        self.rect = QtCore.QRectF()
        self.lods: SegmentLods | None = None
        self.owner: np.ndarray | None = None
        self.marked: dict[str, np.ndarray] = {k: np.zeros(0, np.int64) for k in pens}
        self._built = None
        self._paths: list[tuple[QtGui.QPen, QtGui.QPainterPath]] = []
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        return self.rect

    def set_lines(self, ends: np.ndarray, owner: np.ndarray | None = None) -> None:
        """The bundle lines ([4, n]) marks go on (once per level / layout); ``owner``: the line
        each of these segments draws (a bundle routed round boxes is several), else one each."""
        self.owner = None if owner is None else np.asarray(owner, np.int64)
        self.prepareGeometryChange()
        self.lods = SegmentLods(ends, bounds(ends)) if ends.shape[1] else None
        box = bounds(ends, 8.0)
        self.rect = QtCore.QRectF(box[0], box[1], box[2] - box[0], box[3] - box[1]) if ends.shape[1] \
            else QtCore.QRectF()
        self.set_marked()

    def set_marked(self, **marked: np.ndarray) -> None:
        """Lines (indices into the ends) carrying each kind of mark now; the others none."""
        self.marked = {k: np.asarray(marked.get(k, ()), np.int64) for k in self.pens}
        self._built = None
        on = self.lods is not None and any(len(v) for v in self.marked.values())
        self.setVisible(on)
        self.update()

    def _lod(self, painter: QtGui.QPainter | None = None):
        assert self.lods is not None                 # drawn only with lines set
        if painter is None:
            return self.lods.lod
        dev = painter.device()
        return self.lods.for_view(painter.worldTransform(), dev.width(), dev.height(), 0)

    def segments_of(self, kind: str) -> np.ndarray:
        """Drawn segments (of the last grouping) carrying mark ``kind``."""
        lod = self.lods.lod if self.lods is not None else None
        lines = self.marked.get(kind, np.zeros(0, np.int64))
        if self.owner is not None:
            lines = np.flatnonzero(np.isin(self.owner, lines))
        if lod is None or not len(lines):
            return np.zeros(0, np.int64)
        g = lod.group[lines]
        return np.unique(g[g >= 0])

    def shows(self, kind: str, line: int) -> bool:
        """The segment drawing ``line`` now carries mark ``kind``."""
        if self.lods is None:
            return False
        g = self.lods.lod.group[np.flatnonzero(self.owner == line) if self.owner is not None else [line]]
        return len(g) > 0 and bool((g >= 0).all() and np.isin(g, self.segments_of(kind)).all())

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        if self.lods is None:
            return
        lod = self._lod(painter)
        if self._built is not lod:
            paths = []
            for kind, pens in self.pens.items():
                g = self.segments_of(kind)
                if len(g):
                    sel = np.empty(2 * len(g), np.int64)
                    sel[0::2], sel[1::2] = 2 * g, 2 * g + 1
                    path = _pairs(lod.x[sel], lod.y[sel])
                    paths += [(pen, path) for pen in pens]
            self._paths, self._built = paths, lod
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        for pen, path in self._paths:
            painter.setPen(pen)
            painter.drawPath(path)


# ---------------------------------------------------------------------- View ▸ Bundle Colour
def bundle_colour_menu(window: QtWidgets.QMainWindow, menu: QtWidgets.QMenu,
                       settings: QtCore.QSettings, scene: QtWidgets.QGraphicsScene) -> QtGui.QActionGroup:
    """View ▸ Bundle Colour ▸ Hottest / Mean: how every overlay colours a bundle from its members
    (one exclusive choice, kept in ``settings``; hottest by default, so no overloaded link hides)."""
    sub = menu.addMenu("Bundle &Colour")
    sub.setObjectName("bundle_colour_menu")
    sub.setToolTipsVisible(True)
    group = QtGui.QActionGroup(window)
    group.setExclusive(True)
    how = str(settings.value(REDUCE_SETTING, "max"))
    how = how if how in ("max", "mean") else "max"
    tips = {"max": "zoomed out, a bundle of cables shows its hottest member (an overloaded link never hides)",
            "mean": "zoomed out, a bundle of cables shows the mean of its members"}
    sem = semantic_of(scene)

    def choose(value: str) -> None:
        settings.setValue(REDUCE_SETTING, value)
        if sem is not None:
            sem.set_reduce(value)

    for name, text, value in REDUCE_ACTIONS:
        a = QtGui.QAction(text, window)
        a.setObjectName(name)
        a.setCheckable(True)
        a.setChecked(value == how)
        a.setStatusTip(tips[value])
        a.setToolTip(tips[value])
        a.triggered.connect(lambda _checked=False, v=value: choose(v))
        group.addAction(a)
        sub.addAction(a)
        window.addAction(a)
    if sem is not None:
        sem.set_reduce(how)
    return group


__all__ = ["BundleColours", "BundleMarks", "RANKS", "REDUCE_ACTIONS", "REDUCE_SETTING", "alone", "bundle_colour_menu",
           "bundle_of", "bundled", "by_cable", "colours_of", "drawn_alone_devices", "follow_levels", "palette_colors",
           "rank", "semantic_of"]
