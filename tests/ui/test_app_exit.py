"""Closing the last window ends the process at once (issue 29: "the process lingers 5–10 s after
the window closes"): nothing is left running and nothing is torn down object by object.

The linger was Python's own teardown after the event loop returned: every object of the design
and its canvas destroyed one by one (a radix-32 design: 2.5 s of it on this machine, against
0.08 s when the process ends right after the exit handlers). The real entry point (``fabricviz
FILE``: ``cli.main``) runs in a child process; once its window is up, the child closes it.
Counted, not timed: the threads and child processes still alive when the exit handlers run
(none), and that nothing after them runs — ``cli.main`` never returns into the teardown.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6 import QtCore

from fabricviz.formats.native import save_fabric
from fabricviz.generate import k_ary_fat_tree

ROOT = Path(__file__).resolve().parents[2]

CHILD = r"""
import atexit, os, sys, threading
import psutil
from PySide6 import QtCore, QtWidgets
from fabricviz.cli import main
import fabricviz.ui.app as app_module

def say(text):                      # os.write: works even while Python tears itself down
    os.write(1, (text + "\n").encode())

def drive(windows):
    w = windows[0]
    if not w.isVisible():
        QtCore.QTimer.singleShot(20, lambda: drive(windows))
        return
    say(f"up with {len(w.scene.items())} canvas items")

    def at_exit():
        threads = sorted(t.name for t in threading.enumerate() if t is not threading.main_thread()
                         and t.name != "fabricviz-kernels")      # the first run's compile: a daemon
        kids = psutil.Process().children(recursive=True)
        say(f"at exit: threads {threads}, child processes {len(kids)}")
    atexit.register(at_exit)
    w.close()

start = app_module.start_windows

def start_and_drive(path=None):
    windows = start(path)
    QtCore.QTimer.singleShot(0, lambda: drive(windows))
    return windows

app_module.start_windows = start_and_drive
code = main([sys.argv[1]])
say(f"main returned {code}")          # then Python's teardown: never reached
"""


@pytest.mark.slow
def test_closing_the_window_ends_the_process_with_nothing_left_running_and_no_teardown(tmp_path):
    design = tmp_path / "k8.json"
    save_fabric(k_ary_fat_tree(8), design)
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, "-c", CHILD, str(design)], env=env, capture_output=True, text=True,
                       timeout=300)
    lines = r.stdout.splitlines()
    assert r.returncode == 0, r.stderr
    up = [ln for ln in lines if ln.startswith("up with ")]
    assert len(up) == 1 and int(up[0].split()[2]) > 400             # a design worth tearing down
    assert lines[1:] == ["at exit: threads [], child processes 0"]    # and no "main returned": no teardown
    # what closing writes to the settings is on disk (written before the process ended)
    ini = QtCore.QSettings(str(home / ".config" / "fabricviz" / "fabricviz.ini"),
                           QtCore.QSettings.Format.IniFormat)
    assert ini.allKeys(), "the window's layout was not written"
