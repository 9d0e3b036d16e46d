"""The child-process side of the fuzzer (tests/formats/fuzzing.py): verdicts and the worker pool.

:func:`judge` calls a reader on one file and gives its verdict; :class:`Runner` keeps long-lived
forked workers, each under an ``RLIMIT_AS`` cap, sends them files one at a time, and turns a worker
that does not answer within the timeout into ``hang`` (killed and replaced) and one that dies into
``memory``. The verdicts are described in fuzzing.py.
"""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import resource
import signal
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path
from typing import Callable, Iterable

from fabricviz.model import FabricError

ROOT = Path(__file__).resolve().parents[2]


_STAGE = [""]


def _stage(name: str) -> None:
    """Mark that loading is done and the reader is on its follow-up (an error there is a crash)."""
    _STAGE[0] = name


def names_place(msg: str, path: str) -> bool:
    """One line that starts with the file (its path or its name) followed by ':'."""
    if "\n" in msg or "\r" in msg:
        return False
    return any(msg.startswith(p + ":") and len(msg) > len(p) + 1 for p in (path, os.path.basename(path)))


def _where(f: traceback.FrameSummary) -> str:
    fn = os.path.relpath(f.filename, ROOT) if os.path.isabs(f.filename) else f.filename
    if fn.startswith(".."):
        fn = "/".join(Path(f.filename).parts[-2:])
    return f"{fn}:{f.lineno}"


def _frame(e: BaseException) -> str:
    """Innermost frame of fabricviz, and the innermost of all when that is elsewhere (a library)."""
    tb = traceback.extract_tb(e.__traceback__)
    if not tb:
        return "?"
    ours = [f for f in tb if f"{os.sep}fabricviz{os.sep}" in f.filename]
    last = _where(tb[-1])
    if not ours or ours[-1] is tb[-1]:
        return last
    return f"{_where(ours[-1])} ({last})"


def judge(reader: Callable, fmt: str, path: str, topology: str | None) -> dict:
    """Call ``reader`` and return its verdict dict (outcome, type, message, frame, noise)."""
    out, err = io.StringIO(), io.StringIO()
    _STAGE[0] = ""
    res: dict = {"outcome": "accepted", "type": "", "message": "", "frame": ""}
    with warnings.catch_warnings(record=True) as caught, \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        try:
            reader(fmt, path, topology)
        except MemoryError as e:
            res.update(outcome="memory", type="MemoryError", message=str(e), frame=_frame(e))
        except FabricError as e:
            msg = str(e)
            if _STAGE[0]:
                res.update(outcome="crash", type=type(e).__name__, message=f"{_STAGE[0]}: {msg}", frame=_frame(e))
            else:
                res.update(outcome="refused" if names_place(msg, path) else "unnamed",
                           type=type(e).__name__, message=msg, frame=_frame(e))
        except Exception as e:     # the fuzzer's job: record every other exception
            pre = f"{_STAGE[0]}: " if _STAGE[0] else ""
            res.update(outcome="crash", type=type(e).__name__, message=pre + str(e), frame=_frame(e))
    noise = [f"{w.category.__name__}: {w.message}" for w in caught]
    noise += [s for s in (out.getvalue().strip(), err.getvalue().strip()) if s]
    res["noise"] = "; ".join(noise)[:500]
    res["message"] = res["message"][:500]
    return res


