"""One set of limits (fabricviz/model/limits.py) for the model's setters, the catalog and the readers:
whatever the model accepts saves and loads back byte-identical, whatever is beyond is refused
with the place, by the model and by the loader alike, and the model is left as it was."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from fabricviz.formats.native import FileFormatError, dumps, loads
from fabricviz.model import Catalog, CatalogError, Fabric, FabricError, Part
from fabricviz.model.limits import LOCAL_MAX, MAX_LENGTH_M, TIER_MAX, TIER_MIN

LONG_CABLE = {"id": "LONG-HAUL", "kind": "cable", "name": "long haul optics", "cable_type": "transceiver",
              "tech": "ib", "max_rate": "4xNDR", "reach_m": 1e9}


def _design() -> Fabric:
    f = Fabric(Catalog.default().with_parts([Part.from_dict(LONG_CABLE, "parts[0]")]), name="lim")
    f.add_device("ib_switch", "QM9700", name="sw1")
    f.add_device("ib_switch", "QM9700", name="sw2")
    f.add_device("server", "NODE-1G-NDR", name="n1")
    return f


def _refused(f: Fabric, call) -> str:
    sig = f.signature()
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no numpy RuntimeWarning on the way
        with pytest.raises(FabricError) as exc:
            call(f)
    assert f.signature() == sig
    return str(exc.value)


@pytest.mark.parametrize("tier", [TIER_MIN, 0, 9, 10, TIER_MAX])
def test_every_tier_the_model_takes_saves_and_loads_back(tier):
    f = _design()
    f.set_tier(np.array([f.find("sw1")]), tier)
    f.add_device("ib_switch", "QM9700", name="sw3", tier=tier)
    text = dumps(f)
    g = loads(text)
    assert g.device("sw1").tier == tier and g.device("sw3").tier == tier and dumps(g) == text


@pytest.mark.parametrize("call, message", [
    (lambda f: f.set_tier(np.array([f.find("sw1")]), TIER_MAX + 1), "sw1: tier 128 must be a whole number from -1 to 127"),
    (lambda f: f.set_tier(np.array([f.find("sw1")]), -2), "sw1: tier -2 must be a whole number from -1 to 127"),
    (lambda f: f.add_device("ib_switch", "QM9700", name="sw9", tier=-5),
     "sw9: tier -5 must be a whole number from -1 to 127"),
    (lambda f: f.add_servers("NODE-1G-NDR", ["n9"], [0.0], [0.0], tier=200),
     "n9: tier 200 must be a whole number from -1 to 127"),
    (lambda f: f.add_devices("gpu", 1, "H100-SXM5", parents=np.array([f.find("n1")]), locals_=np.array([LOCAL_MAX + 1])),
     "new gpu: local 1000 must be a whole number from 0 to 999"),
    (lambda f: f.add_devices("gpu", 1, "H100-SXM5", parents=np.array([f.find("n1")]), locals_=np.array([-1])),
     "new gpu: local -1 must be a whole number from 0 to 999"),
    (lambda f: f.add_cable("sw1:1", "sw2:1", 2e6, part="LONG-HAUL"),
     "sw1:1 – sw2:1: cable length 2e+06 m must be a positive number of metres up to 1e+06"),
    (lambda f: f.add_cable("sw1:1", "sw2:1", 1e16),     # np.round(1e19 mm).astype(int64) warned here
     "sw1:1 – sw2:1: cable length 1e+16 m must be a positive number of metres up to 1e+06"),
    (lambda f: f.set_cable(int(f.cable_ids()[0]), length_m=1e16),
     "sw1:2 – sw2:2: cable length 1e+16 m must be a positive number of metres up to 1e+06"),
    (lambda f: f.set_cable(int(f.cable_ids()[0]), length_m=MAX_LENGTH_M * 1.5),
     "sw1:2 – sw2:2: cable length 1.5e+06 m must be a positive number of metres up to 1e+06"),
])
def test_beyond_the_limits_the_model_refuses_with_the_place(call, message):
    f = _design()
    f.add_cable("sw1:2", "sw2:2", 3.0, part="LONG-HAUL")
    assert _refused(f, call) == message


def test_the_longest_cable_and_the_last_child_save_and_load_back():
    f = _design()
    f.add_cable("sw1:1", "sw2:1", MAX_LENGTH_M, part="LONG-HAUL")
    f.add_devices("gpu", 1, "H100-SXM5", parents=np.array([f.find("n1")]), locals_=np.array([LOCAL_MAX]))
    text = dumps(f)
    g = loads(text)
    assert g.find("n1/gpu999") is not None and dumps(g) == text
    assert g.cable(int(g.cable_ids()[0])).length_m == MAX_LENGTH_M


def test_the_loader_refuses_what_the_model_refuses():
    f = _design()
    f.add_device("ib_switch", "QM9700", name="sw3", tier=TIER_MAX)
    doc = json.loads(dumps(f))
    doc["devices"][-1]["tier"] = TIER_MAX + 1
    with pytest.raises(FileFormatError) as exc:
        loads(json.dumps(doc), "a.json")
    assert str(exc.value) == "a.json: devices[5].tier: 128: must be -1 (unknown) or 0..127"


@pytest.mark.parametrize("part, message", [
    ({"id": "BIG-IB", "kind": "ib_switch", "name": "x", "ports": 255, "port": "4xNDR"},
     "parts[0].ports: 255 ports is more than an InfiniBand device can have (254)"),
    ({"id": "BIG-ETH", "kind": "eth_switch", "name": "x", "ports": 1025, "port": "400GbE"},
     "parts[0].ports: 1025 ports is more than an Ethernet device can have (1024)"),
    ({"id": "BIG-VPI", "kind": "nic", "name": "x", "ports": 300, "port_modes": ["400GbE", "4xNDR"]},
     "parts[0].ports: 300 ports is more than an InfiniBand device can have (254)"),
    ({"id": "BIG-SRV", "kind": "server", "name": "x", "gpus": 129, "gpu_part": "H100-SXM5", "nics": 1,
      "nic_part": "CX7-1P"}, "parts[0].gpus: 129 is more than a server can hold (128)"),
    ({"id": "BIG-SRV", "kind": "server", "name": "x", "gpus": 1, "gpu_part": "H100-SXM5", "nics": 129,
      "nic_part": "CX7-1P"}, "parts[0].nics: 129 is more than a server can hold (128)"),
])
def test_catalog_parts_beyond_the_limits_are_refused_with_their_field(part, message):
    with pytest.raises(CatalogError) as exc:
        Part.from_dict(part, "parts[0]")
    assert str(exc.value) == message


def test_the_largest_parts_are_accepted():
    eth = Part.from_dict({"id": "E", "kind": "eth_switch", "name": "x", "ports": 1024, "port": "400GbE"}, "p")
    ib = Part.from_dict({"id": "I", "kind": "ib_switch", "name": "x", "ports": 254, "port": "4xNDR"}, "p")
    f = Fabric(Catalog.default().with_parts([eth, ib]))
    f.add_device("eth_switch", "E", name="e")
    f.add_device("ib_switch", "I", name="i")
    assert len(f.device("e").port_ids) == 1024 and len(f.device("i").port_ids) == 254
    assert dumps(loads(dumps(f))) == dumps(f)


def test_a_user_parts_file_names_the_part_and_field(tmp_path):
    path = tmp_path / "parts.json"
    path.write_text(json.dumps({"format": "fabricviz-catalog", "version": 1, "parts": [
        {"id": "OK-SW", "kind": "ib_switch", "name": "x", "ports": 40, "port": "4xNDR"},
        {"id": "BIG-SW", "kind": "ib_switch", "name": "x", "ports": 1000, "port": "4xNDR"}]}))
    with pytest.raises(CatalogError) as exc:
        Catalog.load_file(path)
    assert str(exc.value) == f"{path}: parts[1].ports: 1000 ports is more than an InfiniBand device can have (254)"


def test_a_part_built_in_code_beyond_the_limits_cannot_join_a_catalog():
    big = Part(id="HUGE", kind="ib_switch", name="x", ports=4000, port="4xNDR")
    with pytest.raises(CatalogError) as exc:
        Catalog.default().with_parts([big])
    assert str(exc.value) == "HUGE.ports: 4000 ports is more than an InfiniBand device can have (254)"
