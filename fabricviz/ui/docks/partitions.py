"""The Partitions dock: the design's InfiniBand partitions (OpenSM partitions.conf) and who is in them.

A table of partitions — name, P_Key (``0x8001``: the full-member form files write), IPoIB,
and the counts of full and limited end ports as OpenSM's partition manager resolves them on
the design (:func:`fabricviz.ib.partitions.resolve`) — and below it the members of the
selected one. The buttons edit ``fabric.meta["partitions"]``: every change is one undo step
through :meth:`Editor.set_meta`, so undo gives the design back exactly. A refused change (a
P_Key or name taken, a P_Key out of 0x0001–0x7ffe) says why in one line and changes nothing.
Ethernet designs have no partitions: the dock says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from PySide6 import QtCore, QtWidgets

from fabricviz.ib.partition_design import end_port_names, host_port_guids, resolve_design
from fabricviz.ib.partitions import (
    DEFAULT_PKEY,
    META_KEY,
    Member,
    Partition,
    PartitionConfig,
    Resolution,
    design_partitions,
    to_meta,
)
from fabricviz.model import Fabric, FabricError
from fabricviz.sim.partitioned import pkey_text
from fabricviz.sim.reach import fabric_tech
from fabricviz.ui.canvas.overlays.partitions import partition_colours
from fabricviz.ui.document.partitions import BACKGROUND_DEVICES, CACHE_KEY
from fabricviz.ui.document.routing import RoutingRefused
from fabricviz.ui.widgets.table_model import ColumnsModel

ETHERNET_NOTE = "Partitions (P_Keys) are InfiniBand's; this is an Ethernet design."
NAME_RE = re.compile(r"[A-Za-z0-9_.\-]+")
DISPLAY = QtCore.Qt.ItemDataRole.DisplayRole
DECORATION = QtCore.Qt.ItemDataRole.DecorationRole
#: OpenSM's stock first line, ``Default=0x7fff, ipoib : ALL=full ;``.
STOCK_DEFAULT = Partition("Default", DEFAULT_PKEY, True, members=(Member("ALL", "full"),))


def parse_pkey(text: str) -> int:
    """``0x8001`` / ``0x0001`` / ``8001`` → 0x0001: the P_Key without the full bit, as partitions.conf
    reads it; outside 0x0001–0x7ffe (0x7fff is the Default partition) raises one-line FabricError."""
    t = text.strip().lower()
    try:
        value = int(t, 16)
    except ValueError:
        raise FabricError(f"P_Key {text.strip()!r} is not a hex number (write 0x8001)") from None
    if not 0 <= value <= 0xFFFF or not 0x0001 <= value & 0x7FFF <= 0x7FFE:
        raise FabricError(f"P_Key {text.strip()} is outside 0x0001–0x7ffe (0x7fff is the Default partition)")
    return value & 0x7FFF


@dataclass(frozen=True)
class PartitionRow:
    name: str
    pkey: int
    ipoib: bool
    full: int
    limited: int


class PartitionsModel(ColumnsModel):
    """One row per partition (P_Key) of the design."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(("Name", "P_Key", "IPoIB", "Full", "Limited"), parent)
        self.rows: list[PartitionRow] = []
        self.colours: dict[int, Any] = {}

    def items(self) -> Sequence[PartitionRow]:
        return self.rows

    def set_rows(self, rows: list[PartitionRow]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.colours = partition_colours([r.pkey for r in rows])    # the canvas's partition-mark colours
        self.endResetModel()

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex, role: int = DISPLAY) -> Any:
        if not index.isValid():
            return None
        r = self.rows[index.row()]
        if role == DECORATION and index.column() == 0:
            return self.colours.get(r.pkey)        # a swatch by the name (the Default partition has none)
        if role != DISPLAY:
            return None
        return (r.name, pkey_text(r.pkey), "yes" if r.ipoib else "", r.full, r.limited)[index.column()]


