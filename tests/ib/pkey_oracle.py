"""Run the real OpenSM once with a partitions.conf under ibsim, then read P_Key tables back.

A variant of :func:`tests.ib.oracle.run_opensm` (same process handling, same run
directory layout) that keeps ibsim alive after OpenSM's first sweep so
``ibsim-run smpquery pkeys LID [PORT]`` can read what OpenSM programmed into
each port, then stops ibsim. Needs ``apt-get install -y opensm ibsim-utils
infiniband-diags`` (:func:`pkeys_available` says what is missing).

``smpquery pkeys`` prints the table 8 entries a row (``0:  0xffff 0x8001 ...``)
and ends with ``N pkeys capacity for this port``; :func:`parse_smpquery_pkeys`
reads it back into a list (every entry, 0x0000 included, up to the capacity).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from tests.ib import oracle

PKEYS_HINT = "apt-get install -y opensm ibsim-utils infiniband-diags"
_ROW = re.compile(r"^\s*(\d+):((?:\s+0x[0-9a-fA-F]{4})+)\s*$")
_CAP = re.compile(r"^\s*(\d+) pkeys capacity for this port")


def pkeys_available() -> str | None:
    """None when OpenSM, ibsim and smpquery are usable, else a one-line reason to skip."""
    reason = oracle.opensm_available()
    if reason:
        return reason.replace(oracle.INSTALL_HINT, PKEYS_HINT)
    if shutil.which("smpquery") is None:
        return f"smpquery not installed: {PKEYS_HINT}"
    return None


def parse_smpquery_pkeys(text: str) -> list[int]:
    """``smpquery pkeys`` output -> the table's entries in index order (capacity long)."""
    entries: dict[int, int] = {}
    cap = None
    for line in text.splitlines():
        if m := _ROW.match(line):
            base = int(m.group(1))
            for i, w in enumerate(m.group(2).split()):
                entries[base + i] = int(w, 16)
        elif m := _CAP.match(line):
            cap = int(m.group(1))
    if cap is None:
        raise oracle.OracleError(f"smpquery pkeys: no capacity line in {text[:200]!r}")
    return [entries.get(i, 0) for i in range(cap)]


def run_opensm_pkeys(topology_text: str, partitions_conf: str | None, workdir: Path,
                     queries: list[tuple[int, int | None]] | Callable[[oracle.OracleResult], list[tuple[int, int | None]]],
                     timeout: float = 120,
                     ) -> tuple[oracle.OracleResult, dict[tuple[int, int | None], list[int]]]:
    """OpenSM once (minhop, ``-P partitions.conf`` unless None), then ``smpquery pkeys`` for
    every (LID, port) in ``queries`` (port None: an end port). ``queries`` may be a callable
    taking the OracleResult (LIDs are known only after the sweep)."""
    reason = pkeys_available()
    if reason:
        raise oracle.OracleError(reason)
    workdir = Path(workdir).resolve()
    conf = workdir.parent / f"{workdir.name}.partitions.conf"    # outside the run directory it empties
    if partitions_conf is not None:
        conf.write_text(partitions_conf)
    else:   # a path that does not exist: OpenSM's "no partition file" behaviour
        conf = workdir.parent / f"{workdir.name}.no-partitions.conf"
    asked: list[tuple[int, int | None]] = []

    def smpqueries(result: oracle.OracleResult) -> list[list[str]]:
        asked[:] = queries(result) if callable(queries) else queries
        return [["smpquery", "pkeys", str(lid)] + ([] if port is None else [str(port)]) for lid, port in asked]

    result, outputs = oracle.run_opensm_and_query(topology_text, workdir, smpqueries, extra_args=("-P", str(conf)),
                                                  timeout=timeout)
    return result, {q: parse_smpquery_pkeys(out) for q, out in zip(asked, outputs, strict=True)}
