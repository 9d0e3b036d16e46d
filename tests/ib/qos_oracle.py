"""Run the real OpenSM once under ibsim, keep ibsim alive, read back what OpenSM programmed.

``run_opensm_and_query(text, conf_text, workdir, queries)`` is :func:`tests.ib.oracle.run_opensm`
with two differences (issue 14, QoS):

* OpenSM gets ``conf_text`` as its options file (``-F opensm.conf``) instead of an empty one;
* after ``opensm -o`` has configured the subnet and exited, ibsim keeps running and every
  command in ``queries`` (argument lists such as ``["smpquery", "sl2vl", "3", "2"]``) runs
  under ``ibsim-run`` against the same simulated fabric, from the SM's node. Their outputs
  come back in order; then ibsim is stopped (its process group only, TERM then KILL).

``parse_sl2vl`` / ``parse_vlarb`` read ``smpquery sl2vl`` / ``smpquery vlarb`` output.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from tests.ib import oracle

QUERY_TIMEOUT = 30.0


def run_opensm_and_query(topology_text: str, conf_text: str, workdir: Path,
                         queries: list[list[str]], engine: str = "minhop",
                         timeout: float = 120, log_flags: int = 0x43,
                         batch: int = 8) -> tuple[oracle.OracleResult, list[str]]:
    """OpenSM's result (as run_opensm reads it) and the stdout of every query, in order.

    Queries run ``batch`` at a time (ibsim serves several clients at once); a query that
    fails raises OracleError with its stderr."""
    reason = oracle.opensm_available()
    if reason:
        raise oracle.OracleError(reason)
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    if any(workdir.iterdir()):
        raise oracle.OracleError(f"{workdir}: not empty")
    net = workdir / "topology.net"
    net.write_text(topology_text)
    conf = workdir / "opensm.conf"
    conf.write_text(conf_text)
    log = workdir / "osm.log"
    sock = f"fvzq{os.getpid()}x{next(oracle._RUN_IDS)}"
    env = {k: v for k, v in os.environ.items() if k not in ("SIM_HOST", "LD_PRELOAD")}
    env.update(IBSIM_SOCKNAME=sock, OSM_TMP_DIR=str(workdir), OSM_CACHE_DIR=str(workdir))
    deadline = time.monotonic() + timeout
    sim = osm = None
    outputs: list[str] = []
    try:
        with open(workdir / "ibsim.log", "wb") as sim_out:
            sim = subprocess.Popen(["ibsim", "-s", str(net)], stdin=subprocess.PIPE,
                                   stdout=sim_out, stderr=subprocess.STDOUT, cwd=workdir,
                                   env=env, start_new_session=True,
                                   preexec_fn=oracle._die_with_parent)
        oracle._wait_ready(sim, sock, deadline, workdir)
        cmd = ["ibsim-run", "opensm", "-o", "-F", str(conf), "-f", str(log), "-D", hex(log_flags),
               "-R", engine, "--dump_files_dir", str(workdir)]
        with open(workdir / "osm.out", "wb") as osm_out:
            osm = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=osm_out,
                                   stderr=subprocess.STDOUT, cwd=workdir, env=env,
                                   start_new_session=True, preexec_fn=oracle._die_with_parent)
        rc = oracle._wait_opensm(osm, log, deadline, workdir, timeout)
        oracle._kill_group(osm, grace=0.2)
        if rc not in (0, None):
            raise oracle.OracleError(f"{workdir}: opensm exited with {rc}; see {log} and osm.out")
        for lo in range(0, len(queries), batch):
            procs = [subprocess.Popen(["ibsim-run", *q], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      cwd=workdir, env=env, start_new_session=True,
                                      preexec_fn=oracle._die_with_parent)
                     for q in queries[lo:lo + batch]]
            for q, p in zip(queries[lo:lo + batch], procs):
                try:
                    out, err = p.communicate(timeout=QUERY_TIMEOUT)
                except subprocess.TimeoutExpired:
                    oracle._kill_group(p, grace=0.2)
                    raise oracle.OracleError(f"{workdir}: {' '.join(q)} timed out") from None
                if p.returncode != 0:
                    raise oracle.OracleError(f"{workdir}: {' '.join(q)} failed ({p.returncode}): "
                                             f"{err.strip()[-300:]}")
                outputs.append(out)
    finally:
        for proc in (osm, sim):
            if proc is not None:
                oracle._kill_group(proc, grace=0.2 if proc is osm else 2.0)
    result = oracle.read_run_dir(workdir, engine)
    return result, outputs


_SL2VL_ROW = re.compile(r"^ports: in\s+(\d+), out\s+(\d+):\s*\|(.*)\|\s*$")


def parse_sl2vl(text: str) -> dict[tuple[int, int], tuple[int, ...]]:
    """``smpquery sl2vl`` output -> {(in port, out port): 16 VLs}."""
    out: dict[tuple[int, int], tuple[int, ...]] = {}
    for line in text.splitlines():
        if m := _SL2VL_ROW.match(line.strip()):
            vls = tuple(int(v) for v in m.group(3).split("|"))
            if len(vls) != 16:
                raise oracle.OracleError(f"sl2vl row without 16 VLs: {line}")
            out[(int(m.group(1)), int(m.group(2)))] = vls
    return out


_VLARB_HEAD = re.compile(r"^# (Low|High) priority VL Arbitration Table:")
_VLARB_ROW = re.compile(r"^(VL|WEIGHT)\s*:\s*(.*)$", re.IGNORECASE)


def parse_vlarb(text: str) -> dict[str, list[tuple[int, int]]]:
    """``smpquery vlarb`` output -> {"low": [(vl, weight), ...], "high": [...]}."""
    out: dict[str, list[tuple[int, int]]] = {}
    cur: str | None = None
    vls: list[int] = []
    for line in text.splitlines():
        s = line.strip()
        if m := _VLARB_HEAD.match(s):
            cur = m.group(1).lower()
            out.setdefault(cur, [])
            continue
        if cur is None:
            continue
        if m := _VLARB_ROW.match(s):
            vals = [int(v, 0) for v in m.group(2).replace("|", " ").split()]
            if m.group(1).upper() == "VL":
                vls = vals
            else:
                out[cur].extend(zip(vls, vals))
    return out
