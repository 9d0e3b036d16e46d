"""What the port-counter readers share: reading the file (size checked, UTF-8, BOM), a counter
value (decimal or ``0x`` hex, at most 64 bits), a GUID, and the one-line refusal ``file:line: why``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..model.port_counters import MAX_VALUE
from ..model.text import decode_utf8, one_line, strip_bom
from .limits import FileFormatError

#: No counters file of a real fabric comes near this (an ibdiagnet db_csv of 10,000 nodes is ~100 MB).
MAX_BYTES = 512 * 1024 * 1024


class CountersFormatError(FileFormatError):
    """A counters file that cannot be read: ``file:line: why`` on one line."""


def refuse(where: str, line: int, why: str) -> CountersFormatError:
    return CountersFormatError(one_line(f"{where}:{line}: {why}"))


def read_text(path: str | os.PathLike[str]) -> str:
    """The file's text (size checked before reading; BOM dropped); CountersFormatError otherwise."""
    where = os.fspath(path)
    try:
        p = Path(path)
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise CountersFormatError(f"{where}: {size:,} bytes, over the {MAX_BYTES:,} a counters file may have")
        data = p.read_bytes()
    except OSError as e:
        raise CountersFormatError(one_line(f"{where}: cannot read: {e.strerror or e}")) from None
    return strip_bom(decode_utf8(data, where, CountersFormatError))


def quoted(text: str, n: int = 60) -> str:
    """A piece of the input for a message (short; escaped by :func:`one_line` later)."""
    return repr(text if len(text) <= n else text[:n] + "…")


def number(text: str) -> int | None:
    """A counter value: decimal digits or ``0x`` hex, 0..2**64-1; None if it is not one."""
    s = text.strip()
    if s[:2] in ("0x", "0X"):
        digits, base = s[2:], 16
        ok = 0 < len(digits) <= 16 and all(c in "0123456789abcdefABCDEF" for c in digits)
    else:
        digits, base = s, 10
        ok = 0 < len(digits) <= 20 and digits.isascii() and digits.isdigit()
    if not ok:
        return None
    v = int(digits, base)
    return v if v <= MAX_VALUE else None


def counter_value(text: str, name: str, where: str, line: int) -> int:
    """``text`` as the value of counter ``name``, else the refusal ``where:line: name: 'text' is not…``."""
    v = number(text)
    if v is None:
        raise refuse(where, line, f"{name}: {quoted(text.strip())} is not a counter value (0..2^64-1)")
    return v


def guid(text: str) -> int | None:
    """A GUID written ``0x…`` (1 to 16 hex digits, not zero); None otherwise."""
    s = text.strip()
    if s[:2] not in ("0x", "0X"):
        return None
    v = number(s)
    return v if v else None


__all__ = ["CountersFormatError", "MAX_BYTES", "counter_value", "guid", "number", "quoted", "read_text", "refuse"]
