"""The one way to run engine work off the UI thread.

A job is a pure function ``fn(progress)`` (``progress(fraction)`` reports how far it got and
raises :class:`Cancelled` once the job was cancelled, so an engine that reports progress stops
early). :meth:`JobRunner.submit` runs it in a daemon thread (so quitting never waits for it) and
hands the result back on the UI thread, unless by then

- another job was submitted under the same ``key`` (the newer one wins),
- the job was cancelled, or
- the document's revision moved on since the job started (the result describes a design that
  is gone; ``on_stale`` is told, e.g. to run again).

A :class:`~fabricviz.model.FabricError` becomes its one-line message, any other exception
``Type: message`` (logged with its traceback); nothing is ever raised in a worker.
:meth:`JobRunner.run_modal` waits for one job behind a progress dialog with a Cancel button
(opening a file), keeping the window painting.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtWidgets

from fabricviz.model import FabricError

Progress = Callable[[float], None]
#: Seconds before :meth:`JobRunner.run_modal` shows its dialog (quick opens show none).
MODAL_DELAY_MS = 300


class Cancelled(Exception):
    """Raised inside a job by its ``progress`` callback once the job is cancelled."""


class Job(QtCore.QObject):
    """One submitted run: its key, the revision it started at, progress, result or error."""

    progressed = QtCore.Signal(float)

    def __init__(self, key: str, revision: int, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.key, self.revision = key, revision
        self.result: Any = None
        self.error: str | None = None
        self.exception: BaseException | None = None
        self.seconds = 0.0
        self.fraction = 0.0
        self._cancel = threading.Event()
        self._done = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def finished(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the worker is done (tests, shutdown); True when it is."""
        return self._done.wait(timeout)

    def _progress(self, x: float) -> None:
        if self._cancel.is_set():
            raise Cancelled(self.key)
        if x - self.fraction >= 0.01 or x >= 1.0:
            self.fraction = float(x)
            try:
                self.progressed.emit(self.fraction)
            except RuntimeError:      # the receiver is gone
                pass


