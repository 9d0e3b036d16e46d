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
* Level of detail: labels and the GPUs/NICs inside servers are hidden when the
  view is zoomed out (toggled only when the zoom crosses a threshold); further
  out, devices are drawn as one path per kind (:mod:`fabricviz.ui.canvas.items.batch`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from PySide6 import QtCore, QtWidgets

from fabricviz.model import KINDS, Fabric
from fabricviz.model import events as ev
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.batch import BATCH_ZOOM, DeviceBatch, device_rects

from fabricviz.ui.canvas.items.cables import CableLayer
from fabricviz.ui.canvas.items.devices import (CHILD_ZOOM, DEVICE_ROLE, K_SERVER,
                                               LABEL_ZOOM, PORT_ROLE, ROLE_KIND, DeviceItem, device_size)


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
        self.items_by_id: dict[int, DeviceItem] = {}
        self.labels: dict[int, QtWidgets.QGraphicsSimpleTextItem] = {}
        self.selected_cables: set[int] = set()
        self.cables = CableLayer(self)
        self.path_cache = QtWidgets.QGraphicsItem.CacheMode.NoCache
        self.batch = DeviceBatch(self)
        self._batch_dirty = False
        self.show_labels = True
        self.pinned_labels: set[int] = set()
        self._selectable_kids: set[int] = set()
        self.selectionChanged.connect(self._drop_kid_selection)
        self.selectionChanged.connect(self._batch_selection)
        self.show_children = True
        self._dirty = False
        self.setBackgroundBrush(self.theme.background)

    # ------------------------------------------------------------------ fabric
    def set_fabric(self, fabric: Fabric | None, progress: Callable[[int, int], None] | None = None,
                   subscribe: bool = True) -> None:
        """Mirror ``fabric`` (rebuilds every item; ``progress(done, total)`` while building).
        ``subscribe=False``: the document feeds the model's events through :meth:`follow`."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        batched = self.batch.on
        self.batch.set_on(False)
        for item in list(self.items_by_id.values()):
            if item.parentItem() is None:
                self.removeItem(item)
        self.items_by_id.clear()
        self.labels.clear()
        self.pinned_labels.clear()
        self._selectable_kids.clear()
        self.selected_cables.clear()
        self.fabric = fabric
        if fabric is not None:
            self._add_devices(fabric.device_ids(), progress)
            if subscribe:
                self._unsubscribe = fabric.subscribe(self._on_event)
        self.cables.rebuild(fabric)
        self._dirty = False
        self.batch.set_on(batched)

    def follow(self, e: ev.ChangeEvent | None) -> None:
        """One model event from the document (``None``: the fabric was replaced, already rebuilt)."""
        if e is not None and self.fabric is not None:
            self._on_event(e)

    def _add_devices(self, ids: np.ndarray, progress: Callable[[int, int], None] | None = None) -> None:
        f = self.fabric
        t = f.devices_t
        ids = np.asarray(ids, dtype=np.int64)
        ids = ids[~np.isin(ids, np.fromiter(self.items_by_id, np.int64, len(self.items_by_id)))]
        par = t.parent[ids]
        tops, kids = ids[par < 0], ids[par >= 0]
        kids = kids[np.argsort(t.parent[kids], kind="stable")]
        theme = self.theme
        total = len(ids)
        done = 0
        chunk = 4000
        kinds = t.kind[tops].tolist()
        xs, ys, nps = t.x[tops].tolist(), t.y[tops].tolist(), t.nports[tops].tolist()
        movable = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsMovable
        selectable = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
        for i, d in enumerate(tops.tolist()):
            kind = kinds[i]
            name = KINDS[kind]
            item = DeviceItem()
            w, h = device_size(kind, nps[i]) if kind != K_SERVER else (30.0, 30.0)
            item.setRect(-w / 2, -h / 2, w, h)
            item.setBrush(theme.brushes[name])
            item.setPen(theme.pens[name])
            item.setPos(xs[i], ys[i])
            item.setFlags(movable | selectable)
            item.setData(DEVICE_ROLE, d)
            item.setData(ROLE_KIND, "device")
            item.setZValue(1.0 if kind == K_SERVER else 2.0)
            self.addItem(item)
            self.items_by_id[d] = item
            self._add_label(d, item)
            done += 1
            if progress is not None and done % chunk == 0:
                progress(done, total)
        # children (GPUs and NICs inside servers), positioned relative to their server
        kinds = t.kind[kids].tolist()
        xs, ys, parents = t.x[kids].tolist(), t.y[kids].tolist(), t.parent[kids].tolist()
        touched = set()
        for i, d in enumerate(kids.tolist()):
            parent = self.items_by_id.get(parents[i])
            if parent is None:
                continue
            name = KINDS[kinds[i]]
            item = DeviceItem(parent)
            item.setRect(-th.CHILD_W / 2, -th.CHILD_H / 2, th.CHILD_W, th.CHILD_H)
            item.setBrush(theme.brushes[name])
            item.setPen(theme.pens[name])
            item.setPos(xs[i] - parent.x(), ys[i] - parent.y())
            item.setData(DEVICE_ROLE, d)
            item.setData(ROLE_KIND, "device")
            item.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)   # presses go to the server
            item.setVisible(self.show_children)
            self.items_by_id[d] = item
            touched.add(parents[i])
            done += 1
            if progress is not None and done % chunk == 0:
                progress(done, total)
        for s in touched:
            self._fit_server(s)
        self.batch.hide_new(tops.tolist())

    def _add_label(self, d: int, item: DeviceItem) -> None:
        label = QtWidgets.QGraphicsSimpleTextItem(self.fabric.name_of(d), item)
        label.setFont(self.theme.label_font)
        label.setBrush(self.theme.text_brush)
        label.setData(ROLE_KIND, "label")
        label.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
        label.setVisible(self.show_labels)
        self.labels[d] = label
        self._place_label(d)

    def _place_label(self, d: int) -> None:
        label, item = self.labels[d], self.items_by_id[d]
        r = item.rect()
        br = label.boundingRect()
        if int(self.fabric.devices_t.kind[d]) == K_SERVER:
            # host names stand vertically under the server: 34-unit pitch leaves no room across
            label.setRotation(90)
            label.setPos(br.height() / 2, r.bottom() + 2)
        else:
            label.setPos(-br.width() / 2, r.bottom() + 1)

    def _fit_server(self, s: int) -> None:
        """A server's frame wraps its GPUs and NICs."""
        item = self.items_by_id.get(s)
        if item is None:
            return
        kids = [c for c in item.childItems() if c.data(ROLE_KIND) == "device"]
        if not kids:
            item.setRect(-15, -15, 30, 30)
        else:
            rect = kids[0].mapRectToParent(kids[0].rect())
            for c in kids[1:]:
                rect = rect.united(c.mapRectToParent(c.rect()))
            m = th.SERVER_MARGIN
            item.setRect(rect.adjusted(-m, -m, m, m))
        if s in self.labels:
            self._place_label(s)

    # ------------------------------------------------------------------ events
    def _on_event(self, e: ev.ChangeEvent) -> None:
        f = self.fabric
        if e.kind == ev.BULK_ADDED:
            devs = e.ids.get("devices")
            if devs is not None and len(devs):
                self._add_devices(devs)
            self.mark_cables()
        elif e.what == "device":
            if e.kind == ev.ADDED:
                self._add_devices(np.array([e.id]))
                parent = int(f.devices_t.parent[e.id])
                if parent >= 0:
                    self._fit_server(parent)
            elif e.kind == ev.REMOVED:
                self._remove_item(e.id)
            elif e.attr == "pos":
                ids = [e.id] if e.id is not None else e.ids.get("devices", np.zeros(0, np.int64)).tolist()
                self.sync_positions(ids)
            elif e.attr == "name" and e.id in self.labels:
                self.labels[e.id].setText(str(e.new))
                self._place_label(e.id)
            self.mark_cables()
        elif e.what in ("cable", "fabric") or (e.what == "port" and e.attr == "rate"):
            self.mark_cables()

    def _remove_item(self, d: int) -> None:
        """Drop a device's item (a server's GPU/NIC items go with it: Qt deletes children)."""
        item = self.items_by_id.pop(d, None)
        self.labels.pop(d, None)
        if item is None:
            return
        for child in item.childItems():
            cid = child.data(DEVICE_ROLE)
            if cid is not None and child.data(ROLE_KIND) == "device":
                self.items_by_id.pop(int(cid), None)
        parent = item.parentItem()
        if parent is not None:
            item.setParentItem(None)
        self.removeItem(item)
        if parent is not None:
            self._fit_server(int(parent.data(DEVICE_ROLE)))

    def sync_positions(self, ids: list[int]) -> None:
        """Move the items of ``ids`` to the model's positions (a drag in progress, an undo)."""
        t = self.fabric.devices_t
        xs, ys = t.x, t.y
        for d in ids:
            item = self.items_by_id.get(d)
            if item is None:
                continue
            parent = item.parentItem()
            if parent is None:
                item.setPos(float(xs[d]), float(ys[d]))
            else:
                item.setPos(float(xs[d]) - parent.x(), float(ys[d]) - parent.y())

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
            self.cables.rebuild(self.fabric)

    # ------------------------------------------------------------------ level of detail
    def set_detail(self, labels: bool, children: bool) -> None:
        """Show or hide labels and server contents (only when the zoom crosses a threshold)."""
        if labels != self.show_labels:
            self.show_labels = labels
            for d, label in self.labels.items():
                label.setVisible(labels or d in self.pinned_labels)
        if children != self.show_children:
            self.show_children = children
            for item in self.items_by_id.values():
                if item.parentItem() is not None:
                    item.setVisible(children)

    def pin_label(self, d: int, pinned: bool) -> None:
        """Keep a device's name shown whatever the zoom (its port panel is open)."""
        if pinned:
            self.pinned_labels.add(d)
        else:
            self.pinned_labels.discard(d)
        label = self.labels.get(d)
        if label is not None:
            label.setVisible(self.show_labels or pinned)

    def detail_for_scale(self, scale: float) -> None:
        self.set_detail(scale >= LABEL_ZOOM, scale >= CHILD_ZOOM)
        self.batch.set_on(scale < BATCH_ZOOM)

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
        for d in ids:
            item = self.items_by_id.get(d)
            if item is None:
                continue
            if item.parentItem() is None:
                self.batch.show_device(d)
            elif inner:
                item.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
                self._selectable_kids.add(d)
            if item.flags() & QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable:
                item.setSelected(True)
        if self.batch.on:
            self.batch.rebuild()

    def _drop_kid_selection(self) -> None:
        """A GPU/NIC is selectable only while selected (else rubber bands would pick them too)."""
        for d in [d for d in self._selectable_kids
                  if d not in self.items_by_id or not self.items_by_id[d].isSelected()]:
            self._selectable_kids.discard(d)
            item = self.items_by_id.get(d)
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
            for d, item in self.items_by_id.items():
                name = KINDS[int(t.kind[d])]
                item.setBrush(theme.brushes[name])
                item.setPen(theme.pens[name])
            for label in self.labels.values():
                label.setBrush(theme.text_brush)
        self.cables.rebuild(self.fabric)
        self.batch.rebuild()

    def helpEvent(self, event: QtWidgets.QGraphicsSceneHelpEvent) -> None:  # noqa: N802
        """Tooltips computed on demand (no per-item tooltip strings for 30k devices)."""
        from fabricviz.ui.canvas.describe import port_tooltip, device_tooltip
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
        if text:
            QtWidgets.QToolTip.showText(event.screenPos(), text)
        else:
            QtWidgets.QToolTip.hideText()
        event.accept()
