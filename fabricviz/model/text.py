"""Text a file reader trusts only after a check, in one place for every layer (the model's
parts files, the BOM's prices files, the formats' readers): one-line messages with the input's
control, bidi and line-separator characters escaped, UTF-8 decoding that names the line and
byte, nesting depth before a recursive parser runs, and JSON with the line of the problem.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from .errors import FabricError

#: How deep collections may nest in any design file (JSON, GML, XML, YAML); real files need 4.
MAX_DEPTH = 64
#: A JSON string literal on one line (brackets inside it do not nest).
JSON_STRING = re.compile(r'"(?:[^"\\\n]++|\\.)*+"')   # possessive: no backtracking stack per character


def one_line(msg: str) -> str:
    """``msg`` with line breaks and other control, bidi and separator characters (all that are
    not printable: VT, FF, U+2028, U+202E, ...) escaped, so a refusal is one safe line."""
    if msg.isprintable():
        return msg
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in msg)


def strip_bom(text: str) -> str:
    """``text`` without a leading UTF-8 byte order mark (it is no newline: line numbers stay)."""
    return text[1:] if text.startswith("\ufeff") else text


def decode_utf8(data: bytes, where: str, error: type[FabricError] = FabricError) -> str:
    """``data`` as UTF-8 text; else ``error("where:LINE: not UTF-8 text (byte N)")``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise error(f"{where}:{line}: not UTF-8 text (byte {e.start})") from None


def check_nesting(text: str, where: str, opens: str, closes: str, strings: re.Pattern | None = None,
                  limit: int = MAX_DEPTH, what: str = "lists and objects",
                  error: type[FabricError] = FabricError) -> None:
    """``error("where:LINE: ... nested deeper than LIMIT")`` before a recursive parser sees
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
        raise error(f"{where}:{line}: {what} nested deeper than {limit}")


def parse_json(text: str, where: str, error: type[FabricError] = FabricError) -> Any:
    """``json.loads`` of a file's text (BOM accepted, nesting checked first); errors
    ``where:LINE: why``."""
    text = strip_bom(text)
    check_nesting(text, where, "[{", "]}", JSON_STRING, error=error)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise error(f"{where}:{e.lineno}: not valid JSON: {e.msg} (column {e.colno})") from None
    except RecursionError:   # check_nesting stops files this deep; kept for odd string escapes
        raise error(f"{where}: lists and objects nested too deeply") from None
    except ValueError as e:  # an integer of thousands of digits (Python refuses int() of > 4300)
        m = re.search(r"[0-9]{4000,}", text)
        if m is None:
            raise error(f"{where}: not valid JSON: {one_line(str(e))[:120]}") from None
        line = text.count("\n", 0, m.start()) + 1
        raise error(f"{where}:{line}: not valid JSON: an integer of {len(m.group(0))} digits") from None


def finite(v: Any) -> bool:
    """``v`` is a number (not a bool) a float holds finitely (an int of hundreds of digits is not)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if isinstance(v, int):
        return -10 ** 300 < v < 10 ** 300
    return v == v and v not in (float("inf"), float("-inf"))
