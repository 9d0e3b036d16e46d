"""The drawing of the semantic zoom (:mod:`fabricviz.ui.canvas.items.semantic`): group boxes,
host blocks, switches as paths, bundle lines, the expanded groups' own cables (group and
bundle labels go to the scene's label layer), and the pure geometry behind them: node
assignment, boxes, where labels go (where bundle lines run: :mod:`~fabricviz.ui.canvas.items.routes`).

Everything is a handful of C++ path items built from numpy arrays (no Python paint): boxes
one path per tint, bundle lines one :class:`~fabricviz.ui.canvas.items.segments.SegmentPathItem`
per (on-screen width, colour) — cosmetic pens, so the width is in pixels at any zoom.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar, overload

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import KINDS, Fabric
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.batch import device_rects, rects_path
from fabricviz.ui.canvas.items.box_labels import PAD_PX, Label, box_title, level_labels, place_labels
from fabricviz.ui.canvas.items.cables import path_pairs
from fabricviz.ui.canvas.items.devices import K_ETHSW, K_IBSW, K_SERVER, ROLE_KIND
from fabricviz.ui.canvas.items.routes import clamp_points, facing_ends, segment_distance, spread_ends
from fabricviz.ui.canvas.items.segments import SegmentPathItem

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.generate.groups import Grouping
    from fabricviz.ui.canvas.scene import FabricScene

#: Bundle line width on screen (px): 2 px for one 400G link, growing with log10 of the aggregate
#: bandwidth (+2.5 px per ×10), at most 12 px.
MIN_WIDTH_PX, MAX_WIDTH_PX, WIDTH_PER_DECADE = 2.0, 12.0, 2.5
WIDTH_BASE_GBPS = 400.0
#: Group boxes reach this far (scene units) beyond their members' rectangles.
BOX_PAD = 16.0
#: Corner radius of group boxes (scene units).
BOX_RADIUS = 18.0
Z_UNDER, Z_NEAR_CABLES, Z_LINES, Z_SELECTED, Z_FRAMES, Z_BOXES, Z_BLOCKS, Z_SWITCHES, Z_TOP = (
    -2.0, -1.0, 0.2, 0.3, 0.4, 0.5, 1.0, 2.0, 5.0)
SEMANTIC_KIND = "semantic"      # item.data(ROLE_KIND) of every item drawn here
CABLE_TYPES = ("dac", "aoc", "transceiver")       # cables_t.ctype codes


def bundle_width_px(gbps: np.ndarray) -> np.ndarray:
    """On-screen width of bundle lines from their aggregate bandwidth (rounded to half pixels,
    so lines share pens)."""
    w = MIN_WIDTH_PX + WIDTH_PER_DECADE * np.log10(np.maximum(gbps, 1e-9) / WIDTH_BASE_GBPS)
    return np.round(np.clip(w, MIN_WIDTH_PX, MAX_WIDTH_PX) * 2) / 2


def faded(rgba: np.ndarray, background: int, amount: float) -> np.ndarray:
    """QRgb colours moved ``amount`` of the way to ``background`` (opaque)."""
    out = np.full(len(rgba), 0xFF000000, np.int64)
    for shift in (16, 8, 0):
        c, b = (rgba >> shift) & 0xFF, (background >> shift) & 0xFF
        out |= np.round(c + (b - c) * amount).astype(np.int64) << shift
    return out


def rounded_rects_path(r: np.ndarray, radius: float) -> QtGui.QPainterPath:
    """One path of rounded rectangles ([4, n] edges)."""
    path = QtGui.QPainterPath()
    for left, top, right, bottom in r.T.tolist():
        rad = min(radius, (right - left) / 4, (bottom - top) / 4)
        path.addRoundedRect(QtCore.QRectF(left, top, right - left, bottom - top), rad, rad)
    return path


_Path = TypeVar("_Path", bound=QtWidgets.QGraphicsPathItem)


@overload
def _item(scene: FabricScene, z: float) -> QtWidgets.QGraphicsPathItem: ...
@overload
def _item(scene: FabricScene, z: float, cls: type[_Path]) -> _Path: ...
def _item(scene: FabricScene, z: float,
          cls: type[QtWidgets.QGraphicsPathItem] = QtWidgets.QGraphicsPathItem) -> QtWidgets.QGraphicsPathItem:
    item = cls()
    item.setZValue(z)
    item.setData(ROLE_KIND, SEMANTIC_KIND)
    item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
    item.setVisible(False)
    scene.addItem(item)
    return item


def _pen(color: QtGui.QColor, width: float, style: QtCore.Qt.PenStyle = QtCore.Qt.PenStyle.SolidLine) -> QtGui.QPen:
    pen = QtGui.QPen(color, width, style)
    pen.setCosmetic(True)
    pen.setCapStyle(QtCore.Qt.PenCapStyle.FlatCap)
    return pen


def tint(color: QtGui.QColor, dark: bool, amount: float = 0.82) -> QtGui.QColor:
    """A light (or, in a dark theme, deep) tint of ``color`` for box fills."""
    base = QtGui.QColor("#1e2126" if dark else "#ffffff")
    a = 0.7 if dark else amount
    return QtGui.QColor(int(color.red() * (1 - a) + base.red() * a), int(color.green() * (1 - a) + base.green() * a),
                        int(color.blue() * (1 - a) + base.blue() * a))



def drawn_primitives(view: QtWidgets.QGraphicsView) -> int:
    """What a repaint of ``view`` draws: visible items meeting the viewport, plus the elements of
    visible path items' paths, plus the labels the label layer places (tests and the bench)."""
    scene = view.scene()
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    n = 0
    for item in scene.items(shown):
        if not item.isVisible():
            continue
        n += 1
        if isinstance(item, QtWidgets.QGraphicsPathItem):
            n += item.path().elementCount()
    layer = getattr(scene, "label_layer", None)
    if layer is not None and layer.isVisible():
        n += len(layer.layout(view.viewportTransform(), shown))
    return n



