"""The parts catalog: bundled data, validation, user parts file, defaults for generators."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fabricviz.model import catalog as catalog_mod
from fabricviz.model.catalog import CABLE_TYPES, PART_KINDS, Catalog, Part
from fabricviz.model.errors import CatalogError
from fabricviz.model.tech import ETH, IB, LinkRate
from fabricviz.resources import asset_path

ASSETS = asset_path("catalog")
BUNDLED_FILES = ("cables.json", "gpus.json", "nics.json", "servers.json", "switches.json")


@pytest.fixture(autouse=True)
def no_user_file(tmp_path, monkeypatch):
    """Never read the developer's own ~/.config parts file."""
    monkeypatch.setenv("FABRICVIZ_PARTS", str(tmp_path / "absent-parts.json"))


@pytest.fixture
def cat() -> Catalog:
    return Catalog.default()


def write_parts(path: Path, parts: list, **doc) -> Path:
    body = {"format": "fabricviz-catalog", "version": 1, "parts": parts}
    body.update(doc)
    path.write_text(json.dumps(body, indent=2), encoding="utf-8")
    return path


SWITCH = {"id": "SW1", "kind": "ib_switch", "name": "test switch", "ports": 8, "port": "4xNDR"}
NIC = {"id": "NIC1", "kind": "nic", "name": "test nic", "ports": 1, "port": "4xNDR",
       "port_modes": ["4xNDR", "400GbE"]}
GPU = {"id": "GPU1", "kind": "gpu", "name": "test gpu", "memory_gb": 80, "pcie_gbps": 440}
SERVER = {"id": "SRV1", "kind": "server", "name": "test server", "gpus": 2, "gpu_part": "H100-SXM5",
          "nics": 2, "nic_part": "CX7-1P"}
CABLE = {"id": "CAB1", "kind": "cable", "name": "test cable", "cable_type": "dac", "tech": "ib",
         "max_rate": "4xNDR", "reach_m": 3, "lengths_m": [1, 2, 3]}


# ---------------------------------------------------------------- bundled data
def test_bundled_files_are_pretty_sorted_catalog_documents():
    for name in BUNDLED_FILES:
        text = (ASSETS / name).read_text(encoding="utf-8")
        doc = json.loads(text)
        assert doc["format"] == "fabricviz-catalog" and doc["version"] == 1
        assert text == json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        for d in doc["parts"]:
            for key in ("id", "kind", "name", "vendor", "power_w", "price_usd", "price_estimate", "source"):
                assert key in d, f"{name}: {d.get('id')} lacks {key}"


def test_bundled_catalog_loads_every_kind(cat):
    assert len(cat) == 80
    assert {p.kind for p in cat} == set(PART_KINDS)
    assert not cat.user_parts()
    assert Catalog.default() is cat  # cached


@pytest.mark.parametrize("pid, kind, ports, rate, gbps, asic, units, power", [
    ("QM9700", "ib_switch", 64, "4xNDR", 400, "Quantum-2", 1, 747),
    ("QM8700", "ib_switch", 40, "4xHDR", 200, "Quantum", 1, 253),
    ("Q3400", "ib_switch", 144, "4xXDR", 800, "Quantum-X800", 4, 2500),
    ("SB7800", "ib_switch", 36, "4xEDR", 100, "Switch-IB 2", 1, 136),
    ("SN5600", "eth_switch", 64, "800GbE", 800, "Spectrum-4", 2, 940),
    ("SN5400", "eth_switch", 64, "400GbE", 400, "Spectrum-4", 2, 750),
    ("SN4700", "eth_switch", 32, "400GbE", 400, "Spectrum-3", 1, 630),
])
def test_required_switches(cat, pid, kind, ports, rate, gbps, asic, units, power):
    p = cat.get(pid)
    assert (p.kind, p.ports, p.port, p.asic, p.rack_units, p.power_w) == (kind, ports, rate, asic, units, power)
    assert p.rate == LinkRate.parse(rate) and p.rate.gbps == gbps
    assert p.modes == (p.rate,)
    assert p.latency_estimate and p.latency_ns > 0 and p.price_estimate


def test_switch_latency_defaults_follow_the_reference(cat):
    assert [cat.get(i).latency_ns for i in ("SB7800", "QM8700", "QM9700", "Q3400")] == [90, 130, 200, 200]


