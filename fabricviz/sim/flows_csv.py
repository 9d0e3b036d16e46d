"""Flow lists as CSV: ``src,dst[,bytes][,rate_gbps][,start_us][,step][,sl]`` with a header row.

``src``/``dst`` are device names (a GPU such as ``node001/gpu0`` or a NIC such
as ``node001/mlx5_0``); empty ``bytes``/``rate_gbps`` mean unbounded; ``sl`` is the
InfiniBand service level 0..15 (an empty cell: the workload's SL, see :func:`load_flows`). A bad
row raises ``FabricError("FILE:LINE: …")`` and nothing is loaded. Result CSVs
(per flow and per link) are written by :func:`save_flow_results` and
:func:`save_link_results`. Every CSV is written atomically (the old file or the
whole new one, :func:`fabricviz.model.atomic.write_atomic`); a failed write
is ``FabricError("FILE: cannot save: why")``.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Literal

import numpy as np

from ..model import Fabric, FabricError
from ..model.atomic import write_atomic
from ..model.inputs import MAX_INPUT_BYTES, gc_paused, read_input
from ..model.text import decode_utf8, one_line, strip_bom
from .fct import FlowTimes
from .workloads import Flows

COLUMNS = ("src", "dst", "bytes", "rate_gbps", "start_us", "step", "sl")
REQUIRED = ("src", "dst")
#: Largest step index (the steps are an int64 column; no workload has more steps than this).
STEP_MAX = 2 ** 31 - 1


def _cell(t: str) -> str:
    """A cell as a few characters for a message (never thousands, never a control character)."""
    return one_line(repr(t if len(t) <= 40 else t[:40] + "..."))


def _num(text: str, where: str, col: str, default: float) -> float:
    t = (text or "").strip()
    if not t:
        return default
    try:
        v = float(t)
    except ValueError:
        raise FabricError(f"{where}: {col} {_cell(t)} is not a number") from None
    if math.isnan(v) or v < 0:
        raise FabricError(f"{where}: {col} must be a non-negative number, got {_cell(t)}")
    if math.isinf(v) and math.isfinite(default):   # bytes/rate: inf = unbounded, as empty; a start is a time
        raise FabricError(f"{where}: {col} must be finite, got {_cell(t)}")
    return v


def _step(text: str, where: str) -> int:
    t = (text or "").strip()
    if not t:
        return -1
    try:
        v = int(t)
    except ValueError:
        raise FabricError(f"{where}: step {_cell(t)} is not an integer (-1 = not stepped)") from None
    if not -1 <= v <= STEP_MAX:
        raise FabricError(f"{where}: step must be -1..{STEP_MAX}, got {_cell(t)}")
    return v


def _sl(text: str, where: str, default: int | None) -> int | None:
    t = (text or "").strip()
    if not t:
        return default
    try:
        v = int(t)
    except ValueError:
        raise FabricError(f"{where}: sl {_cell(t)} is not an integer (a service level 0..15)") from None
    if not 0 <= v <= 15:
        raise FabricError(f"{where}: sl must be 0..15, got {v if abs(v) < 10 ** 9 else _cell(t)}")
    return v


def load_flows(fabric: Fabric, path: str | Path, sl: int | None = None, *, no_sl: str | None = None) -> Flows:
    """Read a flow CSV; one-line errors name the file and line. ``sl``: the SL of flows whose
    ``sl`` cell is empty or absent (None: not given — SL 0, or the routing's path SL when no
    row gives one either). ``no_sl``: the design takes no SLs (RoCE) — a row giving one is refused
    at its line with this reason."""
    p = Path(path)
    data = read_input(p, MAX_INPUT_BYTES, "a flow CSV")
    text = strip_bom(decode_utf8(data, str(p)))
    with gc_paused():          # a million small lists: the collector would walk them again and again
        return _load_rows(fabric, p, text, sl, no_sl)


def _load_rows(fabric: Fabric, p: Path, text: str, sl: int | None, no_sl: str | None) -> Flows:
    # one row per line (newline only: VT, FF and U+2028 are cells' characters, not line breaks);
    # a cell over csv's field limit (128 KiB) is refused at its line
    lines = text.split("\n")
    rows: list[list[str]] | None = _plain_rows(text, lines)
    if rows is None:
        rows = []
        reader = csv.reader(lines)
        try:
            rows.extend(reader)
        except csv.Error as e:
            raise FabricError(f"{p}:{reader.line_num}: not a CSV row ({one_line(str(e))})") from None
    if not rows:
        raise FabricError(f"{p}:1: empty file (expected a header: {','.join(COLUMNS)})")
    header = [h.strip().lower() for h in rows[0]]
    for col in REQUIRED:
        if col not in header:
            raise FabricError(f"{p}:1: missing column {col!r} (header: {','.join(COLUMNS)})")
    unknown = [h for h in header if h not in COLUMNS]
    if unknown:
        raise FabricError(f"{p}:1: unknown column {unknown[0]!r} (use {','.join(COLUMNS)})")
    idx = {h: i for i, h in enumerate(header)}
    fast = _columns(fabric, rows, idx, sl, no_sl)
    if fast is not None:
        return fast
    # a row to refuse: read row by row, so the first bad one is named with its line
    out: dict[str, list[float]] = {c: [] for c in COLUMNS}     # device ids and steps are ints
    sls: list[int | None] = []
    for ln, row in enumerate(rows[1:], start=2):
        if not row or all(not c.strip() for c in row) or row[0].lstrip().startswith("#"):
            continue
        where = f"{p}:{ln}"
        if len(row) != len(header):
            raise FabricError(f"{where}: {len(row)} fields, the header has {len(header)}")
        get = lambda c, row=row: row[idx[c]] if c in idx else ""  # noqa: E731
        ends = []
        for col in ("src", "dst"):
            name = get(col).strip()
            d = fabric.find(name)
            if d is None:
                raise FabricError(f"{where}: {col} {_cell(name)}: no such device")
            ends.append(d)
        if ends[0] == ends[1]:
            raise FabricError(f"{where}: src and dst are the same device")
        out["src"].append(ends[0])
        out["dst"].append(ends[1])
        out["bytes"].append(_num(get("bytes"), where, "bytes", math.inf))
        out["rate_gbps"].append(_num(get("rate_gbps"), where, "rate_gbps", math.inf))
        out["start_us"].append(_num(get("start_us"), where, "start_us", 0.0))
        out["step"].append(_step(get("step"), where))
        cell = _sl(get("sl"), where, None)
        if cell is not None and no_sl is not None:
            raise FabricError(f"{where}: sl {_cell(get('sl').strip())}: {no_sl}")
        sls.append(sl if cell is None else cell)
    if not out["src"]:
        raise FabricError(f"{p}: no flows")
    given = any(v is not None for v in sls)
    return Flows(np.array(out["src"]), np.array(out["dst"]), np.array(out["bytes"]),
                 np.array(out["rate_gbps"]), np.array(out["start_us"]) * 1e-6, np.array(out["step"]),
                 np.array([0 if v is None else v for v in sls]) if given else None)


def _plain_rows(text: str, lines: list[str]) -> list[list[str]] | None:
    """The rows of a CSV without quotes, carriage returns, NULs or cells over csv's field limit
    split at its commas (what ``csv.reader`` makes of such text, at a fraction of its cost); None
    for any other text, which csv reads."""
    if '"' in text or "\r" in text or "\0" in text or max(map(len, lines)) > csv.field_size_limit():
        return None
    return [ln.split(",") if ln else [] for ln in lines]


def _columns(fabric: Fabric, rows: list[list[str]], idx: dict[str, int], sl: int | None,
             no_sl: str | None) -> Flows | None:
    """The flows of ``rows`` (header first) read column by column: each distinct device name looked
    up once, numbers converted in bulk. None when any row would be refused (the row-by-row reader
    then names it) — so what is accepted, and every message, is exactly the row reader's."""
    width = len(rows[0])
    kept = []
    for row in rows[1:]:
        first = row[0] if row else ""
        if first.strip() and not first.lstrip().startswith("#"):
            if len(row) != width:
                return None
            kept.append(row)
        elif not first.lstrip().startswith("#") and any(c.strip() for c in row):
            return None
    if not kept:
        return None
    cols = list(zip(*kept, strict=True))
    empty = ("",) * len(kept)

    def col(name: str) -> tuple[str, ...]:
        return cols[idx[name]] if name in idx else empty

    ends = []
    for name in ("src", "dst"):
        ids = {n: fabric.find(n.strip()) for n in dict.fromkeys(col(name))}
        if None in ids.values():
            return None
        ends.append(np.array([ids[n] for n in col(name)]))
    if bool((ends[0] == ends[1]).any()):
        return None
    try:
        size, rate = _floats(col("bytes"), math.inf), _floats(col("rate_gbps"), math.inf)
        start = _floats(col("start_us"), 0.0)
        step = np.array([int(t) if t else -1 for t in col("step")])
        cells = [int(t) if t else None for t in col("sl")]
    except (ValueError, OverflowError):
        return None
    if ((size < 0) | (rate < 0) | ~(start >= 0) | np.isinf(start)).any() or np.isnan(size).any() \
            or np.isnan(rate).any() or ((step < -1) | (step > STEP_MAX)).any():
        return None
    given = [v for v in cells if v is not None]
    if given and (no_sl is not None or not all(0 <= v <= 15 for v in given)):
        return None
    sls = [sl if v is None else v for v in cells]
    return Flows(ends[0], ends[1], size, rate, start * 1e-6, step,
                 np.array([0 if v is None else v for v in sls]) if any(v is not None for v in sls) else None)


