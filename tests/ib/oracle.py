"""Run the real OpenSM once on an ibsim-simulated fabric and read back what it computed.

This is the oracle for fabricviz's own subnet manager (issue 3, "Proof"): the
LIDs and LFTs fabricviz computes must equal OpenSM 3.3's for the same fabric and
GUIDs. Needs Debian's ``opensm`` and ``ibsim-utils``; without them
``opensm_available()`` returns the one-line reason to skip.

How a run works (``run_opensm``):
  * ``ibsim -s NET`` starts in its own process group with its console on a pipe
    that stays open (ibsim busy-loops on a console at EOF), under a socket name
    unique to the run (``IBSIM_SOCKNAME``) so concurrent runs never meet.
    Readiness = its ``@NAME:ctl`` socket shows in /proc/net/unix (a few ms).
  * ``ibsim-run opensm -o ...`` (umad2sim LD_PRELOAD) configures the subnet once
    and exits. The SM sits on the file's first node (or ``SIM_HOST=sm_node``).
    OpenSM's cache (guid2lid) and dumps go to the fresh run directory, and an
    empty ``-F`` config file keeps /etc/opensm/opensm.conf out of the result.
  * Both process groups are killed in ``finally`` (TERM, then KILL).

Where the answers come from (all in the run directory):
  * LFTs: ``opensm-lfts.dump`` (written when log flag 0x40 ROUTING is on).
  * LIDs per (node GUID, port): ``opensm-subnet.lst`` (one line per linked port,
    both ends; a switch end shows the switch's port-0 LID). Port GUID -> LID:
    ``guid2lid`` (OpenSM's persistent cache, every end port incl. switch port 0).
  * routed_by: the log line "<engine> tables configured on all switches"; a
    refusing engine logs "<engine>: cannot build lid matrices" (or "... fwd
    tables") after its own reason lines (ERR AB.. for ftree, "disabling UPDN
    algorithm, no root nodes were found" for updn).
  * route_seconds: needs log flag 0x04 VERBOSE (``log_flags=0x47``), which adds
    "building routing with '<engine>' routing algorithm..." before each engine
    attempt; measured from the first of those to "tables configured".
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import count
from pathlib import Path

INSTALL_HINT = "apt-get install -y opensm ibsim-utils"
UMAD2SIM = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
LFTS_DUMP = "opensm-lfts.dump"
SUBNET_LST = "opensm-subnet.lst"
GUID2LID = "guid2lid"
UPDN_ROOTS = "opensm-updn-roots.dump"

_RUN_IDS = count()


class OracleError(RuntimeError):
    """OpenSM/ibsim did not produce a usable result (message names the run dir)."""


@dataclass
class OracleResult:
    """What one OpenSM run computed. GUIDs are ints; see module docstring for sources."""

    engine: str                                   # what was asked for with -R
    routed_by: str | None                         # engine that produced the LFTs
    fallback_reason: str | None                   # why the asked engine(s) refused
    lfts: dict[int, dict[int, int]]               # switch node GUID -> {LID: egress port}
    lids: dict[tuple[int, int], int]              # (node GUID, port; switch = 0) -> LID
    port_lids: dict[int, int]                     # port GUID -> base LID
    port_guids: dict[tuple[int, int], int]        # (node GUID, port; switch = 0) -> port GUID
    switches: dict[int, str]                      # switch node GUID -> node description
    sm_lid: int | None                            # LID of the port the SM ran on
    links: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)  # (node, port) <-> peer
    updn_roots: list[int] | None = None           # switch GUIDs updn ranked as roots
    route_seconds: float | None = None            # OpenSM's own routing time (log_flags 0x04)
    wall_seconds: float | None = None             # whole run incl. ibsim start/stop
    log_path: Path | None = None
    run_dir: Path | None = None
    version: str | None = None
    messages: list[str] = field(default_factory=list)  # ERR/INFO lines of the routing stage


def opensm_available() -> str | None:
    """None when opensm, ibsim and ibsim-run are usable, else a one-line reason."""
    missing = [t for t in ("opensm", "ibsim", "ibsim-run") if shutil.which(t) is None]
    if missing:
        return f"opensm/ibsim not installed ({', '.join(missing)} missing): {INSTALL_HINT}"
    if not Path(UMAD2SIM).exists():
        return f"opensm/ibsim not installed ({UMAD2SIM} missing): {INSTALL_HINT}"
    if not Path("/proc/net/unix").exists():
        return "ibsim needs /proc/net/unix (Linux) to detect readiness"
    return None


def opensm_version() -> str:
    """'OpenSM 3.3.23' as printed by `opensm --version`."""
    out = subprocess.run(["opensm", "--version"], capture_output=True, text=True, timeout=10).stdout
    m = re.search(r"OpenSM [\w.\-]+", out)
    return m.group(0) if m else out.strip().splitlines()[-1]


# --- processes -------------------------------------------------------------------


def _kill_group(proc: subprocess.Popen, grace: float = 2.0) -> None:
    """TERM then KILL the process group led by proc (started with start_new_session)."""
    if proc.poll() is None:
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
    else:  # leader gone: still reap any child left in its group
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if proc.stdin:
        try:
            proc.stdin.close()
        except OSError:
            pass


def _socket_bound(name: str) -> bool:
    """ibsim binds its control socket in the abstract namespace; /proc/net/unix shows it as
    "@NAME:ctl@" (the trailing NUL ibsim counts in the address length prints as '@')."""
    want = f"@{name}:ctl"
    return any(line.rstrip("@ ").endswith(want) for line in Path("/proc/net/unix").read_text().splitlines())


def _die_with_parent() -> None:
    """In the child before exec: get SIGKILL when the Python process dies, even by a
    signal that skips `finally` (Linux prctl PR_SET_PDEATHSIG; survives exec)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _wait_ready(sim: subprocess.Popen, sock: str, deadline: float, run_dir: Path) -> None:
    delay = 0.002
    while not _socket_bound(sock):
        if sim.poll() is not None:
            tail = (run_dir / "ibsim.log").read_text(errors="replace").strip().splitlines()[-1:]
            raise OracleError(f"{run_dir}: ibsim exited ({sim.returncode}) before it was ready: {tail}")
        if time.monotonic() > deadline:
            raise OracleError(f"{run_dir}: ibsim not ready after timeout")
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def _wait_opensm(osm: subprocess.Popen, log: Path, deadline: float, run_dir: Path,
                 timeout: float) -> int | None:
    """Exit code of `opensm -o`, or None when its own port is down: then OpenSM sleeps
    and re-sweeps forever, so stop waiting once the log says so (the result is "nothing
    routed", which is what OpenSM does on such a fabric)."""
    while True:
        if time.monotonic() > deadline:     # checked first: a deadline already gone is not waited on
            raise OracleError(f"{run_dir}: opensm did not finish within {timeout:g} s")
        try:
            return osm.wait(0.02)
        except subprocess.TimeoutExpired:
            pass
        if log.exists() and "SM port is down" in log.read_text(errors="replace"):
            return None


