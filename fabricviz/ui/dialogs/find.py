"""Edit ▸ Find Device (Ctrl+F): a device by name, node/port GUID or LID.

Names complete as you type (case-insensitive, anywhere in the name). A number is tried as a
LID (decimal, or ``0x…`` up to 0xBFFF) from the SM's LID assignment, and a long hex number as
a node or port GUID. The dialog says what it found or why nothing matched; Enter accepts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6 import QtCore, QtWidgets

from fabricviz.model import Fabric
from fabricviz.model.guid import parse_guid

if TYPE_CHECKING:
    from fabricviz.ui.document.document import Document

#: Above this, a number is a GUID, not a LID (unicast LIDs end at 0xBFFF).
MAX_LID = 0xBFFF


def find_device(document: Document, text: str) -> tuple[int | None, str]:
    """(device id, what matched) or (None, why not) for ``text``."""
    f: Fabric = document.fabric
    q = text.strip()
    if not q:
        return None, "type a name, a GUID or a LID"
    exact = f.find(q)
    if exact is not None:
        return int(exact), f"name {q}"
    names = [(int(d), f.name_of(int(d))) for d in f.device_ids()]
    low = q.lower()
    hits = [d for d, n in names if n.lower() == low] or [d for d, n in names if low in n.lower()]
    if len(hits) == 1:
        return hits[0], f"name {f.name_of(hits[0])}"
    number = _number(q)
    if number is not None:
        if 0 < number <= MAX_LID and not q.lower().replace(":", "").startswith("0x00"):
            d = _by_lid(document, number)
            if d is not None:
                return d, f"LID {number}"
        d = _by_guid(f, number)
        if d is not None:
            return d, f"GUID {number:#018x}"
    if len(hits) > 1:
        return None, f"{len(hits)} devices match '{q}': type more of the name"
    return None, f"no device named '{q}', and no LID or GUID {q}"


def _number(q: str) -> int | None:
    clean = q.lower().replace(":", "")
    try:
        return parse_guid(q, typed=True) if clean.startswith("0x") or len(clean) > 6 else int(clean, 10)
    except ValueError:
        try:
            return parse_guid(q, typed=True)
        except ValueError:
            return None


def _by_guid(f: Fabric, guid: int) -> int | None:
    t, pt = f.devices_t, f.ports_t
    ids = f.device_ids()
    hit = ids[t.guid[ids] == np.uint64(guid)] if guid < 2 ** 64 else ids[:0]
    if len(hit):
        return int(hit[0])
    pids = pt.live_ids()
    if guid < 2 ** 64:
        got = pids[pt.guid[pids] == np.uint64(guid)]
        if len(got):
            return int(pt.device[got[0]])
    return None


def _by_lid(document: Document, lid: int) -> int | None:
    from fabricviz.ib.lid_table import has_ib
    from fabricviz.ui.document.routing import RoutingRefused, lids_engine
    if not has_ib(document.fabric):
        return None
    try:
        table = document.routing.compute("lids", lids_engine)
    except RoutingRefused:
        return None
    if table.error:
        return None
    f = document.fabric
    for port, base in table.lids.items():
        if base == lid:
            return int(f.ports_t.device[port])
    return None


class FindDialog(QtWidgets.QDialog):
    """The Find Device box; ``found`` is the device chosen (None when cancelled)."""

    def __init__(self, document: Document, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("find_dialog")
        self.setWindowTitle("Find device")
        self.document = document
        self.found: int | None = None
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(QtWidgets.QLabel("Name, GUID or LID:", self))
        self.edit = QtWidgets.QLineEdit(self)
        self.edit.setObjectName("find_text")
        self.edit.setPlaceholderText("leaf01, 0x248a0703005a1b2c, 17")
        f = document.fabric
        names = sorted(f.name_of(int(d)) for d in f.device_ids())
        comp = QtWidgets.QCompleter(names, self)
        comp.setCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)
        comp.setFilterMode(QtCore.Qt.MatchFlag.MatchContains)
        self.edit.setCompleter(comp)
        lay.addWidget(self.edit)
        self.answer = QtWidgets.QLabel(" ", self)
        self.answer.setObjectName("find_result")
        lay.addWidget(self.answer)
        buttons = QtWidgets.QDialogButtonBox(
            QtWidgets.QDialogButtonBox.StandardButton.Ok | QtWidgets.QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.edit.textChanged.connect(self._look)
        self.resize(420, self.sizeHint().height())

    def _look(self, text: str) -> None:
        d, why = find_device(self.document, text)
        self.answer.setText(f"→ {self.document.fabric.name_of(d)} ({why})" if d is not None else why)

    def accept(self) -> None:
        d, why = find_device(self.document, self.edit.text())
        if d is None:
            self.answer.setText(why)
            return
        self.found = d
        super().accept()


__all__ = ["FindDialog", "find_device"]
