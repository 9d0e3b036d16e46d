"""The deadlock-free engines' layers as the lesson and the canvas name them."""

import numpy as np

from fabricviz.generate.direct import torus
from fabricviz.ib.routing import route
from fabricviz.ib.vl_layers import engine_layers, layer_masks


def test_dfsssp_layers_are_its_vls_needed_with_balancing_blocks():
    r = route(torus((4, 4)), "dfsssp")
    layer_of, names = engine_layers(r)
    split = [int(x) for x in r.info.vl_split]
    assert len(names) == r.info.vls_used
    # each layer's SLs are one block starting where vl_split has a count; together every SL a path gets
    starts = [i for i, n in enumerate(split) if n > 0]
    assert len(starts) == len(names)
    for k, start in enumerate(starts):
        assert layer_of[start:start + split[start]].tolist() == [k] * split[start]
        assert names[k] == f"layer {k} (SL{start}" + (f"–{start + split[start] - 1})" if split[start] > 1 else ")")
    psl = r.info.path_sl
    assert all(layer_of[sl] >= 0 for sl in psl.counts())
    # VL masks fold into layer masks: a cable with SL0..5 only is in layer 0 only
    masks = np.array([0b111111, 1 << starts[1], 0b1 | 1 << starts[-1]])
    assert layer_masks(masks, layer_of).tolist() == [0b1, 0b10, 0b1 | 1 << (len(names) - 1)]


def test_engines_without_layers_have_none():
    assert engine_layers(route(torus((4, 4)), "minhop")) is None


def test_the_sweep_narrates_dfsssps_layers_between_routing_and_the_lft_blocks():
    from fabricviz.ib.sweep import heavy_sweep
    sw = heavy_sweep(torus((4, 4)), "dfsssp")
    r = sw.routing
    kinds = [e.kind for e in sw.events]
    (i,) = [k for k, e in enumerate(sw.events) if e.kind == "layers"]
    assert kinds[i - 1] == "route" and sw.events[i].phase == "routing"
    e = sw.events[i]
    counts = r.info.path_sl.counts()
    assert e.data["vls_used"] == r.info.vls_used == 3 and e.data["path_sl"] == dict(sorted(counts.items()))
    assert e.text.startswith("dfsssp: 3 virtual lanes needed to be free of credit loops (paths per SL — SL0: ")
    assert e.data["log"] == list(r.info.log)
    # minhop has no layers to narrate
    assert "layers" not in [x.kind for x in heavy_sweep(torus((4, 4)), "minhop").events]
