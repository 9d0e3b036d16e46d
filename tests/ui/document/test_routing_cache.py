"""The document's routing cache: a refused engine is a typed exception (RoutingRefused) when the
key is read, never a reason string handed back as if it were the result."""

from __future__ import annotations

import pytest

from fabricviz.model import FabricError
from fabricviz.ui.document.routing import RoutingRefused, lft_engine


def _refuse(f, progress=None):
    raise FabricError("the subnet has no switches to route")


def test_a_refusal_raises_on_every_read_and_is_kept_for_the_state(make_window):
    cache = make_window().document.routing
    with pytest.raises(RoutingRefused, match="^the subnet has no switches to route$"):
        cache.compute("lft", _refuse)
    assert cache.has("lft") and cache.computations["lft"] == 1
    with pytest.raises(RoutingRefused):
        cache.get("lft")
    with pytest.raises(RoutingRefused):
        cache.routing("lft")
    with pytest.raises(RoutingRefused):
        cache.compute("lft", lft_engine)            # kept: the engine does not run again
    assert cache.computations["lft"] == 1 and cache.routings() == ()


def test_a_routing_is_typed_and_listed_sweep_first(make_window):
    w = make_window()
    cache = w.document.routing
    assert cache.get("lft") is None and not cache.has("lft") and cache.routings() == ()
    r = cache.compute("lft", lft_engine)
    assert cache.routing("lft") is r and r.routed_by == "minhop"
    sweep = lft_engine(w.fabric)
    cache.put("lft:sweep", sweep)
    assert cache.routings() == (sweep, r)
    w.editor.move([w.fabric.find("spine02")], 20, 0)   # a move keeps every routing
    assert cache.routings() == (sweep, r)
