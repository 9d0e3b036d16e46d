"""GraphML and NetJSON exports checked by their consumers' own validators.

GraphML against the GraphML 1.0 XSD (xmlschema), NetJSON against netjson's NetworkGraph
JSON schema (jsonschema); both schemas are vendored under tests/data (see the READMEs
there for their source and commit). Each validator is shown to reject a broken export.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import xmlschema

from fabricviz.formats import graphml, netjson
from fabricviz.formats.limits import FileFormatError
from fabricviz.generate import fat_tree, leaf_spine, rail_optimized
from fabricviz.loaders import load_any
from fabricviz.model import Fabric

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
XSD = DATA / "graphml_xsd"


def _local(url: str) -> str:
    """The schema locations graphml.xsd names (http://graphml.graphdrawing.org/xmlns/1.x/…) -> the copies."""
    p = XSD / url.rsplit("/", 1)[-1]
    return p.as_uri() if p.exists() else url


@pytest.fixture(scope="module")
def graphml_xsd() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(XSD / "graphml.xsd"), uri_mapper=_local)


@pytest.fixture(scope="module")
def netjson_schema():
    schema = json.loads((DATA / "netjson_schema" / "network-graph.json").read_text())
    return jsonschema.validators.validator_for(schema)(schema)


DESIGNS = {
    "demo": lambda: load_any(ROOT / "assets" / "demo" / "demo-fat-tree.json"),
    "fat-tree-2l-blocking": lambda: fat_tree(levels=2, radix=8, blocking="3:1"),
    "rail-2-units": lambda: rail_optimized(units=2),
}


def _key(f: Fabric):
    """What a round trip keeps: devices with kind and part, and the cabling by names and ports."""
    devs = sorted((d.name, d.kind, d.part) for d in f.devices())
    cables = sorted(tuple(sorted([(c.port_a.device.name, c.port_a.num), (c.port_b.device.name, c.port_b.num)]))
                    for c in f.cables())
    return devs, cables


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_graphml_export_passes_the_graphml_xsd(name, graphml_xsd):
    f = DESIGNS[name]()
    text = graphml.dumps(f)
    errors = list(graphml_xsd.iter_errors(text))
    assert errors == [], str(errors[0])[:500]
    assert _key(graphml.loads(text, "x.graphml")) == _key(f)


@pytest.mark.parametrize("name", sorted(DESIGNS))
def test_netjson_export_passes_the_networkgraph_schema(name, netjson_schema):
    f = DESIGNS[name]()
    text = netjson.dumps(f)
    errors = list(netjson_schema.iter_errors(json.loads(text)))
    assert errors == [], errors[0].message
    assert _key(netjson.loads(text, "x.netjson")) == _key(f)


def test_graphml_xsd_rejects_an_id_with_a_slash(graphml_xsd):
    text = graphml.dumps(leaf_spine(2, 2, 2))
    assert graphml_xsd.is_valid(text)
    bad = text.replace(f'"{graphml.encode_id("node01/mlx5_0")}"', '"node01/mlx5_0"')
    assert bad != text
    errors = list(graphml_xsd.iter_errors(bad))
    assert errors and all("NMTOKEN" in str(e) or "node01/mlx5_0" in str(e) for e in errors)


def test_networkgraph_schema_rejects_null_version_and_metric(netjson_schema):
    d = json.loads(netjson.dumps(leaf_spine(2, 2, 2)))
    assert not list(netjson_schema.iter_errors(d))
    for member in ("version", "revision", "metric"):
        bad = dict(d, **{member: None})
        assert [e.path[0] for e in netjson_schema.iter_errors(bad)] == [member]
    assert list(netjson_schema.iter_errors({k: v for k, v in d.items() if k != "metric"}))


@pytest.mark.parametrize("name", ["node01/gpu0", "node01/mlx5_0", "a:b", "x y/é", "_:2f:", "plain-name.1_2", ""])
def test_id_mapping_is_reversible_and_nmtoken(name):
    import re
    token = graphml.encode_id(name)
    assert re.fullmatch(r"[A-Za-z0-9._:-]+", token)
    assert graphml.decode_id(token) == name


def test_ids_are_encoded_and_names_kept_in_a_data_key():
    text = graphml.dumps(leaf_spine(2, 2, 2))
    assert 'id="node01:2f:mlx5_0"' in text and 'source="node01:2f:mlx5_0"' in text.replace("target", "source")
    assert ">node01/mlx5_0</data>" in text and 'id="node01/' not in text


def test_files_written_before_still_load():
    f = leaf_spine(2, 2, 2)
    old = DATA / "legacy"
    assert 'id="node01/mlx5_0"' in (old / "leaf-spine-0.1.graphml").read_text()
    assert json.loads((old / "leaf-spine-0.1.netjson.json").read_text())["version"] is None
    assert _key(graphml.load(old / "leaf-spine-0.1.graphml")) == _key(f)
    assert _key(netjson.load(old / "leaf-spine-0.1.netjson.json")) == _key(f)


def test_a_name_given_twice_is_refused():
    text = graphml.dumps(leaf_spine(2, 2, 2)).replace(">leaf02</data>", ">leaf01</data>", 1)
    with pytest.raises(FileFormatError, match=r"^x\.graphml: node 'leaf02': name 'leaf01' is given twice$"):
        graphml.loads(text, "x.graphml")
