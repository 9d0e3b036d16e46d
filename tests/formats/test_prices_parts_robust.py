"""Prices files (``bom --prices``) and parts files (``FABRICVIZ_PARTS``) that crashed their readers
before issue 28: each is refused with one line naming the file and line (or element), never a
traceback, and no character of the file breaks that line."""

import json

import pytest

from fabricviz.check.bom import load_prices
from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import k_ary_fat_tree
from fabricviz.model import CatalogError, FabricError
from fabricviz.model.catalog import Catalog

GPU = '{"id": "GPU1", "kind": "gpu", "name": "g", "memory_gb": 80, "pcie_gbps": %s}'
PARTS = '{"format": "fabricviz-catalog", "version": 1, "parts": [%s]}'

CRASHES = [
    # UnicodeDecodeError
    ("non-utf8", b'{"QM9700": 1, "\xff": 2}', "F:1: not UTF-8 text (byte 15)"),
    # RecursionError
    ("deep", b"[" * 100_000 + b"]" * 100_000, "F:1: lists and objects nested deeper than 64"),
    # ValueError: Exceeds the limit (4300 digits) for integer string conversion
    ("digits", b'{"QM9700":\n' + b"1" * 4301 + b"}", "F:2: not valid JSON: an integer of 4301 digits"),
]


def prices_refusal(tmp_path, data: bytes) -> str:
    p = tmp_path / "p.json"
    p.write_bytes(data)
    with pytest.raises(FabricError) as e:
        load_prices(p)
    return str(e.value).replace(str(p), "F")


def parts_refusal(tmp_path, data: bytes) -> str:
    p = tmp_path / "parts.json"
    p.write_bytes(data)
    with pytest.raises(CatalogError) as e:
        Catalog.load_file(p)
    return str(e.value).replace(str(p), "F")


@pytest.mark.parametrize("name, data, msg", CRASHES, ids=[c[0] for c in CRASHES])
def test_prices_crashes_are_one_line(tmp_path, name, data, msg):
    assert prices_refusal(tmp_path, data) == msg


def test_prices_number_too_large_for_a_float(tmp_path):
    # OverflowError: int too large to convert to float
    assert prices_refusal(tmp_path, b'{"QM9700": 1' + b"0" * 400 + b"}") == (
        "F: QM9700: price_usd must be a non-negative number, got an integer of 401 digits")


def test_prices_escape_the_files_characters(tmp_path):
    # VT, FF, U+2028 and U+202E were copied into the message (which then printed as lines)
    doc = {"QM9700\v\f\u2028\u202e": {"cost": 1}}
    assert prices_refusal(tmp_path, json.dumps(doc).encode()) == (
        "F: QM9700\\x0b\\x0c\\u2028\\u202e.cost: unknown field (use price_usd, power_w)")
    doc = {"QM9700": "1\u2028\v"}
    assert prices_refusal(tmp_path, json.dumps(doc).encode()) == (
        "F: QM9700: price_usd must be a non-negative number, got '1\\u2028\\x0b'")


@pytest.mark.parametrize("name, data, msg", CRASHES, ids=[c[0] for c in CRASHES])
def test_parts_crashes_are_one_line(tmp_path, name, data, msg):
    assert parts_refusal(tmp_path, data) == msg


def test_parts_number_too_large_for_a_float(tmp_path):
    # OverflowError: int too large to convert to float (math.isfinite of a 401-digit int)
    data = (PARTS % (GPU % ("1" + "0" * 400))).encode()
    assert parts_refusal(tmp_path, data) == (
        "F: parts[0].pcie_gbps: must be a non-negative number, got an integer of 401 digits")


def test_cli_bom_prices_one_line_naming_the_file(tmp_path, capsys):
    design, prices = tmp_path / "d.json", tmp_path / "p.json"
    save_fabric(k_ary_fat_tree(4), design)
    prices.write_bytes(b"[" * 100_000)
    assert main(["bom", str(design), "--prices", str(prices)]) == 2
    assert capsys.readouterr().err == f"fabricviz: error: {prices}:1: lists and objects nested deeper than 64\n"
    # the refusal of a part the design does not have names the file, not "prices:"
    prices.write_text('{"NOPE\\u202e": 1}')
    assert main(["bom", str(design), "--prices", str(prices)]) == 2
    assert capsys.readouterr().err == (
        f"fabricviz: error: {prices}: NOPE\\u202e: not a part of the design's catalog\n")


def test_cli_parts_file_one_line(tmp_path, capsys, monkeypatch):
    design, parts = tmp_path / "d.json", tmp_path / "parts.json"
    save_fabric(k_ary_fat_tree(4), design)
    parts.write_bytes((PARTS % (GPU % ("1" * 4301))).encode())
    monkeypatch.setenv("FABRICVIZ_PARTS", str(parts))
    assert main(["bom", str(design)]) == 2
    assert capsys.readouterr().err == (
        f"fabricviz: error: {design}: {parts}:1: not valid JSON: an integer of 4301 digits\n")
