"""VL layers on the canvas: each cable in the colour of the virtual lanes the routed paths use on it.

View ▸ VL Layers (off by default, kept in QSettings). The routing is the one the SM pushes — the
Subnet Manager dock's sweep when one ran (its engine: dfsssp and lash put paths on several
SLs), else the design's default routing — and every path's SL goes through the design's SL2VL
tables (:func:`fabricviz.ib.vl_layers.walk_vls`, worked out by the document's job runner). A cable
carrying one VL (either direction) is drawn in that VL's colour of :data:`PALETTE`; one carrying
several is striped: one dashed line per VL, the dashes staggered so the colours alternate along
it. The paths are one item per (VL, stripe, stripes), never one per cable.

Zoomed out (far/middle) a bundle takes the colour of the one VL all its members carry, or
:data:`MIXED` when they carry several between them (:mod:`fabricviz.ui.canvas.overlays.bundled`).
The status bar and :meth:`VlLayers.legend_rows` say how many cables each VL is on.

A lesson step pins the layers it computed (:meth:`VlLayers.pin`): they are drawn whatever the
View menu says until :meth:`VlLayers.unpin` (:func:`layers_of` finds the window's overlay).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas.overlays import remove_from_scene
from fabricviz.ui.canvas.overlays.bundled import (
    alone,
    bundle_of,
    bundled,
    by_cable,
    colours_of,
    follow_levels,
    semantic_of,
)
from fabricviz.ui.canvas.overlays.routed import route_segments, routes_path
from fabricviz.ui.document.partitions import BACKGROUND_DEVICES
from fabricviz.ui.document.routing import RoutingRefused, lft_engine

#: One colour per VL 0..15 (VL15, management, never carries a routed path).
PALETTE = ("#1971c2", "#e8590c", "#2f9e44", "#ae3ec9", "#f08c00", "#0c8599", "#c2255c", "#5c940d",
           "#364fc7", "#a61e4d", "#087f5b", "#d9480f", "#862e9c", "#1098ad", "#e67700", "#495057")
#: A bundle whose members carry several VLs between them.
MIXED = "#212529"
SETTING = "canvas/vl_layers"
ROLE = "vl_layers"
OWNER = "vl_layers"
Z = 4.6              # over the port loads (4.5), under the sweep overlay (5+)
WIDTH = 4.0
DASH = 3.0           # dash length, in pen widths
JOB = "vl-layers"


def vls_of(mask: int) -> tuple[int, ...]:
    return tuple(v for v in range(16) if int(mask) >> v & 1)


def mask_rgba(masks: np.ndarray) -> np.ndarray:
    """QRgb of each VL mask: its VL's colour for one VL, :data:`MIXED` for several."""
    m = np.asarray(masks, np.int64)
    single = (m > 0) & ((m & (m - 1)) == 0)
    vl = np.where(single, np.log2(np.where(single, m, 1)).astype(np.int64), 0)
    pal = np.array([QtGui.QColor(c).rgba() for c in PALETTE], np.int64)
    return np.where(single, pal[vl], QtGui.QColor(MIXED).rgba())


