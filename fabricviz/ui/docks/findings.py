"""The Findings dock: ``fabricviz lint`` inside the editor.

The checks run as a job of the document (one at a time) so the window keeps
painting; the routing-based rules follow lint's own size limit
(:data:`fabricviz.check.lint.ROUTE_LIMIT`) unless "Route large fabrics" is
ticked. The fabric is read in place, not copied: a result computed while the
design's revision moved on is thrown away and the checks run again, so a
finding never names ids of another state.

Clicking a finding emits ``select_objects(devices, cables)`` — the finding's
devices plus the devices owning its ports (a port has no canvas item of its
own) and its cables. The main window selects them on the canvas
(:func:`select_on_canvas`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.check.lint import SEVERITIES, Finding, LintReport, lint
from fabricviz.model import Fabric
from fabricviz.ui.document.document import Document
from fabricviz.ui.widgets.table_model import ColumnsModel

#: Columns of the findings table.
COLUMNS = ("severity", "rule", "where", "message")
SEVERITY_COLORS = {"error": "#d33a2c", "warning": "#c98a00", "info": "#3d7ab8"}
SEVERITY_ICONS = {"error": "SP_MessageBoxCritical", "warning": "SP_MessageBoxWarning",
                  "info": "SP_MessageBoxInformation"}
#: How many object names a row's tooltip lists.
TIP_NAMES = 24
FINDING_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
SORT_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2


@dataclass(frozen=True)
class FindingRow:
    """A finding with the ids to select: its devices, its ports' devices, its cables."""

    finding: Finding
    devices: tuple[int, ...]
    cables: tuple[int, ...]


def selection_of(f: Fabric, x: Finding) -> FindingRow:
    """The canvas objects of ``x``: devices and the devices owning its ports, and cables."""
    pt = f.ports_t
    devs = set(x.devices)
    devs.update(int(pt.device[p]) for p in x.ports if pt.exists(int(p)))
    return FindingRow(x, tuple(sorted(devs)), tuple(x.cables))


