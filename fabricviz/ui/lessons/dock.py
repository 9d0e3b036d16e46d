"""Classroom in the window: a Lessons menu, the lesson dock, and presentation mode.

A lesson opens like a file (the unsaved-changes prompt still guards the current
design): its fabric replaces the design, :func:`~fabricviz.anim.lessons.run_lesson`
runs in a worker thread, and the dock steps through the precomputed results.
Presentation mode (F5) is full screen with the editing docks hidden, large text
and PageDown/Right/Space, PageUp/Left stepping from anywhere in the window.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lessons import Lesson, StepResult, bundled, find_lesson, load_lesson, run_lesson
from fabricviz.model import FabricError
from fabricviz.ui.jobs import start_thread

#: The editing docks presentation mode hides; every other dock but the lesson's goes too.
PRESENTATION_HIDES = ("palette_dock", "inspector", "history", "findings_dock")
NEXT_KEYS = ("PgDown", "Right", "Space")
#: Lesson text size in presentation mode, relative to normal.
PRESENTATION_SCALE = 1.6
PREV_KEYS = ("PgUp", "Left")


class _Relay(QtCore.QObject):
    """Carries a worker's result to the GUI thread (queued: emitted from the worker)."""
    done = QtCore.Signal(int, object, object)    # token, results, error text


class LessonDock(QtWidgets.QDockWidget):
    """The lesson being taught: its title, the current step's title, explanation and engine lines."""

    ready = QtCore.Signal()          # the worker finished (results or error are set)
    step_changed = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Lesson", parent)
        self.setObjectName("lesson")
        self.lesson: Lesson | None = None
        self.results: list[StepResult] | None = None
        self.error: str | None = None
        self.k = 0                                  # 0-based current step
        self._token = 0
        self._thread: threading.Thread | None = None
        self._relay = _Relay()
        self._relay.done.connect(self._finished)
        w = QtWidgets.QWidget(self)
        outer = QtWidgets.QVBoxLayout(w)
        text = QtWidgets.QWidget(w)
        lay = QtWidgets.QVBoxLayout(text)
        lay.setContentsMargins(0, 0, 0, 0)
        self.scroll = QtWidgets.QScrollArea(w)      # long explanations scroll rather than clip
        self.scroll.setObjectName("lesson_text_scroll")
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(text)
        outer.addWidget(self.scroll, 3)

        def label(name: str, scale: float, bold: bool = False) -> QtWidgets.QLabel:
            lab = QtWidgets.QLabel(text)
            lab.setObjectName(name)
            lab.setWordWrap(True)
            lab.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
            f = lab.font()
            f.setPointSizeF(f.pointSizeF() * scale)
            f.setBold(bold)
            lab.setFont(f)
            lay.addWidget(lab)
            return lab

        self.lesson_title = label("lesson_title", 1.15, bold=True)
        self.step_title = label("lesson_step_title", 1.3, bold=True)
        self.say = label("lesson_say", 1.5)
        lay.addStretch(1)
        self.lines = QtWidgets.QPlainTextEdit(w)
        self.lines.setObjectName("lesson_lines")
        self.lines.setReadOnly(True)
        self.lines.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.WidgetWidth)
        mono = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        mono.setPointSizeF(self.font().pointSizeF() * 1.1)
        self.lines.setFont(mono)
        outer.addWidget(self.lines, 2)
        from fabricviz.ui.canvas.overlays.traffic import LegendBar
        self.legend = LegendBar(w)             # the heatmap's scale on traffic steps (presentation mode
        self.legend.setObjectName("lesson_legend")   # hides the Traffic dock that normally shows it)
        self.legend.hide()
        outer.addWidget(self.legend)
        row = QtWidgets.QHBoxLayout()
        self.prev_button = QtWidgets.QPushButton("◀ Prev", w)
        self.prev_button.setObjectName("lesson_prev")
        self.next_button = QtWidgets.QPushButton("Next ▶", w)
        self.next_button.setObjectName("lesson_next")
        self.position = QtWidgets.QLabel(w)
        self.position.setObjectName("lesson_position")
        self.position.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        row.addWidget(self.prev_button)
        row.addWidget(self.position, 1)
        row.addWidget(self.next_button)
        outer.addLayout(row)
        self.setWidget(w)
        self.prev_button.clicked.connect(self.prev)
        self.next_button.clicked.connect(self.next)
        self._base = {wd: wd.font().pointSizeF() for wd in (self.lesson_title, self.step_title, self.say,
                                                             self.lines, self.position)}
        self.scale = 1.0
        self._render()

    # ------------------------------------------------------------------ running
    def start(self, lesson: Lesson) -> None:
        """Show ``lesson`` at step 1 and run its engines in a worker thread."""
        self._token += 1
        token = self._token
        self.lesson, self.results, self.error, self.k = lesson, None, None, 0
        relay = self._relay

        def deliver(out: Any) -> None:
            failed = isinstance(out, Exception)
            relay.done.emit(token, None if failed else out, str(out) if failed else None)

        self._thread = start_thread(lambda: run_lesson(lesson), deliver, "lesson")
        self._render()

    def wait(self, timeout: float | None = None) -> None:
        """Join the worker (tests, closing); the results still arrive through the event loop."""
        if self._thread is not None:
            self._thread.join(timeout)

    def _finished(self, token: int, results: Any, error: Any) -> None:
        if token != self._token:                 # an older lesson's run
            return
        self.results, self.error = results, error
        self._render()
        self.ready.emit()

    # ------------------------------------------------------------------ stepping
    @property
    def count(self) -> int:
        return len(self.lesson.steps) if self.lesson is not None else 0

    def go(self, k: int) -> None:
        """Show step ``k`` (0-based, clamped)."""
        if not self.count:
            return
        k = max(0, min(self.count - 1, k))
        if k != self.k:
            self.k = k
            self._render()
            self.step_changed.emit(k)

    def next(self) -> None:
        self.go(self.k + 1)

    def prev(self) -> None:
        self.go(self.k - 1)

    def set_scale(self, factor: float) -> None:
        """Text size relative to normal (presentation mode uses 2)."""
        self.scale = factor
        for wd, size in self._base.items():
            f = wd.font()
            f.setPointSizeF(size * factor)
            wd.setFont(f)

    def _render(self) -> None:
        les = self.lesson
        if les is None:
            self.lesson_title.setText("No lesson open — pick one from the Lessons menu")
            for lab in (self.step_title, self.say, self.position):
                lab.setText("")
            self.lines.setPlainText("")
            self.prev_button.setEnabled(False)
            self.next_button.setEnabled(False)
            return
        step = les.steps[self.k]
        num = f"{les.number} · " if les.number is not None else ""
        self.lesson_title.setText(num + les.title)
        self.step_title.setText(step.title)
        self.say.setText(step.say)
        if self.error is not None:
            text = f"error: {self.error}"
        elif self.results is None:
            text = "running the engines…"
        elif self.k < len(self.results):
            text = "\n".join(self.results[self.k].lines)
        else:
            text = ""
        self.lines.setPlainText(text)
        self.position.setText(f"step {self.k + 1} of {self.count}")
        self.prev_button.setEnabled(self.k > 0)
        self.next_button.setEnabled(self.k < self.count - 1)


