"""The palette: catalog parts grouped by kind, dragged onto the canvas as MIME data.

Cable types are not dropped: picking one makes it the part new cables use
(``cable_part_chosen``), so a 10 m run with a 3 m DAC is refused with the reason.
NVLink racks (an NVL72: 18 compute trays and their NVLink domain) have a group of their own when
the catalog has their tray part; dropping one places the trays and the domain as one undo step.
The filter box narrows the list as one types: a part stays when every word typed is in its id,
its description or its kind (case-insensitive); it stays applied when the catalog changes
(another design opened).
"""

from __future__ import annotations

import html

from PySide6 import QtCore, QtWidgets

from fabricviz.model import Catalog, Part
from fabricviz.model.nvlink import PART_PREFIX, nvlink_specs
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.describe import part_label
from fabricviz.ui.canvas.view import PART_MIME

GROUPS = ("server", "gpu", "nic", "ib_switch", "eth_switch", "cable")
PART_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
#: Lower-case text the filter searches: part id, description (name), kind id and kind label.
SEARCH_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2


def search_text(part: Part) -> str:
    """What the filter matches a part on (lower case)."""
    words = [part.id, part.name, part.kind, th.KIND_LABELS.get(part.kind, part.kind)]
    if part.hypothetical:
        words.append("hypothetical")
    return " ".join(words).lower()


def _children(item: QtWidgets.QTreeWidgetItem) -> list[QtWidgets.QTreeWidgetItem]:
    """An item's children in order (Qt's ``child(j)`` is None only out of range)."""
    return [c for j in range(item.childCount()) if (c := item.child(j)) is not None]


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


def widest_entry(tree: QtWidgets.QTreeWidget) -> int:
    """Pixels column 0 needs for its widest entry, open or closed groups alike (Qt's
    ``sizeHintForColumn`` measures only the rows shown): indentation, icon, text."""
    fm = tree.fontMetrics()
    icon = tree.iconSize().width() if tree.iconSize().isValid() else \
        tree.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_SmallIconSize)
    margin = 2 * tree.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_FocusFrameHMargin) + 8
    most = tree.sizeHintForColumn(0)
    it = QtWidgets.QTreeWidgetItemIterator(tree)
    while (item := it.value()) is not None:
        depth, up = int(tree.rootIsDecorated()), item.parent()
        while up is not None:
            depth, up = depth + 1, up.parent()
        most = max(most, depth * tree.indentation() + icon + margin + fm.horizontalAdvance(item.text(0)))
        it += 1
    return most


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
        """Show ``catalog``'s parts (the filter typed so far still applies)."""
        self.tree.clear()
        for kind in GROUPS:
            parts = catalog.by_kind(kind)
            if not parts:
                continue
            group = QtWidgets.QTreeWidgetItem(self.tree, [f"{th.KIND_LABELS[kind]} ({len(parts)})"])
            group.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
            group.setData(0, SEARCH_ROLE, f"{th.KIND_LABELS[kind]} ({len(parts)})")
            group.setIcon(0, th.icon(kind if kind != "cable" else "cable_aoc"))
            for p in parts:
                item = QtWidgets.QTreeWidgetItem(group, [part_label(p)])
                icon = f"cable_{p.cable_type}" if kind == "cable" else kind
                item.setIcon(0, th.icon(icon))
                item.setData(0, PART_ROLE, p.id)
                item.setData(0, SEARCH_ROLE, search_text(p))
                # the whole label first: a narrow dock elides it ("QM9700-R8 (hypothe…")
                tip = f"<b>{html.escape(part_label(p))}</b><br>{html.escape(p.name)}"
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
            if kind == "server":
                self._nvlink_racks(catalog)
        self._apply_filter(self.filter.text())
        # every name whole ("QM9700-R16 (hypothetical)", not "QM9700-R16 (hypothe…"), those of the
        # groups shown closed (Cable types) too: the dock is at least as wide as the longest, beside
        # the list's scroll bar
        bar = self.tree.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_ScrollBarExtent)
        self.tree.setMinimumWidth(widest_entry(self.tree) + bar + 2 * self.tree.frameWidth() + 4)

    def _nvlink_racks(self, catalog: Catalog) -> None:
        """NVLink racks (an NVL72: its compute trays and its NVLink domain, placed as one), when the
        catalog has their compute tray."""
        racks = [s for s in nvlink_specs().values() if s.rack and s.tray_part and s.tray_part in catalog]
        if not racks:
            return
        group = QtWidgets.QTreeWidgetItem(self.tree, [f"NVLink racks ({len(racks)})"])
        group.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
        group.setData(0, SEARCH_ROLE, f"NVLink racks ({len(racks)})")
        group.setIcon(0, th.icon("server"))
        for s in racks:
            item = QtWidgets.QTreeWidgetItem(group, [s.id])
            item.setIcon(0, th.icon("server"))
            item.setData(0, PART_ROLE, PART_PREFIX + s.id)
            item.setData(0, SEARCH_ROLE, f"{s.id} {s.name} nvlink rack".lower())
            item.setToolTip(0, f"{s.name}<br>{s.compute_trays} × {s.tray_part}, {s.switch_trays} NVLink switch "
                               f"trays, {s.links_per_gpu} NVLink {s.generation} links per GPU")
            item.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled | QtCore.Qt.ItemFlag.ItemIsSelectable
                          | QtCore.Qt.ItemFlag.ItemIsDragEnabled)
        group.setExpanded(True)

    def part_item(self, part_id: str) -> QtWidgets.QTreeWidgetItem | None:
        it = QtWidgets.QTreeWidgetItemIterator(self.tree)
        while it.value():
            if it.value().data(0, PART_ROLE) == part_id:
                return it.value()
            it += 1
        return None

    def _clicked(self, item: QtWidgets.QTreeWidgetItem) -> None:
        part = item.data(0, PART_ROLE)
        if part and (parent := item.parent()) is not None and parent.indexOfChild(item) >= 0 \
                and not item.flags() & QtCore.Qt.ItemFlag.ItemIsDragEnabled:
            self.cable_part_chosen.emit(part)

    def visible_parts(self) -> list[str]:
        """Ids of the parts the filter leaves shown, in tree order."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            assert group is not None                  # i is in range
            if group.isHidden():
                continue
            out += [child.data(0, PART_ROLE) for child in _children(group) if not child.isHidden()]
        return out

    def _apply_filter(self, text: str) -> None:
        """Hide the parts that do not match every word of ``text``; groups show "shown of all"."""
        words = text.lower().split()
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            assert group is not None                  # i is in range
            shown = 0
            for child in _children(group):
                key = child.data(0, SEARCH_ROLE) or ""
                hit = all(w in key for w in words)
                child.setHidden(not hit)
                shown += hit
            label = group.data(0, SEARCH_ROLE)
            total = group.childCount()
            group.setText(0, label if not words else label.replace(f"({total})", f"({shown} of {total})"))
            group.setHidden(shown == 0)
            if words and shown:
                group.setExpanded(True)
