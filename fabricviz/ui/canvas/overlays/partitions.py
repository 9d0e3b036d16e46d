"""Partition marks on the canvas: which InfiniBand partitions each host is in, and whom it can reach.

View ▸ Partition Marks (off by default, kept in QSettings). On an InfiniBand design with
partitions, every host — a server, or a top-level NIC of an imported fabric — gets one small
square per partition it is a member of (the Default partition left out), in a row along the
top edge of its frame, in partition order: filled for a full member, outlined for a limited
one. Each partition has one colour of :data:`PALETTE`, by its place among the design's
partitions (the Partitions dock shows the same colour beside the name). A host with several
IB ports counts as a full member when any of its ports is one.

With exactly one host selected, the hosts it can talk to get a green outline and the others a
translucent veil: two hosts talk when they share a non-Default partition and at least one of
them is a full member of it (the IB P_Key rule, as :mod:`fabricviz.sim.partitioned`). The
status bar says ``node01 can talk to 5 hosts (storage, compute)``.

Zoomed out (semantic level far/middle) hosts are drawn in group boxes (far) and host blocks
(middle): each such box gets one badge (:class:`GroupBadge`, constant size on screen) with a
row per partition its hosts are in — the partition's square, filled when a member is full, and
``12 in storage`` (``(limited)``, ``(full)`` or ``(2 full)``) — and with a host selected the
boxes holding hosts it can reach are outlined (solid: all of them, dashed: some; the badge
says ``can talk to 5 of 12``), the others veiled. Hosts of an open group are drawn as
themselves and marked as at near.

A lesson step shows the marks whatever the View menu says (:meth:`PartitionMarks.pin`, with
the host whose reach it shows); :func:`marks_of` finds the scene's marks.

The membership comes from the Partitions dock's routing-cache entry
(:func:`fabricviz.ib.partition_design.resolve_design`), one per design state. The marks are
a few path items (one per colour and fill style, one veil, one outline) and one badge per box,
never an item per host.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ib.partition_design import host_port_guids, resolve_design
from fabricviz.ib.partitions import DEFAULT_PKEY, Resolution
from fabricviz.model import FabricError
from fabricviz.model.fabric import KIND_CODE
from fabricviz.sim.reach import fabric_tech
from fabricviz.ui.canvas.overlays import remove_from_scene
from fabricviz.ui.canvas.overlays.bundled import drawn_alone_devices, follow_levels, semantic_of
from fabricviz.ui.document.partitions import BACKGROUND_DEVICES, CACHE_KEY
from fabricviz.ui.document.routing import RoutingRefused

if TYPE_CHECKING:
    from fabricviz.ui.canvas.scene import FabricScene

#: One colour per partition, by its place among the design's non-Default partitions.
PALETTE = ("#1c7ed6", "#e8590c", "#2f9e44", "#ae3ec9", "#f59f00", "#0c8599", "#d6336c", "#5c940d")
SETTING = "canvas/partition_marks"
SQUARE = 8.0          # side of a mark, scene units
GAP = 2.0             # between marks, and from the frame's left edge
REACH_COLOUR = "#2f9e44"
Z = 6.5               # over the devices and cables (and the sweep overlay's paths)
ROLE = "partition_marks"
BADGE_ROW = 13.0      # pixels per badge row
BADGE_SQUARE = 8.0    # pixels
BADGE_MIN_W = 40.0    # a badge is elided to its box's width on screen, but not below this


def partition_colours(pkeys: Sequence[int]) -> dict[int, QtGui.QColor]:
    """P_Key → its colour: the non-Default ones in the order given, round the palette."""
    keys = [k & 0x7FFF for k in pkeys if k & 0x7FFF != DEFAULT_PKEY]
    return {k: QtGui.QColor(PALETTE[i % len(PALETTE)]) for i, k in enumerate(keys)}


def mark_rect(frame: QtCore.QRectF, slot: int) -> QtCore.QRectF:
    """Where a host's ``slot``-th mark sits: on the top edge of its frame, left to right."""
    return QtCore.QRectF(frame.left() + GAP + slot * (SQUARE + GAP), frame.top() - SQUARE / 2, SQUARE, SQUARE)