#: Seconds one query (``ibsim-run smpquery ...``) may take after OpenSM's sweep.
QUERY_TIMEOUT = 30.0


def fresh_run_dir(workdir: Path, topology_text: str, conf_text: str) -> tuple[Path, Path]:
    """(run directory, its topology.net) for one OpenSM run: OpenSM and ibsim usable (else
    OracleError with the reason), the directory emptied (only an earlier run directory: anything
    else is refused), the topology and the options file ``conf_text`` written."""
    reason = opensm_available()
    if reason:
        raise OracleError(reason)
    workdir = Path(workdir).resolve()
    if workdir.exists():
        if any(workdir.iterdir()) and not (workdir / "topology.net").exists():
            raise OracleError(f"{workdir}: not empty and not an earlier run directory; not emptying it")
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    net = workdir / "topology.net"
    net.write_text(topology_text)
    (workdir / "opensm.conf").write_text(conf_text)
    return workdir, net


def _opensm_once(topology_text: str, engine: str, workdir: Path, timeout: float, log_flags: int,
                 sm_node: str | None, extra_args: Sequence[str], conf_text: str,
                 queries: Sequence[Sequence[str]] | Callable[[OracleResult], Sequence[Sequence[str]]] | None,
                 batch: int) -> tuple[OracleResult, list[str]]:
    """The one harness: ibsim on the topology, ``opensm -o`` once (options file ``conf_text``),
    the run directory read back; then, while ibsim still runs, each query under ``ibsim-run``
    (``queries`` may be a callable of the result: LIDs are known only after the sweep), ``batch``
    at a time; ibsim and OpenSM stopped (their process groups) whatever happens."""
    if not log_flags & 0x40:
        raise ValueError("log_flags needs 0x40 (OSM_LOG_ROUTING) or OpenSM writes no LFT dump")
    workdir, net = fresh_run_dir(workdir, topology_text, conf_text)
    log = workdir / "osm.log"

    sock = f"fvz{os.getpid()}x{next(_RUN_IDS)}"
    env = {k: v for k, v in os.environ.items() if k not in ("SIM_HOST", "LD_PRELOAD")}
    env.update(IBSIM_SOCKNAME=sock, OSM_TMP_DIR=str(workdir), OSM_CACHE_DIR=str(workdir))
    if sm_node is not None:
        env["SIM_HOST"] = sm_node

    t0 = time.monotonic()
    deadline = t0 + timeout
    sim = osm = None
    outputs: list[str] = []
    try:
        with open(workdir / "ibsim.log", "wb") as sim_out:
            sim = subprocess.Popen(["ibsim", "-s", str(net)], stdin=subprocess.PIPE,
                                   stdout=sim_out, stderr=subprocess.STDOUT, cwd=workdir,
                                   env=env, start_new_session=True,
                                   preexec_fn=_die_with_parent)
        _wait_ready(sim, sock, deadline, workdir)
        cmd = ["ibsim-run", "opensm", "-o", "-F", str(workdir / "opensm.conf"),
               "-f", str(log), "-D", hex(log_flags), "-R", engine,
               "--dump_files_dir", str(workdir), *extra_args]
        with open(workdir / "osm.out", "wb") as osm_out:
            osm = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=osm_out,
                                   stderr=subprocess.STDOUT, cwd=workdir, env=env,
                                   start_new_session=True, preexec_fn=_die_with_parent)
        rc = _wait_opensm(osm, log, deadline, workdir, timeout)
        _kill_group(osm, grace=0.2)          # opensm is done or stuck: no grace needed
        if rc not in (0, None):
            raise OracleError(f"{workdir}: opensm exited with {rc}; see {log} and osm.out")
        result = read_run_dir(workdir, engine)
        todo = [list(q) for q in (queries(result) if callable(queries) else queries or ())]
        outputs = _run_queries(todo, batch, workdir, env)
    finally:
        for proc in (osm, sim):
            if proc is not None:
                _kill_group(proc, grace=0.2 if proc is osm else 2.0)
    result.wall_seconds = time.monotonic() - t0      # ibsim's start and stop included
    return result, outputs


