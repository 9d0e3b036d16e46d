"""The first run's compile of the subnet manager's numba kernels: reported, and if asked in the
background while routing goes on without them.

numba compiles a kernel the first time it is called and keeps it in its disk cache; on a fresh
install that is minutes of work (about 30 kernels). :func:`compile_all` loads or compiles them
all, reporting each kernel numba compiles (``k/N name seconds``) to a callback;
``python -m fabricviz.ib.warmup`` (``make setup``) prints those lines. :func:`start_background`
does the same in a daemon thread (the GUI's start): while it runs, :func:`warming` is true and
routing takes its numpy / scipy paths (:func:`fabricviz.ib.subnet.numba_loaded`,
:func:`fabricviz.ib.ucast.compiled`), which give the same tables; an engine that has no such
path (dfsssp, sssp, lash) compiles what it needs on its own thread, in turn with the
background's compiles.

This module does not import numba: :mod:`.kernels` is imported when the work starts.

Run as ``python -m fabricviz.ib.warmup``.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from .kernel_progress import BACKGROUND, Compiled, Progress, warming


def compile_all(progress: Progress | None = None) -> tuple[float, int, int]:
    """Load (from numba's disk cache) or compile every engine's kernels on this thread; each
    compile is reported to ``progress`` as it ends. Returns (seconds, kernels compiled,
    compiles: a kernel compiles once per argument types)."""
    from .engines import warm_all
    from .kernels import compile_listener
    with compile_listener(progress) as compiled:
        seconds = warm_all()
    return (seconds, *compiled())


def start_background(progress: Progress | None = None,
                     done: Callable[[float, int, BaseException | None], None] | None = None) -> bool:
    """Run :func:`compile_all` in a daemon thread (once per process); ``done(seconds, compiled,
    error)`` is called from that thread at the end. False when it was started before."""
    bg = BACKGROUND
    with bg.lock:
        if bg.thread is not None:
            return False

        def run() -> None:
            t0 = time.perf_counter()
            seconds, n, error = 0.0, 0, None
            try:
                seconds, n, _ = compile_all(progress)
            except Exception as exc:       # the kernels then compile on first use, as before
                seconds, error = time.perf_counter() - t0, exc
            finally:
                bg.ready.set()
            if done is not None:
                done(seconds, n, error)
        bg.thread = threading.Thread(target=run, name="fabricviz-kernels", daemon=True)
        bg.thread.start()
        return True


def wait_ready(timeout: float | None = None) -> bool:
    """Block until a background compile ended (True at once when none was started)."""
    return BACKGROUND.thread is None or BACKGROUND.ready.wait(timeout)


def _print_progress(c: Compiled) -> None:
    what = f"{c.name} again, for other argument types" if c.again else c.name
    print(f"fabricviz: compiled kernel {c.done}/{c.total}: {what} ({c.seconds:.1f} s)", file=sys.stderr, flush=True)


def main() -> int:
    """``python -m fabricviz.ib.warmup`` (``make setup``): load or compile every kernel, one line per
    compile on stderr (the first run's minutes are not silent), the total on stdout."""
    from .kernels import kernel_count
    print(f"fabricviz: loading the subnet manager's {kernel_count()} compiled kernels (numba; the first "
          "run compiles them, a few minutes on 2 cores)", file=sys.stderr, flush=True)
    seconds, n, compiles = compile_all(_print_progress)
    print(f"fabricviz: subnet manager kernels ready in {seconds:.1f} s "
          f"({f'{n} compiled, {compiles} signatures' if n else 'all from the numba cache'})")
    return 0


__all__ = ["compile_all", "main", "start_background", "wait_ready", "warming"]


if __name__ == "__main__":
    sys.exit(main())
