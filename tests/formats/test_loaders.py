"""fabricviz.loaders: the same path opens every refusal, and every writer refuses what no file holds.

Issue 11: ibnetdiscover and ibsim errors began with the file's base name while every other reader's
began with its path; a design whose position is infinite loaded but no writer could save it.
"""

import os
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from fabricviz.generate import fat_tree
from fabricviz.loaders import FORMATS, detect_format, load_any, save_as
from fabricviz.model import Fabric, FabricError

DATA = Path(__file__).resolve().parents[1] / "data"
MANPAGE = DATA / "samples" / "manpage_example.ibnetdiscover"
NET = DATA / "samples" / "ibsim_net.2sw2path4hca.net"


def small() -> Fabric:
    return fat_tree(levels=2, radix=8, hosts=16, name="small")


# ---------------------------------------------------------------------------- writers
def forced(what: str):
    """A design the model would refuse to make: the raw numpy column is written directly."""
    f = small()
    if what == "x":
        d = f.device("leaf01").id
        f.devices_t.column("x")[d] = np.inf
        return f, f"{f.name_of(d)}: x is inf (positions must be finite numbers)"
    if what == "y":
        d = int(f.device_ids()[-1])
        f.devices_t.column("y")[d] = -np.inf
        return f, f"{f.name_of(d)}: y is -inf (positions must be finite numbers)"
    c = int(f.cable_ids()[0])
    f.cables_t.column("length")[c] = np.inf
    a, b = int(f.cables_t.port_a[c]), int(f.cables_t.port_b[c])
    return f, f"cable {f.port_name(a)} - {f.port_name(b)}: length_m is inf (lengths must be finite numbers)"


@pytest.mark.parametrize("what", ["x", "y", "length"])
@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_writer_refuses_a_non_finite_design_before_writing(tmp_path, fmt, what):
    f, why = forced(what)
    before = f.signature()
    new = tmp_path / f"new.{fmt}"
    with pytest.raises(FabricError) as e:
        save_as(f, new, fmt)
    assert str(e.value) == f"{new}: cannot save: {why}"
    assert os.listdir(tmp_path) == []                    # no file, no temp file
    # a file already there is left as it was
    old = tmp_path / f"old.{fmt}"
    old.write_bytes(b"the previous version\n")
    with pytest.raises(FabricError, match="^" + str(old).replace(".", r"\.") + ": cannot save: "):
        save_as(f, old, fmt)
    assert old.read_bytes() == b"the previous version\n" and os.listdir(tmp_path) == [old.name]
    assert f.signature() == before


#: What a format writes beside its file: the ibdm topology's IBNL system definitions.
COMPANION = {"ibdm-topo": ".ibnl.d"}


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_every_writer_writes_a_finite_design(tmp_path, fmt):
    out = tmp_path / f"ok.{fmt}"
    save_as(small(), out, fmt)
    beside = [out.name + COMPANION[fmt]] if fmt in COMPANION else []
    assert out.stat().st_size > 0 and sorted(os.listdir(tmp_path)) == sorted([out.name, *beside])


def test_unknown_format_is_refused_before_writing(tmp_path):
    with pytest.raises(FabricError, match=r"^.*x\.bin: unknown format 'bin' \(use native, netjson, "):
        save_as(small(), tmp_path / "x.bin", "bin")
    assert os.listdir(tmp_path) == []


# ---------------------------------------------------------------------------- the place of a refusal
BAD = {
    "bad.ibnetdiscover": MANPAGE.read_text().replace('Ca      2 "H-0008f10403960984"',
                                                      'Ca      100000000 "H-0008f10403960984"'),
    "bad.net": NET.read_text().replace('[1]\t"Switch1"[1]', '[1]\t"Switch1"[300]', 1),
    "bad.json": '{"format": "fabricviz", "version": 1, "devices": [{"kind": "gpu"}]}',
    "bad.gml": "graph [\n  node [ id 1 label \"a\" ]\n  edge [ source 1 target 9 ]\n]\n",
    "bad.txt": "nothing a reader knows\n",
}
WHY = {
    "bad.ibnetdiscover": ":32: Ca with 100000000 ports (1-254)",
    "bad.net": ':34: bad remote port 300 of "Switch1" (1-254)',
    "bad.json": ": devices[0].name: missing",
    "bad.txt": ": not a fabricviz design, ibnetdiscover output or ibsim net file (nor ibnetdiscover -p, "
               "iblinkinfo, opensm-subnet.lst, ibdm topology, GraphML, GML, DOT, NetJSON or containerlab)",
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_every_refusal_starts_with_the_path_given(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / name).write_text(BAD[name])
    for given in (f"in/{name}", tmp_path / "in" / name):
        with pytest.raises(FabricError) as e:
            load_any(given)
        msg = str(e.value)
        assert msg.startswith(f"{given}:") and "\n" not in msg
        if name in WHY:
            assert msg == f"{given}{WHY[name]}"
    with pytest.raises(FabricError, match="^in/gone.net: no such file$"):
        load_any("in/gone.net")


def test_an_imported_design_records_the_file_name_not_its_path(tmp_path):
    (tmp_path / "d").mkdir()
    p = tmp_path / "d" / NET.name
    p.write_bytes(NET.read_bytes())
    assert load_any(p).meta["source"] == {"format": "ibsim", "file": NET.name}


# ---------------------------------------------------------------------------- sniffing
@pytest.mark.slow
def test_sniffing_a_big_file_copies_nothing():
    # the GML and DOT sniffers used to see a copy of the whole text without its comment lines
    text = "".join(f'switchguid=0x{0x200000 + i:x}\nSwitch\t36 "S-{0x200000 + i:016x}"\n\n'
                   for i in range(20_000))
    tracemalloc.start()
    try:
        fmt = detect_format(text, "big")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fmt == "ibnetdiscover" and peak < len(text) // 10, peak


def test_sniffing_skips_long_comment_headers():
    comments = "".join(f"# comment line {i}\n" for i in range(10_000))
    assert detect_format(comments + 'graph [\n  node [ id 1 label "a" ]\n]\n') == "gml"
    assert detect_format(comments.replace("#", "//") + "graph g {\n  a -- b\n}\n") == "dot"
    assert detect_format("// c\r\n# d\r\ngraph g {\r\n a -- b\r\n}\r\n") == "dot"