def _floats(cells: tuple[str, ...], default: float) -> np.ndarray:
    """``cells`` as floats, an empty cell ``default`` (ValueError for any other non-number)."""
    return np.array([float(t) if t else default for t in cells], dtype=np.float64)


class _csv_file:
    """``with _csv_file(path) as w:`` a csv.writer whose rows replace ``path`` atomically at the end
    (only when the block ends without an exception)."""

    def __init__(self, path: str | Path) -> None:
        self.path, self.buf = path, io.StringIO(newline="")

    def __enter__(self):
        return csv.writer(self.buf)

    def __exit__(self, kind, *exc) -> Literal[False]:
        if kind is None:
            write_atomic(self.path, self.buf.getvalue())
        return False


def save_flows(fabric: Fabric, flows: Flows, path: str | Path) -> None:
    """Write a flow list that :func:`load_flows` reads back identically (the ``sl`` column only
    when the flows' SLs were given)."""
    cols = COLUMNS if flows.sl_given else COLUMNS[:-1]
    with _csv_file(path) as w:
        w.writerow(cols)
        for i in range(len(flows)):
            b, r = flows.bytes[i], flows.rate_gbps[i]
            w.writerow([fabric.name_of(int(flows.src[i])), fabric.name_of(int(flows.dst[i])),
                        "" if not np.isfinite(b) else repr(float(b)),
                        "" if not np.isfinite(r) else repr(float(r)),
                        repr(float(flows.start_s[i] * 1e6)), int(flows.step[i])]
                       + ([int(flows.sl[i])] if flows.sl_given else []))


