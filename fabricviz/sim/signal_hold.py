"""SIGINT and SIGTERM held while the main thread runs Dask's client code, delivered at our checkpoints.

A handler that raises (Python's ``KeyboardInterrupt``; the CLI's ``Terminated``, see
``fabricviz.commands.stopping``) raises wherever the main thread is. Inside distributed's client code
that can leave a lock held which the client's IO-loop thread then waits for forever:
``threading.Condition.__enter__`` is Python code, so the exception can come between its lock's
acquire and the ``with`` that would release it. Seen with py-spy after SIGTERM under load: the main
thread in ``Client.close`` (or ``Client.cancel``) waiting for the loop, the loop thread in
``Queue.put`` from ``as_completed._track_future`` (or in ``Client._dec_ref``) waiting for a lock the
interrupted main thread had taken — the run never ended. Raised in a ``__del__`` (distributed's
``Future.__del__``) the exception is dropped instead, and the run went on to its end.

:func:`hold_stop_signals` installs, in the main thread only, a handler that just records the first
signal; :meth:`Held.deliver` hands a recorded signal to the handler that was in place before (so the
CLI's handler raises there, in our own code), and leaving the outermost hold delivers one still held.
Nested holds share the outer one. In other threads (the GUI's runners) nothing changes: Python runs
signal handlers in the main thread only.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

STOPS = (signal.SIGINT, signal.SIGTERM)


class Held:
    """The signal held by :func:`hold_stop_signals` (``signum``, None until one came)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._old: dict[int, Any] = {}         # signal -> the handler in place before the hold
        self._installed = False

    def _record(self, signum: int, _frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum

    def deliver(self) -> None:
        """Hand a held signal to the handler that was in place before the hold, as if it came now:
        its exception (``Terminated``, ``KeyboardInterrupt``) is raised from this call."""
        signum, self.signum = self.signum, None
        if signum is None:
            return
        was = self._old.get(signum)
        if callable(was):
            handler: Callable[[int, FrameType | None], Any] = was
            handler(signum, sys._getframe(1))
        elif was == signal.SIG_DFL:           # nobody handles it: the default action (the process ends)
            self._restore()
            signal.raise_signal(signum)

    def _install(self) -> None:
        for s in STOPS:
            was = signal.getsignal(s)
            if was is not None and was != signal.SIG_IGN:   # ignored (nohup) or not Python's: leave it
                self._old[s] = was
                signal.signal(s, self._record)
        self._installed = True

    def _restore(self) -> None:
        if self._installed:
            self._installed = False
            for s, was in self._old.items():
                signal.signal(s, was)


_holding: Held | None = None     # the main thread's outermost hold


@contextmanager
def hold_stop_signals() -> Iterator[Held]:
    """While inside (main thread): SIGINT and SIGTERM are recorded, not raised; call
    :meth:`Held.deliver` where raising is safe. On leaving the outermost hold the handlers are put
    back and a signal still held is delivered there. Elsewhere: an inert :class:`Held`."""
    global _holding
    if threading.current_thread() is not threading.main_thread():
        yield Held()
        return
    if _holding is not None:
        yield _holding
        return
    held = _holding = Held()
    held._install()
    try:
        yield held
    finally:
        _holding = None
        held._restore()
        held.deliver()


__all__ = ["Held", "hold_stop_signals"]
