"""Engine runs off the UI thread: a QRunnable that reports progress and its result by signals.

The Traffic dock and the InfiniBand-vs-RoCE window both run engines this way: ``work(progress)``
runs in a QThreadPool; ``progress`` is throttled to 1 % steps; a :class:`FabricError` becomes its
one-line message and any other exception ``Type: message`` (shown in the UI, never raised in the
worker); signals to a widget that is gone meanwhile are dropped.
"""

from __future__ import annotations

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


__all__ = ["EngineJob", "JobSignals"]