def memberships(res: Resolution, ports: dict[int, list[int]],
                order: Sequence[int]) -> dict[int, list[tuple[int, bool]]]:
    """Host → [(P_Key, full?)] in ``order`` (non-Default partitions only); a host with a full port
    in a partition is a full member of it. Hosts come in the order of their first membership
    (then of ``ports``). Joined as arrays (issue 28: 32,767 partitions of every host): a few
    calls per host and per partition, never one per membership."""
    mem = res.arrays()
    hosts = list(ports)
    # (host index, port index) of every host port that is a subnet end port
    at = {g: i for i, g in enumerate(mem.port_guids.tolist())}
    pairs = [(h, at[g]) for h, d in enumerate(hosts) for g in ports[d] if g in at]
    ph = np.fromiter((h for h, _ in pairs), np.int64, len(pairs))
    pp = np.fromiter((i for _, i in pairs), np.int64, len(pairs))
    by_port = np.argsort(pp, kind="stable")
    ph, pp = ph[by_port], pp[by_port]
    # where each partition sits in ``order`` (Default and partitions not in it: -1)
    pos = np.full(len(res.partitions), -1, np.int64)
    slot = {k: i for i, k in reversed(list(enumerate(order)))}
    for j, p in enumerate(res.partitions):
        if p.pkey != DEFAULT_PKEY and p.pkey in slot:
            pos[j] = slot[p.pkey]
    keep = pos[mem.part] >= 0
    part, port, full = mem.part[keep], mem.port[keep], mem.full[keep]
    # every membership once per host holding its port
    lo, hi = np.searchsorted(pp, port, "left"), np.searchsorted(pp, port, "right")
    reps = hi - lo
    which = np.repeat(np.arange(len(port)), reps)
    first = np.repeat(lo - (np.cumsum(reps) - reps), reps)
    host = ph[np.arange(len(which)) + first]
    part, full = part[which], full[which]
    # one (host, partition) row, full when any of the host's ports is
    key = pos[part] * max(len(hosts), 1) + host
    rows, inv = np.unique(key, return_inverse=True)
    any_full = np.zeros(len(rows), bool)
    any_full[inv.reshape(-1)[full]] = True
    row_pos, row_host = rows // max(len(hosts), 1), rows % max(len(hosts), 1)
    row_pkey = np.asarray(order, np.int64)[row_pos] if len(rows) else row_pos
    by_host = np.argsort(row_host, kind="stable")           # each host's rows stay in ``order``
    row_host, row_pos, row_pkey = row_host[by_host], row_pos[by_host], row_pkey[by_host]
    any_full = any_full[by_host]
    starts = np.flatnonzero(np.diff(row_host, prepend=-1))
    ends = [*starts[1:].tolist(), len(rows)]
    pkeys, fulls = row_pkey.tolist(), any_full.tolist()
    heads = row_host[starts]
    seq = np.lexsort((heads, row_pos[starts]))              # by first membership, then host
    return {hosts[int(heads[i])]: list(zip(pkeys[starts[i]:ends[i]], fulls[starts[i]:ends[i]], strict=True))
            for i in seq.tolist()}


def reachable(member: dict[int, list[tuple[int, bool]]], src: int) -> tuple[set[int], list[int]]:
    """The hosts ``src`` can talk to and the P_Keys (in ``src``'s order) that let it talk to one;
    one pass over the memberships (not one per partition of ``src``: issue 28)."""
    mine = dict(member.get(src, []))
    got: dict[int, set[int]] = {}
    for d, ms in member.items():
        if d == src:
            continue
        for k, f in ms:
            if k in mine and (mine[k] or f):
                got.setdefault(k, set()).add(d)
    through = [k for k in mine if k in got]
    peers: set[int] = set().union(*got.values())
    return peers, through


