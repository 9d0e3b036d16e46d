"""Imported files without positions are laid out like generated designs (pods in a grid), not piled at (0, 0);
files with positions keep them."""

from __future__ import annotations

import re

import numpy as np

from fabricviz.formats import graphml
from fabricviz.generate import k_ary_fat_tree
from fabricviz.generate.autolayout import auto_layout
from fabricviz.ib.tiers import device_tiers


def _strip_positions(text: str) -> str:
    keys = re.findall(r'<key id="(d\d+)" for="node" attr.name="[xy]"', text)
    assert len(keys) == 2
    for k in keys:
        text = re.sub(rf'\s*<data key="{k}">[^<]*</data>', "", text)
    return text


def test_graphml_without_positions_gets_the_auto_layout():
    f = k_ary_fat_tree(8)
    text = _strip_positions(graphml.dumps(f))
    assert 'attr.name="x"' in text and "<data key" in text
    g = graphml.loads(text)
    t = g.devices_t
    tops = np.flatnonzero(t.alive & (t.parent < 0))
    assert len(np.unique(np.stack([t.x[tops], t.y[tops]]), axis=1).T) == len(tops)   # every device its own place
    ids, xs, ys = auto_layout(g)
    order = np.argsort(ids)
    assert np.array_equal(t.x[ids[order]], xs[order].astype(t.x.dtype))
    assert np.array_equal(t.y[ids[order]], ys[order].astype(t.y.dtype))


def test_graphml_with_positions_keeps_them():
    f = k_ary_fat_tree(4)
    f.set_positions(np.array([0]), np.array([1234.0]), np.array([-55.0]))
    g = graphml.loads(graphml.dumps(f))
    assert (float(g.devices_t.x[0]), float(g.devices_t.y[0])) == (1234.0, -55.0)


def test_inferred_tiers_equal_the_generators_on_a_big_tree():
    f = k_ary_fat_tree(24)                   # 3,456 hosts, 288 leaves: one search, not a row per leaf
    want = device_tiers(f)
    f.devices_t.tier[:] = 0                  # no stored tiers: inferred from the graph
    assert np.array_equal(device_tiers(f), want)
    assert np.bincount(want[want >= 1]).tolist() == [0, 288, 288, 144]
