"""VL usage on the canvas: which virtual lane carries a cable's traffic in the last traffic run.

View ▸ VL Usage (off by default, kept in QSettings). When the Traffic dock's last result has
``link_vl_gbps`` (Gbps per directed link per VL, [links, 16]), each cable is drawn in the colour
of its dominant VL (both directions added; :data:`~.vl_layers.PALETTE`, the VL layers' colours)
shaded by that VL's share of the cable's Gbps: :data:`SHARES` cut it in four levels, the full
colour for a cable one VL has (almost) to itself, paler as the mix grows. A cable with no
traffic is not drawn. One path item per (VL, level) in use.

Zoomed out (far/middle) a bundle is coloured by the dominant VL of its members' Gbps added
together and that VL's share of them (every member gets its bundle's value, so the bundle's
max and mean agree). Without per-VL rates in the result nothing is drawn and the status bar says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

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
from fabricviz.ui.canvas.overlays.vl_layers import PALETTE

if TYPE_CHECKING:
    from fabricviz.ui.canvas.scene import FabricScene

SETTING = "canvas/vl_usage"
ROLE = "vl_usage"
OWNER = "vl_usage"
#: Lower bounds of the dominant VL's share per level: ≥ 95 %, 75–95 %, 50–75 %, < 50 %.
SHARES = (0.95, 0.75, 0.5, 0.0)
SHARE_WORDS = ("≥ 95 %", "75–95 %", "50–75 %", "< 50 %")
#: How far each level's colour is blended towards white.
PALE = (0.0, 0.3, 0.5, 0.7)
Z = 4.7
WIDTH = 4.0


def usage_colour(vl: int, level: int) -> QtGui.QColor:
    """VL ``vl``'s colour at share level ``level`` (blended towards white by :data:`PALE`)."""
    c, t = QtGui.QColor(PALETTE[vl]), PALE[level]
    return QtGui.QColor(round(c.red() + (255 - c.red()) * t), round(c.green() + (255 - c.green()) * t),
                        round(c.blue() + (255 - c.blue()) * t))


_RGBA = np.array([usage_colour(v, k).rgba() for v in range(16) for k in range(len(SHARES))], np.int64)


def code_rgba(codes: np.ndarray) -> np.ndarray:
    """QRgb of each code ``VL × 4 + level``."""
    return _RGBA[np.clip(np.asarray(codes, np.int64), 0, len(_RGBA) - 1)]


def cable_vl_gbps(result: Any) -> np.ndarray | None:
    """[cables, 16] Gbps per cable per VL (its two directed links added), or None when the
    result has no per-VL rates."""
    g = getattr(result, "link_vl_gbps", None)
    if g is None:
        return None
    g = np.asarray(g, np.float64)
    n = int(result.links.n_cable_links) // 2
    return g[0:2 * n:2] + g[1:2 * n:2]


