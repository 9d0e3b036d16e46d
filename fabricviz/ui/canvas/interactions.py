"""Mouse gestures on the canvas, one object per gesture (ARCHITECTURE.md, "The GUI as three layers").

:class:`~fabricviz.ui.canvas.view.CanvasView` keeps a list of interactions in priority order
(:meth:`CanvasView.interactions`):

* while one is :attr:`Interaction.active`, every mouse event goes to it alone (so a gesture never
  starts inside another: a middle-press while drawing a cable does not pan);
* otherwise a press is offered to each in turn; the first whose :meth:`Interaction.press` returns
  True has taken it and, if it is now ``active``, receives the following moves and releases;
* keys go to the active interaction first, then to the others (Space arms panning before any
  press); what none takes is the view's own (zoom keys, arrow nudging).

Rubber-band selection is not here: it is Qt's own ``RubberBandDrag`` on a press over empty canvas
(the main window listens to ``rubberBandChanged``). Every edit ends in an
:class:`~fabricviz.ui.document.editor.Editor` call, so one gesture is one undo step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ui.canvas.items.devices import DEVICE_ROLE, DeviceItem

if TYPE_CHECKING:
    from fabricviz.ui.canvas.view import CanvasView

LEFT = QtCore.Qt.MouseButton.LeftButton
MIDDLE = QtCore.Qt.MouseButton.MiddleButton
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
#: A press and release closer than this (Manhattan, pixels) on a GPU/NIC is a click on it.
CLICK_PX = 4


class Interaction:
    """One gesture. Each handler returns whether it took the event.

    ``press`` is offered while no interaction is active (and to the active one, which normally
    refuses further presses); ``move`` and ``release`` only reach the active one; ``key`` gets key
    presses and key releases (``event.type()`` tells them apart); ``cancel`` ends a running
    gesture leaving the design as it was before it started.
    """

    def __init__(self, view: CanvasView) -> None:
        self.view = view
        self.active = False

    def press(self, event: QtGui.QMouseEvent) -> bool:
        return False

    def move(self, event: QtGui.QMouseEvent) -> bool:
        return False

    def release(self, event: QtGui.QMouseEvent) -> bool:
        return False

    def key(self, event: QtGui.QKeyEvent) -> bool:
        return False

    def double_click(self, event: QtGui.QMouseEvent) -> bool:
        """A double-click, offered like a press while no interaction is active."""
        return False

    def cancel(self) -> None:
        self.active = False

    def scene_pos(self, event: QtGui.QMouseEvent) -> QtCore.QPointF:
        return self.view.mapToScene(event.position().toPoint())


class Pan(Interaction):
    """Middle-drag, or left-drag while Space is held: scroll the view by the drag, edit nothing."""

    def __init__(self, view: CanvasView) -> None:
        super().__init__(view)
        self.space = False                          # Space is held: a left-drag pans
        self._from: QtCore.QPoint | None = None

    def press(self, event: QtGui.QMouseEvent) -> bool:
        btn = event.button()
        if self.active or not (btn == MIDDLE or (btn == LEFT and self.space)):
            return False
        self._from = event.position().toPoint()
        self.active = True
        self.view.viewport().setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
        event.accept()
        return True

    def move(self, event: QtGui.QMouseEvent) -> bool:
        pos = event.position().toPoint()
        delta = pos - (self._from if self._from is not None else pos)
        self._from = pos
        h, v = self.view.horizontalScrollBar(), self.view.verticalScrollBar()
        h.setValue(h.value() - delta.x())
        v.setValue(v.value() - delta.y())
        event.accept()
        return True

    def release(self, event: QtGui.QMouseEvent) -> bool:
        if event.button() not in (MIDDLE, LEFT):
            return False
        self._end()
        event.accept()
        return True

    def key(self, event: QtGui.QKeyEvent) -> bool:
        if event.key() != QtCore.Qt.Key.Key_Space or event.isAutoRepeat():
            return False
        self.space = event.type() == QtCore.QEvent.Type.KeyPress
        self._rest_cursor()
        return True

    def cancel(self) -> None:
        if self.active:
            self._end()

    def _end(self) -> None:
        self._from = None
        self.active = False
        self._rest_cursor()

    def _rest_cursor(self) -> None:
        if self.space:
            self.view.viewport().setCursor(QtCore.Qt.CursorShape.OpenHandCursor)
        else:
            self.view.viewport().unsetCursor()


class CableDraw(Interaction):
    """Drag from a port marker to another port (or a device body: its first free port) to cable
    them: one ``editor.add_cable``, refused with the model's reason. Esc cancels the drag."""

    def __init__(self, view: CanvasView) -> None:
        super().__init__(view)
        self.source: int | None = None                          # the port the drag started on
        self.line: QtWidgets.QGraphicsLineItem | None = None    # the rubber line drawn meanwhile

    def press(self, event: QtGui.QMouseEvent) -> bool:
        if self.active or event.button() != LEFT:
            return False
        view = self.view
        sp = self.scene_pos(event)
        port = view.ports.port_at(sp)
        if port is None:
            return False
        marker = view.ports.marker(port)
        start = marker.scenePos() if marker is not None else sp
        self.source = port
        self.line = QtWidgets.QGraphicsLineItem(QtCore.QLineF(start, sp))
        self.line.setPen(view.fscene.theme.drag_pen)
        self.line.setZValue(20)
        view.fscene.addItem(self.line)
        self.active = True
        assert view.fscene.fabric is not None
        view.status.emit(f"cabling from {view.fscene.fabric.port_name(port)}: release on a port")
        event.accept()
        return True

    def move(self, event: QtGui.QMouseEvent) -> bool:
        sp = self.scene_pos(event)
        assert self.line is not None and self.source is not None   # moves reach only the active gesture
        assert self.view.fscene.fabric is not None
        line = self.line.line()
        line.setP2(sp)
        self.line.setLine(line)
        self.view.hover_at(sp, keep=[int(self.view.fscene.fabric.ports_t.device[self.source])])
        event.accept()
        return True

    def release(self, event: QtGui.QMouseEvent) -> bool:
        if event.button() != LEFT:
            return False
        self._finish(self.scene_pos(event))
        event.accept()
        return True

    def key(self, event: QtGui.QKeyEvent) -> bool:
        if self.active and event.key() == QtCore.Qt.Key.Key_Escape \
                and event.type() == QtCore.QEvent.Type.KeyPress:
            self.cancel()
            return True
        return False

    def cancel(self) -> None:
        if self.line is not None and self.line.scene() is not None:
            self.line.scene().removeItem(self.line)
        self.line = None
        self.source = None
        self.active = False

    def _finish(self, sp: QtCore.QPointF) -> None:
        view = self.view
        src = self.source
        self.cancel()
        f = view.fscene.fabric
        assert src is not None and f is not None     # released while active
        dst = view.ports.port_at(sp)
        if dst is None:
            item = view.fscene.device_item_at(sp)
            if item is not None:
                dst = self.free_port(int(item.data(DEVICE_ROLE)), src)
        if dst is None or dst == src:
            view.status.emit("no port there: cable not made")
            return
        cid = view.editor.add_cable(src, dst, view.cable_length, ctype=view.cable_type,
                                    part=view.cable_part)
        if cid is not None:
            c = f.cable(cid)
            view.status.emit(f"cabled {c.label} ({c.type}, {c.rate})")
        view.ports.refresh()

    def free_port(self, d: int, src: int) -> int | None:
        """Dropping on a device body: its first free port of the source's technology
        (else its first port, so the model explains the refusal)."""
        f = self.view.fscene.fabric
        assert f is not None
        pt = f.ports_t
        cands = [p for x in self.view.ports.devices_for(d) for p in f.device(x).port_ids.tolist()]
        if not cands:
            return None
        same = [p for p in cands if pt.tech[p] == pt.tech[src]]
        free = [p for p in same if pt.cable[p] < 0]
        return (free or same or cands)[0]