# ---------------------------------------------------------------------- opening lessons
def open_lesson(window: Any, ref: str) -> bool:
    """Open bundled lesson ``ref`` (number, name or file) in ``window``; False if refused or cancelled."""
    dock = integrate(window)
    try:
        lesson = find_lesson(ref)
        fabric = lesson.build_fabric()
    except FabricError as exc:
        window.statusBar().showMessage(f"refused: {exc}", 10000)
        return False
    maybe_save = getattr(window, "maybe_save", None)
    if maybe_save is not None and not maybe_save():
        return False
    ed = window.editor
    ed.stack.clear()                 # like opening a file: the lesson starts a fresh history
    ed.set_fabric(fabric)
    ed.stack.setClean()
    window.lesson_stage.begin(fabric)
    name = f"lesson {lesson.number} · {lesson.name}" if lesson.number is not None else f"lesson {lesson.name}"
    if hasattr(window, "display_name"):
        window.path = None
        window.display_name = name
    update_title = getattr(window, "_update_title", None)
    if update_title is not None:
        update_title()
    dock.start(lesson)
    dock.show()
    dock.raise_()
    if not dock.isFloating():          # room to read the explanation without scrolling
        window.resizeDocks([dock], [max(320, int(window.height() * 0.6))], QtCore.Qt.Orientation.Vertical)
    window.statusBar().showMessage(f"opened {name}", 5000)
    return True


def _lesson_label(num: int, name: str, path: Any) -> str:
    try:
        title = load_lesson(path, num).title
    except FabricError:
        title = name
    return f"{num} · {title}"


