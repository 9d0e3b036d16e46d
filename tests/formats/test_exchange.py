"""Exchange formats: GraphML, GML, NetJSON, DOT, containerlab, Slurm; round trips, samples, errors, convert."""

import json
import re
from pathlib import Path

import pytest

from fabricviz.cli import main
from fabricviz.formats import _graph, _yaml, clab, dot, gml, graphml, netjson, slurm
from fabricviz.formats.ibnetdiscover import export_ibnetdiscover
from fabricviz.formats.native import FileFormatError, fabric_to_dict
from fabricviz.formats.native import dumps as native_dumps
from fabricviz.generate import fat_tree, leaf_spine
from fabricviz.loaders import detect_format, load_any

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLES = sorted((DATA / "samples").glob("*.[ni]*")) + [DATA / "opensm" / "ring4-minhop" / "topology.net"]
FULL = {"graphml": graphml, "gml": gml, "netjson": netjson}        # carry everything
TOP = {"clab": clab, "dot": dot}                                   # rebuild server children from the part
READABLE = {**FULL, **TOP}


def _ib():
    f = fat_tree(2, 8, 8, fabric="ib", servers="dgx", parallel=2)
    f.rename(f.find("node01/mlx5_3"), "node01/hca3")         # a custom child name
    f.set_port_state(f.port_id("leaf01:2"), "disabled")      # a port override
    return f


def _roce():
    return leaf_spine(2, 2, 3)


@pytest.mark.parametrize("fmt", sorted(FULL))
@pytest.mark.parametrize("make", [_ib, _roce])
def test_full_round_trip_is_exact(fmt, make):
    f = make()
    g = FULL[fmt].loads(FULL[fmt].dumps(f), f"x.{fmt}")
    assert native_dumps(g) == native_dumps(f)


@pytest.mark.parametrize("fmt", sorted(TOP))
def test_top_level_round_trip_keeps_topology(fmt):
    for f in (fat_tree(2, 8, 8, fabric="ib", servers="dgx", parallel=2), _roce()):
        g = TOP[fmt].loads(TOP[fmt].dumps(f), f"x.{fmt}")
        assert _graph.same_topology(f, g) == []
        a, b = fabric_to_dict(f), fabric_to_dict(g)
        assert a["meta"] == b["meta"] and a["parts"] == b["parts"] and a["ports"] == b["ports"]
        assert sorted(map(str, a["cables"])) == sorted(map(str, b["cables"]))
        # NIC GUIDs and the RoCE NIC mode survive (labels), so the IB view is identical
        assert {d.name: (d.guid, str(d.ports[0].rate) if d.ports else "") for d in f.devices("nic")} == \
               {d.name: (d.guid, str(d.ports[0].rate) if d.ports else "") for d in g.devices("nic")}


def test_parallel_cables_survive_as_separate_edges():
    f = fat_tree(2, 8, 8, fabric="ib", parallel=2)
    G = graphml.to_networkx(f)
    assert G.number_of_edges("leaf01", "spine01") == 2
    assert sorted((d["a_port"], d["b_port"]) for d in G["leaf01"]["spine01"].values()) == [(5, 1), (6, 2)]
    for mod in READABLE.values():
        g = mod.loads(mod.dumps(f), "x")
        pairs = sorted((c.port_a.num, c.port_b.num) for c in g.cables()
                       if {c.port_a.device.name, c.port_b.device.name} == {"leaf01", "spine01"})
        assert pairs == [(5, 1), (6, 2)]


@pytest.mark.parametrize("fmt", sorted(READABLE))
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name)
def test_real_samples_back_to_the_same_ib_topology(fmt, sample):
    f = load_any(sample)
    g = READABLE[fmt].loads(READABLE[fmt].dumps(f), f"x.{fmt}")
    assert export_ibnetdiscover(g) == export_ibnetdiscover(f)
    assert g.meta == f.meta


# ---------------------------------------------------------------------------- errors
def test_graphml_error_names_the_edge_and_builds_nothing():
    text = graphml.dumps(leaf_spine(2, 2, 2))
    key = re.search(r'<key id="(d\d+)" for="edge" attr.name="a_port"', text).group(1)   # the a_port key
    text = text.replace(f'<data key="{key}">3</data>', f'<data key="{key}">9</data>', 1)
    assert f'<data key="{key}">9</data>' in text
    with pytest.raises(FileFormatError, match=r"^x\.graphml: edge 'leaf01' -- 'spine01' #4: a_port: "
                                              r"leaf01:9: no such port \(leaf01 has ports 1-4\)$"):
        graphml.loads(text, "x.graphml")


def test_gml_and_netjson_errors_name_the_element():
    f = leaf_spine(2, 2, 2)
    with pytest.raises(FileFormatError, match=r"^x\.gml: node 'spine01': part: unknown part 'NOPE'$"):
        gml.loads(gml.dumps(f).replace('part "SN4700-R2"', 'part "NOPE"'), "x.gml")
    d = json.loads(netjson.dumps(f))
    d["links"][3]["target"] = d["links"][3]["properties"]["b_node"] = "ghost"
    with pytest.raises(FileFormatError, match=r"^x\.netjson: links\[3\] \('node04/mlx5_0' -- 'ghost'\): unknown node 'ghost'$"):
        netjson.loads(json.dumps(d), "x.netjson")


