"""OpenSM's path SLs / VLs for the deadlock-free engines (dfsssp, lash), read from its log.

The LFTs come from :mod:`tests.ib.oracle` as for every engine; this adds what those engines
decide on top: the VL (= SL) of every (source LID, destination LID) path, how many VLs they
had and needed, and the refusal line when there are too few. OpenSM prints all of it:

* dfsssp (``osm_ucast_dfsssp.c``): INFO "Virtual Lanes available: N", "Virtual Lanes
  needed: N", "Paths per VL (before balancing):" and "Approx. #paths per VL (after
  balancing):" each followed by "   i. lane: n" lines; at DEBUG (log flag 0x08) the whole
  table after balancing, one "route from src_lid=S to dest_lid=D on vl=V" line per pair;
  "ERR AD25: Not enough VLs available ..." when it refuses.

:func:`run_sl` runs OpenSM (log flags 0x4F: DEBUG + ROUTING + VERBOSE) and parses the last
routing round of its log with the engine's parser in :data:`SL_PARSERS` (the lash job adds
its own). :func:`save_sl_fixture` / :func:`load_sl_fixture` keep the result next to the LFT
fixture (``sl.json``) for machines without OpenSM.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests.ib import oracle

SL_FILE = "sl.json"
#: DEBUG (vltable), ROUTING (LFT dump), VERBOSE (route_seconds), INFO and ERROR
SL_LOG_FLAGS = 0x4F


@dataclass
class SlReport:
    """What a deadlock-free engine logged about VLs in its last routing round."""

    engine: str
    vls_avail: int | None = None
    vls_needed: int | None = None
    paths_before: list[int] = field(default_factory=list)    # per VL, before balancing
    paths_after: list[int] = field(default_factory=list)     # "Approx. #paths per VL (after balancing)"
    vl: dict[tuple[int, int], int] = field(default_factory=dict)   # (slid, dlid) -> VL/SL
    errors: list[str] = field(default_factory=list)          # "ERR AD25: ..." lines of the engine
    lines: list[str] = field(default_factory=list)           # the engine's INFO/ERR lines, in order


_MSG = re.compile(r"^\w{3} +\d+ [\d:]{8} \d{6} \[[0-9A-F]+\] (0x[0-9a-f]{2}) -> (\w+): (.*)$")
_LANE = re.compile(r"^\s*(\d+)\. lane: (\d+)$")
_DF_ROUTE = re.compile(r"route from src_lid=(\d+) to dest_lid=(\d+) on vl=(\d+)")
_BUILDING = "building routing with '"


def last_round(log_text: str, engine: str | None = None) -> list[tuple[int, str, str]]:
    """(level, function, message) of every log line from the last "building routing with
    '<engine>'" on (any engine when None): the last routing round of the run, a fallback to
    minhop in that round included; every earlier sweep's lines dropped."""
    rows: list[tuple[int, str, str]] = []
    for line in log_text.splitlines():
        m = _MSG.match(line)
        if not m:
            continue
        level, func, msg = int(m.group(1), 16), m.group(2), m.group(3)
        if func == "ucast_mgr_route" and msg.startswith(_BUILDING) and (
                engine is None or msg.startswith(f"{_BUILDING}{engine}'")):
            rows = []
        rows.append((level, func, msg))
    return rows


def parse_dfsssp(log_text: str) -> SlReport:
    """dfsssp_remove_deadlocks' lines of the last round -> :class:`SlReport`."""
    rep = SlReport("dfsssp")
    target: list[int] | None = None
    for level, func, msg in last_round(log_text, "dfsssp"):
        if func == "vltable_print":
            if m := _DF_ROUTE.search(msg):
                rep.vl[(int(m.group(1)), int(m.group(2)))] = int(m.group(3))
            continue
        if func != "dfsssp_remove_deadlocks" and not msg.startswith("ERR AD"):
            continue
        if level & 0x03:
            rep.lines.append(msg.strip() if _LANE.match(msg) else msg)
        if msg.startswith("ERR AD"):
            rep.errors.append(msg)
        if msg.startswith("Virtual Lanes available: "):
            rep.vls_avail = int(msg.split(": ")[1])
        elif msg.startswith("Virtual Lanes needed: "):
            rep.vls_needed = int(msg.split(": ")[1])
        elif msg.startswith("Paths per VL (before balancing)"):
            target = rep.paths_before
        elif msg.startswith("Approx. #paths per VL (after balancing)"):
            target = rep.paths_after
        elif (m := _LANE.match(msg)) and target is not None:
            target.append(int(m.group(2)))
        else:
            target = None
    return rep


