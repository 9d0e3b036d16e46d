"""ibnetdiscover import/export: the public samples, an NDR snippet, bad files, round trips, real OpenSM."""

import re

import pytest

from fabricviz.formats.ibnetdiscover import check_ibnetdiscover, export_ibnetdiscover, load, loads, save_ibnetdiscover
from fabricviz.formats.native import save_fabric
from fabricviz.formats.opensm_dump import read_lfts_dump
from fabricviz.generate import k_ary_fat_tree, leaf_spine
from fabricviz.loaders import detect_format, load_any
from fabricviz.model import FabricError

MT = "MT23108 InfiniHost Mellanox Technologies"


def rates(f):
    out = {}
    for c in f.cables():
        out[str(c.rate)] = out.get(str(c.rate), 0) + 1
    return out


def topology(f):
    """IB topology by GUID: {(guid a, port a, guid b, port b, rate)} plus CA port GUIDs."""
    links = set()
    for c in f.cables():
        a, b = sorted(((c.port_a.device.guid, c.port_a.num), (c.port_b.device.guid, c.port_b.num)))
        links.add((*a, *b, str(c.rate)))
    pguids = {(d.guid, p.num): p.guid for d in f.devices("nic") for p in d.ports}
    return links, pguids


# ---------------------------------------------------------------------------- samples
def test_manpage_sample(samples):
    f = load(samples / "manpage_example.ibnetdiscover")
    assert f.counts() == {"server": 0, "gpu": 0, "nic": 4, "ib_switch": 2, "eth_switch": 0, "cables": 7}
    isr, sw6 = f.device("ISR9024 Voltaire"), f.device("SW-6IB4 Voltaire")
    assert (isr.guid, sw6.guid) == (0x5442BA00003080, 0x8F10400410015)
    assert (isr.part_id, len(isr.ports), sw6.part_id, len(sw6.ports)) == ("IB-SW-24p-SDR", 24, "IB-SW-8p-SDR", 8)
    # the four CAs share one description, so each name carries its GUID
    assert sorted(d.name for d in f.devices("nic")) == sorted(
        f"{MT} 0x{g:016x}" for g in (0x8F10403960984, 0x5442B100004900, 0x8F10403961354, 0x8F10403960558))
    dual = f.device(f"{MT} 0x0008f10403960558")
    assert [(p.num, p.guid, p.peer.name) for p in dual.ports] == [
        (1, 0x8F10403960559, "ISR9024 Voltaire:12"), (2, 0x8F1040396055A, "ISR9024 Voltaire:8")]
    # 1xSDR on one end and 4xSDR on the other come up 1x, as the link negotiates
    assert rates(f) == {"4xSDR": 5, "1xSDR": 2}
    assert str(f.port("ISR9024 Voltaire:12").cable.rate) == "1xSDR"
    assert str(f.port("SW-6IB4 Voltaire:1").cable.rate) == "1xSDR"
    assert sum(1 for c in f.cables() if {c.port_a.device.name, c.port_b.device.name}
               == {"ISR9024 Voltaire", "SW-6IB4 Voltaire"}) == 2
    assert f.meta["sm_node"] == "ISR9024 Voltaire"
    assert f.meta["source"] == {"format": "ibnetdiscover", "file": "manpage_example.ibnetdiscover"}
    assert f.meta["file_lids"] == {"0x0008f10400410015:0": 3, "0x0008f10403960558:1": 10,
                                   "0x0008f10403960558:2": 14, "0x0008f10403960984:1": 16,
                                   "0x0008f10403961354:1": 4, "0x005442b100004900:1": 12,
                                   "0x005442ba00003080:0": 6}
    assert f.meta["file_lmc"] == 1
    assert [d.tier for d in f.devices()] == [1, 1, 0, 0, 0, 0]
    # laid out by the auto layout: the two leaves in one row, their hosts below them
    assert len({d.y for d in f.devices("ib_switch")}) == 1
    assert min(d.y for d in f.devices("nic")) > f.device("ISR9024 Voltaire").y


