"""Every file a command is handed gets a verdict before it is read (issue 28: ``lint /dev/zero`` read
for ever): a folder, a FIFO, a device or a file over its limit is exit 2 with one line naming it,
through the one check in fabricviz/model/inputs.py."""

from __future__ import annotations

import os

import pytest

from fabricviz.cli import main
from fabricviz.model import FabricError, inputs
from fabricviz.model.inputs import check_input, read_input

DEMO = "assets/demo/demo-fat-tree.json"


def _cli(args, capsys):
    rc = main(args)
    out, err = capsys.readouterr()
    return rc, err


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return str(path)


def test_check_input_names_each_kind(tmp_path, fifo):
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    for path, why in (("/dev/zero", "is a character device"), (str(tmp_path), "is a folder"),
                      (fifo, "is a FIFO (named pipe)"), (str(tmp_path / "none"), "no such file"),
                      (str(big), "101 bytes, over the 100 bytes a test file may have here")):
        with pytest.raises(FabricError) as e:
            read_input(path, 100, "a test file")
        assert str(e.value).startswith(f"{path}: {why}")
    assert check_input(big, 101) == 101 and read_input(big, 101) == b"x" * 101


@pytest.mark.parametrize("args", [
    ["lint", "{bad}"], ["info", "{bad}"], ["route", "{bad}"],
    ["simulate", DEMO, "--flows", "{bad}"], ["export-htsim", DEMO, "--flows", "{bad}", "-o", "{tmp}/out"],
    ["bom", DEMO, "--prices", "{bad}"], ["partitions", DEMO, "--conf", "{bad}"],
    ["route", DEMO, "--partitions", "{bad}"], ["replay", DEMO, "{bad}"],
])
@pytest.mark.parametrize("bad", ["/dev/zero", "fifo", "folder"])
def test_every_file_argument_refuses_non_regular_files(args, bad, capsys, tmp_path, fifo):
    path = {"/dev/zero": "/dev/zero", "fifo": fifo, "folder": str(tmp_path)}[bad]
    rc, err = _cli([a.format(bad=path, tmp=tmp_path) for a in args], capsys)
    assert rc == 2 and err.count("\n") == 1 and f"error: {path}: is a" in err, err


def test_parts_file_refuses_a_device(capsys, monkeypatch):
    monkeypatch.setenv("FABRICVIZ_PARTS", "/dev/zero")
    rc, err = _cli(["bom", DEMO], capsys)
    assert rc == 2 and err == f"fabricviz: error: {DEMO}: /dev/zero: is a character device, not a regular file " \
                              "(fabricviz reads regular files only)\n"


def test_oversize_design_refused_before_reading(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(inputs, "MAX_INPUT_BYTES", 1000)
    rc, err = _cli(["lint", DEMO], capsys)
    size = os.path.getsize(DEMO)
    assert rc == 2 and err == f"fabricviz: error: {DEMO}: {size:,} bytes, over the 1,000 bytes a design file " \
                              "may have here\n"
