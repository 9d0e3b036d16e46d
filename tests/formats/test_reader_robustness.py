"""The text and graph readers survive any file (issue 11): deep nesting, numbers too large for the
model's columns, non-finite positions, keys given twice, undeclared GraphML keys, a BOM, absurd
port counts. Every bad file is refused by ``load_any`` with one line that starts with the file's
path and names the line or the element; nothing prints a warning; nothing shared is changed."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats import clab, dot, gml, graphml, native, netjson
from fabricviz.generate import fat_tree
from fabricviz.generate.autolayout import with_children
from fabricviz.loaders import load_any
from fabricviz.model import Catalog, FabricError

DATA = Path(__file__).resolve().parents[1] / "data"
WRITERS = {"json": native, "netjson.json": netjson, "graphml": graphml, "gml": gml, "dot": dot, "clab.yml": clab}
DEEP = 100_000


@pytest.fixture(scope="module")
def seeds() -> dict[str, str]:
    """The text of one small design (a DGX server, six switches, 16 cables) in every format,
    placed by hand in rows (the anchors below name node01 at (119, 0), leaf01 at (17, -260))."""
    f = fat_tree(2, 4, servers="dgx")
    tops = np.array([f.find(n) for n in ("node01", "leaf01", "leaf02", "leaf03", "leaf04", "spine01", "spine02")])
    f.set_positions(*with_children(f, tops, np.array([119.0, 17, 85, 153, 221, 17, 221]),
                                   np.array([0.0, -260, -260, -260, -260, -520, -520])))
    return {ext: mod.dumps(f) for ext, mod in WRITERS.items()}


def sub(text: str, old: str, new: str) -> str:
    """``text`` with the first ``old`` replaced (which must be there, so the test cannot pass idly)."""
    assert old in text, old
    return text.replace(old, new, 1)


def refusal(tmp_path: Path, name: str, text: str) -> str:
    """load_any's one-line refusal of ``text`` saved as ``name``, minus the leading path; no warning
    may be raised on the way."""
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(FabricError) as e:
            load_any(p)
    msg = str(e.value)
    assert msg.isprintable(), msg
    assert msg.startswith(f"{p}"), msg
    return msg[len(str(p)):]


def loaded(tmp_path: Path, name: str, text: str):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return load_any(p)


# ---------------------------------------------------------------------------- deep nesting
def test_deep_nesting_is_refused_with_the_line(tmp_path, seeds):
    deep = "[" * DEEP + "]" * DEEP
    assert refusal(tmp_path, "a.json", sub(seeds["json"], '"meta": {', '"meta": {"x": ' + deep + ', ')) \
        == ":5: lists and objects nested deeper than 64"
    assert refusal(tmp_path, "b.netjson.json", '{"type": "NetworkGraph",\n"nodes": ' + "[" * DEEP) \
        == ":2: lists and objects nested deeper than 64"
    assert refusal(tmp_path, "c.gml", "graph [\n node [ id 0 label \"a\" x " + "[ x " * DEEP + "]" * DEEP + " ] ]") \
        == ":2: lists nested deeper than 64"
    assert refusal(tmp_path, "d.clab.yml", "topology:\n  nodes:\n    a: " + "[" * DEEP + "\n") \
        == ":3: collections nested deeper than 64"
    block = "".join("  " * (i + 2) + "- a:\n" for i in range(200))
    assert refusal(tmp_path, "e.clab.yml", "topology:\n  nodes:\n" + block) \
        == ":34: collections nested deeper than 64"
    xml = sub(seeds["graphml"], "<graph ", "<graph><graph>" + "<node id='x'><graph>" * 40 + "<graph ")
    line = xml[:xml.index("<graph><graph>")].count("\n") + 1
    assert refusal(tmp_path, "f.graphml", xml) == f":{line}: elements nested deeper than 64"


def test_deep_json_inside_a_graph_attribute(tmp_path, seeds):
    text = sub(seeds["gml"], 'meta "{', 'meta "{&#34;x&#34;:' + "[" * 100 + "]" * 100 + ",")
    assert refusal(tmp_path, "a.gml", text) == ": graph attribute 'meta': line:1: lists and objects nested deeper than 64"


# ---------------------------------------------------------------------------- numbers for the columns
@pytest.mark.parametrize("old, new, expected", [
    ('"tier": 1,', '"tier": 1e400,', ": devices[17].tier: expected an integer, got inf"),
    ('"tier": 1,', f'"tier": {10 ** 30},', ": devices[17].tier: 1000000000000000000000000000000: must be -1 (unknown) or 0..127"),
    ('"local": 0,', '"local": 99999999999999999999,', ": devices[1].local: 99999999999999999999: must be 0..999"),
    ('"x": 119,', '"x": 1e400,', ": devices[0]: x: inf is out of range (positions must be finite numbers, within ±3.403e+38)"),
    ('"x": 119,', '"x": Infinity,', ": devices[0]: x: inf is out of range (positions must be finite numbers, within ±3.403e+38)"),
    ('"y": 0}', '"y": NaN}', ": devices[0]: y: nan is out of range (positions must be finite numbers, within ±3.403e+38)"),
    ('"x": 119,', '"x": 1e39,', ": devices[0]: x: 1e+39 is out of range (positions must be finite numbers, within ±3.403e+38)"),
    ('"x": 119,', f'"x": {10 ** 400},', ": devices[0]: x: an integer of 401 digits is out of range (positions must be finite "
                                        "numbers, within ±3.403e+38)"),
    ('"length_m": 15,', '"length_m": 1e400,', ": cables[8]: length_m: inf is out of range (lengths must be finite numbers, "
                                              "0..1e+06)"),
    ('"guid": "0xb83fd20300000090"', '"guid": "0x1b83fd20300000090"',
     ": devices[17].guid: GUID '0x1b83fd20300000090' is not a non-zero 64-bit value"),
    ('"x": 119,', '"x": 1' + "0" * 5000 + ",", ":10: not valid JSON: an integer of 5001 digits"),
])
def test_native_numbers_out_of_range(tmp_path, seeds, old, new, expected):
    assert refusal(tmp_path, "a.json", sub(seeds["json"], old, new)) == expected


def test_a_guid_with_a_leading_zero_is_the_same_guid(tmp_path, seeds):
    f = loaded(tmp_path, "a.json", sub(seeds["json"], '"guid": "0xb83fd20300000090"', '"guid": "0x0b83fd20300000090"'))
    assert f.device(f.find("leaf01")).guid == 0xB83FD20300000090


@pytest.mark.parametrize("ext, old, new, expected", [
    ("netjson.json", '"x": 119.0', '"x": 1e400', ": nodes[0] ('node01'): x: inf is out of range (positions must be finite "
                                                  "numbers, within ±3.403e+38)"),
    ("netjson.json", '"tier": 1,', '"tier": 1e400,', ": nodes[17] ('leaf01'): tier: expected an integer, got inf"),
    ("gml", "    x 119.0\n", "    x INF\n", ": node 'node01': x: inf is out of range (positions must be finite numbers, "
                                             "within ±3.403e+38)"),
    ("gml", "    local 0\n", "    local 99999999999999999999\n",
     ": node 'node01/gpu0': local: 99999999999999999999: must be 0..999"),
    ("gml", "    length_m 15.0\n", "    length_m 1.0e400\n",
     ": edge 'leaf01' -- 'spine01' #8: length_m: inf is out of range (lengths must be finite numbers, 0..1e+06)"),
    ("gml", "    tier 1\n", "    tier 1" + "0" * 5000 + "\n", ":213: a number of 5001 digits"),
    ("clab.yml", 'graph-posX: "119"', 'graph-posX: "1e400"',
     ": node 'node01': x: inf is out of range (positions must be finite numbers, within ±3.403e+38)"),
    ("clab.yml", "length_m: 15.0}", "length_m: 1.8e19}",
     ": links[8]: length_m: 1.8e+19 is out of range (lengths must be finite numbers, 0..1e+06)"),
    ("dot", '"graph-posY"="-260"', '"graph-posY"="nan"',
     ": node 'leaf01': y: nan is out of range (positions must be finite numbers, within ±3.403e+38)"),
])
def test_graph_numbers_out_of_range(tmp_path, seeds, ext, old, new, expected):
    assert refusal(tmp_path, f"a.{ext}", sub(seeds[ext], old, new)) == expected


@pytest.mark.parametrize("iface, expected", [
    ("eth40000", ": links[2]: interface 'eth40000' on node 'client1': port 40000 is more than a device can have (1024)"),
    ("eth" + "9" * 5000, ": links[2]: interface 'eth" + "9" * 33 + "... on node 'client1': "
                         "port 1000000000 is more than a device can have (1024)"),
])
def test_clab_interface_numbers_beyond_any_device(tmp_path, iface, expected):
    text = sub((DATA / "clab" / "clos01.clab.yml").read_text(), "client1:eth1", f"client1:{iface}")
    assert refusal(tmp_path, "a.clab.yml", text) == expected


# ---------------------------------------------------------------------------- counts checked before allocating
def test_part_port_counts_are_checked_before_allocating(tmp_path, seeds):
    huge = "1000000000"
    why = "ports: 1000000000 ports is more than an InfiniBand device can have (254)"
    assert refusal(tmp_path, "a.json", sub(seeds["json"], '"ports": 4,', f'"ports": {huge},')) == f": parts[0].{why}"
    assert refusal(tmp_path, "a.graphml", sub(seeds["graphml"], '"ports":4,', f'"ports":{huge},')) == f": part 1: {why}"
    assert refusal(tmp_path, "a.gml", sub(seeds["gml"], "&#34;ports&#34;:4,", f"&#34;ports&#34;:{huge},")) \
        == f": part 1: {why}"
    assert refusal(tmp_path, "a.dot", sub(seeds["dot"], '\\"ports\\":4,', f'\\"ports\\":{huge},')) == f": parts[0].{why}"


def test_server_child_counts_are_checked_before_allocating(tmp_path, seeds):
    server = ('{"id": "BIG", "kind": "server", "name": "big", "gpus": 1000000000, "nics": 1, '
              '"gpu_part": "H100-SXM5", "nic_part": "CX7-1P"}')
    text = sub(seeds["json"], '"parts": [\n', '"parts": [\n    ' + server + ",\n")
    assert refusal(tmp_path, "a.json", text) == ": parts[0].gpus: 1000000000 is more than a server can hold (128)"


# ---------------------------------------------------------------------------- structure the libraries trip on
def test_gml_keys_given_twice(tmp_path, seeds):
    assert refusal(tmp_path, "a.gml", sub(seeds["gml"], "    id 0\n", "    id 0\n    id 7\n")) \
        == ":9: node #0: key 'id' given twice"
    assert refusal(tmp_path, "b.gml", sub(seeds["gml"], '    label "node01"\n', '    label "a"\n    label "b"\n')) \
        == ":10: node #0: key 'label' given twice"
    assert refusal(tmp_path, "c.gml", sub(seeds["gml"], "    source 17\n", "    source [ x 1 ]\n")) \
        == ":373: edge #8: source must be a number or a string, not a list"
    # another attribute given twice becomes a list: refused by the importer with the node
    assert refusal(tmp_path, "d.gml", sub(seeds["gml"], '    kind "server"\n', '    kind "server"\n    kind "gpu"\n')) \
        == ": node 'node01': kind: expected text, got ['server', 'gpu']"


def test_graphml_keys_and_values_are_named(tmp_path, seeds):
    g = seeds["graphml"]
    key = re.search(r'<data key="(d\d+)">119.0</data>', g).group(1)
    assert refusal(tmp_path, "a.graphml", sub(g, f'<data key="{key}">119.0', '<data key="d256">119.0')) \
        == ":29: node 'node01': data key 'd256' is not declared by a <key>"
    tier = re.search(r'<key id="(d\d+)" for="node" attr.name="tier" attr.type="(\w+)"', g)
    assert tier.group(2) == "long"
    assert refusal(tmp_path, "b.graphml", sub(g, f'<data key="{tier.group(1)}">0</data>', f'<data key="{tier.group(1)}">zero</data>')) \
        == f":28: node 'node01': data key '{tier.group(1)}': 'zero' is not an integer"
    first = re.search(r'<key id="(d\d+)"[^>]*attr.type="long"', g)
    line = g[:first.start()].count("\n") + 1
    assert refusal(tmp_path, "c.graphml", sub(g, 'attr.type="long"', 'attr.type="complex"')) \
        == f":{line}: key '{first.group(1)}': unknown attr.type 'complex' " \
           "(use boolean, double, float, int, integer, long, string, yfiles)"
    assert refusal(tmp_path, "d.graphml", sub(g, '<node id="node01">', "<node>")) == ":25: a node without an id"
    assert refusal(tmp_path, "e.graphml", sub(g, "<graph ", "<grap ")) \
        == f":{g.count(chr(10)) - 1}: not well-formed XML (mismatched tag)"


def test_unknown_child_kind_and_spaced_child_names(tmp_path, seeds):
    text = sub(seeds["netjson.json"], '"kind": "gpu", "part": "H100-SXM5", "tier": 0, "x": 35.0',
               '"kind": "ib_switch", "part": "QM9700-R4", "tier": 0, "x": 35.0')
    assert refusal(tmp_path, "a.netjson.json", text) \
        == ": nodes[1] ('node01/gpu0'): parent: a ib_switch cannot sit inside a server"
    # a GPU named with a leading space (stored stripped) that is bound to a NIC
    f = loaded(tmp_path, "b.json", sub(seeds["json"], '"local": 0, "kind": "gpu"', '"local": 0, "name": " g0", "kind": "gpu"'))
    g = f.find("g0")
    assert f.device(g).parent.name == "node01" and f.name_of(int(f.devices_t.bound[g])) == "node01/mlx5_0"


def test_positions_that_are_not_numbers(tmp_path, seeds):
    assert refusal(tmp_path, "a.dot", sub(seeds["dot"], '"graph-posX"="17"', '"graph-posX"="left"')) \
        == ": node 'leaf01': label graph-posX: expected a number, got 'left'"
    assert refusal(tmp_path, "a.clab.yml", sub(seeds["clab.yml"], 'graph-posY: "-260"', "graph-posY: [1, 2]")) \
        == ": node 'leaf01': label graph-posY: expected a number, got [1, 2]"


def test_a_refusal_is_one_line_even_if_the_file_has_line_breaks_in_names(tmp_path, seeds):
    text = sub(seeds["dot"], '-- "leaf01":"swp1"', '-- "leaf\n01":"swp1"')
    assert refusal(tmp_path, "a.dot", text) == ": node 'leaf\\n01': no fabricviz.kind label (other nodes have one)"


# ---------------------------------------------------------------------------- BOM
@pytest.mark.parametrize("ext", sorted(WRITERS))
def test_a_leading_bom_is_accepted(tmp_path, seeds, ext):
    plain = loaded(tmp_path, f"a.{ext}", seeds[ext])
    with_bom = loaded(tmp_path, f"b.{ext}", "\ufeff" + seeds[ext])
    assert with_bom.signature() == plain.signature()


def test_line_numbers_stay_right_after_a_bom(tmp_path, seeds):
    text = "\ufeff" + sub(seeds["clab.yml"], "  nodes:\n", "  nodes:\n    leaf01: {}\n")
    second = text.split("\n").index("    leaf01:") + 1        # the BOM is on line 1, not a line of its own
    assert refusal(tmp_path, "a.clab.yml", text) == f":{second}: key 'leaf01' given twice"
    text = "\ufeff" + sub(seeds["json"], '"version": 1,', '"version": 1,,')
    assert refusal(tmp_path, "a.json", text) == ":3: not valid JSON: Expecting property name enclosed in double quotes (column 16)"


# ---------------------------------------------------------------------------- atomic, CLI
def test_a_refused_import_changes_no_shared_catalog(tmp_path, seeds):
    before = [p.to_dict() for p in Catalog.default()]
    why = "length_m: -1 is out of range (lengths must be finite numbers, 0..1e+06)"
    for ext, old, new, where in (("json", '"length_m": 15,', '"length_m": -1,', "cables[8]"),
                                 ("graphml", ">15.0</data>", ">-1</data>", "edge 'leaf01' -- 'spine01' #8"),
                                 ("clab.yml", "length_m: 15.0}", "length_m: -1}", "links[8]")):
        text = sub(seeds[ext].replace("QM9700-R4", "QM9700-R4X"), old, new)   # a new user part, then a bad length
        assert refusal(tmp_path, f"a.{ext}", text) == f": {where}: " + why.replace("-1", "-1.0" if ext != "json" else "-1", 1)
    assert [p.to_dict() for p in Catalog.default()] == before
    assert "QM9700-R4X" not in Catalog.default()


def test_cli_info_refuses_with_one_line(tmp_path, seeds, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(sub(seeds["json"], '"x": 119,', '"x": Infinity,'))
    assert main(["info", str(bad)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"fabricviz: error: {bad}: devices[0]: x: inf is out of range (positions must be finite numbers, " \
                  "within ±3.403e+38)\n"
    deep = tmp_path / "deep.gml"
    deep.write_text("graph [ node [ x " + "[ x " * DEEP + "]" * DEEP + " ] ]")
    assert main(["info", str(deep)]) == 2
    assert capsys.readouterr().err == f"fabricviz: error: {deep}:1: lists nested deeper than 64\n"


def test_server_parts_cannot_expand_a_small_file_into_half_a_million_devices(tmp_path):
    part = {"id": "FAT", "kind": "server", "name": "fat", "gpus": 128, "nics": 128, "gpu_part": "H100-SXM5",
            "nic_part": "CX7-1P"}
    lines = ["topology:", "  defaults:", "    labels:", "      fabricviz.parts: " + json.dumps(json.dumps([part])),
             "  nodes:"]
    for i in range(2000):
        lines += [f"    s{i}:", "      labels:", '        fabricviz.kind: "server"', '        fabricviz.part: "FAT"']
    text = "\n".join(lines) + "\n"
    size = len(text.encode())
    budget = size // 4
    first = budget // 256 + 1
    assert refusal(tmp_path, "a.clab.yml", text) == \
        f": node 's{first - 1}': its servers' parts would make {first * 256} GPUs and NICs so far, more than a " \
        f"{size}-byte file can describe ({budget}); list fewer servers or use a part with fewer GPUs/NICs"


def test_a_guid_used_twice_names_the_second_device(tmp_path, seeds):
    text = sub(seeds["json"], '"guid": "0xb83fd203000000a0"', '"guid": "0xb83fd20300000090"')
    assert refusal(tmp_path, "a.json", text) == ": devices[18].guid: GUID 0xb83fd20300000090 is used twice"


@pytest.mark.parametrize("old, new, expected", [
    ('<node id="node01">', '<hyperedge><endpoint node="x"/></hyperedge><node id="node01">',
     ":25: hyperedges are not cabling (an edge joins two nodes)"),
    ('<node id="node01">', '<node id="node01" yfiles.foldertype="group">',
     ":32: node 'node01': a yfiles group node without a nested <graph>"),
    ("<edge ", '<edge directed="true" ', ":263: edge 'node01/mlx5_0' -- 'leaf01': directed=true in an undirected graph"),
    ('<edge source="node01:2f:mlx5_0"', "<edge", ":263: an edge without a source"),
])
def test_graphml_structure_networkx_trips_on(tmp_path, seeds, old, new, expected):
    assert refusal(tmp_path, "a.graphml", sub(seeds["graphml"], old, new)) == expected


def test_graphml_that_networkx_warns_about_loads_quietly(tmp_path, seeds):
    text = sub(seeds["graphml"], '<node id="node01">', '<node id="node01"><port name="p1"/>')
    text = re.sub(r' attr.type="string"', "", text, count=1)      # no type: string is meant
    assert loaded(tmp_path, "a.graphml", text).signature() == loaded(tmp_path, "b.graphml", seeds["graphml"]).signature()


# ---------------------------------------------------------------------------- YAML: PyYAML events or the subset reader
YAML_REFUSED = [
    ("a: 1\nb:\n  c: &x 2\n", "y:3: anchors, aliases and tags are not supported"),
    ("a: [1]\nb: *x\n", "y:2: anchors, aliases and tags are not supported"),
    ("a: !!str 5\n", "y:1: anchors, aliases and tags are not supported"),
    ("a: 1\nb: 2\na: 3\n", "y:3: key 'a' given twice"),
    ("a: 1\n---\nb: 2\n", "y:2: multi-document files and directives are not supported"),
    ("a:\n  b: " + "[" * 70 + "]" * 70 + "\n", "y:2: collections nested deeper than 64"),
]


@pytest.mark.parametrize("text, expected", YAML_REFUSED)
def test_yaml_refusals_name_the_line(text, expected):
    from fabricviz.formats import _yaml
    with pytest.raises(_yaml.YamlError) as e:
        _yaml.load(text, "y")
    assert str(e.value) == expected


def test_yaml_scalars_are_typed_as_yaml_1_2_core(seeds):
    from fabricviz.formats import _yaml
    text = 'a: 1\nb: [x, "y", 2.5, null, true, 0123, yes, "12:30"]\nc: |\n  two\n  lines\nd:\n  - e: f\n    g: ~\n'
    assert _yaml.load(text) == {
        "a": 1, "b": ["x", "y", 2.5, None, True, 123.0, "yes", "12:30"], "c": "two\nlines\n",
        "d": [{"e": "f", "g": None}]}
    import yaml
    for t in (seeds["clab.yml"], (DATA / "clab" / "clos01.clab.yml").read_text()):
        assert _yaml.load(t) == yaml.safe_load(t)      # files with no YAML 1.1-only scalars


def _switch_chain(n: int) -> str:
    """An ibnetdiscover file: a CA on the first of ``n`` switches cabled in a line."""
    sw = [0x0002C90000001000 + 16 * i for i in range(n)]
    ca = 0x0002C90000900000
    out = []
    for i, g in enumerate(sw):
        out += [f"switchguid=0x{g:x}({g:x})", f'Switch\t4 "S-{g:016x}"\t\t# "sw{i}" base port 0 lid {i + 1} lmc 0']
        if i == 0:
            out.append(f'[3]\t"H-{ca:016x}"[1]({ca + 1:x})\t\t# "host0" lid 500 4xNDR')
        if i > 0:
            out.append(f'[1]\t"S-{sw[i - 1]:016x}"[2]\t\t# "sw{i - 1}" lid {i} 4xNDR')
        if i < n - 1:
            out.append(f'[2]\t"S-{sw[i + 1]:016x}"[1]\t\t# "sw{i + 1}" lid {i + 2} 4xNDR')
        out.append("")
    out += [f"caguid=0x{ca:x}", f'Ca\t1 "H-{ca:016x}"\t\t# "host0"',
            f'[1]({ca + 1:x})\t"S-{sw[0]:016x}"[3]\t\t# lid 500 lmc 0 "sw0" lid 1 4xNDR']
    return "\n".join(out) + "\n"


def test_a_long_switch_chain_imports_with_tiers_past_9_and_loads_back(tmp_path):
    """ibnetdiscover import sets tier = 1 + hops; the loader took only 0..9, so this design
    saved but could not be opened again. Model and loader now share TIER_MIN..TIER_MAX."""
    f = loaded(tmp_path, "chain.ibnetdiscover", _switch_chain(12))
    assert f.device("sw11").tier == 12
    native.save_fabric(f, tmp_path / "chain.fabric.json")
    g = load_any(tmp_path / "chain.fabric.json")
    assert g.signature() == f.signature() and native.dumps(g) == (tmp_path / "chain.fabric.json").read_text()


def test_a_switch_chain_longer_than_the_tier_range_imports_at_the_top_tier(tmp_path):
    from fabricviz.model.limits import TIER_MAX
    f = loaded(tmp_path, "chain.ibnetdiscover", _switch_chain(TIER_MAX + 10))
    assert f.device(f"sw{TIER_MAX + 9}").tier == TIER_MAX
    assert native.loads(native.dumps(f)).signature() == f.signature()


@pytest.mark.parametrize("fmt", ["json", "dot"])
def test_a_megabyte_string_costs_memory_in_proportion(tmp_path, fmt):
    """A string literal of 1 MB: the string patterns are possessive, so the regex engine keeps no
    backtracking state per character (it took ~120 bytes per character, 120 MB here, before)."""
    import tracemalloc

    from fabricviz.formats.limits import JSON_STRING, check_nesting
    long = "n" * 1_000_000
    if fmt == "json":
        text = '{"a": [' * 70 + '"' + long + '"' + "]}" * 70   # deep enough that the string pass runs
        run = lambda: check_nesting(text, "x", "[{", "]}", JSON_STRING)   # noqa: E731
        err = pytest.raises(FabricError, match=r"^x:1: lists and objects nested deeper than 64$")
    else:
        text = 'graph g {\n  "' + long + '";\n}\n'
        run = lambda: list(dot._tokens(text, "x"))     # noqa: E731
        err = None
    tracemalloc.start()
    try:
        if err is None:
            assert [t[0] for t in run()] == ["id", "id", "{", "id", ";", "}"]
        else:
            with err:
                run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(text)
