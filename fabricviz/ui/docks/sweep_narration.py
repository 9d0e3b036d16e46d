"""The Subnet Manager dock's narration: the sweep's steps up to the shown one as HTML, phase
titles between them, the current step marked, then what the dock found about the routing
(a fallback, a re-sweep), credit loops and a traced path."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from fabricviz.anim.sweep_timeline import PHASE_TITLES

#: Steps shown before the current one (older ones are counted, not listed).
NARRATION_LINES = 300


def narration_html(tl: Any, i: int, fact_lines: Sequence[str], loop_lines: Sequence[str],
                   trace_lines: Sequence[str]) -> str:
    """The narration of timeline ``tl`` at step ``i``."""
    lo = max(0, i - NARRATION_LINES + 1)
    out = []
    if lo:
        out.append(f"<p style='color:gray'>… {lo:,} earlier steps</p>")
    prev = tl.events[lo - 1].phase if lo else None
    for j in range(lo, i + 1):
        e = tl.events[j]
        if e.phase != prev:
            out.append(f"<p><b>{html.escape(PHASE_TITLES.get(e.phase, e.phase))}</b></p>")
            prev = e.phase
        text = html.escape(tl.narration[j])
        if e.kind == "banner":
            text = f"<b>{text}</b>"
        if j == i:
            out.append(f"<p style='background-color:#fff3bf;color:#000'><a name='current'></a>&#9654; {text}</p>")
        else:
            out.append(f"<p>{text}</p>")
    notable = fact_lines if len(fact_lines) > 1 else []    # a fallback or a re-sweep
    for title, lines in (("Routing", notable), ("Credit loops", loop_lines)):
        if lines:
            out.append(f"<p><b>{title}</b></p>")
            out.extend(f"<p>{html.escape(s)}</p>" for s in lines)
    if trace_lines:
        out.append("<p><b>Path</b></p>")
        out.extend(f"<p><tt>{html.escape(s)}</tt></p>" for s in trace_lines)
    return "\n".join(out)