@pytest.mark.parametrize("pid, ports, modes, pcie, power", [
    ("CX6-HDR", 1, ("4xHDR", "200GbE"), "Gen4 x16", 16),
    ("CX7-1P", 1, ("4xNDR", "400GbE"), "Gen5 x16", 24.9),
    ("CX7-2P", 2, ("200GbE", "2xNDR"), "Gen5 x16", 25),
    ("CX8", 1, ("4xXDR", "400GbE"), "Gen6 x16", 40),
    ("BF3-B3220", 2, ("200GbE", "2xNDR"), "Gen5 x16", 90),
])
def test_required_nics(cat, pid, ports, modes, pcie, power):
    p = cat.get(pid)
    assert (p.kind, p.ports, p.port_modes, p.pcie, p.power_w) == ("nic", ports, modes, pcie, power)
    assert p.port == modes[0] and p.rate == LinkRate.parse(modes[0])
    assert [m.tech for m in p.modes] == [LinkRate.parse(m).tech for m in modes]
    assert 300 <= p.latency_ns <= 600 and p.latency_estimate


def test_nic_rates_in_gbps(cat):
    assert [m.gbps for m in cat.get("CX7-1P").modes] == [400, 400]
    assert [m.gbps for m in cat.get("CX7-2P").modes] == [200, 200]
    assert cat.get("CX8").rate.gbps == 800


@pytest.mark.parametrize("pid, memory, power, pcie, nvlink", [
    ("H100-SXM5", 80, 700, "Gen5 x16", 3600),
    ("H200-SXM", 141, 700, "Gen5 x16", 3600),
    ("B200", 180, 1000, "Gen5 x16", 7200),
    ("A100-SXM4-80GB", 80, 400, "Gen4 x16", 2400),
])
def test_required_gpus(cat, pid, memory, power, pcie, nvlink):
    p = cat.get(pid)
    assert (p.kind, p.memory_gb, p.power_w, p.pcie, p.nvlink_gbps) == ("gpu", memory, power, pcie, nvlink)
    assert p.pcie_gbps > 0 and p.pcie_latency_ns > 0 and p.latency_estimate
    assert p.rate is None and p.modes == ()


@pytest.mark.parametrize("pid, gpus, gpu, nics, nic", [
    ("DGX-H100", 8, "H100-SXM5", 8, "CX7-1P"),
    ("DGX-H200", 8, "H200-SXM", 8, "CX7-1P"),
    ("DGX-B200", 8, "B200", 8, "CX7-1P"),
    ("DGX-A100", 8, "A100-SXM4-80GB", 8, "CX6-HDR"),
    ("NODE-1G-HDR", 1, "A100-SXM4-80GB", 1, "CX6-HDR"),
    ("NODE-1G-NDR", 1, "H100-SXM5", 1, "CX7-1P"),
    ("NODE-1G-XDR", 1, "B200", 1, "CX8"),
])
def test_required_servers(cat, pid, gpus, gpu, nics, nic):
    p = cat.get(pid)
    assert (p.kind, p.gpus, p.gpu_part, p.nics, p.nic_part) == ("server", gpus, gpu, nics, nic)
    assert cat.get(p.gpu_part).kind == "gpu" and cat.get(p.nic_part).kind == "nic"


def test_cables_cover_every_generation(cat):
    by_rate: dict[str, set[str]] = {}
    for c in cat.by_kind("cable"):
        by_rate.setdefault(c.max_rate, set()).add(c.cable_type)
        assert c.cable_type in CABLE_TYPES and c.tech == c.rate.tech
        assert c.lengths_m and max(c.lengths_m) <= c.reach_m
        if c.cable_type == "dac" and c.power_w < 1:      # passive copper
            assert c.latency_ns == 0 and not c.latency_estimate
        else:
            assert c.latency_ns > 0 and c.latency_estimate and c.power_w > 0
    assert by_rate["4xEDR"] == by_rate["4xHDR"] == by_rate["400GbE"] == {"dac", "aoc", "transceiver"}
    # NVIDIA offers no NDR or 800G AOC and no XDR passive DAC/AOC: copper and optics only
    assert by_rate["4xNDR"] == by_rate["4xXDR"] == by_rate["800GbE"] == {"dac", "transceiver"}


