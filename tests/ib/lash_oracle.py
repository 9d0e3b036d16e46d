"""OpenSM's LASH answers under ibsim: LFTs, its "Lanes" log lines and every path's SL.

LASH's lanes live only inside OpenSM (``get_lash_sl``, the routing engine's path SL callback);
no dump holds them. They come out through the SA: while OpenSM still runs, one
``saquery -p`` (PathRecord with no component mask: every source port to every destination
port, :func:`parse_path_records`) asks the SM, and each record carries the SL LASH gave
the path. So :func:`run_lash` starts OpenSM *without* ``-o``, waits for its "SUBNET UP"
(or for it to give up), queries, and stops it. A refusal (ERR 4D02/4D03) falls back to
minhop, which has no path SL callback: the records then carry SL 0.

Saved answers (``tests/data/opensm/<case>-lash/``): the usual fixture files
(:func:`tests.ib.oracle.save_fixture`) plus ``lash.json`` (the lash log lines, VLs needed,
each (SLID, DLID) -> SL), see :func:`save_lash_fixture` / :func:`load_lash_fixture`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import count
from pathlib import Path

from tests.ib import oracle

_RUN_IDS = count()
LASH_JSON = "lash.json"

#: lines of the routing stage that LASH logs at INFO (and its ERR refusals)
_LASH_LINE = re.compile(r"(discover_network_properties|lash_core): (.*)$")
_PR_FIELD = re.compile(r"^\s*(slid|dlid|sl)\.+(0x[0-9a-fA-F]+|\d+)\s*$")


@dataclass
class LashResult:
    """One OpenSM run with ``-R lash``."""

    run: oracle.OracleResult                       # LFTs, LIDs, routed_by, ...
    lash_log: list[str] = field(default_factory=list)   # "Lanes in layer 0: 24", "ERR 4D02: ..."
    vls_needed: int | None = None                  # "Lanes needed: N" (None: no such line)
    path_sl: dict[tuple[int, int], int] = field(default_factory=dict)   # (SLID, DLID) -> SL


def parse_path_records(text: str) -> dict[tuple[int, int], int]:
    """``saquery -p`` output -> {(slid, dlid): sl} (one PathRecord block per pair)."""
    out: dict[tuple[int, int], int] = {}
    cur: dict[str, int] = {}
    for line in text.splitlines():
        if line.startswith("PathRecord dump:"):
            cur = {}
            continue
        if m := _PR_FIELD.match(line):
            cur[m.group(1)] = int(m.group(2), 0)
            if m.group(1) == "sl" and "slid" in cur and "dlid" in cur:
                out[(cur["slid"], cur["dlid"])] = cur["sl"]
    return out


def query_pairs(run: oracle.OracleResult, max_queries: int = 3000) -> list[tuple[int, int]]:
    """(SLID, DLID) pairs to ask the SA: every ordered pair of end-port LIDs, or, when that is
    more than ``max_queries``, every pair of switch LIDs plus each CA's LID to and from the
    first switch LID and the CA LIDs on the same switch as the first CA (LASH's SL depends
    only on the two ends' switches)."""
    lids = sorted(set(run.port_lids.values()))
    if len(lids) * (len(lids) - 1) <= max_queries:
        return [(a, b) for a in lids for b in lids if a != b]
    sw = sorted({lid for (node, port), lid in run.lids.items() if port == 0 and node in run.switches})
    ca = sorted(set(lids) - set(sw))
    pairs = [(a, b) for a in sw for b in sw if a != b]
    pairs += [(c, sw[0]) for c in ca] + [(sw[0], c) for c in ca]
    return pairs


def parse_lash_log(text: str) -> tuple[list[str], int | None]:
    """The LASH lines of osm.log's last routing attempt and the "Lanes needed" count."""
    lines: list[str] = []
    for raw in text.splitlines():
        if "building routing with 'lash'" in raw:
            lines = []
        if m := _LASH_LINE.search(raw):
            lines.append(m.group(2).strip())
    needed = None
    for ln in lines:
        if m := re.match(r"Lanes needed: (\d+)", ln):
            needed = int(m.group(1))
    return lines, needed


def run_lash(topology_text: str, workdir: Path, *, conf_text: str = "", extra_args: Sequence[str] = (),
             log_flags: int = 0x47, timeout: float = 120, query: bool = True,
             max_queries: int = 3000, batch: int = 8) -> LashResult:
    """OpenSM with ``-R lash`` on the fabric (options file ``conf_text``) until SUBNET UP, then one
    ``saquery -p --src-to-dst SLID:DLID`` per pair of :func:`query_pairs` (``query=False``: none),
    ``batch`` at a time; everything in ``workdir``. ``force_log_flush`` is added to the options
    so the log shows SUBNET UP when it happens."""
    workdir, net = oracle.fresh_run_dir(workdir, topology_text, conf_text + "\nforce_log_flush TRUE\n")
    log = workdir / "osm.log"
    sock = f"fvzl{os.getpid()}x{next(_RUN_IDS)}"
    env = {k: v for k, v in os.environ.items() if k not in ("SIM_HOST", "LD_PRELOAD")}
    env.update(IBSIM_SOCKNAME=sock, OSM_TMP_DIR=str(workdir), OSM_CACHE_DIR=str(workdir))
    deadline = time.monotonic() + timeout
    sim = osm = None
    sa_text = ""
    try:
        with open(workdir / "ibsim.log", "wb") as sim_out:
            sim = subprocess.Popen(["ibsim", "-s", str(net)], stdin=subprocess.PIPE, stdout=sim_out,
                                   stderr=subprocess.STDOUT, cwd=workdir, env=env,
                                   start_new_session=True, preexec_fn=oracle._die_with_parent)
        oracle._wait_ready(sim, sock, deadline, workdir)
        cmd = ["ibsim-run", "opensm", "-F", str(workdir / "opensm.conf"), "-f", str(log),
               "-D", hex(log_flags), "-R", "lash", "--dump_files_dir", str(workdir), *extra_args]
        with open(workdir / "osm.out", "wb") as osm_out:
            osm = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=osm_out,
                                   stderr=subprocess.STDOUT, cwd=workdir, env=env,
                                   start_new_session=True, preexec_fn=oracle._die_with_parent)
        while True:
            text = log.read_text(errors="replace") if log.exists() else ""
            if "SUBNET UP" in text:
                break
            if osm.poll() is not None:
                raise oracle.OracleError(f"{workdir}: opensm exited ({osm.returncode}) before SUBNET UP")
            if time.monotonic() > deadline:
                raise oracle.OracleError(f"{workdir}: no SUBNET UP within {timeout:g} s")
            time.sleep(0.02)
        run = oracle.read_run_dir(workdir, "lash")
        pairs = query_pairs(run, max_queries) if query else []
        for lo in range(0, len(pairs), batch):
            procs = [(pr, subprocess.Popen(["ibsim-run", "saquery", "-p", "--src-to-dst", f"{pr[0]}:{pr[1]}"],
                                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, text=True, cwd=workdir, env=env,
                                           start_new_session=True, preexec_fn=oracle._die_with_parent))
                     for pr in pairs[lo:lo + batch]]
            for pr, p in procs:
                try:
                    out, err = p.communicate(timeout=oracle.QUERY_TIMEOUT)
                except subprocess.TimeoutExpired:
                    oracle._kill_group(p, grace=0.2)
                    raise oracle.OracleError(f"{workdir}: saquery {pr} timed out") from None
                if p.returncode != 0:
                    raise oracle.OracleError(f"{workdir}: saquery -p {pr} failed ({p.returncode}): "
                                             f"{err.strip()[-300:]}")
                sa_text += out
        (workdir / "saquery-p.txt").write_text(sa_text)
    finally:
        for proc in (osm, sim):
            if proc is not None:
                oracle._kill_group(proc, grace=0.5)
    lines, needed = parse_lash_log(log.read_text(errors="replace"))
    return LashResult(run, lines, needed, parse_path_records(sa_text))


