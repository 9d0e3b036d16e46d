"""The model's interned strings: device names (:class:`DeviceNames`) and part ids (:class:`PartIds`).

A device has its own name, or (a GPU or NIC of a server) a name derived from its server's
(``node1/gpu0``), kept as None so renaming the server renames its children. Both objects
can be marked and rolled back, so an addition that is refused leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .errors import FabricError
from .kinds import AUTO_PREFIX, CHILD_PREFIX, KIND_CODE, KINDS
from .store import Table


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a device or a design, or None. Refused: control characters (ESC,
    NUL, tabs, line breaks), bidi controls and other format characters (U+202E, U+200B …), line
    and paragraph separators (U+2028/9) and non-ASCII spaces — every character ``str.isprintable``
    says no to — and the double quote (the text formats quote names with it)."""
    if not name:
        return "a name must not be empty"
    if name.isprintable() and '"' not in name:       # the usual case, without a step per character
        return None
    for c in name:
        if c == '"':
            return "no double quotes"
        if not c.isprintable():
            return f"no control, bidi or separator characters (found U+{ord(c):04X})"
    return None


def check_text_name(name: str, what: str = "name") -> str:
    """``name`` stripped, or FabricError ``WHAT 'ESCAPED': why`` (one line: the offending characters
    escaped) — the one validator of every name a person or a file gives (:func:`name_problem`)."""
    clean = str(name).strip()
    why = name_problem(clean)
    if why is not None:
        raise FabricError(f"{what} '{escape_name(str(name))}': {why}")
    return clean


def escape_name(name: str) -> str:
    """``name`` with every character :func:`name_problem` refuses written as a Python escape
    (ESC → ``\\x1b``, U+202E → ``\\u202e``) and a double quote as ``'``: what importers store for
    a name from a foreign file (an ibnetdiscover NodeDescription may carry odd bytes; refusing
    the whole fabric for one would be unfriendly). Printable names come back unchanged."""
    if name.isprintable() and '"' not in name:
        return name
    return "".join("'" if c == '"' else c if c.isprintable() else repr(c)[1:-1] for c in name)


def derived_local_of(rows: dict[str, np.ndarray], k: int) -> str:
    """The derived local name (``gpu0``) of row ``k`` of raw device ``rows``."""
    return f"{CHILD_PREFIX[KINDS[int(rows['kind'][k])]]}{int(rows['local'][k])}"