#: Ends each query's output in a lane's stdout, with the query's exit code after it.
_END = "@@fabricviz-query-end"


def _run_queries(todo: list[list[str]], lanes: int, workdir: Path, env: dict) -> list[str]:
    """Each query's stdout, in order: the queries shared over ``lanes`` concurrent shells under
    ``ibsim-run`` (one after the other in a shell, each output closed by :data:`_END` and its exit
    code). One fork of this (large) Python process per lane, not per query: with hundreds of
    queries the forks were most of the run on a loaded machine."""
    import shlex
    if not todo:
        return []
    lanes = max(1, min(lanes, len(todo)))
    share = [list(range(k, len(todo), lanes)) for k in range(lanes)]
    procs = []
    for idx in share:
        script = "".join(f"{shlex.join(todo[i])}; echo; echo {_END} $?; " for i in idx)
        procs.append(subprocess.Popen(["ibsim-run", "sh", "-c", script], stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      cwd=workdir, env=env, start_new_session=True,
                                      preexec_fn=_die_with_parent))
    out: list[str | None] = [None] * len(todo)
    for idx, p in zip(share, procs, strict=True):
        try:
            text, err = p.communicate(timeout=QUERY_TIMEOUT * len(idx))
        except subprocess.TimeoutExpired:
            _kill_group(p, grace=0.2)
            raise OracleError(f"{workdir}: {' '.join(todo[idx[0]])} (and the queries after it) timed out") from None
        parts = text.split(f"\n{_END} ")
        for k, i in enumerate(idx):
            if k + 1 >= len(parts):
                raise OracleError(f"{workdir}: {' '.join(todo[i])} gave no output ({err.strip()[-300:]})")
            rc_text, _, rest = parts[k + 1].partition("\n")
            if rc_text.strip() != "0":
                raise OracleError(f"{workdir}: {' '.join(todo[i])} failed ({rc_text.strip()}): "
                                  f"{err.strip()[-300:]}")
            out[i] = parts[k]               # the split took the echo's newline: the query's own output
            parts[k + 1] = rest
    return [o if o is not None else "" for o in out]


