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

import numpy as np

from ..model import FabricError

# the model's limits the readers check against, re-exported for them (one place: fabricviz.model.limits)
from ..model.limits import F32_MAX, LOCAL_MAX, LOCAL_MIN, MAX_LENGTH_M, MAX_PORTS, TIER_MAX, TIER_MIN  # noqa: F401

#: How deep collections may nest in any design file (JSON, GML, XML, YAML); real files need 4.
MAX_DEPTH = 64
#: A JSON string literal on one line (brackets inside it do not nest).
JSON_STRING = re.compile(r'"(?:[^"\\\n]++|\\.)*+"')   # possessive: no backtracking stack per character


class FileFormatError(FabricError):
    """A file that cannot be loaded; the message is ``file: field: why`` (or ``file:line: why``)."""


def read_small_text(path: str | os.PathLike[str], max_bytes: int, what: str) -> str:
    """A small UTF-8 text file (an options or partitions file): its size checked before it is
    read; FileFormatError ``path: …`` / ``path:line: not UTF-8 text`` otherwise."""
    where = os.fspath(path)
    try:
        size = os.path.getsize(path)
        if size > max_bytes:
            raise FileFormatError(f"{where}: {size:,} bytes, over the {max_bytes:,} bytes {what} may have here")
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as e:
        raise FileFormatError(f"{where}: cannot read: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise FileFormatError(f"{where}:{line}: not UTF-8 text") from None


def strip_bom(text: str) -> str:
    """``text`` without a leading UTF-8 byte order mark (it is no newline: line numbers stay)."""
    return text[1:] if text.startswith("\ufeff") else text


def one_line(msg: str) -> str:
    """``msg`` with line breaks and other control characters escaped, so a refusal is one line."""
    if msg.isprintable():
        return msg
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in msg)


def check_nesting(text: str, where: str, opens: str, closes: str, strings: re.Pattern | None = None,
                  limit: int = MAX_DEPTH, what: str = "lists and objects") -> None:
    """FileFormatError ``where:LINE: ... nested deeper than LIMIT`` before a recursive parser sees
    ``text``. Brackets inside ``strings`` (a pattern of the format's string literals, which must
    not span lines) do not count."""
    if sum(text.count(c) for c in opens) <= limit:
        return
    body = strings.sub('""', text) if strings is not None else text
    raw = np.frombuffer(body.encode("utf-8", "surrogatepass"), np.uint8)
    op = np.isin(raw, np.frombuffer(opens.encode(), np.uint8))
    cl = np.isin(raw, np.frombuffer(closes.encode(), np.uint8))
    pos = np.flatnonzero(op | cl)
    depth = np.cumsum(np.where(op[pos], 1, -1), dtype=np.int64)
    deep = np.flatnonzero(depth > limit)
    if deep.size:
        line = raw[:pos[deep[0]]].tobytes().count(b"\n") + 1
        raise FileFormatError(f"{where}:{line}: {what} nested deeper than {limit}")


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


def parse_json(text: str, where: str) -> Any:
    """``json.loads`` of a design file's text (BOM accepted, nesting checked first); errors
    ``where:LINE: why``."""
    text = strip_bom(text)
    check_nesting(text, where, "[{", "]}", JSON_STRING)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FileFormatError(f"{where}:{e.lineno}: not valid JSON: {e.msg} (column {e.colno})") from None
    except RecursionError:   # check_nesting stops files this deep; kept for odd string escapes
        raise FileFormatError(f"{where}: lists and objects nested too deeply") from None
    except ValueError as e:  # an integer of thousands of digits (Python refuses int() of > 4300)
        m = re.search(r"[0-9]{4000,}", text)
        if m is None:
            raise FileFormatError(f"{where}: not valid JSON: {one_line(str(e))[:120]}") from None
        line = text.count("\n", 0, m.start()) + 1
        raise FileFormatError(f"{where}:{line}: not valid JSON: an integer of {len(m.group(0))} digits") from None
