"""The first run's kernel compile is told in the status bar while the window is usable."""

from __future__ import annotations

import threading

from PySide6 import QtWidgets

from fabricviz.ib.kernel_progress import Compiled
from fabricviz.ui import kernel_status
from fabricviz.ui.kernel_status import KernelCompileStatus


def test_the_status_bar_counts_the_kernels_compiled_in_the_background(qtbot, monkeypatch):
    """The compile thread's reports reach the status bar (queued to the UI thread), the last one
    says the kernels are ready; a cache that had them all says nothing."""
    window = QtWidgets.QMainWindow()
    qtbot.addWidget(window)
    bar = window.statusBar()
    go = threading.Event()

    def start_background(progress, done):
        def run():
            go.wait(30)
            progress(Compiled(1, 30, "kernels.all_pairs_hops", 1.5))
            progress(Compiled(30, 30, "lash_kernels.run_layers", 30.0))
            done(71.6, 30, None)
        threading.Thread(target=run, daemon=True).start()
        return True
    monkeypatch.setattr(kernel_status, "start_background", start_background)
    status = KernelCompileStatus(bar)
    assert status.start()
    go.set()
    qtbot.waitUntil(lambda: bar.currentMessage().startswith("routing kernels ready"), timeout=30_000)
    assert bar.currentMessage() == "routing kernels ready (30 compiled in 72 s)"
    status._compiled(Compiled(2, 30, "kernels.scatter_columns", 0.4))
    qtbot.waitUntil(lambda: "2/30" in bar.currentMessage(), timeout=30_000)
    assert bar.currentMessage() == ("compiling the routing kernels (first run only): 2/30 kernels.scatter_columns "
                                    "— routing meanwhile runs without them")
    bar.clearMessage()
    status._done(0.4, 0, None)                     # everything came from numba's disk cache
    status._done(1.0, 0, RuntimeError("no compiler"))
    qtbot.waitUntil(lambda: bar.currentMessage() != "", timeout=30_000)
    assert bar.currentMessage() == ("the routing kernels could not be compiled (no compiler); they compile "
                                    "when first used")
