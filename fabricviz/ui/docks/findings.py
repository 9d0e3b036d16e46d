"""The Findings dock: ``fabricviz lint`` inside the editor.

The checks run in a worker thread (one at a time, on a private QThreadPool) so
the window keeps painting; the routing-based rules follow lint's own size limit
(:data:`fabricviz.check.lint.ROUTE_LIMIT`) unless "Route large fabrics" is
ticked. The fabric is read in place, not copied: the dock counts the model's
change events, and a result computed while the design changed is thrown away
and the checks run again, so a finding never names ids of another state.

Clicking a finding emits ``select_objects(devices, cables)`` — the finding's
devices plus the devices owning its ports (a port has no canvas item of its
own) and its cables. :func:`integrate` adds the dock to the main window and
selects those objects on the canvas.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from typing import Any, Callable

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.check.lint import SEVERITIES, Finding, LintReport, lint
from fabricviz.model import Fabric

#: Columns of the findings table.
COLUMNS = ("severity", "rule", "where", "message")
SEVERITY_COLORS = {"error": "#d33a2c", "warning": "#c98a00", "info": "#3d7ab8"}
SEVERITY_ICONS = {"error": "SP_MessageBoxCritical", "warning": "SP_MessageBoxWarning",
                  "info": "SP_MessageBoxInformation"}
#: How many object names a row's tooltip lists.
TIP_NAMES = 24
FINDING_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
SORT_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2

FabricSource = Fabric | Callable[[], Fabric]


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


class FindingsModel(QtCore.QAbstractTableModel):
    """Rows of findings, errors first (lint's order)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
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

    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation,  # noqa: N802
                   role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == QtCore.Qt.Orientation.Horizontal and role == QtCore.Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
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


class _Signals(QtCore.QObject):
    done = QtCore.Signal(int, object, object, float)   # run id, rows or None, error text or None, seconds


class _LintJob(QtCore.QRunnable):
    """Runs lint in a pool thread and hands the rows back through a queued signal."""

    def __init__(self, run_id: int, fabric: Fabric, full: bool, signals: _Signals) -> None:
        super().__init__()
        self.run_id, self.fabric, self.full, self.signals = run_id, fabric, full, signals

    def run(self) -> None:
        t0 = time.perf_counter()
        try:
            report: LintReport = lint(self.fabric, full=self.full)
            rows: Any = ([selection_of(self.fabric, x) for x in report.findings], report.skipped)
            err = None
        except Exception as exc:  # a torn read during an edit, or a real bug: reported, never raised
            rows, err = None, f"{type(exc).__name__}: {exc}"
        try:
            self.signals.done.emit(self.run_id, rows, err, time.perf_counter() - t0)
        except RuntimeError:     # the dock was closed meanwhile
            pass


class FindingsDock(QtWidgets.QDockWidget):
    """Lint findings of the current fabric; clicking one emits ``select_objects``."""

    select_objects = QtCore.Signal(list, list)   # device ids, cable ids
    finished = QtCore.Signal()                   # rows shown for the current state of the design

    def __init__(self, fabric: FabricSource, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Findings", parent)
        self.setObjectName("findings")
        self._source: Callable[[], Fabric] = fabric if callable(fabric) else (lambda: fabric)
        self.pool = QtCore.QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._signals = _Signals(self)
        self._signals.done.connect(self._done)
        self._run_id = 0
        self._running: tuple[int, Fabric, int] | None = None   # run id, fabric, generation at start
        self._pending = False
        self._checked: tuple[Fabric, int] | None = None        # what the shown rows describe
        self._generation = 0
        self._watched: Fabric | None = None
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
        cell = self._unsub_cell = [None]        # the closure must not hold the dock itself
        self.destroyed.connect(lambda *_: cell[0]() if cell[0] is not None else None)

    # ------------------------------------------------------------------ fabric
    @property
    def fabric(self) -> Fabric:
        return self._source()

    def _watch(self, f: Fabric) -> None:
        """Count ``f``'s change events (cheap: one add per event) to spot stale results."""
        if self._watched is f:
            return
        if self._unsub_cell[0] is not None:
            self._unsub_cell[0]()
        self._watched = f
        self._unsub_cell[0] = f.subscribe(self._changed)

    def _changed(self, _event: Any) -> None:
        self._generation += 1
        if self._checked is not None and self._running is None and not self._stale_shown:
            self._stale_shown = True
            self._show_status()

    _stale_shown = False

    @property
    def stale(self) -> bool:
        """True when the rows shown no longer describe the design (it changed or was replaced)."""
        return self._checked is None or self._checked != (self.fabric, self._generation)

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
        self._watch(f)
        self._run_id += 1
        self._running = (self._run_id, f, self._generation)
        self._pending = False
        self.run_button.setEnabled(False)
        self.run_button.setText("Checking…")
        self.status.setText(f"checking {f.name}…")
        self.pool.start(_LintJob(self._run_id, f, self.full_box.isChecked(), self._signals))

    def clear(self) -> None:
        """Forget the rows (e.g. the window opened another design)."""
        self._checked = None
        self.model.set_rows([])
        self.skipped, self.error = [], None
        self.status.setText("not checked yet")

    def wait(self, msecs: int = -1) -> bool:
        """Block until the worker is idle (tests, shutdown)."""
        return self.pool.waitForDone(msecs)

    def _done(self, run_id: int, rows: Any, err: str | None, seconds: float) -> None:
        if self._running is None or run_id != self._running[0]:
            return
        _, f, gen = self._running
        self._running = None
        self.run_button.setEnabled(True)
        self.run_button.setText("Run checks")
        if f is not self.fabric or gen != self._generation:
            self.refresh()           # the design changed under the check: its ids may be wrong
            return
        if err is not None:
            self.error = err
            self.status.setText(f"the checks failed: {err}")
            if self._pending:
                self.refresh()
            return
        self.error = None
        found, self.skipped = rows
        self.seconds = seconds
        self.model.set_rows(found)
        self._checked = (f, gen)
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


# ---------------------------------------------------------------------- main window
def view_menu(window: QtWidgets.QMainWindow) -> QtWidgets.QMenu:
    """The window's View menu (created if it has none)."""
    for a in window.menuBar().actions():
        m = a.menu()
        if m is not None and a.text().replace("&", "") == "View":
            return m
    return window.menuBar().addMenu("&View")


def select_on_canvas(window: Any, devices: list[int], cables: list[int]) -> None:
    """Select ``devices`` and ``cables`` and bring them into view.

    A GPU/NIC inside a server is selected itself when the scene's ``select_devices``
    takes ``inner=True``, else its server is.
    """
    f: Fabric = window.editor.fabric
    t, ct, pt = f.devices_t, f.cables_t, f.ports_t
    devs = [int(d) for d in devices if t.exists(int(d))]
    cabs = {int(c) for c in cables if ct.exists(int(c))}
    scene, view = window.scene, window.view
    if "inner" in inspect.signature(scene.select_devices).parameters:
        scene.select_devices(sorted(set(devs)), inner=True)    # the NIC/GPU itself, as lint names it
    else:                                                      # older scene: only top-level items select
        scene.select_devices(sorted({int(t.parent[d]) if t.parent[d] >= 0 else d for d in devs}))
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


def integrate(window: Any) -> FindingsDock:
    """Add a Findings dock (bottom) to ``window``, a View-menu toggle, canvas selection on click.

    ``window`` needs ``editor`` (``.fabric``, ``fabric_replaced``), ``scene``
    (``select_devices``, ``set_selected_cables``) and ``view`` (``zoom_by``).
    The dock is kept as ``window.findings_dock``.
    """
    existing = getattr(window, "findings_dock", None)
    if isinstance(existing, FindingsDock):      # already added (MainWindow adds both docks itself)
        return existing
    dock = FindingsDock(lambda: window.editor.fabric, window)
    window.addDockWidget(QtCore.Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    act = dock.toggleViewAction()
    act.setObjectName("action_findings")
    act.setShortcut(QtGui.QKeySequence("Ctrl+Shift+K"))
    view_menu(window).addAction(act)
    dock.select_objects.connect(lambda devs, cabs: select_on_canvas(window, devs, cabs))
    window.editor.fabric_replaced.connect(dock.clear)
    window.findings_dock = dock
    return dock


__all__ = ["COLUMNS", "FindingRow", "FindingsDock", "FindingsModel", "integrate", "select_on_canvas",
           "selection_of", "view_menu"]
