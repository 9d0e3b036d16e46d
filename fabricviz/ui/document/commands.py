"""Undo commands: every user edit is one QUndoCommand that calls model methods.

A command's first execution happens in :meth:`FabricCommand.execute` (called by
the editor before pushing), so a refusal (``FabricError``) reaches the user and
nothing lands on the undo stack. Later undos and redos never re-check the edit:

* additions are undone by ``remove_*`` and redone by ``restore`` of the snapshot,
  so the very same ids come back and later commands on the stack stay valid;
* property edits (:class:`EditCommand`) keep the exact raw rows before and after
  and write them back (a derived child name stays derived, a GUID of 0 comes back);
* positions are restored from saved absolute values (float32 columns do not
  survive ``x + dx - dx`` exactly).

:class:`UndoStack` asks the command first (``undo_problem``/``redo_problem``): an
undo that cannot be done is refused with a message and the stack does not move.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric, FabricError, Removed
from fabricviz.model.cabling import PORT_STATES
from fabricviz.model.rows import Rows

if TYPE_CHECKING:  # pragma: no cover
    from fabricviz.ui.document.editor import Editor

MOVE_NUDGE_ID = 0x4D4F5645  # "MOVE": keyboard nudges of the same selection merge


class UndoStack(QtGui.QUndoStack):
    """A QUndoStack that refuses (``refused``, stack unmoved) an undo/redo its command cannot do."""

    refused = QtCore.Signal(str)

    def _problem(self, i: int, undo: bool) -> str | None:
        cmd = self.command(i)
        if not isinstance(cmd, FabricCommand):
            return None
        why = cmd.undo_problem() if undo else cmd.redo_problem()
        return None if why is None else f"cannot {'undo' if undo else 'redo'} {cmd.text()}: {why}"

    def undo(self) -> None:
        if self.index() > 0 and (why := self._problem(self.index() - 1, True)) is not None:
            self.refused.emit(why)
            return
        super().undo()

    def redo(self) -> None:
        if self.index() < self.count() and (why := self._problem(self.index(), False)) is not None:
            self.refused.emit(why)
            return
        super().redo()

    def setIndex(self, idx: int) -> None:  # noqa: N802 (Qt name)
        """Go to ``idx`` one step at a time through :meth:`undo`/:meth:`redo`, so each step is
        asked first; a refused step stops the walk there (every step taken is whole)."""
        idx = max(0, min(int(idx), self.count()))
        while self.index() != idx:
            before = self.index()
            if before > idx:
                self.undo()
            else:
                self.redo()
            if self.index() == before:          # refused (``refused`` told why)
                return

    def _routed(self, action: QtGui.QAction, slot: Callable[[], None]) -> QtGui.QAction:
        action.triggered.disconnect()           # the C++ slot would skip the checks above
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def createUndoAction(self, parent: QtCore.QObject, prefix: str = "") -> QtGui.QAction:  # noqa: N802
        return self._routed(super().createUndoAction(parent, prefix), self.undo)

    def createRedoAction(self, parent: QtCore.QObject, prefix: str = "") -> QtGui.QAction:  # noqa: N802
        return self._routed(super().createRedoAction(parent, prefix), self.redo)


class HistoryView(QtWidgets.QUndoView):
    """The undo history list. A click (or arrow key) on an entry goes there through
    :meth:`UndoStack.setIndex`, which asks every step first: QUndoView's own model would call
    the C++ ``QUndoStack::setIndex`` and skip those checks, so the view gets a selection
    model of its own and follows the stack's index itself."""

    def __init__(self, stack: QtGui.QUndoStack, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(stack, parent)
        self._syncing = False
        self._own = QtCore.QItemSelectionModel(self.model(), self)
        self.setSelectionModel(self._own)
        self._own.currentChanged.connect(self._picked)
        self.model().modelReset.connect(self._sync)     # the model resets on every stack change
        self._sync()

    def _picked(self, current: QtCore.QModelIndex, _previous: QtCore.QModelIndex) -> None:
        stack = self.stack()
        if self._syncing or stack is None or not current.isValid() or current.row() == stack.index():
            return
        # the list would rebuild itself on every step of the walk
        self.setStack(None)  # type: ignore[arg-type]  # PySide6's stub omits None (Qt takes nullptr)
        try:
            stack.setIndex(current.row())
        finally:
            self.setStack(stack)
        self._sync()                                    # a refused step: show where it stopped

    def _sync(self) -> None:
        stack = self.stack()
        if stack is None:
            return
        self._syncing = True
        try:
            self._own.setCurrentIndex(self.model().index(stack.index(), 0),
                                      QtCore.QItemSelectionModel.SelectionFlag.ClearAndSelect)
        finally:
            self._syncing = False


class FabricCommand(QtGui.QUndoCommand):
    """Base: ``apply`` does the edit (may raise on the first run), ``revert`` undoes it."""

    def __init__(self, editor: Editor, text: str) -> None:
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
        self._guarded(self.apply)

    def undo(self) -> None:
        self._guarded(self.revert)

    def _guarded(self, fn: Callable[[], None]) -> None:
        # UndoStack asked undo_problem()/redo_problem() first; model refusals change nothing
        try:
            fn()
        except FabricError as exc:
            self.editor.message.emit(f"{self.text()}: {exc}", True)

    def undo_problem(self) -> str | None:
        """Why :meth:`revert` cannot be done now (None: it can)."""
        return None

    def redo_problem(self) -> str | None:
        """Why :meth:`apply` (a redo) cannot be done now (None: it can)."""
        return None

    def apply(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def revert(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


def _gone(f: Fabric, device_ids: Iterable[int], cable_ids: Iterable[int]) -> str | None:
    for d in device_ids:
        if not f.devices_t.exists(int(d)):
            return f"device #{d} is gone"
    for c in cable_ids:
        if not f.cables_t.exists(int(c)):
            return f"cable #{c} is gone"
    return None


class AddCommand(FabricCommand):
    """Adds devices and/or cables through ``create`` (first run), then remove/restore.

    A new cable brings its ends up (INIT/ACTIVE) and taking a cable away leaves them DOWN, but
    the undo of an addition gives back the states the ends had before it (a port that was not
    DOWN, e.g. one set ARMED, stays so): ``_ends`` keeps those states from the first run.
    """

    def __init__(self, editor: Editor, text: str,
                 create: Callable[[Fabric], tuple[list[int], list[int]]]) -> None:
        super().__init__(editor, text)
        self._create = create
        self.device_ids: list[int] = []
        self.cable_ids: list[int] = []
        self._removed: list[Removed] = []
        self._ends: tuple[np.ndarray, np.ndarray] = (np.zeros(0, np.int64), np.zeros(0, np.int8))

    def apply(self) -> None:
        if not self._removed and not self.device_ids and not self.cable_ids:
            f = self.fabric
            n_ports, states = f.ports_t.n, f.ports_t.state.copy()
            self.device_ids, self.cable_ids = self._create(f)
            cids = np.asarray(self.cable_ids, dtype=np.int64)
            ends = np.concatenate([f.cables_t.port_a[cids], f.cables_t.port_b[cids]]).astype(np.int64)
            ends = ends[ends < n_ports]             # ports that were there before (not new devices')
            self._ends = (ends, states[ends])
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
        ends, states = self._ends
        for p, st in zip(ends.tolist(), states.tolist(), strict=True):
            if int(f.ports_t.state[p]) != st:
                f.set_port_state(p, PORT_STATES[st])

    def undo_problem(self) -> str | None:
        return _gone(self.fabric, self.device_ids, self.cable_ids)

    def redo_problem(self) -> str | None:
        for r in self._removed:
            why = self.fabric.removal.restore_problem(r)
            if why is not None:
                return why
        return None


class RemoveCommand(FabricCommand):
    """Deletes devices (their cables go with them) and cables; undo restores the same ids."""

    def __init__(self, editor: Editor, device_ids: list[int], cable_ids: list[int]) -> None:
        n = len(device_ids) + len(cable_ids)
        super().__init__(editor, f"Delete {n} item{'s' if n != 1 else ''}")
        self.device_ids = list(device_ids)
        self.cable_ids = list(cable_ids)
        self._removed: list[Removed] = []

    def apply(self) -> None:
        f = self.fabric
        out = []
        if self.device_ids:                 # first: their cables go with them
            out.append(f.remove_devices(self.device_ids))
        rest = [c for c in self.cable_ids if f.cables_t.exists(c)]
        if rest:                            # then the cables between devices that stay
            out.append(f.remove_cables(rest))
        self._removed = out

    def revert(self) -> None:
        for r in reversed(self._removed):
            self.fabric.restore(r)
        self._removed = []

    def undo_problem(self) -> str | None:
        for r in reversed(self._removed):
            why = self.fabric.removal.restore_problem(r)
            if why is not None:
                return why
        return None

    def redo_problem(self) -> str | None:
        return _gone(self.fabric, self.device_ids, self.cable_ids)


class PositionsCommand(FabricCommand):
    """Moves (drags, nudges) and layouts: old and new absolute positions of many devices."""

    def __init__(self, editor: Editor, text: str, ids: np.ndarray, new_x: np.ndarray,
                 new_y: np.ndarray, merge_id: int = -1) -> None:
        super().__init__(editor, text)
        t = editor.fabric.devices_t
        self.ids = np.asarray(ids, dtype=np.int64)
        self.old_x = t.x[self.ids].copy()
        self.old_y = t.y[self.ids].copy()
        self.new_x = np.asarray(new_x, dtype=np.float64)    # the model checks they fit float32
        self.new_y = np.asarray(new_y, dtype=np.float64)
        self._merge_id = merge_id

    @classmethod
    def move(cls, editor: Editor, ids: list[int] | np.ndarray, dx: float, dy: float,
             merge: bool = False) -> PositionsCommand:
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

    def undo_problem(self) -> str | None:
        return _gone(self.fabric, self.ids.tolist(), ())

    redo_problem = undo_problem

    def id(self) -> int:  # noqa: A003 (Qt name)
        return self._merge_id

    def mergeWith(self, other: QtGui.QUndoCommand) -> bool:  # noqa: N802 (Qt name)
        if not isinstance(other, PositionsCommand) or other._merge_id != self._merge_id \
                or not np.array_equal(other.ids, self.ids):
            return False
        self.new_x, self.new_y = other.new_x, other.new_y
        return True


class EditCommand(FabricCommand):
    """A property edit: ``do(fabric)`` on the first run; undo and redo write back the exact
    raw rows (devices with their names, ports, cables) taken before and after it."""

    def __init__(self, editor: Editor, text: str, do: Callable[[Fabric], Any],
                 devices: Iterable[int] = (), ports: Iterable[int] = (), cables: Iterable[int] = ()) -> None:
        super().__init__(editor, text)
        self._do = do
        self._rows = (list(devices), list(ports), list(cables))
        self.before: Rows | None = None
        self.after: Rows | None = None

    @classmethod
    def on_device(cls, editor: Editor, text: str, do: Callable[[Fabric], Any], d: int) -> EditCommand:
        """An edit of device ``d``: its row, its ports and the cables on them are kept."""
        f = editor.fabric
        ports = f.device(d).port_ids.tolist()
        cables = [int(f.ports_t.cable[p]) for p in ports if f.ports_t.cable[p] >= 0]
        return cls(editor, text, do, [d], ports, cables)

    def apply(self) -> None:
        if self.after is not None:
            self.fabric.rows.put_back(self.after)
            return
        before = self.fabric.rows.snapshot(*self._rows)
        self._do(self.fabric)
        self.before, self.after = before, self.fabric.rows.snapshot(*self._rows)

    def revert(self) -> None:
        assert self.before is not None
        self.fabric.rows.put_back(self.before)

    def _problem(self, expect: Rows | None, target: Rows | None) -> str | None:
        if expect is None or target is None:
            return None
        why = self.fabric.rows.rows_problem(target)
        if why is None and not self.fabric.rows.same_rows(expect):
            why = "the design changed since (an edit outside the undo history)"
        return why

    def undo_problem(self) -> str | None:
        return self._problem(self.after, self.before)

    def redo_problem(self) -> str | None:
        return self._problem(self.before, self.after)


class MetaCommand(FabricCommand):
    """One ``meta`` entry of the design set or dropped (partitions, QoS): undo puts back the exact
    old value (a deep copy), or removes the entry when there was none."""

    def __init__(self, editor: Editor, text: str, key: str, value: Any) -> None:
        super().__init__(editor, text)
        self.key = key
        self.new = copy.deepcopy(value)
        self.old = copy.deepcopy(editor.fabric.meta.get(key))

    def apply(self) -> None:
        self.fabric.set_meta(self.key, copy.deepcopy(self.new))

    def revert(self) -> None:
        self.fabric.set_meta(self.key, copy.deepcopy(self.old))


class ReplaceFabricCommand(FabricCommand):
    """A generated design replaces the current one (one step; undo brings the old one back)."""

    def __init__(self, editor: Editor, text: str, new: Fabric) -> None:
        super().__init__(editor, text)
        self.new = new
        self.old: Fabric | None = None

    def apply(self) -> None:
        self.old = self.editor.fabric
        self.editor.set_fabric(self.new)

    def revert(self) -> None:
        assert self.old is not None
        self.editor.set_fabric(self.old)