class MembersModel(ColumnsModel):
    """The end ports of one partition: (port name, GUID, full|limited)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(("Port", "GUID", "Membership"), parent)
        self.rows: list[tuple[str, int, str]] = []

    def items(self) -> Sequence[tuple[str, int, str]]:
        return self.rows

    def set_rows(self, rows: list[tuple[str, int, str]]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex, role: int = DISPLAY) -> Any:
        if role != DISPLAY or not index.isValid():
            return None
        name, guid, how = self.rows[index.row()]
        return (name, f"0x{guid:016x}", how)[index.column()]


class PartitionsDock(QtWidgets.QDockWidget):
    """View ▸ Partitions: list, create, rename and delete partitions, add and remove members."""

    def __init__(self, document: Any, parent: QtWidgets.QWidget | None = None,
                 selection: Callable[[], list[int]] | None = None) -> None:
        super().__init__("Partitions", parent)
        self.setObjectName("partitions")
        self.document = document
        self.selection = selection or (lambda: [])
        self.resolution: Resolution | None = None
        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        self.note = QtWidgets.QLabel(body)
        self.note.setObjectName("partitions_note")
        self.note.setWordWrap(True)
        lay.addWidget(self.note)
        self.editing = QtWidgets.QWidget(body)
        ed = QtWidgets.QVBoxLayout(self.editing)
        ed.setContentsMargins(0, 0, 0, 0)
        self.model = PartitionsModel(self)
        self.table = self._table(self.model, "partitions_table")
        ed.addWidget(self.table, 2)
        form = QtWidgets.QHBoxLayout()
        self.name_edit = QtWidgets.QLineEdit(self.editing)
        self.name_edit.setObjectName("partition_name")
        self.name_edit.setPlaceholderText("name")
        self.pkey_edit = QtWidgets.QLineEdit(self.editing)
        self.pkey_edit.setObjectName("partition_pkey")
        self.pkey_edit.setPlaceholderText("P_Key 0x8001")
        self.pkey_edit.setMaximumWidth(110)
        form.addWidget(self.name_edit)
        form.addWidget(self.pkey_edit)
        ed.addLayout(form)
        row1, row2 = QtWidgets.QHBoxLayout(), QtWidgets.QHBoxLayout()
        self.buttons: dict[str, QtWidgets.QPushButton] = {}
        for row, key, text, slot, tip in (
                (row1, "new", "New", self._new_clicked, "a partition with the name and P_Key typed above"),
                (row1, "rename", "Rename", self._rename_clicked, "the selected partition gets the name typed above"),
                (row1, "delete", "Delete", self.delete_partition, "drop the selected partition"),
                (row2, "add_full", "Add as full", lambda: self.add_selected("full"),
                 "the hosts selected on the canvas (their IB NIC ports) become full members"),
                (row2, "add_limited", "Add as limited", lambda: self.add_selected("limited"),
                 "the hosts selected on the canvas become limited members (they talk to full members only)"),
                (row2, "remove", "Remove member", self.remove_member, "take the selected port out of the partition")):
            b = QtWidgets.QPushButton(text, self.editing)
            b.setObjectName(f"partition_{key}")
            b.setToolTip(tip)
            b.clicked.connect(slot)
            row.addWidget(b)
            self.buttons[key] = b
        ed.addLayout(row1)
        ed.addLayout(row2)
        self.members_model = MembersModel(self)
        self.members = self._table(self.members_model, "partition_members")
        ed.addWidget(self.members, 3)
        lay.addWidget(self.editing, 1)
        self.setWidget(body)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._show_members())
        document.changed.connect(lambda _e: self.refresh())
        document.session.cleared.connect(self._cleared)
        document.routing.ready.connect(lambda key: self.refresh() if key == CACHE_KEY else None)
        self.refresh()

    def _table(self, model: ColumnsModel, name: str) -> QtWidgets.QTableView:
        v = QtWidgets.QTableView(self)
        v.setObjectName(name)
        v.setModel(model)
        v.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        v.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        v.verticalHeader().hide()
        v.setWordWrap(False)
        h = v.horizontalHeader()
        h.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        h.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)    # the name takes what is left
        return v

    # ------------------------------------------------------------------ following the document
    @property
    def fabric(self) -> Fabric:
        return self.document.fabric

    def config(self) -> PartitionConfig | None:
        """The design's partitions (None: none, or a stored entry fabricviz cannot read)."""
        try:
            return design_partitions(self.fabric)
        except FabricError:
            return None

    def _cleared(self) -> None:
        """Another design was opened: no note of the last one's edits."""
        self.set_note("")
        self.refresh()

    def refresh(self) -> None:
        """Show the design's partitions (keeps the selected P_Key when it is still there)."""
        f = self.fabric
        ib = fabric_tech(f) == "ib"
        self.editing.setVisible(ib)
        if not ib:
            self.resolution = None
            self.model.set_rows([])
            self.members_model.set_rows([])
            self.set_note(ETHERNET_NOTE)
            return
        keep = self.selected_pkey()
        conf = self.config()
        # no partitions.conf: nothing to resolve (every port is a full Default member) — and no
        # subnet discovery on every edit of a design that has none
        self.resolution = self._resolution() if conf is not None else None
        counts = self.resolution.by_pkey() if self.resolution is not None else {}
        rows = []
        for p in conf.merged() if conf is not None else []:
            r = counts.get(p.pkey)
            rows.append(PartitionRow(p.name, p.pkey, p.ipoib, r.n_full if r else 0, r.n_limited if r else 0))
        self.model.set_rows(rows)
        if keep is not None:
            self.select_pkey(keep)
        self._show_members()
        if conf is None:
            self.set_note("No partitions.conf: every port is a full member of the Default partition (0x7fff).")
        elif self.resolution is None:
            self.set_note("Resolving the partitions on the subnet…")
        elif not self.note.text() or self.note.text().startswith(("No partitions", "Resolving", ETHERNET_NOTE)):
            self.set_note("")

    def _resolution(self) -> Resolution | None:
        routing = self.document.routing
        try:
            if len(self.fabric) <= BACKGROUND_DEVICES:
                return routing.compute(CACHE_KEY, resolve_design)
            value = routing.get(CACHE_KEY)
        except RoutingRefused:
            return None
        if value is None:
            routing.request(CACHE_KEY, resolve_design)
        return value

    def set_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def selected_pkey(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.rows[rows[0].row()].pkey if rows else None

    def select_pkey(self, pkey: int) -> None:
        for i, r in enumerate(self.model.rows):
            if r.pkey == pkey:
                self.table.selectRow(i)
                return

    def _show_members(self) -> None:
        pkey = self.selected_pkey()
        res = self.resolution.by_pkey().get(pkey) if self.resolution is not None and pkey is not None else None
        if res is None:
            self.members_model.set_rows([])
            return
        names = end_port_names(self.fabric)
        rows = [(names.get(g, f"0x{g:016x}"), g, "full") for g in res.full]
        rows += [(names.get(g, f"0x{g:016x}"), g, "limited") for g in res.limited]
        rows.sort()
        self.members_model.set_rows(rows)

    # ------------------------------------------------------------------ edits (one undo step each)
    def refuse(self, text: str) -> bool:
        self.set_note(text)
        return False

    def _apply(self, text: str, statements: list[Partition]) -> bool:
        value = to_meta(PartitionConfig(statements)) if statements else None
        done = self.document.editor.set_meta(text, META_KEY, value)
        self.set_note(text if done else "")
        return done

    def _new_clicked(self) -> None:
        self.new_partition(self.name_edit.text(), self.pkey_edit.text())

    def _rename_clicked(self) -> None:
        self.rename_partition(self.name_edit.text())

    def _name_problem(self, name: str, conf: PartitionConfig | None) -> str:
        if not NAME_RE.fullmatch(name):
            return f"name {name!r}: letters, digits, '_', '.' or '-' only"
        for p in conf.merged() if conf is not None else []:
            if p.name == name:
                return f"name {name!r} is taken by the partition {pkey_text(p.pkey)}"
        return ""

    def new_partition(self, name: str, pkey: str) -> bool:
        """A partition ``name`` with P_Key ``pkey`` (hex) and no members yet. The design's first one
        comes with OpenSM's stock ``Default=0x7fff, ipoib : ALL=full``, so the ports keep talking."""
        name = name.strip()
        conf = self.config()
        try:
            key = parse_pkey(pkey)
        except FabricError as exc:
            return self.refuse(str(exc))
        taken = {p.pkey: p.name for p in conf.merged()} if conf is not None else {}
        if key in taken:
            return self.refuse(f"P_Key {pkey_text(key)} is taken by {taken[key]}")
        problem = self._name_problem(name, conf)
        if problem:
            return self.refuse(problem)
        statements = list(conf.statements) if conf is not None else []
        if not statements:
            statements.append(STOCK_DEFAULT)
        statements.append(Partition(name, key))
        done = self._apply(f"New partition {name} ({pkey_text(key)})", statements)
        if done:
            self.select_pkey(key)
        return done

    def _selected(self) -> tuple[PartitionConfig, int] | None:
        conf, pkey = self.config(), self.selected_pkey()
        if conf is None or pkey is None:
            self.refuse("select a partition first")
            return None
        return conf, pkey

    def rename_partition(self, name: str) -> bool:
        """The selected partition (each of its statements) is called ``name``."""
        got = self._selected()
        if got is None:
            return False
        conf, pkey = got
        name = name.strip()
        old = next(p.name for p in conf.merged() if p.pkey == pkey)
        if name == old:
            return self.refuse(f"the partition is called {name} already")
        problem = self._name_problem(name, conf)
        if problem:
            return self.refuse(problem)
        statements = [replace(s, name=name) if s.pkey == pkey else s for s in conf.statements]
        return self._apply(f"Rename partition {old} to {name}", statements)

    def delete_partition(self) -> bool:
        """Drop the selected partition (all its statements); the last one gone drops the partitions.conf."""
        got = self._selected()
        if got is None:
            return False
        conf, pkey = got
        old = next(p.name for p in conf.merged() if p.pkey == pkey)
        left = [s for s in conf.statements if s.pkey != pkey]
        if len(left) == 1 and left[0] == STOCK_DEFAULT:
            left = []          # what is left runs as with no file: all ports full members of Default
        return self._apply(f"Delete partition {old} ({pkey_text(pkey)})", left)

    def add_selected(self, membership: str) -> bool:
        """The canvas's selected hosts (their IB NIC ports) join the selected partition as
        ``membership`` members; an earlier mention of the same port there is replaced."""
        got = self._selected()
        if got is None:
            return False
        conf, pkey = got
        ends = self.resolution.end_ports if self.resolution is not None else {}
        hosts = host_port_guids(self.fabric, self.selection(), ends)
        if not hosts:
            return self.refuse("select hosts on the canvas first (servers or NICs with an IB port on the subnet)")
        guids = [g for gs in hosts.values() for g in gs]
        statements = self._without(conf, pkey, set(guids))
        last = max(i for i, s in enumerate(statements) if s.pkey == pkey)
        s = statements[last]
        statements[last] = replace(s, members=s.members + tuple(Member(g, membership) for g in guids))
        name = next(p.name for p in conf.merged() if p.pkey == pkey)
        n = len(hosts)
        return self._apply(f"Add {n} host{'s' if n != 1 else ''} to {name} as {membership} members", statements)

    @staticmethod
    def _without(conf: PartitionConfig, pkey: int, guids: set[int]) -> list[Partition]:
        """``conf``'s statements with the explicit mentions of ``guids`` in partition ``pkey`` taken out."""
        return [replace(s, members=tuple(m for m in s.members if m.target not in guids)) if s.pkey == pkey else s
                for s in conf.statements]

    def remove_member(self) -> bool:
        """Take the selected member port out of the selected partition (its explicit GUID entries)."""
        got = self._selected()
        if got is None:
            return False
        conf, pkey = got
        rows = self.members.selectionModel().selectedRows()
        if not rows:
            return self.refuse("select a member first")
        port, guid, _how = self.members_model.rows[rows[0].row()]
        statements = self._without(conf, pkey, {guid})
        name = next(p.name for p in conf.merged() if p.pkey == pkey)
        if statements == conf.statements:
            return self.refuse(f"{port} is in {name} through a keyword (ALL, ALL_CAS, …), not by its GUID")
        return self._apply(f"Remove {port} from {name}", statements)


__all__ = ["PartitionsDock", "parse_pkey"]
