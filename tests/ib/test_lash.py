"""LASH against the real OpenSM 3.3.23: LFTs, every path's SL, the layer counts it logs, refusals.

Saved OpenSM answers (tests/data/opensm/<case>-lash/, written by ``python -m tests.ib.lash_oracle``)
are replayed: the same topology imported with the same GUIDs, routed by fabricviz with the same
options (``lash_start_vl``, LMC), and every LFT entry, every (SLID, DLID) SL the SA handed out,
the "Lanes in layer" / "Lanes needed" lines and the refusal text must be identical.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import re
from pathlib import Path

import numpy as np
import pytest

from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.ib import lash
from fabricviz.ib.lash import route_lash
from fabricviz.ib.lash_cdg import GlibcRandom
from fabricviz.ib.qos import QosOptions
from fabricviz.ib.qos_meta import to_meta
from fabricviz.ib.routing import EngineRefused, route, subnet_and_lids
from fabricviz.ib.subnet import switch_distances
from tests.ib import lash_oracle, oracle, topologies

DATA = Path(__file__).resolve().parent.parent / "data" / "opensm"


def fixtures() -> list[Path]:
    return sorted(d for d in DATA.glob("*-lash") if (d / lash_oracle.LASH_JSON).exists())


def _fabric(text: str):
    return loads(text, "topology.net", dialect=sniff(text))


def _options(doc: dict) -> tuple[int, int, int]:
    """(lash_start_vl, LMC, rand seed) the saved run used: OpenSM seeds glibc's random() with
    ``scatter_ports`` before routing when that is set, else it runs unseeded (seed 1)."""
    m = re.search(r"^lash_start_vl\s+(\d+)", doc["conf"], re.M)
    sp = re.search(r"^scatter_ports\s+(\d+)", doc["conf"], re.M)
    args = doc["extra_args"]
    lmc = int(args[args.index("-l") + 1]) if "-l" in args else 0
    return (int(m.group(1)) if m else 0), lmc, (int(sp.group(1)) if sp else 1)


def lft_differences(sn, lids, lft, res: oracle.OracleResult) -> tuple[int, list]:
    """(LFT entries compared, differing (switch, LID, ours, OpenSM's)); LIDs must agree first."""
    ours = {int(g): int(x) for g, x in zip(sn.sw_guid.tolist(), lids.sw_lid.tolist(), strict=True)}
    ours.update({int(g): int(x) for g, x in zip(sn.ca_guid.tolist(), lids.ca_lid.tolist(), strict=True)})
    assert {g: ours.get(g) for g in res.port_lids} == res.port_lids
    return oracle.lft_differences(sn, lft, res)


def sl_differences(path_sl, res: lash_oracle.LashResult) -> list:
    """(SLID, DLID, ours, OpenSM's) for every path whose SL differs; no path_sl = SL 0 (minhop)."""
    out = []
    for (s, d), sl in sorted(res.path_sl.items()):
        ours = path_sl.sl(s, d) if path_sl is not None else 0
        if ours != sl:
            out.append((s, d, ours, sl))
    return out


# ---------------------------------------------------------------- saved OpenSM answers
@pytest.mark.parametrize("fixture", fixtures(), ids=lambda d: d.name)
def test_matches_opensm_fixture(fixture):
    res, doc = lash_oracle.load_lash_fixture(fixture)
    f = _fabric((fixture / "topology.net").read_text())
    start_vl, lmc, seed = _options(doc)
    sn, lids = subnet_and_lids(f, lmc=lmc)
    if res.run.routed_by == "minhop":            # OpenSM refused: same text, then minhop, SL 0
        with pytest.raises(EngineRefused) as e:
            route_lash(sn, lids, switch_distances(sn), start_vl=start_vl)
        assert f"lash: {e.value}" == res.run.fallback_reason
        r = route(f, "minhop", lmc=lmc)
        lft, path_sl = r.lft, None
    elif start_vl == 0 and seed == 1:
        r = route(f, "lash", lmc=lmc)
        assert r.routed_by == "lash" and r.fallback_reason is None
        lft, info = r.lft, r.info
        path_sl = info.path_sl
    else:
        lft, info = route_lash(sn, lids, switch_distances(sn), start_vl=start_vl, seed=seed)
        path_sl = info.path_sl
    compared, diff = lft_differences(sn, lids, lft, res.run)
    assert compared > 0 and diff == [], f"{len(diff)}/{compared} LFT entries differ: {diff[:5]}"
    assert len(res.path_sl) > 0
    bad = sl_differences(path_sl, res)
    assert bad == [], f"{len(bad)}/{len(res.path_sl)} path SLs differ: {bad[:5]}"
    if path_sl is not None:
        assert info.log == res.lash_log
        assert info.vls_used == res.vls_needed == path_sl.vls_needed


def test_fixtures_cover_the_cases():
    names = {d.name for d in fixtures()}
    assert {f"{c}-lash" for c in lash_oracle.cases()} <= names
    for case, (text, _conf, _args) in lash_oracle.cases().items():
        assert (DATA / f"{case}-lash" / "topology.net").read_text() == text, f"{case}: regenerate"


# ---------------------------------------------------------------- behaviour, exact numbers
def _routed(case: str, **kw):
    f = _fabric((DATA / f"{case}-lash" / "topology.net").read_text())
    sn, lids = subnet_and_lids(f)
    lft, info = route_lash(sn, lids, switch_distances(sn), **kw)
    return sn, lids, lft, info


def test_ring6_layers_balancing_and_sls(monkeypatch):
    sn, lids, lft, info = _routed("ring6")
    assert info.vls_used == 3
    assert info.lanes_before_balancing == [24, 4, 2]
    assert info.lanes_in_layer == [12, 10, 8]
    assert info.rand_calls == 12                  # six rounds of glibc rand() from seed 1
    assert info.log == ["min operational vl(8) start vl(0) max_switches(6)",
                           "Lanes in layer 0: 24", "Lanes in layer 1: 4", "Lanes in layer 2: 2",
                           "Lanes needed: 3, Balancing",
                           "Lanes in layer 0: 12", "Lanes in layer 1: 10", "Lanes in layer 2: 8"]
    ps = info.path_sl
    assert ps.table.tolist() == [[0, 0, 0, 0, 1, 0], [0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 0],
                                 [0, 1, 1, 0, 2, 1], [1, 2, 0, 2, 0, 2], [0, 2, 0, 1, 2, 0]]
    # per (SLID, DLID) pair, like dfsssp: each switch has 2 LIDs (its own, its host's), so an
    # off-diagonal cell is 4 pairs and a diagonal one 2 (SL0 = lash_start_vl): 12 LIDs, 132 pairs
    assert ps.counts() == {0: 12 * 4 + 6 * 2, 1: 10 * 4, 2: 8 * 4}
    assert sum(ps.counts().values()) == 12 * 11
    from fabricviz.ib import path_sl
    monkeypatch.setattr(path_sl, "COUNT_ROWS", 4)      # the diagonal in two row blocks: the same
    assert ps.counts() == {0: 12 * 4 + 6 * 2, 1: 10 * 4, 2: 8 * 4}
    # a path between two ports of one switch (here a switch and its own host) gets lash_start_vl
    host = int(lids.ca_lid[np.flatnonzero(sn.ca_sw == 1)[0]])
    assert ps.sl(int(lids.sw_lid[1]), host) == 0
    assert ps.sl(int(lids.sw_lid[1]), int(lids.sw_lid[4])) == 2


def test_start_vl_shifts_every_sl():
    *_, base = _routed("ring8-2h")
    *_, shifted = _routed("ring8-2h", start_vl=2)
    a, b = base.path_sl, shifted.path_sl
    assert b.same_switch_sl == 2 and b.vls_needed == a.vls_needed == 4
    assert np.array_equal(b.table.astype(int), a.table.astype(int) + 2)
    assert shifted.log[0] == "min operational vl(6) start vl(2) max_switches(8)"


def test_refusals_say_what_opensm_logs():
    f = _fabric((DATA / "ring6-lash" / "topology.net").read_text())
    sn, lids = subnet_and_lids(f)
    dist = switch_distances(sn)
    with pytest.raises(EngineRefused, match=r"^ERR 4D03: Start VL\(8\) too high for min operational vl\(8\)$"):
        route_lash(sn, lids, dist, start_vl=8)
    with pytest.raises(EngineRefused) as e:
        route_lash(sn, lids, dist, start_vl=6)
    assert str(e.value) == ("min operational vl(2) start vl(6) max_switches(6); ERR 4D02: Lane requirements (3) "
                            "exceed available lanes (2) with starting lane (6)")


def test_route_falls_back_to_minhop_when_layers_run_out(monkeypatch):
    """Ports with two data VLs cannot carry ring6's three layers: OpenSM routes with minhop."""
    f = _fabric((DATA / "ring6-lash" / "topology.net").read_text())
    monkeypatch.setattr(lash, "MAX_LASH_VLS", 2)
    r = route(f, "lash")
    assert r.routed_by == "minhop"
    assert r.fallback_reason == ("lash: min operational vl(2) start vl(0) max_switches(6); ERR 4D02: Lane "
                                 "requirements (3) exceed available lanes (2) with starting lane (0)")
    assert r.warnings[0].endswith("; routed with minhop instead")
    assert np.array_equal(r.lft, route(f, "minhop").lft)


def test_settled_operational_vls_follow_max_op_vls():
    """After the first sweep the ports run what OpenSM set: max_op_vls 2 (VL0-1) leaves two
    layers (ring6 needs three: ERR 4D02); max_op_vls 3 (VL0-3) leaves four."""
    f = _fabric((DATA / "ring6-lash" / "topology.net").read_text())
    f.meta["qos"] = to_meta(QosOptions(max_op_vls=2))
    sn, lids = subnet_and_lids(f)
    dist = switch_distances(sn)
    assert route_lash(sn, lids, dist)[1].vl_min == 8          # first sweep: the VLCap
    with pytest.raises(EngineRefused, match=r"ERR 4D02: Lane requirements \(3\) exceed available lanes \(2\)"):
        route_lash(sn, lids, dist, first_sweep=False)
    _, info = route_lash(sn, lids, dist, first_sweep=False, max_op_vls=3)
    assert info.log[0] == "min operational vl(4) start vl(0) max_switches(6)" and info.vls_used == 3


def test_parallel_cables_use_the_first_one():
    """Without mesh analysis every cable is its own link and the tree takes the first."""
    sn, lids, lft, info = _routed("parallel")
    for s in range(sn.num_switches):
        for t in range(sn.num_switches):
            if t != s and (sn.nbr_sw[s] == t).any():
                first = int(np.flatnonzero(sn.nbr_sw[s] == t)[0])
                assert lft[s, int(lids.sw_lid[t])] == first
    assert info.vls_used == 1 and info.lanes_in_layer == [30]


def test_zombie_vertices_of_balancing_are_tracked():
    """Balancing frees channel vertices a stale dependency still names (OpenSM's use counts run
    high after failed trials); on the 4x4 torus three appear and no search ever reaches one."""
    *_, info = _routed("torus4x4")
    assert (info.zombies, info.zombie_events) == (3, 0)
    assert info.lanes_before_balancing == [182, 54, 4] and info.lanes_in_layer == [82, 80, 78]


@pytest.mark.parametrize("case", ["torus4x4", "k4", "dragonfly", "random12"])
def test_ordered_cycle_check_equals_opensms_search(case):
    """The topological-order cycle check (compiled, and in Python) gives what OpenSM's
    depth-first search from each path's first channel gives, trial for trial."""
    _, _, lft_a, a = _routed(case)
    for kw in ({"compiled": False}, {"literal_search": True}):
        _, _, lft_b, b = _routed(case, **kw)
        assert np.array_equal(lft_a, lft_b)
        assert np.array_equal(a.path_sl.table, b.path_sl.table)
        for key in ("log", "rand_calls", "zombies", "zombie_events", "lanes_before_balancing"):
            assert getattr(a, key) == getattr(b, key), (kw, key)


def test_glibc_random_sequence():
    g = GlibcRandom(1)
    assert [g.rand() for _ in range(5)] == [1804289383, 846930886, 1681692777, 1714636915, 1957747793]
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    if libc is None or not hasattr(libc, "srandom") or "libc.so.6" not in str(name):
        return                                        # not glibc: the fixed values above must do
    libc.random.restype = ctypes.c_long
    for seed in (1, 42, 2**31 - 1):
        libc.srandom(ctypes.c_uint(seed))
        g = GlibcRandom(seed)
        assert [g.rand() for _ in range(2000)] == [libc.random() for _ in range(2000)]


# ---------------------------------------------------------------- live OpenSM
@pytest.fixture(scope="module")
def live():
    reason = oracle.opensm_available()
    if reason:
        pytest.skip(reason)
    return True


@pytest.mark.oracle
def test_matches_live_opensm(live, tmp_path):
    """An irregular fabric not among the saved ones: LFTs, SLs between every switch pair, log."""
    text = topologies.random_fabric(10, 6, 1, seed=3).text()
    res = lash_oracle.run_lash(text, tmp_path, max_queries=0)
    f = _fabric(text)
    r = route(f, "lash")
    assert r.routed_by == res.run.routed_by == "lash"
    compared, diff = lft_differences(r.subnet, r.lids, r.lft, res.run)
    assert compared > 0 and diff == []
    assert len(res.path_sl) >= 90 and sl_differences(r.info.path_sl, res) == []
    assert r.info.log == res.lash_log


def test_lash_path_counts_equal_a_cell_by_cell_sum():
    """counts(): per SL, the (SLID, DLID) pairs of every switch-pair cell (n_src * n_dst, on the
    diagonal n * (n - 1) with lash_start_vl), no-path cells (255) and LID-less switches left out,
    summed cell by cell in Python over a random table, in blocks of rows or not."""
    from fabricviz.ib import path_sl
    from fabricviz.ib.path_sl import PathSL
    rng = np.random.default_rng(7)
    S = 23
    table = rng.choice(np.array([0, 1, 2, 255], np.uint8), size=(S, S))
    table[:, 4] = 5                                # SL 5 only toward a switch with no LID
    lid_sw = np.concatenate([[-1], rng.choice(np.delete(np.arange(S), 4), 90)]).astype(np.int32)
    ps = PathSL("lash", lid_sw, lid_sw, table, np.ones(16, np.uint8), 3, same_switch_sl=1)
    n = np.bincount(lid_sw[lid_sw >= 0], minlength=S)
    want: dict[int, int] = {}
    for r in range(S):
        for c in range(S):
            sl, pairs = (1, n[r] * (n[c] - 1)) if r == c else (int(table[r, c]), n[r] * n[c])
            if sl != 255 and pairs > 0:
                want[sl] = want.get(sl, 0) + int(pairs)
    assert 5 not in want and sum(want.values()) == 90 * 89 - sum(
        int(n[r] * n[c]) for r in range(S) for c in range(S) if r != c and table[r, c] == 255)
    assert ps.counts() == want
    for rows in (1, 5, 22):
        path_sl.COUNT_ROWS, old = rows, path_sl.COUNT_ROWS
        try:
            assert ps.counts() == want
        finally:
            path_sl.COUNT_ROWS = old


@pytest.mark.parametrize("vl_cap", [1, 4, 8, 15])
def test_min_operational_vls_one_cap_equals_the_port_by_port_walk(vl_cap):
    """Every port with the same caps: the one-code answer equals the walk over every linked port
    (forced by a caps_by_guid entry for a GUID no switch has), first sweep or not, max_op_vls
    1/2/5; a fabric of switches without links has 15 (none linked)."""
    from fabricviz.ib.qos import PortCaps
    caps = PortCaps(vl_cap=vl_cap)
    text = topologies.ring(5).text()
    sn, _ = subnet_and_lids(loads(text, "topology.net", dialect=sniff(text)))
    other = {0xFFFF_FFFF_FFFF_FFFF: caps}
    seen = []
    for first in (True, False):
        for mop in (1, 2, 5):
            got = lash.min_operational_vls(sn, first, mop, caps)
            assert got == lash.min_operational_vls(sn, first, mop, caps, other)
            seen.append(got)
    want = {1: 1, 4: 4, 8: 8, 15: 15}[vl_cap]
    assert seen[:3] == [want] * 3                    # first sweep: what the ports came up with
    assert seen[3:] == [1, min(want, 2), want]        # after: capped by max_op_vls 1, 2, 5 (VL0-14)
