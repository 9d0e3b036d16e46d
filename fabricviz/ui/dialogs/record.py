"""File ▸ Record Animation…: the SM sweep, the Traffic dock's run or the open lesson as MP4 or GIF.

What ``fabricviz record`` writes, from the window: pick what to record (the heavy sweep with
a routing engine, the workload and model set in the Traffic dock, or the lesson open in the
Lessons dock), the file, frames per second, width and length. The engines run first as a job
(on a copy of the design, so the window's design, history and overlays stay as they are);
then one frame per timer tick is painted on the UI thread on a standalone scene and handed to
an encoding job (imageio), so the window keeps painting. The bar counts frames; Cancel stops
both and the partial file is deleted.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.recording import (
    DEFAULT_FPS,
    DEFAULT_WIDTH,
    DURATION_RANGE,
    FPS_RANGE,
    MAX_DEFAULT_S,
    WIDTH_RANGE,
    check_gif_memory,
    check_options,
    clip_ticks,
    lesson_clips,
    plan,
    sweep_clip,
    traffic_clip,
)
from fabricviz.ib.routing import ENGINES
from fabricviz.model import FabricError
from fabricviz.ui.canvas.record import FramePainter, VideoWriter
from fabricviz.ui.document.document import Document
from fabricviz.ui.jobs import Job

SWEEP, TRAFFIC, LESSON = "sweep", "traffic", "lesson"
#: Painted frames waiting for the encoder at most (painting pauses while the queue is full).
QUEUE_FRAMES = 8
#: Seconds a cancel waits for the encoder to close the partial file before deleting it.
DROP_WAIT_S = 2.0


def encode_job(frames: queue.Queue[Any], writer: VideoWriter, total: int) -> Callable[[Callable], Path]:
    """The encoding job: frames from ``frames`` into ``writer`` until ``None`` comes, then the
    file is finished and named; a cancel (seen by ``progress``) deletes the partial file."""
    def work(progress: Callable[[float], None]) -> Path:
        try:
            while True:
                try:
                    frame = frames.get(timeout=0.05)
                except queue.Empty:
                    progress(writer.frames / total)     # raises Cancelled once the job is cancelled
                    continue
                if frame is None:
                    break
                writer.append(frame)
                progress(writer.frames / total)
            writer.finish()
            progress(1.0)
            return writer.commit()
        except BaseException:
            writer.abort()
            raise
    return work


class RecordDialog(QtWidgets.QDialog):
    """Options, Record / Cancel, and the progress of one recording at a time."""

    recorded = QtCore.Signal(str)              # the file written

    def __init__(self, document: Document, engine: str | None = None,
                 start: str = "animation.mp4", parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Record Animation")
        self.setObjectName("record_dialog")
        self.document = document
        self.traffic = document.session.traffic   # the Traffic dock's run on show and its controls
        self.lesson = document.session.lesson     # the lesson open in the Lessons dock
        if engine is None:
            engine = document.session.sweep.engine   # the Subnet Manager dock's engine
        self.painter: FramePainter | None = None
        self.shots: list = []
        self.job: Job | None = None             # the encoding job (tests wait on it)
        self.frames: queue.Queue[Any] = queue.Queue(QUEUE_FRAMES)
        self.painted = 0
        self.written: Path | None = None
        self.partial: Path | None = None        # the file being encoded, deleted on cancel / close
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self._tick)

        form = QtWidgets.QFormLayout()
        self.what_box = QtWidgets.QComboBox(self)
        self.what_box.setObjectName("record_what")
        self.what_box.addItem("Subnet Manager sweep", SWEEP)
        self.what_box.addItem("Traffic run (the Traffic dock's workload and model)", TRAFFIC)
        self.what_box.addItem("Lesson", LESSON)
        self.engine_box = QtWidgets.QComboBox(self)
        self.engine_box.setObjectName("record_engine")
        self.engine_box.addItems(list(ENGINES))
        self.engine_box.setCurrentText(engine if engine in ENGINES else "minhop")
        self.detail = QtWidgets.QLabel(self)
        self.detail.setObjectName("record_detail")
        self.detail.setWordWrap(True)
        form.addRow("Record", self.what_box)
        form.addRow("SM engine", self.engine_box)
        form.addRow("", self.detail)
        row = QtWidgets.QHBoxLayout()
        self.path_edit = QtWidgets.QLineEdit(start, self)
        self.path_edit.setObjectName("record_output")
        browse = QtWidgets.QPushButton("Browse…", self)
        browse.setObjectName("record_browse")
        browse.clicked.connect(self._browse)
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        form.addRow("File", row)
        self.format_box = QtWidgets.QComboBox(self)
        self.format_box.setObjectName("record_format")
        self.format_box.addItem("MP4 video (H.264)", ".mp4")
        self.format_box.addItem("GIF animation (for slides)", ".gif")
        form.addRow("Format", self.format_box)
        self.fps_box = QtWidgets.QSpinBox(self)
        self.fps_box.setObjectName("record_fps")
        self.fps_box.setRange(*FPS_RANGE)
        self.fps_box.setSuffix(" fps")
        self.width_box = QtWidgets.QSpinBox(self)
        self.width_box.setObjectName("record_width")
        self.width_box.setRange(*WIDTH_RANGE)
        self.width_box.setSingleStep(2)
        self.width_box.setSuffix(" px")
        self.width_box.setToolTip("the height follows the design's shape")
        self.duration_box = QtWidgets.QDoubleSpinBox(self)
        self.duration_box.setObjectName("record_duration")
        self.duration_box.setRange(0.0, DURATION_RANGE[1])
        self.duration_box.setDecimals(1)
        self.duration_box.setSuffix(" s")
        self.duration_box.setSpecialValueText(f"auto (the animation's pace, ≤ {MAX_DEFAULT_S:g} s)")
        form.addRow("Frame rate", self.fps_box)
        form.addRow("Width", self.width_box)
        form.addRow("Length", self.duration_box)
        self.progress = QtWidgets.QProgressBar(self)
        self.progress.setObjectName("record_progress")
        self.progress.setRange(0, 100)
        self.progress.setValue(0)
        self.status = QtWidgets.QLabel("", self)
        self.status.setObjectName("record_status")
        self.status.setWordWrap(True)
        buttons = QtWidgets.QDialogButtonBox(self)
        self.record_button = buttons.addButton("Record", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.record_button.setObjectName("record_start")
        self.record_button.clicked.connect(self.start)
        self.cancel_button = buttons.addButton("Cancel", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.cancel_button.setObjectName("record_cancel")
        self.cancel_button.clicked.connect(self.cancel)
        close = buttons.addButton(QtWidgets.QDialogButtonBox.StandardButton.Close)
        close.clicked.connect(self.reject)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        lay.addWidget(buttons)

        self.format_box.currentIndexChanged.connect(self._format_changed)
        self.path_edit.editingFinished.connect(self._path_edited)
        self.what_box.currentIndexChanged.connect(self._describe)
        self._path_edited()
        self._format_changed()
        self._pick_default()
        self._set_busy(False)

    # ------------------------------------------------------------------ options
    def _pick_default(self) -> None:
        """The open lesson when there is one, else the Traffic dock's run when it has one, else the sweep."""
        les = self.lesson
        has_lesson = les is not None and bool(getattr(les, "results", None))
        model = self.what_box.model()
        assert isinstance(model, QtGui.QStandardItemModel)   # a combo box's own model
        model.item(2).setEnabled(has_lesson)
        if has_lesson:
            self.what_box.setItemText(2, f"Lesson: {les.lesson.title}")
            self.what_box.setCurrentIndex(2)
        elif self.traffic.setup() is not None and self.traffic.result is not None:
            self.what_box.setCurrentIndex(1)
        model.item(1).setEnabled(self.traffic.setup() is not None)
        self._describe()

    @property
    def what(self) -> str:
        return self.what_box.currentData()

    def _describe(self) -> None:
        self.engine_box.setEnabled(self.what == SWEEP)
        text = ""
        setup = self.traffic.setup() if self.what == TRAFFIC else None
        if setup is not None:
            text = (f"{setup.spec}, {setup.model} model, {setup.routing} routing, "
                    f"coloured by {setup.metric} — run again on a copy of the design")
        elif self.what == LESSON and self.lesson is not None and self.lesson.lesson is not None:
            text = f"every step of {self.lesson.lesson.title!r}, on the lesson's own fabric"
        elif self.what == SWEEP:
            text = f"the heavy sweep of {self.document.fabric.name}, step by step"
        self.detail.setText(text)

    def _format_changed(self) -> None:
        suffix = self.format_box.currentData()
        p = Path(self.path_edit.text() or "animation.mp4")
        if p.suffix.lower() != suffix:
            self.path_edit.setText(str(p.with_suffix(suffix)))
        self.fps_box.setValue(DEFAULT_FPS[suffix])
        self.width_box.setValue(DEFAULT_WIDTH[suffix])

    def _path_edited(self) -> None:
        k = self.format_box.findData(Path(self.path_edit.text()).suffix.lower())
        if k >= 0 and k != self.format_box.currentIndex():
            self.format_box.setCurrentIndex(k)

    def _browse(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Record animation", self.path_edit.text(),
                                                        "MP4 video (*.mp4);;GIF animation (*.gif)")
        if path:
            self.path_edit.setText(path)
            self._path_edited()

    def options(self) -> tuple[Path, int, int, float | None]:
        """(file, fps, width, length or None for auto), checked (FabricError names the field)."""
        dur = self.duration_box.value() or None
        return check_options(self.path_edit.text(), self.fps_box.value(), self.width_box.value(), dur), \
            self.fps_box.value(), self.width_box.value(), dur

    # ------------------------------------------------------------------ recording
    @property
    def busy(self) -> bool:
        return self.painter is not None or self.document.jobs.running("record-prep")

    def _set_busy(self, on: bool) -> None:
        self.record_button.setEnabled(not on)
        self.cancel_button.setEnabled(on)
        for w in (self.what_box, self.engine_box, self.path_edit, self.format_box, self.fps_box, self.width_box,
                  self.duration_box):
            w.setEnabled(not on and (w is not self.engine_box or self.what == SWEEP))

    def start(self) -> bool:
        """Run the engines for what is chosen, then record; False (and why in the status) if the
        options are refused or a recording is going on."""
        if self.busy:
            return False
        try:
            out, fps, width, dur = self.options()
            make, cap = self._source()
        except FabricError as exc:
            self.status.setText(f"cannot record: {exc}")
            return False
        self.written = None
        self.progress.setValue(0)
        self.status.setText("running the engines…")
        self._set_busy(True)
        self.document.jobs.submit("record-prep", lambda progress: make(progress), keep_stale=True,
                                  on_done=lambda clips: self._begin(clips, cap, out, fps, width, dur),
                                  on_error=self._failed, on_progress=self._prep_progress)
        return True

    def _prep_progress(self, x: float) -> None:
        """The engines' progress (a bound method: Qt drops the connection with the dialog)."""
        self.progress.setValue(int(x * 100))

    def _source(self) -> tuple[Callable, float | None]:
        """A job making the clips of what is chosen (on a copy of the design), and the length cap."""
        if self.what == LESSON:
            les = self.lesson
            if les is None or not les.results:
                raise FabricError("no lesson is open (Lessons menu)")
            lesson, results = les.lesson, list(les.results)
            return (lambda _p: lesson_clips(lesson, results)), None
        fabric = self.document.fabric.copy()
        if self.what == SWEEP:
            engine = self.engine_box.currentText()
            return (lambda _p: [sweep_clip(fabric, engine)]), MAX_DEFAULT_S
        setup = self.traffic.setup()
        if setup is None:
            raise FabricError("no Traffic dock to take the run from")
        choice, metric = setup.choice(), setup.metric

        def run(progress):
            from fabricviz.sim.run import run_traffic
            res = run_traffic(*choice.args(fabric), **choice.kwargs(), progress=progress)
            return [traffic_clip(fabric, res, choice.spec, metric)]
        return run, MAX_DEFAULT_S

    def _begin(self, clips: list, cap: float | None, out: Path, fps: int, width: int, dur: float | None) -> None:
        """The engines are done: paint one frame per tick, encode in a job."""
        try:
            self.shots = plan(clips, fps, dur, cap)
            self.painter = FramePainter(clips, width)
            writer = VideoWriter(out, fps)
        except FabricError as exc:
            self._failed(str(exc))
            return
        if out.suffix.lower() == ".gif":
            try:
                check_gif_memory(len(self.shots), *self.painter.size, fps)
            except FabricError as exc:
                writer.abort()
                self._failed(str(exc))
                return
        self._ticks = clip_ticks(self.shots)
        self.partial = writer.part
        self.painted = 0
        self.frames = queue.Queue(QUEUE_FRAMES)
        self.job = self.document.jobs.submit("record", encode_job(self.frames, writer, len(self.shots)),
                                             keep_stale=True, on_done=self._done, on_error=self._failed)
        self.status.setText(f"recording {len(self.shots)} frames ({len(self.shots) / fps:.1f} s, "
                            f"{self.painter.size[0]} × {self.painter.size[1]})…")
        self.timer.start()

    def _tick(self) -> None:
        """Paint the next frame (skipped while the encoder is behind)."""
        if self.painter is None:
            self.timer.stop()
            return
        if self.painted >= len(self.shots):
            try:
                self.frames.put_nowait(None)        # the end: the job finishes the file
            except queue.Full:
                return
            self.timer.stop()
            self.status.setText("finishing the file…")
            return
        full = self.frames.full()
        self.timer.setInterval(15 if full else 0)     # the encoder is behind: wait for it, do not spin
        if full:
            return
        shot = self.shots[self.painted]
        self.frames.put_nowait(self.painter.paint(shot, self._ticks))
        self.painted += 1
        self.progress.setValue(int(99 * self.painted / len(self.shots)))

    def _stop_painting(self) -> None:
        self.timer.stop()
        if self.painter is not None:
            self.painter.close()
            self.painter = None

    def _done(self, path: Path) -> None:
        self._stop_painting()
        self.written, self.partial = path, None
        self.progress.setValue(100)
        size = path.stat().st_size
        self.status.setText(f"wrote {path} ({len(self.shots)} frames, {size:,} bytes)")
        self._set_busy(False)
        self.recorded.emit(str(path))

    def _failed(self, error: str) -> None:
        self._stop_painting()
        self.document.jobs.cancel("record")
        self.status.setText(f"recording failed: {error}")
        self._set_busy(False)

    def cancel(self) -> None:
        """Stop the engines or the recording and delete the partial file (here: the encoding
        job is a daemon thread that nobody waits for when the window closes)."""
        self.document.jobs.cancel("record-prep")
        self.document.jobs.cancel("record")
        self._stop_painting()
        self._drop_partial()
        self.progress.setValue(0)
        self.status.setText("recording cancelled")
        self._set_busy(False)

    def _drop_partial(self) -> None:
        """Let the cancelled encoder close the file (it sees the cancel within a frame), then
        delete it; bounded, so a stuck encoder never freezes the window."""
        part, self.partial = self.partial, None
        if self.job is not None and not self.job.finished:
            self.job.wait(DROP_WAIT_S)
        if part is not None:
            try:
                part.unlink(missing_ok=True)
            except OSError:
                pass

    def wait(self, timeout: float = 30.0) -> bool:
        """Block until the encoding job ended (tests); True when it has."""
        return self.job is None or self.job.wait(timeout)

    def reject(self) -> None:
        if self.busy:
            self.cancel()
        super().reject()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:  # noqa: N802
        if self.busy:
            self.cancel()
        super().closeEvent(event)


__all__ = ["RecordDialog", "encode_job"]