def test_lone_ca_loads_as_one_isolated_device(samples):
    f = load(samples / "one_ca_no_links.ibnetdiscover")
    # "dgx-gb200-n01-c1 HCA-1" names its host: one server holding the one adapter, no cable
    assert f.counts()["nic"] == 1 and f.counts()["server"] == 1 and f.counts()["cables"] == 0 and len(f) == 2
    d = f.device("dgx-gb200-n01-c1/mlx5_0")          # a server's NIC, named as generated ones are
    assert d.parent is not None and d.parent.name == "dgx-gb200-n01-c1"
    assert (d.guid, d.tier, d.part_id, len(d.ports)) == (0xB8E92403009CA838, 0, "IB-CA-1p-SDR", 1)
    assert f.meta["sm_node"] == "dgx-gb200-n01-c1/mlx5_0"
    assert export_ibnetdiscover(f).count('"dgx-gb200-n01-c1 HCA-1"') == 1     # its description kept
    assert "file_lids" not in f.meta


NDR = """\
vendid=0x2c9
devid=0xd2f2
sysimgguid=0x2c5eab0300b87b40
switchguid=0x2c5eab0300b87b40(2c5eab0300b87b40)
Switch\t65 "S-2c5eab0300b87b40"\t\t# "MF0;leaf01:MQM9700/U1" enhanced port 0 lid 73 lmc 0
[1]\t"H-e09d7303007a4bd8"[1](e09d7303007a4bd8) \t\t# "dgx01 mlx5_5" lid 647 4xNDR
[33]\t"S-2c5eab0300c26200"[1]\t\t# "MF0;spine01:MQM9700/U1" lid 31 4xNDR
[34]\t"S-2c5eab0300c26200"[2]\t\t# "MF0;spine01:MQM9700/U1" lid 31 
[35]\t"S-2c5eab0300c26200"[3]\t\t# "MF0;spine01:MQM9700/U1" lid 31 
[65]\t"H-2c5eab0300b87b50"[1](2c5eab0300b87b50) \t\t# "Mellanox Technologies Aggregation Node" lid 80 4xNDR

switchguid=0x2c5eab0300c26200(2c5eab0300c26200)
Switch\t65 "S-2c5eab0300c26200"\t\t# "MF0;spine01:MQM9700/U1" enhanced port 0 lid 31 lmc 0
[1]\t"S-2c5eab0300b87b40"[33]\t\t# "MF0;leaf01:MQM9700/U1" lid 73 4xNDR
[2]\t"S-2c5eab0300b87b40"[34]\t\t# "MF0;leaf01:MQM9700/U1" lid 73 4xNDR
[3]\t"S-2c5eab0300b87b40"[35]\t\t# "MF0;leaf01:MQM9700/U1" lid 73 
[65]\t"H-2c5eab0300c26210"[1](2c5eab0300c26210) \t\t# "Mellanox Technologies Aggregation Node" lid 179 4xNDR

caguid=0xe09d7303007a4bd8
Ca\t1 "H-e09d7303007a4bd8"\t\t# "dgx01 mlx5_5"
[1](e09d7303007a4bd8) \t"S-2c5eab0300b87b40"[1]\t\t# lid 647 lmc 0 "MF0;leaf01:MQM9700/U1" lid 73 4xNDR

caguid=0x2c5eab0300b87b50
Ca\t1 "H-2c5eab0300b87b50"\t\t# "Mellanox Technologies Aggregation Node"

caguid=0x2c5eab0300c26210
Ca\t1 "H-2c5eab0300c26210"\t\t# "Mellanox Technologies Aggregation Node"
[1](2c5eab0300c26210) \t"S-2c5eab0300c26200"[65]\t\t# lid 179 lmc 0 "MF0;spine01:MQM9700/U1" lid 31 4xNDR
"""


