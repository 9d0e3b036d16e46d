"""SIGTERM and SIGINT for a headless run: unwind like Ctrl-C, clean up once, exit 143 or 130.

Python's default for SIGTERM ends the process on the spot: no ``finally``, no ``with`` exit, so
a local Dask cluster's worker processes and multiprocessing's semaphores are left to the
resource tracker, which prints "leaked semaphore objects" on its way out. :func:`stop_signals`
turns SIGTERM into :class:`Terminated` (a ``KeyboardInterrupt``, so everything that cleans up
after Ctrl-C cleans up after it too) and makes a second SIGTERM or SIGINT wait for that cleanup
instead of cutting it short. The CLI exits ``128 + signal``: 130 after SIGINT, 143 after
SIGTERM, as a shell reports a process that the signal ended.

(Ctrl-C in a terminal reaches the whole process group; the worker processes of a local
cluster ignore SIGINT — see :mod:`fabricviz.sim.fanout` — and are shut down by this one.)
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


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


@contextmanager
def stop_signals() -> Iterator[Stop]:
    """While inside: the first SIGTERM raises :class:`Terminated`, the first SIGINT
    ``KeyboardInterrupt``; any later one is ignored while the run cleans up. Only in the main
    thread (where Python runs signal handlers); elsewhere nothing changes. Yields the :class:`Stop`
    that records the first signal."""
    stop = Stop()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum: int, _frame: FrameType | None) -> None:
        if stop.signum is not None:
            return                      # cleaning up after the first one: let it finish
        stop.signum = signum
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    for s, was in old.items():
        if was is not signal.SIG_IGN:   # started with the signal ignored (nohup, &): keep it so
            signal.signal(s, handler)
    try:
        yield stop
    finally:
        for s, was in old.items():
            if was is not None:
                signal.signal(s, was)


__all__ = ["Stop", "Terminated", "exit_status", "stop_signals"]
