"""Engine runs off the UI thread: a QRunnable that reports progress and its result by signals,
and :func:`start_thread` for one-off daemon-thread work handing its result to a queued signal.

The Traffic dock and the InfiniBand-vs-RoCE window both run engines this way: ``work(progress)``
runs in a QThreadPool; ``progress`` is throttled to 1 % steps; a :class:`FabricError` becomes its
one-line message and any other exception ``Type: message`` (shown in the UI, never raised in the
worker); signals to a widget that is gone meanwhile are dropped.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from PySide6 import QtCore

from fabricviz.model import FabricError


class JobSignals(QtCore.QObject):
    progress = QtCore.Signal(int, float)              # run id, fraction done
    done = QtCore.Signal(int, object, object, float)  # run id, result or None, error text or None, seconds


class EngineJob(QtCore.QRunnable):
    """Run ``work(progress)`` for run ``run_id``; report through ``signals``."""

    def __init__(self, run_id: int, work: Callable[[Callable[[float], None]], Any], signals: JobSignals) -> None:
        super().__init__()
        self.run_id, self.work, self.signals = run_id, work, signals

    def run(self) -> None:
        t0 = time.perf_counter()
        last = [0.0]

        def progress(x: float) -> None:
            if x - last[0] >= 0.01 or x >= 1.0:
                last[0] = x
                try:
                    self.signals.progress.emit(self.run_id, float(x))
                except RuntimeError:
                    pass
        try:
            res, err = self.work(progress), None
        except FabricError as exc:
            res, err = None, str(exc)
        except Exception as exc:  # a torn read during an edit, or a real bug: reported, never raised
            res, err = None, f"{type(exc).__name__}: {exc}"
        try:
            self.signals.done.emit(self.run_id, res, err, time.perf_counter() - t0)
        except RuntimeError:      # the widget is gone
            pass


def start_thread(work: Callable[[], Any], deliver: Callable[[Any], None], name: str) -> threading.Thread:
    """Run ``work()`` in a daemon thread and pass ``deliver`` its result, or the exception it
    raised (never raised in the thread). ``deliver`` runs in that thread, so it emits a queued
    signal; a widget deleted meanwhile (RuntimeError on emit) drops the result."""
    def run() -> None:
        try:
            out: Any = work()
        except Exception as exc:  # shown by the receiver, never raised in a thread
            out = exc
        try:
            deliver(out)
        except RuntimeError:      # the receiver is gone
            pass
    th = threading.Thread(target=run, name=name, daemon=True)
    th.start()
    return th


__all__ = ["EngineJob", "JobSignals", "start_thread"]
