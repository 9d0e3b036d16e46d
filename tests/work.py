"""Counting work instead of timing it: a test's verdict must not depend on how fast or how loaded the
machine is. ``calls`` counts the function calls (Python and built-in) a call makes: the same number
on any machine, so "linear in the input" is checked by counting twice the input, not by a stopwatch.
Timings belong in bench/."""

from __future__ import annotations

import cProfile
import gc
from collections.abc import Callable
from typing import Any


def calls(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """``(fn(*args, **kwargs), how many function calls that made)``; an exception is returned, not raised.

    The cyclic garbage collector is off while counting (and run before): its callbacks and the
    finalizers of other tests' garbage run at whatever allocation comes next, so in a full suite they
    were counted as this call's work (CI saw a count grow with the input for that reason alone)."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    prof = cProfile.Profile(builtins=True)
    prof.enable()
    try:
        result: Any = fn(*args, **kwargs)
    except Exception as exc:     # a refusal is a result too: its work is counted the same way
        result = exc
    finally:
        prof.disable()
        if was:
            gc.enable()
    return result, sum(entry.callcount for entry in prof.getstats())
