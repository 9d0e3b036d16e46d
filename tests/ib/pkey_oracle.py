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

import os
import re
import shutil
import subprocess
import time
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
                     queries: list[tuple[int, int | None]], timeout: float = 120,
                     ) -> tuple[oracle.OracleResult, dict[tuple[int, int | None], list[int]]]:
    """OpenSM once (minhop, ``-P partitions.conf`` unless None), then ``smpquery pkeys`` for
    every (LID, port) in ``queries`` (port None: an end port). ``queries`` may be a callable
    taking the OracleResult (LIDs are known only after the sweep)."""
    reason = pkeys_available()
    if reason:
        raise oracle.OracleError(reason)
    workdir = Path(workdir).resolve()
    if workdir.exists():
        if any(workdir.iterdir()) and not (workdir / "topology.net").exists():
            raise oracle.OracleError(f"{workdir}: not empty and not an earlier run directory")
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    net = workdir / "topology.net"
    net.write_text(topology_text)
    (workdir / "opensm.conf").write_text("")
    log = workdir / "osm.log"
    extra: list[str] = []
    if partitions_conf is not None:
        (workdir / "partitions.conf").write_text(partitions_conf)
        extra = ["-P", str(workdir / "partitions.conf")]
    else:   # a path that does not exist: OpenSM's "no partition file" behaviour
        extra = ["-P", str(workdir / "no-partitions.conf")]

    sock = f"fvzpk{os.getpid()}x{next(oracle._RUN_IDS)}"
    env = {k: v for k, v in os.environ.items() if k not in ("SIM_HOST", "LD_PRELOAD")}
    env.update(IBSIM_SOCKNAME=sock, OSM_TMP_DIR=str(workdir), OSM_CACHE_DIR=str(workdir))
    deadline = time.monotonic() + timeout
    sim = osm = None
    tables: dict[tuple[int, int | None], list[int]] = {}
    try:
        with open(workdir / "ibsim.log", "wb") as sim_out:
            sim = subprocess.Popen(["ibsim", "-s", str(net)], stdin=subprocess.PIPE,
                                   stdout=sim_out, stderr=subprocess.STDOUT, cwd=workdir,
                                   env=env, start_new_session=True,
                                   preexec_fn=oracle._die_with_parent)
        oracle._wait_ready(sim, sock, deadline, workdir)
        cmd = ["ibsim-run", "opensm", "-o", "-F", str(workdir / "opensm.conf"),
               "-f", str(log), "-D", "0x43", "-R", "minhop",
               "--dump_files_dir", str(workdir), *extra]
        with open(workdir / "osm.out", "wb") as osm_out:
            osm = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=osm_out,
                                   stderr=subprocess.STDOUT, cwd=workdir, env=env,
                                   start_new_session=True, preexec_fn=oracle._die_with_parent)
        rc = oracle._wait_opensm(osm, log, deadline, workdir, timeout)
        if rc != 0:
            raise oracle.OracleError(f"{workdir}: opensm exited with {rc}; see {log}")
        result = oracle.read_run_dir(workdir, "minhop")
        todo = queries(result) if callable(queries) else queries
        for lid, port in todo:
            args = ["ibsim-run", "smpquery", "pkeys", str(lid)] + ([] if port is None else [str(port)])
            left = max(1.0, deadline - time.monotonic())
            out = subprocess.run(args, capture_output=True, text=True, env=env, cwd=workdir,
                                 timeout=left)
            if out.returncode != 0:
                raise oracle.OracleError(f"{' '.join(args[1:])}: exit {out.returncode}: "
                                         f"{out.stderr.strip()[-200:]}")
            tables[(lid, port)] = parse_smpquery_pkeys(out.stdout)
    finally:
        for proc in (osm, sim):
            if proc is not None:
                oracle._kill_group(proc, grace=0.2 if proc is osm else 2.0)
    return result, tables