def save_flow_results(fabric: Fabric, flows: Flows, rate_gbps: np.ndarray, latency_ns: np.ndarray,
                      path: str | Path, times: FlowTimes | None = None) -> None:
    """Per flow: its ends, the SL it ran on, its size, start, finish and completion time (µs;
    empty for a long-lived or unfinished flow), its rate and latency. ``times`` (:mod:`.fct`):
    a finished sized flow's rate is its mean over its life, bytes × 8 / FCT."""
    def us(v: float) -> str:
        return f"{v * 1e6:.3f}" if math.isfinite(v) else ""
    with _csv_file(path) as w:
        w.writerow(["flow", "src", "dst", "sl", "bytes", "start_us", "finish_us", "fct_us", "rate_gbps",
                    "latency_ns"])
        for i in range(len(flows)):
            b = float(flows.bytes[i])
            start = finish = fct = math.nan
            rate = float(rate_gbps[i])
            if times is not None and math.isfinite(b):
                start, finish, fct = (float(times.start_s[i]), float(times.finish_s[i]), float(times.fct_s[i]))
                if math.isfinite(times.rate_gbps[i]):
                    rate = float(times.rate_gbps[i])
            w.writerow([i, fabric.name_of(int(flows.src[i])), fabric.name_of(int(flows.dst[i])),
                        int(flows.sl[i]), f"{b:.15g}" if math.isfinite(b) else "", us(start), us(finish), us(fct),
                        f"{rate:.6g}", f"{float(latency_ns[i]):.1f}"])


def save_link_results(fabric: Fabric, links, util: np.ndarray, queue: np.ndarray,
                      latency_ns: np.ndarray, paused: np.ndarray, path: str | Path) -> None:
    """Per directed link that is alive: id, ends, utilisation, queue, latency, paused flag."""
    with _csv_file(path) as w:
        w.writerow(["link", "from", "to", "gbps", "utilization", "queue_bytes", "latency_ns", "paused"])
        for l in np.flatnonzero(links.alive):
            a, b = links.name(fabric, int(l))
            w.writerow([int(l), a, b, f"{float(links.gbps[l]):g}", f"{float(util[l]):.6f}",
                        f"{float(queue[l]):.1f}", f"{float(latency_ns[l]):.1f}", int(bool(paused[l]))])
