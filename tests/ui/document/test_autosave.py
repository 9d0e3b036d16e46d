"""Autosave and crash recovery: unit tests of the timer and worker, and a real SIGKILL of the app."""

from __future__ import annotations

import datetime as dt
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.formats import native
from fabricviz.formats.native import dumps, save_fabric
from fabricviz.generate import k_ary_fat_tree
from fabricviz.model import atomic
from fabricviz.ui.app import start_windows
from fabricviz.ui.document import autosave

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def k8(tmp_path) -> Path:
    path = tmp_path / "k8.json"
    save_fabric(k_ary_fat_tree(8), path)
    return path


def _files(folder: Path) -> list[str]:
    return sorted(os.listdir(folder)) if folder.is_dir() else []


def _edit(w, name="leaf01", new="leafA") -> None:
    assert w.editor.rename(w.fabric.find(name), new)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_only_unsaved_changes_are_autosaved_and_saving_deletes_the_file(make_window, k8):
    w = make_window(str(k8))
    a = w.files.autosave
    assert a.folder == autosave.recovery_dir() and a.folder.parent == Path(w.settings.fileName()).parent
    assert a.interval_ms == 60_000
    assert a.tick() is False and _files(a.folder) == []          # nothing to save: nothing written
    _edit(w)
    assert a.tick() is True
    data = json.loads(a.path.read_text(encoding="utf-8"))
    assert {k: data[k] for k in ("format", "version", "document", "name", "pid", "host", "boot_id",
                                 "started")} == {
        "format": "fabricviz-recovery", "version": 1, "document": str(k8.resolve()), "name": "k8.json",
        "pid": os.getpid(), "host": socket.gethostname(), "boot_id": atomic.boot_id(),
        "started": atomic.start_time(os.getpid())}
    assert data["design"] == dumps(w.fabric)
    assert abs(dt.datetime.fromisoformat(data["saved_at"]) - dt.datetime.now().astimezone()).total_seconds() < 3600
    assert a.tick() is False                                     # no new change since
    _edit(w, "leaf02", "leafB")
    assert a.tick() is True
    assert json.loads(a.path.read_text(encoding="utf-8"))["design"] == dumps(w.fabric)
    assert _files(a.folder) == [a.path.name]                     # one file per document, rewritten
    assert w.files.save() is True
    assert _files(a.folder) == [] and not w.isWindowModified()
    _edit(w, "leafB", "leafC")
    assert a.tick() is True and a.path.is_file()
    w.files.new_design()                             # another document (the fixture answers Discard)
    assert _files(a.folder) == [] and a.tick() is False


def test_the_timer_autosaves_and_undo_to_the_saved_state_deletes_the_file(make_window, k8, qtbot):
    w = make_window(str(k8))
    a = w.files.autosave
    a.set_interval(100)
    assert a.interval_ms == 100
    _edit(w)
    with qtbot.waitSignal(a.saved, timeout=60_000) as blocker:
        pass
    assert blocker.args == [str(a.path)] and a.path.is_file()
    w.acts["undo"].trigger()                                      # back to the file on disk: clean
    assert not w.isWindowModified() and _files(a.folder) == []
    a.set_interval(0)
    assert a.interval_ms == 0 and not a.timer.isActive()


def test_interval_comes_from_the_settings(make_window, k8):
    w = make_window(str(k8))
    w.settings.setValue(autosave.INTERVAL_KEY, 250)
    assert autosave.Autosave(w.document, w.settings).interval_ms == 250
    w.settings.setValue(autosave.INTERVAL_KEY, "soon")
    assert autosave.Autosave(w.document, w.settings).interval_ms == 60_000
    w.settings.setValue(autosave.INTERVAL_KEY, 10 ** 12)
    assert autosave.Autosave(w.document, w.settings).interval_ms == 3600 * 1000 == autosave.MAX_INTERVAL_MS
    # a live window touches its file at least every MAX_INTERVAL_MS: another host waits far longer
    assert autosave.OTHER_HOST_AFTER_S == 24 * 3600 >= 2 * autosave.MAX_INTERVAL_MS / 1000
    w.settings.setValue(autosave.INTERVAL_KEY, 0)
    assert autosave.Autosave(w.document, w.settings).interval_ms == 0