def test_clab_and_dot_errors_name_link_and_line():
    f = leaf_spine(2, 2, 2)
    text = clab.dumps(f).replace('"leaf01:swp3"', '"leaf01:eth9"')
    with pytest.raises(FileFormatError, match=r"^x\.clab\.yml: links\[4\]: a_port: leaf01:9: no such port "
                                              r"\(leaf01 has ports 1-4\)$"):
        clab.loads(text, "x.clab.yml")
    text = clab.dumps(f).replace('"node02:mlx5_0"', '"node02:mlx5_7"')
    with pytest.raises(FileFormatError, match=r"^x\.clab\.yml: links\[1\]: unknown interface 'mlx5_7' on node 'node02'$"):
        clab.loads(text, "x.clab.yml")
    text = dot.dumps(f)
    lines = text.splitlines()
    n = next(i for i, line in enumerate(lines, 1) if '"node02":"mlx5_0"' in line)
    with pytest.raises(FileFormatError, match=rf"^x\.dot:{n}: edge node02:mlx5_7 -- leaf01:swp2: "
                                              r"unknown interface 'mlx5_7' on node 'node02'$"):
        dot.loads(text.replace('"node02":"mlx5_0"', '"node02":"mlx5_7"'), "x.dot")
    with pytest.raises(FileFormatError, match=r"^x\.dot:2: expected '=', got '\]'$"):
        dot.loads('graph "g" {\n "a" [ x ]\n}\n', "x.dot")


def test_convert_of_a_bad_file_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.gml"
    bad.write_text(gml.dumps(leaf_spine(2, 2, 2)).replace('b_port 1', 'b_port 77', 1))
    out = tmp_path / "out.graphml"
    assert main(["convert", str(bad), str(out)]) == 2
    assert "bad.gml: edge" in capsys.readouterr().err and not out.exists()


# ---------------------------------------------------------------------------- containerlab
def test_real_containerlab_lab_imports():
    f = load_any(DATA / "clab" / "clos01.clab.yml")
    assert f.counts() == {"server": 0, "gpu": 0, "nic": 2, "ib_switch": 0, "eth_switch": 3, "cables": 4}
    cables = sorted((c.port_a.device.name, c.port_a.num, c.port_b.device.name, c.port_b.num) for c in f.cables())
    assert cables == [("client1", 1, "leaf1", 2), ("client2", 1, "leaf2", 2), ("leaf1", 1, "spine", 1),
                      ("leaf2", 1, "spine", 2)]
    assert f.device("spine").part_id == "SN5400" and f.device("client1").part_id == "CLAB-HOST-1p"


def test_yaml_subset_reader():
    text = ('# c\nname: lab  # trailing\ntopology:\n  nodes:\n    a: {kind: linux, image: "x:1"}\n    b:\n'
            '  links:\n  - endpoints: ["a:eth1", \'b:e1-1\']\n    mtu: 9000\n  - {endpoints: [a:eth2, b:e1-2]}\n'
            'exec: |\n  one\n  two\nok: true\nn: -1.5\n')
    assert _yaml.load(text) == {"name": "lab", "topology": {
        "nodes": {"a": {"kind": "linux", "image": "x:1"}, "b": None},
        "links": [{"endpoints": ["a:eth1", "b:e1-1"], "mtu": 9000}, {"endpoints": ["a:eth2", "b:e1-2"]}]},
        "exec": "one\ntwo\n", "ok": True, "n": -1.5}
    with pytest.raises(_yaml.YamlError, match=r"^y:3: anchors, aliases and tags are not supported$"):
        _yaml.load("a: 1\nb:\n  c: &x 2\n", "y")
    with pytest.raises(_yaml.YamlError, match=r"^y:2: key 'a' given twice$"):
        _yaml.load("a: 1\na: 2\n", "y")


def test_clab_output_is_schema_shaped():
    data = _yaml.load(clab.dumps(_ib()))
    import re
    assert set(data) == {"name", "topology"} and set(data["topology"]) == {"defaults", "nodes", "links"}
    for name, node in data["topology"]["nodes"].items():
        assert re.match(r"^[a-zA-Z0-9][a-zA-Z0-9-._|]*$", name) and node["kind"] == "linux"
        assert all(isinstance(v, str) and v for v in node["labels"].values())
    for link in data["topology"]["links"]:
        assert set(link) == {"endpoints", "vars"} and all(re.match(r"^\S+:\S+$", e) for e in link["endpoints"])
    assert len(data["topology"]["links"]) == 16


