"""What every reader checks before it trusts a file: a leading BOM, one-line messages, nesting
depth before a recursive parser runs, numbers that must be finite and in range, JSON with the
line of the problem. The design limits themselves live in :mod:`fabricviz.model.limits`
(re-exported here), so the readers and the model's setters refuse the same things.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any

from ..model import FabricError
from ..model.inputs import read_input

# the model's limits the readers check against, re-exported for them (one place: fabricviz.model.limits)
from ..model.limits import F32_MAX, LOCAL_MAX, LOCAL_MIN, MAX_LENGTH_M, MAX_PORTS, TIER_MAX, TIER_MIN  # noqa: F401

# the shared text checks (one place for every layer: fabricviz.model.text), re-exported for the readers
from ..model.text import JSON_STRING, MAX_DEPTH, decode_utf8, one_line, strip_bom  # noqa: F401
from ..model.text import check_nesting as _check_nesting
from ..model.text import parse_json as _parse_json


class FileFormatError(FabricError):
    """A file that cannot be loaded; the message is ``file: field: why`` (or ``file:line: why``)."""


def read_small_text(path: str | os.PathLike[str], max_bytes: int, what: str) -> str:
    """A small UTF-8 text file (an options or partitions file): its size checked before it is
    read; FileFormatError ``path: …`` / ``path:line: not UTF-8 text`` otherwise."""
    where = os.fspath(path)
    data = read_input(path, max_bytes, what, FileFormatError)    # regular files only (fabricviz.model.inputs)
    return decode_utf8(data, where, FileFormatError)


def check_number(v: Any, field: str, lo: float = -F32_MAX, hi: float = F32_MAX,
                 what: str = "positions") -> float:
    """``v`` as a float if it is a finite number in [lo, hi]; else ValueError naming ``field``."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{field}: expected a number, got {short(v)}")
    x = float(v) if not isinstance(v, int) or -1e300 < v < 1e300 else math.inf
    if not math.isfinite(x) or not lo <= x <= hi:
        span = f"within ±{hi:.4g}" if lo == -hi else f"{lo:g}..{hi:.4g}"
        raise ValueError(f"{field}: {short(v)} is out of range ({what} must be finite numbers, {span})")
    return x


def short(v: Any) -> str:
    """A value as a few characters for a message (never thousands of digits)."""
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10 ** 30:
        return f"an integer of {len(str(abs(v)))} digits"
    if isinstance(v, (str, int, float, bool)) or v is None:
        return one_line(json.dumps(v) if not isinstance(v, float) or math.isfinite(v) else str(v))[:40]
    return f"a {'list' if isinstance(v, list) else 'mapping' if isinstance(v, dict) else type(v).__name__}"


def check_nesting(text: str, where: str, opens: str, closes: str, strings: re.Pattern | None = None,
                  limit: int = MAX_DEPTH, what: str = "lists and objects") -> None:
    """FileFormatError ``where:LINE: ... nested deeper than LIMIT`` before a recursive parser sees
    ``text`` (:func:`fabricviz.model.text.check_nesting`)."""
    _check_nesting(text, where, opens, closes, strings, limit, what, FileFormatError)


def parse_json(text: str, where: str) -> Any:
    """``json.loads`` of a design file's text (BOM accepted, nesting checked first); FileFormatError
    ``where:LINE: why`` (:func:`fabricviz.model.text.parse_json`)."""
    return _parse_json(text, where, FileFormatError)