def test_ndr_snippet_switch65_and_aggregation_nodes():
    f = loads(NDR, "ndr.txt")
    leaf, spine = f.device("MF0;leaf01:MQM9700/U1"), f.device("MF0;spine01:MQM9700/U1")
    assert (leaf.part_id, len(leaf.ports), leaf.part.rate, leaf.part.user) == ("QM9700-65p", 65, spine.part.rate, True)
    assert str(leaf.part.rate) == "4xNDR" and leaf.part.price_usd == f.catalog.get("QM9700").price_usd
    ans = [d for d in f.devices("nic") if d.part_id == "SHARP-AN"]
    assert sorted(d.guid for d in ans) == [0x2C5EAB0300B87B50, 0x2C5EAB0300C26210]
    assert f.catalog.get("SHARP-AN").notes == "SHARP aggregation node inside a Quantum switch; not a compute host"
    assert {d.port(1).peer.name for d in ans} == {"MF0;leaf01:MQM9700/U1:65", "MF0;spine01:MQM9700/U1:65"}
    # port GUIDs are kept exactly (here equal to the node GUID), not recomputed
    assert [d.port(1).guid for d in sorted(ans, key=lambda d: d.guid)] == [0x2C5EAB0300B87B50, 0x2C5EAB0300C26210]
    host = f.device("dgx01/mlx5_0")
    assert (host.part_id, host.port(1).guid, host.tier) == ("CX7-1P", 0xE09D7303007A4BD8, 0)
    # lines ending without a speed: 34 takes the other end's 4xNDR; 35 has none on either end and
    # runs at the ports' native rate
    assert str(f.port("MF0;leaf01:MQM9700/U1:34").cable.rate) == "4xNDR"
    assert str(f.port("MF0;leaf01:MQM9700/U1:35").cable.rate) == "4xNDR"
    assert f.counts()["cables"] == 6
    # aggregation nodes do not make a switch a leaf: the spine stays at tier 2, its AN beside it
    assert (leaf.tier, spine.tier) == (1, 2)
    an_spine = next(d for d in ans if d.guid == 0x2C5EAB0300C26210)
    # inside its switch's frame, at the right end (97.5 wide: 65 ports × 1.5; the AN 18 wide, 3 in)
    assert an_spine.tier == 2 and (an_spine.x, an_spine.y) == (spine.x + 97.5 / 2 - 3 - 9, spine.y)
    assert f.meta["file_lids"]["0x2c5eab0300c26210:1"] == 179


def test_spaces_and_tabs_read_the_same():
    spaced = re.sub(r"[ \t]+", " ", NDR)
    a, b = loads(NDR, "a.txt"), loads(spaced, "a.txt")
    assert topology(a) == topology(b)
    assert sorted(d.name for d in a.devices()) == sorted(d.name for d in b.devices())


# ---------------------------------------------------------------------------- bad files
BAD = """\
switchguid=0x10
Switch 8 "S-0000000000000010" # "sw1"
[1] "H-0000000000000020"[1](21) # "h1" lid 2 4xSDR
[2] "ghost"[1] # "ghost" lid 3 4xSDR
[1] "H-0000000000000030"[1] # "h2" lid 4 4xSDR
[3] something else

Switch 0 "S-0000000000000040"

caguid=0x20
Ca 2 "H-0000000000000020" # "h1"
[1](21) "S-0000000000000010"[5] # lid 2 lmc 0 "sw1" lid 1 4xSDR
"""


def test_every_problem_one_line_with_its_line_number():
    assert check_ibnetdiscover(BAD, "net.txt") == [
        'net.txt:3: "S-0000000000000010"[1] -> "H-0000000000000020"[1] but line 12 says '
        '"H-0000000000000020"[1] -> "S-0000000000000010"[5]',
        'net.txt:4: link to unknown node "ghost"',
        'net.txt:5: port 1 of "S-0000000000000010" listed twice (also line 3)',
        'net.txt:6: expected [port] "node"[port], got: [3] something else',
        "net.txt:8: Switch with 0 ports (1-254)",
    ]
    with pytest.raises(FabricError, match=r'^net\.txt:3: "S-0000000000000010"\[1\] -> '):
        loads(BAD, "net.txt")