def bundle_masks(sem: Any, cables: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Per cable of ``cables``: the union of the VL masks of every member of its bundle (its own
    mask when it is drawn alone), so a bundle's max and mean are both that union."""
    b = bundle_of(sem, cables)
    out = np.asarray(masks, np.int64).copy()
    inb = b >= 0
    if inb.any():
        n = int(b.max()) + 1
        union = np.zeros(n, np.int64)
        np.bitwise_or.at(union, b[inb], out[inb])
        out[inb] = union[b[inb]]
    return out


def vl_job(routing: Any) -> Callable[[Callable[[float], None]], tuple[np.ndarray, np.ndarray, str]]:
    """The worker's function: (cable ids, VL masks, engine) of ``routing``'s paths."""
    def run(_progress: Callable[[float], None]) -> tuple[np.ndarray, np.ndarray, str]:
        from fabricviz.ib.vl_layers import cable_vls, design_sl2vl, walk_vls
        w = walk_vls(routing, sl2vl=design_sl2vl(routing))
        cables, masks = cable_vls(routing, w)
        return cables, masks, str(routing.routed_by)
    return run


def layers_of(scene: QtWidgets.QGraphicsScene) -> VlLayers | None:
    """The VL layers drawn on ``scene`` (the window's View ▸ VL Layers), if any."""
    layers = getattr(scene, "_vl_layers", None)
    return layers if isinstance(layers, VlLayers) else None


class VlLayers:
    """The VL layers of ``document``'s routing on ``scene``; ``set_on`` shows or hides them."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene,
                 status: Callable[[str], None] | None = None) -> None:
        self.document, self.scene = document, scene
        self.status = status or (lambda _text: None)
        self.on = False
        self.items: dict[tuple[int, int, int], QtWidgets.QGraphicsPathItem] = {}   # (VL, stripe, stripes)
        self.cables = np.zeros(0, np.int64)
        self.masks = np.zeros(0, np.int64)
        self.engine = ""
        self.status_text = ""
        self._routing: Any = None
        self.pinned = False                   # a lesson step's layers are drawn
        self.names: tuple[str, ...] | None = None   # pinned by layer: each bit's name
        if layers_of(scene) is None:
            scene._vl_layers = self           # type: ignore[attr-defined]  # (layers_of)
        document.changed.connect(lambda _e: self.refresh())
        document.routing.ready.connect(lambda key: self.refresh() if key in ("lft", "lft:sweep") else None)
        follow_levels(scene, self._draw)

    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        self.refresh()

    def pin(self, cables: Any, masks: Any, engine: str, names: tuple[str, ...] | None = None) -> None:
        """Draw these layers (a lesson step's: cable ids, VL masks) whatever View ▸ VL Layers says;
        ``names``: the masks' bits are the engine's layers, named so (legend, status), not VLs."""
        if self.pinned or not self.on:
            self.clear()
        self.pinned = True
        self.names = tuple(names) if names else None
        self._routing = None
        self.cables = np.asarray(cables, np.int64)
        self.masks = np.asarray(masks, np.int64)
        self.engine = str(engine)
        alive = self.document.fabric.cables_t.alive
        keep = self.cables < len(alive)
        keep[keep] = alive[self.cables[keep]]
        self.cables, self.masks = self.cables[keep], self.masks[keep]
        self._draw()
        self.status_text = self.summary()

    def unpin(self) -> None:
        """Back to what View ▸ VL Layers says (the design's own routing, or nothing)."""
        if self.pinned:
            self.pinned = False
            self.names = None
            self.clear()
            self.refresh()

    # ------------------------------------------------------------------ what to draw
    def _routing_now(self) -> Any:
        """The SM's routing of the design now: the sweep's, else the default (computed in the
        routing cache: at once for small designs, else requested and drawn when ready)."""
        cache, f = self.document.routing, self.document.fabric
        for r in cache.routings():
            if r.subnet.fabric is f:
                return r
        if len(f) > BACKGROUND_DEVICES:
            cache.request("lft", lft_engine)
            return None
        try:
            return cache.compute("lft", lft_engine)
        except RoutingRefused:
            return None

    def refresh(self) -> None:
        """Work out the VLs of the current routing (in the job runner) and draw them, or clear."""
        from fabricviz.sim.reach import fabric_tech
        f = self.document.fabric
        if self.pinned:
            self._draw()
            return
        if not self.on or fabric_tech(f) != "ib":
            self.clear()
            return
        r = self._routing_now()
        if r is None:
            self.clear()
            return
        if r is self._routing and self.items:
            self._draw()
            return
        self._routing = r
        self.document.jobs.submit(JOB, vl_job(r), on_done=lambda got, r=r: self._done(r, got),
                                  on_error=lambda msg: self.status(f"VL layers: {msg}"))

    def _done(self, routing: Any, got: tuple[np.ndarray, np.ndarray, str]) -> None:
        if not self.on or self.pinned or routing is not self._routing or not shiboken6.isValid(self.scene):
            return
        self.cables, self.masks, self.engine = got
        alive = self.document.fabric.cables_t.alive
        keep = self.cables < len(alive)
        keep[keep] = alive[self.cables[keep]]
        self.cables, self.masks = self.cables[keep], self.masks[keep]
        self._draw()
        self.status_text = self.summary()
        self.status(self.status_text)

    def summary(self) -> str:
        """``VL layers (dfsssp): VL0 on 40 cables, VL1 on 12; 8 cables carry several VLs``."""
        counts = self.vl_counts()
        if not counts:
            return f"VL layers ({self.engine}): no routed paths"
        parts = [f"{self._name(v)} on {n:,} cable{'s' if n != 1 else ''}" for v, n in counts.items()]
        mixed = int(np.count_nonzero(self.masks & (self.masks - 1)))
        what = "layers" if self.names else "VLs"
        return f"VL layers ({self.engine}): " + ", ".join(parts) + \
            (f"; {mixed:,} cable{'s' if mixed != 1 else ''} carry several {what} (striped)" if mixed else "")

    def _name(self, bit: int) -> str:
        """``VL3``, or the engine layer's name when pinned by layer."""
        if self.names and bit < len(self.names):
            return self.names[bit]
        return f"VL{bit}"

    def vl_counts(self) -> dict[int, int]:
        """VL → cables it is on (a cable with several VLs counts for each)."""
        return {v: int(np.count_nonzero(self.masks >> v & 1)) for v in range(16)
                if np.count_nonzero(self.masks >> v & 1)}

    def _draw(self) -> None:
        """Lines of the cables drawn as themselves now; zoomed out the bundles' colours."""
        if not (self.on or self.pinned) or not len(self.cables) or not shiboken6.isValid(self.scene):
            return
        f = self.document.fabric
        out = bundled(self.scene)
        keep = alone(semantic_of(self.scene), self.cables) if out else np.ones(len(self.cables), bool)
        cables, masks = self.cables[keep], self.masks[keep]
        routes = route_segments(f, cables)       # along the cables' own gutter routes
        paths: dict[tuple[int, int, int], np.ndarray] = {}
        for m in np.unique(masks).tolist():
            vls = vls_of(m)
            sel = masks == m
            for k, v in enumerate(vls):
                key = (v, k, len(vls))
                paths[key] = sel if key not in paths else paths[key] | sel
        for key in [k for k in self.items if k not in paths]:
            self._drop(self.items.pop(key))
        for key, sel in paths.items():
            item = self.items.get(key) or self._make(*key)
            self.items[key] = item
            item.setPath(routes_path(routes, sel))
        colours = colours_of(self.scene)
        if colours is not None:
            values = by_cable(int(f.cables_t.n), self.cables,
                              bundle_masks(semantic_of(self.scene), self.cables, self.masks).astype(np.float64))
            colours.set(OWNER, values if out else None, mask_rgba)

    def _make(self, vl: int, stripe: int, stripes: int) -> QtWidgets.QGraphicsPathItem:
        pen = QtGui.QPen(QtGui.QColor(PALETTE[vl]))
        pen.setCosmetic(True)
        pen.setWidthF(WIDTH)
        pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
        if stripes > 1:                   # dashes of every VL of the cable, one after the other
            pen.setDashPattern([DASH, DASH * (stripes - 1)])
            pen.setDashOffset(-DASH * stripe)
        item = QtWidgets.QGraphicsPathItem()
        item.setPen(pen)
        item.setZValue(Z + vl * 1e-3)
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, ROLE)
        what = "layers" if self.names else "VLs"
        item.setData(3, self._name(vl) + (f" (striped: a cable with several {what})" if stripes > 1 else ""))
        self.scene.addItem(item)
        return item

    _drop = staticmethod(remove_from_scene)

    def clear(self) -> None:
        for item in self.items.values():
            self._drop(item)
        self.items = {}
        self.cables = self.masks = np.zeros(0, np.int64)
        self._routing = None
        self.status_text = ""
        if shiboken6.isValid(self.scene):
            colours = colours_of(self.scene)
            if colours is not None:
                colours.set(OWNER, None)

    def legend_rows(self) -> list[tuple[str, QtGui.QColor, str]]:
        """One row per VL in use (cables it is on), and one for bundles with several VLs."""
        rows: list[tuple[str, QtGui.QColor, str]] = [
            (f"{self._name(v)} ({n:,} cable{'s' if n != 1 else ''})", QtGui.QColor(PALETTE[v]), "line")
            for v, n in self.vl_counts().items()]
        if np.count_nonzero(self.masks & (self.masks - 1)):
            what = "layers" if self.names else "VLs"
            rows.append((f"several {what} on one cable: striped (bundles: dark)", QtGui.QColor(MIXED), "dash"))
        return rows


__all__ = ["MIXED", "PALETTE", "SETTING", "VlLayers", "bundle_masks", "layers_of", "mask_rgba", "vls_of"]