def test_cable_reaches(cat):
    reach = {c.id: c.reach_m for c in cat.by_kind("cable")}
    assert (reach["EDR-DAC"], reach["HDR-DAC"], reach["NDR-DAC"], reach["800G-DAC"]) == (5, 2, 3, 2)
    assert (reach["NDR-ACC"], reach["XDR-ACC"], reach["HDR-AOC"]) == (5, 3, 100)
    assert (reach["NDR-SR4"], reach["NDR-DR4"], reach["XDR-DR4"], reach["HDR-FR4"]) == (50, 500, 500, 2000)


def test_every_estimate_is_explained(cat):
    for p in cat:
        assert p.price_estimate, p.id                     # no bundled price is a public list price
        if p.latency_estimate:
            assert p.notes, p.id
        assert p.source and p.vendor, p.id


BUNDLED_IDS = [d["id"] for name in BUNDLED_FILES
               for d in json.loads((ASSETS / name).read_text(encoding="utf-8"))["parts"]]


@pytest.mark.parametrize("pid", BUNDLED_IDS)
def test_round_trip_of_every_bundled_part(cat, pid):
    p = cat.get(pid)
    d = p.to_dict()
    assert Part.from_dict(d, "x") == p
    assert Part.from_dict(json.loads(json.dumps(d)), "x") == p
    assert list(d)[:3] == ["id", "kind", "name"]


def test_to_dict_writes_only_non_default_fields(cat):
    assert "ports" not in cat.get("H100-SXM5").to_dict()
    assert "port_modes" not in Part.from_dict(SWITCH, "x").to_dict()
    nic = Part.from_dict({**NIC, "port_modes": ["4xNDR"]}, "x")
    assert nic.port_modes == ("4xNDR",) and "port_modes" not in nic.to_dict()
    assert "price_estimate" not in Part.from_dict(SWITCH, "x").to_dict()    # default True
    assert Part.from_dict({**SWITCH, "price_estimate": False}, "x").to_dict()["price_estimate"] is False


def test_rates_are_normalised():
    assert Part.from_dict({**SWITCH, "port": "NDR"}, "x").port == "4xNDR"
    assert Part.from_dict({**SWITCH, "port": "HDR100"}, "x").port == "2xHDR"
    eth = Part.from_dict({**SWITCH, "kind": "eth_switch", "port": "400G"}, "x")
    assert eth.port == "400GbE" and eth.rate == LinkRate(ETH, "400", 1)
    no_port = Part.from_dict({k: v for k, v in NIC.items() if k != "port"}, "x")
    assert no_port.port == "4xNDR" and no_port.port_modes == ("4xNDR", "400GbE")


def test_part_is_frozen(cat):
    with pytest.raises(dataclasses.FrozenInstanceError):
        cat.get("QM9700").ports = 1


def test_lookups(cat):
    assert "QM9700" in cat and cat.get("QM9700") in cat and "NOPE" not in cat and 5 not in cat
    with pytest.raises(CatalogError, match=r"^unknown part 'NOPE'$"):
        cat.get("NOPE")
    order = [(PART_KINDS.index(p.kind), p.id) for p in cat]
    assert order == sorted(order)
    assert [p.id for p in cat.by_kind("ib_switch")] == ["Q3400", "Q3450", "QM8700", "QM9700", "SB7800"]
    with pytest.raises(CatalogError, match="unknown part kind 'router'"):
        cat.by_kind("router")


