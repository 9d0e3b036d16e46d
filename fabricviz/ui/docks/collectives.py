"""View ▸ Collectives: nccl-tests style busbw of a collective on the design, run by the engine
:func:`fabricviz.sim.collective.collective` (the numbers ``fabricviz collective`` prints).

The user picks the op, the algorithm (ring, tree, NVLS, SHARP or auto — tree and SHARP are
all-reduce only, NVLS all-reduce, all-gather and reduce-scatter: disabled for the other ops), the
buffer sizes (``8B:1GB:x2``; a bad entry is named and nothing runs), the GPUs (all or the first N
in ring order) and the transport. Run hands a copy of the design to the document's
job runner (the engine runs off the UI thread with a busy bar — the engine has no loop long
enough to report fractions from; Cancel drops the run and leaves the dock as it was).

Each run adds a curve to the busbw-vs-size plot, labelled with design, op, algorithm and
transport; "Add twin" runs the same collective on the design's InfiniBand/RoCE twin
(:func:`fabricviz.sim.twin.twin`). Curves are kept when another design is opened — comparing
designs is what the plot is for, and the legend names each curve's design; "Clear" drops them.
The table shows the last run; CSV export writes what ``fabricviz collective --csv`` writes, PNG
export the plot. After a run of the design itself, the fabric links that bound its slowest step
at the largest size (:func:`fabricviz.sim.collective.slowest_step`) are selected on the canvas
(:attr:`CollectivesDock.select_links`) and the dock says which.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import FabricError
from fabricviz.sim.collective_hier import ALGO_CHOICES, ALGO_OPS
from fabricviz.sim.units import ParamError
from fabricviz.ui.docks.collectives_plot import BusbwPlot
from fabricviz.ui.docks.traffic_transport import SHORT_NAMES, TransportPicker, needs_refresh
from fabricviz.ui.document.session import CollectiveControls
from fabricviz.ui.widgets.front import put_in_front

from .export_path import ask_export_path

if TYPE_CHECKING:
    from fabricviz.anim.lesson_collective import CollectiveCurve

JOB = "collective"
OPS = (("all-reduce", "allreduce"), ("all-gather", "allgather"), ("reduce-scatter", "reducescatter"),
       ("all-to-all", "alltoall"), ("broadcast", "broadcast"))
OP_NAMES = {v: k for k, v in OPS}
DEFAULT_SIZES = "8B:1GB:x2"
COLUMNS = ("size\n(B)", "time\n(µs)", "algbw\n(GB/s)", "busbw\n(GB/s)")     # two header rows, as nccl-tests
TECH_NAMES = {"ib": "InfiniBand", "roce": "RoCE"}


@dataclass(frozen=True)
class Request:
    """What one run is asked: the dock's choices, checked."""

    op: str
    algo: str
    sizes: np.ndarray
    gpus: str
    transport: str | None


@dataclass(frozen=True)
class CollectiveRun:
    """One finished run: the design it ran on, the engine's result and its slowest step."""

    design: str
    label: str
    result: Any                  # CollectiveResult
    bottleneck: Any              # Bottleneck
    twin: bool
    fabric: Any                  # the design run on (the copy or its twin), for link names


def run_label(design: str, op: str, algo: str, transport: str) -> str:
    """``demo · all-reduce ring · InfiniBand``: a legend entry."""
    return f"{design} · {OP_NAMES.get(op, op)} {algo} · {transport}"


def lesson_run(curve: CollectiveCurve) -> CollectiveRun:
    """A lesson's curve as a run of the dock's (``twin``: compared, not the design on the canvas)."""
    r = curve.result
    label = run_label(curve.design, r.op, r.algo, SHORT_NAMES.get(curve.transport, curve.transport))
    return CollectiveRun(curve.design, label, r, curve.bottleneck, not curve.own, curve.fabric)


Progress = Callable[[float], None]