@pytest.mark.parametrize("text, message", [
    ('Switch 4 "S-01"\n[5] "S-02"[1]\n\nSwitch 4 "S-02"\n', r'f\.txt:2: port 5 of "S-01" is out of range 1-4'),
    ('Switch 4 "S-01"\n[1] "S-02"[9]\n\nSwitch 4 "S-02"\n', r'f\.txt:2: "S-02"\[9\]: no such port'),
    ('Switch 4 "S-01"\n\nSwitch 4 "S-01"\n', r'f\.txt:3: node "S-01" defined twice \(first at line 1\)'),
    ('switchguid=0x5\nSwitch 4 "S-01"\n\ncaguid=0x5\nCa 1 "H-02"\n', r"f\.txt:5: GUID 0x0000000000000005"),
    ('Switch 4 "sw-a"\n', r'f\.txt:1: no GUID for "sw-a" \(add a switchguid= line\)'),
    ('[1] "S-01"[1]\n', r"f\.txt:1: port line outside a node block"),
    ('Switch four "S-01"\n', r'f\.txt:1: expected Switch <ports> "<id>"'),
    ("just some text\n", r"f\.txt: no Switch, Ca or Hca block found"),
])
def test_bad_file_messages(text, message):
    with pytest.raises(FabricError, match=message):
        loads(text, "f.txt")


def test_bad_file_on_disk_names_the_file(tmp_path):
    # the path as given, as every other reader names its file (it used to be the base name)
    p = tmp_path / "net.txt"
    p.write_text(BAD)
    with pytest.raises(FabricError, match="^" + re.escape(f"{p}:3: ")):
        load(p)
    with pytest.raises(FabricError, match="^" + re.escape(f"{p}:3: ")):
        load_any(p)
    with pytest.raises(FabricError, match="^" + re.escape(f"{p}:3: ")):
        load_any(str(p))


# ---------------------------------------------------------------------------- export
def test_export_exact_syntax():
    f = k_ary_fat_tree(4)
    leaf = f.device("leaf01")
    nic = f.device("node01/mlx5_0")
    spine = leaf.port(3).peer.device
    nic_port = nic.port(1).id
    text = export_ibnetdiscover(f, lids={nic_port: 5}, switch_lids={leaf.id: 7})
    g = leaf.guid
    assert (f"vendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x{g:x}\nswitchguid=0x{g:x}({g:x})\n"
            f'Switch\t4 "S-{g:016x}"\t\t# "leaf01" enhanced port 0 lid 7 lmc 0\n'
            f'[1]\t"H-{nic.guid:016x}"[1]({nic.guid + 1:x}) \t\t# "node01 mlx5_0" lid 5 4xNDR\n') in text
    assert f'[3]\t"S-{spine.guid:016x}"[1]\t\t# "{spine.name}" lid 0 4xNDR\n' in text
    assert (f'caguid=0x{nic.guid:x}\nCa\t1 "H-{nic.guid:016x}"\t\t# "node01 mlx5_0"\n'
            f'[1]({nic.guid + 1:x}) \t"S-{g:016x}"[1]\t\t# lid 5 lmc 0 "leaf01" lid 7 4xNDR\n') in text
    assert text.count("\nSwitch\t") == 20 and text.count("\nCa\t") == 16
    assert max(len(line) for line in text.splitlines()) < 256  # ibsim reads 255-character lines


def test_export_only_ib_nodes():
    f = leaf_spine(4, 4, 16, fabric="ib", servers="dgx")
    text = export_ibnetdiscover(f)
    assert text.count("\nSwitch\t") == 8 and text.count("\nCa\t") == 64
    assert "gpu" not in text
    g = loads(text, "ls.txt")
    # the 8-NIC servers come back as 8 servers (their GPUs are no IB nodes: not in the file)
    assert g.counts() == {"server": 8, "gpu": 0, "nic": 64, "ib_switch": 8, "eth_switch": 0, "cables": 80}
    roce = export_ibnetdiscover(leaf_spine(2, 2, 4))
    assert "Switch" not in roce and "Ca\t" not in roce