# ---------------------------------------------------------------- validation
REFUSALS = [
    ("kind", {**SWITCH, "kind": "router"}, "unknown kind 'router'"),
    ("id", {k: v for k, v in SWITCH.items() if k != "id"}, "missing or invalid id"),
    ("id", {**SWITCH, "id": "has space"}, "invalid id 'has space'"),
    ("name", {**SWITCH, "name": " "}, "missing"),
    ("ports", {**SWITCH, "ports": 0}, "must be a positive integer, got 0"),
    ("ports", {**SWITCH, "ports": "64"}, "must be a positive integer, got '64'"),
    ("ports", {**SWITCH, "ports": True}, "must be a positive integer, got True"),
    ("ports", {k: v for k, v in SWITCH.items() if k != "ports"}, "missing (required for a ib_switch part)"),
    ("port", {**SWITCH, "port": "4xQQR"}, "unknown link rate '4xQQR'"),
    ("port", {**SWITCH, "port": 400}, "must be a link rate"),
    ("port", {**SWITCH, "port": "400GbE"}, "400GbE is not an InfiniBand rate"),
    ("port", {**SWITCH, "kind": "eth_switch"}, "4xNDR is not an Ethernet rate"),
    ("power_w", {**SWITCH, "power_w": -5}, "must be a non-negative number, got -5"),
    ("price_usd", {**SWITCH, "price_usd": float("nan")}, "must be a non-negative number"),
    ("latency_ns", {**SWITCH, "latency_ns": "fast"}, "must be a non-negative number"),
    ("price_estimate", {**SWITCH, "price_estimate": "yes"}, "must be true or false"),
    ("colour", {**SWITCH, "colour": "green"}, "unknown field for a ib_switch part"),
    ("memory_gb", {**SWITCH, "memory_gb": 80}, "unknown field for a ib_switch part"),
    ("user", {**SWITCH, "user": True}, "unknown field"),
    ("asic", {**SWITCH, "asic": 5}, "must be text, got 5"),
    ("port_modes", {**NIC, "port_modes": ["400GbE", "4xNDR"]}, "first mode must be the default port 4xNDR"),
    ("port_modes", {**NIC, "port_modes": ["4xNDR", "4xNDR"]}, "non-empty list of distinct link rates"),
    ("port_modes", {**NIC, "port_modes": []}, "non-empty list"),
    ("port_modes[1]", {**NIC, "port_modes": ["4xNDR", "40GbX"]}, "unknown link rate '40GbX'"),
    ("port", {k: v for k, v in NIC.items() if k not in ("port", "port_modes")}, "needs port or port_modes"),
    ("pcie_gbps", {k: v for k, v in GPU.items() if k != "pcie_gbps"}, "missing (required for a gpu part)"),
    ("gpus", {**SERVER, "gpus": -1}, "must be a non-negative integer"),
    ("nics", {**SERVER, "nics": 0}, "must be a positive integer"),
    ("gpu_part", {k: v for k, v in SERVER.items() if k != "gpu_part"}, "a server with GPUs needs a gpu part"),
    ("nic_part", {**SERVER, "nic_part": ""}, "non-empty string"),
    ("cable_type", {**CABLE, "cable_type": "fibre"}, "unknown cable type 'fibre'"),
    ("tech", {**CABLE, "tech": "fc"}, "unknown tech 'fc'"),
    ("max_rate", {**CABLE, "max_rate": "400GbE"}, "400GbE does not match tech 'ib'"),
    ("reach_m", {**CABLE, "reach_m": 0}, "must be a positive number"),
    ("reach_m", {k: v for k, v in CABLE.items() if k != "reach_m"}, "missing (required for a cable part)"),
    ("lengths_m", {**CABLE, "lengths_m": [1, 5]}, "5 m is beyond reach_m 3 m"),
    ("lengths_m", {**CABLE, "lengths_m": [1, -2]}, "a list of positive lengths"),
    ("lengths_m", {**CABLE, "lengths_m": 3}, "a list of positive lengths"),
]


@pytest.mark.parametrize("field, d, fragment", REFUSALS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSALS)])
def test_from_dict_refuses(field, d, fragment):
    with pytest.raises(CatalogError) as e:
        Part.from_dict(d, "parts[3]")
    msg = str(e.value)
    assert msg.startswith(f"parts[3].{field}: "), msg
    assert fragment in msg, msg


def test_from_dict_refuses_a_non_object():
    with pytest.raises(CatalogError, match=r"^parts\[0\]: a part must be an object, got list$"):
        Part.from_dict([], "parts[0]")


def test_valid_minimal_parts_of_every_kind():
    for d in (SWITCH, NIC, GPU, SERVER, CABLE):
        p = Part.from_dict(d, "x")
        assert (p.id, p.kind, p.user, p.price_estimate) == (d["id"], d["kind"], False, True)
    assert Part.from_dict(CABLE, "x").lengths_m == (1, 2, 3)
    cpu_only = {k: v for k, v in SERVER.items() if k != "gpu_part"}
    assert Part.from_dict({**cpu_only, "gpus": 0}, "x").gpu_part is None