#: engine -> parser of OpenSM's log text (add an engine with ``SL_PARSERS["lash"] = ...``)
SL_PARSERS: dict[str, Callable[[str], SlReport]] = {"dfsssp": parse_dfsssp}


def run_sl(topology_text: str, engine: str, workdir: Path, *, conf_text: str = "",
           extra_args: Sequence[str] = (), log_flags: int = SL_LOG_FLAGS,
           timeout: float = 120) -> tuple[oracle.OracleResult, SlReport]:
    """OpenSM once with ``-R engine`` (options file ``conf_text``) at DEBUG: its LFTs and the
    engine's path VLs (:data:`SL_PARSERS`)."""
    res, _ = oracle.run_opensm_and_query(topology_text, workdir, [], conf_text=conf_text,
                                         engine=engine, extra_args=extra_args,
                                         timeout=timeout, log_flags=log_flags)
    assert res.log_path is not None
    return res, SL_PARSERS[engine.split(",")[0]](res.log_path.read_text(errors="replace"))


def save_sl_fixture(rep: SlReport, out_dir: Path) -> None:
    """``sl.json``: the report, the VL table as [slid, dlid, vl] rows (sorted)."""
    doc = {"engine": rep.engine, "vls_avail": rep.vls_avail, "vls_needed": rep.vls_needed,
           "paths_before": rep.paths_before, "paths_after": rep.paths_after,
           "errors": rep.errors, "lines": rep.lines,
           "vl": [[s, d, v] for (s, d), v in sorted(rep.vl.items())]}
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    body = ",\n ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in doc.items() if k != "vl")
    rows = ",\n  ".join(json.dumps(r) for r in doc["vl"])
    (out / SL_FILE).write_text("{\n " + body + ',\n "vl": [\n  ' + rows + "\n ]\n}\n")


def load_sl_fixture(fixture_dir: Path) -> SlReport:
    """Read ``sl.json`` written by :func:`save_sl_fixture`."""
    doc = json.loads((Path(fixture_dir) / SL_FILE).read_text())
    return SlReport(engine=doc["engine"], vls_avail=doc["vls_avail"], vls_needed=doc["vls_needed"],
                    paths_before=doc["paths_before"], paths_after=doc["paths_after"],
                    vl={(s, d): v for s, d, v in doc["vl"]}, errors=doc["errors"], lines=doc["lines"])


#: options for :func:`run_sl_resweep`: a heavy sweep every second, so OpenSM routes again
RESWEEP_CONF = "force_heavy_sweep TRUE\nsweep_interval 1\n"


def run_sl_resweep(topology_text: str, engine: str, workdir: Path, *, conf_text: str = "",
                   rounds: int = 2, log_flags: int = SL_LOG_FLAGS,
                   timeout: float = 60) -> tuple[oracle.OracleResult, SlReport]:
    """Like :func:`run_sl` but OpenSM keeps running (no ``-o``) and re-routes on a forced heavy
    sweep; stopped after ``rounds`` routing rounds. What the engine sees on the first sweep
    differs from later ones: a switch's external ports keep the operational VLs they powered
    up with until the link manager sets them (after routing), so ``max_op_vls`` only reaches
    dfsssp's "Virtual Lanes available" from the second round on."""
    import os
    import subprocess
    import time

    workdir, net = oracle.fresh_run_dir(workdir, topology_text, RESWEEP_CONF + conf_text)
    conf = workdir / "opensm.conf"
    log = workdir / "osm.log"
    sock = f"fvzsl{os.getpid()}x{time.monotonic_ns() % 10**9}"
    env = {k: v for k, v in os.environ.items() if k not in ("SIM_HOST", "LD_PRELOAD")}
    env.update(IBSIM_SOCKNAME=sock, OSM_TMP_DIR=str(workdir), OSM_CACHE_DIR=str(workdir))
    deadline = time.monotonic() + timeout
    sim = osm = None
    try:
        with open(workdir / "ibsim.log", "wb") as out:
            sim = subprocess.Popen(["ibsim", "-s", str(net)], stdin=subprocess.PIPE, stdout=out,
                                   stderr=subprocess.STDOUT, cwd=workdir, env=env,
                                   start_new_session=True, preexec_fn=oracle._die_with_parent)
        oracle._wait_ready(sim, sock, deadline, workdir)
        cmd = ["ibsim-run", "opensm", "-F", str(conf), "-f", str(log), "-D", hex(log_flags),
               "-R", engine, "--dump_files_dir", str(workdir)]
        with open(workdir / "osm.out", "wb") as out:
            osm = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   cwd=workdir, env=env, start_new_session=True,
                                   preexec_fn=oracle._die_with_parent)
        while True:
            text = log.read_text(errors="replace") if log.exists() else ""
            if text.count("tables configured on all switches") >= rounds and text.count(
                    "SUBNET UP") >= rounds:
                break
            if osm.poll() is not None:
                raise oracle.OracleError(f"{workdir}: opensm exited ({osm.returncode})")
            if time.monotonic() > deadline:
                raise oracle.OracleError(f"{workdir}: {rounds} routing rounds not done in {timeout:g} s")
            time.sleep(0.05)
    finally:
        for proc in (osm, sim):
            if proc is not None:
                oracle._kill_group(proc, grace=0.5)
    res = oracle.read_run_dir(workdir, engine)
    # read_run_dir's routed_by is the first round's; the last round is the one wanted here
    rows = last_round(log.read_text(errors="replace"), engine.split(",")[0])
    res.routed_by = next((m.split(" tables configured")[0] for _, f, m in rows
                          if f == "osm_ucast_mgr_process" and "tables configured" in m), None)
    res.fallback_reason = next((m for _, f, m in rows if m.startswith("ERR AD")), None)
    return res, SL_PARSERS[engine.split(",")[0]](log.read_text(errors="replace"))


