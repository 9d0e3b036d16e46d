"""GUI entry point: ``run_gui(path)`` opens the main window and runs Qt's event loop."""

from __future__ import annotations

import os
import signal
import sys
from typing import NoReturn

from PySide6 import QtWidgets

from fabricviz.ui.kernel_status import KernelCompileStatus
from fabricviz.ui.main_window import MainWindow

NO_DISPLAY = (
    "fabricviz: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the GUI "
    "cannot open.\n"
    "  Run it on a desktop, over `ssh -X`, or under `xvfb-run -a`.\n"
    "  The CLI needs no display: `fabricviz generate ...`, `fabricviz info FILE`."
)


def _has_display() -> bool:
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run_gui(path: str | None = None) -> int:
    """Open the main window on ``path`` (None: the bundled demo fabric).

    Returns the event loop's exit code, or 2 when there is no display to open
    a window on. Uses the running QApplication if there is one.
    """
    if QtWidgets.QApplication.instance() is None and not _has_display():
        print(NO_DISPLAY, file=sys.stderr)
        return 2
    own = QtWidgets.QApplication.instance() is None
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0] or "fabricviz"])
    app.setApplicationName("fabricviz")
    try:  # Ctrl+C in the terminal closes the GUI
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not in the main thread
        pass
    windows = start_windows(path)
    KernelCompileStatus(windows[0].statusBar()).start()   # first run: compiles while the window is usable
    code = int(app.exec())
    del windows
    if own:
        leave(code)
    return code


def leave(code: int) -> NoReturn:
    """End the process once the last window closed, without Python's teardown.

    Closing already did what must be done (the design saved or discarded, its recovery file
    deleted, jobs cancelled, What-if workers shut down). Python's finalisation would then
    destroy every object one by one — a big design's tens of thousands of canvas items and
    their wrappers, seconds with no window on screen (issue 29: "the process lingers 5–10 s
    after the window closes"). Here the settings are written, the exit handlers run (Dask,
    multiprocessing, the clipboard's) and the output flushed, then the process ends."""
    import atexit
    import logging

    from fabricviz.ui.document.settings import settings
    settings().sync()
    atexit._run_exitfuncs()
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


def start_windows(path: str | None = None) -> list[MainWindow]:
    """What a start does: the main window on ``path`` (shown), the one-line error in a dialog
    if the file cannot be opened, then the offer to recover designs a crash left unsaved
    (those that do not go into the main window open in windows of their own). Returns every
    window opened, the main one first."""
    from fabricviz.ui.document.autosave import offer_recovery
    window = MainWindow(path)
    window.show()
    if path is not None and window.files.load_error:
        QtWidgets.QMessageBox.critical(window, "Open failed", window.files.load_error)
    return [window, *offer_recovery(window)]