def save_lash_fixture(res: LashResult, out_dir: Path, conf_text: str = "",
                      extra_args: Sequence[str] = ()) -> None:
    """The usual fixture files plus lash.json: the options, LASH's log lines, VLs needed and the
    path SLs as one string per source LID (hex SL per destination LID of ``lids``, "." = not asked)."""
    oracle.save_fixture(res.run, out_dir)
    lids = sorted({x for pair in res.path_sl for x in pair})
    col = {lid: i for i, lid in enumerate(lids)}
    rows = {s: ["."] * len(lids) for s in lids}
    for (s, d), sl in res.path_sl.items():
        rows[s][col[d]] = f"{sl:x}"
    doc = {"conf": conf_text, "extra_args": list(extra_args), "lash_log": res.lash_log,
           "vls_needed": res.vls_needed, "routed_by": res.run.routed_by,
           "route_seconds": res.run.route_seconds, "lids": lids,
           "path_sl": {str(s): "".join(r) for s, r in rows.items()}}
    (Path(out_dir) / LASH_JSON).write_text(oracle._json_rows(doc))


def load_lash_fixture(fixture_dir: Path) -> tuple[LashResult, dict]:
    """(the saved run, lash.json as a dict: ``conf``, ``extra_args``, ...)."""
    d = Path(fixture_dir)
    doc = json.loads((d / LASH_JSON).read_text())
    lids = doc["lids"]
    sls = {(int(s), lids[i]): int(c, 16) for s, row in doc["path_sl"].items()
           for i, c in enumerate(row) if c != "."}
    return LashResult(oracle.load_fixture(d), doc["lash_log"], doc["vls_needed"], sls), doc