def typical_sizes(f: Fabric) -> tuple[float, float, int]:
    """(median switch width, median server frame size, top-level devices) of a design, as drawn.

    A server frame's size is its smaller side: a discovered host's adapters in one row make a wide,
    flat frame that is no easier to read than a narrow one."""
    t = f.devices_t
    ids = f.device_ids()
    tops = ids[t.parent[ids] < 0]
    r = device_rects(f, tops) if len(tops) else np.zeros((4, 0))
    w = r[2] - r[0]
    side = np.minimum(w, r[3] - r[1])
    kind = t.kind[tops]
    sw, srv = (kind == K_IBSW) | (kind == K_ETHSW), kind == K_SERVER
    return (float(np.median(w[sw])) if sw.any() else 48.0,
            float(np.median(side[srv])) if srv.any() else 26.0, len(tops))


def typical_box_area(f: Fabric, g: Grouping | None) -> float:
    """The median group box's area (scene units²; 0 without groups)."""
    box = layer_geometry(f, g, None)["box"] if g is not None else np.zeros((4, 0))
    ok = np.isfinite(box).all(axis=0)
    return float(np.median(((box[2] - box[0]) * (box[3] - box[1]))[ok])) if ok.any() else 0.0


def assign_nodes(f: Fabric, g: Grouping, far: bool, expanded: set[int]) -> tuple[np.ndarray, np.ndarray]:
    """(node per device id, drawn-as-itself mask) for a far or middle drawing (node ids: see
    :mod:`fabricviz.ui.canvas.items.semantic`): devices of open (or no) groups are themselves;
    far, the rest are their group; middle, switches are themselves and servers their host block
    (a server under no leaf: itself)."""
    t = f.devices_t
    top = np.where(t.parent >= 0, t.parent, np.arange(t.n))
    own = g.n_groups + g.n_blocks + top
    grp = g.group
    near = (grp < 0) | np.isin(grp, np.fromiter(expanded, np.int64, len(expanded)))
    if far:
        node = np.where(near, own, grp)
    else:
        kind = t.kind[top]
        switch = (kind == K_IBSW) | (kind == K_ETHSW)
        near = near | (~switch & (g.block < 0))
        node = np.where(near | switch, own, g.n_groups + g.block)
    return np.where(t.alive, node, -1).astype(np.int64), near & t.alive


def node_groups(g: Grouping, nodes: np.ndarray) -> np.ndarray:
    """The group of each node (a group itself, a block's group, a device's group)."""
    nodes = np.asarray(nodes, np.int64)
    base = g.n_groups + g.n_blocks
    blk = np.clip(nodes - g.n_groups, 0, max(g.n_blocks - 1, 0))
    dev = g.group[np.clip(nodes - base, 0, len(g.group) - 1)]
    return np.where(nodes < g.n_groups, nodes, np.where(nodes < base, g.block_group[blk] if g.n_blocks else -1, dev))


