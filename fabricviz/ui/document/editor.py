"""The editor: one design (a Fabric), its undo stack, and every user edit as a command.

Widgets call the methods here; each builds one command, runs it once (a model
refusal becomes a one-line ``message`` and changes nothing) and pushes it.
The canvas follows the model's events; nothing here touches items.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui

from fabricviz.model import Fabric, FabricError
from fabricviz.model.catalog import CatalogError
from fabricviz.model.clipboard import check_clip, clip_center, copy_devices, paste_devices
from fabricviz.model.nvlink import PART_PREFIX
from fabricviz.ui.document.commands import (
    AddCommand,
    EditCommand,
    FabricCommand,
    MetaCommand,
    PositionsCommand,
    RemoveCommand,
    ReplaceFabricCommand,
    UndoStack,
)
from fabricviz.ui.document.nvlink_commands import add_rack_command

CLIP_MIME = "application/x-fabricviz-devices"


class Editor(QtCore.QObject):
    """A design being edited. ``fabric_replaced`` fires when the Fabric object changes."""

    fabric_replaced = QtCore.Signal()
    message = QtCore.Signal(str, bool)    # text, is_refusal

    def __init__(self, fabric: Fabric, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.fabric = fabric
        self.stack = UndoStack(self)
        self.stack.setObjectName("undo_stack")
        self.stack.refused.connect(lambda text: self.message.emit(text, True))
        self.clipboard: dict[str, Any] | None = None
        self._paste_count = 0
        self.pushing = False            # True while run() pushes (a new step, not a redo)

    def set_fabric(self, fabric: Fabric) -> None:
        self.fabric = fabric
        self.fabric_replaced.emit()

    # ------------------------------------------------------------------ running commands
    def run(self, cmd: FabricCommand) -> bool:
        """Run ``cmd`` once; push it if the model accepted it, else report why."""
        try:
            cmd.execute()
        except (FabricError, CatalogError) as exc:
            self.message.emit(str(exc), True)
            return False
        self.pushing = True
        try:
            self.stack.push(cmd)
        finally:
            self.pushing = False
        return True

    # ------------------------------------------------------------------ edits
    def add_part(self, part_id: str, x: float, y: float) -> int | None:
        """Create a device of catalog part ``part_id`` at (x, y); returns its id. An NVLink rack
        (``nvlink:PART``, the Parts dock's) adds its compute trays and its domain: the first tray's id."""
        if part_id.startswith(PART_PREFIX):
            try:
                rack = add_rack_command(self, part_id[len(PART_PREFIX):], x, y)
            except FabricError as exc:
                self.message.emit(str(exc), True)
                return None
            return rack.device_ids[0] if self.run(rack) else None
        try:
            part = self.fabric.catalog.get(part_id)
        except CatalogError as exc:
            self.message.emit(str(exc), True)
            return None
        if part.kind == "cable":
            self.message.emit(f"{part.id} is a cable: drag from one port to another to cable", True)
            return None

        def create(f: Fabric) -> tuple[list[int], list[int]]:
            tier = 0 if part.kind == "server" else -1
            return [f.add_device(part.kind, part.id, x=x, y=y, tier=tier)], []

        cmd = AddCommand(self, f"Add {part.id}", create)
        return cmd.device_ids[0] if self.run(cmd) else None

    def add_cable(self, a: int, b: int, length_m: float, ctype: str | None = None,
                  part: str | None = None) -> int | None:
        """Cable port ``a`` to port ``b``; a refusal (busy port, IB to Ethernet, reach) is reported."""
        label = f"{self.fabric.port_name(a)} – {self.fabric.port_name(b)}"

        def create(f: Fabric) -> tuple[list[int], list[int]]:
            return [], [f.add_cable(a, b, length_m, ctype=ctype, part=part)]

        cmd = AddCommand(self, f"Cable {label}", create)
        return cmd.cable_ids[0] if self.run(cmd) else None

    def remove(self, device_ids: list[int], cable_ids: list[int]) -> bool:
        if not device_ids and not cable_ids:
            return False
        return self.run(RemoveCommand(self, device_ids, cable_ids))

    def move(self, ids: list[int], dx: float, dy: float, merge: bool = False) -> bool:
        if not ids or (dx == 0 and dy == 0):
            return False
        return self.run(PositionsCommand.move(self, ids, dx, dy, merge))

    def set_positions(self, text: str, ids: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> bool:
        return self.run(PositionsCommand(self, text, ids, xs, ys))

    def set_meta(self, text: str, key: str, value: Any) -> bool:
        """Set (or drop: None) a design-wide setting such as the partitions, as one undo step."""
        if self.fabric.meta.get(key) == value:
            return False
        return self.run(MetaCommand(self, text, key, value))

    def rename(self, d: int, name: str) -> bool:
        old = self.fabric.name_of(d)
        if name == old:
            return False
        return self.run(EditCommand(self, f"Rename {old} to {name}", lambda f: f.rename(d, name), [d]))

    def set_guid(self, d: int, guid: int) -> bool:
        old = int(self.fabric.devices_t.guid[d])
        if guid == old:
            return False
        return self.run(EditCommand.on_device(self, f"Set GUID of {self.fabric.name_of(d)}",
                                              lambda f: f.set_guid(d, guid), d))

    def set_cable(self, c: int, length_m: float | None = None, ctype: str | None = None,
                  part: str | None = None) -> bool:
        cab = self.fabric.cable(c)
        ends = [cab.port_a.id, cab.port_b.id]
        return self.run(EditCommand(self, f"Edit cable {cab.label}",
                                    lambda f: f.set_cable(c, length_m, ctype, part), (), ends, [c]))

    def set_port_rate(self, p: int, rate: str) -> bool:
        old = str(self.fabric.port_rate(p))
        if rate == old:
            return False
        return self.run(EditCommand.on_device(self, f"Set {self.fabric.port_name(p)} to {rate}",
                                              lambda f: f.set_port_rate(p, rate),
                                              int(self.fabric.ports_t.device[p])))

    def set_port_state(self, p: int, state: str) -> bool:
        old = self.fabric.port(p).state
        if state == old:
            return False
        return self.run(EditCommand(self, f"Set {self.fabric.port_name(p)} {state}",
                                    lambda f: f.set_port_state(p, state), (), [p]))

    def replace(self, fabric: Fabric, text: str) -> bool:
        """A generated design replaces the current one as one undoable step."""
        return self.run(ReplaceFabricCommand(self, text, fabric))

    # ------------------------------------------------------------------ copy and paste
    def copy(self, device_ids: list[int]) -> dict[str, Any] | None:
        """Serialise the devices (top level) and the cables between them; put them on the clipboard."""
        data = copy_devices(self.fabric, device_ids)
        if data is None:
            return None
        self.clipboard = data
        self._paste_count = 0
        mime = QtCore.QMimeData()
        mime.setData(CLIP_MIME, QtCore.QByteArray(json.dumps(data).encode()))
        mime.setText(", ".join(d["name"] for d in data["devices"]))
        QtGui.QGuiApplication.clipboard().setMimeData(mime)
        _release_clipboard_at_exit()
        return data

    def paste(self, data: dict[str, Any] | None = None, offset: float | None = None,
              at: tuple[float, float] | None = None) -> list[int]:
        """Paste copied devices (new names) with their internal cables; one undo step. ``at``
        centres them on that scene point (the pointer), else they are shifted by ``offset``."""
        if data is None:
            mime = QtGui.QGuiApplication.clipboard().mimeData()
            if mime is not None and mime.hasFormat(CLIP_MIME):
                try:
                    data = json.loads(bytes(mime.data(CLIP_MIME)).decode("utf-8"))  # type: ignore[call-overload]  # stub: QByteArray has no buffer protocol
                except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                    self.message.emit(f"paste: the clipboard's devices are not readable ({exc})", True)
                    return []
            else:
                data = self.clipboard
        if not isinstance(data, dict) or not data.get("devices"):
            self.message.emit("nothing to paste", False)
            return []
        try:
            check_clip(data)
        except FabricError as exc:
            self.message.emit(str(exc), True)
            return []
        shift: float | tuple[float, float]
        if at is not None:
            cx, cy = clip_center(data)
            shift = (at[0] - cx, at[1] - cy)
        elif offset is None:
            self._paste_count += 1
            shift = 40.0 * self._paste_count
        else:
            shift = offset
        n = len(data["devices"])
        cmd = AddCommand(self, f"Paste {n} device{'s' if n != 1 else ''}",
                         lambda f: paste_devices(f, data, shift))
        return cmd.device_ids if self.run(cmd) else []

    def duplicate(self, device_ids: list[int]) -> list[int]:
        data = copy_devices(self.fabric, device_ids)
        return self.paste(data, offset=40.0) if data else []


# ---------------------------------------------------------------------- clipboard format
_EXIT_HOOK: list[Callable[[], None]] = []


def _release_clipboard_at_exit() -> None:
    """Clear our data from the clipboard before Python finalises: PySide6 6.11 crashes at
    exit when the clipboard still holds a QMimeData set from Python."""
    if _EXIT_HOOK:
        return
    import atexit

    def release() -> None:
        app = QtGui.QGuiApplication.instance()
        if app is None:
            return
        cb = QtGui.QGuiApplication.clipboard()
        mime = cb.mimeData()
        if mime is not None and mime.hasFormat(CLIP_MIME):
            del mime
            cb.clear()
    atexit.register(release)
    _EXIT_HOOK.append(release)