def run_opensm(topology_text: str, engine: str, workdir: Path, timeout: float = 120,
               *, log_flags: int = 0x43, sm_node: str | None = None,
               extra_args: tuple[str, ...] = ()) -> OracleResult:
    """Run OpenSM once with routing engine(s) `engine` ("ftree", "updn,minhop", ...)
    on the ibsim net/ibnetdiscover text; everything lands in `workdir` (emptied first).

    log_flags must include 0x40 (dumps); add 0x04 for route_seconds. `sm_node` is an
    ibsim node id to run the SM on (default: the file's first node).
    """
    return _opensm_once(topology_text, engine, workdir, timeout, log_flags, sm_node, extra_args, "",
                        None, 1)[0]


def run_opensm_and_query(topology_text: str, workdir: Path,
                         queries: Sequence[Sequence[str]] | Callable[[OracleResult], Sequence[Sequence[str]]],
                         *, conf_text: str = "", engine: str = "minhop", extra_args: Sequence[str] = (),
                         timeout: float = 120, log_flags: int = 0x43, sm_node: str | None = None,
                         batch: int = 8) -> tuple[OracleResult, list[str]]:
    """:func:`run_opensm` with the options file ``conf_text``, keeping ibsim alive after the
    sweep to run each query (``["smpquery", "pkeys", "3", "1"]``) under ``ibsim-run`` against
    what OpenSM programmed; (the run, each query's stdout in order). A failing query raises
    OracleError with its stderr."""
    return _opensm_once(topology_text, engine, workdir, timeout, log_flags, sm_node, extra_args, conf_text,
                        queries, batch)


# --- parsers ---------------------------------------------------------------------

_LFT_HEAD = re.compile(r"^Unicast lids \[0-(\d+)\] of switch Lid (\d+) guid (0x[0-9a-fA-F]+) \('(.*)'\):$")
_LFT_ROW = re.compile(r"^(0x[0-9a-fA-F]+) (\d+) #")
_LST_END = re.compile(
    r"\{ (SW|CA|Rt|\*\*)(-SM)? Ports:([0-9A-F]+) SystemGUID:([0-9a-f]+) NodeGUID:([0-9a-f]+)"
    r" PortGUID:([0-9a-f]+) VenID:[0-9A-F]+ DevID:[0-9A-F]+ Rev:[0-9A-F]+ \{(.*?)\}"
    r" LID:([0-9A-F]+) PN:([0-9A-F]+) \}")
_LOG_LINE = re.compile(r"^(\w{3} +\d+ [\d:]{8} \d{6}) \[[0-9A-F]+\] (0x[0-9a-f]{2}) -> (.*)$")
_CONFIGURED = re.compile(r"osm_ucast_mgr_process: (\S+) tables configured on all switches")
_REFUSED = re.compile(r"ucast_mgr_route: (\S+): cannot build (lid matrices|fwd tables)")
_FUNC = re.compile(r"^\w+: ")
# INFO lines that are statistics, not reasons (ftree prints its fabric summary first).
_NOT_REASONS = ("fabric_dump_general_info:", "osm_vendor_", "osm_opensm_bind:", "OpenSM ")
_BUILDING = re.compile(r"ucast_mgr_route: building routing with '(\S+)' routing algorithm")


