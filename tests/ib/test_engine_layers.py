"""The deadlock-free engines' layers as the lesson and the canvas name them."""

import numpy as np

from fabricviz.build.direct import torus
from fabricviz.ib.routing import route
from fabricviz.ib.vl_layers import engine_layers, layer_masks


def test_dfsssp_layers_are_its_vls_needed_with_balancing_blocks():
    r = route(torus((4, 4)), "dfsssp")
    layer_of, names = engine_layers(r)
    split = [int(x) for x in r.info["vl_split"]]
    assert len(names) == r.info["vls_used"]
    # each layer's SLs are one block starting where vl_split has a count; together every SL a path gets
    starts = [i for i, n in enumerate(split) if n > 0]
    assert len(starts) == len(names)
    for k, start in enumerate(starts):
        assert layer_of[start:start + split[start]].tolist() == [k] * split[start]
        assert names[k] == f"layer {k} (SL{start}" + (f"–{start + split[start] - 1})" if split[start] > 1 else ")")
    psl = r.info["path_sl"]
    assert all(layer_of[sl] >= 0 for sl in psl.counts())
    # VL masks fold into layer masks: a cable with SL0..5 only is in layer 0 only
    masks = np.array([0b111111, 1 << starts[1], 0b1 | 1 << starts[-1]])
    assert layer_masks(masks, layer_of).tolist() == [0b1, 0b10, 0b1 | 1 << (len(names) - 1)]


def test_engines_without_layers_have_none():
    assert engine_layers(route(torus((4, 4)), "minhop")) is None