# --------------------------------------------------------------------------------------- the pool
def _worker(conn, reader, mem_bytes: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if mem_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    while True:
        try:
            task = conn.recv()
        except EOFError:
            break
        if task is None:
            break
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with tempfile.TemporaryFile() as fd_out:      # what C code writes to fd 1/2 is noise too
            saved = [os.dup(1), os.dup(2)]
            os.dup2(fd_out.fileno(), 1)
            os.dup2(fd_out.fileno(), 2)
            try:
                res = judge(reader, *task)
            finally:
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
                os.close(saved[0])
                os.close(saved[1])
            fd_out.seek(0)
            raw = fd_out.read(500).decode(errors="replace").strip()
        if raw:
            res["noise"] = "; ".join(x for x in (res["noise"], "fd: " + raw) if x)[:500]
        res["grew_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024  # peak RSS rise
        conn.send(res)
    conn.close()


def _vsz() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


@dataclass
class Runner:
    """Long-lived forked workers; each task is (fmt, path, topology); hung or dead workers are replaced."""

    reader: Callable | None = None      # None: fuzzing.read_mutant, what fabricviz does with a file
    jobs: int = 2
    timeout: float = 5.0
    mem_gb: float = 2.5
    max_grow_mb: float = 512     # a peak-RSS rise above this reading one small file is a ``memory`` verdict
    _workers: list = field(default_factory=list)

    def _spawn(self):
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        mem = int(self.mem_gb * 2 ** 30)
        mem = max(mem, _vsz() + 2 ** 30) if mem else 0
        if self.reader is None:
            from tests.formats.fuzzing import read_mutant
            self.reader = read_mutant
        p = ctx.Process(target=_worker, args=(child, self.reader, mem), daemon=True)
        p.start()
        child.close()
        return [p, parent, None, 0.0]      # process, pipe, current task key, start time

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        for p, conn, _k, _t in self._workers:
            with contextlib.suppress(OSError):
                conn.send(None)
            p.join(1)
            if p.is_alive():
                p.kill()
                p.join()
            conn.close()
        self._workers = []

    def run(self, tasks: Iterable[tuple]) -> dict[str, dict]:
        """``tasks``: (key, (fmt, path, topology)[, data]); with data, the file ``path`` is written just
        before it is read and removed after. Returns key -> verdict dict (+ seconds)."""
        while len(self._workers) < self.jobs:
            self._workers.append(self._spawn())
        todo, results, retry = iter(tasks), {}, []
        while True:
            for w in self._workers:
                if w[2] is None:
                    item = retry.pop() if retry else next(todo, None)
                    if item is None:
                        continue
                    if len(item) > 2:
                        Path(item[1][1]).write_bytes(item[2])
                    try:
                        w[1].send(item[1])
                    except OSError:                  # BrokenPipeError included: a dead worker
                        retry.append(item)
                        self._replace(w)
                        continue
                    w[2], w[3] = item, time.monotonic()
            busy = [w for w in self._workers if w[2] is not None]
            if not busy:
                return results
            now = time.monotonic()
            left = min(w[3] + self.timeout for w in busy) - now
            ready = wait([w[1] for w in busy], max(0.0, left))
            now = time.monotonic()
            for w in busy:
                key = w[2][0]
                if w[1] not in ready and now - w[3] < self.timeout:
                    continue
                if len(w[2]) > 2:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(w[2][1][1])
                if w[1] in ready:
                    try:
                        res = w[1].recv()
                    except (EOFError, OSError):
                        w[0].join(1)
                        code = w[0].exitcode
                        res = {"outcome": "memory", "type": "worker died",
                               "message": f"worker exit code {code}" + (
                                   f" ({signal.Signals(-code).name})" if code and code < 0 else ""),
                               "frame": "", "noise": ""}
                        self._replace(w)
                    res["seconds"] = now - w[3]
                    if res.get("grew_mb", 0) > self.max_grow_mb and res["outcome"] in ("accepted", "refused"):
                        res.update(outcome="memory", type="peak RSS", message=f"peak RSS rose {res['grew_mb']:.0f} MB "
                                   f"({res['outcome']} after that)")
                    results[key] = res
                    w[2] = None
                else:
                    results[key] = {"outcome": "hang", "type": "timeout",
                                    "message": f"no answer within {self.timeout:g} s", "frame": "",
                                    "noise": "", "seconds": now - w[3]}
                    self._replace(w)

    def _replace(self, w) -> None:
        p, conn = w[0], w[1]
        if p.is_alive():
            p.kill()
        p.join()
        conn.close()
        w[:] = self._spawn()