# --- saved answers -------------------------------------------------------------------------

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "opensm"


@dataclass(frozen=True)
class SlCase:
    """One differential-test fabric for a deadlock-free engine."""

    text: str
    lmc: int = 0
    conf: str = ""             # opensm.conf lines (e.g. "max_op_vls 1")
    resweep: bool = False      # read the second routing round (:func:`run_sl_resweep`)


def dfsssp_cases() -> dict[str, SlCase]:
    """Case name -> fabric for tests/data/opensm/<case>-dfsssp/."""
    from tests.ib import topologies as T
    return {
        "ring8": SlCase(T.ring(8).text()),
        "ring6x2": SlCase(T.ring(6, 2).text()),
        "torus44": SlCase(T.torus_2d(4, 4, 1).text()),
        "torus24": SlCase(T.torus_2d(2, 4, 1).text()),
        "dragonfly": SlCase(T.dragonfly(4, 4, 2).text()),
        "random16": SlCase(T.random_fabric(16, 12, 2, 7).text()),
        "k4": SlCase(T.k_ary_fat_tree(4).text()),
        "ring4-lmc1": SlCase(T.ring(4).text(), lmc=1),
        "ring8-mop2": SlCase(T.ring(8).text(), conf="max_op_vls 2\n", resweep=True),
        "torus44-mop1": SlCase(T.torus_2d(4, 4, 1).text(), conf="max_op_vls 1\n", resweep=True),
    }


def run_case(case: SlCase, engine: str, workdir: Path) -> tuple[oracle.OracleResult, SlReport]:
    """OpenSM on one :class:`SlCase` (LMC via ``-l``, options, first or second round)."""
    if case.resweep:
        return run_sl_resweep(case.text, engine, workdir, conf_text=case.conf)
    args = ("-l", str(case.lmc)) if case.lmc else ()
    return run_sl(case.text, engine, workdir, conf_text=case.conf, extra_args=args)


def make_fixtures(engine: str, cases: dict[str, SlCase], names: Sequence[str] = ()) -> None:
    """Run OpenSM on each case and save LFTs + SLs to tests/data/opensm/<case>-<engine>/."""
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory(prefix="fvz-sl-") as tmp:
        for name in names or list(cases):
            res, rep = run_case(cases[name], engine, Path(tmp) / name)
            out = FIXTURES / f"{name}-{engine}"
            if out.exists():
                shutil.rmtree(out)
            oracle.save_fixture(res, out)
            (out / "case.json").write_text(json.dumps({"lmc": cases[name].lmc, "conf": cases[name].conf,
                                                       "resweep": cases[name].resweep}) + "\n")
            save_sl_fixture(rep, out)
            print(f"{name:14s} routed_by={res.routed_by} needed={rep.vls_needed} avail={rep.vls_avail} "
                  f"paths={len(rep.vl)} {rep.errors}")


if __name__ == "__main__":      # .venv/bin/python -m tests.ib.sl_oracle [CASE ...]
    import sys
    make_fixtures("dfsssp", dfsssp_cases(), sys.argv[1:])
