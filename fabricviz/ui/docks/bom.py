"""The Bill of materials dock: ``fabricviz bom`` as a table with editable prices.

Unit prices are edited per part: the new price goes into the dock's overrides
(part id → {"price_usd"}), the engine (:func:`fabricviz.check.bom.bill_of_materials`)
prices the whole design again with them, so every line of that part (each cable
length bin, say) and the totals follow, and the exported CSV is exactly the
engine's. A transceiver line is one optic at half the catalog's per-link price,
so an edited optic price sets the link price to twice it. Lines priced inside
something else (a server's own GPUs and NICs, the fibre of optic links) are not
editable. A hypothetical part (no real product) shows "hypothetical — set a price" and
stays out of the totals, which count such unpriced items, until a price is entered. The
BOM is cheap (about 4 ms for a k=24 fat tree), so it is recomputed after every edit while
the dock is visible.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.check.bom import UNPRICED, Bom, BomLine, bill_of_materials
from fabricviz.model import Fabric, FabricError
from fabricviz.model.atomic import write_atomic
from fabricviz.ui.document.document import Document
from fabricviz.ui.widgets.table_model import ColumnsModel

#: (header, what the column shows)
COLUMNS = ("category", "part", "name", "count", "unit price", "total", "power", "estimate")
PRICE_COL = COLUMNS.index("unit price")
SORT_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
#: Highest unit price the editor accepts (USD).
MAX_PRICE = 1e9
#: A table row: the text's height and this much (px).
ROW_PAD_PX = 6



def money(v: float) -> str:
    return f"${v:,.0f}" if float(v).is_integer() else f"${v:,.2f}"


def watts(v: float) -> str:
    return f"{v / 1000:,.1f} kW" if v >= 10_000 else f"{v:,.1f} W".replace(".0 W", " W")


def priced_here(line: BomLine) -> bool:
    """False for lines whose price lives in another line (fibre, a server's own GPUs/NICs)."""
    return line.category != "fibre" and not line.name.endswith("(in the servers' price)")


def unit_factor(line: BomLine) -> float:
    """Catalog price per line unit: a transceiver is half of a link's optics pair."""
    return 2.0 if line.category == "transceiver" else 1.0


class BomModel(ColumnsModel):
    """The BOM lines; editing a unit price calls ``on_price(line, value)``."""

    def __init__(self, on_price: Callable[[BomLine, float], bool], parent: QtCore.QObject | None = None):
        super().__init__(COLUMNS, parent)
        self.lines: list[BomLine] = []
        self.overridden: set[str] = set()
        self.catalog_price: dict[str, float] = {}
        self.on_price = on_price

    def set_bom(self, bom: Bom, overridden: set[str], catalog_price: dict[str, float]) -> None:
        """Show ``bom``; same lines in the same order only repaint (keeps selection and editors)."""
        key = lambda x: (x.category, x.part, x.name, x.count)  # noqa: E731
        same = [key(x) for x in bom.lines] == [key(x) for x in self.lines]
        self.overridden, self.catalog_price = set(overridden), dict(catalog_price)
        if same and self.lines:
            self.lines = list(bom.lines)
            self.dataChanged.emit(self.index(0, 0), self.index(len(self.lines) - 1, len(COLUMNS) - 1))
        else:
            self.beginResetModel()
            self.lines = list(bom.lines)
            self.endResetModel()

    def items(self) -> list:
        return self.lines

    def flags(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> QtCore.Qt.ItemFlag:
        fl = super().flags(index)
        if index.isValid() and index.column() == PRICE_COL and priced_here(self.lines[index.row()]):
            fl |= QtCore.Qt.ItemFlag.ItemIsEditable
        return fl

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
             role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        x = self.lines[index.row()]
        col = COLUMNS[index.column()]
        R = QtCore.Qt.ItemDataRole
        raw: Any = {"category": x.category, "part": x.part, "name": x.name, "count": x.count,
               "unit price": x.unit_price, "total": x.total_price, "power": x.total_power,
               "estimate": x.estimate}[col]
        if role == R.DisplayRole:
            if col == "count":
                return f"{x.count:,}"
            if col == "unit price" and x.unpriced:
                return UNPRICED
            if col in ("unit price", "total"):
                return money(raw) if priced_here(x) and not x.unpriced else "—"
            if col == "power":
                return watts(raw) if priced_here(x) else "—"
            if col == "estimate":
                return "hypothetical" if x.unpriced else "est." if x.estimate else ""
            return raw
        if role == R.EditRole:
            return float(x.unit_price) if col == "unit price" else raw
        if role == SORT_ROLE:
            return index.row() if col == "category" else raw
        if role == R.TextAlignmentRole and col in ("count", "unit price", "total", "power"):
            return QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
        if role == R.FontRole and col == "unit price" and x.part in self.overridden and priced_here(x):
            font = QtGui.QFont()
            font.setBold(True)
            return font
        if role == R.ToolTipRole:
            if col == "unit price" and x.unpriced:
                return f"{x.part} is hypothetical (no real product): double-click to enter a price"
            if col == "unit price" and priced_here(x):
                cat = self.catalog_price.get(x.part)
                per = " (one optic: half the link's price)" if x.category == "transceiver" else ""
                base = f"catalog: {money(cat / unit_factor(x))}" if cat is not None else ""
                state = "your price" if x.part in self.overridden else (
                    "estimated catalog price" if x.estimate else "catalog price")
                return f"{state}{per}; {base}; double-click to edit (applies to every {x.part} line)"
            if col == "estimate" and x.estimate:
                return "priced from the catalog's estimate: enter a quote to replace it"
            return x.name
        return None

    def setData(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex, value: Any,  # noqa: N802
                role: int = QtCore.Qt.ItemDataRole.EditRole) -> bool:
        if role != QtCore.Qt.ItemDataRole.EditRole or not (self.flags(index) & QtCore.Qt.ItemFlag.ItemIsEditable):
            return False
        try:
            v = float(value)
        except (TypeError, ValueError):
            return False
        return self.on_price(self.lines[index.row()], v)


class PriceDelegate(QtWidgets.QStyledItemDelegate):
    """A dollar spin box for unit prices."""

    def createEditor(self,  # noqa: N802
                     parent: QtWidgets.QWidget, option: Any, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex):
        box = QtWidgets.QDoubleSpinBox(parent)
        box.setObjectName("price_editor")
        box.setFrame(False)
        box.setRange(0.0, MAX_PRICE)
        box.setDecimals(2)
        box.setPrefix("$")
        box.setGroupSeparatorShown(True)
        box.setAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        return box

    def setEditorData(self,  # noqa: N802
                      editor: QtWidgets.QWidget, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> None:
        assert isinstance(editor, QtWidgets.QDoubleSpinBox)   # made by createEditor
        editor.setValue(float(index.data(QtCore.Qt.ItemDataRole.EditRole)))

    def setModelData(self, editor: QtWidgets.QWidget, model: QtCore.QAbstractItemModel,  # noqa: N802
                     index: QtCore.QModelIndex | QtCore.QPersistentModelIndex) -> None:
        assert isinstance(editor, QtWidgets.QDoubleSpinBox)
        editor.interpretText()
        model.setData(index, editor.value(), QtCore.Qt.ItemDataRole.EditRole)


class BomDock(QtWidgets.QDockWidget):
    """Bill of materials of the current fabric with editable unit prices and CSV export."""

    changed = QtCore.Signal()          # the table was recomputed

    def __init__(self, document: Document, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Bill of materials", parent)
        self.setObjectName("bom")
        self.document = document
        #: part id → {"price_usd": catalog-unit price}, as bill_of_materials(prices=…) takes it
        self.overrides: dict[str, dict[str, float]] = {}
        self.bom: Bom | None = None
        self.error: str | None = None
        self._dirty = True
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(150)
        self._timer.timeout.connect(self._refresh_if_shown)

        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        bar = QtWidgets.QHBoxLayout()
        self.export_button = QtWidgets.QPushButton("Export CSV…", body)
        self.export_button.setObjectName("bom_export")
        self.export_button.clicked.connect(self.export_dialog)
        self.reset_button = QtWidgets.QPushButton("Catalog prices", body)
        self.reset_button.setObjectName("bom_reset_prices")
        self.reset_button.setToolTip("forget the prices entered here")
        self.reset_button.clicked.connect(self.reset_prices)
        document.stack.indexChanged.connect(self.schedule)    # every edit, undo and redo
        document.replaced.connect(self.schedule)
        bar.addWidget(self.export_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        bar.addWidget(self.reset_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        # the totals beside the buttons, not under the table: in the bottom strip's 230 px the
        # table then shows 6 lines instead of 3 (a DGX H100 SuperPOD's BOM has 11)
        self.footer = QtWidgets.QLabel(body)
        self.footer.setObjectName("bom_totals")
        self.footer.setWordWrap(True)
        self.footer.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        bar.addSpacing(12)
        bar.addWidget(self.footer, 1)
        lay.addLayout(bar)
        self.model = BomModel(self._price_edited, self)
        self.proxy = QtCore.QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QtWidgets.QTableView(body)
        self.table.setObjectName("bom_table")
        self.table.setModel(self.proxy)
        self.table.setItemDelegateForColumn(PRICE_COL, PriceDelegate(self.table))
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
                                   | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QtWidgets.QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, QtCore.Qt.SortOrder.AscendingOrder)
        rows = self.table.verticalHeader()
        rows.setVisible(False)
        rows.setMinimumSectionSize(1)
        rows.setDefaultSectionSize(self.table.fontMetrics().height() + ROW_PAD_PX)   # the style's 30 px: 3 lines shown
        self.table.setWordWrap(False)
        head = self.table.horizontalHeader()
        for k, col in enumerate(COLUMNS):        # every column but the name as wide as its texts (part ids whole)
            head.setSectionResizeMode(k, QtWidgets.QHeaderView.ResizeMode.Stretch if col == "name"
                                      else QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        lay.addWidget(self.table, 1)
        self.setWidget(body)
        self.refresh()

    @property
    def fabric(self) -> Fabric:
        return self.document.fabric

    # ------------------------------------------------------------------ computing
    def _prices(self, f: Fabric) -> dict[str, dict[str, float]]:
        """The overrides that apply to ``f``'s catalog (another design may not have the part)."""
        return {k: v for k, v in self.overrides.items() if k in f.catalog}

    def refresh(self) -> None:
        """Recompute the BOM of the current fabric with the overrides."""
        f = self.fabric
        try:
            bom = bill_of_materials(f, self._prices(f))
        except FabricError as exc:
            self.error = str(exc)
            self.footer.setText(f"cannot price the design: {exc}")
            return
        self.error = None
        self.bom = bom
        self._dirty = False
        cat = {x.part: float(f.catalog.get(x.part).price_usd) for x in bom.lines if x.part in f.catalog}
        self.model.set_bom(bom, set(self._prices(f)), cat)
        self._show_totals()
        self.changed.emit()

    def schedule(self, *_: Any) -> None:
        """The design changed: recompute soon if shown, else when the dock is next shown."""
        self._dirty = True
        self._timer.start()

    def _refresh_if_shown(self) -> None:
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: QtGui.QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if self._dirty:
            self.refresh()

    def _show_totals(self) -> None:
        b = self.bom
        assert b is not None                          # shown after a BOM is computed
        per = b.per_host_port()
        est = " (includes estimates)" if b.includes_estimates else ""
        own = f" · {len(b.overridden)} price(s) entered here" if b.overridden else ""
        if b.unpriced_items:
            own += f" · {b.unpriced_items:,} unpriced item(s) not in the total (hypothetical — set a price)"
        self.footer.setText(
            f"<b>total {money(b.total_price)}</b>, {watts(b.total_power)}{est}{own}<br>"
            f"network (switches, cables, optics, NICs not in servers): {money(b.network_price)}, "
            f"{watts(b.network_power)}<br>"
            f"per host port ({b.host_ports:,}): {money(per['price_usd'])}, {watts(per['power_w'])}; "
            f"network {money(per['network_price_usd'])}, {watts(per['network_power_w'])}"
            + (f" · {b.gpus:,} GPUs: {money(b.total_price / b.gpus)} per GPU" if b.gpus else ""))

    # ------------------------------------------------------------------ prices
    def set_price(self, part: str, unit_price: float, category: str | None = None) -> None:
        """Price ``part`` at ``unit_price`` per line unit (per optic for a ``transceiver`` line)."""
        if not math.isfinite(unit_price) or not 0 <= unit_price <= MAX_PRICE:
            raise FabricError(f"price of {part}: must be between 0 and {MAX_PRICE:,.0f}, got {unit_price!r}")
        if part not in self.fabric.catalog:
            raise FabricError(f"price of {part}: not a part of the design's catalog")
        factor = 2.0 if category == "transceiver" else 1.0
        self.overrides[part] = {**self.overrides.get(part, {}), "price_usd": unit_price * factor}
        self.refresh()

    def _price_edited(self, line: BomLine, value: float) -> bool:
        if value == line.unit_price:
            return True
        try:
            self.set_price(line.part, value, line.category)
        except FabricError as exc:
            self.footer.setText(str(exc))
            return False
        return True

    def reset_prices(self) -> None:
        self.overrides.clear()
        self.refresh()

    # ------------------------------------------------------------------ export
    def export_csv(self, path: str) -> None:
        """Write the engine's CSV of the table's BOM to ``path`` atomically."""
        if self.bom is None or self._dirty:
            self.refresh()
        if self.bom is None:
            raise FabricError(f"{path}: nothing to export ({self.error})")
        write_atomic(path, self.bom.to_csv())

    def export_dialog(self) -> str | None:
        """Ask where, then export; returns the path written, or None."""
        start = (self.fabric.name or "bom") + "-bom.csv"
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export bill of materials", start,
                                                        "CSV (*.csv);;All files (*)")
        if not path:
            return None
        try:
            self.export_csv(path)
        except FabricError as exc:
            QtWidgets.QMessageBox.warning(self, "Export bill of materials", str(exc))
            return None
        self.footer.setToolTip(f"exported {path}")
        return path


# ---------------------------------------------------------------------- main window
__all__ = ["BomDock", "BomModel", "COLUMNS", "PriceDelegate", "priced_here"]
