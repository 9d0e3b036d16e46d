"""Control, bidi and separator characters are refused in every name a person gives, and escaped in
names an importer reads (issue 28), by the one validator in fabricviz/model/names.py."""

from __future__ import annotations

import json

import pytest

from fabricviz.cli import main
from fabricviz.formats.native import load_fabric, loads, save_fabric
from fabricviz.generate import fat_tree
from fabricviz.loaders import load_any
from fabricviz.model import FabricError
from fabricviz.model.names import check_text_name, escape_name, name_problem

ODD = ["a\x1bb", "evil\u202e", "line\u2028sep", "nul\x00", "tab\tx", "zero\u200bwidth", "nb\u00a0sp", 'q"uote']


@pytest.mark.parametrize("odd", ODD)
def test_validator_refuses_and_escapes(odd):
    assert name_problem(odd) is not None
    with pytest.raises(FabricError) as e:
        check_text_name(odd, "--name")
    assert str(e.value).isprintable() and str(e.value).startswith("--name '")
    assert escape_name(odd).isprintable() and name_problem(escape_name(odd)) is None
    assert escape_name("leaf01 é 漢") == "leaf01 é 漢" and name_problem("leaf01 é 漢") is None


@pytest.mark.parametrize("odd", ODD)
def test_model_rename_and_add_refuse(odd):
    f = fat_tree(2, 4)
    d = f.find("leaf01")
    before = f.signature()
    with pytest.raises(FabricError, match="bad device name"):
        f.rename(d, odd)
    with pytest.raises(FabricError, match="bad device name"):
        f.add_device("ib_switch", name=odd)
    assert f.signature() == before and f.find(odd) is None


def test_cli_name_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "x.json"
    assert main(["generate", "fat-tree", "--radix", "4", "--name", "ft\x1b[2J\u202e", "-o", str(out)]) == 2
    assert capsys.readouterr().err == ("fabricviz: error: --name 'ft\\x1b[2J\\u202e': no control, bidi or "
                                       "separator characters (found U+001B)\n")
    assert not out.exists()


def test_native_json_refuses_odd_names_on_both_readers(tmp_path):
    path = tmp_path / "d.json"
    save_fabric(fat_tree(2, 4), path)
    doc = json.loads(path.read_text())
    doc["devices"][0]["name"] = "leaf\u202e01"
    with pytest.raises(FabricError, match=r"bad device name 'leaf\\u202e01'"):
        loads(json.dumps(doc), "d.json")
    doc = json.loads(path.read_text())
    doc["name"] = "design\x1b"
    with pytest.raises(FabricError, match=r"d.json: name: 'design\\x1b': no control"):
        loads(json.dumps(doc), "d.json")
    assert load_fabric(path).find("leaf01") is not None


def test_ibnetdiscover_descriptions_are_escaped_never_stored_raw(tmp_path):
    text = ('vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x1\nswitchguid=0x1(1)\n'
            'Switch\t2 "S-0000000000000001"\t\t# "sw\x1b[31m\u202eevil" base port 0 lid 1 lmc 0\n'
            '[1]\t"H-0000000000000002"[1](2) \t# "host\x07" lid 2 4xNDR\n\n'
            'vendid=0x2c9\ndevid=0x1021\nsysimgguid=0x2\ncaguid=0x2\n'
            'Ca\t1 "H-0000000000000002"\t\t# "host\x07"\n'
            '[1](2) \t"S-0000000000000001"[1]\t\t# lid 2 lmc 0 "sw" lid 1 4xNDR\n')
    path = tmp_path / "odd\x1b.ibnd"
    path.write_text(text)
    f = load_any(path)
    assert sorted(f.name_of(int(d)) for d in f.device_ids()) == ["host\\x07", "sw\\x1b[31m\\u202eevil"]
    assert f.name == "odd\\x1b"
    save_fabric(f, tmp_path / "back.json")
    raw = (tmp_path / "back.json").read_text(encoding="utf-8")
    assert "\x1b" not in raw and "\u202e" not in raw and "\x07" not in raw
    assert load_fabric(tmp_path / "back.json").signature() == f.signature()


def test_partitions_conf_refuses_odd_partition_names():
    from fabricviz.formats.partitions_conf import loads as conf_loads
    with pytest.raises(FabricError) as e:
        conf_loads("ok=0x1 : ALL ;\nev\u202eil=0x2 : ALL ;\n", "p.conf")
    assert str(e.value) == ("p.conf:2: partition name 'ev\\u202eil': no control, bidi or separator characters "
                            "(found U+202E)")
