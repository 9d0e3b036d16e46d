"""What the semantic drawing (:mod:`fabricviz.ui.canvas.items.semantic`) shows under a point or
a rectangle, and what a selection of its cables is in words: the queries half of
:class:`~fabricviz.ui.canvas.items.semantic.SemanticLayer` (its contract, documented there)."""

from __future__ import annotations

import html

import numpy as np
from PySide6 import QtCore

from fabricviz.ui.canvas.items.bundles import hit_text, node_name
from fabricviz.ui.canvas.items.routes import segment_distance

FAR, MIDDLE, NEAR = "far", "middle", "near"


class SemanticQueries:
    """Hit tests and descriptions over a :class:`SemanticLayer`'s state (a mixin of it)."""

    def bundle_at(self, scene_pos: QtCore.QPointF, tol_scene: float) -> int | None:
        """The bundle drawn under ``scene_pos`` (within ``tol_scene`` of its line's edge)."""
        self.refresh()
        if self.bundles is None or not len(self.bundles):
            return None
        r = self.routes
        d = segment_distance(r.seg, scene_pos)
        reach = tol_scene + r.width[r.owner] / 2 / max(self._scale, 1e-12)
        ok = np.flatnonzero(d <= reach)
        return int(r.owner[ok[np.argmin(d[ok])]]) if len(ok) else None

    @property
    def bundle_segments(self) -> np.ndarray:
        return self.routes.seg

    @property
    def segment_bundle(self) -> np.ndarray:
        return self.routes.owner

    def selection_text(self, cids: set[int] | list[int]) -> str:
        """``"bundle <b>pod 3 ↔ 64 cores</b>: 64 × 400G (25.6 Tb/s), 64 cables"`` when ``cids``
        are exactly one drawn bundle's cables (the inspector's title), else ""."""
        b = self.bundles
        sel = np.fromiter(cids, np.int64, len(cids))
        if self.level == NEAR or b is None or not len(sel) or sel.max() >= len(self._cable_pos) or sel.min() < 0:
            return ""
        pos = self._cable_pos[sel]
        k = np.unique(b.of_cable[pos[pos >= 0]]) if (pos >= 0).all() else np.zeros(0, np.int64)
        if len(k) != 1 or k[0] < 0 or int(b.count[k[0]]) != len(set(sel.tolist())):
            return ""
        k = int(k[0])
        n = int(b.count[k])
        return (f"bundle <b>{html.escape(self.describe_bundle(k))}</b>: {b.label(k)} "
                f"({b.gbps[k] / 1000:g} Tb/s), {n} cable{'' if n == 1 else 's'}")

    def group_at(self, scene_pos: QtCore.QPointF) -> int | None:
        """The group whose box (an open group: its frame) holds ``scene_pos``, the smallest first."""
        geom = self._geometry()
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
        geom = self._geometry()
        if geom is None or not 0 <= g < geom["box"].shape[1]:
            return QtCore.QRectF()
        left, top, right, bottom = geom["box"][:, g].tolist()
        return QtCore.QRectF(left, top, right - left, bottom - top)

    def pick(self, scene_pos: QtCore.QPointF, tol_scene: float) -> tuple[str, int] | None:
        """What the semantic drawing shows under a point: ``("switch", device)``, ``("block", b)``,
        ``("group", g)`` (a collapsed box), ``("bundle", k)``, ``("cable", id)`` (drawn as itself in
        an open group) or ``("frame", g)`` (an open group's frame)."""
        self.refresh()
        geom = self._geometry()
        if self.level == NEAR or geom is None:
            return None
        px, py = scene_pos.x(), scene_pos.y()
        if self.level == MIDDLE:
            for what, ids, r in (("switch", geom["sw_ids"], geom["sw_rects"]),
                                 ("block", geom["blk_ids"], geom["blk_rects"])):
                hit = np.flatnonzero((r[0] - tol_scene <= px) & (px <= r[2] + tol_scene)
                                     & (r[1] - tol_scene <= py) & (py <= r[3] + tol_scene))
                if len(hit):
                    return what, int(ids[hit[0]])
        g = self.group_at(scene_pos)
        if g is not None and g not in self.expanded and self.level == FAR:
            return "group", g             # bundles pass under the boxes
        k = self.bundle_at(scene_pos, tol_scene)
        if k is not None:
            return "bundle", k
        c = self.draw.near_cable_at(scene_pos, tol_scene)       # a cable inside an open group
        if c is not None:
            return "cable", int(self._near_cids[c])
        return ("frame", g) if g is not None and g in self.expanded else None

    def describe_bundle(self, k: int) -> str:
        """``"pod 3 ↔ 256 cores"``: what bundle ``k`` joins."""
        b, g, f = self.bundles, self.grouping, self.scene.fabric
        return f"{node_name(f, g, int(b.a[k]))} ↔ {node_name(f, g, int(b.b[k]))}"

    def tooltip_at(self, scene_pos: QtCore.QPointF, tol_scene: float) -> str:
        """What the far/middle drawing shows under a point, in words ("" for nothing)."""
        hit = self.pick(scene_pos, tol_scene)
        if hit is None:
            return ""
        what, i = hit
        if what == "switch":
            from fabricviz.ui.canvas.describe import device_tooltip
            return device_tooltip(self.scene.fabric, i)
        if what == "bundle":
            b = self.bundles
            return f"{b.label(i)} ({b.gbps[i] / 1000:g} Tb/s): {self.describe_bundle(i)}"
        return hit_text(self.grouping, what, i)

    def group_of_block(self, b: int) -> int:
        return int(self.grouping.block_group[b])

    def block_members(self, b: int) -> np.ndarray:
        g = self.grouping
        return np.flatnonzero((g.block == b) & g.top_level)

    def ids_in(self, rect: QtCore.QRectF) -> list[int]:
        """Top-level devices drawn by the semantic layer (not by their items) meeting ``rect``."""
        geom = self._geometry()
        if self.level == NEAR or geom is None:
            return []
        r, ids = geom["rects"], geom["tops"]
        hit = (r[2] >= rect.left()) & (r[0] <= rect.right()) & (r[3] >= rect.top()) & (r[1] <= rect.bottom())
        hit &= ~self._near[ids]
        return ids[hit].tolist()



__all__ = ["FAR", "MIDDLE", "NEAR", "SemanticQueries"]
