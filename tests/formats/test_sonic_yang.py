"""SONiC config_db.json exports checked against SONiC's own YANG models with yanglint.

The models are vendored from sonic-buildimage (tests/data/sonic_yang/README.md); the helper
tests/formats/sonic_yang.py wraps each table into its module's containers the way sonic_yang
does. Every table fabricviz writes must translate entry by entry and pass; breaking the export
(a PORT without its mandatory lanes, a PG on a port that does not exist, a field out of range)
must fail.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

from fabricviz.formats.switch_config import render, sonic_lanes
from fabricviz.generate import leaf_spine, rail_optimized
from fabricviz.model.catalog import Catalog, Part
from fabricviz.model.errors import CatalogError
from fabricviz.model.fabric import Fabric

sys.path.insert(0, str(Path(__file__).resolve().parent))
import sonic_yang  # noqa: E402  (the test helper beside this file)
from test_switch_config import SONIC_TABLES, catalog, design  # noqa: E402

needs_yanglint = pytest.mark.skipif(sonic_yang.YANGLINT is None, reason="yanglint (libyang2-tools) not installed")


def sn5600_pair() -> Fabric:
    """Two SN5600 cabled on ports 1, 2 and 64 at 800GbE."""
    f = Fabric(Catalog.default(), name="s56")
    f.add_device("eth_switch", "SN5600", name="a")
    f.add_device("eth_switch", "SN5600", name="b")
    for n in (1, 2, 64):
        f.add_cable(f"a:{n}", f"b:{n}", 2.0)
    return f


DESIGNS = {
    "sn4700-leaf-spine": design,
    "generated-leaf-spine": lambda: leaf_spine(2, 2, 2),
    "rail-roce": lambda: rail_optimized(units=1, fabric="roce", nodes_per_unit=4),
    "sn5600-pair": sn5600_pair,
    "sn5600-broken-out-2x400g": lambda: _broken_out_pair(),
    "sn3700-no-lane-map": lambda: _sn3700_pair(),
}


def _broken_out_pair() -> Fabric:
    """Two SN5600 with every 800G cage broken out 2 × 400GbE (tests/model/test_breakout.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "model"))
    from test_breakout import two_broken_out_sn5600
    return two_broken_out_sn5600()


def _sn3700_pair() -> Fabric:
    f = Fabric(catalog())                   # the test SN3700 part has no port_lanes: consecutive, 4 a port
    f.add_device("eth_switch", "SN3700", name="x")
    f.add_device("eth_switch", "SN3700", name="y")
    for n in (1, 32):
        f.add_cable(f"x:{n}", f"y:{n}", 3.0, part="T-400G-DAC3")
    return f


def _dbs(name: str) -> dict[str, dict]:
    return {k: json.loads(v) for k, v in render(DESIGNS[name](), "sonic").items() if k.endswith(".json")}


def test_sn_parts_carry_their_port_config_lanes():
    cat = Catalog.default()
    got = {p.id: (len(p.port_lanes), p.port_lanes[0], p.port_lanes[-1]) for p in cat.by_kind("eth_switch")}
    assert got == {"SN2700": (32, "0,1,2,3", "124,125,126,127"),
                   "SN3700": (32, "0,1,2,3", "124,125,126,127"),
                   "SN4700": (32, "0,1,2,3,4,5,6,7", "248,249,250,251,252,253,254,255"),
                   "SN5400": (64, "0,1,2,3,4,5,6,7", "504,505,506,507,508,509,510,511"),
                   "SN5600": (64, "0,1,2,3,4,5,6,7", "504,505,506,507,508,509,510,511")}
    assert all("port_config.ini" in p.port_lanes_source and "086b03bd70f9" in p.port_lanes_source
               for p in cat.by_kind("eth_switch"))
    assert sonic_lanes(cat.get("SN4700"), 3) == tuple(range(16, 24))
    assert sonic_lanes(None, 3) == (8, 9, 10, 11)                         # no part: 4 a port


