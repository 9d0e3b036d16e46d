"""Read any port counters file: which reader a file needs, by what its first lines look like.

The readers are a registry (:data:`READERS`, format name → module); each has ``looks_like(text)``
and ``loads(text, where)``. A file none of them recognises is refused on one line naming it.
"""

from __future__ import annotations

import os
from types import ModuleType

from ..model.port_counters import CounterFile
from . import ibdiagnet_csv, ibdiagnet_pm, ibqueryerrors, perfquery
from ._counters import quoted, read_text, refuse

READERS: dict[str, ModuleType] = {
    perfquery.FORMAT: perfquery,
    ibqueryerrors.FORMAT: ibqueryerrors,
    ibdiagnet_pm.FORMAT: ibdiagnet_pm,
    ibdiagnet_csv.FORMAT: ibdiagnet_csv,
}


def detect(text: str) -> str | None:
    """The format whose reader recognises ``text``, or None."""
    for name, mod in READERS.items():
        if mod.looks_like(text):
            return name
    return None


def loads_counters(text: str, where: str, fmt: str | None = None) -> CounterFile:
    name = fmt or detect(text)
    if name is None:
        first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        raise refuse(where, 1, f"not perfquery, ibqueryerrors or ibdiagnet PM output (starts {quoted(first)})")
    cf: CounterFile = READERS[name].loads(text, where)
    return cf


def load_counters(path: str | os.PathLike[str], fmt: str | None = None) -> CounterFile:
    """The records of a counters file (FileFormatError ``file:line: why`` when it is not one)."""
    return loads_counters(read_text(path), os.fspath(path), fmt)


__all__ = ["READERS", "detect", "load_counters", "loads_counters"]
