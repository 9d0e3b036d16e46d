"""One engine run per lesson per test session, shared by the lesson tests.

:func:`~fabricviz.anim.lessons.run_lesson` is a pure function of the lesson
(and ``until``); lesson 5's fluid runs alone take ~2 s. tests/anim/test_lessons.py
and the GUI lesson tests (through the lesson dock) read the same results instead
of running the engines again. The results are shared objects: a test that edits
a lesson's fabric must run the lesson itself instead.
"""

from __future__ import annotations

import threading

from fabricviz.anim.lessons import Lesson, StepResult, run_lesson

_RUNS: dict[tuple[str, int | None], list[StepResult]] = {}
_LOCK = threading.Lock()       # the dock runs lessons on a worker thread
ENGINE_RUNS: list[str] = []    # the lessons actually run, in order (for the tests of this cache)


def shared_run(lesson: Lesson, until: int | None = None) -> list[StepResult]:
    """``run_lesson(lesson, until)``, computed once per session for each lesson content."""
    key = (repr(lesson), until)        # a frozen dataclass: its repr is its whole content
    with _LOCK:
        if key not in _RUNS:
            _RUNS[key] = run_lesson(lesson, until)
            ENGINE_RUNS.append(lesson.name)
        return _RUNS[key]
