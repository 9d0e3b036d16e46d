"""DGX SuperPOD designs routed by OpenSM itself: every LFT entry of fabricviz's minhop, updn and ftree
equals OpenSM's on the same fabric (a 1-SU DGX H100 SuperPOD with its UFM node: 12 switches)."""

from __future__ import annotations

import pytest

from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.generate import superpod
from fabricviz.ib.routing import route
from tests.ib import oracle
from tests.ib.test_ftree import net_text


def _differences(text: str, res: oracle.OracleResult, engine: str) -> tuple[int, list]:
    f = loads(text, "topology.net", dialect=sniff(text))
    r = route(f, engine)
    assert r.routed_by == res.routed_by == engine
    return oracle.lft_differences(r.subnet, r.lft, res)


@pytest.mark.oracle
@pytest.mark.parametrize("engine", ["minhop", "updn", "ftree"])
def test_h100_superpod_routes_as_opensm(engine, tmp_path):
    reason = oracle.opensm_available()
    if reason:
        pytest.skip(reason)
    text = net_text(superpod("dgx-h100", 1))
    res = oracle.run_opensm(text, engine, tmp_path / engine)
    compared, diff = _differences(text, res, engine)
    # 12 switches × 264 LIDs (252 CA ports + 12 switches); updn and ftree leave 12 entries unset,
    # on both sides
    assert compared == {"minhop": 3168, "updn": 3156, "ftree": 3156}[engine]
    assert diff == [], f"{len(diff)}/{compared} entries differ: {diff[:5]}"
