"""Growable struct-of-arrays tables: the model's storage.

Devices, ports and cables live in numpy columns indexed by their integer id, so
engines read whole columns (``fabric.cables.port_a``) without touching Python
objects, and a 65k-host fabric costs a few bytes per row. Ids are never reused:
removing a row only clears its ``alive`` flag, so an undo can put the very same
row back.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class Table:
    """A table of fixed-dtype numpy columns that grows by doubling."""

    def __init__(self, spec: dict[str, Any], capacity: int = 64) -> None:
        self._spec = {name: np.dtype(dt) for name, dt in spec.items()}
        self._cap = max(int(capacity), 1)
        self._cols: dict[str, np.ndarray] = {
            name: np.zeros(self._cap, dtype=dt) for name, dt in self._spec.items()}
        self._cols["alive"] = np.zeros(self._cap, dtype=bool)
        self.n = 0  # rows allocated so far (dead rows included)

    def __getattr__(self, name: str) -> np.ndarray:
        cols = self.__dict__.get("_cols")
        if cols is not None and name in cols:
            return cols[name][: self.n]
        raise AttributeError(name)

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
        return np.arange(start, self.n, dtype=np.int64)

    def trim(self) -> None:
        """Drop spare capacity (after a bulk build), so memory is what the rows need."""
        if self._cap == max(self.n, 1):
            return
        self._cap = max(self.n, 1)
        for name, arr in self._cols.items():
            self._cols[name] = arr[: self._cap].copy()

    def set(self, name: str, ids: Any, value: Any) -> None:
        self._cols[name][: self.n][ids] = value

    def get(self, name: str, i: int) -> Any:
        return self._cols[name][i].item()

    def rows(self, ids: np.ndarray) -> dict[str, np.ndarray]:
        """Copies of every column at ``ids`` (for undo snapshots)."""
        return {name: arr[: self.n][ids].copy() for name, arr in self._cols.items()}

    def put_rows(self, ids: np.ndarray, rows: dict[str, np.ndarray]) -> None:
        """Write rows taken by :meth:`rows` back to the same ids."""
        for name, values in rows.items():
            self._cols[name][: self.n][ids] = values

    def live_ids(self) -> np.ndarray:
        return np.flatnonzero(self._cols["alive"][: self.n])

    def count(self) -> int:
        return int(np.count_nonzero(self._cols["alive"][: self.n]))

    def exists(self, i: int) -> bool:
        return 0 <= i < self.n and bool(self._cols["alive"][i])

    def nbytes(self) -> int:
        """Bytes held by the used part of the columns."""
        return sum(arr.dtype.itemsize * self.n for arr in self._cols.values())

    def compact_copy(self) -> "Table":
        """A new table holding only the live rows (ids renumbered densely)."""
        keep = self.live_ids()
        t = Table(self._spec, capacity=max(len(keep), 1))
        t.n = len(keep)
        for name in self._cols:
            t._cols[name][: t.n] = self._cols[name][: self.n][keep]
        return t
