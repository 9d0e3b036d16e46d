"""The OpenSM oracle itself: facts its runs must show before fabricviz is compared to it.

Runs the real OpenSM (minhop, updn, ftree) under ibsim on every fabric of
topologies.cases(), once per test session (about 2 s in all), and checks LIDs,
LFT coverage, route walks, which engine routed and why, and that the saved
fixtures in tests/data/opensm still equal a fresh run. Skipped as a whole, with
the one-line reason, where opensm/ibsim are not installed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ib import oracle, topologies

pytestmark = pytest.mark.oracle      # every test here runs OpenSM under ibsim

_REASON = oracle.opensm_available()
if _REASON:
    pytest.skip(_REASON, allow_module_level=True)

ENGINES = ("minhop", "updn", "ftree")
CASES = topologies.cases()
FIXTURES = Path(__file__).resolve().parents[1] / "data" / "opensm"
RUN_TIMEOUT = 120.0  # a hang guard: one OpenSM run takes ~0.05 s (0.25 s for the lone CA) on an idle machine

# case: (switches, CA ports) -- counted from the fabric definitions.
SIZES = {
    "fat2": (6, 8), "k4": (20, 16), "parallel": (6, 8), "parallel-failed": (6, 8),
    "fat2-failed": (6, 8), "ring4": (4, 4), "sample-2sw2path4hca": (2, 4),
    "sample-net-example": (2, 2), "sample-manpage": (2, 5), "sample-one-ca": (0, 0),
}

# What OpenSM 3.3 must do per engine, with the log text naming the rule (see oracle.py):
#  ftree refuses non-fat-trees (ranking from CAs gives several roots when every switch
#  has CAs: AB2B; unequal up-groups AB09 or group sizes AB0B); updn finds no root unless
#  >90 % of CAs sit at one distance from a switch; a lone CA's port is down, nothing runs.
FALLBACKS = {
    ("parallel-failed", "ftree"): "ERR AB0B: Different number of ports in an upward port group",
    ("fat2-failed", "ftree"): "ERR AB09: Different number of upward port groups",
    ("ring4", "ftree"): "ERR AB2B: Found more than one root on fabric with maximum rank 0",
    ("ring4", "updn"): "disabling UPDN algorithm, no root nodes were found",
    ("sample-2sw2path4hca", "ftree"): "ERR AB2B",
    ("sample-2sw2path4hca", "updn"): "no root nodes were found",
    ("sample-net-example", "ftree"): "Failed to find leaf switches - topology is not fat-tree",
    ("sample-manpage", "ftree"): "ERR AB2B",
    ("sample-manpage", "updn"): "no root nodes were found",
}
ALL = [(c, e) for c in CASES for e in ENGINES]
ROUTED = [(c, e) for c, e in ALL if c != "sample-one-ca"]

_runs: dict[tuple[str, str], oracle.OracleResult] = {}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("opensm")


def run(workdir, case, engine) -> oracle.OracleResult:
    """One OpenSM run per (case, engine) per session."""
    if (case, engine) not in _runs:
        _runs[(case, engine)] = oracle.run_opensm(CASES[case], engine, workdir / f"{case}-{engine}",
                                                  timeout=RUN_TIMEOUT)
    return _runs[(case, engine)]


@pytest.mark.parametrize("case,engine", ALL)
def test_lids_unique_one_per_end_port(workdir, case, engine):
    res = run(workdir, case, engine)
    n_sw, n_ca = SIZES[case]
    assert len(res.switches) == n_sw
    assert sum(p != 0 for _, p in res.lids) == n_ca
    assert len(res.lids) == n_sw + n_ca == len(res.port_lids)
    lids = list(res.lids.values())
    assert len(set(lids)) == len(lids)
    assert min(lids, default=1) >= 1
    assert sorted(res.port_lids.values()) == sorted(lids)
    assert all(port == 0 for (node, port) in res.lids if node in res.switches)


@pytest.mark.parametrize("case,engine", ROUTED)
def test_every_switch_routes_every_ca_lid(workdir, case, engine):
    res = run(workdir, case, engine)
    assert set(res.lfts) == set(res.switches)
    ca_lids = {lid for (node, _), lid in res.lids.items() if node not in res.switches}
    sw_lids = {lid for (node, _), lid in res.lids.items() if node in res.switches}
    unrouted = set()
    for sw, table in res.lfts.items():
        assert ca_lids <= set(table), f"switch 0x{sw:x} misses CA LIDs {sorted(ca_lids - set(table))}"
        assert table[res.lids[(sw, 0)]] == 0
        unrouted |= {(res.switches[sw], lid) for lid in sw_lids - set(table)}
    if engine == "minhop" or res.routed_by == "minhop":
        assert unrouted == set()
    elif case in ("fat2", "parallel", "parallel-failed"):
        # up*/down* has no legal path between two roots (spine -> leaf -> spine goes down, then up)
        spine = {name: res.lids[(guid, 0)] for guid, name in res.switches.items() if name.startswith("spine")}
        assert unrouted == {("spine1", spine["spine2"]), ("spine2", spine["spine1"])}
    for (node, port), (peer, peer_port) in res.links.items():  # a CA's own switch port
        if peer in res.switches and node not in res.switches:
            assert res.lfts[peer][res.lids[(node, port)]] == peer_port


@pytest.mark.parametrize("case,engine", ROUTED)
def test_routes_reach_every_ca(workdir, case, engine):
    """Following the LFTs hop by hop from every switch ends on the CA port owning the LID."""
    res = run(workdir, case, engine)
    for (ca, ca_port), lid in res.lids.items():
        if ca in res.switches:
            continue
        for start in res.switches:
            node, hops = start, 0
            while node in res.switches:
                node, port_in = res.links[(node, res.lfts[node][lid])]
                hops += 1
                assert hops <= len(res.switches), f"LID {lid} loops from 0x{start:x}"
            assert (node, port_in) == (ca, ca_port)


@pytest.mark.parametrize("case,engine", ALL)
def test_routed_by_and_fallback_reason(workdir, case, engine):
    res = run(workdir, case, engine)
    if case == "sample-one-ca":
        assert res.routed_by is None and "SM port is down" in res.fallback_reason
        assert res.lfts == {} and res.lids == {}
    elif (case, engine) in FALLBACKS:
        assert res.routed_by == "minhop"
        assert res.fallback_reason.startswith(f"{engine}: ")
        assert FALLBACKS[(case, engine)] in res.fallback_reason
    else:
        assert res.routed_by == engine and res.fallback_reason is None


def test_ftree_engine_chain_reports_each_refusal(workdir):
    res = oracle.run_opensm(CASES["ring4"], "ftree,updn", workdir / "chain", timeout=RUN_TIMEOUT)
    assert res.routed_by == "minhop"
    assert res.fallback_reason == ("ftree: ERR AB2B: Found more than one root on fabric with maximum "
                                   "rank 0; updn: disabling UPDN algorithm, no root nodes were found")


def test_route_seconds_needs_verbose_flag(workdir):
    quiet = run(workdir, "k4", "ftree")
    loud = oracle.run_opensm(CASES["k4"], "ftree", workdir / "k4-verbose", log_flags=0x47,
                             timeout=RUN_TIMEOUT)
    assert quiet.route_seconds is None
    assert 0 < loud.route_seconds < loud.wall_seconds
    assert loud.lfts == quiet.lfts and loud.lids == quiet.lids


def test_dest_port_guid_routes_fat2(workdir):
    res = run(workdir, "fat2", "minhop")
    routes = oracle.dest_port_guid_routes(res)
    net = topologies.two_level()
    assert len(routes) == 6 * 14
    for sw in res.switches:
        assert routes[(sw, sw)] == 0
    # h1 hangs off leaf1 port 1: leaf1 sends to it out of port 1, whatever its LID is.
    leaf1 = net.nodes["leaf1"][2]
    assert routes[(leaf1, net.port_guid("h1", 1))] == 1


def test_builder_guids_are_what_opensm_sees(workdir):
    """ibsim keeps our switchguid=/caguid= values and port GUIDs follow ibsim's rule."""
    res = run(workdir, "k4", "minhop")
    net = topologies.k_ary_fat_tree(4)
    expected = {(guid, 0 if kind == "Switch" else 1): net.port_guid(name, 0 if kind == "Switch" else 1)
                for name, (kind, _, guid) in net.nodes.items()}
    assert res.port_guids == expected
    # The SM runs on the first node (edge1-1), and its switch port 0 gets the first LID.
    assert res.sm_lid == 1 == res.lids[(net.nodes["edge1-1"][2], 0)]