def node_rects_of(geom: dict[str, np.ndarray], n_groups: int, n_blocks: int, nodes: np.ndarray) -> np.ndarray:
    """[4, n] rectangles of nodes: group boxes, block rectangles, device rectangles (NaN: none)."""
    nodes = np.asarray(nodes, np.int64)
    out = np.full((4, len(nodes)), np.nan)
    for m, table, base in (((nodes >= 0) & (nodes < n_groups), geom["box"], 0),
                           ((nodes >= n_groups) & (nodes < n_groups + n_blocks), geom["blk"], n_groups),
                           (nodes >= n_groups + n_blocks, geom["rect_of"], n_groups + n_blocks)):
        out[:, m] = table[:, nodes[m] - base]
    return out


def layer_geometry(f: Fabric, g: Grouping, near: np.ndarray | None) -> dict[str, np.ndarray]:
    """Top-level devices' rectangles (``rects``; ``rect_of`` by device id), group boxes (``box``)
    and host-block rectangles (``blk``), each group's main device kind and switch / host counts;
    with ``near`` (middle: the devices drawn as themselves) the switches (``sw_ids``, ``sw_rects``)
    and blocks (``blk_ids``, ``blk_rects``) the middle drawing shows."""
    t = f.devices_t
    ids = f.device_ids()
    tops = ids[t.parent[ids] < 0]
    r = device_rects(f, tops) if len(tops) else np.zeros((4, 0))
    rect_of = np.full((4, t.n), np.nan)
    rect_of[:, tops] = r
    blk = g.block[tops]
    blk_rects = bbox_by(r, blk, g.n_blocks, 2.0)
    kind = t.kind[tops]
    switch = (kind == K_IBSW) | (kind == K_ETHSW)
    geom = {"tops": tops, "rects": r, "rect_of": rect_of, "box": bbox_by(r, g.group[tops], g.n_groups, BOX_PAD),
            "blk": blk_rects, "sw_ids": np.zeros(0, np.int64), "sw_rects": np.zeros((4, 0)),
            "blk_ids": np.zeros(0, np.int64), "blk_rects": np.zeros((4, 0))}
    if near is not None:
        closed = ~near[tops]
        geom["sw_ids"], geom["sw_rects"] = tops[switch & closed], r[:, switch & closed]
        shown = np.unique(blk[closed & (blk >= 0)])
        geom["blk_ids"], geom["blk_rects"] = shown, blk_rects[:, shown]
    grp = g.group[tops]
    ing = grp >= 0
    counts = np.zeros((g.n_groups, len(KINDS)), np.int64)
    np.add.at(counts, (grp[ing], kind[ing]), 1)
    geom["kind"] = np.argmax(counts, axis=1) if g.n_groups else np.zeros(0, np.int64)
    geom["n_switch"] = np.bincount(grp[ing & switch], minlength=g.n_groups)
    n_host = np.bincount(grp[ing & ~switch], minlength=g.n_groups)
    if g.block_hosts is not None and len(g.block_hosts):
        # an imported host's adapters count once: blocks' end devices replaced by their hosts
        bg = g.block_group
        ok = bg >= 0
        n_host = n_host - np.bincount(bg[ok], weights=g.block_size[ok], minlength=g.n_groups).astype(np.int64) \
            + np.bincount(bg[ok], weights=g.block_hosts[ok], minlength=g.n_groups).astype(np.int64)
    geom["n_host"] = n_host
    return geom


def node_name(f: Fabric, g: Grouping, node: int) -> str:
    """``"pod 3"``, ``"hosts of leaf07"`` or a device's name."""
    if node < g.n_groups:
        return g.names[node]
    if node < g.n_groups + g.n_blocks:
        return f"hosts of {g.block_names[node - g.n_groups]}"
    return f.name_of(int(node - g.n_groups - g.n_blocks))


def hit_text(g: Grouping, what: str, i: int) -> str:
    """A tooltip for a host block (``what`` "block"), a group box ("group") or an open group's frame."""
    if what == "block":
        return f"{int(g.block_size[i])} hosts of {g.block_names[i]}: double-click opens {g.names[g.block_group[i]]}"
    action = "double-click closes it" if what == "frame" else "click selects its devices, double-click opens it"
    return f"{g.names[i]}: {len(g.members(i))} devices; {action}"


def bbox_by(r: np.ndarray, key: np.ndarray, n: int, pad: float) -> np.ndarray:
    """[4, n] bounding boxes of rectangles ``r`` ([4, m]) grouped by ``key`` (0..n-1; -1 none),
    grown by ``pad``; NaN for an empty group."""
    out = np.vstack([np.full(n, np.inf), np.full(n, np.inf), np.full(n, -np.inf), np.full(n, -np.inf)])
    ok = key >= 0
    if ok.any():
        np.minimum.at(out[0], key[ok], r[0, ok])
        np.minimum.at(out[1], key[ok], r[1, ok])
        np.maximum.at(out[2], key[ok], r[2, ok])
        np.maximum.at(out[3], key[ok], r[3, ok])
    out[:2] -= pad
    out[2:] += pad
    empty = ~np.isfinite(out).all(axis=0)
    out[:, empty] = np.nan
    return out


