"""File errors in the GUI: a one-line dialog (the CLI's message), and nothing lost or changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6 import QtWidgets

from fabricviz import cli
from fabricviz.formats.native import dumps, save_fabric
from fabricviz.generate import k_ary_fat_tree
from fabricviz.model import atomic
from fabricviz.ui.app import start_windows

TITLE = "k8.json[*] \u2014 fabricviz"


@pytest.fixture
def work(tmp_path) -> Path:
    """A folder of the test's own (tmp_path also holds the settings)."""
    (tmp_path / "work").mkdir()
    return tmp_path / "work"


@pytest.fixture
def k8(work) -> Path:
    path = work / "k8.json"
    save_fabric(k_ary_fat_tree(8), path)
    return path


@pytest.fixture
def dialogs(monkeypatch):
    """Every QMessageBox.critical as (title, text); it never blocks (nor does the Export Image
    dialog: it is accepted as it opens)."""
    from fabricviz.ui.dialogs.export_image import ExportImageDialog
    shown: list[tuple[str, str]] = []

    def critical(parent, title, text, *a, **k):
        shown.append((title, text))
        return QtWidgets.QMessageBox.StandardButton.Ok
    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", staticmethod(critical))
    monkeypatch.setattr(ExportImageDialog, "exec", lambda self: QtWidgets.QDialog.DialogCode.Accepted)
    return shown


def _cli_error(capsys, path: Path) -> str:
    """What ``fabricviz info FILE`` says about ``path`` (without the ``fabricviz: error:`` prefix)."""
    capsys.readouterr()
    assert cli.main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fabricviz: error: ") and err.count("\n") == 1
    return err[len("fabricviz: error: "):-1]


def _edited(make_window, k8):
    w = make_window(str(k8))
    assert w.editor.rename(w.fabric.find("leaf01"), "leafA")
    return w, w.fabric.signature(), w.editor.stack.count()


def _unchanged(w, sig, count, title=TITLE):
    assert w.fabric.signature() == sig and w.editor.stack.count() == count
    assert w.isWindowModified() and w.windowTitle() == title


def test_a_failed_save_shows_one_line_and_keeps_the_edits(make_window, k8, dialogs, monkeypatch):
    w, sig, count = _edited(make_window, k8)
    before = k8.read_bytes()

    def full(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(atomic.os, "replace", full)
    w.acts["save"].trigger()
    assert dialogs == [("Save failed", f"{k8}: cannot save: No space left on device")]
    _unchanged(w, sig, count)
    assert w.document.path == k8 and k8.read_bytes() == before and os.listdir(k8.parent) == ["k8.json"]
    monkeypatch.undo()
    assert w.files.save() is True and not w.isWindowModified() and k8.read_text(encoding="utf-8") == dumps(w.fabric)


def test_save_as_into_a_missing_folder_keeps_the_document_where_it_was(make_window, k8, dialogs, monkeypatch,
                                                                       tmp_path):
    w, sig, count = _edited(make_window, k8)
    target = tmp_path / "gone" / "copy.json"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    w.acts["save_as"].trigger()
    assert dialogs == [("Save failed", f"{target}: cannot save: No such file or directory")]
    _unchanged(w, sig, count)
    assert w.document.path == k8 and w.document.display_name == "k8.json" and w.files.recent_files() == [str(k8.resolve())]


def test_a_position_that_is_not_finite_is_refused_in_a_dialog_on_save_and_export(make_window, k8, dialogs,
                                                                                  monkeypatch, tmp_path):
    w, sig, count = _edited(make_window, k8)
    d = w.fabric.find("spine01")
    w.fabric.devices_t.x[d] = float("inf")         # whatever let it in, the writers must not crash
    before = k8.read_bytes()
    w.acts["save"].trigger()
    out = tmp_path / "pic.png"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    w.acts["export_image"].trigger()
    why = "spine01: x is inf (positions must be finite numbers)"
    assert dialogs == [("Save failed", f"{k8}: cannot save: {why}"), ("Export failed", f"{out}: cannot save: {why}")]
    assert k8.read_bytes() == before and not out.exists()
    assert w.isWindowModified() and w.editor.stack.count() == count


def test_export_errors_show_a_dialog_and_a_good_export_is_written_whole(make_window, k8, dialogs, monkeypatch,
                                                                        work):
    tmp_path = work
    w = make_window(str(k8))
    target = [tmp_path / "gone" / "pic.svg"]
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target[0]), "")))
    w.acts["export_image"].trigger()
    assert dialogs == [("Export failed", f"{target[0]}: cannot save: No such file or directory")]
    for name, head in (("pic.png", b"\x89PNG\r\n\x1a\n"), ("pic.svg", b"<?xml"), ("pic.pdf", b"%PDF-")):
        target[0] = tmp_path / name
        w.acts["export_image"].trigger()
        assert target[0].read_bytes().startswith(head), name
    assert len(dialogs) == 1
    assert sorted(os.listdir(work)) == ["k8.json", "pic.pdf", "pic.png", "pic.svg"]   # no temp file left
    target[0] = tmp_path / "pic.bmp"
    w.acts["export_image"].trigger()
    assert dialogs[-1] == ("Export failed", f"{target[0]}: unknown picture format '.bmp' (use .png, .svg or .pdf)")


