"""The one job runner: a modal wait (opening a file) with its progress dialog and Cancel."""

from __future__ import annotations

import time

import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.model import FabricError
from fabricviz.ui.jobs import MODAL_DELAY_MS, Cancelled, JobRunner


ENDED: list[bool] = []


def _slow(progress):
    for i in range(10):
        time.sleep(0.08)
        progress(i / 10)          # raises Cancelled once the job is cancelled
    progress(1.0)                 # a cancel during the last sleep (a loaded machine) stops it here
    ENDED.append(True)
    return "done"


def _dialogs():
    return [w for w in QtWidgets.QApplication.topLevelWidgets() if w.objectName() == "job_progress"
            and w.isVisible()]


def test_a_quick_job_returns_without_a_dialog_and_errors_come_back_raised(qtbot):
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
    QtCore.QTimer.singleShot(MODAL_DELAY_MS // 3, press_cancel)    # fires once the dialog's loop runs
    ENDED.clear()
    with pytest.raises(Cancelled):
        r.run_modal(None, "slow", _slow)
    assert shown == ["slow"] and not r.active
    time.sleep(0.9)                               # long enough for the job to have ended, had it gone on
    assert ENDED == []                            # it stopped at its next progress report
    assert r.run_modal(None, "again", _slow) == "done"     # the runner is usable again
