"""Undo commands: every user edit is one QUndoCommand that calls model methods.

A command's first execution happens in :meth:`FabricCommand.execute` (called by
the editor before pushing), so a refusal (``FabricError``) reaches the user and
nothing lands on the undo stack. Later redos replay without checks failing:
additions are undone by ``remove_*`` and redone by ``restore`` of the snapshot,
so the very same ids come back and later commands on the stack stay valid.
Positions are restored from saved absolute values (float32 columns do not
survive ``x + dx - dx`` exactly).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np
from PySide6 import QtGui

from fabricviz.model import Fabric, Removed

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.editor import Editor

MOVE_NUDGE_ID = 0x4D4F5645  # "MOVE": keyboard nudges of the same selection merge


class FabricCommand(QtGui.QUndoCommand):
    """Base: ``apply`` does the edit (may raise on the first run), ``revert`` undoes it."""

    def __init__(self, editor: "Editor", text: str) -> None:
        super().__init__(text)
        self.editor = editor
        self._skip_redo = False

    @property
    def fabric(self) -> Fabric:
        return self.editor.fabric

    def execute(self) -> None:
        """First run, before the push; the push's own redo() is then skipped."""
        self.apply()
        self._skip_redo = True

    def redo(self) -> None:
        if self._skip_redo:
            self._skip_redo = False
            return
        self.apply()

    def undo(self) -> None:
        self.revert()

    def apply(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def revert(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class AddCommand(FabricCommand):
    """Adds devices and/or cables through ``create`` (first run), then remove/restore."""

    def __init__(self, editor: "Editor", text: str,
                 create: Callable[[Fabric], tuple[list[int], list[int]]]) -> None:
        super().__init__(editor, text)
        self._create = create
        self.device_ids: list[int] = []
        self.cable_ids: list[int] = []
        self._removed: list[Removed] = []

    def apply(self) -> None:
        if not self._removed and not self.device_ids and not self.cable_ids:
            self.device_ids, self.cable_ids = self._create(self.fabric)
            return
        for r in self._removed:
            self.fabric.restore(r)
        self._removed = []

    def revert(self) -> None:
        f = self.fabric
        out = []
        if self.device_ids:
            out.append(f.remove_devices(self.device_ids))
        loose = [c for c in self.cable_ids if f.cables_t.exists(c)]
        if loose:
            out.append(f.remove_cables(loose))
        self._removed = out[::-1]  # cables after their devices on restore


class RemoveCommand(FabricCommand):
    """Deletes devices (their cables go with them) and cables; undo restores the same ids."""

    def __init__(self, editor: "Editor", device_ids: list[int], cable_ids: list[int]) -> None:
        n = len(device_ids) + len(cable_ids)
        super().__init__(editor, f"Delete {n} item{'s' if n != 1 else ''}")
        self.device_ids = list(device_ids)
        self.cable_ids = list(cable_ids)
        self._removed: list[Removed] = []

    def apply(self) -> None:
        f = self.fabric
        out = []
        if self.cable_ids:
            out.append(f.remove_cables(self.cable_ids))
        if self.device_ids:
            out.append(f.remove_devices(self.device_ids))
        self._removed = out

    def revert(self) -> None:
        for r in reversed(self._removed):
            self.fabric.restore(r)
        self._removed = []


class PositionsCommand(FabricCommand):
    """Moves (drags, nudges) and layouts: old and new absolute positions of many devices."""

    def __init__(self, editor: "Editor", text: str, ids: np.ndarray, new_x: np.ndarray,
                 new_y: np.ndarray, merge_id: int = -1) -> None:
        super().__init__(editor, text)
        t = editor.fabric.devices_t
        self.ids = np.asarray(ids, dtype=np.int64)
        self.old_x = t.x[self.ids].copy()
        self.old_y = t.y[self.ids].copy()
        self.new_x = np.asarray(new_x, dtype=np.float32)
        self.new_y = np.asarray(new_y, dtype=np.float32)
        self._merge_id = merge_id

    @classmethod
    def move(cls, editor: "Editor", ids: list[int], dx: float, dy: float,
             merge: bool = False) -> "PositionsCommand":
        """Move devices by (dx, dy); servers take their GPUs and NICs along."""
        t = editor.fabric.devices_t
        ids = np.asarray(ids, dtype=np.int64)
        kids = np.flatnonzero(t.alive & np.isin(t.parent, ids))
        allids = np.union1d(ids, kids)
        n = len(ids)
        text = f"Move {editor.fabric.name_of(int(ids[0]))}" if n == 1 else f"Move {n} devices"
        return cls(editor, text, allids, t.x[allids].astype(np.float64) + dx,
                   t.y[allids].astype(np.float64) + dy, MOVE_NUDGE_ID if merge else -1)

    def apply(self) -> None:
        self.fabric.set_positions(self.ids, self.new_x, self.new_y)

    def revert(self) -> None:
        self.fabric.set_positions(self.ids, self.old_x, self.old_y)

    def id(self) -> int:  # noqa: A003 (Qt name)
        return self._merge_id

    def mergeWith(self, other: QtGui.QUndoCommand) -> bool:  # noqa: N802 (Qt name)
        if not isinstance(other, PositionsCommand) or other._merge_id != self._merge_id \
                or not np.array_equal(other.ids, self.ids):
            return False
        self.new_x, self.new_y = other.new_x, other.new_y
        return True


class CallCommand(FabricCommand):
    """A property edit: ``do(fabric)`` and ``undo(fabric)`` call model setters."""

    def __init__(self, editor: "Editor", text: str, do: Callable[[Fabric], Any],
                 undo: Callable[[Fabric], Any]) -> None:
        super().__init__(editor, text)
        self._do, self._undo = do, undo

    def apply(self) -> None:
        self._do(self.fabric)

    def revert(self) -> None:
        self._undo(self.fabric)


class ReplaceFabricCommand(FabricCommand):
    """A generated design replaces the current one (one step; undo brings the old one back)."""

    def __init__(self, editor: "Editor", text: str, new: Fabric) -> None:
        super().__init__(editor, text)
        self.new = new
        self.old: Fabric | None = None

    def apply(self) -> None:
        self.old = self.editor.fabric
        self.editor.set_fabric(self.new)

    def revert(self) -> None:
        assert self.old is not None
        self.editor.set_fabric(self.old)