# ---------------------------------------------------------------------- presentation mode
class Presentation(QtCore.QObject):
    """Full screen, editing docks hidden, big lesson text, keyboard stepping; F5 or Esc leaves."""

    def __init__(self, window: Any, dock: LessonDock) -> None:
        super().__init__(window)
        self.window, self.dock = window, dock
        self.hidden: list[QtWidgets.QWidget] = []     # docks, toolbars and the menu bar hidden
        self.lesson_was_visible = False
        self.prev_state = QtCore.Qt.WindowState.WindowNoState
        act = QtGui.QAction("&Presentation Mode", window)
        act.setObjectName("action_presentation")
        act.setCheckable(True)
        act.setShortcut(QtGui.QKeySequence("F5"))
        act.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        act.setToolTip("full screen, large lesson text, PageDown/PageUp to step; Esc or F5 leaves")
        act.toggled.connect(self.set_active)
        window.addAction(act)
        self.action = act
        self.shortcuts: list[QtGui.QShortcut] = []
        for keys, slot in ((NEXT_KEYS, dock.next), (PREV_KEYS, dock.prev), (("Esc",), self.leave)):
            for key in keys:
                sc = QtGui.QShortcut(QtGui.QKeySequence(key), window)
                sc.setObjectName(f"presentation_{key.lower()}")
                sc.setContext(QtCore.Qt.ShortcutContext.WindowShortcut)
                sc.setEnabled(False)       # only in presentation mode: arrows/Space belong to the canvas
                sc.activated.connect(slot)
                self.shortcuts.append(sc)

    @property
    def active(self) -> bool:
        return self.action.isChecked()

    def leave(self) -> None:
        self.action.setChecked(False)

    def set_active(self, on: bool) -> None:
        w = self.window
        if on:
            self.prev_state = w.windowState()
            named = [getattr(w, a, None) for a in PRESENTATION_HIDES]
            others = w.findChildren(QtWidgets.QDockWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly)
            docks = list(dict.fromkeys(d for d in named + others
                                       if isinstance(d, QtWidgets.QDockWidget) and d is not self.dock))
            bars = w.findChildren(QtWidgets.QToolBar) + [w.menuBar()]
            self.hidden = [d for d in docks + bars if d.isVisible()]   # the canvas and the lesson only
            for d in self.hidden:
                d.hide()
            self.lesson_was_visible = self.dock.isVisible()
            if self.dock.lesson is not None:
                self.dock.show()
                self.dock.raise_()
            self.dock.set_scale(PRESENTATION_SCALE)
            w.showFullScreen()
            if self.dock.isVisible() and not self.dock.isFloating():
                w.resizeDocks([self.dock], [max(400, int(w.width() * 0.45))], QtCore.Qt.Orientation.Horizontal)
        else:
            self.dock.set_scale(1.0)
            w.setWindowState(self.prev_state)
            if not self.lesson_was_visible:
                self.dock.hide()
            for d in self.hidden:
                d.show()
            self.hidden = []
        for sc in self.shortcuts:
            sc.setEnabled(on)
        fit = getattr(getattr(w, "view", None), "fit_all", None)
        if fit is not None:                       # the canvas changed size: show the whole lesson fabric
            QtCore.QTimer.singleShot(0, w.view, fit)
        w.statusBar().showMessage("presentation mode: PageDown / PageUp step, Esc leaves" if on
                                  else "left presentation mode", 5000)


# ---------------------------------------------------------------------- wiring
def integrate(window: Any) -> LessonDock:
    """Add the Lessons menu, the lesson dock and presentation mode to ``window`` (idempotent).

    ``window`` needs ``editor`` (``fabric``, ``stack``, ``set_fabric``) and a
    status bar; ``maybe_save``/``display_name``/``_update_title`` are used when
    present. Kept as ``window.lesson_dock``, ``window.lessons_menu``,
    ``window.presentation``, ``window.action_presentation`` and ``window.lesson_stage``
    (the canvas following the steps, :mod:`fabricviz.ui.lessons.stage`).
    """
    existing = getattr(window, "lesson_dock", None)
    if isinstance(existing, LessonDock):
        return existing
    dock = LessonDock(window)
    window.addDockWidget(QtCore.Qt.DockWidgetArea.RightDockWidgetArea, dock)
    inspector = getattr(window, "inspector", None)
    if isinstance(inspector, QtWidgets.QDockWidget):     # the lesson takes the inspector's room, as a tab
        window.tabifyDockWidget(inspector, dock)
    dock.hide()
    window.lesson_dock = dock         # set before building actions: open_lesson calls integrate
    from fabricviz.ui.lessons.stage import LessonStage
    window.lesson_stage = LessonStage(window, dock)
    menu = window.menuBar().addMenu("&Lessons")
    menu.setObjectName("lessons_menu")
    for num, name, path in bundled():
        act = menu.addAction(_lesson_label(num, name, path))
        act.setObjectName(f"action_lesson_{num}")
        act.setToolTip(str(path))
        act.triggered.connect(lambda _=False, n=num: open_lesson(window, str(n)))
    menu.addSeparator()
    pres = Presentation(window, dock)
    menu.addAction(pres.action)
    act = dock.toggleViewAction()
    act.setObjectName("action_lesson_dock")
    menu.addAction(act)
    window.lessons_menu = menu
    window.presentation = pres
    window.action_presentation = pres.action
    return dock


__all__ = ["LessonDock", "PRESENTATION_HIDES", "Presentation", "integrate", "open_lesson"]