@pytest.mark.parametrize("make", [lambda: k_ary_fat_tree(4), lambda: leaf_spine(4, 4, 16, fabric="ib")])
def test_round_trip_keeps_ib_topology(make, tmp_path):
    f = make()
    path = tmp_path / "x.topo"
    save_ibnetdiscover(f, path)
    g = load(path)
    assert topology(g) == topology(f)
    assert {d.name for d in g.devices("ib_switch")} == {d.name for d in f.devices("ib_switch")}
    assert {d.guid: d.tier for d in g.devices("ib_switch")} == {d.guid: d.tier for d in f.devices("ib_switch")}
    assert g.meta["sm_node"] == next(f.devices("ib_switch")).name


def test_round_trip_of_a_real_file_and_sm_node_first(samples):
    f = load(samples / "manpage_example.ibnetdiscover")
    f.meta["sm_node"] = "SW-6IB4 Voltaire"
    g = loads(export_ibnetdiscover(f), "again.txt")
    assert topology(g) == topology(f)
    assert sorted(d.name for d in g.devices()) == sorted(d.name for d in f.devices())
    assert g.meta["sm_node"] == "SW-6IB4 Voltaire"


def test_load_any_tells_formats_apart(samples, tmp_path):
    native = tmp_path / "k4.fabric.json"
    save_fabric(k_ary_fat_tree(4), native)
    assert detect_format(native.read_text()) == "native"
    assert load_any(native).counts()["ib_switch"] == 20
    for name, fmt in [("manpage_example.ibnetdiscover", "ibnetdiscover"),
                      ("one_ca_no_links.ibnetdiscover", "ibnetdiscover"),
                      ("ibsim_net.2sw2path4hca.net", "ibsim"), ("ibsim_net_example.net", "ibsim")]:
        assert detect_format((samples / name).read_text()) == fmt
        assert load_any(samples / name).meta["source"] == {"format": fmt, "file": name}
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n")
    with pytest.raises(FabricError, match="not a fabricviz design, ibnetdiscover output or ibsim net file"):
        load_any(junk)


def test_imported_fat_tree_gets_tiers_and_rows():
    f = loads(export_ibnetdiscover(k_ary_fat_tree(4)), "k4.txt")
    assert f.counts()["server"] == 16 and f.counts()["nic"] == 16   # each host's adapter in its server
    tiers = {}
    for d in f.devices():
        if d.parent is None:
            tiers.setdefault(d.tier, []).append(d)
    assert {k: len(v) for k, v in tiers.items()} == {0: 16, 1: 8, 2: 8, 3: 4}
    # the auto layout: 4 pods side by side, one row per tier, each tier above the one below
    for k in range(4):
        assert len({d.y for d in tiers[k]}) == 1
    assert [tiers[k][0].y > tiers[k + 1][0].y for k in range(3)] == [True] * 3
    for row in tiers.values():
        xs = [d.x for d in row]
        assert len(set(xs)) == len(xs)
    # hosts sit under their leaf: the two hosts of leaf01 are neighbours in the row
    hosts = sorted(tiers[0], key=lambda d: d.x)
    first_leaf = hosts[0].nics[0].port(1).peer.device
    assert hosts[1].nics[0].port(1).peer.device == first_leaf


# ---------------------------------------------------------------------------- real OpenSM
@pytest.mark.parametrize("make", [lambda: k_ary_fat_tree(4), lambda: leaf_spine(4, 4, 16, fabric="ib")],
                         ids=["k4-fat-tree", "leaf-spine-ib"])
