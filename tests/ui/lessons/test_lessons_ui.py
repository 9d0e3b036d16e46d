"""Lessons menu, lesson dock stepping and presentation mode, as the user sees them."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lessons import bundled, find_lesson, load_lesson
from fabricviz.ui.lessons import dock as lessons_ui
from tests.anim.lesson_runs import shared_run


@pytest.fixture(autouse=True)
def shared_lesson_runs(monkeypatch):
    """The dock gets the session's one engine run of each lesson (no test here edits a lesson's fabric)."""
    monkeypatch.setattr(lessons_ui, "run_lesson", shared_run)


def _open(qtbot, w, num=3):
    dock = w.lesson_dock
    act = w.findChild(QtGui.QAction, f"action_lesson_{num}")
    with qtbot.waitSignal(dock.ready, timeout=60_000):
        act.trigger()
    return dock


def test_menu_lists_every_bundled_lesson(make_window):
    w = make_window()
    dock = w.lesson_dock
    assert w.lesson_dock is dock
    menus = [a.text() for a in w.menuBar().actions()]
    assert menus.count("&Lessons") == 1
    got = [a.text() for a in w.acts.menu("lessons").actions() if a.objectName().startswith("action_lesson_")
           and a.objectName()[len("action_lesson_"):].isdigit()]
    assert got == [f"{n} · {load_lesson(p, n).title}" for n, _, p in bundled()]
    assert len(got) == 12 and dock.objectName() == "lesson" and not dock.isVisible()


def test_lesson_3_opens_from_menu_and_steps_to_end(qtbot, make_window):
    w = make_window()
    dock = _open(qtbot, w, 3)
    lesson = find_lesson("3")
    expected = shared_run(lesson)
    assert dock.isVisible() and dock.error is None
    f = w.editor.fabric
    assert f.counts()["ib_switch"] == 5
    assert sorted(d.name for d in f.devices("ib_switch")) == ["sw0", "sw1", "sw2", "sw3", "sw4"]
    assert f.counts() == lesson.build_fabric().counts()
    assert w.editor.stack.isClean() and w.editor.stack.count() == 0
    assert dock.lesson_title.text() == f"3 · {lesson.title}"
    n = len(expected)
    for k, res in enumerate(expected):
        assert dock.position.text() == f"step {k + 1} of {n}"
        assert dock.step_title.text() == res.title
        assert dock.say.text() == res.say
        assert dock.lines.toPlainText() == "\n".join(res.lines)
        if res.action == "check_loops" and k == 1:
            assert "2 credit loop(s) on VL0 (minhop, 1 VL)" in dock.lines.toPlainText().splitlines()
        assert dock.next_button.isEnabled() == (k < n - 1)
        qtbot.mouseClick(dock.next_button, QtCore.Qt.MouseButton.LeftButton)
    assert dock.position.text() == f"step {n} of {n}"
    assert dock.lines.toPlainText().splitlines()[-1] == "4 switch hop(s)"
    qtbot.mouseClick(dock.prev_button, QtCore.Qt.MouseButton.LeftButton)
    assert dock.position.text() == f"step {n - 1} of {n}"
    assert dock.lines.toPlainText().splitlines()[-1] == "no credit loops on any VL (updn, 1 VL)"


def test_unsaved_changes_cancel_keeps_the_design(qtbot, make_window, monkeypatch):
    w = make_window()
    dock = w.lesson_dock
    assert w.editor.add_part("QM9700", 0, 0) is not None
    before = w.editor.fabric
    asked = []

    def cancel(*a, **k):
        asked.append(a)
        return QtWidgets.QMessageBox.StandardButton.Cancel
    monkeypatch.setattr(QtWidgets.QMessageBox, "warning", staticmethod(cancel))
    w.findChild(QtGui.QAction, "action_lesson_3").trigger()
    assert len(asked) == 1
    assert w.editor.fabric is before and not w.editor.stack.isClean()
    assert dock.lesson is None and not dock.isVisible()


def test_presentation_hides_docks_and_restores_the_visible_set(qtbot, make_window):
    w = make_window()
    dock = _open(qtbot, w, 3)
    w.inspector.hide()                      # the user had closed the inspector
    w.palette_dock.show()
    w.history.show()
    w.findings_dock.show()
    names = ("palette_dock", "inspector", "history", "findings_dock")
    before = {a: getattr(w, a).isVisible() for a in names}
    assert before == {"palette_dock": True, "inspector": False, "history": True, "findings_dock": True}
    everyone = {d.objectName(): d.isVisible() for d in w.findChildren(QtWidgets.QDockWidget) if d is not dock}
    assert sum(everyone.values()) >= 3
    QtWidgets.QApplication.processEvents()
    geometry = {d.objectName(): (w.dockWidgetArea(d), d.width(), d.height(), d.isFloating())
                for d in w.findChildren(QtWidgets.QDockWidget) if d.isVisible()}
    tabs = {d.objectName(): sorted(t.objectName() for t in w.tabifiedDockWidgets(d))
            for d in w.findChildren(QtWidgets.QDockWidget)}
    say_size = dock.say.font().pointSizeF()
    w.action_presentation.trigger()
    assert w.action_presentation.isChecked()
    assert w.isFullScreen()
    assert not any(getattr(w, a).isVisible() for a in names)
    assert dock.isVisible()
    assert not any(d.isVisible() for d in w.findChildren(QtWidgets.QDockWidget) if d is not dock)
    assert dock.say.font().pointSizeF() == lessons_ui.PRESENTATION_SCALE * say_size
    bars = [b for b in w.findChildren(QtWidgets.QToolBar) + [w.menuBar()]]
    assert bars and not any(b.isVisible() for b in bars)     # only the canvas and the lesson
    w.action_presentation.trigger()             # F5 again
    assert all(b.isVisible() for b in bars)
    assert not w.isFullScreen()
    assert {a: getattr(w, a).isVisible() for a in names} == before
    assert dock.say.font().pointSizeF() == say_size
    assert {d.objectName(): d.isVisible() for d in w.findChildren(QtWidgets.QDockWidget) if d is not dock} \
        == everyone
    QtWidgets.QApplication.processEvents()
    assert {d.objectName(): (w.dockWidgetArea(d), d.width(), d.height(), d.isFloating())
            for d in w.findChildren(QtWidgets.QDockWidget) if d.isVisible()} == geometry
    # Esc leaves too, and restores the same set
    w.action_presentation.trigger()
    assert w.isFullScreen()
    w.presentation.leave()                      # what Esc does
    assert not w.action_presentation.isChecked() and not w.isFullScreen()
    assert {a: getattr(w, a).isVisible() for a in names} == before
    QtWidgets.QApplication.processEvents()
    # the exact layout comes back: same areas, sizes, floating state and tab groups
    assert {d.objectName(): (w.dockWidgetArea(d), d.width(), d.height(), d.isFloating())
            for d in w.findChildren(QtWidgets.QDockWidget) if d.isVisible()} == geometry
    assert {d.objectName(): sorted(t.objectName() for t in w.tabifiedDockWidgets(d))
            for d in w.findChildren(QtWidgets.QDockWidget)} == tabs


def test_page_down_and_keys_step_in_presentation_mode(qtbot, make_window):
    w = make_window()
    dock = _open(qtbot, w, 3)
    w.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is w, timeout=60_000)
    target = w.view.viewport()
    qtbot.keyClick(target, QtCore.Qt.Key.Key_PageDown)
    assert dock.k == 0                      # outside presentation mode the keys belong to the canvas
    w.action_presentation.trigger()
    qtbot.keyClick(target, QtCore.Qt.Key.Key_PageDown)
    assert dock.position.text() == "step 2 of 6"
    assert "2 credit loop(s)" in dock.lines.toPlainText()
    qtbot.keyClick(target, QtCore.Qt.Key.Key_Right)
    qtbot.keyClick(target, QtCore.Qt.Key.Key_Space)
    assert dock.position.text() == "step 4 of 6"
    qtbot.keyClick(target, QtCore.Qt.Key.Key_PageUp)
    qtbot.keyClick(target, QtCore.Qt.Key.Key_Left)
    assert dock.position.text() == "step 2 of 6"
    qtbot.keyClick(target, QtCore.Qt.Key.Key_Escape)
    assert not w.action_presentation.isChecked()
