"""The one job runner: a modal wait (opening a file) with its progress dialog and Cancel."""

from __future__ import annotations

import threading

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.model import FabricError
from fabricviz.ui import jobs
from fabricviz.ui.jobs import MODAL_DELAY_MS, Cancelled, JobRunner

ENDED: list[bool] = []
#: the slow job waits here until the test has pressed Cancel (no sleep decides who comes first)
GO_ON = threading.Event()
#: set when the slow job's function has returned or raised
STOPPED = threading.Event()


def _slow(progress):
    """Reports progress, waits until Cancel was pressed, then reports again (which raises Cancelled)."""
    try:
        progress(0.1)
        assert GO_ON.wait(60)       # generous: only a lost Cancel would wait this long
        progress(0.5)               # raises Cancelled once the job is cancelled
        ENDED.append(True)
        return "done"
    finally:
        STOPPED.set()


def _after_the_dialog(shown: threading.Event):
    """A job that reports progress and ends once the dialog's event loop has run."""
    def job(progress):
        progress(0.2)
        assert shown.wait(60)
        progress(1.0)
        return "done"
    return job


def _dialogs():
    return [w for w in QtWidgets.QApplication.topLevelWidgets() if w.objectName() == "job_progress"
            and w.isVisible()]


def test_a_quick_job_returns_without_a_dialog_and_errors_come_back_raised(qtbot, monkeypatch):
    # "quick" is a job that ends within the delay: a delay no loaded machine can outlast makes it so
    monkeypatch.setattr(jobs, "MODAL_DELAY_MS", 600_000)
    r = JobRunner()
    seen = []
    QtCore.QTimer.singleShot(0, lambda: seen.append(len(_dialogs())))
    assert r.run_modal(None, "quick", lambda _p: 42) == 42 and not r.active
    with pytest.raises(FabricError, match="^refused here$"):
        r.run_modal(None, "bad", lambda _p: (_ for _ in ()).throw(FabricError("refused here")))
    QtWidgets.QApplication.processEvents()
    assert seen == [0] and not r.active


def test_a_slow_job_shows_progress_and_cancel_stops_it(qtbot):
    r = JobRunner()
    shown = []

    def press_cancel():
        (dlg,) = _dialogs()
        shown.append(dlg.labelText())
        dlg.findChild(QtWidgets.QPushButton).click()
        GO_ON.set()                               # only now may the job report again
    QtCore.QTimer.singleShot(MODAL_DELAY_MS // 3, press_cancel)    # fires once the dialog's loop runs
    ENDED.clear()
    GO_ON.clear()
    STOPPED.clear()
    with pytest.raises(Cancelled):
        r.run_modal(None, "slow", _slow)
    assert shown == ["slow"] and not r.active
    assert STOPPED.wait(60)                       # the job has ended (generous: a hang guard)
    assert ENDED == []                            # it stopped at its next progress report
    shown_again = threading.Event()
    QtCore.QTimer.singleShot(0, shown_again.set)  # runs in the dialog's loop: the job waits behind it
    assert r.run_modal(None, "again", _after_the_dialog(shown_again)) == "done"   # usable again
