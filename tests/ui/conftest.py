"""UI test fixtures: an isolated QSettings folder and a shown main window."""

from __future__ import annotations

import pytest
from PySide6 import QtCore


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path, monkeypatch):
    """Recent files and last folders go to a temp folder, never the developer's own."""
    QtCore.QSettings.setPath(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope,
                             str(tmp_path / "settings"))
    yield


@pytest.fixture(autouse=True)
def _no_dialog_left_open():
    """A non-modal dialog a test leaves open (Record Animation, RoCE Settings, ...) is a window of
    its own over the next test's canvas, where it takes that test's pointer events: what a test
    opened is closed when it ends."""
    from PySide6 import QtWidgets
    app = QtWidgets.QApplication.instance()
    before = set(app.topLevelWidgets()) if app is not None else set()
    yield
    app = QtWidgets.QApplication.instance()
    if app is None:
        return
    for w in app.topLevelWidgets():
        if isinstance(w, QtWidgets.QDialog) and w.isVisible() and w not in before:
            w.close()
    QtWidgets.QApplication.processEvents()


@pytest.fixture(autouse=True)
def _no_button_left_held():
    """``QTest.mouseDClick`` (Qt 6) ends with the button still down in the application's state
    (``QGuiApplication.mouseButtons()``): the next test's pointer moves would be drags, not hovers
    (a cable-drawing test then finds no port markers). Whatever a test left held is released."""
    yield
    from PySide6 import QtGui, QtWidgets
    from PySide6.QtTest import QTest
    held = QtGui.QGuiApplication.mouseButtons()
    if QtWidgets.QApplication.instance() is None or held == QtCore.Qt.MouseButton.NoButton:
        return
    w = QtWidgets.QWidget()
    w.resize(8, 8)
    w.show()
    for b in (QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.RightButton, QtCore.Qt.MouseButton.MiddleButton):
        if held & b:
            QTest.mouseRelease(w, b)
    w.close()
    w.deleteLater()
    assert QtGui.QGuiApplication.mouseButtons() == QtCore.Qt.MouseButton.NoButton


@pytest.fixture
def make_window(qtbot, monkeypatch):
    """``make_window(path=None)`` → a shown MainWindow; closing never prompts at teardown."""
    from PySide6 import QtWidgets

    from fabricviz.ui import MainWindow
    windows = []
    # a window left with unsaved changes must not block teardown on a modal prompt
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning",
                        staticmethod(lambda *a, **k: QtWidgets.QMessageBox.StandardButton.Discard))

    def make(path=None):
        w = MainWindow(path)
        qtbot.addWidget(w)
        w.setWindowState(QtCore.Qt.WindowState.WindowNoState)   # not maximised: the size tests assume
        w.resize(1400, 900)
        w.show()
        qtbot.waitExposed(w)
        QtWidgets.QApplication.processEvents()
        windows.append(w)
        return w

    yield make
    for w in windows:
        w.editor.stack.setClean()


@pytest.fixture
def shared_runs(monkeypatch):
    """The lesson dock gets the session's one engine run of each lesson (tests/anim/lesson_runs.py);
    only for tests that do not edit the lesson's fabric."""
    from fabricviz.ui.lessons import dock as lesson_dock
    from tests.anim.lesson_runs import shared_run
    monkeypatch.setattr(lesson_dock, "run_lesson", shared_run)



@pytest.fixture
def sweep_window(make_window, qtbot):
    """(window, Subnet Manager dock) on the demo, the dock opened from the View menu and its
    first sweep loaded."""
    w = make_window()
    d = w.sweep_dock
    with qtbot.waitSignal(d.ready, timeout=60_000):
        w.findChild(type(w.acts["fit"]), "action_sweep").trigger()   # View ▸ Subnet Manager Sweep
    return w, d