def collective_job(fabric: Any, req: Request, twin_tech: str | None = None) -> Callable[[Progress], CollectiveRun]:
    """The worker's function: ``req`` on ``fabric`` (a copy), or on its ``twin_tech`` twin."""
    def run(progress: Progress) -> CollectiveRun:
        from fabricviz.sim.collective import Solver, collective, slowest_step
        from fabricviz.sim.transport import default_transport
        progress(0.0)
        f, transport = fabric, req.transport
        if twin_tech is not None:
            from fabricviz.sim.twin import twin
            f, transport = twin(fabric, twin_tech), None      # the twin's NICs' own transport
        progress(0.05)
        solver = Solver(f, None, transport, 0)                 # the SM's routing (IB), ECMP (RoCE)
        progress(0.3)                                          # checkpoints: a cancel stops here
        res = collective(f, req.op, req.sizes, req.algo, req.gpus, None, transport, 0, solver)
        progress(0.9)
        try:
            neck = slowest_step(f, res, solver)
        except ParamError:                                     # NVLS/SHARP reduce in the switches
            neck = None
        design = fabric.name + (f" ({TECH_NAMES[twin_tech]} twin)" if twin_tech else "")
        label = run_label(design, req.op, req.algo, SHORT_NAMES[transport or default_transport(f)])
        return CollectiveRun(design, label, res, neck, twin_tech is not None, f)
    return run


def _row(form: QtWidgets.QFormLayout, label: str, *widgets: QtWidgets.QWidget) -> None:
    box = QtWidgets.QHBoxLayout()
    box.setSpacing(4)
    for w in widgets:
        box.addWidget(w, 1)
    form.addRow(label, box)


