"""The counters readers and engine on live infiniband-diags output: ibsim runs the sample fabric,
OpenSM assigns its LIDs, ibsim's console sets counters (``PerformanceSet``), and what ``perfquery``
and ``ibqueryerrors`` print under ``ibsim-run`` must read back as exactly those values, on the ports
fabricviz's own LID assignment names. Skips when ibsim, OpenSM or infiniband-diags is absent."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from fabricviz.check.counters import port_counters
from fabricviz.formats.counter_files import loads_counters
from fabricviz.loaders import load_any
from fabricviz.model.port_counters import Counter

pytestmark = pytest.mark.oracle
NET = Path(__file__).resolve().parents[1] / "data" / "samples" / "ibsim_net.2sw2path4hca.net"
LOCK = Path("/tmp/fabricviz-ibsim.lock")
#: (ibsim node, port, counter, value) set before the tools run
SET = [("Switch1", 5, Counter.SYMBOL_ERRORS, 777), ("Hca4", 1, Counter.RCV_ERRORS, 12),
       ("Switch2", 2, Counter.XMIT_WAIT, 4242), ("Hca1", 1, Counter.LINK_DOWNED, 2)]


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    tools = ("ibsim", "ibsim-run", "opensm", "perfquery", "ibqueryerrors")
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install -y ibsim-utils opensm infiniband-diags)")
    work = tmp_path_factory.mktemp("ibsim-counters")
    env = dict(os.environ, OSM_TMP_DIR=str(work), OSM_CACHE_DIR=str(work))
    with open(LOCK, "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)         # ibsim binds a machine-wide socket name
        sim = subprocess.Popen(["ibsim", "-s", str(NET)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, cwd=work, text=True)
        try:
            time.sleep(2)
            subprocess.run(["ibsim-run", "opensm", "-o", "-f", str(work / "osm.log")], cwd=work, env=env,
                           capture_output=True, timeout=120, check=True)
            assert sim.stdin is not None
            for node, port, c, v in SET:
                sim.stdin.write(f'PerformanceSet "{node}"[{port}] PortCounters.{c.value}={v}\n')
            sim.stdin.flush()
            time.sleep(1)

            def q(*cmd: str) -> str:
                return subprocess.run(["ibsim-run", *cmd], cwd=work, env=env, capture_output=True, text=True,
                                      timeout=60).stdout
            out = {"perfquery": q("perfquery", "-l", "1", "255") + q("perfquery", "-l", "3", "255")
                   + "".join(q("perfquery", str(lid), "1") for lid in (2, 4, 5, 6)),
                   "ibqueryerrors": q("ibqueryerrors", "--skip-sl")}
        finally:
            sim.kill()
            sim.wait()
    return out


EXPECT = {frozenset({"Switch1 port 5", "Switch2 port 5"}): {Counter.SYMBOL_ERRORS: 777},
          frozenset({"Switch2 port 2", "Hca4 port 1"}): {Counter.RCV_ERRORS: 12, Counter.XMIT_WAIT: 4242},
          frozenset({"Switch1 port 1", "Hca1 port 1"}): {Counter.LINK_DOWNED: 2}}
DATA_COUNTERS = (Counter.XMIT_DATA, Counter.RCV_DATA, Counter.XMIT_PKTS, Counter.RCV_PKTS)


@pytest.mark.parametrize("tool", ["perfquery", "ibqueryerrors"])
def test_live_output_reads_back_what_was_set(live, tool):
    cf = loads_counters(live[tool], tool)
    assert cf.format == tool
    report = port_counters(load_any(NET), [cf])
    got = {}
    for lk in report.links:
        both = {c: lk.total(c) for c in Counter if c not in DATA_COUNTERS and lk.total(c)}
        if both:
            got[frozenset({lk.a.name, lk.b.name})] = both
    assert got == EXPECT
    assert len(report.worst()) == 3
