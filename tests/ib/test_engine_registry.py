"""route() runs the engine the registry (ib/engines.py) has under the name: its LFTs and typed
extras come back as they are; a refusal (EngineRefused) is routed with minhop and says why."""

from __future__ import annotations

import numpy as np
import pytest

from fabricviz.generate import k_ary_fat_tree
from fabricviz.ib.engine_types import EngineRefused, RoutingInfo
from fabricviz.ib.engines import ENGINES, REGISTRY, Engine
from fabricviz.ib.routing import route
from fabricviz.model import FabricError


def test_the_registry_names_every_engine_once():
    assert tuple(REGISTRY) == ENGINES and all(REGISTRY[n].name == n for n in ENGINES)
    assert REGISTRY["minhop"].run is None                   # the front end's own stage 2
    assert {n for n in ENGINES if REGISTRY[n].own_paths} == {"dfsssp", "sssp", "lash"}


def test_route_runs_the_registered_engine_and_falls_back_on_its_refusal(monkeypatch):
    f = k_ary_fat_tree(4, fabric="ib")
    minhop = route(f)
    seen = []

    def mirror(sn, lids, dist, req):                        # minhop's tables, reported as its own
        seen.append(req.roots)
        return minhop.lft.copy(), RoutingInfo(roots=["r"], log=["mirrored"])
    monkeypatch.setitem(REGISTRY, "updn", Engine("updn", mirror))
    r = route(f, "updn", roots=["core01"])
    assert seen == [["core01"]] and r.routed_by == "updn" and r.fallback_reason is None
    assert np.array_equal(r.lft, minhop.lft) and (r.info.roots, r.info.log) == (["r"], ["mirrored"])

    def refuse(sn, lids, dist, req):
        raise EngineRefused("no roots here")
    monkeypatch.setitem(REGISTRY, "updn", Engine("updn", refuse))
    r = route(f, "updn")
    assert (r.engine, r.routed_by, r.fallback_reason) == ("updn", "minhop", "updn: no roots here")
    assert r.warnings[0] == "updn: no roots here; routed with minhop instead"
    assert np.array_equal(r.lft, minhop.lft) and r.info == RoutingInfo()


def test_an_unknown_engine_is_refused_with_the_names():
    with pytest.raises(FabricError, match="unknown routing engine 'nope' \\(use minhop, updn, ftree"):
        route(k_ary_fat_tree(4, fabric="ib"), "nope")