@pytest.mark.parametrize("text", [
    "hello, this is not a design\n",
    '{"format": "fabricviz", "version": 1, "name": "x", "devices": [{"name": 5, "kind": "server"}]}\n',
])
def test_an_open_error_shows_the_cli_line_and_changes_nothing(make_window, k8, dialogs, capsys, tmp_path, text):
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    line = _cli_error(capsys, bad)
    assert str(bad) in line and "\n" not in line
    w, sig, count = _edited(make_window, k8)
    assert w.files.open_path(bad) is False
    assert dialogs == [("Open failed", line)] and w.files.load_error == line
    assert "--" not in line                        # no CLI flags in the GUI
    _unchanged(w, sig, count)
    assert w.document.path == k8 and w.files.recent_files() == [str(k8.resolve())]


def test_a_missing_file_in_open_recent_shows_the_cli_line(make_window, k8, dialogs, capsys, tmp_path):
    w = make_window(str(k8))
    gone = tmp_path / "gone.json"
    line = _cli_error(capsys, gone)
    assert line == f"{gone}: no such file"
    assert w.files.open_path(gone) is False
    assert dialogs == [("Open failed", line)]
    assert w.windowTitle() == TITLE and not w.isWindowModified() and w.document.path == k8


def test_starting_on_a_bad_file_says_why_in_a_dialog(qtbot, dialogs, capsys, tmp_path, monkeypatch):
    bad = tmp_path / "bad.gml"
    bad.write_text("graph [ node [ id 1 ] node [ id 1 ] ]\n", encoding="utf-8")
    line = _cli_error(capsys, bad)
    (w,) = start_windows(str(bad))
    qtbot.addWidget(w)
    assert dialogs == [("Open failed", line)]
    assert w.windowTitle() == "untitled[*] \u2014 fabricviz" and len(w.fabric) == 0 and w.document.path is None


def _reader_bug(monkeypatch):
    import fabricviz.loaders

    def load_any(path, *a, **k):
        raise KeyError("devices")
    monkeypatch.setattr(fabricviz.loaders, "load_any", load_any)


def test_a_reader_bug_is_a_dialog_not_a_traceback_and_changes_nothing(make_window, k8, dialogs, monkeypatch,
                                                                     tmp_path, caplog):
    w, sig, count = _edited(make_window, k8)
    other = tmp_path / "other.json"
    save_fabric(k_ary_fat_tree(4), other)
    _reader_bug(monkeypatch)
    assert w.files.open_path(other) is False
    line = f"{other}: cannot open: internal error (KeyError: 'devices')"
    assert dialogs == [("Open failed", line)] and w.files.load_error == line
    _unchanged(w, sig, count)
    assert w.document.path == k8 and w.files.recent_files() == [str(k8.resolve())]
    (record,) = [r for r in caplog.records if r.exc_info]          # the traceback goes to stderr
    assert record.exc_info[0] is KeyError and record.getMessage() == f"opening {other}"


def test_starting_on_a_file_that_trips_a_reader_bug_says_why_in_a_dialog(qtbot, dialogs, monkeypatch, k8):
    _reader_bug(monkeypatch)
    (w,) = start_windows(str(k8))
    qtbot.addWidget(w)
    assert dialogs == [("Open failed", f"{k8}: cannot open: internal error (KeyError: 'devices')")]
    assert w.windowTitle() == "untitled[*] \u2014 fabricviz" and len(w.fabric) == 0 and w.document.path is None


@pytest.mark.parametrize("exc, why", [(PermissionError(13, "Permission denied"), "Permission denied"),
                                      (OverflowError("signed integer is greater than maximum"),
                                       "internal error (OverflowError: signed integer is greater than maximum)")])
def test_any_save_error_is_a_dialog_and_keeps_the_edits(make_window, k8, dialogs, monkeypatch, exc, why, caplog):
    from fabricviz.formats import native
    w, sig, count = _edited(make_window, k8)
    before = k8.read_bytes()

    def broken(*a, **k):
        raise exc
    monkeypatch.setattr(native, "save_fabric", broken)
    w.acts["save"].trigger()
    assert dialogs == [("Save failed", f"{k8}: cannot save: {why}")]
    _unchanged(w, sig, count)
    assert k8.read_bytes() == before
    logged = [(r.getMessage(), r.exc_info[0]) for r in caplog.records if r.exc_info]
    assert logged == ([] if isinstance(exc, OSError) else [(f"saving {k8}", OverflowError)])   # a bug: stderr


def test_one_helper_words_every_internal_error(caplog):
    from fabricviz.ui.document.files import internal_error
    err, bug = ValueError("two\n  lines"), KeyError("devices")
    assert internal_error(Path("/d/k8.json"), "save", err) == \
        "/d/k8.json: cannot save: internal error (ValueError: two lines)"
    assert internal_error(Path("/d/k8.json"), "open", bug) == \
        "/d/k8.json: cannot open: internal error (KeyError: 'devices')"
    assert [(r.levelname, r.getMessage(), r.exc_info[1]) for r in caplog.records] == [
        ("ERROR", "saving /d/k8.json", err), ("ERROR", "opening /d/k8.json", bug)]


def test_a_temp_file_with_a_huge_pid_beside_the_design_does_not_stop_saving(make_window, k8, dialogs):
    w, sig, count = _edited(make_window, k8)
    odd = k8.parent / ".k8.json.99999999999999999999.abcdefgh.tmp"
    odd.write_text("x", encoding="utf-8")
    w.acts["save"].trigger()
    assert dialogs == [] and not w.isWindowModified()
    assert k8.read_text(encoding="utf-8") == dumps(w.fabric)
    assert sorted(os.listdir(k8.parent)) == sorted(["k8.json", odd.name])     # not ours: left alone