def test_port_lanes_are_checked_and_round_trip():
    base = {"id": "X", "kind": "eth_switch", "name": "x", "ports": 2, "port": "400GbE"}
    p = Part.from_dict(dict(base, port_lanes=["0,1", "2,3"]), "t")
    assert p.lanes(2) == (2, 3) and p.lanes(3) == () and Part.from_dict(p.to_dict(), "t") == p
    for lanes, msg in ((["0,1"], "t.port_lanes: lanes of 1 ports for 2 ports"),
                       (["0,1", "1,2"], "t.port_lanes[1]: lane 1 is also on port 1"),
                       (["0,1", "2;3"], "t.port_lanes: must be a list of lane lists")):
        with pytest.raises(CatalogError, match=msg.replace("[", r"\[").replace("]", r"\]")):
            Part.from_dict(dict(base, port_lanes=lanes), "t")


def test_every_port_has_its_lanes():
    db = _dbs("sn5600-pair")["a.config_db.json"]
    assert db["PORT"] == {
        "Ethernet0": {"lanes": "0,1,2,3,4,5,6,7", "speed": "800000", "mtu": "9216"},
        "Ethernet8": {"lanes": "8,9,10,11,12,13,14,15", "speed": "800000", "mtu": "9216"},
        "Ethernet504": {"lanes": "504,505,506,507,508,509,510,511", "speed": "800000", "mtu": "9216"}}
    db = _dbs("sn3700-no-lane-map")["x.config_db.json"]
    assert {e: v["lanes"] for e, v in db["PORT"].items()} == {"Ethernet0": "0,1,2,3",
                                                             "Ethernet124": "124,125,126,127"}


@needs_yanglint
@pytest.mark.oracle
@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_config_db_passes_sonic_yang(name):
    dbs = _dbs(name)
    assert dbs
    for fname, db in dbs.items():
        assert set(db) == SONIC_TABLES
        xml = sonic_yang.to_xml(db)              # raises when an entry has no YANG list
        for table, entries in db.items():        # every entry of every table made it across
            lst = next(x for x in sonic_yang.tables()[table].lists)
            assert xml.count(f"<{lst.name}>") == len(entries), (fname, table)
        assert sonic_yang.yanglint_errors(db) == [], fname


@needs_yanglint
@pytest.mark.oracle
def test_sonic_yang_rejects_broken_exports():
    db = _dbs("sn4700-leaf-spine")["leaf.config_db.json"]
    assert sonic_yang.yanglint_errors(db) == []

    def errors(edit) -> str:
        bad = copy.deepcopy(db)
        edit(bad)
        return "\n".join(sonic_yang.yanglint_errors(bad))

    assert 'Mandatory node "lanes" instance does not exist' in errors(
        lambda d: [p.pop("lanes") for p in d["PORT"].values()])              # the export before lanes
    assert 'Invalid leafref value "Ethernet99"' in errors(
        lambda d: d["BUFFER_PG"].update({"Ethernet99|3": {"profile": "ingress_lossy_profile"}}))
    assert 'Invalid leafref value "scheduler.9"' in errors(
        lambda d: d["QUEUE"]["Ethernet0|3"].update(scheduler="scheduler.9"))
    assert 'value "120" is out of the allowed range' in errors(
        lambda d: d["WRED_PROFILE"]["ROCE_LOSSLESS_400G"].update(green_drop_probability="120"))
    assert "out of type uint64 min/max bounds" in errors(
        lambda d: d["BUFFER_PROFILE"]["pg_lossless_400000_5m_profile"].update(xoff="-1"))
    with pytest.raises(sonic_yang.NotTranslated, match="^NO_SUCH_TABLE: no YANG module has this table$"):
        sonic_yang.to_xml({"NO_SUCH_TABLE": {}})
    with pytest.raises(sonic_yang.NotTranslated, match=r"^QUEUE\|Ethernet0: no list of QUEUE has 1 keys$"):
        sonic_yang.to_xml({"QUEUE": {"Ethernet0": {}}})
