"""A plain text progress bar for long CLI runs (the fluid model)."""

from __future__ import annotations

import sys
from collections.abc import Callable


def text_progress(stream=None) -> Callable[[float], None] | None:
    """A plain one-line progress bar on ``stream`` (stderr) when it is a terminal, else None."""
    stream = sys.stderr if stream is None else stream
    if not getattr(stream, "isatty", lambda: False)():
        return None
    state = {"last": -1}

    def show(frac: float) -> None:
        pct = int(frac * 100)
        if pct == state["last"]:
            return
        state["last"] = pct
        bar = "#" * (pct // 4)
        stream.write(f"\r[{bar:<25}] {pct:3d}%")
        if pct >= 100:
            stream.write("\n")
        stream.flush()
    return show
