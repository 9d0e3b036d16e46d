"""Run many independent seeded tasks ``fn(shared, item) -> result``: serially, on a local Dask
cluster fabricviz starts itself, or on an existing one; the same results in item order either way.

Sweeps (what-if trials, collective sizes, batches of designs) are pure functions of a large
``shared`` input (the fabric, its routing) and a small item (a seed, a size). :class:`FanOut` is the
one way the CLI and the GUI run them:

* ``FanOut(1)`` — serial in this process; Dask is not even imported;
* ``FanOut(N)`` — a ``distributed.LocalCluster`` of N single-threaded worker processes, started on
  entry and always shut down on exit (nothing for the user to set up);
* ``FanOut(scheduler="tcp://HOST:8786")`` — a cluster someone started with ``dask scheduler`` /
  ``dask worker``; only the client is closed on exit.

``shared`` goes to every worker once (``client.scatter(..., broadcast=True)``) and tasks refer to
it, so it is not pickled per task. Items go out in chunks (several items per task, so a small task
does not pay Dask's per-task cost each time) and only a window of chunks is in flight at once, so
10,000 items never make 10,000 futures. ``progress(done, total)`` is called for every count in order
as results come back; ``cancelled()`` is checked between results, and when it says so the pending
tasks are cancelled and :class:`Cancelled` raised. A task that raises is re-raised here as a
:class:`TaskError` naming the item it failed on (a :class:`TaskRefused`, a FabricError, when the
task refused its input, so the CLI prints it as one line).

:func:`add_fanout_args` / :func:`fanout_from_args` give commands ``--workers``, ``--scheduler`` and
``--quiet``. This module imports no Dask (nor numpy) at import time: ``fabricviz --help`` stays light.

In the main thread SIGINT and SIGTERM are held while Dask's client code runs (start-up, submitting,
waiting, shutting down) and raised between results, never inside it: :mod:`.signal_hold`.
"""

from __future__ import annotations

import argparse
import math
import re
import signal
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..model import FabricError
from .signal_hold import Held, hold_stop_signals
from .units import ParamError

