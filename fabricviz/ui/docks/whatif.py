"""The What-if dock: what losing K cables, switches, a tier's switches or a tier's links costs the design.

What ``fabricviz whatif`` does, inside the editor, with the same engine calls
(:func:`~fabricviz.sim.whatif.prepare`, :func:`~fabricviz.sim.whatif.run_trials`,
:func:`~fabricviz.sim.whatif.per_k`, :func:`~fabricviz.sim.whatif.ranked`): pick what fails (the
"spine / leaf / core switches" kinds offered are the switch tiers the design has), the K values,
trials per K, the metric and the seed, or "worst single failures" to rank every single failure of
that kind. The trials run on a snapshot in the document's job runner (progress per
trial, the UI never waits), in this process or, with "Workers" N > 1 or a "Dask scheduler" address,
on Dask workers (:mod:`.whatif_runner`: the same numbers; a local cluster is started once and kept
for the session). Cancel stops promptly and **keeps the trials that finished** (the plot and table
show them, the status line says how many of how many).

The degradation plot (:mod:`.whatif_plot`) and a table of trials follow (what failed first, stretched
to the dock's width and elided in the middle; the row's tooltip lists it all). Clicking a row or a
trial's point shows its failed cables on the canvas: they are selected (the canvas's own
highlight) and drawn over with a dashed grey line, and the dock says which, e.g. "trial 7 (K=1):
spine03 down; 0 hosts cut off, 4 degraded (4 NICs)" (degraded: hosts that lost some of their NICs).
A what-if never edits the design: no undo step, no revision. Opening another design clears the
dock. PNG (pyqtgraph's ImageExporter) and CSV (the CLI's ``--csv`` columns,
:func:`~fabricviz.sim.whatif.csv_text`) export what is shown.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6 import QtCore, QtWidgets

from fabricviz.model import FabricError
from fabricviz.sim.bounds import MAX_TRIALS
from fabricviz.sim.whatif import (
    TIERS,
    Shared,
    TrialResult,
    csv_text,
    failed_cables,
    parse_fail,
    parse_metric,
    per_k,
    switch_tiers,
)
from fabricviz.ui.canvas.overlays.failed import FAILED_PEN, ROLE, FailedCables
from fabricviz.ui.docks.whatif_plot import DegradationPlot
from fabricviz.ui.docks.whatif_runner import SCHEDULER_KEY, WORKERS_KEY, DaskWorkers, WhatifRun, whatif_job, where_of
from fabricviz.ui.docks.whatif_table import TrialsModel, describe
from fabricviz.ui.document.session import WhatifControls
from fabricviz.ui.widgets.front import put_in_front

from .export_path import ask_export_path

if TYPE_CHECKING:
    from fabricviz.anim.lesson_whatif import WhatifStep
    from fabricviz.ui.canvas.scene import FabricScene

JOB = "whatif"
#: The failure kinds offered: (value for parse_fail, text shown); "… switches" only for the design's tiers.
FAIL_KINDS = (("cables", "cables"), ("switches", "switches"),
              *((f"switches-of:{t}", f"{t} switches") for t in ("spine", "leaf", "core")),
              *((f"links-of:{t}", f"{t} links") for t in TIERS))
METRIC_CHOICES = ("permutation", "alltoall", "allreduce:1GB")


def fail_kinds(tiers: Sequence[str], planes: bool = False) -> list[tuple[str, str]]:
    """:data:`FAIL_KINDS` for a design whose switch tiers are ``tiers`` (:func:`~fabricviz.sim.whatif.switch_tiers`):
    the switches of a tier it lacks are not offered; a multi-plane design (``planes``) also offers a plane
    (``plane:K``, K from 0)."""
    return [(v, t) for v, t in FAIL_KINDS if not v.startswith("switches-of:") or v.partition(":")[2] in tiers] + \
        ([("plane", "a plane (K: which, from 0)")] if planes else [])


def trial_cables(shared: Shared, result: TrialResult) -> list[int]:
    """The cables trial ``result`` took down (a failed switch's every cable), sorted."""
    j = result.index if shared.worst else shared.trials.index((result.k, result.index))
    return list(failed_cables(shared, j))


class WhatifDock(QtWidgets.QDockWidget):
    """Failure what-if controls, the degradation plot and the trials; see the module doc."""

    finished = QtCore.Signal(str)          # "done" | "cancelled" | "error" | "stale"
    trial_shown = QtCore.Signal(int)       # the row shown on the canvas

    _said = QtCore.Signal(object, str)    # (run, text) from the job's thread: the status line

    def __init__(self, document: Any, scene: FabricScene,
                 parent: QtWidgets.QWidget | None = None, settings: QtCore.QSettings | None = None) -> None:
        super().__init__("What-if", parent)
        self.setObjectName("whatif")
        self.document, self.scene, self.settings = document, scene, settings
        self.workers = DaskWorkers()         # the session's Dask cluster, if a run asks for one
        self._said.connect(self._status_said)
        app = QtCore.QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.shutdown)
        self.destroyed.connect(lambda *_a, w=self.workers: w.close())
        self.run: WhatifRun | None = None
        self.shown: WhatifRun | None = None
        self.failed_cables = FailedCables(document, scene)
        document.opened.connect(self.clear)
        document.replaced.connect(self.clear)
        document.changed.connect(self._changed)
        self._kinds_timer = QtCore.QTimer(self)          # edits: the tiers offered, once per burst of edits
        self._kinds_timer.setSingleShot(True)
        self._kinds_timer.setInterval(0)
        self._kinds_timer.timeout.connect(self.refresh_kinds)

        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        form = QtWidgets.QFormLayout()
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        row = QtWidgets.QHBoxLayout()
        self.kind_box = QtWidgets.QComboBox(body)
        self.kind_box.setObjectName("whatif_kind")
        self.kind_box.setToolTip("what fails: random cables, whole switches (every cable; of any tier or of "
                                 "one: spine, leaf, core), or the links between two tiers")
        self.refresh_kinds()
        self.ks_edit = QtWidgets.QLineEdit("1,2,4,8", body)
        self.ks_edit.setObjectName("whatif_ks")
        self.ks_edit.setToolTip("K: how many fail at once, a list runs each (1,2,4,8)")
        row.addWidget(self.kind_box, 3)
        row.addWidget(QtWidgets.QLabel("K", body))
        row.addWidget(self.ks_edit, 2)
        form.addRow("Fail", row)
        row = QtWidgets.QHBoxLayout()
        self.metric_box = QtWidgets.QComboBox(body)
        self.metric_box.setObjectName("whatif_metric")
        self.metric_box.setEditable(True)
        self.metric_box.addItems(METRIC_CHOICES)
        self.metric_box.setToolTip("permutation / alltoall: mean per-flow max-min rate of that seeded "
                                   "workload; allreduce:SIZE: ring all-reduce busbw")
        row.addWidget(self.metric_box, 1)
        form.addRow("Metric", row)
        row = QtWidgets.QHBoxLayout()
        self.trials_box = QtWidgets.QSpinBox(body)
        self.trials_box.setObjectName("whatif_trials")
        self.trials_box.setRange(1, MAX_TRIALS)     # the engine's bound (fabricviz.sim.bounds)
        self.trials_box.setValue(20)
        self.trials_box.setToolTip("random failure sets per K")
        self.seed_box = QtWidgets.QSpinBox(body)
        self.seed_box.setObjectName("whatif_seed")
        self.seed_box.setRange(0, 2**31 - 1)
        self.seed_box.setToolTip("seeds the failures, the workload and ECMP (same seed, same numbers)")
        row.addWidget(self.trials_box, 1)
        row.addWidget(QtWidgets.QLabel("seed", body))
        row.addWidget(self.seed_box, 1)
        form.addRow("Trials", row)
        self.worst_box = QtWidgets.QCheckBox("Worst single failures", body)
        self.worst_box.setObjectName("whatif_worst")
        self.worst_box.setToolTip("fail each element of that kind alone and rank them by cost "
                                  "(K and trials are not used)")
        self.worst_box.toggled.connect(self._mode_toggled)
        form.addRow("", self.worst_box)
        row = QtWidgets.QHBoxLayout()
        self.workers_box = QtWidgets.QSpinBox(body)
        self.workers_box.setObjectName("whatif_workers")
        self.workers_box.setRange(1, max(1, os.cpu_count() or 1))
        self.workers_box.setToolTip("1 runs the trials in this process; N starts a local Dask cluster of N "
                                    "worker processes, kept for the session")
        self.scheduler_edit = QtWidgets.QLineEdit(body)
        self.scheduler_edit.setObjectName("whatif_scheduler")
        self.scheduler_edit.setPlaceholderText("Dask scheduler tcp://HOST:8786")
        self.scheduler_edit.setClearButtonEnabled(True)
        self.scheduler_edit.setToolTip("run on an existing Dask cluster (the address `dask scheduler` prints); "
                                       "empty: the workers to the left")
        row.addWidget(self.workers_box)
        row.addWidget(self.scheduler_edit, 1)
        form.addRow("Workers", row)
        self.scheduler_edit.textChanged.connect(lambda t: self.workers_box.setEnabled(not t.strip()))
        lay.addLayout(form)
        self._restore_where()

        row = QtWidgets.QHBoxLayout()
        self.run_button = QtWidgets.QPushButton("Run", body)
        self.run_button.setObjectName("whatif_run")
        self.run_button.clicked.connect(self.start)
        self.cancel_button = QtWidgets.QPushButton("Cancel", body)
        self.cancel_button.setObjectName("whatif_cancel")
        self.cancel_button.setToolTip("stop after the trial running now; the trials done are kept "
                                      "(on Dask workers: those of the batches done)")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QtWidgets.QProgressBar(body)
        self.progress.setObjectName("whatif_progress")
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(14)
        self.export_button = QtWidgets.QToolButton(body)
        self.export_button.setObjectName("whatif_export")
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QtWidgets.QMenu(self.export_button)
        menu.addAction("Plot picture (PNG)…", lambda: self.export_dialog("png"))
        menu.addAction("Trials (CSV)…", lambda: self.export_dialog("csv"))
        self.export_button.setMenu(menu)
        self.export_button.setEnabled(False)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress, 1)
        row.addWidget(self.export_button)
        lay.addLayout(row)
        self.status = QtWidgets.QLabel("", body)
        self.status.setObjectName("whatif_status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)

        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical, body)
        self.plot = DegradationPlot(split)
        self.plot.trial_clicked.connect(self.show_row)
        self.model = TrialsModel(self)
        self.table = QtWidgets.QTableView(split)
        self.table.setObjectName("whatif_table")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)      # "failed": the width left
        hh.setStretchLastSection(False)
        hh.setMinimumSectionSize(24)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(QtCore.Qt.TextElideMode.ElideMiddle)         # a cable keeps both ends
        self.table.clicked.connect(lambda ix: self.show_row(ix.row()))
        split.addWidget(self.plot)
        split.addWidget(self.table)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([320, 220])
        lay.addWidget(split, 1)
        self.trial_line = QtWidgets.QLabel("", body)
        self.trial_line.setObjectName("whatif_trial")
        self.trial_line.setWordWrap(True)
        lay.addWidget(self.trial_line)
        self.message = QtWidgets.QLabel("", body)       # the last export's outcome
        self.message.setObjectName("whatif_message")
        lay.addWidget(self.message)
        body.setMinimumWidth(0)
        self.setWidget(body)
        self.shown_row: int | None = None
        told = self.session_whatif = document.session.whatif    # a lesson's trials; the trial drawn is told
        told.trials_requested.connect(self._trials_requested)
        told.row_requested.connect(self.show_row)
        told.present_requested.connect(self._present)   # bound: gone with the dock

    # ------------------------------------------------------------------ running
    def fail_text(self) -> str:
        """The ``--fail`` value of the controls: ``cables:1,2,4`` (K 1 in worst mode)."""
        ks = "1" if self.worst_box.isChecked() else self.ks_edit.text().strip().replace(" ", "")
        return f"{self.kind_box.currentData()}:{ks}"

    def start(self) -> None:
        """Run the what-if of the controls on a snapshot of the design, off the UI thread."""
        self.document.jobs.cancel(JOB)
        try:                                    # refused in one line before any work
            parse_fail(self.fail_text())
            parse_metric(self.metric_box.currentText())
            where = where_of(self.workers_box.value(), self.scheduler_edit.text())
        except FabricError as exc:
            self.status.setText(f"refused: {exc}")
            return
        self._save_where()
        worst = self.worst_box.isChecked()
        run = self.run = WhatifRun(worst=worst, revision=self.document.revision, where=where)
        fn = whatif_job(self.document.snapshot(), self.fail_text(), self.metric_box.currentText(),
                        self.trials_box.value(), self.seed_box.value(), worst, run, where, self.workers,
                        functools.partial(self._say, run))
        self.progress.setValue(0)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText("measuring the intact design…")
        self.document.jobs.submit(JOB, fn, on_done=self._done, on_error=self._error,
                                  on_progress=lambda x, run=run: self._progressed(run, x), on_stale=self._stale)

    def running(self) -> bool:
        return self.document.jobs.running(JOB)

    def _say(self, run: WhatifRun, text: str) -> None:
        """From the job's thread: ``text`` goes to the status line (queued to the UI thread)."""
        try:
            self._said.emit(run, text)
        except RuntimeError:          # the dock is gone
            pass

    def _status_said(self, run: WhatifRun, text: str) -> None:
        if run is self.run:
            self.status.setText(text)

    def _restore_where(self) -> None:
        """The Workers / Dask scheduler choice of the last session (QSettings)."""
        s = self.settings
        if s is None:
            return
        try:
            raw: Any = s.value(WORKERS_KEY, 1)       # QSettings: whatever was stored
            n = int(raw)
        except (TypeError, ValueError):
            n = 1
        self.workers_box.setValue(n)                     # the spin box clamps to this machine's CPUs
        self.scheduler_edit.setText(str(s.value(SCHEDULER_KEY, "") or ""))
        self.workers_box.valueChanged.connect(self._save_where)
        self.scheduler_edit.editingFinished.connect(self._save_where)

    def _save_where(self) -> None:
        if self.settings is not None:
            self.settings.setValue(WORKERS_KEY, self.workers_box.value())
            self.settings.setValue(SCHEDULER_KEY, self.scheduler_edit.text().strip())

    def shutdown(self) -> None:
        """The window closes or the application quits: stop the run, shut the Dask workers down."""
        self.workers.close()
        if shiboken6.isValid(self.document):
            self.document.jobs.cancel(JOB)

    def _progressed(self, run: WhatifRun, fraction: float) -> None:
        if run is not self.run or not shiboken6.isValid(self.progress):
            return
        self.progress.setValue(int(round(fraction * 1000)))
        if run.total and run.done:
            self.status.setText(f"trial {run.done:,} of {run.total:,}…")

    def cancel(self) -> None:
        """Stop between trials; the trials that finished are shown (none: the dock is as before)."""
        run = self.run
        if run is None or not self.running():
            return
        self.document.jobs.cancel(JOB)
        self.run = None
        kept = replace(run, results=list(run.results), cancelled=True)
        self._idle()
        if kept.shared is not None and kept.results:
            self._show(kept)
        else:
            self.status.setText("cancelled before any trial finished")
        self.finished.emit("cancelled")

    def _idle(self) -> None:
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def _done(self, run: WhatifRun) -> None:
        if run is not self.run:
            return
        self.run = None
        self._idle()
        self.progress.setValue(1000)
        self._show(run)
        self.finished.emit("done")

    def _error(self, text: str) -> None:
        self.run = None
        self._idle()
        self.status.setText(f"refused: {text}")
        self.finished.emit("error")

    def _stale(self) -> None:
        self.run = None
        self._idle()
        self.status.setText("dropped: the design changed while the trials ran; run again")
        self.finished.emit("stale")

    # ------------------------------------------------------------------ showing
    def show_run(self, run: WhatifRun) -> None:
        """A what-if computed elsewhere (a lesson step): shown as a finished run of the dock's own;
        a run of the dock's is stopped first. Nothing is submitted."""
        if self.run is not None:
            self.document.jobs.cancel(JOB)
            self.run = None
        self._idle()
        self.progress.setValue(1000)
        self._show(run)

    def _trials_requested(self, step: WhatifStep, controls: WhatifControls, row: int | None) -> None:
        """A lesson's trials (``session.whatif.show_trials``): the controls set to ``controls`` (Run
        repeats them), the trials shown as a finished run, row ``row`` on the canvas."""
        self.set_controls(controls)
        self.show_run(WhatifRun(shared=step.shared, results=list(step.results), worst=step.worst,
                                revision=self.document.revision, total=len(step.results)))
        if row is not None:
            self.show_row(row)

    def set_controls(self, c: WhatifControls) -> None:
        """The failure kind, K, trials, metric, seed and mode set to ``c`` (K and trials are left as
        they were in worst mode, which does not use them)."""
        self.kind_box.setCurrentIndex(max(self.kind_box.findData(c.kind), 0))
        self.worst_box.setChecked(c.worst)
        if not c.worst:
            self.ks_edit.setText(",".join(str(k) for k in c.ks))
            self.trials_box.setValue(c.trials)
        self.metric_box.setCurrentText(c.metric)
        self.seed_box.setValue(c.seed)

    def _present(self, on: bool) -> None:
        put_in_front(self, on)

    def _show(self, run: WhatifRun) -> None:
        self.shown = run
        rows = run.rows()
        self.model.set_rows(rows, run.worst)
        if run.worst:
            self.plot.show_ranking(rows)
        else:
            self.plot.show_per_k(per_k(run.results), rows)
        self.export_button.setEnabled(bool(rows))
        self.show_row(None)
        self.status.setText(self.summary_line(run))

    def summary_line(self, run: WhatifRun) -> str:
        sh = run.shared
        assert sh is not None
        unit = "GB/s busbw" if sh.metric.startswith("allreduce:") else "Gb/s per flow"
        what = "single failures ranked" if run.worst else "trials"
        head = f"{len(run.results):,} {what}"
        if run.cancelled:
            head = f"cancelled: {len(run.results):,} of {run.total:,} trials kept"
        on = run.where
        at = "" if on.serial else f" · on {on.scheduler}" if on.scheduler else f" · on {on.workers} Dask workers"
        return f"{head} · {sh.spec.noun} · {sh.metric}, intact {sh.intact_gbps:.4g} {unit}{at}"

    def show_row(self, row: int | None) -> None:
        """Show row ``row`` of the table (None: none) on the canvas and say which it is."""
        run = self.shown
        if row is None or run is None or run.shared is None or not 0 <= row < len(self.model.rows):
            self.shown_row = None
            self.failed_cables.clear()
            self.trial_line.setText("")
            self.session_whatif.show_trial((), "")
            return
        self.shown_row = row
        r = self.model.rows[row]
        cables = trial_cables(run.shared, r)
        f = self.document.fabric
        live = [c for c in cables if f.cables_t.exists(c)]
        self.scene.set_selected_cables(set(live))
        self.failed_cables.show(live)
        ix = self.model.index(row, 0)
        if self.table.currentIndex().row() != row:
            self.table.setCurrentIndex(ix)
        self.table.scrollTo(ix)
        text = describe(r, row + 1 if run.worst else None)
        if self.document.revision != run.revision:
            text += " (the design was edited since this run)"
        self.trial_line.setText(text)
        self.session_whatif.show_trial(tuple(live), text)
        self.trial_shown.emit(row)

    def refresh_kinds(self) -> None:
        """Offer the failure kinds of the design's switch tiers (:func:`fail_kinds`), keeping the choice
        when it is still offered."""
        f = self.document.fabric
        try:
            planes = bool(f.settings.planes)
        except FabricError:                     # a refused meta.planes: lint says why
            planes = False
        kinds = fail_kinds(switch_tiers(f), planes)
        box = self.kind_box
        if [box.itemData(i) for i in range(box.count())] == [v for v, _ in kinds]:
            return
        was = box.currentData()
        box.clear()
        for value, text in kinds:
            box.addItem(text, value)
        box.setCurrentIndex(max(box.findData(was), 0))

    def clear(self) -> None:
        """Another design: no run, no plot, no table, nothing on the canvas."""
        self.refresh_kinds()
        self.document.jobs.cancel(JOB)
        self.run = self.shown = None
        self._idle()
        self.progress.setValue(0)
        self.model.set_rows([], self.worst_box.isChecked())
        self.plot.clear_plot()
        self.failed_cables.clear()
        self.shown_row = None
        self.status.setText("")
        self.trial_line.setText("")
        self.session_whatif.show_trial((), "")
        self.message.setText("")
        self.export_button.setEnabled(False)

    def _changed(self, event: Any) -> None:
        """An edit (the what-if made none): the failed cables follow their devices; the tiers offered
        are looked at again (after the burst of edits)."""
        if event is not None:
            self._kinds_timer.start()
        if self.failed_cables.cables:
            self.failed_cables.show(self.failed_cables.cables)

    def _mode_toggled(self, worst: bool) -> None:
        self.ks_edit.setEnabled(not worst)
        self.trials_box.setEnabled(not worst)

    # ------------------------------------------------------------------ export
    def export_csv(self, path: str | Path) -> int:
        """The rows shown as ``fabricviz whatif --csv`` writes them; returns the row count."""
        from fabricviz.model.atomic import write_atomic
        if self.shown is None:
            raise FabricError("what-if: no run to export")
        rows = self.shown.rows()
        write_atomic(path, csv_text(rows, self.shown.worst))
        return len(rows)

    def export_png(self, path: str | Path) -> tuple[int, int]:
        """The plots as a PNG (atomic); returns its (width, height)."""
        from fabricviz.model.atomic import write_atomic
        from fabricviz.ui.widgets.plots import png_bytes
        if self.shown is None:
            raise FabricError("what-if: no run to export")
        img = self.plot.picture()
        write_atomic(path, png_bytes(img, path))
        return img.width(), img.height()

    def export_dialog(self, kind: str) -> str | None:
        if self.shown is None or self.shown.shared is None:
            return None
        stem = f"{self.document.fabric.name or 'design'}-whatif"
        path = ask_export_path(self, "what-if", stem, kind)
        if path is None:
            return None
        try:
            what = self.export_png(path) if kind == "png" else self.export_csv(path)
        except (FabricError, OSError) as exc:
            self.message.setText(f"could not save: {exc}")
            return None
        self.message.setText(f"saved {Path(path).name} ("
                             + (f"{what[0]}×{what[1]} px)" if isinstance(what, tuple) else f"{what} rows)"))
        self.message.setToolTip(path)
        return path


__all__ = ["FAILED_PEN", "FAIL_KINDS", "JOB", "METRIC_CHOICES", "ROLE", "FailedCables", "WhatifDock", "WhatifRun",
           "describe", "fail_kinds", "trial_cables", "whatif_job"]