class Pick(Interaction):
    """A click on a cable, or (zoomed far out, devices batched into paths) on a device, selects it;
    Ctrl adds to / toggles the selection. Done at the press: never active.

    Zoomed out to the semantic zoom's far or middle level (:mod:`fabricviz.ui.canvas.items.semantic`)
    a click on a bundle selects exactly its cables, on a group box its top-level devices, on a host
    block its servers, on a switch drawn in a path that switch; a double-click on a group (its box,
    or a block or switch of it) opens it in place, on an open group's dashed frame closes it.
    Devices drawn by their own items are left to the other gestures."""

    def press(self, event: QtGui.QMouseEvent) -> bool:
        if event.button() != LEFT:
            return False
        if self._group_press(event):
            return True
        if self.view.fscene.semantic.level != "near":
            return False            # zoomed out the cable paths are hidden: lines are the semantic layer's
        scene, s = self.view.fscene, max(self.view.scale_factor(), 1e-9)
        sp = self.scene_pos(event)
        if scene.device_item_at(sp) is not None:
            return False
        ctrl = bool(event.modifiers() & CTRL)
        if scene.batch.on:
            d = scene.batch.device_at(sp, 3.0 / s)     # batched paths are hit-tested in numpy
            if d is not None:
                keep = scene.selected_device_ids() if ctrl else []
                scene.select_devices(keep + [d])
                if not ctrl:
                    scene.set_selected_cables(set())
                event.accept()
                return True
        scene.ensure_cables()
        cid = scene.cables.cable_at(sp, 5.0 / s)
        if cid is None:
            return False
        if ctrl:
            sel = scene.selected_cables ^ {cid}
        else:
            scene.clearSelection()
            sel = {cid}
        scene.set_selected_cables(sel)
        event.accept()
        return True

    def _nvlink_toggle(self, event: QtGui.QMouseEvent) -> bool:
        """Near: a double-click on an NVLink rack's block opens it, on its open frame (not on a tray)
        closes it (:mod:`fabricviz.ui.canvas.items.nvlink`)."""
        scene = self.view.fscene
        if event.button() != LEFT or scene.semantic.level != "near":
            return False
        sp = self.scene_pos(event)
        name = scene.nvlink.block_at(sp)
        if name is None or scene.device_item_at(sp) is not None:
            return False
        scene.nvlink.toggle(name)
        event.accept()
        return True

    def _hit(self, event: QtGui.QMouseEvent) -> tuple[str, int] | None:
        scene = self.view.fscene
        if event.button() != LEFT or scene.semantic.level == "near":
            return None
        sp = self.scene_pos(event)
        if scene.device_item_at(sp) is not None:
            return None
        return scene.semantic.queries.pick(sp, 4.0 / max(self.view.scale_factor(), 1e-9))

    def _group_press(self, event: QtGui.QMouseEvent) -> bool:
        hit = self._hit(event)
        if hit is None or hit[0] == "frame":
            return False
        scene, sem = self.view.fscene, self.view.fscene.semantic
        what, i = hit
        ctrl = bool(event.modifiers() & CTRL)
        if what in ("bundle", "cable"):
            b = sem.bundles                          # not None when a bundle was hit: they are drawn
            assert what != "bundle" or b is not None
            cids = set(b.members(i).tolist()) if what == "bundle" and b is not None else {i}
            if ctrl:
                sel = scene.selected_cables ^ cids if cids <= scene.selected_cables else scene.selected_cables | cids
            else:
                scene.clearSelection()
                sel = cids
            scene.set_selected_cables(sel)
            if what == "bundle" and b is not None:
                self.view.status.emit(f"{b.label(i)}: {sem.queries.describe_bundle(i)}")
        else:
            if what == "switch":
                ids = [i]
            elif what == "block":
                ids = sem.queries.block_members(i).tolist()
            else:
                assert sem.grouping is not None      # a group was hit: they are drawn
                ids = sem.grouping.members(i).tolist()
            keep = scene.selected_device_ids() if ctrl else []
            scene.select_devices(sorted(set(keep) | set(ids)))
            if not ctrl:
                scene.set_selected_cables(set())
        event.accept()
        return True

    def double_click(self, event: QtGui.QMouseEvent) -> bool:
        if self._nvlink_toggle(event):
            return True
        hit = self._hit(event)
        if hit is None or hit[0] in ("bundle", "cable"):
            return False
        scene, sem = self.view.fscene, self.view.fscene.semantic
        what, i = hit
        if what == "frame":
            sem.collapse(i)
        else:
            grouping = sem.grouping
            assert grouping is not None              # a group, block or switch was hit: they are drawn
            g = i if what == "group" else sem.queries.group_of_block(i) if what == "block" \
                else int(grouping.group[i])
            if g < 0:
                return False
            scene.clearSelection()
            sem.expand(g)
        event.accept()
        return True