def cable_rgba(f: Fabric, theme: th.Theme, cids: np.ndarray) -> np.ndarray:
    """QRgb of each cable's colour in the near drawing (its technology × cable type bucket)."""
    pens = theme.cable_pens
    tech = f.cables_t.tech[cids].astype(np.int64)
    ctype = np.clip(f.cables_t.ctype[cids].astype(np.int64), 0, len(CABLE_TYPES) - 1)
    lut = np.full((max(int(tech.max()) + 1 if len(tech) else 1, 3), len(CABLE_TYPES)),
                  pens[(1, "aoc")].color().rgba(), np.int64)
    for (tc, tname), pen in pens.items():
        if tc < lut.shape[0]:
            lut[tc, CABLE_TYPES.index(tname)] = pen.color().rgba()
    return lut[tech, ctype]


class SemanticItems:
    """The path and text items of the semantic zoom; :class:`SemanticLayer` fills them."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.boxes: dict[str, QtWidgets.QGraphicsPathItem] = {}
        self.frames = _item(scene, Z_FRAMES)
        self.box_selected = _item(scene, Z_BOXES + 0.05)
        self.switches: dict[int, QtWidgets.QGraphicsPathItem] = {}
        self.blocks = _item(scene, Z_BLOCKS)
        self.lines: dict[tuple[float, int], SegmentPathItem] = {}     # (width px, QRgb) → lines
        self.selected = _item(scene, Z_SELECTED)
        self.near_cables: dict[tuple[int, str], SegmentPathItem] = {}
        self.top = _item(scene, Z_TOP)
        self.near_ends = np.zeros((4, 0))
        self.on = False

    def all_items(self) -> list[QtWidgets.QGraphicsItem]:
        return ([*self.boxes.values(), self.frames, self.box_selected, *self.switches.values(), self.blocks,
                 *self.lines.values(), self.selected, *self.near_cables.values(), self.top])

    def hide(self) -> None:
        self.on = False
        for it in self.all_items():
            it.setVisible(False)

    # ------------------------------------------------------------------ pieces
    def set_boxes(self, rects: np.ndarray, kinds: list[str], under: bool = False) -> None:
        """Collapsed groups: rounded boxes ([4, n]) filled with a tint of their main device kind
        (``under``: below the lines and switches drawn inside them, paler — the middle level)."""
        theme = self.scene.theme
        seen = set()
        for k in sorted(set(kinds)):
            sel = [i for i, x in enumerate(kinds) if x == k]
            item = self.boxes.get(k)
            if item is None:
                item = self.boxes[k] = _item(self.scene, Z_BOXES)
            color = theme.brushes[k].color() if k != "server" else QtGui.QColor("#8a949e")
            item.setZValue(Z_UNDER if under else Z_BOXES)
            item.setBrush(QtGui.QBrush(tint(color, theme.dark, 0.93 if under else 0.82)))
            item.setPen(_pen(color.darker(130) if not under else tint(color, theme.dark, 0.5), 1.5))
            item.setPath(rounded_rects_path(rects[:, sel], BOX_RADIUS))
            item.setVisible(True)
            seen.add(k)
        for k in [k for k in self.boxes if k not in seen]:
            self.scene.removeItem(self.boxes.pop(k))

    def set_frames(self, rects: np.ndarray) -> None:
        """Expanded groups: a dashed frame, no fill."""
        self.frames.setPen(_pen(self.scene.theme.text, 1.2, QtCore.Qt.PenStyle.DashLine))
        self.frames.setPath(rounded_rects_path(rects, BOX_RADIUS))
        self.frames.setVisible(rects.shape[1] > 0)

    def set_switches(self, rects: np.ndarray, kinds: np.ndarray) -> None:
        """Switches of collapsed groups (middle): one path per kind, like the batch."""
        theme = self.scene.theme
        seen = set()
        for k in np.unique(kinds).tolist():
            item = self.switches.get(k)
            if item is None:
                item = self.switches[k] = _item(self.scene, Z_SWITCHES)
            item.setBrush(theme.brushes[KINDS[k]])
            item.setPen(theme.pens[KINDS[k]])
            item.setPath(rects_path(rects[:, kinds == k]))
            item.setVisible(True)
            seen.add(k)
        for k in [k for k in self.switches if k not in seen]:
            self.scene.removeItem(self.switches.pop(k))

    def set_blocks(self, rects: np.ndarray) -> None:
        """Host blocks (middle): one rectangle per block of servers."""
        theme = self.scene.theme
        self.blocks.setBrush(theme.brushes["server"])
        self.blocks.setPen(theme.pens["server"])
        self.blocks.setPath(rects_path(rects))
        self.blocks.setVisible(rects.shape[1] > 0)

    def set_lines(self, ends: np.ndarray, width_px: np.ndarray, rgba: np.ndarray) -> None:
        """Bundle lines ([4, n] ends; QRgb colours), one segment item per (width, colour)."""
        rgba = np.asarray(rgba, np.int64) & 0xFFFFFFFF
        key = np.round(np.asarray(width_px, np.float64) * 2).astype(np.int64) << 32 | rgba
        uniq, inv = np.unique(key, return_inverse=True)
        inv = np.asarray(inv).reshape(-1)
        seen = set()
        for j, kv in enumerate(uniq.tolist()):
            w, c = (kv >> 32) / 2.0, kv & 0xFFFFFFFF
            item = self.lines.get((w, c))
            if item is None:
                item = self.lines[(w, c)] = _item(self.scene, Z_LINES, SegmentPathItem)
                item.setPen(_pen(QtGui.QColor.fromRgba(c), w))
            e = ends[:, inv == j]
            item.setPath(path_pairs(e[0], e[1], e[2], e[3]))
            item.set_segments(e)
            item.setVisible(True)
            seen.add((w, c))
        for k in [k for k in self.lines if k not in seen]:
            self.scene.removeItem(self.lines.pop(k))

    def set_selected(self, ends: np.ndarray, width_px: float) -> None:
        """Selected bundles (or the selected cables where they are drawn): drawn over their lines
        in the selection colour, a little wider."""
        pen = _pen(self.scene.theme.select_pen.color(), width_px)
        self.selected.setPen(pen)
        self.selected.setPath(path_pairs(ends[0], ends[1], ends[2], ends[3]))
        self.selected.setVisible(ends.shape[1] > 0)

    def set_near_cables(self, ends: np.ndarray, tech: np.ndarray, ctype: np.ndarray) -> None:
        """The cables between devices drawn at near detail (in expanded groups), bucketed by
        colour like :class:`~fabricviz.ui.canvas.items.cables.CableLayer`."""
        theme = self.scene.theme
        seen = set()
        for (tc, tname), pen in theme.cable_pens.items():
            sel = np.flatnonzero((tech == tc) & (ctype == CABLE_TYPES.index(tname)))
            if not len(sel):
                continue
            key = (tc, tname)
            item = self.near_cables.get(key)
            if item is None:
                item = self.near_cables[key] = _item(self.scene, Z_NEAR_CABLES, SegmentPathItem)
            item.setPen(pen)
            e = ends[:, sel]
            item.setPath(path_pairs(e[0], e[1], e[2], e[3]))
            item.set_segments(e)
            item.setVisible(True)
            seen.add(key)
        for key in [k for k in self.near_cables if k not in seen]:
            self.scene.removeItem(self.near_cables.pop(key))
        self.near_ends = ends

    def near_cable_at(self, pos: QtCore.QPointF, tol: float) -> int | None:
        """Column (of the last :meth:`set_near_cables`) of the cable within ``tol`` of ``pos``."""
        d = segment_distance(self.near_ends, pos)
        i = int(np.argmin(d)) if len(d) else -1
        return i if i >= 0 and d[i] <= tol else None

    def set_top(self, ends: np.ndarray | None, pen: QtGui.QPen | None) -> None:
        """Cables drawn over everything at their drawn ends (a traced path)."""
        if ends is None or not ends.shape[1]:
            self.top.setVisible(False)
            self.top.setPath(QtGui.QPainterPath())
            return
        ok = np.isfinite(ends).all(axis=0)
        e = ends[:, ok]
        self.top.setPen(pen if pen is not None else _pen(self.scene.theme.select_pen.color(), 3.0))
        self.top.setPath(path_pairs(e[0], e[1], e[2], e[3]))
        self.top.setVisible(True)


# the labels' placement (PAD_PX … place_labels) has its own module; its names stay importable from here
__all__ = ["BOX_PAD", "PAD_PX", "Label", "SemanticItems", "assign_nodes", "bbox_by", "box_title", "bundle_width_px",
           "cable_rgba", "clamp_points", "drawn_primitives", "faded", "facing_ends", "hit_text", "layer_geometry",
           "level_labels", "node_groups", "node_name", "node_rects_of", "place_labels", "rounded_rects_path",
           "segment_distance", "spread_ends", "tint", "typical_box_area", "typical_sizes"]