def test_catalog_refuses_duplicates_and_bad_references(cat):
    a = Part.from_dict(SWITCH, "x")
    with pytest.raises(CatalogError, match="duplicate part id 'SW1'"):
        Catalog([a, a])
    orphan = Part.from_dict({**SERVER, "gpu_part": "H900"}, "x")
    with pytest.raises(CatalogError, match=r"^SRV1\.gpu_part: 'H900' is not a gpu part in the catalog$"):
        cat.with_parts([orphan])
    crossed = Part.from_dict({**SERVER, "nic_part": "H100-SXM5"}, "x")
    with pytest.raises(CatalogError, match=r"^SRV1\.nic_part: 'H100-SXM5' is not a nic part"):
        cat.with_parts([crossed])
    with pytest.raises(CatalogError, match="duplicate part id 'SW1'"):
        cat.with_parts([a, a])


# ---------------------------------------------------------------- files
def test_load_file_errors_name_file_and_field(tmp_path):
    f = write_parts(tmp_path / "p.json", [SWITCH, NIC, GPU, {**SWITCH, "id": "SW2", "ports": -1}])
    with pytest.raises(CatalogError) as e:
        Catalog.load_file(f)
    assert str(e.value) == f"{f}: parts[3].ports: must be a positive integer, got -1"


@pytest.mark.parametrize("text, fragment", [
    ("{not json", "not valid JSON"),
    ('{"format": "other", "version": 1, "parts": []}', "format: not a fabricviz-catalog file"),
    ('{"format": "fabricviz-catalog", "version": 2, "parts": []}', "version: unsupported version 2"),
    ('{"format": "fabricviz-catalog", "version": 1, "parts": {}}', "parts: must be a list"),
])
def test_load_file_refuses_bad_documents(tmp_path, text, fragment):
    f = tmp_path / "p.json"
    f.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogError, match=fragment) as e:
        Catalog.load_file(f)
    assert str(e.value).startswith((f"{f}: ", f"{f}:1: "))


def test_load_file_refuses_duplicate_ids_and_missing_files(tmp_path):
    f = write_parts(tmp_path / "p.json", [SWITCH, NIC, SWITCH])
    with pytest.raises(CatalogError, match=r"p\.json: parts\[2\]\.id: duplicate id 'SW1' \(also parts\[0\]\)"):
        Catalog.load_file(f)
    with pytest.raises(CatalogError, match=r"nope\.json: no such file"):
        Catalog.load_file(tmp_path / "nope.json")


def test_user_parts_file_from_env(tmp_path, monkeypatch):
    base = Catalog.default()
    f = write_parts(tmp_path / "mine.json", [SWITCH, SERVER, {**base.get("QM9700").to_dict(), "price_usd": 1}])
    monkeypatch.setenv("FABRICVIZ_PARTS", str(f))
    assert Catalog.user_parts_path() == f
    cat = Catalog.default()
    assert [p.id for p in cat.user_parts()] == ["QM9700", "SW1", "SRV1"]
    assert cat.get("QM9700").price_usd == 1 and cat.get("QM9700").user
    assert cat.get("SRV1").nic_part == "CX7-1P"                  # user server on bundled parts
    assert len(cat) == len(base) + 2 and not cat.get("QM8700").user
    assert base.get("QM9700").price_usd == 35000                  # the bundled catalog is untouched
    assert Catalog.default() is cat
    write_parts(f, [SWITCH])                                      # edited file: reloaded
    assert [p.id for p in Catalog.default().user_parts()] == ["SW1"]


def test_bad_user_parts_file_names_file_and_field(tmp_path, monkeypatch):
    f = write_parts(tmp_path / "mine.json", [SWITCH, {**NIC, "port": "4xWDR"}])
    monkeypatch.setenv("FABRICVIZ_PARTS", str(f))
    with pytest.raises(CatalogError) as e:
        Catalog.default()
    assert str(e.value).startswith(f"{f}: parts[1].port: unknown link rate '4xWDR'")
    write_parts(f, [{**SERVER, "gpu_part": "H900"}])
    with pytest.raises(CatalogError, match=r"mine\.json: SRV1\.gpu_part: 'H900' is not a gpu part"):
        Catalog.default()