class MoveDevices(Interaction):
    """Left-drag of the selected devices: Qt moves their items while the mouse drags (cables drawn
    live), the release makes one ``editor.move`` for all of them, the grabbed device snapped to
    the grid, or puts the items back if the model refuses.

    It takes every left press the others left: Qt selects what is under the pointer, or starts
    its rubber band over empty canvas; the interaction is active only when Qt grabbed a device.
    """

    def __init__(self, view: CanvasView) -> None:
        super().__init__(view)
        self.start: dict[int, QtCore.QPointF] = {}     # top-level device → item pos at the press
        self.grab: int | None = None                   # the top-level device under the press

    def press(self, event: QtGui.QMouseEvent) -> bool:
        if self.active or event.button() != LEFT:
            return False
        self._begin(event, self.view.fscene.device_item_at(self.scene_pos(event)))
        self.active = self.view.fscene.mouseGrabberItem() is not None
        return True

    def move(self, event: QtGui.QMouseEvent) -> bool:
        self.view.base_mouse_move(event)
        if event.buttons() & LEFT and self.start:
            offsets = self.offsets()
            scene = self.view.fscene
            if offsets and scene.fabric is not None:
                self.view.ports.clear()
                scene.ensure_cables()
                scene.cables.show_live(scene.fabric, np.array(list(self.start)), offsets)
        return True

    def release(self, event: QtGui.QMouseEvent) -> bool:
        if event.button() != LEFT:
            return False
        self._finish(event)
        return True

    def cancel(self) -> None:
        """Put the dragged items back where the model has them; no edit."""
        scene = self.view.fscene
        grabber = scene.mouseGrabberItem()
        if grabber is not None:
            grabber.ungrabMouse()
        ids = list(self.start)
        self.start, self.grab, self.active = {}, None, False
        scene.cables.end_live()
        if ids and scene.fabric is not None:
            scene.sync_positions(ids)
        scene.mark_cables()

    def offsets(self) -> dict[int, QtCore.QPointF]:
        """How far each dragged item is from where it was at the press (moved ones only)."""
        out = {}
        for d, p0 in self.start.items():
            item = self.view.fscene.items_by_id.get(d)
            if item is not None and item.pos() != p0:
                out[d] = item.pos() - p0
        return out

    def _begin(self, event: QtGui.QMouseEvent, grabbed: QtWidgets.QGraphicsItem | None) -> None:
        scene = self.view.fscene
        ctrl = bool(event.modifiers() & CTRL)
        if grabbed is None:
            if not ctrl:
                scene.set_selected_cables(set())
        elif not ctrl:
            scene.selected_cables.clear()
            scene.cables.update_highlight()
        if grabbed is not None and grabbed.parentItem() is not None:
            grabbed = grabbed.parentItem()
        self.grab = int(grabbed.data(DEVICE_ROLE)) if grabbed is not None else None
        self.view.base_mouse_press(event)
        self.start = {int(i.data(DEVICE_ROLE)): i.pos() for i in scene.selectedItems()
                      if isinstance(i, DeviceItem) and i.parentItem() is None}

    def _finish(self, event: QtGui.QMouseEvent) -> bool:
        """Qt's release, then the one move command; whether anything had moved."""
        self.view.base_mouse_release(event)
        offsets = self.offsets()
        press, self.start = self.start, {}
        self.active = False
        scene = self.view.fscene
        scene.cables.end_live()
        if offsets:
            first = self.grab if self.grab in offsets else next(iter(offsets))
            target = self.view.snap_point(press[first] + offsets[first])
            dx, dy = target.x() - press[first].x(), target.y() - press[first].y()
            ids = list(press)
            if not self.view.editor.move(ids, dx, dy):
                scene.sync_positions(ids)
        scene.mark_cables()
        return bool(offsets)