def test_ibsim_invents_guids_when_the_file_has_none(workdir):
    res = run(workdir, "sample-2sw2path4hca", "minhop")
    assert sorted(res.switches) == [0x200000, 0x200001]      # switches from 0x200000, +1
    assert sorted(n for n, p in res.lids if p) == [0x100000, 0x100003, 0x100006, 0x100009]  # CAs +nports+1
    assert res.port_guids[(0x100003, 1)] == 0x100004          # CA port n = node GUID + n


def test_opensm_keeps_lids_preset_in_the_file(workdir):
    """ibsim loads 'lid N' from ibnetdiscover comments; OpenSM's first sweep keeps them."""
    res = run(workdir, "sample-manpage", "minhop")
    assert res.lids[(0x5442BA00003080, 0)] == 6 == res.sm_lid
    assert res.lids[(0x8F10400410015, 0)] == 3
    assert res.lids[(0x8F10403960558, 1)] == 10 and res.lids[(0x8F10403960558, 2)] == 14
    assert sorted(res.port_lids.values()) == [3, 4, 6, 10, 12, 14, 16]


def test_no_process_left_after_timeout(tmp_path):
    with pytest.raises(oracle.OracleError):
        oracle.run_opensm(CASES["fat2"], "minhop", tmp_path / "t", timeout=0.001)
    marker = f"IBSIM_SOCKNAME=fvz{os.getpid()}x".encode()
    leftovers = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if marker in (proc / "environ").read_bytes():
                leftovers.append(proc.name)
        except OSError:
            continue
    assert leftovers == []
    assert f"@fvz{os.getpid()}x" not in Path("/proc/net/unix").read_text()


