"""Semantic zoom: the canvas draws what the zoom can show (ARCHITECTURE.md, "Canvas at scale").

Contract (``scene.semantic``; the overlays colour bundles through it — keep these names)::

    level: str                  "far" | "middle" | "near": what the scene draws now
    grouping: Grouping | None   find_groups(f), cached; recomputed only on structural change
    bundles: Bundles | None     what is drawn as bundles now (None at "near": every cable as itself)
    bundle_ends: ndarray        [4, len(bundles)]: where bundle k is drawn (node a[k]'s end, node b[k]'s end)
    bundle_segments: ndarray    [4, S] the drawn lines: one per straight bundle, several per routed one
    segment_bundle: ndarray     [S] the bundle each of them draws (bundles crossing other boxes run
                                through the gutters: items/routes.py; bundle_ends are that route's
                                ends; the selection and traced paths are drawn along it)
    expanded: set[int]          groups opened in place
    reduce_how: str             "max" (hottest, default) | "mean"
    listeners: list[Callable[[], None]]   called after level / expanded / bundles / node positions changed
    node_of() -> ndarray        per device id: the node drawing it now (as passed to bundle(); -1 dead)
    cable_ends(cids) -> ndarray [4, n] ax, ay, bx, by where each cable is drawn now: a bundle's ends,
                                the real anchors (items/cables.cable_anchors) for cables drawn as
                                themselves, its node's centre twice for a cable inside one node
    set_cable_values(values | None, colors)   values per cable id (NaN: no data); each bundle is
                                coloured colors(bundles.reduce(values[bundles.cable_ids], reduce_how));
                                None: back to the plain colours
    set_reduce(how)             "max" | "mean"
    set_top_cables(cids | None, pen=None)   cables drawn on top of bundles at their drawn ends (a traced path)
    bundle_at(scene_pos, tol_scene) -> int | None     the bundle line under a point
    group_at(scene_pos) -> int | None                 the group whose box (or open frame) holds a point
    expand(g) / collapse(g) / collapse_all()          open / close groups in place (view state, not undoable)

Levels, from the view scale (:meth:`SemanticLayer.level_for`), by what fits on screen:

* **far** while a typical switch (the median switch width) is under :data:`FAR_SWITCH_PX` pixels
  and a typical group box (the median box area) under :data:`OPEN_BOX_PX2` pixels²: groups as
  boxes, the cables between two boxes as one bundle (a box that big on screen would be mostly
  empty: its inside is shown instead);
* **middle** while a typical server frame is under :data:`MIDDLE_SERVER_PX` pixels: switches, host
  blocks ("18 hosts"), one line per pair ("×4") in a group, one bundle per pair of closed groups
  (:mod:`.middle_bundles`; the boxes pale under them) until the user opens one of the two;
* **near** above: every device, port and cable (the scene's own items; nothing drawn here).

Designs of at most :data:`SMALL_DESIGN` top-level devices (the lessons') are always near.

A line that would cross a box other than its own two groups' runs round it through the gutters
(:mod:`~fabricviz.ui.canvas.items.routes`, each bundle in a lane of its own; middle: the lines of
an open group to another share one); at middle the other lines run through the gutters between the
drawn switches and host blocks like near cables (:func:`~fabricviz.ui.canvas.items.gutters.orthogonal`),
laid out again once the zoom moved :data:`REROUTE` from the zoom it was laid out for (lanes are pixels
apart). Hit tests and descriptions of what is drawn: ``queries`` (:mod:`.semantic_queries`).

Node ids (what :func:`~fabricviz.generate.groups.bundle` groups by): group ``g`` is ``g``, host block
``b`` is ``G + b``, a device drawn as itself is ``G + B + id`` (G groups, B blocks). Devices of open
groups are drawn at near detail (their own items, their cables between them along their near routes)
at every level. The drawing is rebuilt from the model's arrays when the model or the level changed, on the
next event-loop turn (never per drag frame: a drag changes the model only on release).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtGui

from fabricviz.generate.groups import Bundles, Grouping, bundle, cable_tops, find_groups
from fabricviz.model import KINDS
from fabricviz.model import events as ev
from fabricviz.ui.canvas.items.bundles import (
    BOX_PAD,
    Label,
    SemanticItems,
    assign_nodes,
    bundle_width_px,
    cable_rgba,
    clamp_points,
    drawn_primitives,
    facing_ends,
    faded,
    layer_geometry,
    level_labels,
    node_groups,
    node_rects_of,
    place_labels,
    spread_ends,
    typical_box_area,
    typical_sizes,
)
from fabricviz.ui.canvas.items.cables import cable_anchors, drawn_segments, routes_for
from fabricviz.ui.canvas.items.devices import K_ETHSW, K_IBSW
from fabricviz.ui.canvas.items.gutters import SEGS, orthogonal
from fabricviz.ui.canvas.items.middle_bundles import middle_bundles
from fabricviz.ui.canvas.items.routes import route, straight
from fabricviz.ui.canvas.items.semantic_items import SceneItemVisibility
from fabricviz.ui.canvas.items.semantic_queries import FAR, MIDDLE, NEAR, SemanticQueries
from fabricviz.ui.canvas.items.short_names import middle_names

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.canvas.scene import FabricScene

#: Far while a typical switch is narrower than this on screen (pixels). A k=16 fat tree laid out
#: 16:9 fits a 1920×1080 canvas at ~34 % with 16-px switches, where its 1,024 aggregation-core
#: cables would cross as one solid band: it reads as 17 boxes and 16 bundles.
FAR_SWITCH_PX = 20.0
#: Not far once a typical group box covers this many pixels²: a radix-32 pod at 35 % (917 × 197 px)
#: shows its switches and host blocks, not an empty box; a radix-16 pod at fit (445 × 142 px) stays one.
OPEN_BOX_PX2 = 120_000.0
#: Middle while a typical server frame is narrower than this on screen (pixels): host names and
#: GPU/NIC squares need ~18 px; below, a leaf's hosts read better as one block.
MIDDLE_SERVER_PX = 18.0
#: A middle drawing's single cables between two groups (they cross whole pods) are drawn this much
#: of the way to the background colour (opaque: blending would cost the raster engine ~10×).
FADED = 0.65
#: Designs with at most this many top-level devices show every device at fit: always near.
SMALL_DESIGN = 64
#: QSettings key of View ▸ Semantic Zoom (on by default).
SEMANTIC_SETTING = "view/semantic_zoom"
#: Routes are laid out again (lanes are pixels apart) once the zoom moved this far from theirs
#: (far: a few bundles, a millisecond; middle: thousands of single cables sharing lanes).
REROUTE = {"far": 0.05, "middle": 0.25}
#: Middle routes the lines between groups while there are at most this many (a k=48 fat tree's
#: 25,920 aggregation-core cables: ~75 ms to route on entering middle; drawn at right angles they
#: repaint ~3× faster than as long diagonals).
MIDDLE_ROUTED = 32768


class SemanticLayer:
    """What the canvas draws for the zoom (see the module doc; created by the scene as
    ``scene.semantic``)."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.enabled = True                       # False: always near (today's drawing)
        self.level = NEAR
        self.expanded: set[int] = set()
        self.reduce_how = "max"
        self.listeners: list[Callable[[], None]] = []
        self.bundles: Bundles | None = None
        self.bundle_ends = np.zeros((4, 0))
        self.routes = straight(np.zeros((4, 0)), np.zeros(0))
        self._straight = np.zeros((4, 0))        # straight ends (facing_ends), before routing
        self._spread_all: np.ndarray | None = None
        self._ra = self._rb = np.zeros((4, 0))    # node rectangles of each bundle's ends
        self._route_scale = 0.0
        self._groups = np.zeros((2, 0), np.int64)     # per bundle: the group of each end
        self._closed_opened: tuple[list[int], list[int]] = ([], [])
        self.draw = SemanticItems(scene)
        self.queries = SemanticQueries(self)       # hit tests and descriptions of what is drawn
        self._grouping: Grouping | None = None
        self._expanded_names: dict[int, str] = {}
        self.scale = 1.0
        self._stale = True
        self._sizes: tuple[float, float, int] | None = None   # median switch width, server width, tops
        self._box: float | None = None                          # median group box area
        self._node = self._gnode = np.zeros(0, np.int64)     # per device: its node; middle: between groups
        self.near = np.zeros(0, bool)            # per device: drawn by its own item (open group)
        self._geom: dict[str, np.ndarray] | None = None
        self.cable_pos = np.zeros(0, np.int64)   # cable id → column in bundles.cable_ids (-1: drawn as itself)
        self.near_cids = np.zeros(0, np.int64)
        self._width = np.zeros(0)
        self._values: np.ndarray | None = None
        self._colors: Callable[[np.ndarray], list[QtGui.QColor] | np.ndarray] | None = None
        self._top: np.ndarray | None = None
        self._top_pen: QtGui.QPen | None = None
        self.items = SceneItemVisibility(scene)   # the scene's own items shown at this level
        self._labels: list[Label] = []
        self._label_scale = 0.0
        self._drawn = NEAR                        # the level the items show now
        scene.selectionChanged.connect(self._selection_changed)

    # ------------------------------------------------------------------ state
    @property
    def grouping(self) -> Grouping | None:
        """Groups and host blocks of the fabric (computed once per structure)."""
        f = self.scene.fabric
        if f is None:
            return None
        if self._grouping is None:
            self._grouping = find_groups(f)
            names = self._grouping.names
            self.expanded = {names.index(n) for n in self._expanded_names.values() if n in names}
            self._expanded_names = {g: names[g] for g in self.expanded}
        return self._grouping

    def set_fabric(self) -> None:
        """Another fabric is shown: no groups open, everything recomputed."""
        self._grouping = self._sizes = self._values = self._colors = self._top = None
        self._box = None
        self.expanded, self._expanded_names = set(), {}
        self.items.shown.clear()
        self.level, self._stale = NEAR, True
        self.scene.detail_for_scale(self.scale)

    def set_enabled(self, on: bool) -> None:
        """Semantic zoom on (default) or off (always the near drawing, at every zoom)."""
        if on != self.enabled:
            self.enabled = on
            self.scene.detail_for_scale(self.scale)

    def invalidate(self) -> None:
        """Draw again now (the theme changed)."""
        self._stale = True
        self._drawn = "" if self.level != NEAR else self._drawn
        self.refresh()

    def reset(self) -> None:
        """Another design was opened (the session's reset): close every group."""
        self.collapse_all()

    def on_event(self, e: ev.ChangeEvent) -> None:
        """A model change: regroup on structural changes, redraw (next event-loop turn) on any."""
        if e.kind in (ev.ADDED, ev.REMOVED, ev.BULK_ADDED, ev.RESET) or e.what == ev.FABRIC or e.attr == "name":
            self._grouping = self._sizes = self._box = None
        self._stale = True

    def level_for(self, scale: float) -> str:
        """The level a view at ``scale`` shows (see the module doc)."""
        f = self.scene.fabric
        if not self.enabled or f is None:
            return NEAR
        if self._sizes is None or self._box is None:
            self._sizes, self._box = typical_sizes(f), typical_box_area(f, self.grouping)
        switch_w, server_w, n = self._sizes
        if n <= SMALL_DESIGN:
            return NEAR
        if scale * switch_w < FAR_SWITCH_PX and scale * scale * self._box < OPEN_BOX_PX2:
            return FAR
        if scale * server_w < MIDDLE_SERVER_PX:
            return MIDDLE
        return NEAR

    def set_scale(self, scale: float) -> None:
        """The view's zoom changed (the scene's ``detail_for_scale``)."""
        self.scale = scale
        level = self.level_for(scale)
        if level != self.level:
            self.level = level
            self._stale = True
        self.refresh()
        if self.level != NEAR and self.bundles is not None and \
                abs(scale / max(self._route_scale, 1e-12) - 1) > REROUTE[self.level]:
            self._route()               # lanes are pixels apart: laid out again for this zoom
            self._draw_routes()
            self._notify()
        elif self.level != NEAR and self._labels and scale != self._label_scale:
            self._place_labels()        # offsets from anchors are fixed on screen

    def _notify(self) -> None:
        for fn in list(self.listeners):
            fn()

    # ------------------------------------------------------------------ open / close
    def expand(self, g: int) -> None:
        grouping = self.grouping
        if grouping is not None and 0 <= g < grouping.n_groups:
            self._open(self.expanded | {g})

    def collapse(self, g: int) -> None:
        self._open(self.expanded - {g})

    def collapse_all(self) -> None:
        self._open(set())

    def _open(self, groups: set[int]) -> None:
        if groups != self.expanded:
            grouping = self.grouping
            assert grouping is not None
            names = grouping.names
            self.expanded = set(groups)
            self._expanded_names = {g: names[g] for g in groups}
            self._stale = True
            self.refresh()

    def open_path(self) -> list[tuple[int, str]]:
        """The open groups and their names, in group order (the breadcrumbs)."""
        g = self.grouping
        return [(i, g.names[i]) for i in sorted(self.expanded)] if g is not None else []

    # ------------------------------------------------------------------ contract: queries
    def node_of(self) -> np.ndarray:
        """Per device id: the node drawing it now (see the module doc)."""
        self.refresh()
        if self.level == NEAR or self.bundles is None:
            f = self.scene.fabric
            if f is None:
                return np.zeros(0, np.int64)
            g = self.grouping
            assert g is not None                 # a fabric has its groups
            t = f.devices_t
            top = np.where(t.parent >= 0, t.parent, np.arange(t.n))
            return np.where(t.alive, g.n_groups + g.n_blocks + top, -1).astype(np.int64)
        return self._node

    def cable_ends(self, cids: np.ndarray) -> np.ndarray:
        """[4, len(cids)] where each cable is drawn now (NaN for dead cables)."""
        self.refresh()
        f = self.scene.fabric
        cids = np.asarray(cids, np.int64)
        out = np.full((4, len(cids)), np.nan)
        if f is None or not len(cids):
            return out
        ct = f.cables_t
        inside = (cids >= 0) & (cids < ct.n)
        alive = inside & ct.alive[np.where(inside, cids, 0)]
        b = self.bundles
        if self.level == NEAR or b is None:
            if alive.any():
                out[:, alive] = np.vstack(cable_anchors(f, cids[alive]))
            return out
        pos = np.where(alive, self.cable_pos[np.clip(cids, 0, len(self.cable_pos) - 1)], -2)
        own = pos == -1
        if own.any():
            out[:, own] = np.vstack(cable_anchors(f, cids[own]))
        inb = pos >= 0
        if inb.any():
            k = b.of_cable[pos[inb]]
            _, ta, _ = cable_tops(f, cids[inb])
            idx = np.flatnonzero(inb)
            drawn = k >= 0
            kk = k[drawn]
            e = self.bundle_ends[:, kk]
            flip = (self._node[ta[drawn]] != b.a[kk]) & (self._gnode[ta[drawn]] != b.a[kk])
            out[:, idx[drawn]] = np.where(flip, e[[2, 3, 0, 1]], e)
            inner = ~drawn
            if inner.any():
                r = self._node_rects(self._node[ta[inner]])
                cx, cy = (r[0] + r[2]) / 2, (r[1] + r[3]) / 2
                out[:, idx[inner]] = np.vstack([cx, cy, cx, cy])
        return out

    # ------------------------------------------------------------------ contract: colouring
    def set_cable_values(self, values: np.ndarray | None,
                         colors: Callable[[np.ndarray], list[QtGui.QColor] | np.ndarray] | None = None) -> None:
        """Colour bundles by their members' values (see the module doc); ``None``: plain colours."""
        self._values = None if values is None else np.asarray(values, np.float64)
        self._colors = colors if values is not None else None
        if self.level != NEAR and not self._stale:
            self._draw_lines()

    def set_reduce(self, how: str) -> None:
        if how not in ("max", "mean"):
            raise ValueError(f"reduce: how={how!r} (use max or mean)")
        self.reduce_how = how
        if self.level != NEAR and not self._stale:
            self._draw_lines()

    def set_top_cables(self, cids: np.ndarray | None, pen: QtGui.QPen | None = None) -> None:
        """Draw ``cids`` over everything at their drawn ends (``None``: none)."""
        self._top = None if cids is None else np.asarray(cids, np.int64)
        self._top_pen = pen
        self._draw_top()

    def bundle_rgba(self) -> np.ndarray:
        """Each bundle's colour now (QRgb ints): by the values set, else its first member's cable
        colour (the near drawing's colour for its technology and cable type)."""
        b = self.bundles
        if b is None or not len(b):
            return np.zeros(0, np.int64)
        assert self.scene.fabric is not None     # bundles are built of a fabric's cables
        out = cable_rgba(self.scene.fabric, self.scene.theme, b.cables[b.start[:-1]])
        if self._values is None or self._colors is None:
            return out
        vals = np.full(len(b.cable_ids), np.nan)
        ok = b.cable_ids < len(self._values)
        vals[ok] = self._values[b.cable_ids[ok]]
        red = b.reduce(vals, self.reduce_how)
        has = np.flatnonzero(~np.isnan(red))
        if len(has):
            cols = self._colors(red[has])
            # (added for the overlays: ``colors`` may return QRgb ints as an array — no QColor per bundle per frame)
            out[has] = cols if isinstance(cols, np.ndarray) else [QtGui.QColor(c).rgba() for c in cols]
        return out

    def bundle_colors(self) -> list[QtGui.QColor]:
        """:meth:`bundle_rgba` as colours."""
        return [QtGui.QColor.fromRgba(int(c)) for c in self.bundle_rgba().tolist()]

    # ------------------------------------------------------------------ building
    @property
    def bundle_segments(self) -> np.ndarray:
        """The drawn bundle lines' segments (4 × n: ax, ay, bx, by)."""
        return self.routes.seg

    @property
    def segment_bundle(self) -> np.ndarray:
        """The bundle of each segment of :attr:`bundle_segments`."""
        return self.routes.owner

    def refresh(self) -> None:
        """Bring nodes, bundles, geometry, drawing and item visibility up to date (no-op if nothing changed)."""
        if not self._stale:
            return
        self._stale = False
        f = self.scene.fabric
        self._geom = None
        if self.level == NEAR or f is None:
            self.bundles = None
            self.bundle_ends = np.zeros((4, 0))
            self.routes = straight(self.bundle_ends, np.zeros(0))
            self._draw_top()
            if self._drawn != NEAR:
                self._drawn = NEAR
                self.draw.hide()
                self.items.show_all()
                self._set_labels([])
                self._notify()
            return
        self._drawn = self.level
        g = self.grouping
        assert g is not None                     # a fabric has its groups
        self._node, self.near = assign_nodes(f, g, self.level == FAR, self.expanded)
        cids, ta, tb = cable_tops(f)
        own = self.near[ta] & self.near[tb]
        self.near_cids = cids[own]
        self._gnode = assign_nodes(f, g, True, self.expanded)[0] if self.level == MIDDLE else self._node
        self.bundles = bundle(f, self._node, cids[~own]) if self.level == FAR else \
            middle_bundles(f, g, self._node, self._gnode, self.expanded, cids[~own])
        self.cable_pos = np.full(f.cables_t.n, -1, np.int64)
        self.cable_pos[self.bundles.cable_ids] = np.arange(len(self.bundles.cable_ids))
        geom = self.geometry()
        assert geom is not None
        b = self.bundles
        self._ra, self._rb = self._node_rects(b.a), self._node_rects(b.b)
        self._straight, self._spread_all = facing_ends(self._ra, self._rb), None
        # a "bundle" of one cable is that cable: drawn 1 px wide, like the near drawing's cables
        self._width = np.where(b.count > 1, bundle_width_px(b.gbps), 1.0) if len(b) else np.zeros(0)
        self._route()
        self._draw(f, g, geom)
        self.items.apply(self.near)
        self._notify()

    def _route(self) -> None:
        """Where the bundles run at this zoom: straight, or through the gutters where a straight
        line would cross another group's box (far: each bundle its own lane; middle: the lines
        between two groups share one, while there are at most :data:`MIDDLE_ROUTED` of them)."""
        b, g = self.bundles, self.grouping
        assert b is not None and g is not None   # only routed once the bundles are built
        self._route_scale = self.scale
        far = self.level == FAR
        groups = np.vstack([node_groups(g, b.a), node_groups(g, b.b)]) if len(b) else np.zeros((2, 0), np.int64)
        self._groups = groups
        if not len(b) or (not far and int((groups[0] != groups[1]).sum()) > MIDDLE_ROUTED):
            if self._spread_all is None:
                self._spread_all = self._spread(np.arange(len(b)))
            self.routes = straight(self._spread_all, self._width)
        else:
            geom = self.geometry()
            assert geom is not None
            self.routes = route(self._straight, self._ra, self._rb, groups[0], groups[1], b.a < g.n_groups,
                                b.b < g.n_groups, geom["box"], self.scale, self._width,
                                share=not far, spread=self._spread)
            if not far:          # one style: the lines left straight run through the gutters too
                nodes = np.unique(self._node[self._node >= 0])        # (bundles between groups: routed above)
                col = np.where(np.r_[b.a, b.a] < g.n_groups, -1, np.searchsorted(nodes, np.r_[b.a, b.b]))
                self.routes = orthogonal(self.routes, self._node_rects(nodes), col[:len(b)], col[len(b):],
                                         groups[0], groups[1], geom["box"], self.scale)
        self.bundle_ends = self.routes.ends

    def _spread(self, ks: np.ndarray) -> np.ndarray:
        """Straight ends of bundles ``ks``, spread where several meet one side (group boxes: only
        coinciding ends)."""
        b, g = self.bundles, self.grouping
        assert b is not None and g is not None
        n = g.n_groups
        a_, b_, ra, rb = b.a[ks], b.b[ks], self._ra[:, ks], self._rb[:, ks]
        return spread_ends(self._straight[:, ks], a_, b_, ra, rb, a_ >= n, b_ >= n)

    def geometry(self) -> dict[str, np.ndarray] | None:
        """Device rectangles, group boxes, block rectangles (built once per refresh)."""
        if self._geom is None and self.scene.fabric is not None:
            middle = self.level == MIDDLE and len(self._node) > 0
            g = self.grouping
            assert g is not None                 # a fabric has its groups
            self._geom = layer_geometry(self.scene.fabric, g, self.near if middle else None)
        return self._geom

    def _node_rects(self, nodes: np.ndarray) -> np.ndarray:
        g, geom = self.grouping, self.geometry()
        assert g is not None and geom is not None
        return node_rects_of(geom, g.n_groups, g.n_blocks, nodes)

    # ------------------------------------------------------------------ drawing
    def _draw(self, f, g: Grouping, geom: dict[str, np.ndarray]) -> None:
        d = self.draw
        d.on = True
        box = geom["box"]
        closed = [i for i in range(g.n_groups) if i not in self.expanded and np.isfinite(box[0, i])]
        opened = [i for i in sorted(self.expanded) if np.isfinite(box[0, i])]
        # middle: the closed groups' boxes under their switches and lines (bundles end on them)
        d.set_boxes(box[:, closed], [KINDS[int(geom["kind"][i])] for i in closed], self.level == MIDDLE)
        d.set_frames(box[:, opened])
        d.set_switches(geom["sw_rects"], f.devices_t.kind[geom["sw_ids"]])
        d.set_blocks(geom["blk_rects"])
        ne = routes_for(f, g).of(self.near_cids)       # an open group's cables along their near routes
        d.set_near_cables(ne, *(np.repeat(a[self.near_cids], SEGS) for a in (f.cables_t.tech, f.cables_t.ctype)))
        self._closed_opened = closed, opened
        self._draw_routes()

    def _draw_routes(self) -> None:
        """What follows the routes: lines, labels, the selection and traced paths."""
        self._draw_lines()
        closed, opened = self._closed_opened
        g, geom, b = self.grouping, self.geometry(), self.bundles
        assert g is not None and geom is not None and b is not None   # drawn after a refresh built them
        self._set_labels(level_labels(self.level == FAR, g, geom, closed, opened, b, self.routes, self._groups))
        self._draw_selection()
        self._draw_top()

    def _draw_lines(self) -> None:
        b = self.bundles
        if b is not None:
            rgba = self.bundle_rgba()
            if self.level == MIDDLE and self._values is None:     # single cables between groups: faded
                g = self.grouping
                assert g is not None
                fade = (b.count == 1) & (node_groups(g, b.a) != node_groups(g, b.b))
                rgba = np.where(fade, faded(rgba, self.scene.theme.background.rgba(), FADED), rgba)
            r = self.routes
            self.draw.set_lines(r.seg, r.width[r.owner], rgba[r.owner])

    def _draw_selection(self) -> None:
        """The selected cables where they are drawn now (a bundle with a selected member glows)."""
        if self.level == NEAR or self.bundles is None:
            return
        sel = np.fromiter(self.scene.selected_cables, np.int64, len(self.scene.selected_cables))
        if not len(sel):
            self.draw.set_selected(np.zeros((4, 0)), 0)
            return
        e, k = self._drawn_lines(sel)
        w = float(self.routes.width[k].max()) if len(k) else 1.0
        self.draw.set_selected(e, w + 2)

    def _drawn_lines(self, cids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """([4, n] lines drawing ``cids`` now: their bundles' segments (once per bundle), the
        others at their drawn ends (once per place); the bundles among them)."""
        cids = np.asarray(cids, np.int64)
        k = np.full(len(cids), -1, np.int64)
        if self.level != NEAR and self.bundles is not None:
            ok = (cids >= 0) & (cids < len(self.cable_pos))
            pos = np.where(ok, self.cable_pos[np.where(ok, cids, 0)], -1)
            k = np.where(pos >= 0, self.bundles.of_cable[np.maximum(pos, 0)], -1)
        ks, rest = np.unique(k[k >= 0]), cids[k < 0]
        f, near = self.scene.fabric, np.isin(rest, self.near_cids) & (self.level != NEAR)   # drawn as themselves:
        own = drawn_segments(routes_for(f).of(rest[near])) if f is not None else np.zeros((4, 0))  # along their routes
        e = np.hstack([self.cable_ends(rest[~near]), own])
        e = np.unique(e[:, np.isfinite(e).all(axis=0)], axis=1)
        return np.hstack([self.routes.seg[:, self.routes.segments_of(ks)], e]), ks

    def _draw_top(self) -> None:
        """Traced cables over everything, along the lines that draw them now."""
        top = self._top
        self.draw.set_top(self._drawn_lines(top)[0] if top is not None and not self._stale else None, self._top_pen)

    def _set_labels(self, labels: list[Label]) -> None:
        """Group, block and bundle labels go to the scene's label layer; device names are kept to
        the devices drawn as themselves (and, at middle, the switches, by their short names)."""
        layer = getattr(self.scene, "label_layer", None)
        if layer is None:
            return
        self._labels = labels
        self._place_labels()
        f, g, middle = self.scene.fabric, self.grouping, self.level == MIDDLE
        layer.set_aliases(middle_names(f, g) if middle and f is not None and g is not None else None)
        kind = f.devices_t.kind if f is not None and self.level != NEAR else None
        layer.set_device_filter(None if kind is None else
                                self.near | (middle & ((kind == K_IBSW) | (kind == K_ETHSW))))

    def _place_labels(self) -> None:
        if (layer := getattr(self.scene, "label_layer", None)) is not None:
            self._label_scale = self.scale
            g = self.geometry() or {}      # labels keep off other boxes, lines (and "×n" off switches)
            layer.set_extra(*place_labels(self._labels, self.scale, layer, g.get("box"), self.routes.seg,
                                          g.get("sw_rects")))

    # ------------------------------------------------------------------ items of the scene
    def show_device(self, d: int) -> None:
        """Give a device drawn by the layer its own item (it is being selected)."""
        if self.level != NEAR:
            self.items.show_device(d)

    def _selection_changed(self) -> None:
        if self.level == NEAR or self._stale:
            return
        if not self.items.hide_deselected(self.near):
            return
        self._draw_selection()
        self.items.hide_cable_paths()

    # ------------------------------------------------------------------ added for the overlays
    # (overlays/sweep.py marks discovered groups and host blocks where they are drawn)
    def node_rects(self, nodes: np.ndarray) -> np.ndarray:
        """[4, n] scene rectangles of ``nodes`` (ids as in :meth:`node_of`) as drawn now: group
        boxes, host blocks, device rectangles (NaN rows for none)."""
        self.refresh()
        nodes = np.asarray(nodes, np.int64)
        if self.grouping is None or self.geometry() is None:
            return np.full((4, len(nodes)), np.nan)
        return self._node_rects(nodes)


__all__ = ["BOX_PAD", "FAR", "FAR_SWITCH_PX", "Label", "MIDDLE", "MIDDLE_SERVER_PX", "NEAR", "SEMANTIC_SETTING",
           "SMALL_DESIGN", "SemanticLayer", "clamp_points", "drawn_primitives", "facing_ends", "spread_ends"]