def test_clab_output_validates_against_containerlab_schema(tmp_path):
    # jsonschema comes with the test extra (pyproject.toml), so this always runs
    import jsonschema
    import yaml

    schema = json.loads((DATA / "clab" / "clab.schema.json").read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    texts = [clab.dumps(f) for f in (_ib(), _roce(), load_any(DATA / "samples" / "manpage_example.ibnetdiscover"))]
    bad = clab.dumps(_roce()).replace("leaf01:", "leaf 01:")     # schema: no spaces in endpoints
    errors = [len(list(validator.iter_errors(yaml.safe_load(t)))) for t in [*texts, bad]]
    assert errors[:3] == [0, 0, 0] and errors[3] > 0


# ---------------------------------------------------------------------------- DOT / Slurm
def test_dot_reads_air_dialect():
    text = ('graph "Demo" {\n  "spine01" [ function="spine" memory="4096" os="sonic-vs-202305" cpu="2" ]\n'
            '  "leaf01"  [ function="leaf"  memory="4096" ]\n  "server01" [ function="server" ]\n'
            '  "leaf01":"eth2" -- "spine01":"eth1"\n  "leaf01":"eth3" -- "server01":"eth1"\n}\n')
    assert detect_format(text) == "dot"
    f = dot.loads(text, "air.dot")
    assert f.counts()["eth_switch"] == 2 and f.device("server01").kind == "nic"
    assert sorted((c.port_a.device.name, c.port_a.num, c.port_b.device.name, c.port_b.num) for c in f.cables()) \
        == [("leaf01", 2, "spine01", 1), ("leaf01", 3, "server01", 1)]


def test_dot_writes_node_port_cabling():
    text = dot.dumps(leaf_spine(2, 2, 2))
    assert '  "node01":"mlx5_0" -- "leaf01":"swp1" [ "cable_part"="400G-DAC" "cable_type"="dac" "length_m"="2.0" ]' \
        in text.splitlines()
    assert not text.startswith("strict")


def test_slurm_topology_exact():
    assert slurm.dumps(fat_tree(2, 4, 8, fabric="ib")) == (
        "# Slurm topology.conf (topology/tree) written by fabricviz: fat-tree-2l-r4-8h\n"
        "SwitchName=spine01 Switches=leaf[01-04]\n"
        "SwitchName=spine02 Switches=leaf[01-04]\n"
        "SwitchName=leaf01 Nodes=node[01-02]\n"
        "SwitchName=leaf02 Nodes=node[03-04]\n"
        "SwitchName=leaf03 Nodes=node[05-06]\n"
        "SwitchName=leaf04 Nodes=node[07-08]\n")


def test_hostlist_compression():
    assert slurm.hostlist(["node01", "node02", "node03", "node05", "n7", "x", "n8", "gpu10", "gpu9"]) \
        == "node[01-03,05],n[7-8],x,gpu[9-10]"
    assert slurm.hostlist(["a1"]) == "a1"
    # a padded run across 09/10 stays one range; an unpadded name of another width stays apart
    assert slurm.hostlist([f"ct{k:02d}" for k in range(1, 19)]) == "ct[01-18]"
    assert slurm.hostlist(["n01", "n10", "n1", "n100"]) == "n[01,10],n[1,100]"


# ---------------------------------------------------------------------------- convert
OUT_NAMES = {"native": "o.json", "graphml": "o.graphml", "gml": "o.gml", "dot": "o.dot", "netjson": "o.netjson.json",
             "clab": "o.clab.yml", "slurm": "topology.conf", "ibnetdiscover": "o.ibnd"}


def _ib_links(f):
    """Cables as sorted ((node GUID, port), (node GUID, port)) pairs: the IB view of a fabric."""
    return sorted(tuple(sorted(((c.port_a.device.guid, c.port_a.num), (c.port_b.device.guid, c.port_b.num))))
                  for c in f.cables())


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    d = tmp_path_factory.mktemp("src")
    f = fat_tree(2, 4, 8, fabric="ib", servers="dgx")
    out = {}
    for fmt, name in OUT_NAMES.items():
        if fmt == "slurm":
            continue
        from fabricviz.loaders import save_as
        p = d / name
        save_as(f, p, fmt)
        out[fmt] = p
    return f, out


@pytest.mark.parametrize("src", [k for k in OUT_NAMES if k != "slurm"])
def test_convert_every_pair(src, sources, tmp_path, capsys):
    f, paths = sources
    for dst, name in OUT_NAMES.items():
        out = tmp_path / f"{src}-{name}"
        assert main(["convert", str(paths[src]), str(out)]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.startswith(f"wrote {out} ({dst}): ")
        if dst == "slurm":
            assert out.read_text() == slurm.dumps(load_any(paths[src]))
            continue
        g = load_any(out)
        if "ibnetdiscover" in (src, dst):      # IB view only: no servers, GPUs or positions
            assert _ib_links(g) == _ib_links(f) and len(_ib_links(f)) == 16
        else:
            assert _graph.same_topology(f, g) == []


def test_convert_to_flag_and_unknown_name(tmp_path, capsys):
    src = tmp_path / "a.json"
    from fabricviz.formats.native import save_fabric
    save_fabric(leaf_spine(2, 2, 2), src)
    assert main(["convert", str(src), str(tmp_path / "a.txt"), "--to", "gml"]) == 0
    assert detect_format((tmp_path / "a.txt").read_text()) == "gml"
    assert main(["convert", str(src), str(tmp_path / "a.xyz")]) == 2
    assert "cannot tell the format from the name" in capsys.readouterr().err