def parse_lfts(text: str) -> dict[int, dict[int, int]]:
    """opensm-lfts.dump -> {switch node GUID: {LID: egress port}} (unrouted LIDs absent)."""
    lfts: dict[int, dict[int, int]] = {}
    cur = None
    for n, line in enumerate(text.splitlines(), 1):
        if m := _LFT_HEAD.match(line):
            cur = lfts.setdefault(int(m.group(3), 16), {})
        elif m := _LFT_ROW.match(line):
            if cur is None:
                raise OracleError(f"{LFTS_DUMP}:{n}: LFT row before a switch header")
            cur[int(m.group(1), 16)] = int(m.group(2))
    return lfts


def parse_subnet_lst(text: str):
    """opensm-subnet.lst -> (lids, port_guids, switches, sm_lid, links). The first three are
    keyed by (node GUID, port), port 0 for switches (the .lst shows a switch's port-0 LID
    on every physical port); links maps (node GUID, physical port) to its peer."""
    links: dict[tuple[int, int], tuple[int, int]] = {}
    lids: dict[tuple[int, int], int] = {}
    pguids: dict[tuple[int, int], int] = {}
    switches: dict[int, str] = {}
    sm_lid = None
    for n, line in enumerate(text.splitlines(), 1):
        ends = _LST_END.findall(line)
        if line.strip() and len(ends) != 2:
            raise OracleError(f"{SUBNET_LST}:{n}: expected two link ends: {line[:80]}")
        for kind, sm, _np, _sys, node, port, desc, lid, pn in ends:
            node_guid, lid_v = int(node, 16), int(lid, 16)
            key = (node_guid, 0) if kind == "SW" else (node_guid, int(pn, 16))
            if kind == "SW":
                switches[node_guid] = desc
            if lids.setdefault(key, lid_v) != lid_v:
                raise OracleError(f"{SUBNET_LST}:{n}: {key} has two LIDs")
            pguids[key] = int(port, 16)
            if sm:
                sm_lid = lid_v
        if ends:
            a, b = ((int(e[4], 16), int(e[8], 16)) for e in ends)
            links[a] = b
    return lids, pguids, switches, sm_lid, links


def parse_guid2lid(text: str) -> dict[int, int]:
    """OpenSM's guid2lid cache ('0xPORTGUID 0xMINLID 0xMAXLID' lines) -> {port GUID: base LID}."""
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith("0x"):
            out[int(parts[0], 16)] = int(parts[1], 16)
    return out


def parse_log(text: str, engine: str):
    """osm.log -> (routed_by, fallback_reason, route_seconds, messages).

    messages = ERR/INFO lines from the start of routing (first engine attempt) to
    "tables configured"; fallback_reason joins those the refusing engine(s) logged,
    e.g. "ftree: ERR AB2B: Found more than one root on fabric with maximum rank 0".
    """
    entries: list[list] = []  # [stamp, level, message] with continuation lines joined
    for line in text.splitlines():
        if m := _LOG_LINE.match(line):
            entries.append([m.group(1), int(m.group(2), 16), m.group(3)])
        elif entries and line.strip():
            entries[-1][2] += " " + line.strip()
    routed_by, t_start, t_end, reasons, msgs, pending = None, None, None, [], [], []
    for stamp, level, msg in entries:
        if "Entering MASTER state" in msg or _BUILDING.search(msg):
            if _BUILDING.search(msg):
                t_start = t_start or stamp
            else:
                msgs, reasons = [], []
            pending = []
            continue
        if m := _REFUSED.search(msg):
            why = "; ".join(pending) or "no reason logged"
            reasons.append(f"{m.group(1)}: {why}")
            msgs.append(msg)
            pending = []
            continue
        if m := _CONFIGURED.search(msg):
            routed_by, t_end = m.group(1), stamp
            msgs.append(msg)
            break
        if level & 0x03 and not msg.startswith(_NOT_REASONS):  # an engine's reason for refusing
            pending.append(msg.split(": ", 1)[-1] if _FUNC.match(msg) else msg)
            msgs.append(msg)
        if "SM port is down" in msg:
            pending.append("SM port is down (OpenSM waits for it forever; nothing is routed)")
    if routed_by is None:
        reasons.append(f"no engine routed: {'; '.join(pending)}" if pending else "no engine routed")
    asked = engine.split(",")[0]
    fallback = "; ".join(reasons) if reasons and routed_by != asked else None
    seconds = None
    if t_start and t_end:
        seconds = (_stamp(t_end) - _stamp(t_start)).total_seconds()
    return routed_by, fallback, seconds, msgs


