"""A GraphML id escape that names no character (``:110000:``, a surrogate ``:d800:``) made the reader
crash with chr()'s ValueError (fuzz seed 2812, graphml:2812:248; issue 28): it now stays as written."""

from __future__ import annotations

import pytest

from fabricviz.formats import graphml
from fabricviz.generate import fat_tree
from fabricviz.loaders import load_any
from fabricviz.model import FabricError


@pytest.mark.parametrize("token", ["x:110000:", "x:d800:", "x:fffff:"])
def test_out_of_range_escape_kept_as_written(token):
    assert graphml.decode_id(token) == (token if token != "x:fffff:" else "x\U000fffff")
    assert graphml.decode_id("node01:2f:gpu0") == "node01/gpu0"


def test_file_with_such_ids_gets_a_verdict(tmp_path):
    text = graphml.dumps(fat_tree(2, 4))
    enc = graphml.encode_id("node01/gpu0")
    bad = text.replace(f'"{enc}"', '"node01:110000:gpu0"')
    assert bad != text
    path = tmp_path / "bad.graphml"
    path.write_text(bad)
    try:
        f = load_any(path)
    except FabricError as e:                 # a clean refusal names the file, one line
        assert str(e).startswith(f"{path}:") and "\n" not in str(e)
    else:
        assert f.find("node01/gpu0") is not None
