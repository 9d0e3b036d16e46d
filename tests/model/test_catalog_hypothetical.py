"""Hypothetical parts: a generator's radix model of a real switch is marked so, carries no price,
and the mark survives the parts file and the native design file."""

from __future__ import annotations

import json

import pytest

from fabricviz.formats.native import load_fabric, save_fabric
from fabricviz.generate.common import pick_switch
from fabricviz.generate.fattree import fat_tree
from fabricviz.model.catalog import Catalog, Part
from fabricviz.model.errors import CatalogError
from fabricviz.ui.canvas.describe import device_tooltip, part_label, part_text


def test_radix_model_is_hypothetical_and_unpriced():
    cat = Catalog.default()
    real = cat.get("QM9700")
    p = pick_switch(cat, "ib", 16)
    assert (p.id, p.ports, p.hypothetical, p.price_usd, p.price_estimate) == ("QM9700-R16", 16, True, 0.0, False)
    assert p.name == "hypothetical 16-port model of the QM9700 (Quantum-2)"
    assert (p.port, p.latency_ns, p.power_w) == (real.port, real.latency_ns, real.power_w)
    assert not real.hypothetical and real.price_usd == 35000
    # a radix a real part has is that part, not a model
    assert pick_switch(cat, "ib", 64) is real and not pick_switch(cat, "ib", 40).hypothetical


def test_flag_round_trips_through_to_dict_and_refuses_non_bools():
    p = pick_switch(Catalog.default(), "ib", 16)
    d = p.to_dict()
    assert d["hypothetical"] is True and "price_usd" not in d      # 0 is the default: not written
    assert Part.from_dict(d, "parts[0]", user=True) == p
    assert "hypothetical" not in Catalog.default().get("QM9700").to_dict()
    with pytest.raises(CatalogError, match=r"parts\[0\].hypothetical: must be true or false, got 'yes'"):
        Part.from_dict({**d, "hypothetical": "yes"}, "parts[0]")


def test_native_design_file_keeps_the_mark(tmp_path):
    f = fat_tree(2, 16)
    path = tmp_path / "r16.json"
    save_fabric(f, path)
    doc = json.loads(path.read_text())
    (saved,) = [x for x in doc["parts"] if x["id"] == "QM9700-R16"]
    assert saved["hypothetical"] is True
    back = load_fabric(path)
    assert back.catalog.get("QM9700-R16").hypothetical and back == f


def test_describe_names_it_hypothetical():
    f = fat_tree(2, 16)
    p = f.catalog.get("QM9700-R16")
    assert part_label(p) == "QM9700-R16 (hypothetical)"
    assert part_text(p) == "QM9700-R16 (hypothetical): hypothetical 16-port model of the QM9700 (Quantum-2)"
    assert part_label(f.catalog.get("QM9700")) == "QM9700"
    tip = device_tooltip(f, f.find("leaf01"))
    assert tip.split("<br>")[1] == "QM9700-R16 (hypothetical): hypothetical 16-port model of the QM9700 (Quantum-2)"
