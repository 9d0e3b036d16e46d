"""NVLink rack domains on the canvas (near level): collapsed as one block, opened to their trays and links.

A rack domain (:mod:`fabricviz.model.nvlink`: a GB200/GB300 NVL72's compute trays) is drawn over
its compute trays (the servers, which stay where the model has them):

* **collapsed** (the default): one block covering the trays, with the domain's name and part as a
  constant-size label; the trays' own items and names are hidden under it, the cables to the
  scale-out fabric run to the block;
* **open**: a frame round the trays, the NVLink switch trays as a row of boxes under them
  (``switch_trays`` of ``chips_per_switch_tray`` chips) and the NVLink links: each compute tray's
  run down the gutter at its left to a bus under the frame that fans out to every switch tray
  (each GPU has a link to each switch chip), labelled under the switch trays with the rack's name
  and part and the part's link count and rate (the cable router keeps that room free:
  :mod:`~fabricviz.ui.canvas.items.rack_routes`); a line wider than the rack (zoomed out) moves
  sideways to stay over the design, not past the canvas's edge, for a rack at the design's edge.

A double-click on the block or the frame opens or closes it (the Pick gesture; view state, like opening a group:
not an edit of the design, nothing to undo). Zoomed out (far, middle) the semantic layer draws the
rack as its own host block; this layer hides. DGX baseboards, and a rack that is one server
part (the catalog's whole-rack part), are drawn by their servers.
Which domains are open is kept by name while the design changes; another design closes them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import FabricError
from fabricviz.model import events as ev
from fabricviz.model.nvlink import NvlinkDomain, nvlink_domains
from fabricviz.ui.canvas.items.devices import ROLE_KIND

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.canvas.scene import FabricScene

NVLINK_KIND = "nvlink"                 # item.data(ROLE_KIND) of every item drawn here
NVLINK_COLOR = "#76b900"               # NVIDIA green: NVLink, as the GPUs it joins
Z_BLOCK, Z_FRAME, Z_LINKS, Z_TRAYS = 4.0, -0.8, -0.9, 0.5
PAD = 14.0                             # frame/block margin round the trays (scene units)
TRAY_H, TRAY_GAP, ROW_GAP = 16.0, 6.0, 60.0
GUTTER = 4.0                           # a tray's links run down this far left of it
BLOCK_TINT = 0.25                      # the collapsed block: this much NVLink green over the background
#: An open rack's three labels: the first this far under its switch trays, the others a label height
#: (on screen) under the one before; the room kept for them under the trays (rack_routes) is LABEL_STEP a line
LABEL_TOP, LABEL_STEP = 14.0, 20.0


def _rect_item(scene: QtWidgets.QGraphicsScene, z: float, item: Any = None) -> Any:
    """``item`` (default a new rectangle) at ``z``, tagged as this layer's, added to ``scene``."""
    item = QtWidgets.QGraphicsRectItem() if item is None else item
    item.setZValue(z)
    item.setData(ROLE_KIND, NVLINK_KIND)
    scene.addItem(item)
    return item