def test_exported_file_runs_under_ibsim_and_opensm(make, tmp_path, run_opensm):
    f = make()
    path = tmp_path / "fabric.topo"
    save_ibnetdiscover(f, path)
    out = run_opensm(path, "minhop")
    assert "SUBNET UP" in (out / "osm.log").read_text()
    assert "minhop tables configured on all switches" in (out / "osm.log").read_text()
    lfts = read_lfts_dump((out / "opensm-lfts.dump").read_text())
    assert set(lfts) == {d.guid for d in f.devices("ib_switch")}
    hosts = {p.guid for d in f.devices("nic") for p in d.ports}
    dump = (out / "opensm-lfts.dump").read_text()
    assert {int(g, 16) for g in re.findall(r"Channel Adapter portguid 0x([0-9a-f]+)", dump)} == hosts


# ---------------------------------------------------------------------------- NodeDescriptions
#: Two blocks of the manpage sample, the CA's NodeDescription with the repeated spaces a real
#: ConnectX-7 reports ("MT4129 ConnectX7   Mellanox Technologies") and the switch's with two.
VERBATIM = """\
vendid=0x8f1
devid=0x5a05
switchguid=0x8f10400410015(8f10400410015)
Switch  8 "S-0008f10400410015"          # "SW-6IB4  Voltaire" base port 0 lid 3 lmc 0
[6]     "H-0008f10403960984"[1](8f10403960985)         # "MT4129 ConnectX7   Mellanox Technologies" lid 16 4xSDR

vendid=0x2c9
devid=0x5a44
caguid=0x8f10403960984
Ca      2 "H-0008f10403960984"          # "MT4129 ConnectX7   Mellanox Technologies"
[1](8f10403960985)     "S-0008f10400410015"[6]         # lid 16 lmc 1 "SW-6IB4  Voltaire" lid 3 4xSDR
"""


def _descs(text: str) -> list[str]:
    """The quoted NodeDescriptions of every Switch/Ca header of ibnetdiscover text, in order."""
    return re.findall(r'^(?:Switch|Ca)\s+\d+\s+"[^"]+"\s+# "([^"]*)"', text, re.M)


def test_node_descriptions_kept_byte_for_byte(tmp_path):
    src = tmp_path / "cx7.ibnetdiscover"
    src.write_text(VERBATIM)
    f = load(src)
    # device names are one line with single spaces; the descriptions are kept aside, verbatim
    assert sorted(d.name for d in f.devices()) == ["MT4129 ConnectX7 Mellanox Technologies", "SW-6IB4 Voltaire"]
    assert f.meta["node_descriptions"] == {
        "0x0008f10400410015": ["SW-6IB4 Voltaire", "SW-6IB4  Voltaire"],
        "0x0008f10403960984": ["MT4129 ConnectX7 Mellanox Technologies", "MT4129 ConnectX7   Mellanox Technologies"]}
    saved = tmp_path / "cx7.json"
    save_fabric(f, saved)
    back = load_any(saved)
    out = export_ibnetdiscover(back)
    assert _descs(out) == ["SW-6IB4  Voltaire", "MT4129 ConnectX7   Mellanox Technologies"]
    # the port lines name the remote node by the same verbatim text
    assert '# "MT4129 ConnectX7   Mellanox Technologies" lid 0 4xSDR' in out
    assert 'lmc 0 "SW-6IB4  Voltaire" lid 0 4xSDR' in out
    # and the exported file reads back to the same descriptions
    assert loads(out, "again.ibnetdiscover").meta["node_descriptions"] == f.meta["node_descriptions"]


def test_renamed_device_exports_its_new_name_and_plain_files_keep_no_copy(tmp_path, samples):
    f = loads(VERBATIM, "cx7.ibnetdiscover")
    f.rename(f.find("SW-6IB4 Voltaire"), "leaf-a")
    assert _descs(export_ibnetdiscover(f)) == ["leaf-a", "MT4129 ConnectX7   Mellanox Technologies"]
    # single-spaced descriptions (the manpage sample) come back from the names: nothing stored
    assert "node_descriptions" not in load(samples / "manpage_example.ibnetdiscover").meta
