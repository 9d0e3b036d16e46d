"""InfiniBand vs RoCE side by side: the same workload on the design and on its twin.

View ▸ InfiniBand vs RoCE… opens a non-modal window with two read-only canvases
(the InfiniBand version left, the RoCE version right; one of them is the
design as it was when Run was pressed, the other its twin from
:func:`fabricviz.sim.twin.twin`). Run sends
:func:`fabricviz.sim.compare.compare_techs` to a worker thread (progress shown,
the UI keeps painting); then each canvas carries its own traffic heatmap, both
coloured with ONE colour scale taken over the frames of both runs, so a colour
means the same load, queue or latency on either side. One time slider and
play/pause drive both (frames matched by time), and the table gives each
side's numbers and the difference, with the plain-English summary under it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric, FabricError
from fabricviz.sim.compare import METRICS as ROWS
from fabricviz.sim.compare import TRANSPORT_ROW
from fabricviz.ui.canvas.overlays.traffic import METRICS, LegendBar, TrafficOverlay, scale_for
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.document.document import Document
from fabricviz.ui.document.editor import Editor
from fabricviz.ui.document.traffic_choice import IB_ENGINES, PLAY_MS, WORKLOADS
from fabricviz.ui.widgets.playback import play_controls, show_playing

SIDES = ("ib", "roce")
SIDE_NAMES = {"ib": "InfiniBand", "roce": "RoCE"}


class ReadOnlyCanvas(CanvasView):
    """The canvas view with zoom and pan only (left or middle drag pans, wheel and +/- zoom):
    no moves, cabling, drops or key edits, so its private editor's undo stack stays empty."""

    def __init__(self, scene: FabricScene, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(scene, Editor(Fabric(name="read-only"), parent), parent)
        self.setAcceptDrops(False)
        self.setInteractive(False)            # items never see the mouse: nothing can be dragged
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.auto_fit = True                  # refit on resize until the user zooms or pans

    def fit_all(self) -> None:
        super().fit_all()
        self.auto_fit = True

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:  # noqa: N802
        super().resizeEvent(event)
        if self.auto_fit:
            self.fit_all()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802
        self.auto_fit = False
        super().wheelEvent(event)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if event.button() in (QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.MiddleButton):
            self.auto_fit = False
            self._pan_from: QtCore.QPoint | None = event.position().toPoint()
            self.viewport().setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
        event.accept()

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        if self._pan_from is not None:
            pos = event.position().toPoint()
            delta = pos - self._pan_from
            self._pan_from = pos
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
        event.accept()

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        self._pan_from = None
        self.viewport().unsetCursor()
        event.accept()

    def mouseDoubleClickEvent(self, event: QtGui.QMouseEvent) -> None:  # noqa: N802
        self.fit_all()
        event.accept()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:  # noqa: N802
        key = event.key()
        if key in (QtCore.Qt.Key.Key_Plus, QtCore.Qt.Key.Key_Equal):
            self.auto_fit = False
            self.zoom_by(1.25)
        elif key == QtCore.Qt.Key.Key_Minus:
            self.auto_fit = False
            self.zoom_by(0.8)
        elif key == QtCore.Qt.Key.Key_0:
            self.fit_all()
        else:
            event.ignore()           # Esc and the rest go on to the window (Esc closes it)
            return
        event.accept()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:  # noqa: N802
        event.ignore()


class TechCompareWindow(QtWidgets.QDialog):
    """See the module doc. ``comparison`` is the last TechComparison shown (None before)."""

    compared = QtCore.Signal(object)          # TechComparison
    failed = QtCore.Signal(str)

    def __init__(self, document: Document, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compare_techs")
        self.setWindowTitle("InfiniBand vs RoCE")
        self.setModal(False)
        self.setWindowFlag(QtCore.Qt.WindowType.Window, True)
        self.document = document
        self._running = False
        esc = QtGui.QShortcut(QtGui.QKeySequence(QtCore.Qt.Key.Key_Escape), self, self.close)
        esc.setContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.comparison = None
        self.scale = None
        self.error: str | None = None
        self.times = np.zeros(0)
        self.scenes: dict[str, FabricScene] = {}
        self.views: dict[str, ReadOnlyCanvas] = {}
        self.overlays: dict[str, TrafficOverlay] = {}
        self.titles: dict[str, QtWidgets.QLabel] = {}

        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(self._controls())
        self.status = QtWidgets.QLabel("Run compares the design with its other-technology twin.", self)
        self.status.setObjectName("compare_status")
        self.status.setWordWrap(True)
        lay.addWidget(self.status)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical, self)
        canvases = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal, split)
        for side in SIDES:
            canvases.addWidget(self._canvas(side))
        split.addWidget(canvases)
        split.addWidget(self._results())
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 0)
        lay.addWidget(split, 1)
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(PLAY_MS)
        self.timer.timeout.connect(self._tick)
        self.resize(1400, 900)
        self.show_design()

    # ------------------------------------------------------------------ building the window
    def _controls(self) -> QtWidgets.QHBoxLayout:
        row = QtWidgets.QHBoxLayout()
        self.workload_box = self._combo("compare_workload", WORKLOADS, "incast")
        self.arg_edit = QtWidgets.QLineEdit("8", self)
        self.arg_edit.setObjectName("compare_arg")
        self.arg_edit.setPlaceholderText("N, K, size")
        self.arg_edit.setMaximumWidth(80)
        self.arg_edit.setToolTip("incast: senders; shift: K; ring/alltoall: size (1GB); permutation: seed")
        self.model_box = self._combo("compare_model", ("fluid", "maxmin"), "fluid")
        self.duration_edit = QtWidgets.QLineEdit("2ms", self)
        self.duration_edit.setObjectName("compare_duration")
        self.duration_edit.setMaximumWidth(80)
        self.seed_box = QtWidgets.QSpinBox(self)
        self.seed_box.setObjectName("compare_seed")
        self.seed_box.setRange(0, 2**31 - 1)
        self.engine_box = self._combo("compare_engine", IB_ENGINES, "minhop")
        self.engine_box.setToolTip("InfiniBand side: the subnet manager engine whose LFTs route the flows")
        self.transport_box = QtWidgets.QComboBox(self)
        self.transport_box.setObjectName("compare_transport")
        for text, value in (("Default (NICs)", None), ("RoCE go-back-N", "roce-gbn"),
                            ("RoCE out-of-order placement", "roce-ooo")):
            self.transport_box.addItem(text, value)
        self.transport_box.setToolTip("RoCE side: how its NICs take reordered packets (Default: what its NIC parts "
                                      "do); the InfiniBand side is always ib. Under ECMP each flow keeps one path, "
                                      "so no transport pays for reordering")
        for label, w in (("Workload", self.workload_box), ("", self.arg_edit), ("Model", self.model_box),
                         ("Duration", self.duration_edit), ("Seed", self.seed_box), ("IB routing", self.engine_box),
                         ("RoCE transport", self.transport_box)):
            if label:
                row.addWidget(QtWidgets.QLabel(label, self))
            row.addWidget(w)
        self.run_button = QtWidgets.QPushButton("Run", self)
        self.run_button.setObjectName("compare_run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.cancel_button = QtWidgets.QPushButton("Cancel", self)
        self.cancel_button.setObjectName("compare_cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_run)
        self.progress = QtWidgets.QProgressBar(self)
        self.progress.setObjectName("compare_progress")
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress, 1)
        return row

    def _combo(self, name: str, items: tuple[str, ...], current: str) -> QtWidgets.QComboBox:
        box = QtWidgets.QComboBox(self)
        box.setObjectName(name)
        box.addItems(list(items))
        box.setCurrentText(current)
        return box

    def _canvas(self, side: str) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        title = QtWidgets.QLabel(SIDE_NAMES[side], box)
        title.setObjectName(f"compare_title_{side}")
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        title.setFont(font)
        title.setWordWrap(True)
        scene = FabricScene(self)
        view = ReadOnlyCanvas(scene, box)
        view.setObjectName(f"compare_canvas_{side}")
        view.setMinimumSize(300, 200)
        lay.addWidget(title)
        lay.addWidget(view, 1)
        self.titles[side], self.scenes[side], self.views[side] = title, scene, view
        self.overlays[side] = TrafficOverlay(scene)
        return box

    def _results(self) -> QtWidgets.QWidget:
        box = QtWidgets.QWidget(self)
        lay = QtWidgets.QVBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        row = QtWidgets.QHBoxLayout()
        self.play_button, self.slider, self.time_label = play_controls(
            box, "compare", ("play", "time", "time_label"), "play / pause both runs", 150, self.set_playing, self._show)
        self.metric_box = self._combo("compare_metric", tuple(METRICS), "utilisation")
        self.metric_box.currentIndexChanged.connect(self._rescale)
        self.legend = LegendBar(box)
        self.legend.setMinimumWidth(330)
        row.addWidget(self.play_button)
        row.addWidget(self.slider, 1)
        row.addWidget(self.time_label)
        row.addWidget(QtWidgets.QLabel("Colour by", box))
        row.addWidget(self.metric_box)
        row.addWidget(self.legend)
        lay.addLayout(row)
        row = QtWidgets.QHBoxLayout()
        self.table = QtWidgets.QTableWidget(0, 3, box)
        self.table.setObjectName("compare_table")
        self.table.setHorizontalHeaderLabels(["InfiniBand", "RoCE", "RoCE vs IB"])
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.table.setAlternatingRowColors(True)
        self.table.setSizeAdjustPolicy(QtWidgets.QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        self.table.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.summary = QtWidgets.QLabel("", box)
        self.summary.setObjectName("compare_summary")
        self.summary.setWordWrap(True)
        self.summary.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        self.summary.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QtWidgets.QScrollArea(box)
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.summary)
        row.addWidget(self.table, 3)
        row.addWidget(scroll, 2)
        lay.addLayout(row)
        self._fill_rows([(f"{label} ({unit})" if unit and unit != "%" else label, "–", "–", "–")
                         for _, label, unit, _ in ROWS] + [(TRANSPORT_ROW, "–", "–", "–")], [None] * (len(ROWS) + 1))
        return box

    # ------------------------------------------------------------------ state
    @property
    def running(self) -> bool:
        return self._running

    def spec(self) -> str:
        arg = self.arg_edit.text().strip()
        return self.workload_box.currentText() + (f":{arg}" if arg else "")

    def _side_of(self, f: Fabric) -> str:
        from fabricviz.sim.engine import fabric_tech
        return "ib" if fabric_tech(f) == "ib" else "roce"

    def _show_fabric(self, side: str, f: Fabric | None, title: str) -> None:
        self.overlays[side].forget()
        self.scenes[side].set_fabric(f)
        self.titles[side].setText(title)
        self.views[side].fit_all()

    def show_design(self) -> None:
        """Show the current design on its side (the other waits for a run)."""
        from fabricviz.sim.compare import parts_label
        f = self.document.fabric
        side = self._side_of(f)
        other = "roce" if side == "ib" else "ib"
        self._show_fabric(side, f, f"{SIDE_NAMES[side]} ({parts_label(f)})")
        self._show_fabric(other, None, f"{SIDE_NAMES[other]} (the twin is built when you press Run)")

    # ------------------------------------------------------------------ running
    def run(self) -> bool:
        """Start the comparison in the worker (False while one runs or when a control is invalid)."""
        if self._running:
            return False
        from fabricviz.sim.units import parse_duration
        try:
            model = self.model_box.currentText()
            duration = parse_duration(self.duration_edit.text()) if model == "fluid" else 10e-3
        except FabricError as exc:
            self._fail(str(exc))
            return False
        self.set_playing(False)
        design = self.document.snapshot()  # a snapshot: edits in the main window do not race the worker
        args = {"workload_spec": self.spec(), "model": model, "duration_s": duration,
                "seed": self.seed_box.value(), "engine": self.engine_box.currentText(),
                "transport": self.transport_box.currentData()}
        self._running = True
        self.run_button.setEnabled(False)
        self.run_button.setText("Running…")
        self.cancel_button.setEnabled(True)
        self.progress.setValue(0)
        self.status.setText(f"building the twin of {design.name} and running {args['workload_spec']} "
                            f"({model}) on both…")
        from fabricviz.sim.compare import compare_techs
        self.document.jobs.submit("compare", lambda progress: compare_techs(design, progress=progress, **args),
                                  on_done=self._done, on_error=self._failed, on_progress=self._progress,
                                  keep_stale=True)   # it ran on a snapshot: still what was asked
        return True

    def wait(self, msecs: int = -1) -> bool:
        """Block until the comparison is done and shown (tests)."""
        return self.document.jobs.wait("compare", 1e9 if msecs < 0 else msecs / 1000)

    def _progress(self, x: float) -> None:
        if self._running:
            self.progress.setValue(int(round(100 * x)))

    def _fail(self, text: str) -> None:
        self.error = text
        self.status.setText(f"could not compare: {text}")
        self.failed.emit(text)

    def _idle(self) -> None:
        self._running = False
        self.run_button.setEnabled(True)
        self.run_button.setText("Run")
        self.cancel_button.setEnabled(False)

    def cancel_run(self) -> None:
        """Stop the comparison going on; what was shown before stays."""
        if not self._running:
            return
        self.document.jobs.cancel("compare")
        self._idle()
        self.progress.setValue(0)
        self.status.setText("comparison cancelled")

    def _failed(self, err: str) -> None:
        self._idle()
        self._fail(err)

    def _done(self, res: Any) -> None:
        self._idle()
        self.present(res, f"{self.document.jobs.last_seconds:.2f} s")

    def present(self, c: Any, took: str = "") -> None:
        """Show TechComparison ``c``: both canvases, the shared scale, the slider, the table."""
        self.error = None
        self.progress.setValue(100)
        self.comparison = c
        for side in SIDES:
            run = getattr(c, side)
            self._show_fabric(side, run.fabric, run.title)
            self.overlays[side].set_links(run.fabric, run.result.links.n)
        self.times = np.union1d(*[np.array([fr.time_s for fr in getattr(c, s).result.frames]) for s in SIDES])
        self._fill_table(c)
        n = len(c.ib.result.flows)
        self.status.setText(f"{c.workload}: {n} flows, {c.model}"
                            + (f", {c.duration_s * 1e3:g} ms" if c.model == "fluid" else "")
                            + f" on both · {took}")
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.times) - 1)
        self.slider.setValue(len(self.times) - 1)       # opens on the end of the run: its steady part
        self.slider.blockSignals(False)
        self._rescale()
        self.compared.emit(c)

    def _fill_table(self, c: Any) -> None:
        values = [(c.ib.value(key), c.roce.value(key), c.difference(key)) for key, *_ in ROWS]
        values.append((c.ib.transport, c.roce.transport, None))
        self._fill_rows(c.rows(), values)
        self.summary.setText("\n".join(f"• {line}" for line in c.lines))

    def _fill_rows(self, rows: list[tuple[str, str, str, str]], values: list[Any]) -> None:
        """Table text (row label, IB, RoCE, difference); the numbers behind it as UserRole data."""
        self.table.setRowCount(len(rows))
        self.table.setVerticalHeaderLabels([r[0] for r in rows])
        for i, (row, vals) in enumerate(zip(rows, values, strict=True)):
            for j, text in enumerate(row[1:]):
                item = QtWidgets.QTableWidgetItem(text)
                item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                item.setData(QtCore.Qt.ItemDataRole.UserRole, None if vals is None else vals[j])
                self.table.setItem(i, j, item)
        self.table.resizeRowsToContents()
        h = self.table.horizontalHeader().sizeHint().height() + 2 * self.table.frameWidth() \
            + sum(self.table.rowHeight(i) for i in range(len(rows)))
        self.table.setFixedHeight(h)

    # ------------------------------------------------------------------ frames
    def frame_index(self, side: str, k: int | None = None) -> int:
        """The frame of ``side`` shown at slider position ``k``: its latest at or before that time."""
        frames = getattr(self.comparison, side).result.frames
        t = self.times[self.slider.value() if k is None else k]
        ts = np.array([fr.time_s for fr in frames])
        return int(max(np.searchsorted(ts, t + 1e-15, side="right") - 1, 0))

    def _rescale(self) -> None:
        """One scale over both runs' frames, so a colour means the same on either side."""
        c = self.comparison
        if c is None:
            return
        self.scale = scale_for(self.metric_box.currentText(), c.ib.result.frames + c.roce.result.frames)
        self.legend.set_scale(self.scale)
        self._show(self.slider.value())

    def _show(self, k: int) -> None:
        c = self.comparison
        if c is None or self.scale is None:
            return
        for side in SIDES:
            frames = getattr(c, side).result.frames
            self.overlays[side].show_frame(frames[self.frame_index(side, k)], self.scale)
        self.time_label.setText(f"{k + 1}/{len(self.times)} · {self.times[k] * 1e3:.3f} ms")

    def set_playing(self, on: bool) -> None:
        on = bool(on) and self.comparison is not None and len(self.times) > 1
        show_playing(self.play_button, on)
        if on:
            if self.slider.value() >= self.slider.maximum():
                self.slider.setValue(0)
            self.timer.start()
        else:
            self.timer.stop()

    def _tick(self) -> None:
        if self.slider.value() >= self.slider.maximum():
            self.set_playing(False)
        else:
            self.slider.setValue(self.slider.value() + 1)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        self.set_playing(False)
        super().closeEvent(event)


__all__ = ["ReadOnlyCanvas", "TechCompareWindow"]