class DeviceNames:
    """Names of the devices of one table: lookup both ways, checks, automatic names.

    ``own[d]`` is device ``d``'s own name, or None for a derived child name; ``by_name`` maps
    own names to ids; ``auto`` counts the automatic names given per prefix.
    """

    def __init__(self, devices: Table) -> None:
        self.devices = devices
        self.own: list[str | None] = []
        self.by_name: dict[str, int] = {}
        self.auto: dict[str, int] = {}
        #: (validity key, sorted child keys, ids): see :meth:`_child_lookup`
        self._child_keys: tuple[tuple[int, ...], np.ndarray, np.ndarray] | None = None
        self._version = 0               # bumped by every change of an own name (None or not)

    # ------------------------------------------------------------------ lookups
    def find(self, name: str) -> int | None:
        """Id of the device called ``name``, or None."""
        i = self.by_name.get(name)
        if i is not None:
            return i
        parent, sep, local = name.rpartition("/")
        if not sep:
            return None
        p = self.by_name.get(parent) if "/" not in parent else self.find(parent)
        if p is None:
            return None
        for kind, prefix in CHILD_PREFIX.items():
            num = local[len(prefix):]
            if local.startswith(prefix) and num.isascii() and num.isdigit() and str(int(num)) == num:
                n = int(num)        # canonical numbers only: gpu03 and gpu٣ are not gpu3
                return self._child_lookup(p, KIND_CODE[kind], n) if n < 1 << 15 else None
        return None

    def _cache_key(self) -> tuple[int, ...]:
        return self.devices.writes("alive", "parent", "kind", "local") + (self._version, len(self.own))

    def _child_lookup(self, parent: int, kind_code: int, local: int) -> int | None:
        """Id of the child with a derived name (parent, kind, local), via a sorted key cache.

        The cache carries the write counts of what it was built from, taken *before* the build,
        and is used only while they are unchanged. Worker threads read the live design (the
        GUI's sweep, routing and checks jobs) and may build it in the middle of an edit on the
        UI thread; built so, it is stale at once (that edit's writes move the counts on) instead
        of being kept — a kept one made ``find`` see a removed GPU's name as taken, and the
        undo of the removal was refused."""
        key = self._cache_key()
        cache = self._child_keys
        if cache is None or cache[0] != key:
            t = self.devices
            own = list(self.own)
            derived = np.array([n is None for n in own], dtype=bool)
            n = min(len(derived), len(t.alive))
            sel = np.flatnonzero(t.alive[:n] & (t.parent[:n] >= 0) & derived[:n])
            keys = (t.parent[sel].astype(np.int64) << 24) | (t.kind[sel].astype(np.int64) << 16) \
                | t.local[sel].astype(np.int64)
            order = np.argsort(keys, kind="stable")
            cache = (key, keys[order], sel[order])
            self._child_keys = cache
        _, keys, ids = cache
        want = (parent << 24) | (kind_code << 16) | local
        i = int(np.searchsorted(keys, want))
        if i < len(keys) and keys[i] == want:
            return int(ids[i])
        return None

    def name_of(self, d: int) -> str:
        name = self.own[d]
        if name is not None:
            return name
        return f"{self.name_of(int(self.devices.parent[d]))}/{self.derived_local(d)}"

    def derived_local(self, d: int) -> str:
        t = self.devices
        return f"{CHILD_PREFIX[KINDS[t.kind[d]]]}{int(t.local[d])}"

    # ------------------------------------------------------------------ new names
    def auto_name(self, kind: str) -> str:
        """The next free automatic name of ``kind`` (``node7``)."""
        prefix = AUTO_PREFIX[kind]
        n = self.auto.get(prefix, 0)
        while True:
            n += 1
            name = f"{prefix}{n}"
            if self.find(name) is None:
                self.auto[prefix] = n
                return name

    def check_name(self, name: str, exclude: int | None = None) -> str:
        """Return ``name`` stripped, or raise if it is empty or already used."""
        clean = str(name).strip()
        why = name_problem(clean)
        if why is not None:
            raise FabricError(f"bad device name '{escape_name(str(name))}': names must be non-empty, one line, "
                              f"no tabs or quotes; {why}")
        other = self.find(clean)
        if other is not None and other != exclude:
            raise FabricError(f"name {clean!r} is already used by another device")
        return clean

    # ------------------------------------------------------------------ changes
    def append(self, ids: np.ndarray, names: Sequence[str] | None) -> None:
        """Name new rows ``ids`` (allocated last): ``names``, or derived names (None)."""
        if names is None:
            self.changed()
            self.own.extend([None] * len(ids))
            return
        self.own.extend(names)
        for i, nm in zip(ids.tolist(), names, strict=True):
            self.by_name[nm] = i

    def rename(self, d: int, name: str) -> None:
        """Device ``d`` is called ``name`` (checked by the caller) from now on."""
        prev = self.own[d]
        if prev is not None:
            self.by_name.pop(prev, None)
        self.own[d] = name
        self.by_name[name] = d
        self.changed()

    def put_back(self, ids: Sequence[int], names: Sequence[str | None]) -> None:
        """Write the own names of live devices ``ids`` back exactly (an undo of property edits)."""
        for d in ids:
            cur = self.own[d]
            if cur is not None and self.by_name.get(cur) == d:
                del self.by_name[cur]
        self.restore(ids, names)

    def restore(self, ids: Sequence[int], names: Sequence[str | None]) -> None:
        """Give devices ``ids`` (back) their own names ``names`` (None: derived)."""
        for d, nm in zip(ids, names, strict=True):
            self.own[d] = nm
            if nm is not None:
                self.by_name[nm] = d
        self.changed()

    def drop(self, ids: np.ndarray) -> tuple[str | None, ...]:
        """Forget the names of removed devices ``ids``; return their own names (for a restore)."""
        names = tuple(self.own[int(i)] for i in ids)
        for nm in names:
            if nm is not None:
                self.by_name.pop(nm, None)
        self.changed()
        return names

    def changed(self) -> None:
        """Devices' parents, kinds, liveness or own names changed: the derived-name cache goes."""
        self._version += 1
        self._child_keys = None

    def mark(self) -> tuple[int, dict[str, int]]:
        return len(self.own), dict(self.auto)

    def rollback(self, mark: tuple[int, dict[str, int]]) -> None:
        """Forget every name given since ``mark`` (rows from ``mark`` on are taken back)."""
        n, auto = mark
        for nm in [nm for nm, i in self.by_name.items() if i >= n]:
            del self.by_name[nm]
        del self.own[n:]
        self.auto = auto
        self.changed()


class PartIds:
    """The catalog part ids the tables refer to, by a small integer (the ``part`` columns)."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.index: dict[str, int] = {}

    def intern(self, part_id: str | None) -> int:
        """The number of ``part_id`` (-1 for None), added if new."""
        if part_id is None:
            return -1
        if part_id not in self.index:
            self.index[part_id] = len(self.ids)
            self.ids.append(part_id)
        return self.index[part_id]

    def id_of(self, idx: int) -> str | None:
        """The part id numbered ``idx`` (None for -1)."""
        return self.ids[idx] if idx >= 0 else None

    def __len__(self) -> int:
        return len(self.ids)

    def rollback(self, n: int) -> None:
        """Forget the part ids interned after the first ``n``."""
        for pid in self.ids[n:]:
            self.index.pop(pid, None)
        del self.ids[n:]
