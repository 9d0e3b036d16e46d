"""``fabricviz render``: every option reaches the picture; bad values are refused in one line
(exit 2) before the Qt child process starts."""

from __future__ import annotations

import pytest

from fabricviz.cli import main
from fabricviz.commands import render

DEMO = "assets/demo/demo-fat-tree.json"


@pytest.fixture
def root(monkeypatch):
    from pathlib import Path
    here = Path(__file__).resolve().parents[1]
    monkeypatch.chdir(here)
    return here


@pytest.mark.slow
def test_render_writes_the_size_dpi_and_title_asked(root, tmp_path, capsys):
    out = tmp_path / "slide.png"
    assert main(["render", DEMO, "-o", str(out), "--width", "640", "--height", "400", "--dpi", "144",
                 "--title", "Two tiers"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    from PySide6 import QtGui
    img = QtGui.QImage(str(out))
    assert (img.width(), img.height()) == (640, 400) and round(img.dotsPerMeterX() * 0.0254) == 144


def test_child_options_transparent_no_legend_and_title(root, tmp_path, qapp, capsys):
    """The child process's own entry point, run in this process (it is what the CLI starts)."""
    from PySide6 import QtGui

    from fabricviz.ui.canvas import export
    png = tmp_path / "t.png"
    assert export.main([DEMO, "-o", str(png), "--width", "500", "--height", "300", "--transparent"]) == 0
    img = QtGui.QImage(str(png))
    assert (img.width(), img.height()) == (500, 300) and img.pixelColor(0, 0).alpha() == 0
    svg = tmp_path / "p.svg"
    assert export.main([DEMO, "-o", str(svg), "--width", "800", "--no-legend", "--title", "My fabric"]) == 0
    text = svg.read_text()
    assert ">My fabric<" in text and ">Legend<" not in text and "<image" not in text
    assert export.main([DEMO, "-o", str(svg), "--width", "800", "--title="]) == 0
    text = svg.read_text()
    assert "servers, 8 switches" not in text and ">Legend<" in text
    assert export.main([DEMO, "-o", str(svg), "--width", "800"]) == 0
    assert "demo: 2-level NDR fat tree — 16 servers, 8 switches, 32 cables" in svg.read_text()
    pdf = tmp_path / "p.pdf"
    assert export.main([DEMO, "-o", str(pdf), "--width", "1050", "--dpi", "300"]) == 0
    assert pdf.read_bytes().startswith(b"%PDF")
    capsys.readouterr()


@pytest.mark.parametrize("args, msg", [
    (["--width", "50"], "--width 50: use 200 to 20000 pixels"),
    (["--height", "20001"], "--height 20001: use 200 to 20000 pixels"),
    (["--dpi", "0"], "--dpi 0: use 50 to 1200 dots per inch"),
    (["--dpi", "nan"], "--dpi nan: use 50 to 1200 dots per inch"),
    (["--dpi", "2400"], "--dpi 2400: use 50 to 1200 dots per inch"),
    (["--width", "wide"], "argument --width: invalid int value: 'wide'"),
    (["--width", "20000", "--height", "20000"], "--width 20000 --height 20000: at most 268,435,456 pixels"),
    (["-o", "OUT.pdf", "--transparent"], "--transparent: use a .png or .svg picture (PDF pages are opaque)"),
    (["--width", "200", "--dpi", "1200"], "--width 200 at --dpi 1200: 16 screen pixels (1/96 in), at least 120 "
                                          "(raise --width or lower --dpi)"),
    (["--width", "1500", "--dpi", "1200", "--height", "200"],
     "--height 200 at --dpi 1200: 16 screen pixels (1/96 in), at least 80 (raise --height or lower --dpi)"),
])
def test_bad_values_exit_2_in_one_line_before_the_child_starts(root, tmp_path, capsys, monkeypatch, args, msg):
    def no_child(*a, **k):
        raise AssertionError("the Qt child was started")
    monkeypatch.setattr(render.subprocess, "run", no_child)
    out = tmp_path / "OUT.png"
    argv = ["render", DEMO, "-o", str(out), *args]
    if "-o" in args:
        argv = ["render", DEMO, *[str(tmp_path / a) if a.startswith("OUT") else a for a in args]]
    assert main(argv) == 2
    o, err = capsys.readouterr()
    assert o == "" and err == f"fabricviz: error: {msg}\n"
    assert not out.exists() and not (tmp_path / "OUT.pdf").exists()


def test_a_child_that_crashes_is_one_error_line(root, tmp_path, capsys, monkeypatch):
    """A traceback or a signal in the Qt child: exit 2 and one line (its last line), not the trace."""
    import subprocess
    trace = "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: boom\n"
    for code, err, msg in ((1, trace, "render failed (exit 1): ValueError: boom"),
                           (-9, "", "render failed (killed by signal 9)")):
        monkeypatch.setattr(render.subprocess, "run",
                            lambda cmd, *a, code=code, err=err, **k: subprocess.CompletedProcess(cmd, code, "", err))
        assert main(["render", DEMO, "-o", str(tmp_path / "x.png")]) == 2
        assert capsys.readouterr().err == f"fabricviz: error: {msg}\n"


def test_the_child_refuses_what_the_cli_refuses_in_the_same_words(root, tmp_path, qapp, capsys):
    """One check (fabricviz.anim.picture_options) for the CLI and its child: the child, run
    directly, refuses the too-small layout with the same line."""
    from fabricviz.ui.canvas import export
    assert export.main([DEMO, "-o", str(tmp_path / "x.png"), "--width", "200", "--dpi", "1200"]) == 2
    child = capsys.readouterr().err
    assert main(["render", DEMO, "-o", str(tmp_path / "x.png"), "--width", "200", "--dpi", "1200"]) == 2
    assert capsys.readouterr().err == child and child.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def test_an_unwritable_output_is_one_error_line(qapp, capsys, tmp_path):
    """An OSError while writing (a read-only folder, a parent that is a file) is one line, exit 2."""
    import errno

    from fabricviz.ui.canvas.export import picture_main

    def make():
        raise PermissionError(errno.EACCES, "Permission denied", str(tmp_path / "ro" / "x.png"))
    assert picture_main("t", make) == 2
    assert capsys.readouterr().err == f"fabricviz: error: {tmp_path / 'ro' / 'x.png'}: Permission denied\n"