class FindingsModel(ColumnsModel):
    """Rows of findings, errors first (lint's order)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(COLUMNS, parent)
        self.rows: list[FindingRow] = []
        style = QtWidgets.QApplication.style()
        self._icons = {s: style.standardIcon(getattr(QtWidgets.QStyle.StandardPixmap, n))
                       for s, n in SEVERITY_ICONS.items()}
        self._colors = {s: QtGui.QColor(c) for s, c in SEVERITY_COLORS.items()}
        self._order = {s: i for i, s in enumerate(SEVERITIES)}

    def set_rows(self, rows: list[FindingRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def items(self) -> list:
        return self.rows

    def data(self, index: QtCore.QModelIndex | QtCore.QPersistentModelIndex,
             role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        x, col = row.finding, COLUMNS[index.column()]
        R = QtCore.Qt.ItemDataRole
        if role == R.DisplayRole:
            return getattr(x, col)
        if role == FINDING_ROLE:
            return row
        if role == SORT_ROLE:
            return (self._order[x.severity], index.row()) if col == "severity" else getattr(x, col)
        if role == R.DecorationRole and col == "severity":
            return self._icons[x.severity]
        if role == R.ForegroundRole and col == "severity":
            return self._colors[x.severity]
        if role == R.ToolTipRole:
            names = list(x.names[:TIP_NAMES])
            more = f"\n… (+{len(x.names) - TIP_NAMES} more)" if len(x.names) > TIP_NAMES else ""
            return x.format() + ("\n\n" + "\n".join(names) + more if names else "")
        return None


def check(f: Fabric, full: bool, routes: tuple = ()) -> tuple[list[FindingRow], list[str]]:
    """Lint ``f`` and give the rows to show and the rules skipped (runs as a job); ``routes``:
    routings of ``f`` the document already has (lint does not route again)."""
    report: LintReport = lint(f, full=full, routes=routes)
    return [selection_of(f, x) for x in report.findings], report.skipped


class FindingsDock(QtWidgets.QDockWidget):
    """Lint findings of the current fabric; clicking one emits ``select_objects``."""

    select_objects = QtCore.Signal(list, list)   # device ids, cable ids
    finished = QtCore.Signal()                   # rows shown for the current state of the design

    def __init__(self, document: Document, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Findings", parent)
        self.setObjectName("findings")
        self.document = document
        self._running: int | None = None        # the revision a check started at
        self._pending = False
        self._checked: int | None = None        # the revision the shown rows describe
        self.skipped: list[str] = []
        self.error: str | None = None
        self.seconds = 0.0

        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        bar = QtWidgets.QHBoxLayout()
        self.run_button = QtWidgets.QPushButton("Run checks", body)
        self.run_button.setObjectName("run_checks")
        self.run_button.setToolTip("run fabricviz lint on the design (in the background)")
        self.run_button.clicked.connect(self.refresh)
        self.cancel_button = QtWidgets.QPushButton("Cancel", body)
        self.cancel_button.setObjectName("cancel_checks")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.full_box = QtWidgets.QCheckBox("Route large fabrics", body)
        self.full_box.setObjectName("lint_full")
        self.full_box.setToolTip("run the routing-based rules (ftree, credit loops, unreachable LIDs) "
                                 "even above lint's size limit; can take many seconds")
        self.filter_box = QtWidgets.QComboBox(body)
        self.filter_box.setObjectName("severity_filter")
        self.filter_box.addItems(["all", "errors and warnings", "errors"])
        self.filter_box.currentIndexChanged.connect(self._apply_filter)
        self.status = QtWidgets.QLabel("not checked yet", body)
        self.status.setObjectName("findings_status")
        bar.addWidget(self.run_button)
        bar.addWidget(self.cancel_button)
        bar.addWidget(self.full_box)
        bar.addStretch(1)
        bar.addWidget(QtWidgets.QLabel("show:", body))
        bar.addWidget(self.filter_box)
        lay.addLayout(bar)
        lay.addWidget(self.status)

        self.model = FindingsModel(self)
        self.proxy = QtCore.QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterKeyColumn(0)
        self.table = QtWidgets.QTableView(body)
        self.table.setObjectName("findings_table")
        self.table.setModel(self.proxy)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(-1, QtCore.Qt.SortOrder.AscendingOrder)   # lint's order until a header click
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        hh = self.table.horizontalHeader()
        hh.setStretchLastSection(True)
        hh.resizeSection(0, 90)
        hh.resizeSection(1, 130)
        hh.resizeSection(2, 200)
        self.table.clicked.connect(self._clicked)
        self.table.activated.connect(self._clicked)
        lay.addWidget(self.table, 1)
        self.setWidget(body)
        document.changed.connect(self._changed)
        document.session.cleared.connect(self.clear)
        self.visibilityChanged.connect(self._shown)

    def _shown(self, visible: bool) -> None:
        """Opening the dock checks the design (when what it shows is not of the design now)."""
        if visible and self.stale and not self.running:
            self.refresh()

    # ------------------------------------------------------------------ fabric
    @property
    def fabric(self) -> Fabric:
        return self.document.fabric

    def _changed(self, _event: Any) -> None:
        if self._checked is not None and self._running is None and not self._stale_shown:
            self._stale_shown = True
            self._show_status()

    _stale_shown = False

    @property
    def stale(self) -> bool:
        """True when the rows shown no longer describe the design (it changed or was replaced)."""
        return self._checked is None or self._checked != self.document.revision

    @property
    def running(self) -> bool:
        return self._running is not None

    # ------------------------------------------------------------------ running
    def refresh(self) -> None:
        """Run the checks on the current fabric in the background (again later if one is running)."""
        if self._running is not None:
            self._pending = True
            return
        f = self.fabric
        self._running = self.document.revision
        self._pending = False
        self.run_button.setEnabled(False)
        self.run_button.setText("Checking…")
        self.cancel_button.setEnabled(True)
        self.status.setText(f"checking {f.name}…")
        full = self.full_box.isChecked()
        routes = self.document.routing.routings()
        self.document.jobs.submit("lint", lambda _progress: check(f, full, routes), on_done=self._done,
                                  on_error=self._failed, on_stale=self._stale_result)

    def clear(self) -> None:
        """Forget the rows (e.g. the window opened another design)."""
        self._checked = None
        self.model.set_rows([])
        self.skipped, self.error = [], None
        self.status.setText("not checked yet")

    def wait(self, msecs: int = -1) -> bool:
        """Block until the check is done and shown (tests, shutdown)."""
        return self.document.jobs.wait("lint", 1e9 if msecs < 0 else msecs / 1000)

    def _finish(self) -> None:
        self._running = None
        self.run_button.setEnabled(True)
        self.run_button.setText("Run checks")
        self.cancel_button.setEnabled(False)

    def cancel(self) -> None:
        """Stop the checks going on (their result is dropped); the rows shown before stay."""
        if self._running is None:
            return
        self.document.jobs.cancel("lint")
        self._finish()
        self._pending = False
        self.status.setText("checks cancelled")

    def _stale_result(self) -> None:
        self._finish()
        self.refresh()           # the design changed under the check: its ids may be wrong

    def _failed(self, err: str) -> None:
        self._finish()
        self.error = err
        self.status.setText(f"the checks failed: {err}")
        if self._pending:
            self.refresh()

    def _done(self, rows: Any) -> None:
        rev = self._running
        self._finish()
        job_seconds = self.document.jobs.last_seconds
        self.error = None
        found, self.skipped = rows
        self.seconds = job_seconds
        self.model.set_rows(found)
        self._checked = rev
        self._stale_shown = False
        self._show_status()
        self.finished.emit()
        if self._pending:
            self.refresh()

    def _show_status(self) -> None:
        c = {s: sum(1 for r in self.model.rows if r.finding.severity == s) for s in SEVERITIES}
        text = f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info · {self.seconds:.2f} s"
        if self.skipped:
            text += f" · skipped: {', '.join(self.skipped)}"
        if self.stale:
            text += " · the design changed since: run again"
        self.status.setText(text)

    # ------------------------------------------------------------------ table
    def _apply_filter(self) -> None:
        keep = SEVERITIES[: 3 - self.filter_box.currentIndex()]
        self.proxy.setFilterRegularExpression(f"^({'|'.join(keep)})$")

    def rows(self) -> list[FindingRow]:
        """The rows as shown (after sorting and the severity filter)."""
        return [self.proxy.index(i, 0).data(FINDING_ROLE) for i in range(self.proxy.rowCount())]

    def _clicked(self, index: QtCore.QModelIndex) -> None:
        row: FindingRow | None = index.data(FINDING_ROLE) if index.isValid() else None
        if row is None:
            return
        self.select_objects.emit(list(row.devices), list(row.cables))


# ---------------------------------------------------------------------- the canvas
def select_on_canvas(f: Fabric, scene: Any, view: Any, devices: list[int], cables: list[int]) -> None:
    """Select ``devices`` (a GPU/NIC inside a server itself, as lint names it) and ``cables``
    on the canvas and bring them into view."""
    t, ct, pt = f.devices_t, f.cables_t, f.ports_t
    devs = [int(d) for d in devices if t.exists(int(d))]
    cabs = {int(c) for c in cables if ct.exists(int(c))}
    scene.select_devices(sorted(set(devs)), inner=True)
    scene.set_selected_cables(cabs)
    ends = [int(pt.device[ct.port_a[c]]) for c in cabs] + [int(pt.device[ct.port_b[c]]) for c in cabs]
    pts = devs + ends
    if not pts:
        return
    xs, ys = t.x[pts], t.y[pts]
    rect = QtCore.QRectF(float(xs.min()), float(ys.min()), float(xs.max() - xs.min()),
                         float(ys.max() - ys.min())).adjusted(-40, -40, 40, 40)
    seen = view.mapToScene(view.viewport().rect()).boundingRect()
    if rect.width() > seen.width() or rect.height() > seen.height():
        view.zoom_by(0.9 * min(seen.width() / rect.width(), seen.height() / rect.height()))
    if not view.mapToScene(view.viewport().rect()).boundingRect().contains(rect):
        view.centerOn(rect.center())


__all__ = ["COLUMNS", "FindingRow", "FindingsDock", "FindingsModel", "select_on_canvas",
           "selection_of"]