class DomainBlock(QtWidgets.QGraphicsRectItem):
    """The block (collapsed) or frame (open) of one rack domain (a double-click on it toggles it:
    the canvas's Pick gesture asks :meth:`NvlinkLayer.block_at`)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)


class NvlinkLayer:
    """The rack domains' blocks, frames, switch trays and links (see the module doc; the scene's
    ``nvlink``)."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.opened: set[str] = set()
        self.domains: tuple[NvlinkDomain, ...] = ()
        self.blocks: dict[str, DomainBlock] = {}
        self.extras: list[QtWidgets.QGraphicsItem] = []
        self.problem: str | None = None          # a refused nvlink setting: nothing drawn
        self._hid: set[int] = set()              # tray items this layer hid
        self._regroup = True                     # the domains must be found again
        self._stale = True                       # something moved or changed: draw again
        scene.semantic.listeners.append(self.refresh)

    # ------------------------------------------------------------------ state
    def set_fabric(self) -> None:
        """Another design: every domain closed."""
        self.opened.clear()
        self._hid.clear()
        self._regroup = True
        self.refresh()

    def on_event(self, e: ev.ChangeEvent) -> None:
        """A model change: find the domains again on structural or design-wide changes (the
        ``nvlink_domains`` setting), draw again on the next event-loop turn on any."""
        if e.kind in (ev.ADDED, ev.REMOVED, ev.BULK_ADDED, ev.RESET) or e.what == ev.FABRIC or e.attr == "name":
            self._regroup = True
        if not self._stale:
            self._stale = True
            QtCore.QTimer.singleShot(0, self.flush)

    def flush(self) -> None:
        """Draw again if the model changed since the last drawing (once per event-loop turn)."""
        if self._stale:
            self.refresh()

    def toggle(self, name: str) -> None:
        """Open a closed domain, close an open one."""
        self.opened ^= {name}
        self.refresh()

    def is_open(self, name: str) -> bool:
        return name in self.opened

    def block_at(self, sp: QtCore.QPointF) -> str | None:
        """The domain whose block or open frame holds the scene point (drawn now), else None."""
        for name, block in self.blocks.items():
            if block.isVisible() and block.rect().contains(sp):
                return name
        return None

    # ------------------------------------------------------------------ drawing
    def _clear(self) -> None:
        for item in [*self.blocks.values(), *self.extras]:
            if item.scene() is not None:
                self.scene.removeItem(item)
        self.blocks, self.extras = {}, []

    def refresh(self) -> None:
        """Draw the rack domains again from the model (positions, membership, open state)."""
        self._clear()
        self._stale = False
        scene, f = self.scene, self.scene.fabric
        layer = scene.label_layer
        near = scene.semantic.level == "near"
        if near:                                 # far/middle: the semantic layer decides what shows
            for sid in self._hid:
                item = scene.items_by_id.get(sid)
                if item is not None:
                    item.setVisible(True)
        self._hid.clear()
        if self._regroup:
            self._regroup = False
            try:
                found = nvlink_domains(f) if f is not None else ()
                self.domains = tuple(d for d in found if d.spec.rack and d.explicit)
                self.problem = None
            except FabricError as e:             # the inspector/lint say what is wrong; draw nothing
                self.domains, self.problem = (), str(e)
        hidden = np.zeros(0 if f is None else f.devices_t.n, bool)
        xs, ys, texts, lines = [], [], [], []
        for d in self.domains:
            rect = self._trays_rect(d)
            if rect is None:
                continue
            block = _rect_item(scene, Z_FRAME if self.is_open(d.name) else Z_BLOCK, DomainBlock(d.name))
            block.setRect(rect.adjusted(-PAD, -PAD, PAD, PAD))
            self.blocks[d.name] = block
            block.setVisible(near)
            s = d.spec
            if self.is_open(d.name):
                block.setPen(self._pen(2.0, QtCore.Qt.PenStyle.DashLine))
                block.setBrush(QtGui.QBrush(QtCore.Qt.BrushStyle.NoBrush))
                bottom = self._switch_trays(d, block.rect(), near)
                cx = block.rect().center().x()                # under the switch trays, where the
                for k, text in enumerate((                     # router keeps cables away (rack_routes)
                        f"{d.name}: {s.name}",
                        f"{len(d.servers)} compute trays, {d.n_gpus} GPUs; "
                        f"{s.switch_trays} NVLink switch trays × {s.chips_per_switch_tray} chips",
                        f"{s.links:,} NVLink {s.generation} links: {s.links_per_gpu} per GPU × "
                        f"{s.link_gbytes:g} GB/s = {s.gpu_gbytes:g} GB/s a direction")):
                    xs.append(cx)
                    ys.append(bottom + LABEL_TOP)         # line k: k label heights lower, on screen
                    texts.append(text)
                    lines.append(k)
            else:
                block.setBrush(QtGui.QBrush(self._fill()))
                block.setPen(self._pen(2.0))
                block.setToolTip(f"{d.name}: {s.name}: {d.n_gpus} GPUs on {len(d.servers)} compute trays, "
                                 f"{s.switch_trays} NVLink switch trays (double-click to open)")
                xs.append(block.rect().center().x())
                ys.append(block.rect().center().y())
                texts.append(f"{d.name} · {s.id} · {d.n_gpus} GPUs")
                lines.append(0)
                self._hide_trays(d, hidden, near)
        if f is not None and near and (self.domains or layer.device_filter is not None):
            layer.set_device_filter(~hidden if hidden.any() else None)
            c = scene.content_rect()           # a caption wider than its rack stays over the design
            layer.set_extra(xs, ys, texts, lines=lines, span=(c.left(), c.right()))

    def _fill(self) -> QtGui.QColor:
        """The collapsed block's fill: NVLink green, a quarter strength over the background."""
        bg, c = self.scene.theme.background, QtGui.QColor(NVLINK_COLOR)
        mix = [round(b + (x - b) * BLOCK_TINT) for b, x in ((bg.red(), c.red()), (bg.green(), c.green()),
                                                              (bg.blue(), c.blue()))]
        return QtGui.QColor(*mix)

    def _pen(self, width: float, style: QtCore.Qt.PenStyle = QtCore.Qt.PenStyle.SolidLine) -> QtGui.QPen:
        pen = QtGui.QPen(QtGui.QColor(NVLINK_COLOR).darker(140), width, style)
        pen.setCosmetic(True)
        return pen

    def _trays_rect(self, d: NvlinkDomain) -> QtCore.QRectF | None:
        items = self.scene.items_by_id
        rect: QtCore.QRectF | None = None
        for sid in d.servers.tolist():
            item = items.get(sid)
            if item is None:
                continue
            r = item.sceneBoundingRect()
            rect = r if rect is None else rect.united(r)
        return rect

    def _hide_trays(self, d: NvlinkDomain, hidden: np.ndarray, near: bool) -> None:
        """The trays under a collapsed block: their items and names stand down (the block is them)."""
        f = self.scene.fabric
        assert f is not None
        for sid in d.servers.tolist():
            hidden[sid] = True
            hidden[f.children_ids(sid)] = True
            item = self.scene.items_by_id.get(sid)
            if item is not None and near:
                item.setVisible(False)
                self._hid.add(sid)

    def _switch_trays(self, d: NvlinkDomain, frame: QtCore.QRectF, visible: bool) -> float:
        """The switch trays as a row of boxes under the frame and the NVLink links to them; returns
        the row's bottom edge."""
        s, scene = d.spec, self.scene
        n = s.switch_trays
        width = min(120.0, (frame.width() - TRAY_GAP * (n - 1)) / n)
        left = frame.center().x() - (n * width + (n - 1) * TRAY_GAP) / 2
        top = frame.bottom() + ROW_GAP
        fill = QtGui.QBrush(QtGui.QColor(NVLINK_COLOR).darker(150))
        tops = []
        for i in range(n):
            box = _rect_item(scene, Z_TRAYS)
            box.setRect(left + i * (width + TRAY_GAP), top, width, TRAY_H)
            box.setBrush(fill)
            box.setPen(self._pen(1.0))
            box.setToolTip(f"NVLink switch tray {i + 1} of {d.name}: {s.chips_per_switch_tray} switch chips")
            box.setVisible(visible)
            self.extras.append(box)
            tops.append(QtCore.QPointF(box.rect().center().x(), top))
        # each compute tray's links run down the gutter at its left to the NVLink bus under the
        # frame, the bus fans out to every switch tray (each GPU has a link to every switch chip)
        path = QtGui.QPainterPath()
        bus_y = frame.bottom() + ROW_GAP / 2
        xs = [p.x() for p in tops]
        for sid in d.servers.tolist():
            item = scene.items_by_id.get(sid)
            if item is None:
                continue
            r = item.sceneBoundingRect()
            x = r.left() - GUTTER
            path.moveTo(r.left(), r.center().y())
            path.lineTo(x, r.center().y())
            path.lineTo(x, bus_y)
            xs.append(x)
        path.moveTo(min(xs), bus_y)
        path.lineTo(max(xs), bus_y)
        for p in tops:
            path.moveTo(p.x(), bus_y)
            path.lineTo(p)
        links = _rect_item(scene, Z_LINKS, QtWidgets.QGraphicsPathItem())
        links.setPath(path)
        pen = self._pen(1.0)
        pen.setColor(QtGui.QColor(NVLINK_COLOR))
        links.setPen(pen)
        links.setVisible(visible)
        self.extras.append(links)
        return top + TRAY_H


__all__ = ["DomainBlock", "NVLINK_KIND", "NvlinkLayer"]