class CollectivesDock(QtWidgets.QDockWidget):
    """View ▸ Collectives: busbw vs size of a collective on the design (see the module doc)."""

    #: The cables that bound the last run's slowest step (the main window selects them).
    select_links = QtCore.Signal(list)
    #: A run was shown (its :class:`CollectiveRun`).
    finished = QtCore.Signal(object)

    def __init__(self, document: Any, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Collectives", parent)
        self.setObjectName("collectives")
        self.document = document
        self.runs: list[CollectiveRun] = []
        self.last: CollectiveRun | None = None
        self.last_request: Request | None = None
        body = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(body)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(4)
        form = QtWidgets.QFormLayout()
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setContentsMargins(0, 0, 0, 0)
        form.setVerticalSpacing(3)
        self.op_box = QtWidgets.QComboBox(body)
        self.op_box.setObjectName("collective_op")
        for text, value in OPS:
            self.op_box.addItem(text, value)
        self.op_box.setToolTip("the collective (nccl-tests' all_reduce_perf, all_gather_perf, …)")
        self.algo_box = QtWidgets.QComboBox(body)
        self.algo_box.setObjectName("collective_algo")
        for algo in ALGO_CHOICES:
            self.algo_box.addItem(algo, algo)
        self.op_box.currentIndexChanged.connect(self._op_changed)
        _row(form, "Op", self.op_box, self.algo_box)
        self.sizes_edit = QtWidgets.QLineEdit(DEFAULT_SIZES, body)
        self.sizes_edit.setObjectName("collective_sizes")
        self.sizes_edit.setToolTip("buffer sizes: START:STOP:xK (geometric) or SIZE,SIZE,… — "
                                   "B/KB/MB/GB decimal, KiB/MiB/GiB binary")
        self.sizes_edit.returnPressed.connect(self.run)
        form.addRow("Sizes", self.sizes_edit)
        self.gpus_box = QtWidgets.QComboBox(body)
        self.gpus_box.setObjectName("collective_gpus")
        self.gpus_box.addItem("all", "all")
        self.gpus_box.addItem("first N", "first")
        self.gpus_box.setToolTip("the ranks: every GPU bound to a NIC, or the first N in NCCL's ring order")
        self.gpus_spin = QtWidgets.QSpinBox(body)
        self.gpus_spin.setObjectName("collective_gpus_n")
        self.gpus_spin.setRange(2, 2)
        self.gpus_spin.setEnabled(False)
        self.gpus_box.currentIndexChanged.connect(
            lambda _i: self.gpus_spin.setEnabled(self.gpus_box.currentData() == "first"))
        _row(form, "GPUs", self.gpus_box, self.gpus_spin)
        self.transport = TransportPicker(body)
        self.transport.setObjectName("collective_transport")
        form.addRow("Transport", self.transport)
        lay.addLayout(form)
        buttons = QtWidgets.QHBoxLayout()
        self.run_button = QtWidgets.QPushButton("Run", body)
        self.run_button.setObjectName("collective_run")
        self.run_button.setToolTip("run the collective on the design (the curve is added to the plot)")
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QtWidgets.QPushButton("Cancel", body)
        self.cancel_button.setObjectName("collective_cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.cancel_button.setEnabled(False)
        self.progress = QtWidgets.QProgressBar(body)
        self.progress.setObjectName("collective_progress")
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(12)
        self.progress.setRange(0, 1)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        buttons.addWidget(self.progress, 1)
        lay.addLayout(buttons)
        self.message = QtWidgets.QLabel(body)
        self.message.setObjectName("collective_message")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.message)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical, body)
        split.setChildrenCollapsible(False)
        top = QtWidgets.QWidget(split)
        tl = QtWidgets.QVBoxLayout(top)
        tl.setContentsMargins(0, 0, 0, 0)
        self.plot = BusbwPlot(top)
        tl.addWidget(self.plot, 1)
        row = QtWidgets.QHBoxLayout()
        self.twin_button = self._button(top, row, "Add twin", "collective_twin",
                                        "the same collective on the design's InfiniBand/RoCE twin: a second curve",
                                        self.add_twin)
        self.clear_button = self._button(top, row, "Clear", "collective_clear", "remove every curve", self.clear)
        self.png_button = self._button(top, row, "PNG…", "collective_png", "save the plot as a PNG",
                                       lambda: self.export_dialog("png"))
        self.csv_button = self._button(top, row, "CSV…", "collective_csv",
                                       "save the table as fabricviz collective --csv writes it",
                                       lambda: self.export_dialog("csv"))
        tl.addLayout(row)
        bottom = QtWidgets.QWidget(split)
        bl = QtWidgets.QVBoxLayout(bottom)
        bl.setContentsMargins(0, 0, 0, 0)
        self.caption = QtWidgets.QLabel(bottom)
        self.caption.setObjectName("collective_caption")
        self.caption.setWordWrap(True)
        bl.addWidget(self.caption)
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS), bottom)
        self.table.setObjectName("collective_table")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
        hh.setMinimumSectionSize(40)
        self.table.verticalHeader().setDefaultSectionSize(20)
        bl.addWidget(self.table, 1)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        lay.addWidget(split, 1)
        body.setMinimumWidth(0)
        self.setWidget(body)
        self._op_changed()
        self._buttons()
        document.changed.connect(self._changed)
        document.opened.connect(self._opened)
        told = document.session.collectives       # a lesson's curves
        told.runs_requested.connect(self._runs_requested)
        told.present_requested.connect(self._present)   # bound: gone with the dock
        self._refresh()

    @staticmethod
    def _button(parent: QtWidgets.QWidget, row: QtWidgets.QHBoxLayout, text: str, name: str, tip: str,
                slot: Callable[[], Any]) -> QtWidgets.QPushButton:
        b = QtWidgets.QPushButton(text, parent)
        b.setObjectName(name)
        b.setToolTip(tip)
        b.clicked.connect(slot)
        row.addWidget(b)
        return b

    # ------------------------------------------------------------------ choices
    def _op_changed(self, _i: int = 0) -> None:
        """Tree and SHARP are all-reduce only, NVLS all-reduce, all-gather and reduce-scatter: the others
        disabled (and ring chosen when the choice goes)."""
        op = self.op_box.currentData()
        tree_ok = op == "allreduce"
        model = self.algo_box.model()
        assert isinstance(model, QtGui.QStandardItemModel)   # a combo box's own model
        for i, algo in enumerate(ALGO_CHOICES):
            model.item(i).setEnabled(op in ALGO_OPS.get(algo, (op,)))
        if not model.item(self.algo_box.currentIndex()).isEnabled():
            self.algo_box.setCurrentIndex(0)
        self.algo_box.setToolTip("ring, NCCL's tree (all-reduce only), NVLS (in the NVLink switches), SHARP "
                                 "(in the InfiniBand switches) or auto (the fastest per size)" if tree_ok
                                 else "ring, NVLS or auto: NCCL's tree and SHARP run all-reduce only")

    def tree_enabled(self) -> bool:
        model = self.algo_box.model()
        assert isinstance(model, QtGui.QStandardItemModel)
        return bool(model.item(1).isEnabled())

    def _refresh(self) -> None:
        f = self.document.fabric
        n = int(f.counts()["gpu"])
        self.gpus_spin.setRange(2, max(2, n))
        try:
            self.transport.refresh(f)
        except FabricError:
            pass

    def _changed(self, event: Any) -> None:
        if needs_refresh(event):
            self._refresh()

    def _opened(self) -> None:
        """Another design: its choices refreshed; the curves stay (labelled by design), the slowest
        step of the old design is no longer said."""
        self.message.clear()
        self._busy(False)
        self._refresh()

    def request(self) -> Request | None:
        """The dock's choices checked, or None with the bad one named in the message."""
        from fabricviz.sim.collective import parse_sizes
        try:
            sizes = parse_sizes(self.sizes_edit.text())
        except ParamError as e:
            self._say(f"sizes: {e}", error=True)
            return None
        gpus = "all" if self.gpus_box.currentData() == "all" else str(self.gpus_spin.value())
        return Request(str(self.op_box.currentData()), str(self.algo_box.currentData()), sizes, gpus,
                       self.transport.value())

    # ------------------------------------------------------------------ running
    def run(self) -> bool:
        """Run the collective on the design; False when a choice is bad (nothing runs)."""
        req = self.request()
        if req is None:
            return False
        return self._submit(collective_job(self.document.snapshot(), req), req, "running")

    def add_twin(self) -> bool:
        """The last request (or the dock's choices) on the design's InfiniBand/RoCE twin."""
        from fabricviz.sim.reach import fabric_tech
        req = self.request()
        if req is None:
            return False
        tech = "roce" if fabric_tech(self.document.fabric) == "ib" else "ib"
        req = Request(req.op, req.algo, req.sizes, req.gpus, None)
        return self._submit(collective_job(self.document.snapshot(), req, tech), req,
                            f"running on the {TECH_NAMES[tech]} twin")

    def _submit(self, fn: Callable, req: Request, what: str) -> bool:
        self.last_request = req
        self._say(f"{what}: {OP_NAMES[req.op]} ({req.algo}) over {req.gpus} GPUs, {len(req.sizes)} sizes…")
        self._busy(True)
        self.document.jobs.submit(JOB, fn, on_done=self._done, on_error=self._error, on_stale=self._stale)
        return True

    def cancel(self) -> None:
        """Drop the running job; the dock keeps what it showed."""
        if self.document.jobs.running(JOB):
            self.document.jobs.cancel(JOB)
            self._say("cancelled")
        self._busy(False)

    def running(self) -> bool:
        return self.document.jobs.running(JOB)

    def _busy(self, on: bool) -> None:
        if not shiboken6.isValid(self):
            return
        self.progress.setRange(0, 0 if on else 1)     # busy: the engine has no fractions to report
        self.progress.setValue(0)
        self.cancel_button.setEnabled(on)

    def _stale(self) -> None:
        self._busy(False)
        self._say("the design changed during the run: run again", error=True)

    def _error(self, text: str) -> None:
        self._busy(False)
        self._say(text, error=True)

    def _done(self, run: CollectiveRun) -> None:
        if not shiboken6.isValid(self):
            return
        self._busy(False)
        self._add(run)
        self._show_table(run)
        self._say_slowest(run)
        self._buttons()
        self.finished.emit(run)

    def _add(self, run: CollectiveRun) -> None:
        self.runs.append(run)
        res = run.result
        self.plot.add_curve([r.size for r in res.rows], [r.busbw for r in res.rows], run.label)

    def _say_slowest(self, run: CollectiveRun) -> None:
        """Name the slowest step; on the design itself (not a twin) its cables are selected — those
        of the hop named when several tie (a lesson's band draws the same)."""
        from fabricviz.ui.docks.collectives_plot import size_label
        neck = run.bottleneck
        if neck is None:
            self._say(f"{run.result.algo}: reduced in the switches, no point-to-point step to blame")
            self.message.setToolTip("")
            return
        alike = len(neck.src) > 1 and len(neck.named_cables) > 0
        # hops that tie (a ring's) together cover the whole fabric: the one named is highlighted
        where = "on the twin" if run.twin else "its first hop highlighted" if alike else "highlighted"
        self._say(f"slowest step at {size_label(neck.size)} ({where}): {neck.describe(run.fabric)}")
        self.message.setToolTip("\n".join(f"{a}→{b}" for a, b in neck.link_names[:40]))
        if not run.twin:
            self.select_links.emit([int(c) for c in (neck.named_cables if alike else neck.cables)])

    def show_runs(self, runs: list[CollectiveRun]) -> None:
        """Runs computed elsewhere (a lesson step): the plot holds exactly their curves, the table and
        the slowest step are the first run's (the design on the canvas: ``twin`` False), the others
        are compared only. Nothing runs."""
        self.cancel()
        self.clear()
        for run in runs:
            self._add(run)
        if runs:
            self._show_table(runs[0])
            self._say_slowest(runs[0])
        self._buttons()

    def _runs_requested(self, curves: tuple[CollectiveCurve, ...], controls: CollectiveControls) -> None:
        """A lesson's curves (``session.collectives.show_runs``): the controls set to ``controls`` (Run
        repeats it), the curves shown as runs (the first: the design on the canvas)."""
        self.set_controls(controls)
        self.show_runs([lesson_run(c) for c in curves])

    def set_controls(self, c: CollectiveControls) -> None:
        """The op, algorithm, sizes and GPUs set to ``c``."""
        self.op_box.setCurrentIndex(max(self.op_box.findData(c.op), 0))
        self.algo_box.setCurrentIndex(max(self.algo_box.findData(c.algo), 0))
        self.sizes_edit.setText(c.sizes)
        first = c.gpus != "all"
        self.gpus_box.setCurrentIndex(self.gpus_box.findData("first" if first else "all"))
        if first:
            self.gpus_spin.setValue(int(c.gpus))

    def _present(self, on: bool) -> None:
        put_in_front(self, on)

    def _show_table(self, run: CollectiveRun) -> None:
        res = run.result
        self.last = run
        self.caption.setText(f"{run.label}: {res.n} GPUs on {res.servers} servers, {res.channels} channel(s)")
        self.table.setRowCount(len(res.rows))
        right = QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
        for i, r in enumerate(res.rows):
            for j, text in enumerate((f"{r.size:.0f}", f"{r.time_us:.2f}", f"{r.algbw:.2f}", f"{r.busbw:.2f}")):
                item = QtWidgets.QTableWidgetItem(text)
                item.setTextAlignment(right)
                self.table.setItem(i, j, item)

    def table_rows(self) -> list[tuple[str, ...]]:
        """The table's text, row by row."""
        return [tuple(it.text() if (it := self.table.item(i, j)) is not None else ""
                      for j in range(self.table.columnCount()))
                for i in range(self.table.rowCount())]

    def clear(self) -> None:
        """Every curve, the table and the message gone."""
        self.runs = []
        self.last = None
        self.plot.clear_curves()
        self.table.setRowCount(0)
        self.caption.clear()
        self.message.clear()
        self._buttons()

    def _buttons(self) -> None:
        self.clear_button.setEnabled(bool(self.runs))
        self.png_button.setEnabled(bool(self.runs))
        self.csv_button.setEnabled(self.last is not None)

    def _say(self, text: str, error: bool = False) -> None:
        self.message.setText(text)
        self.message.setStyleSheet("color: #c0392b;" if error else "")

    # ------------------------------------------------------------------ export
    def export_csv(self, path: str | Path) -> int:
        """The last run as ``fabricviz collective --csv`` writes it (atomic); returns its rows."""
        from fabricviz.model.atomic import write_atomic
        from fabricviz.sim.collective import csv_text
        if self.last is None:
            raise FabricError("no run to export")
        write_atomic(path, csv_text(self.last.result))
        return len(self.last.result.rows)

    def export_dialog(self, kind: str) -> str | None:
        """Ask where, then write the plot (png) or the table (csv); the outcome goes to the message."""
        if not self.runs:
            return None
        stem = (self.last.design if self.last else "collective").replace(" ", "-") + \
            (f"-{self.last.result.op}" if self.last else "")
        path = ask_export_path(self, "collective", stem, kind)
        if path is None:
            return None
        try:
            if kind == "png":
                w, h = self.plot.export_png(path)
                done = f"{w}×{h} px"
            else:
                done = f"{self.export_csv(path)} sizes"
        except FabricError as exc:
            self._say(f"could not save: {exc}", error=True)
            return None
        self._say(f"saved {Path(path).name} ({done})")
        return path


__all__ = ["CollectiveRun", "CollectivesDock", "Request", "collective_job", "lesson_run", "run_label"]
