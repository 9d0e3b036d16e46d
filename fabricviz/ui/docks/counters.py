"""The Port Counters dock: ``fabricviz counters`` inside the editor.

File ▸ Load Port Counters… (or the dock's Load button) reads perfquery, ibqueryerrors or ibdiagnet
PM files as one snapshot; "Earlier…" adds an earlier snapshot of the same ports, and the list then
ranks by the increase per second (over the interval typed, or the files' modification times, as
the CLI does). A file that cannot be read is refused with its one line and changes nothing.

What is read and the report on the design are Session state (``session.counters``): the canvas
colours the cables by it (View ▸ Colour by, or the dock's "Colour by" box) and the dock lists the
worst links, worst first — one row per link naming both ends, the ends' disagreement marked and
explained in the row's tooltip. Clicking a row emits ``select_links([cable])``; the main window
selects that cable on the canvas. The report is computed again when the design changes.
"""

from __future__ import annotations

import os
from typing import Any

from PySide6 import QtCore, QtWidgets

from fabricviz.check.counters import CountersReport, LinkCounters, Metric, link_line, port_counters
from fabricviz.formats.counter_files import load_counters, snapshot_interval
from fabricviz.model import FabricError
from fabricviz.model.port_counters import CounterFile
from fabricviz.ui.document.document import Document

FILTER = "port counters (*.txt *.out *.log *.pm *.db_csv *.csv);;all files (*)"
#: the "Colour by" box: (text, metric)
COLOUR_CHOICES: tuple[tuple[str, Metric | None], ...] = (("nothing", None), ("errors", Metric.ERRORS),
                                                         ("XmitWait", Metric.XMIT_WAIT))
CABLE_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1
#: the list shows at most this many links (the status line says how many there are)
MAX_ROWS = 500
#: the report is computed again this long after the design's last change
DEBOUNCE_MS = 300


