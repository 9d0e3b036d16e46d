"""What the semantic drawing (:mod:`fabricviz.ui.canvas.items.semantic`) shows under a point or
a rectangle, and what a selection of its cables is in words: :class:`SemanticQueries`, the
object a :class:`~fabricviz.ui.canvas.items.semantic.SemanticLayer` holds as ``queries``."""

from __future__ import annotations

import html
from typing import Any, Protocol

import numpy as np
from PySide6 import QtCore

from fabricviz.ui.canvas.items.bundles import hit_text, node_name
from fabricviz.ui.canvas.items.gutters import SEGS
from fabricviz.ui.canvas.items.routes import segment_distance

FAR, MIDDLE, NEAR = "far", "middle", "near"


class SemanticState(Protocol):
    """What the queries read of the layer that holds them (a :class:`SemanticLayer`)."""

    scene: Any
    level: str
    expanded: set[int]
    bundles: Any
    routes: Any
    draw: Any
    scale: float
    cable_pos: np.ndarray
    near: np.ndarray
    near_cids: np.ndarray

    @property
    def grouping(self) -> Any: ...

    def refresh(self) -> None: ...

    def geometry(self) -> dict[str, np.ndarray] | None: ...


class SemanticQueries:
    """Hit tests and descriptions over a :class:`SemanticLayer`'s state."""

    def __init__(self, layer: SemanticState) -> None:
        self.layer = layer

    def bundle_at(self, scene_pos: QtCore.QPointF, tol_scene: float) -> int | None:
        """The bundle drawn under ``scene_pos`` (within ``tol_scene`` of its line's edge)."""
        self.layer.refresh()
        if self.layer.bundles is None or not len(self.layer.bundles):
            return None
        r = self.layer.routes
        d = segment_distance(r.seg, scene_pos)
        reach = tol_scene + r.width[r.owner] / 2 / max(self.layer.scale, 1e-12)
        ok = np.flatnonzero(d <= reach)
        return int(r.owner[ok[np.argmin(d[ok])]]) if len(ok) else None

    def selection_text(self, cids: set[int] | list[int]) -> str:
        """``"bundle <b>pod 3 ↔ 64 cores</b>: 64 × 400G (25.6 Tb/s), 64 cables"`` when ``cids``
        are exactly one drawn bundle's cables (the inspector's title), else ""."""
        b, cable_pos = self.layer.bundles, self.layer.cable_pos
        sel = np.fromiter(cids, np.int64, len(cids))
        if self.layer.level == NEAR or b is None or not len(sel) or sel.max() >= len(cable_pos) or sel.min() < 0:
            return ""
        pos = cable_pos[sel]
        ks = np.unique(b.of_cable[pos[pos >= 0]]) if (pos >= 0).all() else np.zeros(0, np.int64)
        if len(ks) != 1 or ks[0] < 0 or int(b.count[ks[0]]) != len(set(sel.tolist())):
            return ""
        k = int(ks[0])
        n = int(b.count[k])
        return (f"bundle <b>{html.escape(self.describe_bundle(k))}</b>: {b.label(k)} "
                f"({b.gbps[k] / 1000:g} Tb/s), {n} cable{'' if n == 1 else 's'}")

    def group_at(self, scene_pos: QtCore.QPointF) -> int | None:
        """The group whose box (an open group: its frame) holds ``scene_pos``, the smallest first."""
        geom = self.layer.geometry()
        if geom is None:
            return None
        box = geom["box"]
        px, py = scene_pos.x(), scene_pos.y()
        hit = np.flatnonzero((box[0] <= px) & (px <= box[2]) & (box[1] <= py) & (py <= box[3]))
        if not len(hit):
            return None
        area = (box[2, hit] - box[0, hit]) * (box[3, hit] - box[1, hit])
        return int(hit[np.argmin(area)])

    def group_rect(self, g: int) -> QtCore.QRectF:
        """Scene rectangle of group ``g``'s box."""
        geom = self.layer.geometry()
        if geom is None or not 0 <= g < geom["box"].shape[1]:
            return QtCore.QRectF()
        left, top, right, bottom = geom["box"][:, g].tolist()
        return QtCore.QRectF(left, top, right - left, bottom - top)

    def pick(self, scene_pos: QtCore.QPointF, tol_scene: float) -> tuple[str, int] | None:
        """What the semantic drawing shows under a point: ``("switch", device)``, ``("block", b)``,
        ``("group", g)`` (a collapsed box), ``("bundle", k)``, ``("cable", id)`` (drawn as itself in
        an open group) or ``("frame", g)`` (an open group's frame)."""
        self.layer.refresh()
        geom = self.layer.geometry()
        if self.layer.level == NEAR or geom is None:
            return None
        px, py = scene_pos.x(), scene_pos.y()
        if self.layer.level == MIDDLE:
            for what, ids, r in (("switch", geom["sw_ids"], geom["sw_rects"]),
                                 ("block", geom["blk_ids"], geom["blk_rects"])):
                hit = np.flatnonzero((r[0] - tol_scene <= px) & (px <= r[2] + tol_scene)
                                     & (r[1] - tol_scene <= py) & (py <= r[3] + tol_scene))
                if len(hit):
                    return what, int(ids[hit[0]])
        g = self.group_at(scene_pos)
        if g is not None and g not in self.layer.expanded and self.layer.level == FAR:
            return "group", g             # bundles pass under the boxes
        k = self.bundle_at(scene_pos, tol_scene)
        if k is not None:
            return "bundle", k
        c = self.layer.draw.near_cable_at(scene_pos, tol_scene)       # a cable inside an open group
        if c is not None:
            return "cable", int(self.layer.near_cids[c // SEGS])     # drawn along its route: SEGS columns
        return ("frame", g) if g is not None and g in self.layer.expanded else None

    def describe_bundle(self, k: int) -> str:
        """``"pod 3 ↔ 256 cores"``: what bundle ``k`` joins."""
        b, g, f = self.layer.bundles, self.layer.grouping, self.layer.scene.fabric
        return f"{node_name(f, g, int(b.a[k]))} ↔ {node_name(f, g, int(b.b[k]))}"

    def tooltip_at(self, scene_pos: QtCore.QPointF, tol_scene: float) -> str:
        """What the far/middle drawing shows under a point, in words ("" for nothing)."""
        hit = self.pick(scene_pos, tol_scene)
        if hit is None:
            return ""
        what, i = hit
        if what == "switch":
            from fabricviz.ui.canvas.describe import device_tooltip
            return device_tooltip(self.layer.scene.fabric, i)
        if what == "bundle":
            b = self.layer.bundles
            return f"{b.label(i)} ({b.gbps[i] / 1000:g} Tb/s): {self.describe_bundle(i)}"
        return hit_text(self.layer.grouping, what, i)

    def group_of_block(self, b: int) -> int:
        return int(self.layer.grouping.block_group[b])

    def block_members(self, b: int) -> np.ndarray:
        g = self.layer.grouping
        return np.flatnonzero((g.block == b) & g.top_level)

    def ids_in(self, rect: QtCore.QRectF) -> list[int]:
        """Top-level devices drawn by the semantic layer (not by their items) meeting ``rect``."""
        geom = self.layer.geometry()
        if self.layer.level == NEAR or geom is None:
            return []
        r, ids = geom["rects"], geom["tops"]
        hit = (r[2] >= rect.left()) & (r[0] <= rect.right()) & (r[3] >= rect.top()) & (r[1] <= rect.bottom())
        hit &= ~self.layer.near[ids]
        return ids[hit].tolist()



__all__ = ["FAR", "MIDDLE", "NEAR", "SemanticQueries"]
