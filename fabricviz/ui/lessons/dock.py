"""Classroom in the window: a Lessons menu, the lesson dock, and presentation mode.

A lesson opens like a file (the unsaved-changes prompt still guards the current
design): its fabric replaces the design, :func:`~fabricviz.anim.lessons.run_lesson`
runs as a job, and the dock steps through the precomputed results.
Presentation mode (F5) is full screen with every dock but the lesson's hidden, large
text and PageDown/Right/Space, PageUp/Left stepping from anywhere in the window; leaving
it restores the window's exact layout (QMainWindow.saveState/restoreState).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.anim.lessons import Lesson, StepResult, bundled, load_lesson, run_lesson
from fabricviz.model import FabricError
from fabricviz.ui.canvas.items.labels import NORMAL_PX, PRESENTATION_PX
from fabricviz.ui.document.document import Document

NEXT_KEYS = ("PgDown", "Right", "Space")
#: The explanation shows at least this many lines without scrolling; the engine lines box fewer.
SAY_LINES, ENGINE_LINES = 10, 6
#: Narrowest the lesson text gets (px), so the explanation wraps to readable lines.
MIN_TEXT_WIDTH = 320
#: Lesson text size in presentation mode, relative to normal.
PRESENTATION_SCALE = 1.6
PREV_KEYS = ("PgUp", "Left")


class LessonDock(QtWidgets.QDockWidget):
    """The lesson being taught: its title, the current step's title, explanation and engine lines."""

    ready = QtCore.Signal()          # the worker finished (results or error are set)
    step_changed = QtCore.Signal(int)

    def __init__(self, document: Document, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Lesson", parent)
        self.setObjectName("lesson")
        self.document = document
        self.lesson: Lesson | None = None
        self.results: list[StepResult] | None = None
        self.error: str | None = None
        self.k = 0                                  # 0-based current step
        w = QtWidgets.QWidget(self)
        outer = QtWidgets.QVBoxLayout(w)
        text = QtWidgets.QWidget(w)
        lay = QtWidgets.QVBoxLayout(text)
        lay.setContentsMargins(0, 0, 0, 0)
        self.text_scroll = QtWidgets.QScrollArea(w)      # long explanations scroll rather than clip
        self.text_scroll.setObjectName("lesson_text_scroll")
        self.text_scroll.setWidgetResizable(True)
        self.text_scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.text_scroll.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.text_scroll.setWidget(text)
        outer.addWidget(self.text_scroll, 3)
        self.text_scroll.setMinimumWidth(MIN_TEXT_WIDTH)

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
        outer.addWidget(self.lines, 1)
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
        self._fit_text()
        document.session.cleared.connect(self.clear)
        self._render()

    # ------------------------------------------------------------------ running
    def start(self, lesson: Lesson) -> None:
        """Show ``lesson`` at step 1 and run its engines as a job (on the lesson's own fabrics,
        so an edit meanwhile does not make them stale; another lesson replaces the job)."""
        self.lesson, self.results, self.error, self.k = lesson, None, None, 0
        self.document.session.lesson.open(lesson)
        self.document.jobs.submit("lesson", lambda _progress: run_lesson(lesson), keep_stale=True,
                                  on_done=lambda results: self._finished(results, None),
                                  on_error=lambda error: self._finished(None, error))
        self._render()

    def clear(self) -> None:
        """No lesson (another design was opened): the dock says how to pick one."""
        self.document.jobs.cancel("lesson")
        self.lesson, self.results, self.error, self.k = None, None, None, 0
        self.document.session.lesson.open(None)
        self.legend.hide()
        self._render()

    def wait(self, timeout: float | None = None) -> None:
        """Let the engines finish and deliver (tests, closing)."""
        self.document.jobs.wait("lesson", 60.0 if timeout is None else timeout)

    def _finished(self, results: Any, error: Any) -> None:
        self.results, self.error = results, error
        self._render()
        self.ready.emit()
        self.document.session.lesson.deliver(results)       # the stage shows the step

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
            self.document.session.lesson.show_step(k)

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
        self._fit_text()

    def _fit_text(self) -> None:
        """Room for the titles and :data:`SAY_LINES` lines of the explanation without scrolling;
        the engine lines box gets :data:`ENGINE_LINES` lines (it scrolls, the explanation need not)."""
        say = QtGui.QFontMetrics(self.say.font()).lineSpacing()
        self.say.setMinimumHeight(SAY_LINES * say)
        titles = sum(QtGui.QFontMetrics(lab.font()).lineSpacing() * 2
                     for lab in (self.lesson_title, self.step_title))
        box = self.say.parentWidget()
        lay = box.layout() if box is not None else None
        assert lay is not None                        # the explanation sits in the scrolled text's layout
        self.text_scroll.setMinimumHeight(SAY_LINES * say + titles + 3 * lay.spacing() + 4)
        mono = QtGui.QFontMetrics(self.lines.font()).lineSpacing()
        self.lines.setMinimumHeight(3 * mono + 8)
        self.lines.setMaximumHeight(ENGINE_LINES * mono + 2 * self.lines.frameWidth() + 8)

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


# ---------------------------------------------------------------------- the Lessons menu
def lesson_display_name(lesson: Lesson) -> str:
    """The window title's name of an open lesson."""
    return f"lesson {lesson.number} · {lesson.name}" if lesson.number is not None else f"lesson {lesson.name}"


def lesson_actions(parent: QtCore.QObject, open_lesson: Callable[[str], Any]) -> list[QtGui.QAction]:
    """One action per bundled lesson, "N · title", opening it through ``open_lesson(ref)``."""
    acts = []
    for num, name, path in bundled():
        act = QtGui.QAction(_lesson_label(num, name, path), parent)
        act.setObjectName(f"action_lesson_{num}")
        act.setToolTip(str(path))
        act.triggered.connect(lambda _=False, n=num: open_lesson(str(n)))
        acts.append(act)
    return acts


def _lesson_label(num: int, name: str, path: Any) -> str:
    try:
        title = load_lesson(path, num).title
    except FabricError:
        title = name
    return f"{num} · {title}"


# ---------------------------------------------------------------------- presentation mode
class Presentation(QtCore.QObject):
    """Full screen, editing docks hidden, big lesson text, keyboard stepping; F5 or Esc leaves."""

    def __init__(self, window: QtWidgets.QMainWindow, dock: LessonDock, fit: Callable[[], None]) -> None:
        super().__init__(window)
        self.window, self.dock, self.fit = window, dock, fit
        self.saved: QtCore.QByteArray | None = None   # the window's dock/toolbar layout before
        self.menu_was_visible = True
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
            self.saved = w.saveState()
            self.menu_was_visible = w.menuBar().isVisible()
            docks = w.findChildren(QtWidgets.QDockWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly)
            for d in docks + w.findChildren(QtWidgets.QToolBar) + [w.menuBar()]:
                if d is not self.dock:            # the canvas and the lesson only
                    d.hide()
            if self.dock.lesson is not None:
                self.dock.show()
                self.dock.raise_()
            self.dock.set_scale(PRESENTATION_SCALE)
            # names readable from the back row (the window is the shell, typed here as a QMainWindow)
            w.scene.label_layer.set_pixel_size(PRESENTATION_PX)  # type: ignore[attr-defined]  # the shell's scene
            w.showFullScreen()
            if self.dock.isVisible() and not self.dock.isFloating():
                w.resizeDocks([self.dock], [max(400, int(w.width() * 0.45))], QtCore.Qt.Orientation.Horizontal)
        else:
            self.dock.set_scale(1.0)
            w.scene.label_layer.set_pixel_size(NORMAL_PX)  # type: ignore[attr-defined]  # the shell's scene
            w.setWindowState(self.prev_state)
            if self.saved is not None:            # every dock back where it was, same sizes and tabs
                w.restoreState(self.saved)
                self.saved = None
            w.menuBar().setVisible(self.menu_was_visible)
        for sc in self.shortcuts:
            sc.setEnabled(on)
        QtCore.QTimer.singleShot(0, self, self.fit)   # the canvas changed size: show the whole fabric
        w.statusBar().showMessage("presentation mode: PageDown / PageUp step, Esc leaves" if on
                                  else "left presentation mode", 5000)



__all__ = ["LessonDock", "Presentation", "lesson_actions", "lesson_display_name"]
