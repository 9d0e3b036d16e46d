"""The palette: catalog parts grouped by kind, dragged onto the canvas as MIME data.

Cable types are not dropped: picking one makes it the part new cables use
(``cable_part_chosen``), so a 10 m run with a 3 m DAC is refused with the reason.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Catalog
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.view import PART_MIME

GROUPS = ("server", "gpu", "nic", "ib_switch", "eth_switch", "cable")
PART_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1


class PartTree(QtWidgets.QTreeWidget):
    """A tree of parts whose leaves start a drag carrying ``PART_MIME`` = part id."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("palette_tree")
        self.setHeaderHidden(True)
        self.setDragEnabled(True)
        self.setDragDropMode(QtWidgets.QAbstractItemView.DragDropMode.DragOnly)
        self.setIconSize(QtCore.QSize(24, 24))
        self.setRootIsDecorated(True)

    def mimeTypes(self) -> list[str]:  # noqa: N802
        return [PART_MIME]

    def mimeData(self, items) -> QtCore.QMimeData:  # noqa: N802
        mime = QtCore.QMimeData()
        part = next((i.data(0, PART_ROLE) for i in items if i.data(0, PART_ROLE)), None)
        if part:
            mime.setData(PART_MIME, QtCore.QByteArray(part.encode()))
            mime.setText(part)
        return mime

    def supportedDropActions(self) -> QtCore.Qt.DropAction:  # noqa: N802
        return QtCore.Qt.DropAction.CopyAction


class Palette(QtWidgets.QDockWidget):
    """Dock ``palette``: parts by kind, with a filter box."""

    cable_part_chosen = QtCore.Signal(str)

    def __init__(self, catalog: Catalog, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Parts", parent)
        self.setObjectName("palette")
        box = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(box)
        lay.setContentsMargins(4, 4, 4, 4)
        self.filter = QtWidgets.QLineEdit(box)
        self.filter.setPlaceholderText("Filter parts (QM9700, NDR, DGX…)")
        self.filter.setClearButtonEnabled(True)
        self.tree = PartTree(box)
        lay.addWidget(self.filter)
        lay.addWidget(self.tree)
        hint = QtWidgets.QLabel("Drag a part onto the canvas. Pick a cable type for new cables.", box)
        hint.setWordWrap(True)
        hint.setEnabled(False)
        lay.addWidget(hint)
        self.setWidget(box)
        self.filter.textChanged.connect(self._apply_filter)
        self.tree.itemClicked.connect(self._clicked)
        self.set_catalog(catalog)

    def set_catalog(self, catalog: Catalog) -> None:
        self.tree.clear()
        for kind in GROUPS:
            parts = catalog.by_kind(kind)
            if not parts:
                continue
            group = QtWidgets.QTreeWidgetItem(self.tree, [f"{th.KIND_LABELS[kind]} ({len(parts)})"])
            group.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
            group.setIcon(0, th.icon(kind if kind != "cable" else "cable_aoc"))
            for p in parts:
                item = QtWidgets.QTreeWidgetItem(group, [p.id])
                icon = f"cable_{p.cable_type}" if kind == "cable" else kind
                item.setIcon(0, th.icon(icon))
                item.setData(0, PART_ROLE, p.id)
                tip = p.name
                if kind in ("ib_switch", "eth_switch", "nic"):
                    tip += f"<br>{p.ports} × {p.port}"
                elif kind == "server":
                    tip += f"<br>{p.gpus} × {p.gpu_part}, {p.nics} × {p.nic_part}"
                elif kind == "cable":
                    tip += f"<br>{p.cable_type}, {p.max_rate}, reach {p.reach_m:g} m"
                item.setToolTip(0, tip)
                flags = QtCore.Qt.ItemFlag.ItemIsEnabled | QtCore.Qt.ItemFlag.ItemIsSelectable
                if kind != "cable":
                    flags |= QtCore.Qt.ItemFlag.ItemIsDragEnabled
                item.setFlags(flags)
            group.setExpanded(kind != "cable" and kind != "gpu")

    def part_item(self, part_id: str) -> QtWidgets.QTreeWidgetItem | None:
        it = QtWidgets.QTreeWidgetItemIterator(self.tree)
        while it.value():
            if it.value().data(0, PART_ROLE) == part_id:
                return it.value()
            it += 1
        return None

    def _clicked(self, item: QtWidgets.QTreeWidgetItem) -> None:
        part = item.data(0, PART_ROLE)
        if part and item.parent() is not None and item.parent().indexOfChild(item) >= 0 \
                and not item.flags() & QtCore.Qt.ItemFlag.ItemIsDragEnabled:
            self.cable_part_chosen.emit(part)

    def _apply_filter(self, text: str) -> None:
        text = text.strip().lower()
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            shown = 0
            for j in range(group.childCount()):
                child = group.child(j)
                hit = not text or text in child.text(0).lower() or text in child.toolTip(0).lower()
                child.setHidden(not hit)
                shown += hit
            group.setHidden(shown == 0)
            if text:
                group.setExpanded(True)
