"""The canvas scene: mirrors a Fabric through its change events and never edits it.

* One C++ item (QGraphicsRectItem, no Python paint/boundingRect overrides) per
  device: servers are frames holding their GPUs and NICs as child items.
  Python-side paint overrides cost a Python call per item per frame, which a
  30k-host design cannot afford.
* Cables are not items: :class:`~fabricviz.ui.canvas.items.cables.CableLayer`
  draws them as one QPainterPath per colour bucket (technology × cable type),
  rebuilt from the model's numpy columns when something changed, and
  hit-tested in numpy. Device items: :mod:`fabricviz.ui.canvas.items.devices`.
* The index is ``NoIndex``: long diagonal cables blow a BSP tree up.
* Names are one item, :class:`~fabricviz.ui.canvas.items.labels.LabelLayer`: constant
  size on screen, giving way by priority where they would overlap.
* Deferred items: a big design opened zoomed out (``set_fabric(defer=True)``) draws nothing
  with its device items (the semantic layer draws groups and blocks), so they are made only when
  first needed: :attr:`FabricScene.items_by_id` makes them all, :meth:`FabricScene.make_items` some
  (an opened group's), :meth:`FabricScene.make_items_in_view` those on screen at near (the view
  calls it as it scrolls); loops that only show or hide items walk :attr:`FabricScene.made_items`.
  The near cable paths likewise (:meth:`FabricScene.ensure_cables`: the near level, a click or a
  drag on the canvas, any edit).
* Level of detail: the GPUs/NICs inside servers are hidden when the view is zoomed
  out (toggled only when the zoom crosses a threshold); further out, devices are
  drawn as one path per kind (:mod:`fabricviz.ui.canvas.items.batch`).
* Semantic zoom (:mod:`fabricviz.ui.canvas.items.semantic`, ``self.semantic``): zoomed out,
  groups are boxes and the cables between them bundles; the items above are then hidden.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6 import QtCore, QtWidgets

from fabricviz.model import KINDS, Fabric
from fabricviz.model import events as ev
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.batch import BATCH_ZOOM, DeviceBatch, device_rects
from fabricviz.ui.canvas.items.cables import CableLayer
from fabricviz.ui.canvas.items.devices import (
    CHILD_ZOOM,
    DEVICE_ROLE,
    K_SERVER,
    PORT_ROLE,
    ROLE_KIND,
    DeviceItem,
    device_size,
)
from fabricviz.ui.canvas.items.labels import LabelLayer
from fabricviz.ui.canvas.items.nvlink import NvlinkLayer
from fabricviz.ui.canvas.items.semantic import SemanticLayer


class FabricScene(QtWidgets.QGraphicsScene):
    """Items mirroring one fabric: it follows the model's events itself (standalone scenes:
    pictures, the comparison window) or is fed them by the document (:meth:`follow`)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("canvas_scene")
        self.setItemIndexMethod(QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex)
        self.theme = th.Theme.current()
        self.fabric: Fabric | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._items: dict[int, DeviceItem] = {}
        self._pending = np.zeros(0, np.int64)       # devices whose items are not made yet (deferred)
        self._cables_deferred = False               # the near cable paths not built yet (deferred)
        self.hold_items = False                     # True while a design is opened and fitted: the
        #                                             zooms it passes through make no deferred item
        self.selected_cables: set[int] = set()
        self.cables = CableLayer(self)
        self.path_cache = QtWidgets.QGraphicsItem.CacheMode.NoCache
        self.batch = DeviceBatch(self)
        self._batch_dirty = False
        self.show_labels = True
        self.label_layer = LabelLayer(self)     # every device name, constant size on screen
        self.semantic = SemanticLayer(self)     # zoomed out: groups, host blocks, cable bundles
        self.nvlink = NvlinkLayer(self)         # NVL72 racks: one block, opened to trays and links
        self._selectable_kids: set[int] = set()
        self.selectionChanged.connect(self._drop_kid_selection)
        self.selectionChanged.connect(self._batch_selection)
        self.show_children = True
        self._dirty = False
        self.setBackgroundBrush(self.theme.background)

    # ------------------------------------------------------------------ fabric
    @property
    def items_by_id(self) -> dict[int, DeviceItem]:
        """Every device's item by id (deferred ones are made now)."""
        if len(self._pending):
            self.make_items()
        return self._items

    @property
    def deferred(self) -> int:
        """How many devices' items are not made yet."""
        return len(self._pending)

    @property
    def made_items(self) -> dict[int, DeviceItem]:
        """The items made so far (an item not made is not drawn: showing/hiding loops skip it)."""
        return self._items

    def make_items(self, tops: np.ndarray | None = None) -> None:
        """Make deferred items now: all of them, or those of the top-level devices ``tops`` (and
        their GPUs/NICs). They are made where the model has them, shown as the level draws them."""
        pending = self._pending
        if not len(pending) or self.fabric is None:
            return
        t = self.fabric.devices_t
        if tops is None:
            take = np.ones(len(pending), bool)
        else:
            tops = np.asarray(tops, np.int64)
            take = np.isin(pending, tops) | np.isin(t.parent[pending], tops)
            if not take.any():
                return
        self._pending = pending[~take]
        ids = pending[take]
        self._add_devices(ids[t.alive[ids]])

    def make_items_in_view(self, margin: float = 0.5) -> None:
        """Deferred items of the top-level devices the views show, and ``margin`` of a view's
        size around (near: the scene's items draw what is on screen; a 98,304-GPU Clos has
        302,080 of them, a screen a few hundred). No view: every item."""
        pending, f = self._pending, self.fabric
        if not len(pending) or f is None or self.hold_items:
            return
        views = self.views()
        if not views:
            self.make_items()
            return
        t = f.devices_t
        par = t.parent[pending]
        tops = np.unique(np.where(par >= 0, par, pending))
        tops = tops[t.alive[tops]]
        r = device_rects(f, tops)
        want = np.zeros(len(tops), bool)
        for v in views:
            vr = v.mapToScene(v.viewport().rect()).boundingRect()
            mx, my = vr.width() * margin, vr.height() * margin
            want |= (r[2] >= vr.left() - mx) & (r[0] <= vr.right() + mx) & \
                (r[3] >= vr.top() - my) & (r[1] <= vr.bottom() + my)
        if want.any():
            self.make_items(tops[want])

    def ensure_cables(self) -> None:
        """Build the near cable paths now if a deferred open left them unbuilt (they show at near
        only: zoomed out the semantic layer draws every cable)."""
        if self._cables_deferred:
            self._cables_deferred = False
            self.cables.rebuild(self.fabric)

    def set_fabric(self, fabric: Fabric | None, progress: Callable[[int, int], None] | None = None,
                   subscribe: bool = True, children: bool | None = None, defer: bool = False) -> None:
        """Mirror ``fabric`` (rebuilds every item; ``progress(done, total)`` while building).
        ``subscribe=False``: the document feeds the model's events through :meth:`follow`.
        ``children``: GPUs/NICs are made shown or hidden (a big design about to be fitted: hidden,
        not made shown and hidden again by the fit's :meth:`detail_for_scale`).
        ``defer``: the device items and the near cable paths are made when first needed (see the
        module doc)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        batched = self.batch.on
        self.batch.set_on(False)
        for item in list(self._items.values()):
            if item.parentItem() is None:
                self.removeItem(item)
        self._items.clear()
        self._pending = np.zeros(0, np.int64)
        self._selectable_kids.clear()
        self.selected_cables.clear()
        if progress is not None and self.fabric is not None:
            self._clear_drawing()      # a big design paints while it is built: on an empty canvas
        self.fabric = fabric
        if children is not None:
            self.show_children = children
        if fabric is not None and defer:
            self._pending = np.asarray(fabric.device_ids(), np.int64)
        elif fabric is not None:
            self._add_devices(fabric.device_ids(), progress)
        if fabric is not None and subscribe:
            self._unsubscribe = fabric.subscribe(self._on_event)
        self._cables_deferred = fabric is not None and defer
        self.cables.rebuild(None if self._cables_deferred else fabric)
        self._dirty = False
        self.batch.set_on(batched)
        self.label_layer.reset()
        self.semantic.set_fabric()
        self.nvlink.set_fabric()

    def _clear_drawing(self) -> None:
        """The old design's cables, groups, bundles and names go before a new one is built (its
        devices are gone already), so the build's progress paints never draw it over the old."""
        self.fabric = None
        self.cables.rebuild(None)
        self.semantic.set_fabric()
        self.label_layer.reset()

    def follow(self, e: ev.ChangeEvent | None) -> None:
        """One model event from the document (``None``: the fabric was replaced, already rebuilt)."""
        if e is not None and self.fabric is not None:
            self._on_event(e)

    def _add_devices(self, ids: np.ndarray, progress: Callable[[int, int], None] | None = None) -> None:
        f = self.fabric
        assert f is not None
        t = f.devices_t
        ids = np.asarray(ids, dtype=np.int64)
        ids = ids[~np.isin(ids, np.fromiter(self._items, np.int64, len(self._items)))]
        par = t.parent[ids]
        tops, kids = ids[par < 0], ids[par >= 0]
        kids = kids[np.argsort(t.parent[kids], kind="stable")]
        theme = self.theme
        total = len(ids)
        done = 0
        chunk = 4000
        kinds = t.kind[tops].tolist()
        xs, ys, nps = t.x[tops].tolist(), t.y[tops].tolist(), t.nports[tops].tolist()
        # per-item work is Qt calls only: enum sums and theme lookups are done once, not 86k times
        flags = (QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                 | QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        brushes, pens = [theme.brushes[k] for k in KINDS], [theme.pens[k] for k in KINDS]
        items = self._items
        for i, d in enumerate(tops.tolist()):
            kind = kinds[i]
            item = DeviceItem()
            w, h = device_size(kind, nps[i]) if kind != K_SERVER else (th.EMPTY_SERVER, th.EMPTY_SERVER)
            item.setRect(-w / 2, -h / 2, w, h)
            item.setBrush(brushes[kind])
            item.setPen(pens[kind])
            item.setPos(xs[i], ys[i])
            item.setFlags(flags)
            item.setData(DEVICE_ROLE, d)
            item.setData(ROLE_KIND, "device")
            item.setZValue(1.0 if kind == K_SERVER else 2.0)
            self.addItem(item)
            items[d] = item
            done += 1
            if progress is not None and done % chunk == 0:
                progress(done, total)
        # children (GPUs and NICs inside servers), positioned relative to their server; one made
        # above sits where the model has it, so the offsets come from the model's columns
        kinds = t.kind[kids].tolist()
        parents = t.parent[kids].astype(np.int64)
        new = np.isin(parents, tops)
        dx = t.x[kids].astype(np.float64) - np.where(new, t.x[parents], 0.0)
        dy = t.y[kids].astype(np.float64) - np.where(new, t.y[parents], 0.0)
        cw, ch = th.CHILD_W, th.CHILD_H
        no_button = QtCore.Qt.MouseButton.NoButton
        placed = np.zeros(len(kids), bool)
        for i, (d, p, x, y, fresh) in enumerate(zip(kids.tolist(), parents.tolist(), dx.tolist(), dy.tolist(),
                                                     new.tolist(), strict=True)):
            parent = items.get(p)
            if parent is None:
                continue
            kind = kinds[i]
            item = DeviceItem(parent)
            item.setRect(-cw / 2, -ch / 2, cw, ch)
            item.setBrush(brushes[kind])
            item.setPen(pens[kind])
            if fresh:
                item.setPos(x, y)
            else:
                item.setPos(x - parent.x(), y - parent.y())
            item.setData(DEVICE_ROLE, d)
            item.setData(ROLE_KIND, "device")
            item.setAcceptedMouseButtons(no_button)   # presses go to the server
            if not self.show_children:
                item.setVisible(False)
            items[d] = item
            placed[i] = True
            done += 1
            if progress is not None and done % chunk == 0:
                progress(done, total)
        # a server made above wraps its children (all made here): the frames in one numpy pass,
        # the rectangles _fit_server would give; a server that had children is fitted item by item
        sel = placed & new
        if sel.any():
            owner, left, top = parents[sel], dx[sel] + (-cw / 2), dy[sel] + (-ch / 2)
            first = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])     # kids are sorted by server
            x0, y0 = np.minimum.reduceat(left, first), np.minimum.reduceat(top, first)
            x1, y1 = np.maximum.reduceat(left + cw, first), np.maximum.reduceat(top + ch, first)
            m = th.SERVER_MARGIN
            for s, a, b, c, e in zip(owner[first].tolist(), x0.tolist(), y0.tolist(), x1.tolist(), y1.tolist(),
                                     strict=True):
                items[s].setRect(QtCore.QRectF(a, b, c - a, e - b).adjusted(-m, -m, m, m))
            self.label_layer.invalidate()      # names sit under the new frames
        for s in np.unique(parents[placed & ~new]).tolist():
            self._fit_server(s)
        self.batch.hide_new(tops.tolist())
        self.semantic.items.hide_new(tops)

    def _fit_server(self, s: int) -> None:
        """A server's frame wraps its GPUs and NICs."""
        item = self._items.get(s)
        if item is None:
            return
        kids = [c for c in item.childItems()
                if isinstance(c, QtWidgets.QGraphicsRectItem) and c.data(ROLE_KIND) == "device"]
        if not kids:
            e = th.EMPTY_SERVER
            item.setRect(-e / 2, -e / 2, e, e)
        else:
            rect = kids[0].mapRectToParent(kids[0].rect())
            for c in kids[1:]:
                rect = rect.united(c.mapRectToParent(c.rect()))
            m = th.SERVER_MARGIN
            item.setRect(rect.adjusted(-m, -m, m, m))
        self.label_layer.invalidate()      # its name sits under the new frame

    # ------------------------------------------------------------------ events
    def _on_event(self, e: ev.ChangeEvent) -> None:
        f = self.fabric
        assert f is not None                     # only called with a fabric shown
        if len(self._pending) and e.kind in (ev.ADDED, ev.REMOVED, ev.BULK_ADDED):
            self.make_items()                    # adding/removing works on every item (a server's frame)
        self.semantic.on_event(e)
        self.nvlink.on_event(e)
        if e.kind == ev.BULK_ADDED or e.what in (ev.DEVICE, ev.FABRIC, ev.CABLE):
            self.label_layer.invalidate()        # names, positions, devices or (a name's side) cables changed
        if e.kind == ev.BULK_ADDED:
            devs = e.ids.get("devices")
            if devs is not None and len(devs):
                self._add_devices(devs)
            self.mark_cables()
        elif e.what == ev.DEVICE:
            if e.kind == ev.ADDED:
                self._add_devices(np.array([e.id]))
                parent = int(f.devices_t.parent[e.id])
                if parent >= 0:
                    self._fit_server(parent)
            elif e.kind == ev.REMOVED:
                if e.id is not None:
                    self._remove_item(e.id)
            elif e.attr == "pos":
                ids = [e.id] if e.id is not None else e.ids.get("devices", np.zeros(0, np.int64)).tolist()
                self.sync_positions(ids)
            self.mark_cables()
        elif e.what in (ev.CABLE, ev.FABRIC) or (e.what == ev.PORT and e.attr == "rate"):
            self.mark_cables()

    def _remove_item(self, d: int) -> None:
        """Drop a device's item (a server's GPU/NIC items go with it: Qt deletes children)."""
        item = self.items_by_id.pop(d, None)
        if item is None:
            return
        for child in item.childItems():
            cid = child.data(DEVICE_ROLE)
            if cid is not None and child.data(ROLE_KIND) == "device":
                self.items_by_id.pop(int(cid), None)
        parent = item.parentItem()
        if parent is not None:
            item.setParentItem(None)  # type: ignore[arg-type]  # PySide6's stub omits None (Qt takes nullptr)
        self.removeItem(item)
        if parent is not None:
            self._fit_server(int(parent.data(DEVICE_ROLE)))

    def sync_positions(self, ids: list[int]) -> None:
        """Move the items of ``ids`` to the model's positions (a drag in progress, an undo)."""
        assert self.fabric is not None
        t = self.fabric.devices_t
        xs, ys = t.x, t.y
        for d in ids:
            item = self._items.get(d)           # one not made yet is made where the model has it
            if item is None:
                continue
            parent = item.parentItem()
            if parent is None:
                item.setPos(float(xs[d]), float(ys[d]))
            else:
                item.setPos(float(xs[d]) - parent.x(), float(ys[d]) - parent.y())
        self.label_layer.invalidate()

    def mouseMoveEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        self.label_layer.follow_drag()      # names follow items Qt is dragging

    def mark_cables(self) -> None:
        """The cables need redrawing: rebuilt once, when the event loop next runs."""
        if not self._dirty:
            self._dirty = True
            QtCore.QTimer.singleShot(0, self.flush)

    def flush(self) -> None:
        """Rebuild the cable (and batched device) paths now if the model changed since the last build."""
        if self._batch_dirty:
            self._batch_dirty = False
            self.batch.rebuild()
        if self._dirty:
            self._dirty = False
            self.batch.rebuild()
            alive = [c for c in self.selected_cables if self.fabric is not None
                     and self.fabric.cables_t.exists(c)]
            self.selected_cables = set(alive)
            self._cables_deferred = False
            self.cables.rebuild(self.fabric)
        self.semantic.refresh()         # zoomed out: boxes, blocks and bundles follow the model

    # ------------------------------------------------------------------ level of detail
    def set_detail(self, labels: bool, children: bool) -> None:
        """Show or hide the labels (at every zoom: they give way rather than shrink) and the
        server contents (only when the zoom crosses a threshold)."""
        if labels != self.show_labels:
            self.show_labels = labels
            self.label_layer.setVisible(labels)
        if children != self.show_children:
            self.show_children = children
            for item in self._items.values():
                if item.parentItem() is not None:
                    item.setVisible(children)

    def detail_for_scale(self, scale: float) -> None:
        self.set_detail(self.show_labels, scale >= CHILD_ZOOM)
        near = self.semantic.level_for(scale) == "near"
        if not near:
            self.batch.set_on(False)    # far/middle: the semantic layer draws (and hides) devices
        self.semantic.set_scale(scale)
        if near:
            self.batch.set_on(scale < BATCH_ZOOM)
            self.make_items_in_view()        # deferred items: those the zoom brought into view

    def set_path_cache(self, on: bool) -> None:
        """Cache the big path items as pixmaps (pans then blit instead of stroking 80k
        segments); only when the whole design is a few screens big at this zoom."""
        mode = QtWidgets.QGraphicsItem.CacheMode
        want = mode.DeviceCoordinateCache if on else mode.NoCache
        if want != self.path_cache:
            self.path_cache = want
            for item in list(self.cables.items.values()) + list(self.batch.items.values()):
                item.setCacheMode(want)

    def _batch_selection(self) -> None:
        if self.batch.sync_selection() and not self._batch_dirty:
            self._batch_dirty = True
            QtCore.QTimer.singleShot(0, self.flush)

    # ------------------------------------------------------------------ queries
    def device_item_at(self, pos: QtCore.QPointF) -> DeviceItem | None:
        """The innermost device item under ``pos`` (a NIC inside a server before the server)."""
        for item in self.items(pos):
            if isinstance(item, DeviceItem) and item.isVisible():
                return item
        return None

    def selected_device_ids(self) -> list[int]:
        return sorted(int(i.data(DEVICE_ROLE)) for i in self.selectedItems()
                      if isinstance(i, DeviceItem))

    def select_devices(self, ids: list[int], inner: bool = False) -> None:
        """Select top-level devices; ``inner`` also selects GPUs/NICs inside servers themselves."""
        self.clearSelection()
        if len(self._pending) and self.fabric is not None and len(ids):
            par = self.fabric.devices_t.parent[np.asarray(ids, np.int64)]
            self.make_items(np.where(par >= 0, par, ids))       # only the selected devices' items
        for d in ids:
            item = self._items.get(d)
            if item is None:
                continue
            if item.parentItem() is None:
                self.batch.show_device(d)
                self.semantic.show_device(d)
            elif inner:
                item.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
                self._selectable_kids.add(d)
            if item.flags() & QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable:
                item.setSelected(True)
        if self.batch.on:
            self.batch.rebuild()

    def _drop_kid_selection(self) -> None:
        """A GPU/NIC is selectable only while selected (else rubber bands would pick them too)."""
        items = self._items
        for d in [d for d in self._selectable_kids if d not in items or not items[d].isSelected()]:
            self._selectable_kids.discard(d)
            item = items.get(d)
            if item is not None:
                item.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, False)

    def set_selected_cables(self, ids: set[int]) -> None:
        self.selected_cables = set(ids)
        self.cables.update_highlight()
        self.selectionChanged.emit()

    def content_rect(self) -> QtCore.QRectF:
        """Bounding rectangle of the design (devices and cables), empty if none."""
        f = self.fabric
        if f is None or not len(f):
            return QtCore.QRectF()
        ids = f.device_ids()
        r = device_rects(f, ids[f.devices_t.parent[ids] < 0])
        left, top, right, bottom = r[0].min(), r[1].min(), r[2].max(), r[3].max()
        return QtCore.QRectF(float(left), float(top), float(right - left), float(bottom - top))

    # ------------------------------------------------------------------ theme and tooltips
    def apply_theme(self, theme: th.Theme) -> None:
        self.theme = theme
        self.setBackgroundBrush(theme.background)
        if self.fabric is not None:
            t = self.fabric.devices_t
            for d, item in self._items.items():          # items made later get the theme then
                name = KINDS[int(t.kind[d])]
                item.setBrush(theme.brushes[name])
                item.setPen(theme.pens[name])
        self.label_layer.update()          # drawn in the theme's text and background colours
        if not self._cables_deferred:
            self.cables.rebuild(self.fabric)
        self.batch.rebuild()
        self.semantic.invalidate()

    def helpEvent(self, event: QtWidgets.QGraphicsSceneHelpEvent) -> None:  # noqa: N802
        """Tooltips computed on demand (no per-item tooltip strings for 30k devices)."""
        from fabricviz.ui.canvas.describe import device_tooltip, port_tooltip
        text = ""
        for item in self.items(event.scenePos()):
            pid = item.data(PORT_ROLE)
            if pid is not None:
                text = port_tooltip(self.fabric, int(pid))
                break
            if isinstance(item, DeviceItem) and item.isVisible():
                text = device_tooltip(self.fabric, int(item.data(DEVICE_ROLE)))
                break
        if not text and self.batch.on and event.widget() is not None:
            view = event.widget().parentWidget()
            scale = view.transform().m11() if isinstance(view, QtWidgets.QGraphicsView) else 1.0
            d = self.batch.device_at(event.scenePos(), 3.0 / max(scale, 1e-9))
            if d is not None:
                text = device_tooltip(self.fabric, d)
        if not text and self.semantic.level != "near" and event.widget() is not None:
            view = event.widget().parentWidget()
            scale = view.transform().m11() if isinstance(view, QtWidgets.QGraphicsView) else 1.0
            text = self.semantic.queries.tooltip_at(event.scenePos(), 4.0 / max(scale, 1e-9))
        if text:
            QtWidgets.QToolTip.showText(event.screenPos(), text)
        else:
            QtWidgets.QToolTip.hideText()
        event.accept()
