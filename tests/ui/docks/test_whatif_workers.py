"""The What-if dock's trials on Dask workers (issue 17): the serial numbers, one cluster per session,
Cancel keeping the finished trials, one-line scheduler errors, and no process left behind.

The design is tests/ui/docks/test_whatif_dock.py's RoCE leaf-spine (2 leaves × 2 spines × 2 hosts); the
expected trials come from the engine run serially. Clusters are Dask's in-process threads
(``DaskWorkers.processes = False``) except in the one test about worker processes.
"""

from __future__ import annotations

import os
import socket
import threading

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.formats.native import save_fabric
from fabricviz.generate.leafspine import leaf_spine
from fabricviz.sim import whatif as engine
from fabricviz.sim.whatif import parse_fail, prepare, ranked, run_trials
from fabricviz.ui.docks import whatif_runner
from fabricviz.ui.docks.whatif import WhatifDock
from fabricviz.ui.docks.whatif_runner import FIRST_BATCH, Where
from fabricviz.ui.document.settings import settings
from tests.processes import cluster_children
from tests.ui.whatif_helpers import run_dock, set_controls

WAIT = 60_000                # a generous deadline: only a hang waits this long
LEFT = QtCore.Qt.MouseButton.LeftButton
REAL_TRIAL = engine.run_trial
HELD = 9                                   # the trial held_trial holds back
REACHED, RELEASE = threading.Event(), threading.Event()


def held_trial(shared, j):
    """run_trial, but trial HELD waits until the test lets it go (a Dask task, found by name)."""
    if j == HELD and not RELEASE.is_set():
        REACHED.set()
        RELEASE.wait(WAIT / 1000)
    return REAL_TRIAL(shared, j)


@pytest.fixture
def design(tmp_path):
    p = tmp_path / "ls.json"
    save_fabric(leaf_spine(2, 2, 2), p)
    return p


@pytest.fixture
def expected():
    return run_trials(prepare(leaf_spine(2, 2, 2), parse_fail("cables:1,2"), "permutation", 10, 3))


@pytest.fixture
def open_dock(make_window, design, monkeypatch):
    """``open_dock(processes=False)`` → (window, What-if dock) on the leaf-spine; "Workers" goes to 4
    whatever this machine has."""
    monkeypatch.setattr(os, "cpu_count", lambda: 4)

    def make(processes=False):
        w = make_window(design)
        w.findChild(QtGui.QAction, "action_whatif_dock").trigger()
        QtWidgets.QApplication.processEvents()
        w.whatif_dock.workers.processes = processes
        return w, w.whatif_dock
    return make


def _set(d, ks="1,2", trials=10, worst=False, workers=2, scheduler=""):
    set_controls(d, ks=ks, trials=trials, worst=worst)
    d.workers_box.setValue(workers)
    d.scheduler_edit.setText(scheduler)


def _run(qtbot, d, expect="done"):
    run_dock(qtbot, d, expect, WAIT)


def _said(d):
    """What the job's thread put on the status line before the trials."""
    seen: list[str] = []
    d._said.connect(lambda _run, text: seen.append(text))
    return seen


def test_two_dask_workers_give_the_serial_trials_and_the_cluster_serves_the_next_runs(open_dock, qtbot, expected):
    w, d = open_dock()
    said = _said(d)
    _set(d)
    _run(qtbot, d)
    assert said == ["starting 2 Dask workers…"]
    assert d.shown.results == expected and d.model.rowCount() == 20 and d.progress.value() == 1000
    assert d.status.text() == "20 trials · cables · permutation, intact 300 Gb/s per flow · on 2 Dask workers"
    fo = d.workers._fanout
    client = fo.client
    assert d.workers.where == Where(2) and fo.threads() == 2
    # the next run (worst single failures) uses the same cluster: nothing started
    _set(d, worst=True)
    _run(qtbot, d)
    assert said == ["starting 2 Dask workers…"]
    assert d.workers._fanout is fo and fo.client is client
    assert d.shown.rows() == ranked(run_trials(prepare(leaf_spine(2, 2, 2), parse_fail("cables:1"), worst=True,
                                                       seed=3)))
    # one worker: in this process again, and the cluster is shut down
    _set(d, workers=1)
    _run(qtbot, d)
    assert d.shown.results == expected and d.workers.where is None and fo.client is None
    assert d.status.text() == "20 trials · cables · permutation, intact 300 Gb/s per flow"
    assert said == ["starting 2 Dask workers…"]
    # the choice is kept for the next session (QSettings, read back from its file)
    _set(d, workers=3)
    d.scheduler_edit.setText("tcp://10.0.0.5:8786")
    d.scheduler_edit.editingFinished.emit()
    w.settings.sync()
    d2 = WhatifDock(w.document, w.scene, settings=settings())
    assert (d2.workers_box.value(), d2.workers_box.isEnabled(), d2.scheduler_edit.text()) == (
        3, False, "tcp://10.0.0.5:8786")
    d2.deleteLater()