def test_user_parts_file_in_home_config(tmp_path, monkeypatch):
    monkeypatch.delenv("FABRICVIZ_PARTS")
    monkeypatch.setenv("HOME", str(tmp_path))
    path = tmp_path / ".config" / "fabricviz" / "parts.json"
    assert Catalog.user_parts_path() == path
    assert not Catalog.default().user_parts()                     # absent file: bundled only
    path.parent.mkdir(parents=True)
    write_parts(path, [GPU])
    assert [p.id for p in Catalog.default().user_parts()] == ["GPU1"]


def test_with_parts_never_mutates_the_default(cat):
    cheap = Part.from_dict({**cat.get("QM9700").to_dict(), "price_usd": 10}, "x")
    mine = cat.with_parts([cheap, Part.from_dict(SWITCH, "x")])
    assert mine is not cat and mine.get("QM9700").price_usd == 10 and mine.get("QM9700").user
    assert [p.id for p in mine.user_parts()] == ["QM9700", "SW1"]
    assert cat.get("QM9700").price_usd == 35000 and not cat.get("QM9700").user
    assert "SW1" not in cat and not cat.user_parts() and Catalog.default() is cat


def test_save_user_parts_round_trip(tmp_path, cat):
    parts = [Part.from_dict(d, "x") for d in (CABLE, SWITCH, SERVER, NIC)]
    path = tmp_path / "new" / "dir" / "parts.json"
    Catalog.save_user_parts(path, parts)
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text)
    assert text == json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert [d["id"] for d in doc["parts"]] == ["SW1", "NIC1", "SRV1", "CAB1"]
    assert [p.to_dict() for p in Catalog.load_file(path)] == [p.to_dict() for p in
                                                               sorted(parts, key=catalog_mod._sort_key)]
    assert os.listdir(path.parent) == ["parts.json"]             # no temp file left behind


