"""The canvas view: zoom, pan, palette drops, port-to-port cabling, moves and messages.

Interactions end in :class:`~fabricviz.ui.document.editor.Editor` calls (undo commands);
the view itself only moves items while the mouse drags them, and the model
move on release puts them where the model says.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas import theme as th
from fabricviz.ui.document.editor import Editor
from fabricviz.ui.canvas.items.ports import PortOverlay
from fabricviz.ui.canvas.scene import CHILD_ZOOM, DEVICE_ROLE, DeviceItem, FabricScene

PART_MIME = "application/x-fabricviz-part"
ZOOM_STEP = 1.25
MIN_SCALE, MAX_SCALE = 1e-4, 8.0


class CanvasMessage(QtWidgets.QLabel):
    """A transient one-line message drawn on the canvas near where it happened."""

    def __init__(self, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("canvas_message")
        self.setStyleSheet(f"background: {th.REFUSE_COLOR}; color: white; padding: 4px 8px;"
                           "border-radius: 4px;")
        self.setWordWrap(False)
        self.hide()
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)

    def show_at(self, text: str, pos: QtCore.QPoint, refusal: bool = True, ms: int = 5000) -> None:
        color = th.REFUSE_COLOR if refusal else "#3a6ea5"
        self.setStyleSheet(f"background: {color}; color: white; padding: 4px 8px; border-radius: 4px;")
        self.setText(text)
        self.adjustSize()
        parent = self.parentWidget()
        x = min(max(pos.x() + 12, 4), max(parent.width() - self.width() - 4, 4))
        y = min(max(pos.y() + 12, 4), max(parent.height() - self.height() - 4, 4))
        self.move(x, y)
        self.show()
        self.raise_()
        self._timer.start(ms)


class CanvasView(QtWidgets.QGraphicsView):
    """Draws a :class:`FabricScene`; edits go through the ``editor``."""

    zoom_changed = QtCore.Signal(float)
    status = QtCore.Signal(str)

    def __init__(self, scene: FabricScene, editor: Editor, parent: QtWidgets.QWidget | None = None):
        super().__init__(scene, parent)
        self.setObjectName("canvas")
        self.editor = editor
        self.ports = PortOverlay(scene)
        self.snap = True
        self.cable_length = 3.0
        self.cable_type: str | None = None
        self.cable_part: str | None = None
        self.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        self.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing, True)
        self.setDragMode(QtWidgets.QGraphicsView.DragMode.RubberBandDrag)
        self.setRubberBandSelectionMode(QtCore.Qt.ItemSelectionMode.IntersectsItemShape)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setOptimizationFlag(QtWidgets.QGraphicsView.OptimizationFlag.DontSavePainterState, True)
        self.setAcceptDrops(True)
        self.setMouseTracking(True)
        self.pointer: QtCore.QPoint | None = None    # where the pointer last moved over the canvas
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.message = CanvasMessage(self.viewport())
        self._pan_from: QtCore.QPoint | None = None
        self._space = False
        self._cable_from: int | None = None
        self._cable_line: QtWidgets.QGraphicsLineItem | None = None
        self._press_pos: dict[int, QtCore.QPointF] | None = None
        self._hover: int | None = None
        self._grab: int | None = None
        self._press_child: tuple[int, QtCore.QPoint] | None = None
        editor.message.connect(self._on_message)

    # ------------------------------------------------------------------ helpers
    @property
    def fscene(self) -> FabricScene:
        return self.scene()  # type: ignore[return-value]

    def scale_factor(self) -> float:
        return float(self.transform().m11())

    def _after_zoom(self) -> None:
        s = self.scale_factor()
        self.fscene.detail_for_scale(s)
        content = self.fscene.content_rect()
        vp = self.viewport().size()
        self.fscene.set_path_cache(s < CHILD_ZOOM and content.width() * s <= 2 * vp.width()
                                   and content.height() * s <= 2 * vp.height())
        # antialiased lines cost several times more; zoomed out they only blur pixels
        self.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, s >= 0.2)
        if s < 0.2:
            self.ports.clear()
        else:
            self.ports.set_scale(s)     # port numbers keep their on-screen size
        self.zoom_changed.emit(s)

    def zoom_by(self, factor: float) -> None:
        s = self.scale_factor()
        factor = min(max(factor, MIN_SCALE / s), MAX_SCALE / s)
        self.scale(factor, factor)
        self._after_zoom()

    def fit_all(self) -> None:
        self.fscene.flush()
        rect = self.fscene.content_rect()
        if rect.isEmpty():
            self.resetTransform()
            self.centerOn(0, 0)
        else:
            pad = max(rect.width(), rect.height()) * 0.03 + 20
            rect = rect.adjusted(-pad, -pad, pad, pad)
            self.setSceneRect(rect.adjusted(-rect.width(), -rect.height(), rect.width(), rect.height()))
            self.fitInView(rect, QtCore.Qt.AspectRatioMode.KeepAspectRatio)
        self._after_zoom()

    def snap_point(self, p: QtCore.QPointF) -> QtCore.QPointF:
        if not self.snap:
            return p
        g = th.GRID
        return QtCore.QPointF(round(p.x() / g) * g, round(p.y() / g) * g)

    def _on_message(self, text: str, refusal: bool) -> None:
        pos = self.mapFromGlobal(QtGui.QCursor.pos())
        if not self.viewport().rect().contains(pos):
            pos = QtCore.QPoint(20, 20)
        self.message.show_at(text, pos, refusal)

    def drawBackground(self, painter: QtGui.QPainter, rect: QtCore.QRectF) -> None:  # noqa: N802
        """Background plus a light grid when zoomed in enough for it to help placing."""
        painter.fillRect(rect, self.fscene.theme.background)
        s = self.scale_factor()
        if s < 0.6:
            return
        g = th.GRID * (1 if s >= 1.5 else 5)
        pen = QtGui.QPen(self.fscene.theme.grid)
        pen.setCosmetic(True)
        painter.setPen(pen)
        left = int(np.floor(rect.left() / g))
        top = int(np.floor(rect.top() / g))
        lines = [QtCore.QLineF(x * g, rect.top(), x * g, rect.bottom())
                 for x in range(left, int(rect.right() / g) + 1)]
        lines += [QtCore.QLineF(rect.left(), y * g, rect.right(), y * g)
                  for y in range(top, int(rect.bottom() / g) + 1)]
        if len(lines) < 600:
            painter.drawLines(lines)

    # ------------------------------------------------------------------ zoom and pan
    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(ZOOM_STEP ** steps)
        event.accept()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:  # noqa: N802
        key = event.key()
        if key == QtCore.Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(QtCore.Qt.CursorShape.OpenHandCursor)
            return
        if key in (QtCore.Qt.Key.Key_Plus, QtCore.Qt.Key.Key_Equal):
            self.zoom_by(ZOOM_STEP)
            return
        if key == QtCore.Qt.Key.Key_Minus:
            self.zoom_by(1 / ZOOM_STEP)
            return
        if key == QtCore.Qt.Key.Key_Escape and self._cable_from is not None:
            self._end_cable()
            return
        arrows = {QtCore.Qt.Key.Key_Left: (-1, 0), QtCore.Qt.Key.Key_Right: (1, 0),
                  QtCore.Qt.Key.Key_Up: (0, -1), QtCore.Qt.Key.Key_Down: (0, 1)}
        ids = self.fscene.selected_device_ids()
        if key in arrows and ids:
            dx, dy = arrows[key]
            step = th.GRID * (5 if event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier else 1)
            self.editor.move(ids, dx * step, dy * step, merge=True)
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QtGui.QKeyEvent) -> None:  # noqa: N802
        if event.key() == QtCore.Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().unsetCursor()
            return
        super().keyReleaseEvent(event)

    # ------------------------------------------------------------------ mouse
    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        btn = event.button()
        if btn == QtCore.Qt.MouseButton.MiddleButton or (
                btn == QtCore.Qt.MouseButton.LeftButton and self._space):
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        if btn != QtCore.Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        sp = self.mapToScene(event.position().toPoint())
        port = self.ports.port_at(sp)
        if port is not None:
            self._start_cable(port, sp)
            event.accept()
            return
        ctrl = bool(event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier)
        if self.fscene.device_item_at(sp) is None and self.fscene.batch.on:
            d = self.fscene.batch.device_at(sp, 3.0 / max(self.scale_factor(), 1e-9))
            if d is not None:       # zoomed far out: devices are batched paths, hit-tested in numpy
                keep = self.fscene.selected_device_ids() if ctrl else []
                self.fscene.select_devices(keep + [d])
                if not ctrl:
                    self.fscene.set_selected_cables(set())
                event.accept()
                return
        if self.fscene.device_item_at(sp) is None:
            cid = self.fscene.cables.cable_at(sp, 5.0 / max(self.scale_factor(), 1e-9))
            if cid is not None:
                if not event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier:
                    self.fscene.clearSelection()
                    sel = {cid}
                else:
                    sel = self.fscene.selected_cables ^ {cid}
                self.fscene.set_selected_cables(sel)
                event.accept()
                return
            if not event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier:
                self.fscene.set_selected_cables(set())
        elif not event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier:
            self.fscene.selected_cables.clear()
            self.fscene.cables.update_highlight()
        grabbed = self.fscene.device_item_at(sp)
        self._press_child = None
        if grabbed is not None and grabbed.parentItem() is not None:
            if not event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier:
                self._press_child = (int(grabbed.data(DEVICE_ROLE)), event.position().toPoint())
            grabbed = grabbed.parentItem()
        self._grab = int(grabbed.data(DEVICE_ROLE)) if grabbed is not None else None
        super().mousePressEvent(event)
        self._press_pos = {int(i.data(DEVICE_ROLE)): i.pos() for i in self.fscene.selectedItems()
                           if isinstance(i, DeviceItem) and i.parentItem() is None}

    def leaveEvent(self, event: QtCore.QEvent) -> None:  # noqa: N802
        self.pointer = None
        super().leaveEvent(event)

    def pointer_scene_pos(self) -> tuple[float, float] | None:
        """The scene point under the pointer while it is over the canvas (paste goes there)."""
        if self.pointer is None or not self.viewport().rect().contains(self.pointer):
            return None
        p = self.mapToScene(self.pointer)
        return p.x(), p.y()

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        pos = event.position().toPoint()
        self.pointer = pos
        if self._pan_from is not None:
            delta = pos - self._pan_from
            self._pan_from = pos
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
            event.accept()
            return
        sp = self.mapToScene(pos)
        if self._cable_from is not None:
            line = self._cable_line.line()
            line.setP2(sp)
            self._cable_line.setLine(line)
            self._hover_at(sp, keep=[self._hover_device_of_port(self._cable_from)])
            event.accept()
            return
        super().mouseMoveEvent(event)
        if event.buttons() & QtCore.Qt.MouseButton.LeftButton and self._press_pos:
            self._drag_cables()
        elif not event.buttons():
            self._hover_at(sp)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if self._pan_from is not None and event.button() in (QtCore.Qt.MouseButton.MiddleButton,
                                                             QtCore.Qt.MouseButton.LeftButton):
            self._pan_from = None
            self.viewport().setCursor(QtCore.Qt.CursorShape.OpenHandCursor) if self._space \
                else self.viewport().unsetCursor()
            event.accept()
            return
        if self._cable_from is not None and event.button() == QtCore.Qt.MouseButton.LeftButton:
            self._finish_cable(self.mapToScene(event.position().toPoint()))
            event.accept()
            return
        band = self.rubberBandRect()
        super().mouseReleaseEvent(event)
        if not band.isEmpty() and self.fscene.batch.on:
            # the rubber band only sees visible items: add the batched devices inside it
            more = self.fscene.batch.ids_in(self.mapToScene(band).boundingRect())
            if more:
                self.fscene.select_devices(self.fscene.selected_device_ids() + more)
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            moved = bool(self._drag_offsets())
            self._commit_drag()
            child, self._press_child = self._press_child, None
            if child is not None and not moved and \
                    (event.position().toPoint() - child[1]).manhattanLength() < 4:
                self.fscene.select_devices([child[0]], inner=True)   # a click on a GPU or NIC selects it

    # ------------------------------------------------------------------ moving
    def _drag_offsets(self) -> dict[int, QtCore.QPointF]:
        out = {}
        for d, p0 in (self._press_pos or {}).items():
            item = self.fscene.items_by_id.get(d)
            if item is not None and item.pos() != p0:
                out[d] = item.pos() - p0
        return out

    def _drag_cables(self) -> None:
        offsets = self._drag_offsets()
        if offsets and self.fscene.fabric is not None:
            self.ports.clear()
            self.fscene.cables.show_live(self.fscene.fabric, np.array(list(self._press_pos)), offsets)

    def _commit_drag(self) -> None:
        """One command for the whole drag, however many devices moved (grid-snapped)."""
        offsets = self._drag_offsets()
        press = self._press_pos or {}
        self._press_pos = None
        self.fscene.cables.end_live()
        if not offsets:
            self.fscene.mark_cables()
            return
        first = self._grab if self._grab in offsets else next(iter(offsets))
        off = offsets[first]
        target = self.snap_point(press[first] + off)
        dx, dy = target.x() - press[first].x(), target.y() - press[first].y()
        ids = list(press)
        if not self.editor.move(ids, dx, dy):
            self.fscene.sync_positions(ids)
        self.fscene.mark_cables()

    # ------------------------------------------------------------------ cabling
    def _hover_device_of_port(self, port: int) -> int:
        return int(self.fscene.fabric.ports_t.device[port])

    def _hover_at(self, sp: QtCore.QPointF, keep: list[int] | None = None) -> None:
        """Show the ports of the device under the cursor (only when zoomed in enough).

        Shown markers stay while the pointer is in their hover region (the device, its name
        and its markers plus a margin, :meth:`PortOverlay.region`), so it can travel from the
        device to a marker outside its outline; they hide once it leaves that region."""
        if self.fscene.fabric is None or self.scale_factor() < 0.2:
            return
        self.ports.set_scale(self.scale_factor())
        had = bool(self.ports.panels)
        if self.ports.contains(sp):
            return          # over a port panel: keep what is shown
        item = self.fscene.device_item_at(sp)
        devices = list(keep or [])
        if item is not None:
            top = item.parentItem() or item
            devices += [d for d in self.ports.devices_for(int(top.data(DEVICE_ROLE))) if d not in devices]
        elif self.ports.in_region(sp):
            return          # on the way from a device to its markers
        self.ports.show(devices)
        if self.ports.panels and not had:
            QtWidgets.QToolTip.hideText()      # a device's tooltip must not cover its markers

    def viewportEvent(self, event: QtCore.QEvent) -> bool:  # noqa: N802
        """While port markers are shown, tooltips are the markers' own (full name, rate, peer)
        and no device tooltip pops up over them."""
        if event.type() == QtCore.QEvent.Type.ToolTip and self.ports.panels:
            from fabricviz.ui.canvas.describe import marker_tooltip
            sp = self.mapToScene(event.pos())
            pid = self.ports.port_at(sp)
            text = marker_tooltip(self.fscene.fabric, pid) if pid is not None else ""
            if text:
                QtWidgets.QToolTip.showText(event.globalPos(), text, self.viewport())
            elif self.ports.in_region(sp) or self.ports.contains(sp):
                QtWidgets.QToolTip.hideText()
            else:
                return super().viewportEvent(event)
            event.accept()
            return True
        return super().viewportEvent(event)

    def _start_cable(self, port: int, sp: QtCore.QPointF) -> None:
        marker = self.ports.marker(port)
        start = marker.scenePos() if marker is not None else sp
        self._cable_from = port
        self._cable_line = QtWidgets.QGraphicsLineItem(QtCore.QLineF(start, sp))
        self._cable_line.setPen(self.fscene.theme.drag_pen)
        self._cable_line.setZValue(20)
        self.fscene.addItem(self._cable_line)
        self.status.emit(f"cabling from {self.fscene.fabric.port_name(port)}: release on a port")

    def _end_cable(self) -> None:
        if self._cable_line is not None:
            self.fscene.removeItem(self._cable_line)
        self._cable_line = None
        self._cable_from = None

    def _finish_cable(self, sp: QtCore.QPointF) -> None:
        src = self._cable_from
        self._end_cable()
        f = self.fscene.fabric
        dst = self.ports.port_at(sp)
        if dst is None:
            item = self.fscene.device_item_at(sp)
            if item is not None:
                dst = self._free_port(int(item.data(DEVICE_ROLE)), src)
        if dst is None or dst == src:
            self.status.emit("no port there: cable not made")
            return
        cid = self.editor.add_cable(src, dst, self.cable_length, ctype=self.cable_type,
                                    part=self.cable_part)
        if cid is not None:
            self.status.emit(f"cabled {f.cable(cid).label} ({f.cable(cid).type}, {f.cable(cid).rate})")
        self.ports.refresh()

    def _free_port(self, d: int, src: int) -> int | None:
        """Dropping on a device body: its first free port of the source's technology
        (else its first port, so the model explains the refusal)."""
        f = self.fscene.fabric
        devs = self.ports.devices_for(d)
        pt = f.ports_t
        cands = [p for x in devs for p in f.device(x).port_ids.tolist()]
        if not cands:
            return None
        same = [p for p in cands if pt.tech[p] == pt.tech[src]]
        free = [p for p in same if pt.cable[p] < 0]
        return (free or same or cands)[0]

    # ------------------------------------------------------------------ palette drops
    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasFormat(PART_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QtGui.QDragMoveEvent) -> None:  # noqa: N802
        if event.mimeData().hasFormat(PART_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QtGui.QDropEvent) -> None:  # noqa: N802
        mime = event.mimeData()
        if not mime.hasFormat(PART_MIME):
            super().dropEvent(event)
            return
        part = bytes(mime.data(PART_MIME)).decode()
        sp = self.snap_point(self.mapToScene(event.position().toPoint()))
        d = self.editor.add_part(part, sp.x(), sp.y())
        if d is not None:
            self.fscene.select_devices([d])
            self.status.emit(f"added {self.fscene.fabric.name_of(d)} ({part})")
        event.acceptProposedAction()
