"""Growable struct-of-arrays tables: the model's storage.

Devices, ports and cables live in numpy columns indexed by their integer id, so
engines read whole columns (``fabric.cables.port_a``) without touching Python
objects, and a 65k-host fabric costs a few bytes per row. Ids are never reused:
removing a row only clears its ``alive`` flag, so an undo can put the very same
row back.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .errors import FabricError


def misfit(dtype: Any, values: Any) -> int | None:
    """Index of the first of ``values`` (scalar or sequence) that ``dtype`` cannot hold, or None.

    Integers must lie in the type's range; floats must be finite and within the range of a
    float type, and whole numbers for an integer type. Nothing is converted or stored.
    """
    dt = np.dtype(dtype)
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        a = values.ravel()
        if not a.size:
            return None
        if a.dtype.kind == "f" or dt.kind == "f":
            f = a.astype(np.float64)
            ok = np.isfinite(f)
            if dt.kind == "f":
                ok &= np.abs(np.where(ok, f, 0.0)) <= float(np.finfo(dt).max)
            else:
                info = np.iinfo(dt)
                ok &= (f == np.round(f)) & (f >= float(info.min)) & (f <= float(info.max))
            bad = np.flatnonzero(~ok)
            return int(bad[0]) if len(bad) else None
        info = np.iinfo(dt)
        if info.min <= int(a.min()) and int(a.max()) <= info.max:
            return None
        values = a.tolist()
    seq = values if isinstance(values, (list, tuple)) else [values]
    if len(seq) > 4096 and not isinstance(values, np.ndarray):
        arr = np.asarray(seq) if all(type(v) in (int, float) for v in seq) else None
        if arr is not None and arr.dtype.kind in "iuf":
            return misfit(dt, arr)
    for i, v in enumerate(seq):
        if not _fits(dt, v):
            return i
    return None


def _fits(dt: np.dtype, v: Any) -> bool:
    if isinstance(v, (bool, np.bool_, int, np.integer)):
        n = int(v)
        if dt.kind == "f":
            return abs(n) <= float(np.finfo(dt).max)
        info = np.iinfo(dt)
        return info.min <= n <= info.max
    if isinstance(v, (float, np.floating)):
        x = float(v)
        if not math.isfinite(x):
            return False
        if dt.kind == "f":
            return abs(x) <= float(np.finfo(dt).max)
        info = np.iinfo(dt)
        return x == int(x) and info.min <= int(x) <= info.max
    return False


class Table:
    """A table of fixed-dtype numpy columns that grows by doubling."""

    def __init__(self, spec: dict[str, Any], capacity: int = 64) -> None:
        self._spec = {name: np.dtype(dt) for name, dt in spec.items()}
        self._cap = max(int(capacity), 1)
        self._cols: dict[str, np.ndarray] = {
            name: np.zeros(self._cap, dtype=dt) for name, dt in self._spec.items()}
        self._cols["alive"] = np.zeros(self._cap, dtype=bool)
        self.n = 0  # rows allocated so far (dead rows included)
        #: Per column, a count of writes (never goes back), so caches of a column know they are stale.
        self._writes: dict[str, int] = dict.fromkeys(self._cols, 0)

    def __getattr__(self, name: str) -> np.ndarray:
        cols = self.__dict__.get("_cols")
        if cols is not None and name in cols:
            return cols[name][: self.n]
        raise AttributeError(name)

    def writes(self, *names: str) -> tuple[int, ...]:
        """How many times each of columns ``names`` was written (rows added or taken back count)."""
        return tuple(self._writes[n] for n in names) + (self.n,)

    def _touch(self, names: Any) -> None:
        for name in names:
            self._writes[name] += 1

    def column(self, name: str) -> np.ndarray:
        """The live view of column ``name`` over all allocated rows."""
        return self._cols[name][: self.n]

    def _grow(self, need: int) -> None:
        cap = self._cap
        while cap < need:
            cap *= 2
        if cap == self._cap:
            return
        for name, arr in self._cols.items():
            new = np.zeros(cap, dtype=arr.dtype)
            new[: self.n] = arr[: self.n]
            self._cols[name] = new
        self._cap = cap

    def allocate(self, count: int, defaults: dict[str, Any] | None = None) -> np.ndarray:
        """Append ``count`` live rows filled with zeros or ``defaults``; return their ids."""
        start = self.n
        self._grow(start + count)
        self.n = start + count
        for name, value in (defaults or {}).items():
            self._cols[name][start: self.n] = value
        self._cols["alive"][start: self.n] = True
        self._touch(list(defaults or ()) + ["alive"])
        return np.arange(start, self.n, dtype=np.int64)

    def trim(self) -> None:
        """Drop spare capacity (after a bulk build), so memory is what the rows need."""
        if self._cap == max(self.n, 1):
            return
        self._cap = max(self.n, 1)
        for name, arr in self._cols.items():
            self._cols[name] = arr[: self._cap].copy()

    def truncate(self, n: int) -> None:
        """Drop the rows from ``n`` on (a refused bulk addition takes its rows back)."""
        if n < self.n:
            for arr in self._cols.values():
                arr[n: self.n] = 0
            self.n = n
            self._touch(self._cols)

    def misfit(self, name: str, values: Any) -> int | None:
        """Index of the first of ``values`` that column ``name`` cannot hold exactly, or None.

        Integers must lie in the column's range; floats must be finite and within float32
        (or the column's float type). Nothing is converted or stored.
        """
        return misfit(self._spec[name], values)

    def set(self, name: str, ids: Any, value: Any) -> None:
        self._cols[name][: self.n][ids] = value
        self._writes[name] += 1

    def get(self, name: str, i: int) -> Any:
        return self._cols[name][i].item()

    def rows(self, ids: np.ndarray) -> dict[str, np.ndarray]:
        """Copies of every column at ``ids`` (for undo snapshots)."""
        return {name: arr[: self.n][ids].copy() for name, arr in self._cols.items()}

    def put_rows(self, ids: np.ndarray, rows: dict[str, np.ndarray]) -> None:
        """Write rows taken by :meth:`rows` back to the same ids."""
        for name, values in rows.items():
            self._cols[name][: self.n][ids] = values
        self._touch(rows)

    def live_ids(self) -> np.ndarray:
        return np.flatnonzero(self._cols["alive"][: self.n])

    def count(self) -> int:
        return int(np.count_nonzero(self._cols["alive"][: self.n]))

    def exists(self, i: int) -> bool:
        return 0 <= i < self.n and bool(self._cols["alive"][i])

    def nbytes(self) -> int:
        """Bytes held by the used part of the columns."""
        return sum(arr.dtype.itemsize * self.n for arr in self._cols.values())

def check_fits(dtype: Any, values: Any, where: Any, what: str) -> None:
    """Raise a one-line FabricError if one of ``values`` does not fit ``dtype``.

    ``where`` is the place (a string, or a function of the index of the bad value).
    """
    i = misfit(dtype, values)
    if i is None:
        return
    if isinstance(values, (list, tuple, np.ndarray)):
        v = np.asarray(values, dtype=object).ravel()[i]
    else:
        v = values
    dt = np.dtype(dtype)
    if dt.kind == "f":
        need = "must be a finite number"
        if isinstance(v, (int, float, np.integer, np.floating)) and math.isfinite(float(v)):
            need += f" within ±{float(np.finfo(dt).max):.3g}"
    else:
        info = np.iinfo(dt)
        need = f"must be a whole number from {info.min} to {info.max}"
    place = where(i) if callable(where) else where
    shown = f"{v:g}" if isinstance(v, float) else repr(v)
    raise FabricError(f"{place}: {what} {shown} {need}")


def coords(xs: Any, ys: Any, count: int, where: str) -> tuple[np.ndarray, np.ndarray]:
    """x and y of ``count`` new devices as float64 arrays (each finite, within float32)."""
    out = []
    for v, axis in ((xs, "x"), (ys, "y")):
        check_fits("f4", v, where, axis)
        a = np.asarray(v, dtype=np.float64).ravel()
        if a.size not in (1, count):
            raise FabricError(f"{where}: {a.size} {axis} values for {count} devices")
        out.append(np.broadcast_to(a, (count,)) if a.size == 1 else a)
    return out[0], out[1]