def test_big_designs_are_written_by_a_worker_and_a_stale_result_is_dropped(make_window, k8, qtbot, monkeypatch):
    w = make_window(str(k8))
    a = w.files.autosave
    a.thread_devices = 0                       # every design counts as big
    gate, started, threads = threading.Event(), threading.Event(), []
    real_dumps = native.dumps

    def slow_dumps(fabric):
        if threading.current_thread() is not threading.main_thread():
            threads.append(threading.current_thread().name)
            started.set()
            assert gate.wait(10)
        return real_dumps(fabric)
    monkeypatch.setattr(native, "dumps", slow_dumps)
    saved = []
    a.saved.connect(saved.append)
    _edit(w)
    edited = real_dumps(w.fabric)
    assert a.tick() is True and started.wait(10)
    assert a.tick() is False                   # one worker at a time
    assert w.files.save() is True                    # saved while the worker serialises
    gate.set()
    a.wait()
    qtbot.waitUntil(lambda: not a._busy, timeout=60_000)
    assert threads == ["fabricviz-autosave"] and saved == [] and _files(a.folder) == []
    # a result that is still current is written
    _edit(w, "leaf02", "leafB")
    edited = real_dumps(w.fabric)
    assert a.tick() is True
    a.wait()
    qtbot.waitUntil(lambda: saved == [str(a.path)], timeout=60_000)
    assert json.loads(a.path.read_text(encoding="utf-8"))["design"] == edited


def test_two_windows_keep_two_recovery_files(make_window, k8):
    w1, w2 = make_window(str(k8)), make_window()
    _edit(w1)
    _edit(w2, "spine01", "spineZ")
    assert w1.files.autosave.tick() and w2.files.autosave.tick()
    assert w1.files.autosave.path != w2.files.autosave.path
    assert _files(w1.files.autosave.folder) == sorted([w1.files.autosave.path.name, w2.files.autosave.path.name])
    docs = {json.loads(p.read_text(encoding="utf-8"))["name"]: json.loads(p.read_text(encoding="utf-8"))["design"]
            for p in (w1.files.autosave.path, w2.files.autosave.path)}
    assert docs == {"k8.json": dumps(w1.fabric), "demo-fat-tree.json": dumps(w2.fabric)}


def test_a_failed_autosave_is_reported_and_keeps_the_edits(make_window, k8, tmp_path):
    w = make_window(str(k8))
    a = w.files.autosave
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    a.folder, a.path = blocker, blocker / "r.json"
    _edit(w)
    assert a.tick() is True
    assert a.last_error == f"{blocker}: cannot autosave: File exists"
    assert w.statusBar().currentMessage() == f"autosave failed: {a.last_error}"
    assert w.isWindowModified() and w.editor.stack.count() == 1


def test_turning_autosave_off_deletes_the_recovery_file_and_keeps_the_edits(make_window, k8):
    """Never touched again, the file would look abandoned to other hosts after a day."""
    w = make_window(str(k8))
    a = w.files.autosave
    _edit(w)
    assert a.tick() is True and _files(a.folder) == [a.path.name]
    a.set_interval(0)
    assert a.interval_ms == 0 and _files(a.folder) == []
    assert w.isWindowModified() and w.editor.stack.count() == 1
    a.set_interval(500)                                          # on again: written at the next tick
    assert a.tick() is True and json.loads(a.path.read_text(encoding="utf-8"))["design"] == dumps(w.fabric)


def test_closing_normally_after_discard_deletes_the_recovery_file(make_window, k8):
    w = make_window(str(k8))
    _edit(w)
    assert w.files.autosave.tick() and w.files.autosave.path.is_file()
    assert w.close() is True                                     # the fixture answers Discard
    assert _files(w.files.autosave.folder) == []


