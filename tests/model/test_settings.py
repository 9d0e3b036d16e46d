"""The design's settings, typed: read from ``meta`` once per value (fabricviz/model/settings.py)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from fabricviz.model import Fabric, FabricError
from fabricviz.model.roce import RoceMetaError, RoceSettings
from fabricviz.model.settings import GeneratorRecord, SmEntry, SourceRecord, SwitchGroup


def test_roce_defaults_and_a_design_value():
    f = Fabric()
    assert f.settings.roce == RoceSettings()
    f.set_meta("roce", {"mtu": 4200, "priorities": [4, 3]})
    assert f.settings.roce.mtu == 4200 and f.settings.roce.priorities == (3, 4)


def test_a_value_is_parsed_once_and_again_after_any_change():
    f = Fabric()
    calls = []

    def parse(raw):
        calls.append(raw)
        return raw
    f.meta["x"] = {"a": [1]}
    assert f.settings.parsed("x", parse) == {"a": [1]}
    assert f.settings.parsed("x", parse) == {"a": [1]} and len(calls) == 1
    f.meta["x"]["a"].append(2)                   # an edit in place is seen
    assert f.settings.parsed("x", parse) == {"a": [1, 2]} and len(calls) == 2
    f.set_meta("x", {"a": [1, 2]})               # an equal value: nothing to read again
    f.settings.parsed("x", parse)
    assert len(calls) == 3                       # set_meta forgets what was read
    f.meta = {}                                  # a loader's new meta
    assert f.settings.parsed("x", parse) is None and len(calls) == 4


def test_a_refused_setting_raises_on_every_read_naming_its_key():
    f = Fabric()
    f.set_meta("roce", {"mtu": 100})
    for _ in range(2):
        with pytest.raises(RoceMetaError) as e:
            _ = f.settings.roce
        assert e.value.where == "meta.roce.mtu"
    f.set_meta("sms", [{"node": "a", "priority": 99}])
    with pytest.raises(FabricError, match=r"^meta.sms\[0\].priority: SM priority is 0..15$"):
        _ = f.settings.sms
    f.set_meta("sms", "leaf1")
    with pytest.raises(FabricError, match=r"^meta.sms: expected a list"):
        _ = f.settings.sms


def test_sms_typed():
    f = Fabric()
    assert f.settings.sms == ()
    f.set_meta("sms", [{"node": "a", "priority": 3}, {"node": "b"}])
    assert f.settings.sms == (SmEntry("a", 3), SmEntry("b", 0))


def test_copies_and_pickles_read_their_own_meta():
    f = Fabric()
    f.set_meta("roce", {"mtu": 4200})
    assert f.settings.roce.mtu == 4200
    for g in (f.copy(), pickle.loads(pickle.dumps(f))):
        assert g.settings.fabric is g and g.settings.roce.mtu == 4200
        g.meta["roce"]["mtu"] = 1500
        assert g.settings.roce.mtu == 1500 and f.settings.roce.mtu == 4200


def test_records_of_imports_and_twins_are_read_leniently():
    f = Fabric()
    assert f.settings.twin is None and f.settings.file_lids == {} and f.settings.sm_node is None
    f.meta.update(twin={"of": "a", "from": "ib", "parts": {"leaf1": "QM9700", "x": 5}, "changed_rate_cables": 2},
                  file_lids={"0x0000000000000001:0": 1, "0x0000000000000002:1": "two"}, sm_node="leaf1")
    tw = f.settings.twin
    assert tw is not None and (tw.of, tw.source_tech, tw.parts, tw.rates, tw.changed_rate_cables) == \
        ("a", "ib", {"leaf1": "QM9700"}, {}, 2)
    assert f.settings.file_lids == {"0x0000000000000001:0": 1} and f.settings.sm_node == "leaf1"
    f.meta.update(twin="ib", file_lids=[1], sm_node=7)
    assert f.settings.twin is None and f.settings.file_lids == {} and f.settings.sm_node is None


def test_roce_knows_which_keys_the_design_set():
    f = Fabric()
    assert f.settings.roce.given == frozenset()
    f.set_meta("roce", {"mtu": 4200})
    assert f.settings.roce.given == {"mtu"} and f.settings.roce == RoceSettings(mtu=4200)


def test_the_generator_record_of_a_generated_fat_tree():
    from fabricviz.generate import fat_tree
    gen = fat_tree(levels=2, radix=8).settings.generator
    assert (gen.name, gen.fabric, gen.oversubscription, gen.groups) == ("fat-tree", "ib", {"leaf": "1:1"}, ())
    assert gen.params == {"levels": 2, "radix": 8, "hosts": 32, "blocking": "1:1", "parallel": 1, "servers": "node",
                          "switch": "QM9700-R8", "speed": "4xNDR"}
    assert gen.plan == {"levels": 2, "radix": 8, "hosts": 32, "max_hosts": 32, "down": 4, "up": 4, "leaves": 8,
                        "spines": 4, "pods": 1, "leaves_per_pod": 8, "cores": 0, "parallel": 1}
    assert Fabric().settings.generator == GeneratorRecord()


def test_the_groups_a_dragonfly_stored():
    from fabricviz.generate import dragonfly
    f = dragonfly(3, 2, 2)
    assert f.settings.groups == f.settings.generator.groups == (
        SwitchGroup("group 1", ("g1-r1", "g1-r2")), SwitchGroup("group 2", ("g2-r1", "g2-r2")),
        SwitchGroup("group 3", ("g3-r1", "g3-r2")))
    f.meta["groups"].append({"name": "group 4", "switches": ["g4-r1", 5]})   # one entry of another form
    assert f.settings.groups == ()


def test_generator_records_of_another_form_are_left_out():
    f = Fabric()
    f.meta.update(generator=5, fabric=["ib"], params=[1], plan="x", oversubscription={"leaf": 3, "spine": "2:1"},
                  groups={"name": "g"})
    assert f.settings.generator == GeneratorRecord(oversubscription={"spine": "2:1"})
    f.meta["oversubscription"] = "3:1"
    assert f.settings.generator.oversubscription == {}


def test_lmc_the_design_sets_else_the_imported_files_else_0():
    f = Fabric()
    assert f.settings.lmc == 0
    f.meta["file_lmc"] = 2
    assert f.settings.lmc == 2
    f.set_meta("lmc", 1)
    assert f.settings.lmc == 1
    for bad in (9, -1, True, "1", None, 1.0):       # no LMC: 0 (lint then runs at LMC 0), never refused
        f.meta["lmc"] = bad
        assert f.settings.lmc == 0


def test_source_and_node_descriptions_of_an_import():
    from fabricviz.formats.ibnetdiscover import load
    f = load(Path(__file__).parents[1] / "data" / "regress" / "crossed_port_guids.net")
    assert f.settings.source == SourceRecord("ibnetdiscover", "crossed_port_guids.net")
    f = Fabric()
    assert f.settings.source is None and f.settings.node_descriptions == {}
    f.settings.set_node_descriptions({"0x0000000000000001": ("sw1", "sw1  spaced")})
    assert f.meta["node_descriptions"] == {"0x0000000000000001": ["sw1", "sw1  spaced"]}
    assert f.settings.node_descriptions == {"0x0000000000000001": ("sw1", "sw1  spaced")}
    f.meta["node_descriptions"]["0x0000000000000002"] = ["sw2"]       # not [name, text]: left out
    f.meta["source"] = {"format": "containerlab", "name": "lab", "file": 3}
    assert list(f.settings.node_descriptions) == ["0x0000000000000001"]
    assert f.settings.source == SourceRecord("containerlab", "", "lab")
    f.settings.set_node_descriptions({})
    assert "node_descriptions" not in f.meta
