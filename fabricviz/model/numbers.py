"""Numbers as a person types them in an option or a spec (``--radix 8``, ``2:1``, ``10ms``,
``permutation:3``): ASCII digits only, and a bounded count of them.

Python's ``int()`` and ``float()`` take any Unicode digit (``int("８") == 8``, ``float("١.5")``) and
underscores (``int("1_0")``); a number that looks like one thing and is read as another is refused
here instead, in one place for the CLI's argparse types (:mod:`fabricviz.cli`) and the engines'
spec parsers.
"""

from __future__ import annotations

import re

#: A whole number: optional sign, ASCII digits (at most 30: no option needs more, and int() of
#: thousands of digits is slow and refused by Python past 4,300).
INT_RE = re.compile(r"[+-]?[0-9]{1,30}")
#: A decimal number: optional sign, ASCII digits with an optional point and exponent; inf / nan
#: are spelled out (the caller decides whether it takes them).
FLOAT_RE = re.compile(r"[+-]?(?:[0-9]{1,400}(?:\.[0-9]{0,400})?|\.[0-9]{1,400})(?:[eE][+-]?[0-9]{1,5})?"
                      r"|[+-]?(?:inf|infinity|nan)", re.IGNORECASE)


def ascii_int(text: str) -> int:
    """``text`` (white space around it allowed) as an int; ValueError unless it is a whole
    number in ASCII digits."""
    t = str(text).strip()
    if not INT_RE.fullmatch(t):
        raise ValueError(f"{text!r} is not a whole number (ASCII digits 0-9)")
    return int(t)


def is_digits(text: str, most: int = 30) -> bool:
    """``text`` is 1..``most`` ASCII digits (``str.isdigit`` alone takes ``٣`` and ``８``, and int()
    of thousands of digits fails): the test before an ``int()`` of what a person typed."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def ascii_float(text: str) -> float:
    """``text`` as a float; ValueError unless it is a decimal number in ASCII digits (``1e3``,
    ``.5``, ``inf``; never ``１``, ``1_0`` or ``0x10``)."""
    t = str(text).strip()
    if not FLOAT_RE.fullmatch(t):
        raise ValueError(f"{text!r} is not a number (ASCII digits 0-9)")
    return float(t)


__all__ = ["FLOAT_RE", "INT_RE", "ascii_float", "ascii_int", "is_digits"]
