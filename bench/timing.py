"""The benches' one timer: the median of ``n`` runs in milliseconds (these machines are noisy)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(fn: Callable, n: int = 7, before: Callable[[], object] | None = None,
              clock: Callable[[], float] = time.perf_counter, indexed: bool = False) -> float:
    """Median wall (or ``clock``) time of ``fn()`` — ``fn(i)`` with ``indexed`` — over ``n`` runs;
    ``before()`` runs untimed ahead of each."""
    times = []
    for i in range(n):
        if before is not None:
            before()
        t0 = clock()
        fn(i) if indexed else fn()
        times.append((clock() - t0) * 1000)
    return statistics.median(times)
