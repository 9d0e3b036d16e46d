"""The child-process side of the fuzzer (tests/formats/fuzzing.py): verdicts and the worker pool.

:func:`judge` calls a reader on one file and gives its verdict. :class:`Runner` keeps long-lived
workers, started by a ``forkserver`` (so no thread of the calling process, such as Qt's under
pytest-qt, is forked), warmed up once (every import and cache in place), and sends them files one at
a time. A worker reads them in a fork of itself under an ``RLIMIT_AS`` cap: a fork reads up to
``PER_CHILD`` files, each with its own peak RSS (reset through /proc/self/clear_refs; where that is
not allowed, one fork per file), and is replaced once it keeps more than ``RETAIN_KB`` of memory, so
that nothing a file left behind hides the next one's rise. A fork that spends ``timeout`` seconds of
CPU time on a file without an answer (work done, not wall time: a loaded machine only makes it take
longer), or gives none within the generous wall-clock ``deadline`` (a reader blocked for good), is
killed (``hang``); one that dies is ``memory``; the file's rise of the peak is ``mem_mb``, and over
its bytes ``mem_ratio``. The verdicts are described in fuzzing.py.
"""

from __future__ import annotations

import contextlib
import gc
import io
import multiprocessing
import os
import resource
import signal
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

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
_PR_SET_PDEATHSIG = 1
#: thread pools (OpenBLAS under numpy) that the workers must not start, so that they fork single-threaded
_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: how much longer than ``deadline`` the pool waits for a worker itself (which enforces the limits)
GRACE = 10.0
#: a file that gets no answer within this many wall-clock seconds is a ``hang`` whatever CPU time it used
#: (a reader blocked for good); generous, so that a loaded machine never makes a working reader one
DEADLINE_S = 120.0
#: how often the worker looks at its child's CPU time while it waits for an answer
POLL_S = 0.05
_CLK_TCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: files one child reads (each peak measured alone: /proc/self/clear_refs resets it) before a new fork
PER_CHILD = 50
#: a child that holds this much more anonymous memory than it was forked with is replaced, so that
#: memory a file left behind (freed to malloc, kept from the OS) cannot hide the next file's rise
RETAIN_KB = 8 * 1024


def _status_kb(key: str) -> int:
    """A ``kB`` field of /proc/self/status (VmHWM: peak resident set; RssAnon: anonymous resident)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def _vsz() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * resource.getpagesize()


def _libc():
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process ``pid`` has used (its threads included): the work it did,
    whatever the machine's load; 0.0 where /proc does not tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()     # after the command name, which may hold spaces
        return (int(fields[11]) + int(fields[12])) / _CLK_TCK  # utime, stime (fields 14, 15 of proc(5))
    except (OSError, IndexError, ValueError):
        return 0.0


def _reset_peak() -> bool:
    """Set this process's VmHWM to its VmRSS (Linux >= 4.0); False where that is not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _child(ch, reader, limit: int, libc, parent: int, per_child: int) -> None:
    """A fresh fork of the worker: read up to ``per_child`` files, each with its own peak RSS.

    Per file it sends its starting peak (so the worker can judge a death or a hang by wait4's
    ``ru_maxrss``), then the verdict with ``mem_kb``, the rise of the peak while reading, and ``last``
    when it exits after this one."""
    if libc is not None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)    # the worker killed: this child goes with it
    if os.getppid() != parent:
        return
    if limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    anon0 = _status_kb("RssAnon")
    trim = getattr(libc, "malloc_trim", None) if libc is not None else None     # glibc only
    for n in range(per_child):
        task = ch.recv()
        if n:
            _reset_peak()
        base = _status_kb("VmHWM")      # a new fork's peak starts at its own resident size
        ch.send(base)
        res = judge(reader, *task)
        res["mem_kb"] = max(0, _status_kb("VmHWM") - base)
        raw = os.pread(1, 500, 0).decode(errors="replace").strip()   # what C code wrote to fd 1/2
        os.ftruncate(1, 0)
        os.lseek(1, 0, os.SEEK_SET)
        if raw:
            res["noise"] = "; ".join(x for x in (res["noise"], "fd: " + raw) if x)[:500]
        if trim is not None:
            trim(0)                     # freed heap back to the OS, so RssAnon shows what is really kept
        res["last"] = n + 1 == per_child or _status_kb("RssAnon") - anon0 > RETAIN_KB
        ch.send(res)
        if res["last"]:
            return