def group_rows(member: dict[int, list[tuple[int, bool]]], hosts: Sequence[int], order: Sequence[int],
               names: dict[int, str]) -> list[tuple[int, int, int, str]]:
    """A box's badge rows: (P_Key, members, full members, ``12 in storage (limited)``) for each
    partition (in ``order``) some of ``hosts`` are in; one pass over their memberships."""
    tally: dict[int, list[int]] = {}
    for d in hosts:
        for k, is_full in member.get(d, []):
            t = tally.setdefault(k, [0, 0])
            t[0] += 1
            t[1] += is_full
    out: list[tuple[int, int, int, str]] = []
    for pkey in order:
        if pkey not in tally:
            continue
        n, full = tally[pkey]
        how = "(full)" if full == n else "(limited)" if not full else f"({full} full)"
        out.append((pkey, n, full, f"{n} in {names.get(pkey, hex(pkey))} {how}"))
    return out


class GroupBadge(QtWidgets.QGraphicsItem):
    """The partitions of one zoomed-out box's hosts: a row per partition (its square and a count),
    and whom the selected host reaches there; a constant size on screen, at the box's corner."""

    def __init__(self, theme: Any = None) -> None:
        super().__init__()
        self.rows: list[tuple[QtGui.QColor, bool, str]] = []        # (colour, filled, text)
        self.reach_text = ""
        self.below = False                      # host blocks: under the block, not inside it
        self.theme = theme
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        self.setZValue(Z + 0.3)
        self.setData(2, ROLE)
        self._font = QtGui.QFont()
        self._font.setPointSizeF(7.5)
        self._w = 0.0
        self.max_w = float("inf")               # the box's width on screen (pixels)

    def set_rows(self, rows: list[tuple[QtGui.QColor, bool, str]], reach_text: str = "",
                 max_w: float | None = None) -> None:
        self.prepareGeometryChange()
        self.rows, self.reach_text = rows, reach_text
        if max_w is not None:
            self.max_w = max(float(max_w), BADGE_MIN_W)
        fm = QtGui.QFontMetricsF(self._font)
        texts = [t for _c, _f, t in rows] + ([reach_text] if reach_text else [])
        self._w = min(max((fm.horizontalAdvance(t) for t in texts), default=0.0) + BADGE_SQUARE + 12, self.max_w)
        self.update()

    def _elided(self, text: str, width: float) -> str:
        return QtGui.QFontMetricsF(self._font).elidedText(text, QtCore.Qt.TextElideMode.ElideRight, width)

    def texts(self) -> list[str]:
        return [t for _c, _f, t in self.rows] + ([self.reach_text] if self.reach_text else [])

    def boundingRect(self) -> QtCore.QRectF:  # noqa: N802
        n = len(self.rows) + (1 if self.reach_text else 0)
        return QtCore.QRectF(2, 2, self._w, n * BADGE_ROW + 4)

    def paint(self, painter: QtGui.QPainter, _option: Any, _widget: Any = None) -> None:
        theme = self.theme
        bg = QtGui.QColor(getattr(theme, "background", QtGui.QColor("#ffffff")))
        fg = QtGui.QColor(getattr(theme, "text", QtGui.QColor("#20252b")))
        bg.setAlpha(215)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(bg)
        painter.drawRoundedRect(self.boundingRect(), 3, 3)
        painter.setFont(self._font)
        y = 4.0
        for colour, filled, text in self.rows:
            sq = QtCore.QRectF(6, y + (BADGE_ROW - BADGE_SQUARE) / 2, BADGE_SQUARE, BADGE_SQUARE)
            painter.setPen(QtGui.QPen(colour, 1.5))
            painter.setBrush(QtGui.QBrush(colour) if filled else QtCore.Qt.BrushStyle.NoBrush)
            painter.drawRect(sq)
            painter.setPen(fg)
            room = self._w - BADGE_SQUARE - 10
            painter.drawText(QtCore.QRectF(BADGE_SQUARE + 10, y, room, BADGE_ROW),
                             QtCore.Qt.AlignmentFlag.AlignVCenter, self._elided(text, room))
            y += BADGE_ROW
        if self.reach_text:
            painter.setPen(QtGui.QColor(REACH_COLOUR))
            painter.drawText(QtCore.QRectF(6, y, self._w - 6, BADGE_ROW), QtCore.Qt.AlignmentFlag.AlignVCenter,
                             self._elided(self.reach_text, self._w - 8))