def dominant(gbps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dominant VL, its share, level) per row of ``gbps`` ([n, 16]); rows with no traffic: level -1."""
    total = gbps.sum(axis=1)
    vl = np.argmax(gbps, axis=1)
    top = gbps[np.arange(len(gbps)), vl] if len(gbps) else np.zeros(0)
    share = np.where(total > 0, top / np.where(total > 0, total, 1.0), 0.0)
    level = np.full(len(gbps), -1, np.int64)
    for k in range(len(SHARES) - 1, -1, -1):
        level[(share >= SHARES[k]) & (total > 0)] = k
    return vl, share, level


class VlUsage:
    """The VL mix of the traffic run on show (the session's, from the Traffic dock) on ``scene``;
    ``set_on`` shows or hides it."""

    def __init__(self, document: Any, scene: FabricScene,
                 status: Callable[[str], None] | None = None) -> None:
        self.document, self.scene = document, scene
        self.shown = document.session.traffic
        self.status = status or (lambda _text: None)
        self.on = False
        self.items: dict[tuple[int, int], QtWidgets.QGraphicsPathItem] = {}     # (VL, level)
        self.cables = np.zeros(0, np.int64)
        self.gbps = np.zeros((0, 16))
        self.vl = self.level = np.zeros(0, np.int64)
        self.fabric: Any = None
        self.status_text = ""
        self.shown.run_changed.connect(lambda _res: self.refresh())
        follow_levels(scene, self._draw)

    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        self.refresh()

    def refresh(self) -> None:
        """Draw the last result's VL mix (or nothing: off, no result, no per-VL rates)."""
        res, f = self.shown.result, self.shown.fabric
        per = cable_vl_gbps(res) if self.on and res is not None and f is not None else None
        if per is None:
            self.clear()
            if self.on:
                self.status_text = ("VL usage: run traffic first" if res is None else
                                    "VL usage: the last traffic run has no per-VL rates")
                self.status(self.status_text)
            return
        ids = np.arange(len(per))
        alive = f.cables_t.alive[:len(per)] if len(per) else np.zeros(0, bool)
        busy = alive & (per.sum(axis=1) > 0)
        self.cables, self.gbps, self.fabric = ids[busy], per[busy], f
        self.vl, _share, self.level = dominant(self.gbps)
        self._draw()
        counts = self.vl_counts()
        self.status_text = "VL usage: " + (", ".join(f"VL{v} leads on {n:,} cable{'s' if n != 1 else ''}"
                                                    for v, n in counts.items()) or "no traffic")
        self.status(self.status_text)

    def vl_counts(self) -> dict[int, int]:
        """Dominant VL → cables it leads on."""
        vals, cnt = np.unique(self.vl, return_counts=True)
        return {int(v): int(n) for v, n in zip(vals.tolist(), cnt.tolist(), strict=True)}

    def _draw(self) -> None:
        f = self.fabric
        if not self.on or f is None or not shiboken6.isValid(self.scene):
            return
        shown = self.scene.fabric
        out = bundled(self.scene) and shown is not None and int(shown.devices_t.n) == int(f.devices_t.n)
        keep = alone(semantic_of(self.scene), self.cables) if out else np.ones(len(self.cables), bool)
        routes, vl, level = route_segments(f, self.cables[keep]), self.vl[keep], self.level[keep]
        want = {(int(v), int(k)) for v, k in zip(vl.tolist(), level.tolist(), strict=True)}
        for key in [k for k in self.items if k not in want]:
            self._drop(self.items.pop(key))
        for key in sorted(want):
            sel = (vl == key[0]) & (level == key[1])
            item = self.items.get(key) or self._make(*key)
            self.items[key] = item
            item.setPath(routes_path(routes, sel))          # along the cables' own routes
        colours = colours_of(self.scene)
        if colours is not None:
            colours.set(OWNER, by_cable(int(f.cables_t.n), self.cables, self.bundle_codes().astype(np.float64))
                        if out else None, code_rgba)

    def bundle_codes(self) -> np.ndarray:
        """Per drawn cable: ``VL × 4 + level`` of its bundle's members' Gbps added (its own alone)."""
        b = bundle_of(semantic_of(self.scene), self.cables)
        gb = self.gbps.copy()
        inb = b >= 0
        if inb.any():
            tot = np.zeros((int(b.max()) + 1, 16))
            np.add.at(tot, b[inb], gb[inb])
            gb[inb] = tot[b[inb]]
        vl, _share, level = dominant(gb)
        return vl * len(SHARES) + level

    def _make(self, vl: int, level: int) -> QtWidgets.QGraphicsPathItem:
        pen = QtGui.QPen(usage_colour(vl, level))
        pen.setCosmetic(True)
        pen.setWidthF(WIDTH)
        pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
        item = QtWidgets.QGraphicsPathItem()
        item.setPen(pen)
        item.setZValue(Z + (vl * 4 + level) * 1e-4)
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, ROLE)
        item.setData(3, f"VL{vl} carries {SHARE_WORDS[level]} of the cable's Gbps")
        self.scene.addItem(item)
        return item

    _drop = staticmethod(remove_from_scene)

    def clear(self) -> None:
        for item in self.items.values():
            self._drop(item)
        self.items = {}
        self.cables = self.vl = self.level = np.zeros(0, np.int64)
        self.gbps = np.zeros((0, 16))
        self.fabric = None
        self.status_text = ""
        if shiboken6.isValid(self.scene):
            colours = colours_of(self.scene)
            if colours is not None:
                colours.set(OWNER, None)

    def legend_rows(self) -> list[tuple[str, QtGui.QColor, str]]:
        """One row per (dominant VL, share level) drawn."""
        return [(f"VL{v} carries {SHARE_WORDS[k]} of the cable's Gbps", usage_colour(v, k), "line")
                for v, k in sorted(self.items)]


__all__ = ["PALE", "SETTING", "SHARES", "VlUsage", "cable_vl_gbps", "code_rgba", "dominant", "usage_colour"]
