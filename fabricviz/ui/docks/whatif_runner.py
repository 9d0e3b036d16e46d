"""Where the What-if dock's trials run: in this process, or on Dask workers kept for the session.

The trials are :func:`fabricviz.sim.whatif.run_trial`, pure functions of ``(shared, index)``, run
through :class:`fabricviz.sim.fanout.FanOut` as ``fabricviz whatif --workers N / --scheduler`` runs
them, so every choice gives the serial numbers. :class:`DaskWorkers` owns the session's cluster (a
``LocalCluster`` of N worker processes, or a client of an existing scheduler): started in the job's
thread on the first run that asks for it (the UI never waits for it), reused by the next runs with
the same choice, closed when another choice runs, and on quit or when the dock goes (no process is
left behind).

On a cluster the trials go out in batches of consecutive indices, each one ``FanOut.map`` call of
about :data:`BATCH_S` seconds: ``map`` hands its results back only when it is done, and Cancel keeps
the trials of the batches that finished (a prefix, as a serial run keeps), losing at most one batch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fabricviz.model import FabricError
from fabricviz.sim import whatif as engine
from fabricviz.sim.fanout import Cancelled as FanOutCancelled
from fabricviz.sim.fanout import FanOut, TaskRefused, scheduler_address
from fabricviz.sim.units import ParamError
from fabricviz.sim.whatif import Shared, TrialResult, parse_fail, parse_metric, prepare, ranked
from fabricviz.ui.jobs import Cancelled

#: QSettings keys of the dock's "Workers" and "Dask scheduler" choices.
WORKERS_KEY, SCHEDULER_KEY = "whatif/workers", "whatif/scheduler"
#: Seconds of trials per ``FanOut.map`` call on a cluster (what a Cancel may lose).
BATCH_S = 1.5
#: Trials per worker thread in the first batch (its time sizes the next ones).
FIRST_BATCH = 4
#: Seconds to wait for a Dask scheduler and its workers before saying it is unreachable.
TIMEOUT_S = 5.0


@dataclass(frozen=True)
class Where:
    """Where a run goes: ``workers`` local processes (1: this process) or an existing ``scheduler``."""

    workers: int = 1
    scheduler: str | None = None

    @property
    def serial(self) -> bool:
        return self.scheduler is None and self.workers == 1

    @property
    def starting(self) -> str:
        """What the status line says while the cluster starts."""
        if self.scheduler is not None:
            return f"connecting to the Dask scheduler at {self.scheduler}…"
        return f"starting {self.workers} Dask workers…"


def where_of(workers: int, scheduler_text: str) -> Where:
    """The choice of the dock's fields; a bad scheduler address is a one-line FabricError."""
    text = scheduler_text.strip()
    if not text:
        return Where(max(1, int(workers)))
    try:
        return Where(1, scheduler_address(text))
    except ParamError as e:
        raise FabricError(e.with_flag("Dask scheduler")) from None


class DaskWorkers:
    """The session's Dask cluster or client (see the module doc). :meth:`runner` is called in a
    job's thread with :attr:`lock` held (one run at a time uses it); :meth:`close` from the UI
    thread never waits for a run: it closes what is open, and a cluster still starting is closed
    as soon as it is up."""

    def __init__(self, processes: bool = True, timeout: float = TIMEOUT_S) -> None:
        self.processes, self.timeout = processes, timeout
        self.lock = threading.Lock()
        self._state = threading.Lock()
        self._fanout: FanOut | None = None
        self._where: Where | None = None
        self.closed = False

    def ready(self, where: Where) -> bool:
        """True when a run with ``where`` needs no cluster started (serial, or the one open)."""
        return where.serial or (self._fanout is not None and self._where == where)

    @property
    def where(self) -> Where | None:
        """The cluster open now (None: none)."""
        return self._where if self._fanout is not None else None

    def runner(self, where: Where, say: Callable[[str], None] = lambda _t: None) -> FanOut:
        """The runner for ``where``: serial, the cluster open for it, or one started now (closing
        another choice's first); an unreachable scheduler is a one-line FabricError."""
        if where.serial:
            self._drop()
            return FanOut(1)
        if self.closed:                 # the window closed or the application quits
            raise Cancelled("what-if")
        with self._state:
            if self._fanout is not None and self._where == where:
                return self._fanout
        self._drop()
        say(where.starting)
        fo = FanOut(where.workers, where.scheduler, processes=self.processes, timeout=self.timeout)
        try:
            fo.__enter__()
        except ParamError as e:
            raise FabricError(e.with_flag("Dask scheduler")) from None
        with self._state:
            if not self.closed:
                self._fanout, self._where = fo, where
                return fo
        fo.close()                      # closed while it started (quit): it goes at once
        raise Cancelled("what-if")

    def _drop(self) -> None:
        with self._state:
            fo, self._fanout, self._where = self._fanout, None, None
        if fo is not None:
            fo.close()

    def close(self) -> None:
        """Shut the cluster down (or close the client of an existing one) for good (idempotent)."""
        self.closed = True
        self._drop()