class _Reader:
    """The worker's side of its current child: forks one when needed, enforces the CPU time limit
    (``timeout``) and the wall-clock ``deadline`` per file."""

    def __init__(self, conn, reader, limit: int, timeout: float, libc, deadline: float = DEADLINE_S):
        self.conn, self.reader, self.limit, self.timeout, self.libc = conn, reader, limit, timeout, libc
        self.deadline = deadline
        self.per_child = PER_CHILD if _reset_peak() else 1
        self.pid = 0

    def _fork(self) -> None:
        self.ch, child_end = multiprocessing.Pipe()
        self.out = tempfile.TemporaryFile()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:                               # the child never returns from here
            code = 0
            try:
                self.conn.close()
                self.ch.close()
                os.dup2(self.out.fileno(), 1)
                os.dup2(self.out.fileno(), 2)
                _child(child_end, self.reader, self.limit, self.libc, parent, self.per_child)
            except BaseException:                  # SystemExit, KeyboardInterrupt, a failed send
                code = 70
            os._exit(code)
        child_end.close()
        self.pid = pid

    def _reap(self, kill: bool):
        if kill:
            os.kill(self.pid, signal.SIGKILL)
        _pid, status, usage = os.wait4(self.pid, 0)
        self.pid = 0
        self.ch.close()
        self.out.seek(0)
        raw = self.out.read(500).decode(errors="replace").strip()
        self.out.close()
        return status, usage, raw

    def read(self, task) -> dict:
        """Judge one file: the verdict, plus seconds, size (of the file and a dump's topology) and mem_mb."""
        size = sum(os.path.getsize(p) for p in task[1:] if p and os.path.exists(p))
        if not self.pid:
            self._fork()
        t0, cpu0 = time.monotonic(), cpu_seconds(self.pid)
        base = res = None
        hung = ""
        try:
            self.ch.send(task)
            while res is None:
                left = t0 + self.deadline - time.monotonic()
                if left <= 0:
                    hung = f"no answer within {self.deadline:g} s"
                    break
                if not self.ch.poll(min(left, POLL_S)):
                    if cpu_seconds(self.pid) - cpu0 >= self.timeout:     # the work counter: CPU time
                        hung = f"no answer after {self.timeout:g} s of CPU time"
                        break
                    continue
                msg = self.ch.recv()
                if base is None:
                    base = msg
                else:
                    res = msg
        except (EOFError, OSError):                # it died
            pass
        seconds = time.monotonic() - t0
        if res is not None:
            if res.pop("last"):
                self._reap(False)
            rise = res.pop("mem_kb") * 1024
        else:
            status, usage, raw = self._reap(kill=True)
            if hung:
                res = {"outcome": "hang", "type": "timeout", "message": hung}
            else:
                code = os.waitstatus_to_exitcode(status)
                res = {"outcome": "memory", "type": "worker died",
                       "message": f"worker exit code {code}" + (f" ({signal.Signals(-code).name})" if code < 0 else "")}
            res.update(frame="", noise="fd: " + raw if raw else "")
            rise = max(0, usage.ru_maxrss - base) * 1024 if isinstance(base, int) else 0    # KiB
        res.update(seconds=seconds, size=size, mem_mb=rise / 2 ** 20, mem_ratio=rise / max(size, 1))
        return res


