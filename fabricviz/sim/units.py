"""Run parameters as people type them, and the error that names a parameter in words.

The engines are called from the GUI and the CLI alike, so their messages name a
parameter the way a person says it ("routing 'x' is not one of …", "the duration
'soon': …"); :class:`ParamError` (:mod:`fabricviz.model.errors`, so the generators
raise it too) also carries which parameter it was, so the CLI can name its own flag
instead (:meth:`ParamError.with_flag`).
"""

from __future__ import annotations

import re

from ..model.errors import PARAM_WORDS as LABELS
from ..model.errors import ParamError
from .bounds import MAX_DURATION_S, MIN_DURATION_S

_DUR = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*(s|ms|us|µs|ns)?\s*$", re.I)   # ASCII digits only
_UNIT = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, None: 1.0}


def parse_duration(text: str) -> float:
    """``10ms``, ``250us``, ``0.5s`` (no unit: seconds) → seconds, from one fluid tick (1us) to
    1s (:mod:`.bounds`)."""
    m = _DUR.match(text)
    if not m:
        raise ParamError("duration", text, "use e.g. 10ms, 250us, 0.5s")
    v = float(m.group(1)) * _UNIT[m.group(2).lower() if m.group(2) else None]
    if not v > 0:
        raise ParamError("duration", text, "must be positive")
    if v < MIN_DURATION_S * (1 - 1e-9):
        raise ParamError("duration", text, f"is shorter than one fluid tick ({MIN_DURATION_S * 1e6:g}us)")
    if v > MAX_DURATION_S:
        raise ParamError("duration", text, f"is longer than the {MAX_DURATION_S:g}s a run may last "
                         f"({MAX_DURATION_S / MIN_DURATION_S:,.0f} fluid ticks)")
    return v


__all__ = ["LABELS", "ParamError", "parse_duration"]