def _write_recovery(folder: Path, stem: str, document: str | None, pid: int, design: str,
                    when: str = "2026-11-30T09:41:00+00:00", **more) -> Path:
    """A recovery file as a process ``pid`` of this host wrote it; ``more`` adds or overrides fields."""
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / f"{stem}.json"
    p.write_text(json.dumps({"format": "fabricviz-recovery", "version": 1, "document": document,
                             "name": "untitled" if document is None else Path(document).name,
                             "saved_at": when, "pid": pid, "host": socket.gethostname(),
                             "design": design, **more}), encoding="utf-8")
    return p


def _ask(monkeypatch, answers):
    asked = []

    def ask(parent, rec):
        asked.append(rec.question())
        return answers.pop(0)
    monkeypatch.setattr(autosave, "ask_recover", ask)
    return asked


@pytest.fixture
def start(qtbot, monkeypatch):
    """``start(path=None)``: what the app does at start-up; the windows never prompt at teardown."""
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        staticmethod(lambda *a, **k: QtWidgets.QMessageBox.StandardButton.Discard))
    made = []

    def go(path=None):
        windows = start_windows(path)
        for w in windows:
            qtbot.addWidget(w)
        made.extend(windows)
        return windows
    yield go
    for w in made:
        w.editor.stack.setClean()


def test_a_first_launch_asks_nothing(start, monkeypatch):
    asked = _ask(monkeypatch, [])
    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", staticmethod(lambda *a: pytest.fail("dialog")))
    (w,) = start()
    assert asked == [] and not autosave.recovery_dir().exists() and not w.isWindowModified()


def test_start_up_offers_only_what_a_dead_process_left(start, monkeypatch, tmp_path):
    folder = autosave.recovery_dir()
    design = dumps(k_ary_fat_tree(4))
    dead = _write_recovery(folder, "a", None, _dead_pid(), design, when="2020-01-15T09:41:00+00:00")
    live = _write_recovery(folder, "b", None, os.getppid(), design)       # another fabricviz running
    junk = folder / "c.json"
    junk.write_text("{not json", encoding="utf-8")
    killed = folder / f".d.json.{_dead_pid()}.{atomic.host_name()}.k3j_9a2q.tmp"   # killed mid-write
    killed.write_text('{"format": "fabricviz-rec', encoding="utf-8")
    asked = _ask(monkeypatch, [False])
    (w,) = start()
    stamp = dt.datetime.fromisoformat("2020-01-15T09:41:00+00:00").astimezone().strftime("%Y-%m-%d %H:%M")
    assert asked == [f"Recover unsaved changes to untitled from {stamp}?"]
    assert not dead.exists() and live.exists() and junk.exists()          # Discard deletes it
    assert _files(folder) == ["b.json", "c.json"]
    assert not w.isWindowModified() and w.document.display_name == "demo-fat-tree.json"


def test_later_keeps_the_file_and_recover_of_untitled_saves_where_asked(start, monkeypatch, tmp_path):
    folder = autosave.recovery_dir()
    design = dumps(k_ary_fat_tree(4))
    rec = _write_recovery(folder, "a", None, _dead_pid(), design,
                          when=dt.datetime.now().astimezone().isoformat(timespec="seconds"))
    _ask(monkeypatch, [None])
    start()
    assert rec.exists()
    asked = _ask(monkeypatch, [True])
    (w,) = start()
    assert re.fullmatch(r"Recover unsaved changes to untitled from \d\d:\d\d\?", asked[0])
    assert w.isWindowModified() and w.document.path is None and w.windowTitle() == "untitled[*] \u2014 fabricviz"
    assert dumps(w.fabric) == design and w.files.autosave.path == rec
    assert rec.exists() and json.loads(rec.read_text(encoding="utf-8"))["pid"] == os.getpid()
    out = tmp_path / "saved.json"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(out), "")))
    assert w.files.save() is True
    assert out.read_text(encoding="utf-8") == design and _files(folder) == []