def _worker(conn, reader, warm, mem_bytes: int, timeout: float, deadline: float = DEADLINE_S) -> None:
    """A long-lived worker (started by a forkserver: no threads of the test process) that reads in forks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm is not None:
        warm()              # every import and cache a reader needs, in place before the first fork
    gc.collect()
    gc.freeze()             # a collection in a child then never writes to (copies) the worker's pages
    limit = max(mem_bytes, _vsz() + 2 ** 30) if mem_bytes else 0
    forks = _Reader(conn, reader, limit, timeout, _libc(), deadline)
    conn.send("ready")
    while True:
        try:
            task = conn.recv()
        except EOFError:
            break
        if task is None:
            break
        conn.send(forks.read(task))
    if forks.pid:
        forks._reap(kill=True)
    conn.close()


def _context():
    """The forkserver context, its server started without thread pools (the workers fork)."""
    from multiprocessing import forkserver
    saved = {k: os.environ.get(k) for k in _THREAD_VARS}
    os.environ.update({k: "1" for k in _THREAD_VARS})
    try:
        forkserver.ensure_running()
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return multiprocessing.get_context("forkserver")


@dataclass
class Runner:
    """Workers that read each task (fmt, path, topology) in a fork of theirs; stuck or dead ones are replaced.

    A file whose reading raised the peak RSS by more than ``mem_floor_mb`` *and* by more than
    ``mem_ratio`` times its size gets the ``memory`` verdict (when it was accepted or refused)."""

    reader: Callable | None = None      # None: fuzzing.read_mutant, what fabricviz does with a file
    jobs: int = 2
    timeout: float = 5.0                # CPU seconds a file may take without an answer
    deadline: float = DEADLINE_S        # wall-clock seconds a file may take (generous: a blocked reader)
    mem_gb: float = 2.5                 # RLIMIT_AS of each file's process (0: none)
    mem_floor_mb: float = 32            # a smaller rise is fixed cost (<= 6 MB measured), whatever the size
    mem_ratio: float = 16               # K: the rise may be up to K x the input's bytes
    warm: Callable | None = None        # run once in each worker before it forks (None with reader=None: fuzzing.warm)
    _workers: list = field(default_factory=list)

    def _spawn(self):
        if self.reader is None:
            from tests.formats.fuzzing import read_mutant, warm
            self.reader, self.warm = read_mutant, self.warm or warm
        ctx = _context()
        parent, child = ctx.Pipe()
        mem = int(self.mem_gb * 2 ** 30)
        p = ctx.Process(target=_worker, args=(child, self.reader, self.warm, mem, self.timeout, self.deadline),
                        daemon=True)
        p.start()
        child.close()
        return [p, parent, None, 0.0]      # process, pipe, current task key, start time

    @staticmethod
    def _ready(w) -> None:
        try:
            ok = w[1].poll(300) and w[1].recv() == "ready"
        except (EOFError, OSError):
            ok = False
        if not ok:
            w[0].kill()
            w[0].join()
            raise RuntimeError(f"fuzz worker did not start (exit code {w[0].exitcode})")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        for p, conn, _k, _t in self._workers:
            with contextlib.suppress(OSError):
                conn.send(None)
            p.join(2)
            if p.is_alive():
                p.kill()
                p.join()
            conn.close()
        self._workers = []

    def too_big(self, res: dict) -> bool:
        return res.get("mem_mb", 0) > self.mem_floor_mb and res.get("mem_ratio", 0) > self.mem_ratio

    def run(self, tasks: Iterable[tuple]) -> dict[str, dict]:
        """``tasks``: (key, (fmt, path, topology)[, data]); with data, the file ``path`` is written just
        before it is read and removed after. Returns key -> verdict dict (+ seconds, size, mem_mb, mem_ratio)."""
        new = []
        while len(self._workers) < self.jobs:
            new.append(self._spawn())
            self._workers.append(new[-1])
        for w in new:
            self._ready(w)
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
            limit = self.deadline + GRACE
            ready = wait([w[1] for w in busy], max(0.0, min(w[3] + limit for w in busy) - time.monotonic()))
            now = time.monotonic()
            for w in busy:
                key = w[2][0]
                if w[1] not in ready and now - w[3] < limit:
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
                        res = {"outcome": "memory", "type": "worker died", "frame": "", "noise": "",
                               "seconds": now - w[3], "message": f"worker exit code {code}" + (
                                   f" ({signal.Signals(-code).name})" if code and code < 0 else "")}
                        self._replace(w)
                    if self.too_big(res) and res["outcome"] in ("accepted", "refused"):
                        res.update(outcome="memory", type="peak RSS", message=(
                            f"peak RSS rose {res['mem_mb']:.0f} MB, {res['mem_ratio']:.0f}x the "
                            f"{res['size']:,}-byte input ({res['outcome']} after that)"))
                    results[key] = res
                    w[2] = None
                else:
                    results[key] = {"outcome": "hang", "type": "timeout", "frame": "", "noise": "",
                                    "message": f"the worker gave no answer within {limit:g} s",
                                    "seconds": now - w[3]}
                    self._replace(w)

    def _replace(self, w) -> None:
        p, conn = w[0], w[1]
        if p.is_alive():
            p.kill()
        p.join()
        conn.close()
        w[:] = self._spawn()
        self._ready(w)
