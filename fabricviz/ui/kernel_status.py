"""The first run's kernel compile, in the background, told in the status bar.

:func:`fabricviz.ib.warmup.start_background` compiles (or loads from numba's disk cache) the
subnet manager's kernels in a daemon thread while the window is already usable: routing takes
its numpy paths meanwhile (the same tables). Each kernel compiled is shown as it ends
(``k/N name``); nothing is shown when every kernel comes from the cache."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from fabricviz.ib.kernel_progress import Compiled
from fabricviz.ib.warmup import start_background

#: How long (ms) the closing message stays.
DONE_MS = 10_000


class KernelCompileStatus(QtCore.QObject):
    """Shows the background compile's progress in ``bar`` (signals cross from the compile thread)."""

    message = QtCore.Signal(str, int)

    def __init__(self, bar: QtWidgets.QStatusBar) -> None:
        super().__init__(bar)
        self.message.connect(bar.showMessage)

    def start(self) -> bool:
        """Start the compile (once per process); False when it was started before."""
        return start_background(self._compiled, self._done)

    def _say(self, text: str, ms: int) -> None:
        try:
            self.message.emit(text, ms)
        except RuntimeError:       # the window is gone: the compile goes on for the disk cache
            pass

    def _compiled(self, c: Compiled) -> None:
        self._say(f"compiling the routing kernels (first run only): {c.done}/{c.total} {c.name} — "
                  "routing meanwhile runs without them", 0)

    def _done(self, seconds: float, compiled: int, error: BaseException | None) -> None:
        if error is not None:
            self._say(f"the routing kernels could not be compiled ({error}); they compile when first used", DONE_MS)
        elif compiled:
            self._say(f"routing kernels ready ({compiled} compiled in {seconds:.0f} s)", DONE_MS)


__all__ = ["KernelCompileStatus"]