def test_cancel_on_dask_workers_keeps_the_finished_batch_and_the_run_stops(open_dock, qtbot, expected, monkeypatch):
    _w, d = open_dock()
    REACHED.clear()
    RELEASE.clear()
    monkeypatch.setattr(engine, "run_trial", held_trial)
    _set(d)
    qtbot.mouseClick(d.run_button, LEFT)
    assert REACHED.wait(WAIT / 1000)                 # trial 9, in the second batch, is running
    first = FIRST_BATCH * 2
    qtbot.waitUntil(lambda: d.shown is None and d.running() and len(d.run.results) == first, timeout=WAIT)
    with qtbot.waitSignal(d.finished, timeout=WAIT) as sig:
        qtbot.mouseClick(d.cancel_button, LEFT)
    assert sig.args == ["cancelled"]
    assert d.shown.results == expected[:first] and d.model.rowCount() == 8
    assert d.status.text().startswith("cancelled: 8 of 20 trials kept")
    fo = d.workers._fanout
    RELEASE.set()
    assert d.workers.lock.acquire(timeout=WAIT / 1000)     # the job's thread stopped its map and let go
    d.workers.lock.release()
    assert d.workers._fanout is fo
    _run(qtbot, d)
    assert d.shown.results == expected and d.workers._fanout is fo


CALLS: list[int] = []


def counted_trial(shared, j):
    """run_trial, noting the trials run (workers are threads of this process here)."""
    CALLS.append(j)
    return REAL_TRIAL(shared, j)


def test_cancel_while_the_workers_start_runs_no_trial_and_keeps_the_cluster(open_dock, qtbot, expected,
                                                                            monkeypatch):
    _w, d = open_dock()
    started, go = threading.Event(), threading.Event()

    class SlowStart(whatif_runner.FanOut):
        def __enter__(self):
            started.set()
            go.wait(WAIT / 1000)
            return super().__enter__()
    monkeypatch.setattr(whatif_runner, "FanOut", SlowStart)
    monkeypatch.setattr(engine, "run_trial", counted_trial)
    CALLS.clear()
    said = _said(d)
    _set(d)
    qtbot.mouseClick(d.run_button, LEFT)
    assert started.wait(WAIT / 1000)
    qtbot.waitUntil(lambda: d.status.text() == "starting 2 Dask workers…", timeout=WAIT)
    with qtbot.waitSignal(d.finished, timeout=WAIT) as sig:
        qtbot.mouseClick(d.cancel_button, LEFT)
    assert sig.args == ["cancelled"] and d.status.text() == "cancelled before any trial finished"
    assert d.run_button.isEnabled() and d.shown is None
    go.set()
    assert d.workers.lock.acquire(timeout=WAIT / 1000)     # the cluster came up, then the job stopped
    d.workers.lock.release()
    assert CALLS == [] and d.workers.where == Where(2)      # no trial sent; the cluster is kept
    _run(qtbot, d)
    assert said == ["starting 2 Dask workers…"] and d.shown.results == expected and len(CALLS) == 20


def test_a_bad_or_unreachable_scheduler_is_one_line_and_changes_nothing(open_dock, qtbot, expected):
    _w, d = open_dock()
    _set(d, workers=1)
    _run(qtbot, d)
    shown = d.shown
    _set(d, scheduler="localhost")
    assert not d.workers_box.isEnabled()             # a cluster of its own has its own workers
    qtbot.mouseClick(d.run_button, LEFT)
    assert not d.running()
    assert d.status.text() == "refused: Dask scheduler 'localhost': use tcp://HOST:PORT, the address " \
                              "`dask scheduler` prints"
    with socket.socket() as s:                       # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d.workers.timeout = 0.5
    _set(d, scheduler=f"127.0.0.1:{port}")
    _run(qtbot, d, expect="error")
    assert d.status.text().startswith(f"refused: Dask scheduler 'tcp://127.0.0.1:{port}': no Dask scheduler "
                                      f"answered within 0.5 s")
    assert "\n" not in d.status.text()
    assert d.shown is shown and d.shown.results == expected and d.model.rowCount() == 20
    assert d.workers.where is None and d.run_button.isEnabled()


def test_a_dock_destroyed_shuts_its_cluster_down(make_window, design, qtbot, expected):
    w = make_window(design)
    dock = WhatifDock(w.document, w.scene)
    dock.workers.processes = False
    owner = dock.workers
    _set(dock)
    with qtbot.waitSignal(dock.finished, timeout=WAIT):
        dock.start()
    assert dock.shown.results == expected and owner.where == Where(2)
    fo = owner._fanout
    dock.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    assert owner.closed and owner.where is None and fo.client is None


def test_two_worker_processes_start_once_and_none_is_left_when_the_window_closes(open_dock, qtbot):
    w, d = open_dock(processes=True)
    serial = run_trials(prepare(leaf_spine(2, 2, 2), parse_fail("cables:1"), "permutation", 4, 3))
    before = cluster_children()
    _set(d, ks="1", trials=4)
    _run(qtbot, d)
    assert d.shown.results == serial
    kids = cluster_children() - before
    assert len(kids) == 2                            # the two worker processes, kept for the session
    _run(qtbot, d)
    assert d.shown.results == serial and cluster_children() - before == kids
    w.close()
    assert cluster_children() - before == set()