class JobRunner(QtCore.QObject):
    """Runs jobs for one document; ``revision()`` is the document's current revision."""

    _finished = QtCore.Signal(object)

    def __init__(self, revision: Callable[[], int] = lambda: 0, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.revision = revision
        self.active: dict[str, Job] = {}
        self.last_seconds = 0.0                  # the delivered job's run time (shown by docks)
        self._handlers: dict[int, tuple[Callable | None, Callable | None, Callable | None, bool]] = {}
        self._finished.connect(self._deliver, QtCore.Qt.ConnectionType.QueuedConnection)

    # ------------------------------------------------------------------ running
    def submit(self, key: str, fn: Callable[[Progress], Any], *,
               on_done: Callable[[Any], None] | None = None,
               on_error: Callable[[str], None] | None = None,
               on_progress: Callable[[float], None] | None = None,
               on_stale: Callable[[], None] | None = None,
               keep_stale: bool = False) -> Job:
        """Start ``fn`` under ``key`` (cancelling an earlier job of that key); see the module doc."""
        old = self.active.get(key)
        if old is not None:
            old.cancel()
        job = Job(key, self.revision(), self)
        if on_progress is not None:
            job.progressed.connect(on_progress)
        self._handlers[id(job)] = (on_done, on_error, on_stale, keep_stale)
        self.active[key] = job
        threading.Thread(target=self._work, args=(job, fn), name=f"fabricviz-{key}", daemon=True).start()
        return job

    def _work(self, job: Job, fn: Callable[[Progress], Any]) -> None:
        t0 = time.perf_counter()
        try:
            job.result = fn(job._progress)
        except Cancelled:
            job._cancel.set()
        except FabricError as exc:
            job.error, job.exception = str(exc), exc
        except Exception as exc:  # a torn read during an edit, or a real bug: reported, never raised
            logging.getLogger(__name__).debug("job %s failed", job.key, exc_info=exc)
            job.error, job.exception = f"{type(exc).__name__}: {exc}", exc
        job.seconds = time.perf_counter() - t0
        job._done.set()
        try:
            self._finished.emit(job)
        except RuntimeError:          # the runner is gone (window closed)
            pass

    def _deliver(self, job: Job) -> None:
        on_done, on_error, on_stale, keep_stale = self._handlers.pop(id(job), (None, None, None, False))
        current = self.active.get(job.key) is job
        if current:
            del self.active[job.key]
        if job.cancelled or not current:
            return
        if not keep_stale and job.revision != self.revision():
            if on_stale is not None:
                on_stale()
            return
        self.last_seconds = job.seconds
        if job.error is not None:
            if on_error is not None:
                on_error(job.error)
        elif on_done is not None:
            on_done(job.result)

    # ------------------------------------------------------------------ control
    def running(self, key: str) -> bool:
        return key in self.active

    def cancel(self, key: str) -> None:
        job = self.active.pop(key, None)
        if job is not None:
            job.cancel()

    def cancel_all(self, keep: tuple[str, ...] = ()) -> None:
        """Cancel every job but those under the keys ``keep``."""
        for key in list(self.active):
            if key not in keep:
                self.cancel(key)

    def wait(self, key: str | None = None, timeout: float = 30.0) -> bool:
        """Block until the job ``key`` (or every job) is done and delivered (tests, shutdown)."""
        deadline = time.monotonic() + timeout
        while True:
            jobs = [self.active[key]] if key is not None and key in self.active else (
                [] if key is not None else list(self.active.values()))
            if not jobs:
                return True
            for job in jobs:
                if not job.wait(max(0.0, deadline - time.monotonic())):
                    return False
            QtCore.QCoreApplication.sendPostedEvents(self)   # deliver on this (the UI) thread
            if time.monotonic() > deadline:
                return False

    def run_modal(self, parent: QtWidgets.QWidget | None, label: str, fn: Callable[[Progress], Any]) -> Any:
        """Run ``fn`` as a job and wait for it, showing a progress dialog with Cancel after
        :data:`MODAL_DELAY_MS`; returns its result, re-raises what it raised, raises
        :class:`Cancelled` when the user cancelled."""
        loop = QtCore.QEventLoop()
        key = f"modal-{id(loop)}"
        job = self.submit(key, fn, keep_stale=True)
        if not job.wait(MODAL_DELAY_MS / 1000):     # quick jobs: no dialog, no event loop run meanwhile
            self._wait_behind_dialog(job, parent, label, loop)
        self.active.pop(key, None)
        self._handlers.pop(id(job), None)
        if job.cancelled:
            raise Cancelled(label)
        job.wait()
        if job.exception is not None:
            raise job.exception
        return job.result

    @staticmethod
    def _wait_behind_dialog(job: Job, parent: QtWidgets.QWidget | None, label: str, loop: QtCore.QEventLoop) -> None:
        """A progress dialog with Cancel until ``job`` is done (the window keeps painting)."""
        poll = QtCore.QTimer()           # shows the progress, quits the loop once the worker is done
        poll.setInterval(15)
        latest = [0]
        dlg = QtWidgets.QProgressDialog(label, "Cancel", 0, 100, parent)

        def tick() -> None:
            # setValue on a modal QProgressDialog runs the event loop itself: called straight from
            # each queued progress signal it recursed once per signal waiting (a C stack overflow
            # under load); from this timer (never re-entered by Qt) it runs at most once per tick
            if latest[0] != dlg.value():
                dlg.setValue(latest[0])
            if job.finished:
                loop.quit()
        poll.timeout.connect(tick)
        dlg.setObjectName("job_progress")
        dlg.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
        dlg.setMinimumDuration(0)
        dlg.setAutoReset(False)

        def cancel() -> None:                        # the user pressed Cancel (or closed the dialog)
            job.cancel()
            loop.quit()
        dlg.canceled.connect(cancel)
        job.progressed.connect(lambda x: latest.__setitem__(0, int(x * 100)))
        dlg.show()
        if not job.finished:
            poll.start()
            loop.exec()
        poll.stop()
        dlg.canceled.disconnect(cancel)             # closing a QProgressDialog emits canceled
        dlg.close()
        dlg.deleteLater()


__all__ = ["Cancelled", "Job", "JobRunner", "MODAL_DELAY_MS", "Progress"]