def cases() -> dict[str, tuple[str, str, tuple[str, ...]]]:
    """Saved LASH cases: name -> (topology text, opensm.conf text, extra opensm arguments)."""
    from tests.ib import topologies as T
    return {
        "ring6": (T.ring(6).text(), "", ()),
        "ring8-2h": (T.ring(8, 2).text(), "", ()),
        "ring8-2h-start2": (T.ring(8, 2).text(), "lash_start_vl 2\n", ()),
        "ring6-start6": (T.ring(6).text(), "lash_start_vl 6\n", ()),         # ERR 4D02
        "ring6-start8": (T.ring(6).text(), "lash_start_vl 8\n", ()),         # ERR 4D03
        "torus4x4": (T.torus_2d(4, 4, 1).text(), "", ()),
        "torus4x4-2h": (T.torus_2d(4, 4, 2).text(), "", ()),
        "torus4x4-lmc1": (T.torus_2d(4, 4, 1).text(), "", ("-l", "1")),
        "torus4x4-scatter7": (T.torus_2d(4, 4, 1).text(), "scatter_ports 7\n", ()),  # srandom(7)
        "dragonfly": (T.dragonfly(4, 4, 2).text(), "", ()),
        "random12": (T.random_fabric(12, 8, 2, seed=7).text(), "", ()),
        "k4": (T.k_ary_fat_tree(4).text(), "", ()),
        "parallel": (T.two_level(parallel=2).text(), "", ()),
    }


FIXTURES = Path(__file__).resolve().parents[1] / "data" / "opensm"


def main(argv: list[str]) -> int:
    """Regenerate tests/data/opensm/<case>-lash/ (all cases, or those named)."""
    import tempfile
    reason = oracle.opensm_available()
    if reason:
        print(f"lash_oracle: {reason}")
        return 2
    all_cases = cases()
    with tempfile.TemporaryDirectory(prefix="fvz-lash-") as tmp:
        for name in argv or list(all_cases):
            text, conf, extra = all_cases[name]
            res = run_lash(text, Path(tmp) / name, conf_text=conf, extra_args=extra)
            out = FIXTURES / f"{name}-lash"
            if out.exists():
                shutil.rmtree(out)
            save_lash_fixture(res, out, conf, extra)
            print(f"{name:18s} routed_by={res.run.routed_by} vls={res.vls_needed} paths={len(res.path_sl)}")
    return 0


if __name__ == "__main__":
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    sys.exit(main(sys.argv[1:]))