Progress = Callable[[int, int], None]
#: Flags naming each parameter in errors from a runner made by :func:`fanout_from_args`.
FLAGS = {"workers": "--workers", "scheduler": "--scheduler"}
_ADDRESS = re.compile(r"^(?:(tcp|tls)://)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


class Cancelled(Exception):
    """The caller's ``cancelled()`` said stop; the pending tasks were cancelled."""

    def __init__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        super().__init__(f"cancelled after {done:,} of {total:,}")


class TaskError(Exception):
    """A task raised: ``item`` (and its ``index``) it ran on, ``error`` what it raised (also the
    ``__cause__``); a task that ran on a worker adds its traceback there as a note."""

    def __init__(self, index: int, item: Any, error: BaseException) -> None:
        self.index, self.item, self.error = index, item, error
        what = str(error) if isinstance(error, FabricError) else f"{type(error).__name__}: {error}"
        super().__init__(f"item {index} ({item!r}): {what}")


class TaskRefused(TaskError, FabricError):
    """A task refused its input with a FabricError: a one-line user error like any other."""


def _task_error(index: int, item: Any, error: BaseException, remote_tb: str = "") -> TaskError:
    cls = TaskRefused if isinstance(error, FabricError) else TaskError
    err = cls(index, item, error)
    if remote_tb:
        err.add_note("on the worker:\n" + remote_tb.rstrip())
    return err


def _run_chunk(fn: Callable[[Any, Any], Any], shared: Any, start: int, items: Sequence[Any]) -> tuple[list, float]:
    """One Dask task: ``fn`` over consecutive items and the seconds they took. It stops at the first
    item that raises and puts a :class:`_Failed` in its place, so the caller can name the item."""
    out: list = []
    t0 = time.perf_counter()
    for i, item in enumerate(items):
        try:
            out.append(fn(shared, item))
        except Exception as e:    # handed back to the caller, which names the item
            out.append(_Failed(start + i, e, traceback.format_exc()))
            break
    return out, time.perf_counter() - t0


class _Failed:
    """A task's failure as it travels back from a worker."""

    def __init__(self, index: int, error: BaseException, tb: str) -> None:
        self.index, self.error, self.tb = index, error, tb


class FanOut:
    """Where a sweep runs (see module doc); a context manager owning the cluster or the client.

    ``workers``: 1 runs serially; N > 1 starts a local cluster of N processes (``processes=False``:
    threads in this process, for tests). ``scheduler``: the address of an existing cluster (then
    ``workers`` must stay 1). ``chunk``: items per task (None: sized from the measured time per item so
    a task takes about ``target_s``, see :class:`_Chunks`); ``window``: tasks in flight (None: 2 per
    worker thread, one running and one queued behind it). ``progress``: the default
    progress callback of :meth:`map`. ``timeout``: seconds to wait for a scheduler and its workers.
    """

    def __init__(self, workers: int = 1, scheduler: str | None = None, *, processes: bool = True,
                 chunk: int | None = None, window: int | None = None, target_s: float = 0.5,
                 max_chunk: int = 10_000,
                 progress: Progress | None = None, timeout: float = 10.0) -> None:
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ParamError("workers", workers, "must be a whole number of worker processes, 1 or more")
        if scheduler is not None:
            scheduler = scheduler_address(scheduler)
            if workers != 1:
                raise ParamError("workers", workers, "a running Dask cluster (--scheduler) has its own "
                                 "workers; give one or the other")
        for name, v in (("chunk", chunk), ("window", window)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ParamError(name, v, "must be a whole number, 1 or more")
        self.workers, self.scheduler, self.processes = workers, scheduler, processes
        self.chunk, self.window, self.target_s, self.max_chunk = chunk, window, target_s, max_chunk
        self.progress, self.timeout = progress, timeout
        self.flags: dict[str, str] = {}    # parameter -> CLI flag, for errors (fanout_from_args)
        self._client: Any = None
        self._cluster: Any = None
        self._depth = 0

    @property
    def mode(self) -> str:
        """``serial``, ``local`` (a cluster this runner starts) or ``remote`` (an existing one)."""
        return "remote" if self.scheduler else ("local" if self.workers > 1 else "serial")

    @property
    def client(self) -> Any:
        """The ``distributed.Client`` while open (None serially or when closed)."""
        return self._client

    def __repr__(self) -> str:
        where = {"serial": "serial", "local": f"{self.workers} local Dask workers",
                 "remote": f"the Dask cluster at {self.scheduler}"}[self.mode]
        return f"FanOut({where})"

    # ------------------------------------------------------------------ lifetime
    def __enter__(self) -> FanOut:
        if self._depth == 0 and self.mode != "serial":
            with hold_stop_signals() as held:      # no KeyboardInterrupt inside Dask's code: signal_hold
                try:
                    self._open()
                except ParamError as e:
                    if e.param in self.flags:
                        raise FabricError(e.with_flag(self.flags[e.param])) from None
                    raise
                try:
                    held.deliver()                 # a stop during start-up: raised once it is shut down
                except BaseException:
                    self.close()
                    raise
        self._depth += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            self.close()

    def _open(self) -> None:
        from distributed import Client
        if self.mode == "local":
            import logging

            from distributed import LocalCluster
            # loopback only, and no fixed port (8787) for the scheduler's web page: two runs at once must not clash
            where = {"host": "127.0.0.1"} if self.processes else {}      # threads talk in-process
            # the workers' own logs stay quiet but for CRITICAL: a task's error reaches this process as
            # its exception, and what they log as ERROR while the cluster shuts down (a heartbeat that
            # found the scheduler gone, seen under load after SIGTERM) is no fault of the run
            with _workers_ignore_stop_signals(self.processes):
                self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                             processes=self.processes, dashboard_address="127.0.0.1:0",
                                             scheduler_kwargs={"dashboard": False},
                                             silence_logs=logging.CRITICAL, **where)
            self._client = Client(self._cluster, set_as_default=False)
            return
        try:
            self._client = Client(self.scheduler, timeout=self.timeout, set_as_default=False)
        except (OSError, TimeoutError) as e:
            raise ParamError("scheduler", self.scheduler, f"no Dask scheduler answered within {self.timeout:g} s "
                             f"({type(e).__name__})") from None
        try:
            self._client.wait_for_workers(1, timeout=self.timeout)
        except (OSError, TimeoutError):
            self.close()
            raise ParamError("scheduler", self.scheduler, f"the scheduler has no workers (waited "
                             f"{self.timeout:g} s; start some with `dask worker {self.scheduler}`)") from None

    def close(self) -> None:
        """Close the client and shut down a cluster this runner started (idempotent). A SIGINT or
        SIGTERM that comes meanwhile is raised once it is done (signal_hold)."""
        client, cluster = self._client, self._cluster
        self._client = self._cluster = None
        with hold_stop_signals():
            try:
                if client is not None:
                    client.close()
            finally:
                if cluster is not None:
                    cluster.close()

    # ------------------------------------------------------------------ running
    def map(self, fn: Callable[[Any, Any], Any], shared: Any, items: Sequence[Any], *,
            progress: Progress | None = None, cancelled: Callable[[], bool] | None = None) -> list:
        """``[fn(shared, item) for item in items]``, run where this runner runs (opened for the call
        when it is not open already). ``fn`` and ``shared`` must pickle for a cluster."""
        items = list(items)
        progress = progress or self.progress
        with self:
            if self.mode == "serial":
                return _map_serial(fn, shared, items, progress, cancelled)
            return self._map_dask(fn, shared, items, progress, cancelled)

    def threads(self) -> int:
        """Worker threads of the open cluster (1 serially)."""
        if self._client is None:
            return 1
        return int(sum(self._client.nthreads().values()))

    def _map_dask(self, fn: Callable[[Any, Any], Any], shared: Any, items: list, progress: Progress | None,
                  cancelled: Callable[[], bool] | None) -> list:
        client, total = self._client, len(items)
        if not total:
            return []
        with hold_stop_signals() as held:    # raised between results, never inside Dask's code
            return self._map_held(client, held, fn, shared, items, progress, cancelled)

    def _map_held(self, client: Any, held: Held, fn: Callable[[Any, Any], Any], shared: Any, items: list,
                  progress: Progress | None, cancelled: Callable[[], bool] | None) -> list:
        from distributed import as_completed
        total = len(items)
        threads = max(1, self.threads())
        plan = _Chunks(total, threads, self.chunk, self.target_s, self.max_chunk)
        window = self.window or 2 * threads
        ref = client.scatter(shared, broadcast=True, hash=False)
        tag = f"fanout-{uuid.uuid4().hex[:12]}"
        results: list = [None] * total
        running: dict[str, tuple[Any, int]] = {}
        stream = as_completed(loop=client.loop, with_results=True)

        def submit() -> None:
            span = plan.next()
            if span is not None:
                a, b = span
                fut = client.submit(_run_chunk, fn, ref, a, items[a:b], key=f"{tag}-{a}", pure=False)
                running[fut.key] = (fut, a)
                stream.add(fut)

        done = 0
        try:
            for _ in range(window):
                submit()
            for fut, (got, took) in _results(stream, held):
                _, a = running.pop(fut.key)
                fut.release()                 # its result is here now: free it on the cluster
                plan.took(len(got), took)
                submit()
                for i, r in enumerate(got):
                    if isinstance(r, _Failed):
                        raise _task_error(r.index, items[r.index], r.error, r.tb) from r.error
                    results[a + i] = r
                    done += 1
                    if progress is not None:
                        progress(done, total)
                if cancelled is not None and done < total and cancelled():
                    raise Cancelled(done, total)
        finally:
            if running:
                client.cancel([f for f, _ in running.values()])
        return results


def _results(stream: Any, held: Held, poll_s: float = 0.02) -> Iterator[Any]:
    """The ``(future, result)`` pairs of an ``as_completed`` stream; while waiting for one, a held
    SIGINT/SIGTERM is delivered every ``poll_s``, so a stop does not wait for the tasks in flight."""
    while True:
        while stream.count() and not stream.has_ready():
            held.deliver()
            time.sleep(poll_s)
        held.deliver()
        try:
            yield next(stream)
        except StopIteration:
            return


@contextmanager
def _workers_ignore_stop_signals(processes: bool) -> Iterator[None]:
    """Worker processes started inside ignore SIGINT and SIGTERM (an ignored signal stays ignored
    in a child, and Python then installs no KeyboardInterrupt handler there). Ctrl-C in a terminal,
    or a SIGTERM to the process group, reaches every worker too; one that took it would die with a
    traceback, or make the scheduler log the loss of its data, while this process shuts the
    cluster down in order (the CLI unwinds on both signals: fabricviz.commands.stopping). A
    worker still ends: the nanny stops it (then SIGKILL), and it exits at once when this process
    is gone (distributed's parent-alive pipe). Only from the main thread: the GUI starts clusters
    from threads of its own, where signal dispositions cannot be set."""
    if not processes or threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, was in old.items():
            signal.signal(s, was)


class _Chunks:
    """The next span of items to send: ``chunk`` items when fixed, else sized from the measured
    time per item so a task runs about ``target_s`` (on a busy 2-core machine Dask costs 2–3 ms of
    wall time and ~6–10 ms of scheduler and client CPU a task: bench/fanout.py), never so large that
    the last tasks leave workers idle (≤ 1/4 of the remaining share of a thread), at most ``max_chunk``
    items; the first round sends one item per task to measure."""

    def __init__(self, total: int, threads: int, chunk: int | None, target_s: float, max_chunk: int) -> None:
        self.total, self.threads, self.fixed = total, threads, chunk
        self.target_s, self.max_chunk = target_s, max_chunk
        self.start, self.items, self.seconds = 0, 0, 0.0

    def took(self, n: int, seconds: float) -> None:
        self.items += n
        self.seconds += seconds

    def size(self) -> int:
        if self.fixed:
            return self.fixed
        if not self.items:
            return 1
        per_item = max(self.seconds / self.items, 1e-7)
        share = math.ceil((self.total - self.start) / (4 * self.threads))
        return max(1, min(self.max_chunk, int(self.target_s / per_item), share))

    def next(self) -> tuple[int, int] | None:
        if self.start >= self.total:
            return None
        a = self.start
        self.start = min(self.total, a + self.size())
        return a, self.start


def _map_serial(fn: Callable[[Any, Any], Any], shared: Any, items: list, progress: Progress | None,
                cancelled: Callable[[], bool] | None) -> list:
    out, total = [], len(items)
    for i, item in enumerate(items):
        try:
            out.append(fn(shared, item))
        except Exception as e:
            raise _task_error(i, item, e) from e
        if progress is not None:
            progress(i + 1, total)
        if cancelled is not None and i + 1 < total and cancelled():
            raise Cancelled(i + 1, total)
    return out


def scheduler_address(text: str) -> str:
    """``tcp://HOST:PORT`` (``HOST:PORT`` gets ``tcp://``; ``tls://`` is kept) or a ParamError."""
    m = _ADDRESS.match(text.strip()) if isinstance(text, str) else None
    if not m or not 0 < int(m.group(3)) < 65536:
        raise ParamError("scheduler", text, "use tcp://HOST:PORT, the address `dask scheduler` prints")
    return f"{m.group(1) or 'tcp'}://{m.group(2)}:{int(m.group(3))}"


# ---------------------------------------------------------------------- CLI
def add_fanout_args(parser: argparse.ArgumentParser) -> None:
    """``--workers N``, ``--scheduler ADDRESS`` and ``--quiet`` for a command that runs a sweep."""
    g = parser.add_argument_group("parallel runs (Dask)")
    g.add_argument("--workers", type=int, default=None, metavar="N",
                   help="worker processes of a local Dask cluster fabricviz starts (default 1: serial)")
    g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on an existing Dask cluster (tcp://HOST:8786, from `dask scheduler`)")
    g.add_argument("--quiet", action="store_true", help="no progress bar on stderr")


def fanout_from_args(args: argparse.Namespace, stream: Any = None) -> FanOut:
    """The runner for ``--workers`` / ``--scheduler``, with a progress bar on ``stream`` (stderr;
    only when it is a terminal) unless ``--quiet``; a bad value is a one-line FabricError naming its flag."""
    workers = getattr(args, "workers", None)
    scheduler = getattr(args, "scheduler", None)
    try:
        runner = FanOut(1 if workers is None else workers, scheduler)
    except ParamError as e:
        raise FabricError(e.with_flag(FLAGS.get(e.param, e.param))) from None
    runner.flags = dict(FLAGS)
    if not getattr(args, "quiet", False):
        runner.progress = progress_bar(stream)
    return runner


def progress_bar(stream: Any = None) -> Progress | None:
    """``progress(done, total)`` drawing :func:`~.progress.text_progress`'s bar (None off a terminal)."""
    from .progress import text_progress
    show = text_progress(sys.stderr if stream is None else stream)
    if show is None:
        return None
    bar = show
    return lambda done, total: bar(done / total if total else 1.0)


__all__ = ["Cancelled", "FLAGS", "FanOut", "TaskError", "TaskRefused", "add_fanout_args",
           "fanout_from_args", "progress_bar", "scheduler_address"]
