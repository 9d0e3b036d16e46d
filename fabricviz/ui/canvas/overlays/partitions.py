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

The membership comes from the Partitions dock's routing-cache entry
(:func:`fabricviz.ui.docks.partitions.resolve_design`), one per design state. The marks are
a few path items (one per colour and fill style, one veil, one outline), never an item per
host. Zoomed out (semantic level far/middle) hosts are drawn as blocks, not as themselves,
so nothing is drawn then; the marks come back at near.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ib.partitions import DEFAULT_PKEY, Resolution
from fabricviz.model import FabricError
from fabricviz.model.fabric import KIND_CODE
from fabricviz.sim.reach import fabric_tech
from fabricviz.ui.canvas.overlays.bundled import follow_levels

#: One colour per partition, by its place among the design's non-Default partitions.
PALETTE = ("#1c7ed6", "#e8590c", "#2f9e44", "#ae3ec9", "#f59f00", "#0c8599", "#d6336c", "#5c940d")
SETTING = "canvas/partition_marks"
SQUARE = 8.0          # side of a mark, scene units
GAP = 2.0             # between marks, and from the frame's left edge
REACH_COLOUR = "#2f9e44"
Z = 6.5               # over the devices and cables (and the sweep overlay's paths)
ROLE = "partition_marks"


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
    in a partition is a full member of it."""
    by_pkey = res.by_pkey()
    out: dict[int, list[tuple[int, bool]]] = {}
    for pkey in order:
        p = by_pkey.get(pkey)
        if p is None or pkey == DEFAULT_PKEY:
            continue
        for d, guids in ports.items():
            if any(g in p.full for g in guids):
                out.setdefault(d, []).append((pkey, True))
            elif any(g in p.limited for g in guids):
                out.setdefault(d, []).append((pkey, False))
    return out


def reachable(member: dict[int, list[tuple[int, bool]]], src: int) -> tuple[set[int], list[int]]:
    """The hosts ``src`` can talk to and the P_Keys (in ``src``'s order) that let it talk to one."""
    mine = dict(member.get(src, []))
    peers: set[int] = set()
    through: list[int] = []
    for pkey, full in mine.items():
        got = {d for d, ms in member.items() if d != src and any(k == pkey and (full or f) for k, f in ms)}
        if got:
            through.append(pkey)
        peers |= got
    return peers, through


class PartitionMarks:
    """The partition marks of ``document``'s design on ``scene``; ``set_on`` shows or hides them."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene,
                 status: Callable[[str], None] | None = None) -> None:
        self.document = document
        self.scene = scene
        self.status = status or (lambda _text: None)
        self.on = False
        self.items: dict[tuple[int, bool], QtWidgets.QGraphicsPathItem] = {}   # (P_Key, full) → its marks
        self.veil: QtWidgets.QGraphicsPathItem | None = None
        self.reach: QtWidgets.QGraphicsPathItem | None = None
        self.member: dict[int, list[tuple[int, bool]]] = {}
        self.frames: dict[int, QtCore.QRectF] = {}
        self.names: dict[int, str] = {}
        self.peers: set[int] = set()
        self.status_text = ""
        document.changed.connect(lambda _e: self.refresh())
        document.routing.ready.connect(lambda key: self.refresh() if key == self._key() else None)
        scene.selectionChanged.connect(self._show_reach)
        follow_levels(scene, self.refresh)

    @staticmethod
    def _key() -> str:
        from fabricviz.ui.docks.partitions import CACHE_KEY
        return CACHE_KEY

    def set_on(self, on: bool) -> None:
        self.on = bool(on)
        self.refresh()

    # ------------------------------------------------------------------ what to draw
    def _resolution(self) -> Resolution | None:
        from fabricviz.ui.docks.partitions import BACKGROUND_DEVICES, resolve_design
        routing, f = self.document.routing, self.document.fabric
        if len(f) <= BACKGROUND_DEVICES:
            value = routing.compute(self._key(), resolve_design)
        else:
            value = routing.get(self._key())
            if value is None:
                routing.request(self._key(), resolve_design)      # drawn when it is ready
        return value if isinstance(value, Resolution) else None

    def _order(self) -> list[int] | None:
        from fabricviz.ib.partitions import design_partitions
        try:
            conf = design_partitions(self.document.fabric.meta)
        except FabricError:
            return None
        return [p.pkey for p in conf.merged()] if conf is not None else None

    def refresh(self) -> None:
        """Draw the marks of the design's current state (or nothing: off, Ethernet, no partitions,
        zoomed out)."""
        f = self.document.fabric
        sem = getattr(self.scene, "semantic", None)
        order = self._order() if self.on and fabric_tech(f) == "ib" else None
        if order is None or (sem is not None and sem.level != "near"):
            self.clear()
            return
        res = self._resolution()
        if res is None:
            self.clear()
            return
        from fabricviz.ui.docks.partitions import host_port_guids
        t = f.devices_t
        host = t.alive & (t.parent < 0) & ((t.kind == KIND_CODE["server"]) | (t.kind == KIND_CODE["nic"]))
        ids = [int(d) for d in host.nonzero()[0].tolist()]
        self.member = memberships(res, host_port_guids(f, ids, res.end_ports), order)
        items_by_id = getattr(self.scene, "items_by_id", {})
        self.frames = {}                  # every host's frame: the veil covers members and others alike
        for d in ids:
            item = items_by_id.get(d)
            if item is not None:
                self.frames[d] = item.mapRectToScene(item.rect())
        self.member = {d: ms for d, ms in self.member.items() if d in self.frames}
        self.names = {d: f.name_of(d) for d in self.frames}
        paths: dict[tuple[int, bool], QtGui.QPainterPath] = {}
        for d, ms in self.member.items():
            for slot, (pkey, full) in enumerate(ms):
                paths.setdefault((pkey, full), QtGui.QPainterPath()).addRect(mark_rect(self.frames[d], slot))
        colours = partition_colours(order)
        for key in [k for k in self.items if k not in paths]:
            self._drop(self.items.pop(key))
        for key, path in paths.items():
            item = self.items.get(key) or self._make(colours[key[0]], key[1])
            self.items[key] = item
            item.setPath(path)
        self._show_reach()

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

    @staticmethod
    def _drop(item: QtWidgets.QGraphicsItem | None) -> None:
        if item is None or not shiboken6.isValid(item):
            return
        scene = item.scene()
        if scene is not None and shiboken6.isValid(scene):
            scene.removeItem(item)

    def clear(self) -> None:
        for item in self.items.values():
            self._drop(item)
        self.items = {}
        self.member, self.frames, self.names = {}, {}, {}
        self._clear_reach()

    def _clear_reach(self) -> None:
        self._drop(self.veil)
        self._drop(self.reach)
        self.veil = self.reach = None
        self.peers = set()
        self.status_text = ""

    # ------------------------------------------------------------------ reachable from the selection
    def _show_reach(self) -> None:
        """Exactly one host selected: outline whom it can talk to, veil the rest, say so."""
        if not shiboken6.isValid(self.scene):        # the window is going: its scene clears its selection
            return
        self._clear_reach()
        if not self.items:
            return
        try:
            sel = self.scene.selected_device_ids()
        except RuntimeError:           # the scene is gone (window closing)
            return
        if len(sel) != 1 or sel[0] not in self.frames:
            return
        src = sel[0]
        peers, through = reachable(self.member, src)
        self.peers = peers
        outline, veil = QtGui.QPainterPath(), QtGui.QPainterPath()
        for d, frame in self.frames.items():
            if d in peers:
                outline.addRect(frame)
            elif d != src:
                veil.addRect(frame)
        pen = QtGui.QPen(QtGui.QColor(REACH_COLOUR), 2.5)
        pen.setCosmetic(True)
        self.reach = self._add(QtWidgets.QGraphicsPathItem(outline), Z + 0.2)
        self.reach.setPen(pen)
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
            conf = design_partitions(self.document.fabric.meta)
        except FabricError:
            return []
        return conf.merged() if conf is not None else []


__all__ = ["PALETTE", "PartitionMarks", "SETTING", "mark_rect", "memberships", "partition_colours", "reachable"]