class CountersDock(QtWidgets.QDockWidget):
    """The worst links by port counters; clicking one emits ``select_links``."""

    select_links = QtCore.Signal(list)      # cable ids

    def __init__(self, document: Document, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Port Counters", parent)
        self.setObjectName("counters_dock")
        self.document = document
        self.shown = document.session.counters
        self.error: str | None = None
        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        bar = QtWidgets.QHBoxLayout()
        self.load_button = QtWidgets.QPushButton("Load…", body)
        self.load_button.setObjectName("counters_load")
        self.load_button.setToolTip("perfquery, ibqueryerrors or ibdiagnet PM output (several files: one snapshot)")
        self.load_button.clicked.connect(lambda: self.open_files())
        self.earlier_button = QtWidgets.QPushButton("Earlier…", body)
        self.earlier_button.setObjectName("counters_earlier")
        self.earlier_button.setToolTip("an earlier snapshot of the same ports: rank by the increase per second")
        self.earlier_button.clicked.connect(lambda: self.open_earlier())
        self.interval_box = QtWidgets.QDoubleSpinBox(body)
        self.interval_box.setObjectName("counters_interval")
        self.interval_box.setRange(0.0, 1e9)
        self.interval_box.setDecimals(1)
        self.interval_box.setSuffix(" s")
        self.interval_box.setSpecialValueText("from file times")
        self.interval_box.setToolTip("seconds between the snapshots (0: the files' modification times)")
        self.interval_box.editingFinished.connect(self._interval_edited)
        self.colour_box = QtWidgets.QComboBox(body)
        self.colour_box.setObjectName("counters_colour_by")
        self.colour_box.addItems([t for t, _m in COLOUR_CHOICES])
        self.colour_box.setToolTip("colour the cables on the canvas (View ▸ Colour by)")
        self.colour_box.currentIndexChanged.connect(
            lambda i: self.shown.set_metric(COLOUR_CHOICES[i][1] if i >= 0 else None))
        bar.addWidget(self.load_button)
        bar.addWidget(self.earlier_button)
        bar.addWidget(self.interval_box)
        bar.addStretch(1)
        bar.addWidget(QtWidgets.QLabel("Colour by", body))
        bar.addWidget(self.colour_box)
        lay.addLayout(bar)
        self.status = QtWidgets.QLabel("no port counters loaded (File ▸ Load Port Counters…)", body)
        self.status.setObjectName("counters_status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        self.table = QtWidgets.QTreeWidget(body)
        self.table.setObjectName("counters_table")
        self.table.setColumnCount(3)
        self.table.setHeaderLabels(["#", "link (both ends)", "ends"])
        self.table.setRootIsDecorated(False)
        self.table.setUniformRowHeights(True)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        hh = self.table.header()
        hh.setStretchLastSection(False)
        hh.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(1, QtWidgets.QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(2, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemClicked.connect(self._clicked)
        self.table.itemActivated.connect(self._clicked)
        lay.addWidget(self.table, 1)
        self.setWidget(body)
        self.timer = QtCore.QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.recompute)
        document.changed.connect(lambda _e: self.timer.start() if self.shown.now else None)
        document.replaced.connect(lambda: self.timer.start() if self.shown.now else None)
        self.shown.report_changed.connect(self._show_report)
        self.shown.metric_changed.connect(self._metric_changed)
        self.shown.files_changed.connect(self._files_changed)

    # ------------------------------------------------------------------ reading
    def _read(self, paths: list[str] | None, title: str) -> tuple[CounterFile, ...] | None:
        """The files (chosen in a dialog when ``paths`` is None), or None: none chosen, or one
        refused (its one line shown)."""
        if paths is None:
            paths, _ = QtWidgets.QFileDialog.getOpenFileNames(self, title, "", FILTER)
        if not paths:
            return None
        try:
            return tuple(load_counters(p) for p in paths)
        except FabricError as exc:
            QtWidgets.QMessageBox.critical(self, "Port counters refused", str(exc))
            return None

    def open_files(self, paths: list[str] | None = None) -> bool:
        """File ▸ Load Port Counters…: ``paths`` (or the files chosen) as the snapshot shown."""
        files = self._read(paths, "Load port counters")
        if files is None:
            return False
        self.shown.set_files(files)
        if self.shown.metric is None:
            self.shown.set_metric(Metric.ERRORS)       # the canvas shows what was read at once
        self.recompute()
        self.show()
        self.raise_()
        return True

    def open_earlier(self, paths: list[str] | None = None) -> bool:
        """An earlier snapshot of the same ports: the list ranks by the increase per second."""
        if not self.shown.now:
            self.status.setText("load the later snapshot first (Load…)")
            return False
        files = self._read(paths, "Earlier port counters")
        if files is None:
            return False
        self.shown.set_files(self.shown.now, files, self._interval(files))
        self.recompute()
        return True

    def _interval(self, before: tuple[CounterFile, ...]) -> float | None:
        typed = self.interval_box.value()
        if typed > 0 or not before:
            return typed or None
        try:
            return snapshot_interval([f.path for f in self.shown.now], [f.path for f in before])
        except FabricError as exc:
            self.error = f"{exc} (type the seconds between the snapshots)"
            return None

    def _interval_edited(self) -> None:
        if self.shown.before:
            self.shown.set_files(self.shown.now, self.shown.before, self._interval(self.shown.before))
            self.recompute()

    def recompute(self) -> None:
        """The report of the files read on the design as it is now."""
        self.timer.stop()
        if not self.shown.now:
            self.shown.show(None)
            return
        try:
            report = port_counters(self.document.fabric, self.shown.now, self.shown.before, self.shown.interval)
        except (FabricError, ValueError) as exc:
            self.error = str(exc)
            self.shown.show(None)
            return
        if self.shown.before and self.shown.interval is None and self.error is None:
            self.error = "no interval: increases, not per second"
        self.shown.show(report)

    # ------------------------------------------------------------------ showing
    @property
    def ranked_by(self) -> Metric:
        return self.shown.metric or Metric.ERRORS

    def _files_changed(self) -> None:
        self.error = None
        if not self.shown.now:
            self.table.clear()
            self.status.setText("no port counters loaded (File ▸ Load Port Counters…)")

    def _metric_changed(self, metric: Metric | None) -> None:
        i = [m for _t, m in COLOUR_CHOICES].index(metric)
        if self.colour_box.currentIndex() != i:
            self.colour_box.blockSignals(True)
            self.colour_box.setCurrentIndex(i)
            self.colour_box.blockSignals(False)
        self._show_report(self.shown.report)

    def rows(self) -> list[LinkCounters]:
        """The links listed, worst first."""
        report = self.shown.report
        return report.worst(self.ranked_by, MAX_ROWS) if report is not None else []

    def _show_report(self, report: CountersReport | None) -> None:
        self.table.clear()
        if report is None:
            if self.shown.now:
                self.status.setText(f"port counters not shown: {self.error}" if self.error else "")
            return
        rate = report.interval is not None
        items = []
        for k, lk in enumerate(self.rows(), 1):
            line = link_line(lk, self.ranked_by, rate)
            item = QtWidgets.QTreeWidgetItem([str(k), line, "disagree" if lk.findings else ""])
            item.setData(0, CABLE_ROLE, lk.cable)
            item.setToolTip(1, line)
            if lk.findings:
                item.setToolTip(2, "\n".join(fd.text for fd in lk.findings))
                item.setForeground(2, QtWidgets.QApplication.palette().brush(
                    QtWidgets.QApplication.palette().ColorRole.Link))
            items.append(item)
        self.table.addTopLevelItems(items)
        self.status.setText(self.summary(report))
        self.status.setToolTip("\n".join(f"{u.source}: {u.why}" for u in report.unmatched[:40]))

    def summary(self, report: CountersReport) -> str:
        names = ", ".join(os.path.basename(f.path) for f in self.shown.now)
        if self.shown.before:
            names += " since " + ", ".join(os.path.basename(f.path) for f in self.shown.before)
        what = ("increase per second" + (f" over {report.interval:,.1f} s" if report.interval else "")
                if report.interval is not None else ("increase since the earlier snapshot" if self.shown.before
                                                     else "counts"))
        sick = len(report.worst(self.ranked_by))
        text = (f"{names}: {report.ports_counted:,} ports counted, {len(report.links):,} links; "
                f"{sick:,} with {self.ranked_by.value} ({what})")
        dis = len(report.disagreeing())
        if dis:
            text += f"; ends disagree on {dis:,}"
        if report.unmatched:
            text += f"; {len(report.unmatched):,} records name no cabled port of the design (tooltip)"
        if self.error:
            text += f"; {self.error}"
        return text

    def _clicked(self, item: QtWidgets.QTreeWidgetItem | None, _column: int = 0) -> None:
        if item is None:
            return
        cable: Any = item.data(0, CABLE_ROLE)
        if cable is not None:
            self.select_links.emit([int(cable)])


__all__ = ["COLOUR_CHOICES", "CountersDock"]
