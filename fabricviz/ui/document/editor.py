"""The editor: one design (a Fabric), its undo stack, and every user edit as a command.

Widgets call the methods here; each builds one command, runs it once (a model
refusal becomes a one-line ``message`` and changes nothing) and pushes it.
The canvas follows the model's events; nothing here touches items.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui

from fabricviz.model import KINDS, Fabric, FabricError
from fabricviz.model.catalog import CatalogError
from fabricviz.ui.document.commands import (AddCommand, EditCommand, FabricCommand, PositionsCommand,
                                   RemoveCommand, ReplaceFabricCommand, UndoStack)

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
        """Create a device of catalog part ``part_id`` at (x, y); returns its id."""
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
                    data = json.loads(bytes(mime.data(CLIP_MIME)).decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                    self.message.emit(f"paste: the clipboard's devices are not readable ({exc})", True)
                    return []
            else:
                data = self.clipboard
        if not isinstance(data, dict) or not data.get("devices"):
            self.message.emit("nothing to paste", False)
            return []
        try:
            _check_clip(data)
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
_EXIT_HOOK = []


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


def _top_level(f: Fabric, ids: list[int]) -> list[int]:
    t = f.devices_t
    out = {int(t.parent[d]) if t.parent[d] >= 0 else int(d) for d in ids if f.devices_t.exists(int(d))}
    return sorted(out)


def copy_devices(f: Fabric, device_ids: list[int]) -> dict[str, Any] | None:
    """Plain data for the devices and the cables among them (children included with servers)."""
    tops = _top_level(f, device_ids)
    if not tops:
        return None
    t, pt, ct = f.devices_t, f.ports_t, f.cables_t
    index = {d: i for i, d in enumerate(tops)}
    devices = []
    for d in tops:
        kind = KINDS[int(t.kind[d])]
        rec = {"kind": kind, "part": f.part_id_of(d), "name": f.name_of(d), "x": float(t.x[d]),
               "y": float(t.y[d]), "tier": int(t.tier[d]), "mode": None}
        first_port_dev = d
        if kind == "server":
            nics = [int(k) for k in f.children_ids(d) if KINDS[int(t.kind[k])] == "nic"]
            first_port_dev = nics[0] if nics else -1
        if first_port_dev >= 0 and int(t.nports[first_port_dev]):
            part = f.part_of(first_port_dev)
            rate = f.port_rate(int(t.first_port[first_port_dev]))
            if part is not None and part.modes and rate != part.modes[0]:
                rec["mode"] = str(rate)
        devices.append(rec)

    def ref(p: int) -> list[int] | None:
        d = int(pt.device[p])
        top = int(t.parent[d]) if t.parent[d] >= 0 else d
        if top not in index:
            return None
        return [index[top], int(t.local[d]) if d != top else -1, int(pt.num[p])]

    owned = np.flatnonzero(t.alive & (np.isin(np.arange(t.n), tops) | np.isin(t.parent, tops)))
    ports = np.flatnonzero(np.isin(pt.device, owned) & (pt.cable >= 0))
    cables = []
    for c in np.unique(pt.cable[ports]).tolist():
        a, b = ref(int(ct.port_a[c])), ref(int(ct.port_b[c]))
        if a is not None and b is not None:
            cab = f.cable(c)
            cables.append({"a": a, "b": b, "length": cab.length_m, "part": cab.part_id})
    return {"format": "fabricviz-clip", "devices": devices, "cables": cables}


def _free_name(f: Fabric, base: str, taken: set[str]) -> str:
    n = 2
    stem = base
    head, sep, tail = base.rpartition("-")
    if sep and tail.isdigit():
        stem, n = head, int(tail) + 1
    while True:
        name = f"{stem}-{n}"
        if f.find(name) is None and name not in taken:
            taken.add(name)
            return name
        n += 1


def _check_clip(data: dict[str, Any]) -> None:
    """Refuse clipboard data (possibly from another program) that is not what copy_devices writes."""
    devices, cables = data.get("devices"), data.get("cables", [])
    if not isinstance(devices, list) or not isinstance(cables, list):
        raise FabricError("paste: the clipboard holds no device list")
    num = (int, float)
    for i, rec in enumerate(devices):
        where = f"paste: device {i + 1}"
        if not isinstance(rec, dict):
            raise FabricError(f"{where}: not a record")
        for key, types, need in (("kind", str, True), ("name", str, True), ("part", (str, type(None)), False),
                                 ("x", num, True), ("y", num, True), ("tier", int, False),
                                 ("mode", (str, type(None)), False)):
            if (need and key not in rec) or (key in rec and (not isinstance(rec[key], types)
                                                               or isinstance(rec[key], bool))):
                raise FabricError(f"{where}: {key!r} is missing or of the wrong type")
    for i, rec in enumerate(cables):
        where = f"paste: cable {i + 1}"
        ok = isinstance(rec, dict) and isinstance(rec.get("length"), num) and isinstance(rec.get("part"), str)
        for end in ("a", "b"):
            ref = rec.get(end) if isinstance(rec, dict) else None
            ok = ok and isinstance(ref, list) and len(ref) == 3 and all(
                isinstance(v, int) and not isinstance(v, bool) for v in ref) and 0 <= ref[0] < len(devices)
        if not ok:
            raise FabricError(f"{where}: not a cable between copied devices")


def clip_center(data: dict[str, Any]) -> tuple[float, float]:
    """The centre of the copied devices' positions (where a paste at a point puts it)."""
    xs = [float(r["x"]) for r in data["devices"]]
    ys = [float(r["y"]) for r in data["devices"]]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def paste_devices(f: Fabric, data: dict[str, Any], offset: float | tuple[float, float]) -> tuple[list[int], list[int]]:
    """Add the clipboard's devices and cables to ``f`` shifted by ``offset`` (dx, dy or one
    number for both); on a refusal nothing stays added."""
    dx, dy = (offset, offset) if isinstance(offset, (int, float)) else offset
    _check_clip(data)
    made: list[int] = []
    taken: set[str] = set()
    t = f.devices_t

    def port(ref: list[int]) -> int:
        top, local, num = made[ref[0]], ref[1], ref[2]
        if local < 0:
            return f.port_id(top, num)
        kids = [int(k) for k in f.children_ids(top)
                if KINDS[int(t.kind[k])] == "nic" and int(t.local[k]) == local]
        if not kids:
            raise FabricError(f"{f.name_of(top)} has no NIC {local}")
        return f.port_id(kids[0], num)

    try:
        with f.adding():
            for rec in data["devices"]:
                name = _free_name(f, rec["name"], taken)
                x, y = rec["x"] + dx, rec["y"] + dy
                if rec["kind"] == "server":
                    made.append(int(f.add_servers(rec.get("part") or "", [name], [x], [y],
                                                  mode=rec.get("mode"), tier=rec.get("tier", 0))[0]))
                else:
                    made.append(f.add_device(rec["kind"], rec.get("part"), name=name, x=x, y=y,
                                             tier=rec.get("tier", -1), mode=rec.get("mode")))
            cables = [f.add_cable(port(rec["a"]), port(rec["b"]), rec["length"], part=rec["part"])
                      for rec in data.get("cables", [])]
    except FabricError as exc:
        raise FabricError(f"paste: {exc}") from None
    return made, cables