# ---------------------------------------------------------------------- the real thing: SIGKILL
CHILD = r"""
import os, sys, time, traceback
from PySide6 import QtCore, QtWidgets
from fabricviz.cli import main
from fabricviz.formats.native import dumps
from fabricviz.ui.main_window import MainWindow
app = QtWidgets.QApplication(["fabricviz"])

def drive():                                          # a failure ends the app, saying why
    if not [x for x in app.topLevelWidgets() if isinstance(x, MainWindow) and hasattr(x, "files")
            and x.files.autosave is not None]:
        QtCore.QTimer.singleShot(20, drive)           # opening the file ran an event loop: not up yet
        return
    try:
        user()
    except BaseException:
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)

def user():                                           # the user, once `fabricviz FILE` is up
    (w,) = [x for x in app.topLevelWidgets() if isinstance(x, MainWindow)]
    a = w.files.autosave
    a.thread_devices = 0                              # the worker path, as for a big design
    assert a.interval_ms == 100, a.interval_ms        # from the fresh HOME's settings file
    ed, f = w.editor, w.editor.fabric

    def autosaved():
        deadline = time.monotonic() + 60
        while a._written != a._changes or a._busy:
            if a.last_error is not None:
                raise RuntimeError(f"autosave failed: {a.last_error}")
            if time.monotonic() > deadline:
                raise RuntimeError("no autosave within 60 s")
            app.processEvents()
            a.wait(0.01)
    ed.rename(f.find("leaf01"), "leafA")
    autosaved()
    print("first", flush=True)
    ed.move([f.find("spine01"), f.find("node003")], 40.0, -25.0)
    ed.remove([f.find("node007")], [])
    ed.rename(f.find("node002/gpu0"), "node002/gpuX")
    ed.add_part("QM9700", 123.0, 456.0)
    autosaved()
    open(sys.argv[2], "w", encoding="utf-8", newline="\n").write(dumps(ed.fabric))
    print("autosaved", flush=True)

QtCore.QTimer.singleShot(0, drive)
sys.exit(main([sys.argv[1]]))                         # what `python -m fabricviz FILE` runs
"""