def test_save_user_parts_is_atomic(tmp_path, monkeypatch):
    path = write_parts(tmp_path / "parts.json", [SWITCH])
    before = path.read_text(encoding="utf-8")

    def broken_replace(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(catalog_mod.os, "replace", broken_replace)
    with pytest.raises(CatalogError, match=r"parts\.json: cannot save: disk full$"):
        Catalog.save_user_parts(path, [Part.from_dict(GPU, "x")])
    assert path.read_text(encoding="utf-8") == before
    assert os.listdir(tmp_path) == ["parts.json"]


# ---------------------------------------------------------------- defaults for generators
@pytest.mark.parametrize("rate, length, pid, ctype", [
    ("4xNDR", 1, "NDR-DAC", "dac"),
    ("4xNDR", 3, "NDR-DAC", "dac"),
    ("4xNDR", 4, "NDR-ACC", "dac"),          # active copper beyond passive reach
    ("4xNDR", 10, "NDR-SR4", "transceiver"),
    ("4xNDR", 100, "NDR-DR4", "transceiver"),
    ("2xNDR", 1, "NDR-DAC", "dac"),
    ("4xHDR", 1, "HDR-DAC", "dac"),
    ("4xHDR", 2.5, "HDR-AOC", "aoc"),        # same generation before a faster-rated cable
    ("HDR100", 30, "HDR-AOC", "aoc"),
    ("4xHDR", 150, "HDR-FR4", "transceiver"),
    ("4xEDR", 5, "EDR-DAC", "dac"),
    ("4xEDR", 20, "EDR-AOC", "aoc"),
    ("4xXDR", 1, "XDR-ACC-NIC", "dac"),
    ("4xXDR", 2.5, "XDR-ACC", "dac"),
    ("4xXDR", 10, "XDR-DR4", "transceiver"),
    ("400GbE", 2, "400G-DAC", "dac"),
    ("400GbE", 50, "400G-AOC", "aoc"),
    ("400GbE", 300, "400G-DR4", "transceiver"),
    ("800GbE", 1, "800G-DAC", "dac"),
    ("800GbE", 30, "800G-SR8", "transceiver"),
    ("800GbE", 400, "800G-DR8", "transceiver"),
])
def test_cable_for(cat, rate, length, pid, ctype):
    c = cat.cable_for(LinkRate.parse(rate), length)
    assert (c.id, c.cable_type) == (pid, ctype)
    assert c.tech == LinkRate.parse(rate).tech and c.reach_m >= length


def test_cable_for_refuses(cat):
    longest = r"^no InfiniBand cable for 4xNDR reaches 600 m \(longest: NDR-DR4, 500 m\)$"
    with pytest.raises(CatalogError, match=longest):
        cat.cable_for("4xNDR", 600)
    with pytest.raises(CatalogError, match=r"no Ethernet cable for 800GbE reaches 501 m \(longest: 800G-DR8"):
        cat.cable_for("800GbE", 501)
    with pytest.raises(CatalogError, match="no cable in the catalog is rated for 1600GbE"):
        cat.cable_for("1600GbE", 1)
    with pytest.raises(CatalogError, match="non-negative number of metres"):
        cat.cable_for("4xNDR", -1)


def test_default_switch(cat):
    assert cat.default_switch(IB, "4xNDR").id == "QM9700"
    assert cat.default_switch(IB, LinkRate.parse("4xHDR")).id == "QM8700"
    assert cat.default_switch(IB, "4xXDR").id == "Q3400"
    assert cat.default_switch(IB, "4xEDR").id == "SB7800"
    assert cat.default_switch(ETH, "800GbE").id == "SN5600"
    assert cat.default_switch(ETH, "400GbE").id == "SN5400"      # 64 ports beat the SN4700's 32
    with pytest.raises(CatalogError, match="is not a 'eth' rate"):
        cat.default_switch(ETH, "4xNDR")
    with pytest.raises(CatalogError, match="no ib switch in the catalog has 2xNDR ports"):
        cat.default_switch(IB, "2xNDR")


@pytest.mark.parametrize("rate, nic, host, dgx", [
    ("4xNDR", "CX7-1P", "NODE-1G-NDR", "DGX-H100"),
    ("400GbE", "BF3-B3140H", "NODE-1G-NDR", "DGX-H100"),   # a SuperNIC whose default port is 400GbE
    ("4xHDR", "CX6-HDR", "NODE-1G-HDR", "DGX-A100"),
    ("2xNDR", "CX7-2P", "NODE-1G-NDR", "DGX-H100"),
    ("4xEDR", "CX6-HDR", "NODE-1G-HDR", "DGX-A100"),  # no EDR NIC: the closest faster one
])
def test_default_nic_host_and_dgx(cat, rate, nic, host, dgx):
    assert cat.default_nic(rate).id == nic
    h = cat.default_host(LinkRate.parse(rate))
    assert (h.id, h.gpus, h.nics) == (host, 1, 1)
    assert cat.dgx(rate).id == dgx


def test_xdr_hosts_and_gaps(cat):
    assert cat.default_nic("4xXDR").id == "CX8"
    assert cat.default_host("4xXDR").id == "NODE-1G-XDR"
    assert cat.dgx("4xNDR", gpu="B200").id == "DGX-B200"
    assert cat.dgx("4xXDR").id == "DGX-B300"                # eight ConnectX-8 at XDR
    with pytest.raises(CatalogError, match="no DGX server with H100-SXM5 in the catalog runs at 4xXDR"):
        cat.dgx("4xXDR", gpu="H100-SXM5")
    with pytest.raises(CatalogError, match="no NIC in the catalog runs at 800GbE"):
        cat.default_nic("800GbE")          # ConnectX-8 Ethernet is 2 x 400GbE, not 800GbE
    with pytest.raises(CatalogError, match="no 1-GPU node in the catalog runs at 800GbE"):
        cat.default_host("800GbE")


def test_user_parts_take_part_in_defaults(cat):
    cheap = Part.from_dict({**NIC, "id": "CX7-CHEAP", "price_usd": 1}, "x")
    assert cat.with_parts([cheap]).default_nic("4xNDR").id == "CX7-CHEAP"
    assert cat.default_nic("4xNDR").id == "CX7-1P"


def test_catalog_module_imports_no_qt():
    code = ("import sys, fabricviz.model.catalog as c; c.Catalog.default(); "
            "sys.exit(any(m.split('.')[0] in ('PySide6', 'PyQt5', 'PyQt6', 'shiboken6') for m in sys.modules))")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    assert subprocess.run([sys.executable, "-c", code], cwd=root, env=env).returncode == 0