def _stamp(s: str) -> datetime:
    # "Nov 30 20:43:50 164007": no year in the log; only differences are used.
    return datetime.strptime(" ".join(s.split()), "%b %d %H:%M:%S %f")


def read_run_dir(run_dir: Path, engine: str) -> OracleResult:
    """Parse a finished run directory (see module docstring for the files)."""
    run_dir = Path(run_dir)
    log = run_dir / "osm.log"
    lfts_file = run_dir / LFTS_DUMP
    lst_file = run_dir / SUBNET_LST
    if not log.exists():
        raise OracleError(f"{run_dir}: no osm.log")
    log_text = log.read_text(errors="replace")
    routed_by, fallback, seconds, msgs = parse_log(log_text, engine)
    lfts = parse_lfts(lfts_file.read_text()) if lfts_file.exists() else {}
    lids, pguids, switches, sm_lid, links = (parse_subnet_lst(lst_file.read_text())
                                             if lst_file.exists() else ({}, {}, {}, None, {}))
    g2l = run_dir / GUID2LID
    port_lids = parse_guid2lid(g2l.read_text()) if g2l.exists() else {}
    for key, pg in pguids.items():  # both sources must agree
        if port_lids.setdefault(pg, lids[key]) != lids[key]:
            raise OracleError(f"{run_dir}: port 0x{pg:016x} has LID {lids[key]} in "
                              f"{SUBNET_LST} but {port_lids[pg]} in {GUID2LID}")
    roots = None
    if (run_dir / UPDN_ROOTS).exists():
        roots = [int(w, 16) for w in (run_dir / UPDN_ROOTS).read_text().split()
                 if w.startswith("0x")]
    version = None
    if m := re.search(r"-> (OpenSM [\w.\-]+)", log_text):
        version = m.group(1)
    return OracleResult(engine=engine, routed_by=routed_by, fallback_reason=fallback,
                        lfts=lfts, lids=lids, port_lids=port_lids, port_guids=pguids,
                        switches=switches, sm_lid=sm_lid, links=links, updn_roots=roots,
                        route_seconds=seconds, log_path=log, run_dir=run_dir,
                        version=version, messages=msgs)


def dest_port_guid_routes(result: OracleResult) -> dict[tuple[int, int], int]:
    """{(switch node GUID, destination port GUID): egress port} for every routed LID that
    belongs to a known port: CA ports by their port GUID, switches by their node GUID
    (egress 0 on the switch itself). Comparable across engines whose LIDs differ."""
    owner: dict[int, int] = {}
    for (node, port), lid in result.lids.items():
        owner[lid] = node if port == 0 and node in result.switches else result.port_guids[(node, port)]
    for pg, lid in result.port_lids.items():  # ports with no link in the .lst (e.g. SM's own)
        owner.setdefault(lid, pg)
    return {(sw, owner[lid]): port
            for sw, table in result.lfts.items()
            for lid, port in table.items() if lid in owner}


# --- fixtures (saved results for machines without OpenSM) -------------------------------