@pytest.mark.parametrize("case,engine", ALL)
def test_saved_fixture_equals_fresh_run(workdir, case, engine):
    fixture = FIXTURES / f"{case}-{engine}"
    assert fixture.is_dir(), f"{fixture} missing: run tests/ib/make_oracle_fixtures.py"
    saved, fresh = oracle.load_fixture(fixture), run(workdir, case, engine)
    assert (fixture / "topology.net").read_text() == CASES[case], "topology changed: regenerate fixtures"
    for attr in ("routed_by", "fallback_reason", "lfts", "lids", "port_lids", "port_guids",
                 "switches", "sm_lid", "links", "updn_roots"):
        assert getattr(saved, attr) == getattr(fresh, attr), attr
    assert oracle.dest_port_guid_routes(saved) == oracle.dest_port_guid_routes(fresh)


def test_no_process_left_when_python_is_killed(tmp_path):
    """SIGKILL skips `finally`; PR_SET_PDEATHSIG must still take ibsim and opensm down.
    A subreaper parent adopts (and reaps) whatever the killed run leaves behind."""
    victim = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from tests.ib import oracle, topologies\n"
        "oracle._wait_opensm = lambda *a: os.kill(os.getpid(), signal.SIGKILL)\n"
        "oracle.run_opensm(topologies.ring(4).text(), 'minhop', Path(sys.argv[1]))\n"
    )
    reaper = (
        "import ctypes, os, subprocess, sys, time\n"
        "ctypes.CDLL(None).prctl(36, 1)\n"  # PR_SET_CHILD_SUBREAPER
        "print(subprocess.run([sys.executable, '-c', sys.argv[1], sys.argv[2]]).returncode)\n"
        "end = time.monotonic() + 60\n"      # generous: it stops as soon as nothing is left
        "while time.monotonic() < end:\n"
        "    try:\n"
        "        os.waitpid(-1, os.WNOHANG)\n"
        "    except ChildProcessError:\n"
        "        print('clean'); sys.exit(0)\n"
        "    time.sleep(0.02)\n"
        "for d in os.listdir('/proc'):\n"  # survivors: report and kill them
        "    try:\n"
        "        if d.isdigit() and open(f'/proc/{d}/stat').read().split()[3] == str(os.getpid()):\n"
        "            print('orphan', open(f'/proc/{d}/cmdline').read()); os.kill(int(d), 9)\n"
        "    except OSError:\n"
        "        pass\n"
    )
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", reaper, victim, str(tmp_path / "killed")], cwd=root,
                         capture_output=True, text=True, timeout=60).stdout.split("\n")
    assert out[:2] == [str(-signal.SIGKILL), "clean"]
