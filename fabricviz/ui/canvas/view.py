"""The canvas view: zoom, palette drops, port markers, messages, and the routing of mouse
events to the gestures of :mod:`fabricviz.ui.canvas.interactions` (pan, cabling, moves).

Interactions end in :class:`~fabricviz.ui.document.editor.Editor` calls (undo commands);
the view itself only moves items while the mouse drags them, and the model
move on release puts them where the model says.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.group_menu import show_group_menu
from fabricviz.ui.canvas.interactions import CableDraw, ChildDrag, Interaction, MoveDevices, Pan, Pick
from fabricviz.ui.canvas.items.devices import CHILD_ZOOM, DEVICE_ROLE
from fabricviz.ui.canvas.items.ports import PortOverlay
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.document.editor import Editor

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
        assert parent is not None                    # made as a child of the view
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
        # one object per gesture, in the order a press is offered to them
        self.pan = Pan(self)
        self.cable_draw = CableDraw(self)
        self.pick = Pick(self)
        self.child_drag = ChildDrag(self)
        self.move_devices = MoveDevices(self)
        self._interactions: tuple[Interaction, ...] = (
            self.pan, self.cable_draw, self.pick, self.child_drag, self.move_devices)
        self._active: Interaction | None = None
        editor.message.connect(self._on_message)
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):    # a pan or resize at near
            bar.valueChanged.connect(self._in_view)
            bar.rangeChanged.connect(self._in_view)
        from fabricviz.ui.canvas.items.breadcrumbs import Breadcrumbs
        sem = scene.semantic        # open groups: "design › pod 3" at the top-left
        self.breadcrumbs = Breadcrumbs(self, sem.collapse_all, lambda g: self.fit_rect(sem.queries.group_rect(g)))
        sem.listeners.append(lambda: self.breadcrumbs.set_path(
            scene.fabric.name if scene.fabric is not None else "", sem.open_path()))

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

    def _in_view(self, *_: int) -> None:
        """Deferred device items (a big design) are made as near-level scrolling shows them."""
        scene = self.fscene
        if scene.deferred and scene.semantic.level == "near" and \
                scene.semantic.level_for(self.scale_factor()) == "near":      # not a zoom under way
            scene.make_items_in_view()

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
            self._after_zoom()
        else:
            self.fit_rect(rect, whole=True)

    def fit_rect(self, rect: QtCore.QRectF, max_scale: float | None = None, whole: bool = False) -> None:
        """Zoom and centre so scene ``rect`` fills the canvas with a margin (at most ``max_scale``).
        ``whole`` (Fit): the scrollable area becomes three times the padded rect; otherwise it
        only grows when it does not hold the rect (Fit Selection)."""
        pad = max(rect.width(), rect.height()) * 0.03 + 20
        rect = rect.adjusted(-pad, -pad, pad, pad)
        around = rect.adjusted(-rect.width(), -rect.height(), rect.width(), rect.height())
        if whole:
            self.setSceneRect(around)
        elif not self.sceneRect().contains(rect):
            self.setSceneRect(self.sceneRect().united(around))
        self.fitInView(rect, QtCore.Qt.AspectRatioMode.KeepAspectRatio)
        s = self.scale_factor()
        if max_scale is not None and s > max_scale:
            self.scale(max_scale / s, max_scale / s)
            self.centerOn(rect.center())
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

    def drawBackground(self, painter: QtGui.QPainter, rect: QtCore.QRectF | QtCore.QRect) -> None:  # noqa: N802
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

    # ------------------------------------------------------------------ interactions
    @property
    def interactions(self) -> list[Interaction]:
        """The gestures in the order a press is offered to them (see :mod:`.interactions`)."""
        return list(self._interactions)

    @property
    def active_interaction(self) -> Interaction | None:
        """The gesture running now (it gets every mouse event until it ends), if any."""
        active = self._active
        if active is not None and not active.active:
            self._active = active = None
        return active

    def cancel_interaction(self) -> None:
        """End the running gesture, leaving the design as it was before it started."""
        active = self.active_interaction
        if active is not None:
            active.cancel()
            self._active = None

    def _offer_key(self, event: QtGui.QKeyEvent) -> bool:
        active = self.active_interaction
        order = ([active] if active is not None else []) + \
            [i for i in self._interactions if i is not active]
        return any(i.key(event) for i in order)

    def base_mouse_press(self, event: QtGui.QMouseEvent) -> None:
        """Qt's own handling of a press (item selection and moving, rubber band)."""
        super().mousePressEvent(event)

    def base_mouse_move(self, event: QtGui.QMouseEvent) -> None:
        super().mouseMoveEvent(event)

    def base_mouse_release(self, event: QtGui.QMouseEvent) -> None:
        super().mouseReleaseEvent(event)

    # ------------------------------------------------------------------ zoom and keys
    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(ZOOM_STEP ** steps)
        event.accept()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:  # noqa: N802
        if self._offer_key(event):           # Space arms panning, Esc cancels a cable drag
            return
        key = event.key()
        if key in (QtCore.Qt.Key.Key_Plus, QtCore.Qt.Key.Key_Equal):
            self.zoom_by(ZOOM_STEP)
            return
        if key == QtCore.Qt.Key.Key_Minus:
            self.zoom_by(1 / ZOOM_STEP)
            return
        arrows: dict[int, tuple[int, int]] = {QtCore.Qt.Key.Key_Left: (-1, 0), QtCore.Qt.Key.Key_Right: (1, 0),
                  QtCore.Qt.Key.Key_Up: (0, -1), QtCore.Qt.Key.Key_Down: (0, 1)}
        ids = self.fscene.selected_device_ids()
        if key in arrows and ids:
            dx, dy = arrows[key]
            step = th.GRID * (5 if event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier else 1)
            self.editor.move(ids, dx * step, dy * step, merge=True)
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QtGui.QKeyEvent) -> None:  # noqa: N802
        if self._offer_key(event):
            return
        super().keyReleaseEvent(event)

    # ------------------------------------------------------------------ mouse
    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        active = self.active_interaction
        if active is not None:
            active.press(event)              # one gesture at a time: no other starts meanwhile
            event.accept()
            return
        for interaction in self._interactions:
            if interaction.press(event):
                self._active = interaction if interaction.active else None
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        pos = event.position().toPoint()
        self.pointer = pos
        active = self.active_interaction
        if active is not None:
            active.move(event)
            return
        super().mouseMoveEvent(event)
        if not event.buttons():
            self.hover_at(self.mapToScene(pos))

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        active = self.active_interaction
        if active is not None:
            active.release(event)
            if not active.active:
                self._active = None
            event.accept()
            return
        band = self.rubberBandRect()
        super().mouseReleaseEvent(event)
        if not band.isEmpty() and (self.fscene.batch.on or self.fscene.semantic.level != "near"):
            # the rubber band only sees visible items: add the batched (or grouped) devices inside it
            rect = self.mapToScene(band).boundingRect()
            more = self.fscene.batch.ids_in(rect) + self.fscene.semantic.queries.ids_in(rect)
            if more:
                self.fscene.select_devices(self.fscene.selected_device_ids() + more)
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            self.fscene.cables.end_live()
            self.fscene.mark_cables()

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        """Offered to the gestures like a press (a double-click opens a group in place)."""
        if self.active_interaction is None and any(i.double_click(event) for i in self._interactions):
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:  # noqa: N802
        """Far and middle: open or close the group under the pointer (:mod:`.group_menu`)."""
        if not show_group_menu(self, event):
            super().contextMenuEvent(event)

    def leaveEvent(self, event: QtCore.QEvent) -> None:  # noqa: N802
        self.pointer = None
        self._pointer_left()
        super().leaveEvent(event)

    def _pointer_left(self) -> None:
        """The pointer left the canvas (for a dock, a menu, another window): hover pop-ups (port
        markers) go with it, unless a gesture still holds them (a cable being drawn)."""
        if self.active_interaction is None and self.ports.panels:
            self.ports.clear()

    def pointer_scene_pos(self) -> tuple[float, float] | None:
        """The scene point under the pointer while it is over the canvas (paste goes there)."""
        if self.pointer is None or not self.viewport().rect().contains(self.pointer):
            return None
        p = self.mapToScene(self.pointer)
        return p.x(), p.y()

    # ------------------------------------------------------------------ port markers
    def hover_at(self, sp: QtCore.QPointF, keep: list[int] | None = None) -> None:
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
        and no device tooltip pops up over them. The pointer leaving the viewport takes the
        markers away (:meth:`_pointer_left`)."""
        if event.type() == QtCore.QEvent.Type.Leave:
            self._pointer_left()
        if (event.type() == QtCore.QEvent.Type.ToolTip and isinstance(event, QtGui.QHelpEvent)
                and self.ports.panels):
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
        part = bytes(mime.data(PART_MIME)).decode()  # type: ignore[call-overload]  # stub: no buffer protocol
        sp = self.snap_point(self.mapToScene(event.position().toPoint()))
        d = self.editor.add_part(part, sp.x(), sp.y())
        if d is not None:
            self.fscene.select_devices([d])
            assert self.fscene.fabric is not None
            self.status.emit(f"added {self.fscene.fabric.name_of(d)} ({part})")
        event.acceptProposedAction()
