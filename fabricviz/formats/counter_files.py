"""Read any port counters file: which reader a file needs, by what its first lines look like.

The readers are a registry (:data:`READERS`, format name → module); each has ``looks_like(text)``
and ``loads(text, where)``. A file none of them recognises is refused on one line naming it.
"""

from __future__ import annotations

import os
from types import ModuleType

from ..model import FabricError
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


def snapshot_interval(now: list[str], before: list[str]) -> float:
    """Seconds between two snapshots by their files' modification times (the tools print no time):
    the newest file of ``now`` minus the newest of ``before``; FabricError when not positive."""
    try:
        t_now = max(os.path.getmtime(p) for p in now)
        t_before = max(os.path.getmtime(p) for p in before)
    except OSError as e:
        raise FabricError(f"{e.filename}: cannot read: {e.strerror}") from None
    if t_now - t_before <= 0:
        raise FabricError(f"{now[0]}: not newer than {before[0]} (modification times): "
                          "give the seconds between the snapshots with --interval S")
    return t_now - t_before


__all__ = ["READERS", "detect", "load_counters", "loads_counters", "snapshot_interval"]