def save_fixture(result: OracleResult, out_dir: Path) -> None:
    """Write opensm-lfts.dump, lids.json and routed_by.json (plus the topology) to out_dir."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in (LFTS_DUMP, "topology.net"):
        src = result.run_dir / name
        if src.exists():
            shutil.copyfile(src, out_dir / name)
    lids = {
        "ports": [{"node_guid": f"0x{n:016x}", "port": p, "port_guid": f"0x{result.port_guids[(n, p)]:016x}",
                   "lid": lid, "switch": n in result.switches}
                  for (n, p), lid in sorted(result.lids.items())],
        "port_lids": {f"0x{g:016x}": lid for g, lid in sorted(result.port_lids.items())},
        "sm_lid": result.sm_lid,
        "links": [[f"0x{a:016x}", pa, f"0x{b:016x}", pb]
                  for (a, pa), (b, pb) in sorted(result.links.items())],
    }
    (out_dir / "lids.json").write_text(_json_rows(lids))
    meta = {"engine": result.engine, "routed_by": result.routed_by,
            "fallback_reason": result.fallback_reason, "version": result.version,
            "switches": {f"0x{g:016x}": d for g, d in sorted(result.switches.items())},
            "updn_roots": None if result.updn_roots is None else [f"0x{g:016x}" for g in result.updn_roots]}
    (out_dir / "routed_by.json").write_text(json.dumps(meta, indent=1) + "\n")


def _json_rows(doc: dict) -> str:
    """JSON with one list item / dict entry per line: small, diffable, readable."""
    parts = []
    for key, val in doc.items():
        if isinstance(val, (list, dict)) and val:
            items = val.items() if isinstance(val, dict) else None
            body = (",\n  ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in items) if items
                    else ",\n  ".join(json.dumps(v) for v in val))
            o, c = ("{", "}") if isinstance(val, dict) else ("[", "]")
            parts.append(f"{json.dumps(key)}: {o}\n  {body}\n {c}")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(val)}")
    return "{\n " + ",\n ".join(parts) + "\n}\n"


def load_fixture(fixture_dir: Path) -> OracleResult:
    """Read a directory written by save_fixture back into an OracleResult."""
    d = Path(fixture_dir)
    meta = json.loads((d / "routed_by.json").read_text())
    lids_doc = json.loads((d / "lids.json").read_text())
    lids, pguids = {}, {}
    for e in lids_doc["ports"]:
        key = (int(e["node_guid"], 16), e["port"])
        lids[key], pguids[key] = e["lid"], int(e["port_guid"], 16)
    lfts_file = d / LFTS_DUMP
    return OracleResult(
        engine=meta["engine"], routed_by=meta["routed_by"], fallback_reason=meta["fallback_reason"],
        lfts=parse_lfts(lfts_file.read_text()) if lfts_file.exists() else {},
        lids=lids, port_lids={int(g, 16): v for g, v in lids_doc["port_lids"].items()},
        port_guids=pguids, switches={int(g, 16): s for g, s in meta["switches"].items()},
        sm_lid=lids_doc["sm_lid"], version=meta["version"], run_dir=d,
        links={(int(a, 16), pa): (int(b, 16), pb) for a, pa, b, pb in lids_doc["links"]},
        updn_roots=None if meta["updn_roots"] is None else [int(g, 16) for g in meta["updn_roots"]])


def lft_differences(sn, lft, res: OracleResult) -> tuple[int, list]:
    """(LFT entries compared, differing ``(switch, LID, ours, OpenSM's)``) between fabricviz's LFTs
    ``lft`` of subnet ``sn`` and OpenSM's in ``res``, switches matched by GUID; a LID neither routes
    is not compared."""
    from fabricviz.ib.subnet import NO_PATH  # here: the harness itself reads only what OpenSM wrote
    compared, diff = 0, []
    for s, g in enumerate(sn.sw_guid.tolist()):
        theirs = res.lfts.get(int(g), {})
        for lid in range(1, max(lft.shape[1] - 1, max(theirs, default=0)) + 1):
            a = int(lft[s, lid]) if lid < lft.shape[1] else NO_PATH
            b = theirs.get(lid, NO_PATH)
            if a == b == NO_PATH:
                continue
            compared += 1
            if a != b:
                diff.append((sn.switch_name(s), lid, a, b))
    return compared, diff
