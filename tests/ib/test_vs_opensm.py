"""Differential tests: fabricviz's LIDs and minhop/updn LFTs against the real OpenSM.

Every stored OpenSM run under tests/data/opensm/<case>-<engine>/ (topology.net +
what OpenSM computed, see tests/ib/README.md) is replayed: the same topology is
imported with the same GUIDs, routed by fabricviz, and every
(switch GUID, destination LID) → egress port and every port's LID must be
identical — including entries where either side has no route. Live runs
against an installed OpenSM add generated fabrics too big or too many to store.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fabricviz.formats.ibnetdiscover import export_ibnetdiscover, loads, sniff
from fabricviz.generate import fat_tree, k_ary_fat_tree, leaf_spine
from fabricviz.ib.routing import route
from fabricviz.model import Fabric, FabricError
from tests.ib import oracle

DATA = Path(__file__).resolve().parent.parent / "data" / "opensm"
ENGINES = ("minhop", "updn")


def fixtures() -> list[Path]:
    return sorted(d for d in DATA.glob("*-*") if d.is_dir() and d.name.rsplit("-", 1)[1] in ENGINES
                  and (d / "topology.net").exists())


def agreement(r, res: oracle.OracleResult) -> tuple[int, list, int, list]:
    """(LFT entries compared, differing entries, ports compared, differing LIDs)."""
    sn, lids = r.subnet, r.lids
    ours_lid: dict[int, int] = {int(g): int(x) for g, x in zip(sn.sw_guid.tolist(), lids.sw_lid.tolist(), strict=True)}
    ours_lid.update({int(g): int(x) for g, x in zip(sn.ca_guid.tolist(), lids.ca_lid.tolist(), strict=True)})
    lid_diff = [(hex(g), x, ours_lid.get(g)) for g, x in res.port_lids.items() if ours_lid.get(g) != x]
    lid_diff += [(hex(g), None, x) for g, x in ours_lid.items() if g not in res.port_lids]
    compared, diff = oracle.lft_differences(sn, r.lft, res)
    return compared, diff, len(res.port_lids), lid_diff


@pytest.mark.parametrize("fixture", fixtures(), ids=lambda d: d.name)
def test_matches_opensm_fixture(fixture):
    res = oracle.load_fixture(fixture)
    text = (fixture / "topology.net").read_text()
    f = loads(text, "topology.net", dialect=sniff(text))
    engine = fixture.name.rsplit("-", 1)[1]
    if res.routed_by is None:        # OpenSM's SM port never came up: nothing routed
        with pytest.raises(FabricError, match="no cabled InfiniBand port for the subnet manager"):
            route(f, engine)
        return
    r = route(f, engine)
    assert r.routed_by == res.routed_by
    assert (r.fallback_reason is None) == (res.fallback_reason is None)
    compared, diff, ports, lid_diff = agreement(r, res)
    assert lid_diff == [], f"LIDs differ: {lid_diff[:5]}"
    assert compared > 0 and diff == [], f"{len(diff)}/{compared} LFT entries differ: {diff[:5]}"


def test_fixtures_cover_the_cases():
    names = {d.name for d in fixtures()}
    for case in ("fat2", "k4", "parallel", "parallel-failed", "fat2-failed", "ring4",
                 "sample-2sw2path4hca", "sample-net-example", "sample-manpage"):
        for e in ENGINES:
            assert f"{case}-{e}" in names


# ---------------------------------------------------------------- live runs
def _messy(seed: int) -> Fabric:
    """A 3-level tree on 64-port parts with extra same-tier/cross-tier links and one failed uplink."""
    rng = random.Random(seed)
    f = fat_tree(levels=3, radix=8, hosts=64, switch="QM9700")
    sws = list(f.devices("ib_switch"))
    port = {d.id: 9 for d in sws}
    for _ in range(6):
        a, b = rng.sample(sws, 2)
        f.add_cable(f"{a.name}:{port[a.id]}", f"{b.name}:{port[b.id]}")
        port[a.id] += 1
        port[b.id] += 1
    f.remove_cables([f.port("leaf03:5").cable.id])
    return f


def _ring(n: int) -> Fabric:
    f = Fabric(name=f"ring{n}")
    for i in range(n):
        f.add_device("ib_switch", "QM9700", name=f"sw{i}")
    for i in range(n):
        f.add_cable(f"sw{i}:1", f"sw{(i + 1) % n}:2")
        f.add_device("nic", "CX7-1P", name=f"h{i}")
        f.add_cable(f"h{i}:1", f"sw{i}:3")
    return f


LIVE = {
    "k8": lambda: k_ary_fat_tree(8),
    "fat3-blocking-partial": lambda: fat_tree(levels=3, radix=8, hosts=40, blocking="3:1"),
    "fat3-partial-104": lambda: fat_tree(levels=3, radix=8, hosts=104),
    "leaf-spine-dgx": lambda: leaf_spine(4, 2, 16, fabric="ib", servers="dgx"),
    "ring5": lambda: _ring(5),
    "messy0": lambda: _messy(0),
    "messy3": lambda: _messy(3),
}


@pytest.fixture(scope="module")
def live():
    reason = oracle.opensm_available()
    if reason:
        pytest.skip(reason)
    return True


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(LIVE))
@pytest.mark.oracle
def test_matches_live_opensm(live, case, engine, tmp_path):
    f = LIVE[case]()
    text = export_ibnetdiscover(f)
    res = oracle.run_opensm(text, engine, tmp_path)
    g = loads(text, "export.net", dialect=sniff(text))     # exactly what OpenSM saw
    r = route(g, engine)
    assert r.routed_by == res.routed_by
    compared, diff, ports, lid_diff = agreement(r, res)
    assert lid_diff == [], f"LIDs differ: {lid_diff[:5]}"
    assert compared > 0 and diff == [], f"{len(diff)}/{compared} LFT entries differ: {diff[:5]}"


@pytest.mark.parametrize("lmc", [1, 2])
@pytest.mark.parametrize("case", ["k4", "messy0"])
@pytest.mark.oracle
def test_lmc_matches_live_opensm(live, case, lmc, tmp_path):
    """LMC > 0: aligned LID ranges and the spread of a port's LIDs over the least-hop ports."""
    f = k_ary_fat_tree(4) if case == "k4" else _messy(0)
    text = export_ibnetdiscover(f)
    res = oracle.run_opensm(text, "minhop", tmp_path, extra_args=("-l", str(lmc)))
    g = loads(text, "export.net", dialect=sniff(text))
    r = route(g, "minhop", lmc=lmc)
    compared, diff, ports, lid_diff = agreement(r, res)
    assert lid_diff == [], f"LIDs differ: {lid_diff[:5]}"
    assert compared > 0 and diff == [], f"{len(diff)}/{compared} LFT entries differ: {diff[:5]}"