class ChildDrag(MoveDevices):
    """A press on a GPU or NIC inside a server (without Ctrl): dragging moves the server (and
    whatever else is selected) as :class:`MoveDevices` does; a click selects the GPU/NIC itself."""

    def __init__(self, view: CanvasView) -> None:
        super().__init__(view)
        self.child: int | None = None
        self._at: QtCore.QPoint | None = None

    def press(self, event: QtGui.QMouseEvent) -> bool:
        if self.active or event.button() != LEFT or event.modifiers() & CTRL:
            return False
        item = self.view.fscene.device_item_at(self.scene_pos(event))
        if item is None or item.parentItem() is None:
            return False
        self.child, self._at = int(item.data(DEVICE_ROLE)), event.position().toPoint()
        self._begin(event, item)
        self.active = True
        return True

    def release(self, event: QtGui.QMouseEvent) -> bool:
        if event.button() != LEFT:
            return False
        moved = self._finish(event)
        child, at = self.child, self._at
        self.child = self._at = None
        assert child is not None and at is not None   # set by the press that made this gesture active
        if not moved and (event.position().toPoint() - at).manhattanLength() < CLICK_PX:
            self.view.fscene.select_devices([child], inner=True)
        return True

    def cancel(self) -> None:
        self.child = self._at = None
        super().cancel()