def marks_of(scene: QtWidgets.QGraphicsScene) -> PartitionMarks | None:
    """The partition marks drawn on ``scene`` (the window's View ▸ Partition Marks), if any."""
    marks = getattr(scene, "_partition_marks", None)
    return marks if isinstance(marks, PartitionMarks) else None


class PartitionMarks:
    """The partition marks of ``document``'s design on ``scene``; ``set_on`` shows or hides them."""

    def __init__(self, document: Any, scene: FabricScene,
                 status: Callable[[str], None] | None = None) -> None:
        self.document = document
        self.scene = scene
        self.status = status or (lambda _text: None)
        self.on = False
        self.pinned = False                     # a lesson step shows the marks
        self.source: int | None = None          # … and whom this host can talk to
        self.items: dict[tuple[int, bool], QtWidgets.QGraphicsPathItem] = {}   # (P_Key, full) → its marks
        self.veil: QtWidgets.QGraphicsPathItem | None = None
        self.reach: QtWidgets.QGraphicsPathItem | None = None
        self.reach_some: QtWidgets.QGraphicsPathItem | None = None      # boxes with some hosts reachable
        self.member: dict[int, list[tuple[int, bool]]] = {}
        self.hosts: list[int] = []
        self.frames: dict[int, QtCore.QRectF] = {}
        self.groups: dict[int, list[int]] = {}                  # zoomed out: node id → its hosts
        self.group_rects: dict[int, QtCore.QRectF] = {}
        self.badges: dict[int, GroupBadge] = {}
        self.group_reach: dict[int, tuple[int, int]] = {}       # node → (hosts reachable, hosts)
        self.names: dict[int, str] = {}
        self.order: list[int] = []
        self.peers: set[int] = set()
        self.status_text = ""
        if marks_of(scene) is None:
            scene._partition_marks = self       # type: ignore[attr-defined]  # (marks_of)
        document.changed.connect(lambda _e: self.refresh())
        document.routing.ready.connect(lambda key: self.refresh() if key == self._key() else None)
        scene.selectionChanged.connect(self._show_reach)
        follow_levels(scene, self.refresh)

    @staticmethod
    def _key() -> str:
        return CACHE_KEY

    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        self.refresh()

    def pin(self, source: int | None = None) -> None:
        """Show the marks whatever View ▸ Partition Marks says (a lesson step), with whom ``source``
        (a host's device id) can talk instead of the selection's."""
        self.pinned, self.source = True, source
        self.refresh()

    def unpin(self) -> None:
        if self.pinned:
            self.pinned, self.source = False, None
            self.refresh()

    # ------------------------------------------------------------------ what to draw
    def _resolution(self) -> Resolution | None:
        routing, f = self.document.routing, self.document.fabric
        try:
            if len(f) <= BACKGROUND_DEVICES:
                return routing.compute(self._key(), resolve_design)
            value = routing.get(self._key())
        except RoutingRefused:
            return None
        if value is None:
            routing.request(self._key(), resolve_design)      # drawn when it is ready
        return value

    def _order(self) -> list[int] | None:
        from fabricviz.ib.partitions import design_partitions
        try:
            conf = design_partitions(self.document.fabric)
        except FabricError:
            return None
        return [p.pkey for p in conf.merged()] if conf is not None else None

    def refresh(self) -> None:
        """Draw the marks of the design's current state (or nothing: off, Ethernet, no partitions)."""
        if not shiboken6.isValid(self.scene):
            return
        f = self.document.fabric
        order = self._order() if (self.on or self.pinned) and fabric_tech(f) == "ib" else None
        res = self._resolution() if order is not None else None
        if order is None or res is None:
            self.clear()
            return
        t = f.devices_t
        host = t.alive & (t.parent < 0) & ((t.kind == KIND_CODE["server"]) | (t.kind == KIND_CODE["nic"]))
        ids = [int(d) for d in host.nonzero()[0].tolist()]
        member = memberships(res, host_port_guids(f, ids, res.end_ports), order)
        self.order = [k for k in order if k != DEFAULT_PKEY]
        sem = semantic_of(self.scene)
        zoomed_out = sem is not None and sem.level != "near" and sem.bundles is not None
        alone = drawn_alone_devices(sem if zoomed_out else None, int(t.n))
        items_by_id = getattr(self.scene, "items_by_id", {})
        self.frames, self.groups = {}, {}        # every host's frame: the veil covers members and others alike
        node = sem.node_of() if zoomed_out and sem is not None else None
        for d in ids:
            item = items_by_id.get(d)
            if alone[d]:
                if item is not None:
                    self.frames[d] = item.mapRectToScene(item.rect())
            elif node is not None and 0 <= d < len(node) and node[d] >= 0:
                self.groups.setdefault(int(node[d]), []).append(d)
        self.hosts = [d for d in ids if d in self.frames or not alone[d]]
        self.member = {d: ms for d, ms in member.items() if d in self.hosts}
        self.names = {d: f.name_of(d) for d in self.hosts}
        paths: dict[tuple[int, bool], QtGui.QPainterPath] = {}
        for d, ms in self.member.items():
            if d not in self.frames:
                continue
            for slot, (pkey, full) in enumerate(ms):
                paths.setdefault((pkey, full), QtGui.QPainterPath()).addRect(mark_rect(self.frames[d], slot))
        colours = partition_colours(order)
        for key in [k for k in self.items if k not in paths]:
            self._drop(self.items.pop(key))
        for key, path in paths.items():
            item = self.items.get(key) or self._make(colours[key[0]], key[1])
            self.items[key] = item
            item.setPath(path)
        self._draw_groups(sem, colours)
        self._show_reach()

    def _draw_groups(self, sem: Any, colours: dict[int, QtGui.QColor]) -> None:
        """Zoomed out: one badge per box (group box or host block) holding member hosts."""
        nodes = sorted(self.groups)
        rects = sem.node_rects(np.asarray(nodes, np.int64)) if nodes else np.zeros((4, 0))
        g = sem.grouping if nodes else None
        self.group_rects = {}
        for j, n in enumerate(nodes):
            r = rects[:, j]
            if np.isfinite(r).all():
                self.group_rects[n] = QtCore.QRectF(float(r[0]), float(r[1]), float(r[2] - r[0]), float(r[3] - r[1]))
        names = {p.pkey: p.name for p in self._partitions()}
        views = self.scene.views() if nodes else []
        px = float(views[0].transform().m11()) if views else 1.0      # scene units → pixels
        for n in [n for n in self.badges if n not in self.group_rects]:
            self._drop(self.badges.pop(n))
        for n, rect in self.group_rects.items():
            rows = group_rows(self.member, self.groups[n], self.order, names)
            if not rows:
                self._drop(self.badges.pop(n, None))
                continue
            badge = self.badges.get(n)
            if badge is None:
                badge = self.badges[n] = GroupBadge(getattr(self.scene, "theme", None))
                self.scene.addItem(badge)
            badge.below = g is not None and n >= g.n_groups          # a host block: under it
            badge.setPos(rect.bottomLeft() if badge.below else rect.topLeft())
            badge.set_rows([(colours[k], full > 0, text) for k, _n, full, text in rows], max_w=rect.width() * px)

    def _make(self, colour: QtGui.QColor, full: bool) -> QtWidgets.QGraphicsPathItem:
        item = QtWidgets.QGraphicsPathItem()
        if full:
            item.setBrush(QtGui.QBrush(colour))
            item.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
        else:
            pen = QtGui.QPen(colour, 1.5)
            pen.setCosmetic(True)
            item.setPen(pen)
            item.setBrush(QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush))
        return self._add(item, Z)

    def _add(self, item: QtWidgets.QGraphicsPathItem, z: float) -> QtWidgets.QGraphicsPathItem:
        item.setZValue(z)
        item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        item.setData(2, ROLE)
        self.scene.addItem(item)
        return item

    _drop = staticmethod(remove_from_scene)

    def clear(self) -> None:
        for item in list(self.items.values()) + list(self.badges.values()):
            self._drop(item)
        self.items, self.badges = {}, {}
        self.member, self.frames, self.names, self.groups, self.group_rects = {}, {}, {}, {}, {}
        self.hosts = []
        self._clear_reach()

    def _clear_reach(self) -> None:
        for item in (self.veil, self.reach, self.reach_some):
            self._drop(item)
        self.veil = self.reach = self.reach_some = None
        self.peers = set()
        self.group_reach = {}
        self.status_text = ""
        for badge in self.badges.values():
            if badge.reach_text and shiboken6.isValid(badge):
                badge.set_rows(badge.rows)

    # ------------------------------------------------------------------ reachable from the selection
    def _show_reach(self) -> None:
        """One host selected (or the pinned one): outline whom it can talk to, veil the rest, say so."""
        if not shiboken6.isValid(self.scene):        # the window is going: its scene clears its selection
            return
        self._clear_reach()
        if not self.member:
            return
        if self.source is not None:
            sel = [self.source]
        else:
            try:
                sel = self.scene.selected_device_ids()
            except RuntimeError:           # the scene is gone (window closing)
                return
        if len(sel) != 1 or sel[0] not in self.names:
            return
        src = sel[0]
        peers, through = reachable(self.member, src)
        self.peers = peers
        outline, some, veil = QtGui.QPainterPath(), QtGui.QPainterPath(), QtGui.QPainterPath()
        for d, frame in self.frames.items():
            if d in peers:
                outline.addRect(frame)
            elif d != src:
                veil.addRect(frame)
        for n, rect in self.group_rects.items():
            others = [d for d in self.groups[n] if d != src]
            hit = sum(1 for d in others if d in peers)
            if not others:
                continue
            self.group_reach[n] = (hit, len(others))
            (outline if hit == len(others) else some if hit else veil).addRect(rect)
            badge = self.badges.get(n)
            if badge is not None:
                badge.set_rows(badge.rows, f"can talk to {hit} of {len(others)}")
        pen = QtGui.QPen(QtGui.QColor(REACH_COLOUR), 2.5)
        pen.setCosmetic(True)
        self.reach = self._add(QtWidgets.QGraphicsPathItem(outline), Z + 0.2)
        self.reach.setPen(pen)
        dashed = QtGui.QPen(pen)
        dashed.setStyle(QtCore.Qt.PenStyle.DashLine)
        self.reach_some = self._add(QtWidgets.QGraphicsPathItem(some), Z + 0.2)
        self.reach_some.setPen(dashed)
        bg = QtGui.QColor(getattr(getattr(self.scene, "theme", None), "background", QtGui.QColor("#ffffff")))
        bg.setAlpha(170)
        self.veil = self._add(QtWidgets.QGraphicsPathItem(veil), Z + 0.1)   # the marks dim too
        self.veil.setBrush(QtGui.QBrush(bg))
        self.veil.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
        names = {p.pkey: p.name for p in self._partitions()}
        n = len(peers)
        self.status_text = f"{self.names[src]} can talk to {n} host{'s' if n != 1 else ''}" + \
            (f" ({', '.join(names.get(k, hex(k)) for k in through)})" if through else "")
        self.status(self.status_text)

    def _partitions(self) -> list[Any]:
        from fabricviz.ib.partitions import design_partitions
        try:
            conf = design_partitions(self.document.fabric)
        except FabricError:
            return []
        return conf.merged() if conf is not None else []

    def legend_rows(self) -> list[tuple[str, QtGui.QColor, str]]:
        """Legend rows (label, colour, kind) for what is drawn: each partition, whom a host reaches."""
        if not self.member:
            return []
        from fabricviz.sim.partitioned import pkey_text
        colours = partition_colours(self.order)
        rows = [(f"partition {p.name} ({pkey_text(p.pkey)})", colours[p.pkey], "rect")
                for p in self._partitions() if p.pkey in colours]
        if self.reach is not None and self.status_text:
            rows.append((self.status_text, QtGui.QColor(REACH_COLOUR), "line"))
        return rows


__all__ = ["GroupBadge", "PALETTE", "PartitionMarks", "SETTING", "group_rows", "mark_rect", "marks_of",
           "memberships", "partition_colours", "reachable"]
