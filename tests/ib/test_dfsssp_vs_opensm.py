"""dfsssp against the real OpenSM 3.3.23: LFTs, every path's SL, VLs needed, the refusal.

Saved OpenSM runs (tests/data/opensm/<case>-dfsssp/, made by ``python -m tests.ib.sl_oracle``)
replay without OpenSM; the live tests add fabrics too big to store and skip cleanly when
OpenSM/ibsim are absent. A case with ``resweep`` is OpenSM's second routing round (its
``max_op_vls`` only counts from then on, see :func:`tests.ib.sl_oracle.run_sl_resweep`): we
route the first round with 8 VLs and give it as ``previous``, as OpenSM's minhop fallback
keeps the entries the switches already hold.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads, sniff
from fabricviz.ib import qos_meta
from fabricviz.ib.qos import QosOptions
from fabricviz.ib.routing import route
from tests.ib import oracle, sl_oracle
from tests.ib import topologies as T
from tests.ib.test_vs_opensm import agreement

DATA = Path(__file__).resolve().parent.parent / "data" / "opensm"


def fixtures() -> list[Path]:
    return sorted(d for d in DATA.glob("*-dfsssp") if (d / sl_oracle.SL_FILE).exists())


def _fabric(text: str, conf: str = ""):
    f = loads(text, "topology.net", dialect=sniff(text))
    for line in conf.splitlines():
        key, _, val = line.partition(" ")
        if key == "max_op_vls":
            f.meta[qos_meta.META_KEY] = qos_meta.to_meta(QosOptions(max_op_vls=int(val)))
    return f


def check(r, res: oracle.OracleResult, rep: sl_oracle.SlReport) -> tuple[int, int]:
    """Everything must equal OpenSM's; (LFT entries, path SLs) compared."""
    assert r.routed_by == res.routed_by
    compared, diff, _, lid_diff = agreement(r, res)
    assert lid_diff == [], f"LIDs differ: {lid_diff[:5]}"
    assert compared > 0 and diff == [], f"{len(diff)}/{compared} LFT entries differ: {diff[:5]}"
    if rep.errors:                                   # refused: minhop's tables, OpenSM's reason
        assert r.fallback_reason == f"dfsssp: {rep.errors[0]}"
        return compared, 0
    info = r.info
    assert info.vls_used == rep.vls_needed
    assert info.vls_avail == rep.vls_avail
    assert info.paths_per_vl == rep.paths_before
    assert info.paths_after == rep.paths_after
    assert info.log == rep.lines
    psl = info.path_sl
    bad = [(s, d, psl.sl(s, d), v) for (s, d), v in rep.vl.items() if psl.sl(s, d) != v]
    assert rep.vl and bad == [], f"{len(bad)}/{len(rep.vl)} path SLs differ: {bad[:5]}"
    return compared, len(rep.vl)


@pytest.mark.parametrize("fixture", fixtures(), ids=lambda d: d.name)
def test_matches_opensm_fixture(fixture):
    res = oracle.load_fixture(fixture)
    rep = sl_oracle.load_sl_fixture(fixture)
    case = json.loads((fixture / "case.json").read_text())
    text = (fixture / "topology.net").read_text()
    previous = route(_fabric(text), "dfsssp", lmc=case["lmc"]) if case["resweep"] else None
    r = route(_fabric(text, case["conf"]), "dfsssp", lmc=case["lmc"], previous=previous)
    check(r, res, rep)


def test_fixtures_cover_the_cases():
    names = {d.name for d in fixtures()}
    assert names == {f"{c}-dfsssp" for c in sl_oracle.dfsssp_cases()}
    refused = sl_oracle.load_sl_fixture(DATA / "torus44-mop1-dfsssp")
    assert refused.errors == ["ERR AD25: Not enough VLs available (avail=1, needed=2); "
                              "Stopping dfsssp routing!"]
    assert [sl_oracle.load_sl_fixture(DATA / f"{c}-dfsssp").vls_needed
            for c in ("k4", "ring8", "torus44", "dragonfly")] == [1, 2, 3, 2]


def test_saved_fixture_topologies_are_the_builders():
    for name, case in sl_oracle.dfsssp_cases().items():
        assert (DATA / f"{name}-dfsssp" / "topology.net").read_text() == case.text, (
            f"{name}: topology changed; regenerate with python -m tests.ib.sl_oracle {name}")


# ---------------------------------------------------------------- live runs
@pytest.fixture(scope="module")
def live():
    reason = oracle.opensm_available()
    if reason:
        pytest.skip(reason)
    return True


def _k8_export() -> str:
    from fabricviz.generate import k_ary_fat_tree
    return export_ibnetdiscover(k_ary_fat_tree(8))


LIVE = {
    "k8-export": (_k8_export, 0),
    "random20": (lambda: T.random_fabric(20, 25, 1, 11).text(), 0),
    "dragonfly5x3": (lambda: T.dragonfly(5, 3, 1).text(), 0),
    "torus44x2-lmc2": (lambda: T.torus_2d(4, 4, 2).text(), 2),
}


@pytest.mark.parametrize("case", sorted(LIVE))
@pytest.mark.oracle
def test_matches_live_opensm(live, case, tmp_path):
    make, lmc = LIVE[case]
    text = make()
    res, rep = sl_oracle.run_case(sl_oracle.SlCase(text, lmc=lmc), "dfsssp", tmp_path)
    r = route(_fabric(text), "dfsssp", lmc=lmc)
    check(r, res, rep)


@pytest.mark.oracle
def test_sssp_matches_live_opensm(live, tmp_path):
    """OpenSM's sssp is dfsssp without the VLs: the same LFTs, and it says so in its log."""
    from fabricviz.ib.dfsssp import route_sssp
    from fabricviz.ib.routing import subnet_and_lids
    from fabricviz.ib.subnet import switch_distances
    text = T.torus_2d(4, 4, 1).text()
    res = oracle.run_opensm(text, "sssp", tmp_path, log_flags=0x43)
    assert res.routed_by == "sssp"
    f = _fabric(text)
    sn, lids = subnet_and_lids(f)
    lft, info = route_sssp(sn, lids, switch_distances(sn))
    r = route(f, "dfsssp")
    r.lft, r.routed_by = lft, "sssp"
    compared, diff, _, _ = agreement(r, res)
    assert compared == 512 and diff == []
    log = (tmp_path / "osm.log").read_text()
    assert all(line in log for line in info.log)
