"""An autosave killed while it writes leaves nothing to offer or clean up (issue 28: a killed
autosave left a 0-byte temp file).

A real child process runs a Document with an Autosave, edits, and writes its recovery file; its
``fsync`` is replaced so the write stops at a known point (the data written, not yet in place)
and says so, and the test SIGKILLs it there — no timing involved.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from fabricviz.formats.native import dumps, loads, save_fabric
from fabricviz.generate import k_ary_fat_tree
from fabricviz.model import atomic
from fabricviz.ui.document import autosave
from fabricviz.ui.document.document import Document

ROOT = Path(__file__).resolve().parents[3]

#: argv: design file, recovery folder, "first" (killed in the first autosave) or "second"
#: (one whole autosave, then killed in the next), "anonymous" or "named" (no O_TMPFILE, as on NFS).
CHILD = r"""
import os, sys, time
from PySide6 import QtWidgets
from fabricviz.formats.native import loads
from fabricviz.model import atomic
from fabricviz.ui.document.autosave import Autosave
from fabricviz.ui.document.document import Document
app = QtWidgets.QApplication(["child"])
design, folder, when, how = sys.argv[1:5]
doc = Document(loads(open(design, encoding="utf-8").read()))
a = Autosave(doc, interval_ms=3_600_000, folder=folder)      # ticks only when told
if how == "named":
    atomic._anonymous = lambda folder: None
ed, f = doc.editor, doc.fabric
assert ed.rename(f.find("leaf01"), "leafA")
if when == "second":
    assert a.tick() and a.last_error is None
    print("first", flush=True)
    assert ed.rename(f.find("spine01"), "spineB")

def paused(fd):
    print("in fsync", flush=True)
    time.sleep(3600)
atomic.os.fsync = paused
a.tick()
print("not killed", flush=True)
"""


def kill_in_autosave(design: Path, folder: Path, when: str, how: str) -> list[str]:
    """Run CHILD and SIGKILL it in the autosave's fsync; its output lines."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), QT_QPA_PLATFORM="offscreen")
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(design), str(folder), when, how], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        while True:
            line = child.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
            if line == "in fsync\n":
                child.send_signal(signal.SIGKILL)
                break
    finally:
        child.wait(60)
        err = child.stderr.read()
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL, err
    return lines


@pytest.fixture
def k4(tmp_path) -> Path:
    path = tmp_path / "k4.json"
    save_fabric(k_ary_fat_tree(4), path)
    return path


def test_an_autosave_killed_in_its_first_write_leaves_nothing(tmp_path, k4):
    folder = tmp_path / "recovery"
    if not atomic._anonymous_supported(tmp_path):
        pytest.skip("no O_TMPFILE on this file system (the named case is tested below)")
    assert kill_in_autosave(k4, folder, "first", "anonymous") == ["in fsync"]
    assert os.listdir(folder) == []                      # nothing to clean up
    assert autosave.pending_recoveries(folder) == []     # nothing to offer


def test_an_autosave_killed_in_a_later_write_leaves_the_last_whole_one(tmp_path, k4):
    folder = tmp_path / "recovery"
    if not atomic._anonymous_supported(tmp_path):
        pytest.skip("no O_TMPFILE on this file system (the named case is tested below)")
    assert kill_in_autosave(k4, folder, "second", "anonymous") == ["first", "in fsync"]
    (only,) = os.listdir(folder)
    assert only.endswith(".json") and not only.startswith(".")
    (rec,) = autosave.pending_recoveries(folder)
    got = rec.load()
    assert got.find("leafA") is not None and got.find("spine01") is not None     # the first autosave, whole


def test_where_a_killed_autosave_leaves_a_named_temp_the_next_autosave_removes_it(qapp, tmp_path, k4):
    """No O_TMPFILE (an NFS home): the killed writer's temp file (pid-named) is never offered,
    and the next autosave of any window removes it, not only the next start."""
    folder = tmp_path / "recovery"
    assert kill_in_autosave(k4, folder, "first", "named") == ["in fsync"]
    (temp,) = os.listdir(folder)
    assert temp.startswith(".") and temp.endswith(".tmp") and (folder / temp).stat().st_size > 0
    doc = Document(loads(k4.read_text(encoding="utf-8")))
    a = autosave.Autosave(doc, interval_ms=3_600_000, folder=folder)
    assert doc.editor.rename(doc.fabric.find("leaf02"), "leafC")
    assert a.tick() and a.last_error is None
    assert os.listdir(folder) == [a.path.name]           # its own file; the dead writer's temp is gone
    assert autosave.pending_recoveries(folder) == []     # a live window's file is not offered
    a.close()
    assert os.listdir(folder) == []
    assert dumps(doc.fabric) != k4.read_text(encoding="utf-8")
