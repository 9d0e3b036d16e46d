"""Native JSON: round trips on every generator, determinism, atomic saves, error messages."""

import json
import os

import pytest

from fabricviz.formats.native import FileFormatError, dumps, load_fabric, loads, save_fabric
from fabricviz.generate import fat_tree, k_ary_fat_tree, leaf_spine, rail_optimized
from fabricviz.model import Fabric, FabricError

GENERATED = {
    "k4": lambda: k_ary_fat_tree(4),
    "k8": lambda: k_ary_fat_tree(8),
    "ft2-blocking-parallel": lambda: fat_tree(levels=2, radix=36, hosts=60, blocking="2:1", parallel=2),
    "ft2-dgx": lambda: fat_tree(levels=2, radix=64, hosts=128, servers="dgx"),
    "ft3-roce": lambda: fat_tree(levels=3, radix=8, fabric="roce"),
    "leaf-spine": lambda: leaf_spine(6, 3, 12, uplinks=6),
    "leaf-spine-super": lambda: leaf_spine(4, 2, 8, uplinks=4, super_spines=4, pods=2),
    "leaf-spine-ib-dgx": lambda: leaf_spine(4, 4, 16, fabric="ib", servers="dgx"),
    "rail": lambda: rail_optimized(units=2),
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_round_trip_every_generator(name, tmp_path):
    f = GENERATED[name]()
    path = tmp_path / f"{name}.fabric.json"
    save_fabric(f, path)
    g = load_fabric(path)
    assert g == f
    assert g.counts() == f.counts()
    # deterministic: saving the loaded design gives the same bytes
    assert dumps(g) == path.read_text()


def test_hand_edits_survive(tmp_path):
    f = Fabric(name="lab")
    f.meta["note"] = "bench"
    f.add_device("ib_switch", "QM9700", name="sw1", x=1.5, y=-2.25)
    f.add_device("ib_switch", "QM8700", name="sw2", guid=0x0002C90300001234)
    f.add_device("server", "DGX-H100", name="dgx1", x=100)
    f.add_device("nic", "CX7-1P", name="roce-nic", mode="400GbE")
    f.add_device("eth_switch", "SN5600", name="eth1")
    f.rename(f.find("dgx1/gpu3"), "special-gpu")
    f.set_port_rate(f.port_id("sw1:7"), "2xNDR")
    f.set_port_state(f.port_id("sw1:8"), "disabled")
    f.add_cable("sw1:7", "sw2:1", 2.5)
    f.add_cable("dgx1/mlx5_0:1", "sw1:1", 30.0)
    f.add_cable("roce-nic:1", "eth1:3", 1.0)
    f.bind(f.find("dgx1/gpu0"), f.find("dgx1/mlx5_5"))
    g = loads(dumps(f))
    assert g == f
    assert g.device("sw2").guid == 0x0002C90300001234
    assert str(g.port("sw1:7").rate) == "2xNDR" and g.port("sw1:8").state == "disabled"
    assert str(g.cable(0).rate) == "2xHDR"
    assert g.device("special-gpu").parent.name == "dgx1"
    assert g.device("dgx1/gpu0").nic.name == "dgx1/mlx5_5"
    assert str(g.port("roce-nic:1").rate) == "400GbE"
    assert g.meta == {"note": "bench"}


def test_user_parts_saved_with_design():
    f = k_ary_fat_tree(4)                      # radix 4: a derived 4-port QM9700 model
    data = json.loads(dumps(f))
    assert [p["id"] for p in data["parts"]] == ["QM9700-R4"]
    assert data["parts"][0]["ports"] == 4
    g = loads(dumps(f))
    assert g.device("leaf01").part.ports == 4 and g.device("leaf01").part_id == "QM9700-R4"


def test_one_record_per_line():
    text = dumps(k_ary_fat_tree(4))
    lines = text.splitlines()
    f = k_ary_fat_tree(4)
    c = f.counts()
    assert sum(1 for ln in lines if ln.lstrip().startswith('{"name"') or '"parent"' in ln) == len(f)
    assert sum(1 for ln in lines if ln.lstrip().startswith('{"a"')) == c["cables"]


def test_atomic_save_keeps_old_file_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "d.fabric.json"
    save_fabric(k_ary_fat_tree(4), path)
    before = path.read_bytes()

    def boom(*a, **k):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(FabricError, match="cannot save: No space left on device"):
        save_fabric(fat_tree(levels=2, radix=8), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["d.fabric.json"]   # no temp file left


def test_save_into_missing_folder_says_so(tmp_path):
    with pytest.raises(FabricError, match="cannot save"):
        save_fabric(k_ary_fat_tree(4), tmp_path / "nope" / "x.json")


def _corrupt(tmp_path, mutate):
    data = json.loads(dumps(fat_tree(levels=2, radix=4)))
    mutate(data)
    p = tmp_path / "bad.fabric.json"
    p.write_text(json.dumps(data))
    with pytest.raises(FileFormatError) as e:
        load_fabric(p)
    return str(e.value).replace(str(p), "FILE")


@pytest.mark.parametrize("mutate,expected", [
    (lambda d: d.update(format="other"), 'FILE: format: expected "fabricviz", got "other"'),
    (lambda d: d.update(version=99), "FILE: version: file version 99 is newer than this fabricviz "
                                     "understands (1); upgrade fabricviz"),
    (lambda d: d.update(extra=1), "FILE: extra: unknown field"),
    (lambda d: d["devices"][0].pop("name"), "FILE: devices[0].name: missing"),
    (lambda d: d["devices"][0].update(kind="router"), "FILE: devices[0].kind: unknown kind 'router' "
                                                       "(use server, gpu, nic, ib_switch, eth_switch)"),
    (lambda d: d["devices"][0].update(part="NOPE"), "FILE: devices[0].part: unknown part 'NOPE'"),
    (lambda d: d["devices"][0].update(x="left"), 'FILE: devices[0].x: expected a number, got "left"'),
    (lambda d: d["devices"][1].update(guid="0xzz"), None),
    (lambda d: d["devices"][3].update(name="node01"), "FILE: devices[3].name: name 'node01' is used twice"),
    (lambda d: d["cables"][0].update(a="ghost:1"), "FILE: cables[0].a: no device named 'ghost'"),
    (lambda d: d["cables"][1].update(a=d["cables"][0]["a"]), None),
    (lambda d: d["cables"][0].update(length_m=9.0, part="NDR-DAC"), None),
    (lambda d: d["cables"][0].update(type="copper"), "FILE: cables[0].type: unknown cable type 'copper' "
                                                     "(use dac, aoc, transceiver)"),
    (lambda d: d["ports"].append({"port": "leaf1:1", "rate": "400GbE"}), None),
])
def test_corrupted_files_name_the_field(tmp_path, mutate, expected):
    msg = _corrupt(tmp_path, mutate)
    assert "\n" not in msg and msg.startswith("FILE: ")
    if expected is not None:
        assert msg == expected


def test_specific_cable_errors(tmp_path):
    msg = _corrupt(tmp_path, lambda d: d["cables"][1].update(a=d["cables"][0]["a"]))
    assert msg.startswith("FILE: cables[1]: ") and "is already cabled to" in msg
    msg = _corrupt(tmp_path, lambda d: d["cables"][0].update(length_m=9.0, part="NDR-DAC"))
    assert msg.startswith("FILE: cables[0]: ") and "too long" in msg
    msg = _corrupt(tmp_path, lambda d: d["devices"][1].update(guid="0xzz"))
    assert msg.startswith("FILE: devices[1].guid: ")


def test_not_json_names_line(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{\n  "format": "fabricviz",\n  oops\n}\n')
    with pytest.raises(FileFormatError) as e:
        load_fabric(p)
    assert str(e.value).startswith(f"{p}:3: not valid JSON")


def test_saved_file_keeps_permissions(tmp_path):
    path = tmp_path / "p.fabric.json"
    save_fabric(k_ary_fat_tree(4), path)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
    os.chmod(path, 0o640)
    save_fabric(k_ary_fat_tree(4), path)
    assert path.stat().st_mode & 0o777 == 0o640


# ---------------------------------------------------------------------------- GUIDs checked once
REGRESS = os.path.join(os.path.dirname(__file__), "..", "data", "regress")
CROSSED = os.path.join(REGRESS, "crossed_port_guids.net")
#: every writer that carries GUIDs and reads back into the same design
GUID_WRITERS = {"native": ".fabric.json", "netjson": ".netjson", "graphml": ".graphml", "gml": ".gml",
                "dot": ".dot", "clab": ".clab.yml"}


def _guids(f: Fabric) -> list[tuple[int, tuple[int, ...]]]:
    return sorted((d.guid, tuple(int(f.ports_t.guid[p]) for p in d.port_ids.tolist())) for d in f.devices())


@pytest.mark.parametrize("fmt", sorted(GUID_WRITERS))
def test_two_devices_whose_port_guids_cross_save_and_load_back(tmp_path, fmt):
    """An ibnetdiscover file where CA A's port has the GUID derived from CA B's node GUID and
    the other way round: once imported it must save and load back the same (it used to fail
    ``ports[9]: GUID 0x005442b100004901 is already used by ...``)."""
    from fabricviz.loaders import load_any, save_as
    f = load_any(CROSSED)
    a = f.device("MT23108 InfiniHost Mellanox Technologies 0x0008f10403961354")
    b = f.device("MT23108 InfiniHost Mellanox Technologies 0x005442b100004900")
    assert int(f.ports_t.guid[a.port_ids[0]]) == b.guid + 1 and int(f.ports_t.guid[b.port_ids[0]]) == 0x8f10403961355
    path = tmp_path / f"x{GUID_WRITERS[fmt]}"
    save_as(f, path, fmt)
    g = load_any(path)
    assert g.signature() == f.signature()
    if fmt == "native":
        assert dumps(g) == path.read_text()


def test_crossed_port_guids_survive_the_ibnetdiscover_writer(tmp_path):
    from fabricviz.loaders import load_any, save_as
    f = load_any(CROSSED)
    save_as(f, tmp_path / "x.ibnetdiscover", "ibnetdiscover")
    assert _guids(load_any(tmp_path / "x.ibnetdiscover")) == _guids(f)


def _two_cas(extra_ports: list[dict]) -> str:
    devs = [{"name": f"ca{i}", "kind": "nic", "part": "CX7-1P", "tier": 0, "x": 0, "y": 0,
             "guid": g} for i, g in enumerate(("0xb83fd20300000100", "0xb83fd20300000200"))]
    return json.dumps({"format": "fabricviz", "version": 1, "name": "t", "devices": devs,
                       "ports": extra_ports})


def test_port_guids_given_as_a_swap_load():
    f = loads(_two_cas([{"port": "ca0:1", "guid": "0xb83fd20300000201"},
                        {"port": "ca1:1", "guid": "0xb83fd20300000101"}]))
    assert int(f.ports_t.guid[f.port_id("ca0:1")]) == 0xb83fd20300000201
    assert loads(dumps(f)).signature() == f.signature()


@pytest.mark.parametrize("ports, expected", [
    ([{"port": "ca0:1", "guid": "0xb83fd20300000201"}],
     "t.json: ports[0].guid: GUID 0xb83fd20300000201 is already used by ca1"),
    ([{"port": "ca1:1", "guid": "0x0000000000000005"}, {"port": "ca0:1", "guid": "0xb83fd20300000200"}],
     "t.json: ports[1].guid: GUID 0xb83fd20300000200 is already used by ca1"),
])
def test_a_port_guid_used_by_another_device_names_its_record(ports, expected):
    with pytest.raises(FileFormatError) as exc:
        loads(_two_cas(ports), "t.json")
    assert str(exc.value) == expected


def test_two_devices_with_one_node_guid_name_the_second_record():
    text = _two_cas([]).replace("0xb83fd20300000200", "0xb83fd20300000100")
    with pytest.raises(FileFormatError) as exc:
        loads(text, "t.json")
    assert str(exc.value) == "t.json: devices[1].guid: GUID 0xb83fd20300000100 is used twice"
