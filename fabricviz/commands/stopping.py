"""SIGTERM and SIGINT for a headless run: unwind like Ctrl-C, clean up once, exit 143 or 130.

Python's default for SIGTERM ends the process on the spot: no ``finally``, no ``with`` exit, so
a local Dask cluster's worker processes and multiprocessing's semaphores are left to the
resource tracker, which prints "leaked semaphore objects" on its way out. :func:`stop_signals`
turns SIGTERM into :class:`Terminated` (a ``KeyboardInterrupt``, so everything that cleans up
after Ctrl-C cleans up after it too) and makes a second SIGTERM or SIGINT wait for that cleanup
instead of cutting it short. The CLI exits ``128 + signal``: 130 after SIGINT, 143 after
SIGTERM, as a shell reports a process that the signal ended.

(Ctrl-C in a terminal reaches the whole process group; the worker processes of a local
cluster ignore SIGINT — see :mod:`fabricviz.sim.fanout` — and are shut down by this one. While
the main thread runs Dask's client code the signal is held and raised in fanout's own code just
after, since raised inside it could leave a lock taken that the client's IO loop then waits for
forever: :mod:`fabricviz.sim.signal_hold`.)
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived: the run unwinds as after Ctrl-C."""


class Stop:
    """What :func:`stop_signals` saw: ``signum`` of the first SIGTERM/SIGINT, None until one came.

    The signal's exception is raised wherever the main thread is; inside a library's lock or
    connection code it can come out as another exception (distributed's client, interrupted in
    a ``with`` of its condition: "cannot release un-acquired lock"). The run stopped all the same:
    the CLI exits ``128 + signum`` for it, with nothing printed."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def status(self) -> int | None:
        """128 + the signal once one came, else None."""
        return None if self.signum is None else 128 + self.signum


def exit_status(exc: KeyboardInterrupt) -> int:
    """The exit status after ``exc``: 143 for SIGTERM, 130 for SIGINT."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


class _Handler:
    """The handler :func:`stop_signals` installs, and its ``sys.unraisablehook``.

    The first signal's exception is raised wherever the main thread is. Inside a ``__del__`` or a
    weakref callback (distributed's ``Future.__del__``, for one) Python does not propagate it: it
    hands it to ``sys.unraisablehook``, prints "Exception ignored in ..." and the run went on to its
    end, deaf to any later signal (those wait for a cleanup that was not under way). Here the hook
    takes that exception back silently and has the signal sent again to the main thread, from a
    thread of its own: the hook itself must not raise, and the main thread runs no handler between
    the hook's last statement and its return, so the exception comes out in the code that follows."""

    def __init__(self, stop: Stop) -> None:
        self.stop = stop
        self.raised: KeyboardInterrupt | None = None   # the exception unwinding the run
        self.in_hook = False
        self.active = True
        self.previous_hook = sys.unraisablehook

    def __call__(self, signum: int, _frame: FrameType | None) -> None:
        if self.stop.signum is None:
            self.stop.signum = signum
        if self.raised is not None or self.in_hook:
            return                      # cleaning up after the first one (or about to raise it again)
        self.raised = Terminated() if self.stop.signum == signal.SIGTERM else KeyboardInterrupt()
        raise self.raised

    def unraisable(self, u: Any) -> None:
        """``sys.unraisablehook``: the signal's exception, dropped, is raised again; others as before."""
        if self.raised is None or not _caused_by(u.exc_value, self.raised):
            self.previous_hook(u)
            return
        self.in_hook = True
        self.raised = None
        threading.Thread(target=self._again, name="stop signal again", daemon=True).start()
        self.in_hook = False            # last: see the class doc

    def _again(self) -> None:
        while self.in_hook:
            time.sleep(0.001)
        if self.active and self.stop.signum is not None:
            signal.pthread_kill(threading.main_thread().ident or 0, self.stop.signum)


def _caused_by(exc: BaseException | None, cause: BaseException) -> bool:
    """``exc`` is ``cause`` or came while handling it (a library's error out of the interrupted code)."""
    seen = 0
    while exc is not None and seen < 100:
        if exc is cause:
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


@contextmanager
def stop_signals() -> Iterator[Stop]:
    """While inside: the first SIGTERM raises :class:`Terminated`, the first SIGINT
    ``KeyboardInterrupt``; any later one is ignored while the run cleans up. Only in the main
    thread (where Python runs signal handlers); elsewhere nothing changes. Yields the :class:`Stop`
    that records the first signal. An exception of the signal's that Python drops (raised in a
    ``__del__``) is raised again in the code that follows (:class:`_Handler`)."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    handler = _Handler(stop)
    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    for s, was in old.items():
        if was is not signal.SIG_IGN:   # started with the signal ignored (nohup, &): keep it so
            signal.signal(s, handler)
    sys.unraisablehook = handler.unraisable
    try:
        yield stop
    finally:
        handler.active = False
        sys.unraisablehook = handler.previous_hook
        for s, was in old.items():
            if was is not None:
                signal.signal(s, was)


__all__ = ["Stop", "Terminated", "exit_status", "stop_signals"]