@dataclass
class WhatifRun:
    """One run of the dock: its engine input, the trials done, the rows shown, where it stands."""

    shared: Shared | None = None
    results: list[TrialResult] = field(default_factory=list)
    worst: bool = False
    revision: int = 0
    total: int = 0
    cancelled: bool = False
    done: int = 0                   # trials finished (on a cluster: ahead of ``results``)
    where: Where = Where()

    def rows(self) -> list[TrialResult]:
        return ranked(self.results) if self.worst else list(self.results)


def whatif_job(fabric: Any, fail: str, metric: str, trials: int, seed: int, worst: bool, run: WhatifRun,
               where: Where = Where(), workers: DaskWorkers | None = None,
               say: Callable[[str], None] = lambda _t: None) -> Callable[[Callable[[float], None]], WhatifRun]:
    """The worker's function: prepare on ``fabric`` (a snapshot), then every trial where ``where``
    says, appended to ``run.results`` as they come back (so a cancelled run keeps them), with
    progress per trial; ``say`` tells the status line what happens before the trials."""
    def work(progress: Callable[[float], None]) -> WhatifRun:
        progress(0.0)
        shared = prepare(fabric, parse_fail(fail), parse_metric(metric), trials, seed, "minhop", worst)
        run.shared, run.total = shared, len(shared.trials)
        owner = workers or DaskWorkers()
        with owner.lock:
            progress(0.0)                   # cancelled while an earlier run let go: stop here
            runner = owner.runner(where, say)
            progress(0.0)                   # cancelled while the cluster started: no trial sent
            try:
                if runner.mode == "serial":
                    _serial(runner, shared, run, progress)
                else:
                    _batches(runner, shared, run, progress)
            except FanOutCancelled:
                raise Cancelled("what-if") from None
            except TaskRefused as e:        # a trial refused its input: its own one line, as serially
                raise e.error from None
        return run
    return work


def _reporter(run: WhatifRun, progress: Callable[[float], None],
              before: int = 0) -> tuple[Callable[[int, int], None], Callable[[], bool]]:
    """FanOut's ``progress(done, total)`` and ``cancelled()`` over the job's ``progress(fraction)``
    (which raises :class:`Cancelled` once the job is cancelled)."""
    def report(done: int, _total: int) -> None:
        run.done = before + done
        progress(run.done / run.total)

    def cancelled() -> bool:
        try:
            progress(run.done / run.total)
        except Cancelled:
            return True
        return False
    return report, cancelled


def _serial(runner: FanOut, shared: Shared, run: WhatifRun, progress: Callable[[float], None]) -> None:
    """Every trial in this process, each kept as it finishes."""
    def trial(sh: Shared, j: int) -> TrialResult:
        r = engine_trial(sh, j)
        run.results.append(r)
        return r
    report, cancelled = _reporter(run, progress)
    runner.map(trial, shared, range(run.total), progress=report, cancelled=cancelled)


def _batches(runner: FanOut, shared: Shared, run: WhatifRun, progress: Callable[[float], None]) -> None:
    """Every trial on the cluster, a batch of about :data:`BATCH_S` at a time (see the module doc)."""
    first = FIRST_BATCH * max(1, runner.threads())
    size = first
    while len(run.results) < run.total:
        a = len(run.results)
        b = min(run.total, a + size)
        report, cancelled = _reporter(run, progress, a)
        t0 = time.perf_counter()
        got = runner.map(engine.run_trial, shared, range(a, b), progress=report, cancelled=cancelled)
        run.results.extend(got)
        took = max(time.perf_counter() - t0, 1e-3)
        size = max(first, int(len(got) / took * BATCH_S))


def engine_trial(shared: Shared, j: int) -> TrialResult:
    """One trial in this process (looked up at call time, so tests can hold a trial back)."""
    return engine.run_trial(shared, j)


__all__ = ["BATCH_S", "DaskWorkers", "SCHEDULER_KEY", "WORKERS_KEY", "Where", "WhatifRun", "engine_trial",
           "where_of", "whatif_job"]