def test_sigkill_after_edits_then_start_again_recovers_the_edited_design(start, monkeypatch, tmp_path, k8):
    home = tmp_path / "home"
    config = home / ".config"
    ini = config / "fabricviz" / "fabricviz.ini"
    ini.parent.mkdir(parents=True)
    ini.write_text("[autosave]\ninterval_ms=100\n", encoding="utf-8")
    expected = tmp_path / "expected.json"
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(config), XDG_DATA_HOME=str(home / ".local/share"),
               XDG_CACHE_HOME=str(home / ".cache"), QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(k8), str(expected)], env=env, cwd=str(tmp_path),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    got: queue.Queue[str] = queue.Queue()

    def read():
        for line in iter(child.stdout.readline, ""):
            got.put(line)
        got.put("")                                                   # the child's output ended
    threading.Thread(target=read, daemon=True).start()
    lines: list[str] = []
    try:
        deadline = time.monotonic() + 60
        while len(lines) < 2 and (not lines or lines[-1]):
            try:
                lines.append(got.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                lines.append("(nothing within 60 s)")
                break
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        err = child.stderr.read()
        child.stderr.close()
    assert lines == ["first\n", "autosaved\n"], f"child said {lines!r}; its stderr:\n{err}"
    assert child.returncode == -signal.SIGKILL
    edited = expected.read_text(encoding="utf-8")
    original = k8.read_text(encoding="utf-8")
    assert edited != original
    # start again with the same HOME: recovery is offered, with the time of the last autosave
    QtCore.QSettings.setPath(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope, str(config))
    folder = autosave.recovery_dir()
    assert folder == config / "fabricviz" / "recovery"
    (rec_file,) = folder.iterdir()
    saved_at = dt.datetime.fromisoformat(json.loads(rec_file.read_text(encoding="utf-8"))["saved_at"])
    asked = _ask(monkeypatch, [True])
    (w,) = start(str(k8))
    assert asked == [f"Recover unsaved changes to k8.json from {saved_at.astimezone():%H:%M}?"]
    assert dumps(w.fabric) == edited                                     # byte for byte
    assert w.isWindowModified() and w.windowTitle() == "k8.json[*] \u2014 fabricviz" and w.document.path == k8
    w.acts["undo"].trigger()                                              # undo: the file on disk
    assert dumps(w.fabric) == original and not w.isWindowModified()
    w.acts["redo"].trigger()
    assert dumps(w.fabric) == edited and w.isWindowModified()
    assert w.files.save() is True                                              # to the original path
    assert k8.read_text(encoding="utf-8") == edited and _files(folder) == []


@pytest.mark.parametrize("button, answer", [("Recover", True), ("Discard", False), ("Later", None)])
def test_the_recovery_question_is_a_dialog_with_three_answers(qtbot, tmp_path, button, answer):
    rec = autosave.read_recovery(_write_recovery(tmp_path, "r", "/designs/k8.json", 1, "{}",
                                                 when="2020-01-15T09:41:00+00:00"))
    seen = []

    def click():
        box = QtWidgets.QApplication.activeModalWidget()
        seen.append((box.objectName(), box.text(), box.informativeText()))
        next(b for b in box.buttons() if b.text() == button).click()
    QtCore.QTimer.singleShot(0, click)
    assert autosave.ask_recover(None, rec) is answer
    stamp = rec.saved_at.astimezone().strftime("%Y-%m-%d %H:%M")
    assert seen == [("recover_box", f"Recover unsaved changes to k8.json from {stamp}?",
                     "fabricviz was closed without saving /designs/k8.json. "
                     "Recover opens the autosaved design; Discard deletes it.")]


def test_a_recovery_file_that_is_not_one_is_refused_with_its_name(tmp_path):
    p = tmp_path / "r.json"
    for text, why in (("{", "not a fabricviz recovery file (JSONDecodeError)"),
                      ('{"format": "other"}', "not a fabricviz recovery file"),
                      ('{"format": "fabricviz-recovery", "version": 1}',
                       "a recovery file with missing or wrong fields")):
        p.write_text(text, encoding="utf-8")
        with pytest.raises(autosave.FabricError) as e:
            autosave.read_recovery(p)
        assert str(e.value) == f"{p}: {why}"


def test_a_recovery_for_another_file_opens_its_own_window_and_a_broken_one_is_kept(start, monkeypatch, k8,
                                                                                 tmp_path):
    folder = autosave.recovery_dir()
    other = tmp_path / "other.json"
    save_fabric(k_ary_fat_tree(4), other)
    edited = k_ary_fat_tree(8)
    edited.rename(edited.find("leaf01"), "leafQ")
    good = _write_recovery(folder, "a", str(k8.resolve()), _dead_pid(), dumps(edited),
                           when="2020-01-15T09:41:00+00:00")
    broken = _write_recovery(folder, "b", None, _dead_pid(), '{"format": "fabricviz", "version": 1, "devices": 5}',
                             when="2020-01-15T09:42:00+00:00")
    shown = []
    monkeypatch.setattr(QtWidgets.QMessageBox, "critical", staticmethod(lambda p, t, text: shown.append((t, text))))
    asked = _ask(monkeypatch, [True, True])
    main, w = start(str(other))
    assert len(asked) == 2 and asked[0].startswith("Recover unsaved changes to k8.json from 2020-01-15 ")
    assert main.document.path == other and not main.isWindowModified()              # the file asked for stays
    assert w.document.path == k8 and w.isWindowModified() and dumps(w.fabric) == dumps(edited)
    assert w.editor.stack.count() == 1 and w.files.autosave.path == good
    assert len(shown) == 1 and shown[0][0] == "Recovery failed" and shown[0][1].startswith(f"{broken}: ")
    assert broken.exists() and good.exists()


# ---------------------------------------------------------------------- review fixes
def _asks_on_close(monkeypatch, w) -> list[str]:
    """Close ``w`` answering Cancel; what the window asked."""
    asked = []

    def warning(parent, title, text, *a, **k):
        asked.append(text)
        return QtWidgets.QMessageBox.StandardButton.Cancel
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", staticmethod(warning))
    assert w.close() is False
    return asked


@pytest.mark.parametrize("gone", [False, True])
def test_a_recovered_design_with_no_file_on_disk_is_never_clean(start, monkeypatch, tmp_path, gone):
    """Untitled, or its file deleted since: one undo must not make the window "clean" (the
    recovery file deleted and closing asking nothing would lose the recovered work)."""
    folder = autosave.recovery_dir()
    design = dumps(k_ary_fat_tree(4))
    doc = str(tmp_path / "deleted.json") if gone else None
    rec = _write_recovery(folder, "a", doc, _dead_pid(), design)
    _ask(monkeypatch, [True])
    (w,) = start()
    assert dumps(w.fabric) == design and w.isWindowModified() and w.files.autosave.path == rec
    w.acts["undo"].trigger()
    assert w.isWindowModified() and not w.editor.stack.isClean() and rec.exists()
    w.acts["redo"].trigger()
    assert dumps(w.fabric) == design and w.isWindowModified() and rec.exists()
    name = "deleted.json" if gone else "untitled"
    assert _asks_on_close(monkeypatch, w) == [f"{name} has unsaved changes. Save them?"]
    assert w.isVisible() and rec.exists()


def test_recovery_files_with_bad_fields_are_skipped_and_kept(start, monkeypatch):
    folder = autosave.recovery_dir()
    design = dumps(k_ary_fat_tree(4))
    good = [_write_recovery(folder, "naive", None, _dead_pid(), design, when="2020-01-15T09:41:00"),
            _write_recovery(folder, "aware", None, _dead_pid(), design, when="2020-01-15T09:42:00+00:00")]
    bad = {"pid_huge": dict(pid=2 ** 70), "pid_zero": dict(pid=0), "pid_negative": dict(pid=-5),
           "pid_2_31": dict(pid=2 ** 31), "pid_bool": dict(pid=True), "pid_text": dict(pid="12"),
           "host_list": dict(host=["a"]), "boot_number": dict(boot_id=5), "started_text": dict(started="9"),
           "started_negative": dict(started=-1), "name_null": dict(name=None), "design_dict": dict(design={}),
           "document_nul": dict(document="/a\u0000b"), "when_text": dict(saved_at="soon"),
           "when_year_1": dict(saved_at="0001-01-01T00:00:00+14:00")}
    files = {k: _write_recovery(folder, k, v.pop("document", None), v.pop("pid", _dead_pid()),
                                 v.pop("design", design), **v)
             for k, v in bad.items()}
    for key, file in files.items():
        with pytest.raises(autosave.FabricError) as e:
            autosave.read_recovery(file)
        assert str(e.value).startswith(f"{file}: ") and "\n" not in str(e.value), key
    pending = autosave.pending_recoveries()                 # was: OverflowError, TypeError
    assert [r.file for r in pending] == good
    assert all(r.saved_at.tzinfo is not None for r in pending)
    assert pending[0].saved_at == dt.datetime(2020, 1, 15, 9, 41).astimezone()   # naive: local time
    asked = _ask(monkeypatch, [None, None])
    start()                                                 # the app starts
    assert len(asked) == 2 and all(f.exists() for f in files.values())


def test_a_reused_pid_or_another_boot_never_hides_a_recovery(start, monkeypatch):
    folder = autosave.recovery_dir()
    design = dumps(k_ary_fat_tree(4))
    me, parent, boot = os.getpid(), os.getppid(), atomic.boot_id()
    if boot is None or atomic.start_time(me) is None:
        pytest.skip("no /proc here: boot ids and start times are not recorded")
    mine, theirs = atomic.start_time(me), atomic.start_time(parent)
    files = {
        "own_pid_old_boot": _write_recovery(folder, "a", None, me, design, boot_id="0-before-reboot", started=mine),
        "own_pid_reused": _write_recovery(folder, "b", None, me, design, boot_id=boot, started=mine + 1),
        "parent_reused": _write_recovery(folder, "c", None, parent, design, boot_id=boot, started=theirs + 1),
        "parent_live": _write_recovery(folder, "d", None, parent, design, boot_id=boot, started=theirs),
        "own_live": _write_recovery(folder, "e", None, me, design, boot_id=boot, started=mine),
    }
    assert sorted(r.file.stem for r in autosave.pending_recoveries()) == ["a", "b", "c"]
    assert sorted(p.stem for p in files.values()) == ["a", "b", "c", "d", "e"]     # all five were written
    assert not hasattr(autosave, "_alive")                   # one liveness test: atomic.process_alive


def test_another_hosts_recovery_is_offered_only_once_untouched_for_a_day(start, monkeypatch):
    folder = autosave.recovery_dir()
    design = dumps(k_ary_fat_tree(4))
    recent = _write_recovery(folder, "a", None, os.getpid(), design, host="nodeB.cluster")
    old = _write_recovery(folder, "b", None, os.getpid(), design, host="nodeC.cluster",
                          when="2020-01-15T09:41:00+00:00")
    t = time.time() - autosave.OTHER_HOST_AFTER_S - 60
    os.utime(old, (t, t))
    temp = folder / f".x.json.{os.getpid()}.nodeB.abcd1234.tmp"     # nodeB's autosave, being written
    temp.write_text("{", encoding="utf-8")
    asked = _ask(monkeypatch, [None])
    start()
    stamp = dt.datetime.fromisoformat("2020-01-15T09:41:00+00:00").astimezone().strftime("%Y-%m-%d %H:%M")
    assert asked == [f"Recover unsaved changes to untitled from {stamp} on nodeC.cluster?"]
    assert recent.exists() and old.exists() and temp.exists()


def test_a_recovery_of_another_host_with_the_same_short_name_is_not_judged_here(start, monkeypatch):
    """login01.clusterA and login01.clusterB share a home: B's live window's file is not offered
    on A (as a dead process of another boot) and so never discarded there."""
    folder = autosave.recovery_dir()
    here = socket.gethostname()
    short = here.split(".")[0]
    there = next(h for h in (f"{short}.clusterB", f"{short}.clusterC") if h != here)
    theirs = _write_recovery(folder, "b", None, os.getpid(), dumps(k_ary_fat_tree(4)), host=there,
                             boot_id="boot-of-host-b", started=1)
    assert autosave.pending_recoveries() == []
    asked = _ask(monkeypatch, [])
    start()
    assert asked == [] and theirs.exists()
    t = time.time() - autosave.OTHER_HOST_AFTER_S - 60       # untouched for a day: offered, naming B
    os.utime(theirs, (t, t))
    assert [r.question().endswith(f" on {there}?") for r in autosave.pending_recoveries()] == [True]


def test_the_dialog_names_another_host(qtbot, tmp_path):
    rec = autosave.read_recovery(_write_recovery(tmp_path, "r", None, 1, "{}", host="nodeB"))
    seen = []

    def click():
        box = QtWidgets.QApplication.activeModalWidget()
        seen.append(box.informativeText())
        next(b for b in box.buttons() if b.text() == "Later").click()
    QtCore.QTimer.singleShot(0, click)
    assert autosave.ask_recover(None, rec) is None
    assert seen == ["fabricviz on nodeB was closed without saving an untitled design. "
                    "Recover opens the autosaved design; Discard deletes it."]


def test_a_running_window_keeps_touching_its_recovery_file(make_window, k8):
    w = make_window(str(k8))
    a = w.files.autosave
    _edit(w)
    assert a.tick() is True
    t = time.time() - 2 * autosave.OTHER_HOST_AFTER_S
    os.utime(a.path, (t, t))
    before = a.path.read_bytes()
    assert a.tick() is False                                 # nothing new to write ...
    assert a.path.stat().st_mtime > t + autosave.OTHER_HOST_AFTER_S    # ... but it says "still here"
    assert a.path.read_bytes() == before
